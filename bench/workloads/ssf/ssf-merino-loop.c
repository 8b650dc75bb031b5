/* ssf-merino-loop.c — sub-string finder with merino's loops: one merino_for over the positions per
 * search (schedule: MERINO_SCHEDULE, default auto), against ssf-merino's hand-written recursive
 * split into one task per position. See ssf-serial.c. */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "ssf.h"
#include <merino_loop.h>

static void ssf_body(int64_t lo, int64_t hi, void *ctx) {
    for (int64_t i = lo; i < hi; i++) ssf_position(ctx, (long)i);
}

int main(int argc, char **argv) {
    ssf_args a;
    if (ssf_parse(argc, argv, &a)) return 2;
    ssf_problem p;
    ssf_init(a.n, &p);
    merino_config cfg = {0};
    cfg.workers = (unsigned)a.workers;
    if (merino_start(&cfg) != 0) return 2;

    double t0 = bench_now();
    for (int o = 0; o < a.outer; o++)
        for (long r = 0; r < a.reps; r++) merino_for(0, p.len, ssf_body, &p, NULL);
    double t1 = bench_now();
    BENCH_MERINO_STATS();
    merino_stop();

    long long sum;
    int ok = ssf_verify(&p, a.n, &sum);
    ssf_free(&p);
    return bench_report_i64(t1 - t0, ok, sum, -1);
}
