/* ssf-merino.c — sub-string finder with merino: the position range is split recursively (spawn
 * one half, call the other) down to one position per task. See ssf-serial.c. */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "ssf.h"
#include <merino.h>

MERINO_VOID_TASK_3(ssf_range, ssf_problem *, p, long, lo, long, hi) {
    if (hi - lo == 1) {
        ssf_position(p, lo);
        return;
    }
    long mid = lo + (hi - lo) / 2;
    MERINO_SPAWN(ssf_range, p, mid, hi);
    MERINO_CALL(ssf_range, p, lo, mid);
    MERINO_JOIN(ssf_range);
}

/* The kernel: reps searches, in one root task. */
MERINO_VOID_TASK_2(ssf_kernel, ssf_problem *, p, long, reps) {
    for (long r = 0; r < reps; r++) MERINO_CALL(ssf_range, p, 0, p->len);
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
    for (int o = 0; o < a.outer; o++) MERINO_RUN(ssf_kernel, &p, a.reps);
    double t1 = bench_now();
    BENCH_MERINO_STATS();
    merino_stop();

    long long sum;
    int ok = ssf_verify(&p, a.n, &sum);
    int64_t tasks = (int64_t)a.outer * a.reps * (p.len - 1);
    ssf_free(&p);
    return bench_report_i64(t1 - t0, ok, sum, tasks);
}
