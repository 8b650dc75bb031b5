/* loopfib.h — shared declarations of the loopfib workload (see loopfib-serial.c). */
#ifndef BENCH_LOOPFIB_H
#define BENCH_LOOPFIB_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct loopfib_args {
    int workers, reps;
    int d;  /* fib's argument: fib(d) calls, fib(d + 1) leaves */
    long m; /* iterations of each leaf's loop */
} loopfib_args;

/* Parses `d m`; returns 0, or 2 after printing the usage. */
int loopfib_parse(int argc, char **argv, loopfib_args *a);

/* The value of iteration i of leaf `leaf`'s loop: a few integer operations (sums are exact, in
 * any order). */
static inline uint64_t loopfib_value(uint64_t leaf, int64_t i) {
    uint64_t x = leaf * 0x9E3779B97F4A7C15ull + (uint64_t)i;
    for (int k = 0; k < 8; k++) x = x * 6364136223846793005ull + 1442695040888963407ull;
    return x >> 40;
}

/* The sum of loopfib_value(leaf, i) over [lo, hi): every version's loop body. */
uint64_t loopfib_range(uint64_t leaf, int64_t lo, int64_t hi);

/* The whole answer, serially: the sum over fib(d)'s leaves of their loops' sums (a leaf's number:
 * its path in the tree, 2 * parent + 0 for the n-1 child, + 1 for the n-2 child, from 1). */
uint64_t loopfib_serial(int n, uint64_t leaf, long m);

#ifdef __cplusplus
}
#endif
#endif
