/* Every task public (MERINO_ALL_PUBLIC, the benchmarks' worst case): each join takes the exchange,
 * and thieves may take any task. Results must match the serial ones at 1..8 workers, with and
 * without a serial cut-off, and a task must never run twice (counted). */
#define MERINO_ALL_PUBLIC 1
#include <merino.h>

#include <stdio.h>

#include "check.h"

static long serial_fib(int n) { return n < 2 ? n : serial_fib(n - 1) + serial_fib(n - 2); }

static int cutoff;
static long runs; /* atomic: leaves run */

MERINO_TASK_1(long, fib, int, n) {
    if (n < 2) {
        __atomic_fetch_add(&runs, 1, __ATOMIC_RELAXED);
        return n;
    }
    if (n < cutoff) {
        __atomic_fetch_add(&runs, 1, __ATOMIC_RELAXED);
        return serial_fib(n);
    }
    MERINO_SPAWN(fib, n - 2);
    long a = MERINO_CALL(fib, n - 1);
    long b = MERINO_JOIN(fib);
    return a + b;
}

/* leaves of fib(n) with the serial cut-off c: the number of runs counted above */
static long leaves(int n, int c) { return (n < 2 || n < c) ? 1 : leaves(n - 1, c) + leaves(n - 2, c); }

int main(void) {
    int n = 24;
    for (unsigned workers = 1; workers <= 8; workers++) {
        merino_config cfg = {0};
        cfg.workers = workers;
        CHECK(merino_start(&cfg) == 0);
        for (int c = 0; c <= 12; c += 6) {
            cutoff = c;
            for (int rep = 0; rep < 20; rep++) {
                __atomic_store_n(&runs, 0, __ATOMIC_RELAXED);
                long r = MERINO_RUN(fib, n);
                CHECK_EQ_INT(r, serial_fib(n));
                CHECK_EQ_INT(__atomic_load_n(&runs, __ATOMIC_RELAXED), leaves(n, c));
            }
        }
        CHECK(merino_stop() == 0);
    }
    printf("all-public fib(%d): correct at 1..8 workers, every leaf run once\n", n);
    return 0;
}
