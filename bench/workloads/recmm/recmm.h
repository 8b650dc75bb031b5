/* recmm.h — shared by every version of recmm: the recursive matrix multiply of Cilk's and Lace's
 * benchmarks (rec_matmul), beside workloads/mm's row-parallel one.
 *
 * recmm n reps: C = A * B for n x n matrices of floats, by splitting the largest of the three
 * dimensions in two until m + n + p <= 64: rows and columns of C are split into two spawned
 * halves, the inner dimension into two calls one after the other (the second adds to C). Eight
 * arguments a task. The entries of A and B are small integers, so every sum is exact in a float
 * whatever the order: the check compares 1,000 entries of C with integer dot products.
 * Result: the sum of C's entries; tasks: the spawns. */
#ifndef BENCH_RECMM_H
#define BENCH_RECMM_H
#include <stdint.h>
#include <stdlib.h>

#include "bench.h"

typedef float recmm_real;

/* The leaf: C (+)= A B for an m x n times n x p block, rows ld apart. */
static inline void recmm_leaf(const recmm_real *A, const recmm_real *B, recmm_real *C, int m, int n,
                              int p, int ld, int add) {
    for (int i = 0; i < m; i++)
        for (int k = 0; k < p; k++) {
            recmm_real c = 0;
            for (int j = 0; j < n; j++) c += A[i * ld + j] * B[j * ld + k];
            C[i * ld + k] = add ? C[i * ld + k] + c : c;
        }
}

#define RECMM_LEAF(m, n, p) ((m) + (n) + (p) <= 64)

typedef struct recmm_args {
    int n, reps;
    recmm_real *A, *B, *C;
} recmm_args;

/* Parses `n [reps]` and fills A and B; exits 2 on bad arguments. */
static BENCH__UNUSED void recmm_setup(int argc, char **argv, recmm_args *a, int *workers, int *outer) {
    const char *p[2];
    int np = bench_args(argc, argv, workers, outer, p, 2);
    a->n = (int)bench_param_long(p, np, 0, 0);
    a->reps = (int)bench_param_long(p, np, 1, 1);
    if (np < 1 || a->n < 1 || a->n > 8192 || a->reps < 1) bench_usage_exit(argv[0], "n [reps]   (1 <= n <= 8192)");
    size_t bytes = sizeof(recmm_real) * (size_t)a->n * (size_t)a->n;
    a->A = malloc(bytes);
    a->B = malloc(bytes);
    a->C = malloc(bytes);
    if (!a->A || !a->B || !a->C) {
        fprintf(stderr, "%s: out of memory for n = %d\n", argv[0], a->n);
        exit(2);
    }
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i < (size_t)a->n * (size_t)a->n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        a->A[i] = (recmm_real)(x % 8);
        a->B[i] = (recmm_real)((x >> 8) % 8);
    }
}

/* 1 when 1,000 entries of C (or all, for a small n) equal their exact dot products and the sum of C
 * equals the exact sum of A B (sum over j of A's column j sum times B's row j sum: every entry
 * counts, so a leaf block skipped or done twice is caught even where no sample falls); *sum gets the
 * sum of C (exact too: the entries are integers below 2^24, summed in a double: below 2^53). */
static BENCH__UNUSED int recmm_check(const recmm_args *a, double *sum) {
    int n = a->n, ok = 1;
    uint64_t x = 2463534242u;
    long samples = (long)n * n < 1000 ? (long)n * n : 1000;
    for (long s = 0; s < samples; s++) {
        long e = (long)n * n <= 1000 ? s : (long)((x ^= x << 13, x ^= x >> 7, x ^= x << 17) % ((uint64_t)n * n));
        long i = e / n, k = e % n;
        int64_t want = 0;
        for (int j = 0; j < n; j++) want += (int64_t)a->A[i * n + j] * (int64_t)a->B[j * n + k];
        if ((int64_t)a->C[e] != want) ok = 0;
    }
    double s = 0;
    for (long e = 0; e < (long)n * n; e++) s += a->C[e];
    *sum = s;
    int64_t want = 0;
    for (int j = 0; j < n; j++) {
        int64_t col = 0, row = 0;
        for (int i = 0; i < n; i++) col += (int64_t)a->A[(long)i * n + j];
        for (int k = 0; k < n; k++) row += (int64_t)a->B[(long)j * n + k];
        want += col * row;
    }
    if (s != (double)want) ok = 0;
    return ok;
}

#endif
