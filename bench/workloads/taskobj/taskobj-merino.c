/* taskobj, merino: ./taskobj-merino --workers N [--reps R] n cutoff variant
 * variant plain, c, cb, cbr: task objects (fib-taskobj.h); direct: the direct task stack. */
#include <merino.h>
#include <merino_graph.h>

#include "bench.h"
#include "fib-taskobj.h"
#include "taskobj.h"

static int cutoff;

MERINO_TASK_1(long, fib_direct, int, n) {
    if (n < cutoff) return fib_serial(n);
    MERINO_SPAWN(fib_direct, n - 2);
    long a = MERINO_CALL(fib_direct, n - 1);
    return a + MERINO_JOIN(fib_direct);
}

MERINO_TASK_3(long, fib_reps, int, n, int, reps, int, variant) {
    static merino_task_fn *const fns[] = {fibt_plain, fibt_c, fibt_cb, fibt_cbr};
    long r = 0;
    for (int i = 0; i < reps; i++) {
        r = variant == TASKOBJ_DIRECT ? MERINO_CALL(fib_direct, n) : fibt_run(fns[variant], n);
        bench_sink(r);
    }
    return r;
}

int main(int argc, char **argv) {
    int workers, reps, n, variant;
    taskobj_args(argc, argv, &workers, &reps, &n, &cutoff, &variant);
    fibt_cutoff = cutoff;
    merino_config cfg = {0};
    cfg.workers = (unsigned)workers;
    if (merino_start(&cfg) != 0) return 2;
    double t0 = bench_now();
    long r = MERINO_RUN(fib_reps, n, reps, variant);
    double t = bench_now() - t0;
    BENCH_MERINO_STATS();
    merino_stop();
    return bench_report_i64(t, r == fib_closed(n), r, fib_tasks(n, cutoff) * reps);
}
