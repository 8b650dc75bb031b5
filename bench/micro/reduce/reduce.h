/* reduce.h — shared declarations of the reduce workload (see reduce-serial.c). */
#ifndef BENCH_REDUCE_H
#define BENCH_REDUCE_H

#include <stdint.h>

typedef struct reduce_args {
    int workers, reps;
    long n;
    int det;              /* 1: deterministic (merino_for_opts.deterministic) */
    const char *schedule; /* merino's schedule (default auto) */
} reduce_args;

/* Parses `n plain|det [schedule]`; returns 0, or 2 after printing the usage. */
int reduce_parse(int argc, char **argv, reduce_args *a);

/* The value of index i: a few floating-point operations, so that the order of the additions shows
 * in the low bits of the sum. */
static inline double reduce_value(int64_t i) {
    double x = (double)i * 1e-3;
    return x / (1.0 + x * x) + 1e-7 * (double)(i & 1023);
}

/* The partial sum of [lo, hi), left to right from 0: the body of every version, and of every leaf. */
double reduce_range(int64_t lo, int64_t hi);

/* Checks a sum of [0, n): det: bit for bit against a serial computation of merino's deterministic
 * tree (MERINO_LEAVES equal leaves combined pairwise; reduce-common.c); plain: within 1e-9
 * relative of the serial sum. Returns 1 when it holds. */
int reduce_check(long n, int det, double sum);

#endif
