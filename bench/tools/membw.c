/* membw.c — the memory-bandwidth bound of a large scan: how long 1 and 2 threads take to move the
 * bytes a prefix sum of n 8-byte numbers moves (read n, write n), with plain and with streaming
 * (non-temporal) stores, each thread on its own contiguous part. Not a scan (each part starts from
 * zero): the time no correct scan of the same bytes can beat with the same kind of stores.
 *
 *   gcc -O2 -pthread bench/tools/membw.c -o membw && mrn-bench ./membw [n] [rounds]
 *
 * Kernels: read (sum only), copy (memcpy: glibc streams large copies), copy-plain (a loop of plain
 * stores), copy-stream, scan-plain, scan-stream (a running sum per part, stored plainly or
 * streamed). Prints the median and the best over rounds (default 7) of each at 1 and 2 threads,
 * after checking each kernel's output once. x86-64 only (streaming stores). */
#define _GNU_SOURCE
#include <emmintrin.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { READ, COPY, COPY_PLAIN, COPY_STREAM, SCAN_PLAIN, SCAN_STREAM, KERNELS };
static const char *names[KERNELS] = {"read", "copy", "copy-plain", "copy-stream", "scan-plain", "scan-stream"};

static int64_t *in, *out, sums[2];
static size_t n;
static int kernel;

typedef struct part {
    size_t lo, hi;
    int t;
} part;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void *run_part(void *p) {
    const part *r = p;
    size_t lo = r->lo, hi = r->hi;
    int64_t s = 0;
    switch (kernel) {
    case READ:
        for (size_t i = lo; i < hi; i++) s += in[i];
        sums[r->t] = s;
        break;
    case COPY: memcpy(out + lo, in + lo, (hi - lo) * sizeof *in); break;
    case COPY_PLAIN:
        for (size_t i = lo; i < hi; i++) out[i] = in[i];
        break;
    case COPY_STREAM:
        for (size_t i = lo; i < hi; i++) _mm_stream_si64((long long *)&out[i], in[i]);
        _mm_sfence();
        break;
    case SCAN_PLAIN:
        for (size_t i = lo; i < hi; i++) out[i] = s += in[i];
        break;
    case SCAN_STREAM:
        for (size_t i = lo; i < hi; i++) _mm_stream_si64((long long *)&out[i], s += in[i]);
        _mm_sfence();
        break;
    }
    return NULL;
}

static double run(int threads) {
    pthread_t t[2];
    part g[2];
    double t0 = now();
    for (int k = 0; k < threads; k++) {
        g[k] = (part){n * (size_t)k / (size_t)threads, n * (size_t)(k + 1) / (size_t)threads, k};
        pthread_create(&t[k], NULL, run_part, &g[k]);
    }
    for (int k = 0; k < threads; k++) pthread_join(t[k], NULL);
    return now() - t0;
}

/* Whether the last run of the kernel at `threads` threads left the right output. */
static int check(int threads) {
    for (int k = 0; k < threads; k++) {
        size_t lo = n * (size_t)k / (size_t)threads, hi = n * (size_t)(k + 1) / (size_t)threads;
        int64_t s = 0;
        for (size_t i = lo; i < hi; i++) {
            s += in[i];
            int64_t want = kernel == SCAN_PLAIN || kernel == SCAN_STREAM ? s : in[i];
            if (kernel != READ && out[i] != want) return 0;
        }
        if (kernel == READ && sums[k] != s) return 0;
    }
    return 1;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    n = argc > 1 ? strtoull(argv[1], NULL, 10) : 100000000;
    int rounds = argc > 2 ? atoi(argv[2]) : 7;
    if (n < 2 || rounds < 1 || rounds > 100) {
        fprintf(stderr, "usage: %s [n >= 2] [rounds 1..100]\n", argv[0]);
        return 2;
    }
    in = malloc(n * sizeof *in);
    out = malloc(n * sizeof *out);
    if (!in || !out) {
        perror("membw: malloc");
        return 2;
    }
    for (size_t i = 0; i < n; i++) in[i] = (int64_t)(i % 2001) - 1000, out[i] = 0;
    printf("%zu 8-byte numbers: %.0f MB read, %.0f MB written; median [best] of %d rounds\n", n,
           (double)n * 8 / 1e6, (double)n * 8 / 1e6, rounds);
    int ok = 1;
    for (kernel = 0; kernel < KERNELS; kernel++) {
        for (int threads = 1; threads <= 2; threads++) {
            double t[100];
            for (int r = 0; r < rounds; r++) t[r] = run(threads);
            int good = check(threads);
            ok &= good;
            qsort(t, (size_t)rounds, sizeof *t, cmp);
            printf("  %-12s %d thread%s  %7.2f ms [%7.2f]%s\n", names[kernel], threads, threads > 1 ? "s" : " ",
                   t[rounds / 2] * 1e3, t[0] * 1e3, good ? "" : "  WRONG OUTPUT");
        }
    }
    return ok ? 0 : 1;
}
