/* mm-common.c — input, leaf kernel, serial reference and verification shared by every mm version. */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "mm.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mm_parse(int argc, char **argv, mm_args *a) {
    const char *p[8];
    int np = bench_args(argc, argv, &a->workers, &a->outer, p, 8);
    a->n = bench_param_long(p, np, 0, 256);
    a->reps = bench_param_long(p, np, 1, 1);
    if (np > 2 || a->n < 1 || a->n > 8192 || a->reps < 1 || a->workers < 1 || a->outer < 1) {
        fprintf(stderr, "usage: %s --workers N [--reps R] n [reps]   (n: 1..8192 rows)\n", argv[0]);
        return 2;
    }
    return 0;
}

/* splitmix64 mapped to [-1, 1) */
static double mm_value(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    x ^= x >> 31;
    return (double)(x >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

static double *mm_alloc(long n) {
    double *p = (double *)aligned_alloc(64, ((size_t)n * n * sizeof(double) + 63) & ~(size_t)63);
    if (!p) {
        fprintf(stderr, "mm: out of memory\n");
        exit(2);
    }
    return p;
}

void mm_init(long n, double **A, double **B, double **C) {
    *A = mm_alloc(n);
    *B = mm_alloc(n);
    *C = mm_alloc(n);
    for (long i = 0; i < n * n; i++) {
        (*A)[i] = mm_value((uint64_t)i);
        (*B)[i] = mm_value((uint64_t)i + ((uint64_t)1 << 40));
        (*C)[i] = 0.0;
    }
}

void mm_free(double *A, double *B, double *C) {
    free(A);
    free(B);
    free(C);
}

void mm_row(const double *A, const double *B, double *C, long n, long i) {
    const double *a = A + i * n;
    double *c = C + i * n;
    for (long j = 0; j < n; j++) c[j] = 0.0;
    for (long k = 0; k < n; k++) {
        double aik = a[k];
        const double *b = B + k * n;
        for (long j = 0; j < n; j++) c[j] += aik * b[j];
    }
}

void mm_serial(const double *A, const double *B, double *C, long n) {
    for (long i = 0; i < n; i++) mm_row(A, B, C, n, i);
}

int mm_verify(const double *A, const double *B, const double *C, long n, double *checksum) {
    double *R = mm_alloc(n);
    mm_serial(A, B, R, n);
    int ok = 1;
    double sum = 0.0;
    for (long i = 0; i < n * n; i++) {
        sum += C[i];
        if (!(fabs(C[i] - R[i]) <= 1e-9 * (1.0 + fabs(R[i])))) {
            if (ok)
                fprintf(stderr, "mm: MISMATCH at (%ld,%ld): %.17g, serial %.17g\n", i / n, i % n,
                        C[i], R[i]);
            ok = 0;
        }
    }
    free(R);
    *checksum = sum;
    return ok;
}
