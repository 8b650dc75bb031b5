/* alloc-bench.h — what the allocator benchmarks share. Each benchmark is a program that calls the
 * plain malloc family; the allocator under test is chosen when it runs, by LD_PRELOAD (bench/alloc/run
 * does it for glibc, tbbmalloc, tcmalloc, jemalloc, mimalloc and merino).
 *
 *   <benchmark> THREADS SCALE [MODE]     SCALE 1 is a timed run's size; 0.01 a smoke test's
 *
 * Every program verifies its data (each object is stamped when allocated and checked before it is
 * freed) and ends with one line:
 *   RESULT bench=<name> threads=<n> ops=<n> seconds=<s> mops=<n> peak_rss_kb=<n> rss_after_kb=<n>
 *          rss_at_free_kb=<n> verified=1
 * where rss_at_free_kb is the resident size right after the program freed everything it allocated,
 * and rss_after_kb the same 200 ms later, with the program idle: past the decay periods of the
 * allocators that give free memory back after one (merino's is 100 ms by default). */
#ifndef MERINO_BENCH_ALLOC_H
#define MERINO_BENCH_ALLOC_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct ab_args {
    int threads;
    double scale;
    const char *mode;
} ab_args;

static inline ab_args ab_parse(int argc, char **argv, const char *usage_modes) {
    ab_args a = {argc > 1 ? atoi(argv[1]) : 2, argc > 2 ? atof(argv[2]) : 1.0, argc > 3 ? argv[3] : ""};
    if (a.threads < 1 || a.threads > 1024 || a.scale <= 0) {
        fprintf(stderr, "usage: %s THREADS SCALE %s\n", argv[0], usage_modes);
        exit(2);
    }
    return a;
}

static inline double ab_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline uint64_t ab_rand(uint64_t *s) { /* xorshift64* */
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545f4914f6cdd1dull;
}

static inline long ab_rss_kb(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    long size = 0, rss = 0;
    if (f) {
        if (fscanf(f, "%ld %ld", &size, &rss) != 2) rss = 0;
        fclose(f);
    }
    return rss * (sysconf(_SC_PAGESIZE) / 1024);
}

/* Stamps an object of n bytes (n >= 1) with a value of key: its first and last 8 bytes (or all of
 * a smaller one). ab_verify aborts with a message when the stamp is not there. */
static inline void ab_stamp(void *p, size_t n, uint64_t key) {
    unsigned char *c = (unsigned char *)p;
    if (n < 16) {
        for (size_t i = 0; i < n; i++) c[i] = (unsigned char)(key + i);
        return;
    }
    uint64_t k2 = key ^ n;
    memcpy(c, &key, 8);
    memcpy(c + n - 8, &k2, 8);
}

static inline void ab_verify(const void *p, size_t n, uint64_t key, const char *bench) {
    const unsigned char *c = (const unsigned char *)p;
    int ok = 1;
    if (n < 16) {
        for (size_t i = 0; i < n; i++) ok &= c[i] == (unsigned char)(key + i);
    } else {
        uint64_t a, b;
        memcpy(&a, c, 8);
        memcpy(&b, c + n - 8, 8);
        ok = a == key && b == (key ^ n);
    }
    if (!ok) {
        fprintf(stderr, "%s: VERIFY FAILED: object %p of %zu bytes lost its contents\n", bench, p, n);
        abort();
    }
}

/* The peak resident size in KB: VmHWM of /proc/self/status (getrusage's ru_maxrss would count
 * the process that exec'd this one, such as the driver's Python). */
static inline long ab_peak_rss_kb(void) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld kB", &kb) == 1) break;
    if (f) fclose(f);
    return kb;
}

/* rss_at_free: the resident size read right after the last free (ab_rss_kb). */
static inline void ab_report(const char *bench, const ab_args *a, double ops, double seconds, long rss_at_free) {
    long peak = ab_peak_rss_kb();
    struct timespec pause = {0, 200 * 1000 * 1000};
    nanosleep(&pause, NULL);
    printf("RESULT bench=%s threads=%d ops=%.0f seconds=%.4f mops=%.4f peak_rss_kb=%ld rss_after_kb=%ld "
           "rss_at_free_kb=%ld verified=1\n",
           bench, a->threads, ops, seconds, ops / seconds / 1e6, peak, ab_rss_kb(), rss_at_free);
    fflush(stdout);
}

/* Runs fn(&args[i]) on threads 0..n-1, waits for them, and returns the seconds it took. */
static inline double ab_run_threads(int n, void *(*fn)(void *), void *args, size_t arg_size) {
    pthread_t *t = (pthread_t *)malloc((size_t)n * sizeof *t);
    double t0 = ab_now();
    for (int i = 0; i < n; i++)
        if (pthread_create(&t[i], NULL, fn, (char *)args + (size_t)i * arg_size) != 0) {
            perror("pthread_create");
            exit(1);
        }
    for (int i = 0; i < n; i++) pthread_join(t[i], NULL);
    double seconds = ab_now() - t0;
    free(t);
    return seconds;
}

#endif
