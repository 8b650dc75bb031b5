/* overhead, merino: the cost of an inlined task in cycles (the Wool paper's Table II method).
 *
 *   ./overhead-merino [--workers 1] [--reps R] n
 *
 * Runs the serial fib(n) (T_S) and merino's fib(n) with one task per call (T_1), alternately,
 * R times each (default 5), timing each run with the TSC, and reports the medians and
 *   cycles_per_task = (T_1 - T_S) / N_T,   N_T = the number of spawns of fib(n).
 * With one worker every task stays private (the best case). The worst case, every task public,
 * is the same source compiled with -DMERINO_ALL_PUBLIC (merino.h's switch, defined before the
 * include), built as overhead-merino-allpub; the output says which case ran ("all_public"; it is
 * also true when the environment variable MERINO_ALL_PUBLIC=1 is set, for a runtime that reads it
 * at merino_start). The runner (bench/run) runs both programs and reports both numbers.
 *
 * Output: {"seconds": T_1 median, "check", "result": fib(n), "tasks": N_T, "ts_cycles",
 *          "t1_cycles", "cycles_per_task", "tsc_hz", "all_public", "workers"} */
#include <merino.h>

#include "fib/fib.h"
#include "fib/fib-merino.h"
#include "bench.h"

int main(int argc, char **argv) {
    const char *p[1];
    int workers, reps;
    int np = bench_args(argc, argv, &workers, &reps, p, 1);
    if (np < 1) bench_usage_exit(argv[0], "n   (fib(n), one task per call)");
    int n = (int)bench_param_long(p, np, 0, 32);
    int explicit_reps = 0;
    for (int i = 1; i < argc; i++)
        if (strncmp(argv[i], "--reps", 6) == 0 || strcmp(argv[i], "-r") == 0) explicit_reps = 1;
    if (!explicit_reps) reps = 5;
#ifdef MERINO_ALL_PUBLIC
    int all_public = 1;
#else
    const char *ap = getenv("MERINO_ALL_PUBLIC");
    int all_public = ap && *ap && strcmp(ap, "0") != 0;
#endif
    double hz = bench_tsc_hz();

    merino_config cfg = {0};
    cfg.workers = (unsigned)workers;
    if (merino_start(&cfg) != 0) return 2;
    double *ts = (double *)calloc((size_t)reps, sizeof *ts), *t1 = (double *)calloc((size_t)reps, sizeof *t1);
    double t1_secs[64];
    int ok = 1;
    long r = 0;
    (void)MERINO_RUN(fib, n > 20 ? 20 : n); /* warm up the pool */
    for (int i = 0; i < reps; i++) {
        uint64_t c0 = bench_rdtsc();
        r = fib_serial(n);
        bench_sink(r);
        uint64_t c1 = bench_rdtsc();
        ok &= r == fib_closed(n);
        double s0 = bench_now();
        uint64_t c2 = bench_rdtsc();
        r = MERINO_RUN(fib, n);
        bench_sink(r);
        uint64_t c3 = bench_rdtsc();
        double s1 = bench_now();
        ok &= r == fib_closed(n);
        ts[i] = (double)(c1 - c0);
        t1[i] = (double)(c3 - c2);
        if (i < 64) t1_secs[i] = s1 - s0;
    }
    merino_stop();
    double ts_med = bench_median(ts, reps), t1_med = bench_median(t1, reps);
    double secs = bench_median(t1_secs, reps < 64 ? reps : 64);
    int64_t tasks = fib_tasks(n, 0);
    char extra[512];
    snprintf(extra, sizeof extra,
             "\"ts_cycles\": %.0f, \"t1_cycles\": %.0f, \"cycles_per_task\": %.3f, \"tsc_hz\": %.0f, "
             "\"all_public\": %s, \"workers\": %d, \"inner_reps\": %d",
             ts_med, t1_med, (t1_med - ts_med) / (double)tasks, hz, all_public ? "true" : "false",
             workers, reps);
    return bench_report_i64x(secs, ok, r, tasks, extra);
}
