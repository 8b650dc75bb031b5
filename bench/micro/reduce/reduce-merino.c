/* reduce-merino.c — the sum with merino_reduce, plain or deterministic (second param), under the
 * schedule of the third (default auto). See reduce-serial.c. */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "reduce.h"

#include <merino_loop.h>

#include <stdio.h>

static double reduce_body(int64_t lo, int64_t hi, void *ctx) {
    (void)ctx;
    return reduce_range(lo, hi);
}

int main(int argc, char **argv) {
    reduce_args a;
    if (reduce_parse(argc, argv, &a)) return 2;
    merino_for_opts opts = {0};
    if (merino_schedule_parse(a.schedule, &opts) != 0) {
        fprintf(stderr, "%s\n", merino_last_error());
        return 2;
    }
    opts.deterministic = a.det;
    merino_config cfg = {0};
    cfg.workers = (unsigned)a.workers;
    if (merino_start(&cfg) != 0) return 2;

    double sum = 0;
    double t0 = bench_now();
    for (int r = 0; r < a.reps; r++) sum = merino_sum_double(0, a.n, reduce_body, NULL, &opts);
    double t1 = bench_now();
    BENCH_MERINO_STATS();
    merino_stop();
    return bench_report_f64(t1 - t0, reduce_check(a.n, a.det, sum), sum, -1);
}
