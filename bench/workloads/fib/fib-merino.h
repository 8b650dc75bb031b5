/* fib-merino.h — merino's fib task, one task per call (no cutoff): the task that workloads/fib,
 * micro/overhead and micro/ratios all measure, so that they measure the same code. */
#ifndef BENCH_FIB_MERINO_H
#define BENCH_FIB_MERINO_H
#include <merino.h>

MERINO_TASK_1(long, fib, int, n) {
    if (n < 2) return n;
    MERINO_SPAWN(fib, n - 2);
    long a = MERINO_CALL(fib, n - 1);
    long b = MERINO_JOIN(fib);
    return a + b;
}

#endif
