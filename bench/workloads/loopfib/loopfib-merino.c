/* loopfib-merino.c — loops nested in fib with merino: fib's calls are tasks, each leaf's loop a
 * merino_sum_int64 (schedule: MERINO_SCHEDULE, default auto) inside its task. See loopfib-serial.c. */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "loopfib.h"

#include <merino_loop.h>

static int64_t loopfib_body(int64_t lo, int64_t hi, void *ctx) {
    return (int64_t)loopfib_range((uint64_t)(uintptr_t)ctx, lo, hi);
}

MERINO_TASK_3(uint64_t, loopfib, int, n, uint64_t, leaf, long, m) {
    if (n < 2) return (uint64_t)merino_sum_int64(0, m, loopfib_body, (void *)(uintptr_t)leaf, NULL);
    MERINO_SPAWN(loopfib, n - 2, 2 * leaf + 1, m);
    uint64_t a = MERINO_CALL(loopfib, n - 1, 2 * leaf, m);
    return a + MERINO_JOIN(loopfib);
}

int main(int argc, char **argv) {
    loopfib_args a;
    if (loopfib_parse(argc, argv, &a)) return 2;
    merino_config cfg = {0};
    cfg.workers = (unsigned)a.workers;
    if (merino_start(&cfg) != 0) return 2;
    uint64_t s = 0;
    double t0 = bench_now();
    for (int r = 0; r < a.reps; r++) s = MERINO_RUN(loopfib, a.d, 1, a.m);
    double t1 = bench_now();
    BENCH_MERINO_STATS();
    merino_stop();
    return bench_report_i64(t1 - t0, s == loopfib_serial(a.d, 1, a.m), (int64_t)(s & INT64_MAX), -1);
}
