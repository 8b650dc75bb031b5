/* fib.h — shared by every version of fib: the serial recursion, the closed form and N_T.
 *
 * fib n [cutoff]: the naive doubly recursive Fibonacci, one task per call with n >= 2 (the Wool
 * paper's fib, no cutoff, when cutoff is 0 or absent); with a cutoff c, calls with n < c run the
 * serial recursion and create no task (the TBB paper's fib with CutOff, c = 12 or 20).
 * tasks = the number of spawns: the calls with n >= max(2, c). */
#ifndef BENCH_FIB_H
#define BENCH_FIB_H
#include <stdint.h>
#include <stdlib.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The serial recursion (T_S; also what every version runs below the cutoff). */
__attribute__((unused)) static long fib_serial(int n) {
    if (n < 2) return n;
    return fib_serial(n - 1) + fib_serial(n - 2);
}

/* fib(n) by iteration: the check. */
static inline long fib_closed(int n) {
    long a = 0, b = 1;
    for (int i = 0; i < n; i++) {
        long t = a + b;
        a = b;
        b = t;
    }
    return a;
}

/* Number of spawns of fib(n) with the given cutoff: calls with n >= max(2, cutoff). */
static inline int64_t fib_tasks(int n, int cutoff) {
    int c = cutoff < 2 ? 2 : cutoff;
    if (n < c) return 0;
    /* T(k) = 0 for k < c, T(k) = 1 + T(k-1) + T(k-2) */
    int64_t *t = (int64_t *)calloc((size_t)n + 1, sizeof *t);
    for (int k = c; k <= n; k++) t[k] = 1 + t[k - 1] + (k >= 2 ? t[k - 2] : 0);
    int64_t r = t[n];
    free(t);
    return r;
}

#ifdef __cplusplus
}
#endif
#endif
