/* fib, merino: ./fib-merino --workers N [--reps R] n [cutoff]
 * One task per call (cutoff 0), or the serial recursion below the cutoff. Also built as
 * fib-merino-allpub with -DMERINO_ALL_PUBLIC, which makes merino.h publish every task (the worst
 * case of the Wool paper's Table II); the runner reports it as system "merino-allpub". */
#include <merino.h>

#include "bench.h"
#include "fib.h"
#include "fib-merino.h"

static int cutoff;

MERINO_TASK_1(long, fibc, int, n) {
    if (n < cutoff) return fib_serial(n);
    MERINO_SPAWN(fibc, n - 2);
    long a = MERINO_CALL(fibc, n - 1);
    long b = MERINO_JOIN(fibc);
    return a + b;
}

MERINO_TASK_2(long, fib_reps, int, n, int, reps) {
    long r = 0;
    for (int i = 0; i < reps; i++) {
        r = cutoff > 2 ? MERINO_CALL(fibc, n) : MERINO_CALL(fib, n);
        bench_sink(r);
    }
    return r;
}

int main(int argc, char **argv) {
    const char *p[2];
    int workers, reps;
    int np = bench_args(argc, argv, &workers, &reps, p, 2);
    if (np < 1) bench_usage_exit(argv[0], "n [cutoff]");
    int n = (int)bench_param_long(p, np, 0, 30);
    cutoff = (int)bench_param_long(p, np, 1, 0);
    merino_config cfg = {0};
    cfg.workers = (unsigned)workers;
    if (merino_start(&cfg) != 0) return 2;
    double t0 = bench_now();
    long r = MERINO_RUN(fib_reps, n, reps);
    double t = bench_now() - t0;
    BENCH_MERINO_STATS();
    merino_stop();
    return bench_report_i64(t, r == fib_closed(n), r, fib_tasks(n, cutoff) * reps);
}
