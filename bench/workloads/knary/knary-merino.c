/* knary, merino: ./knary-merino --workers N [--reps R] h d s [iters] */
#include <merino.h>

#include "knary.h"

MERINO_TASK_1(long, kn, int, h) {
    bench_spin(kn_iters);
    long n = 1;
    if (h == 1) return n;
    int i = 0;
    for (; i < kn_s; i++) n += MERINO_CALL(kn, h - 1);   /* the serial children */
    if (i == kn_d) return n;
    int k = 0;
    for (; i < kn_d - 1; i++, k++) MERINO_SPAWN(kn, h - 1); /* the parallel ones */
    n += MERINO_CALL(kn, h - 1);
    while (k-- > 0) n += MERINO_JOIN(kn);
    return n;
}

MERINO_TASK_2(long, kn_reps, int, h, int, reps) {
    long r = 0;
    for (int i = 0; i < reps; i++) {
        r = MERINO_CALL(kn, h);
        bench_sink(r);
    }
    return r;
}

int main(int argc, char **argv) {
    const char *p[4];
    int workers, reps, h;
    int np = bench_args(argc, argv, &workers, &reps, p, 4);
    KNARY_PARAMS(p, np, h);
    merino_config cfg = {0};
    cfg.workers = (unsigned)workers;
    if (merino_start(&cfg) != 0) return 2;
    double t0 = bench_now();
    long r = MERINO_RUN(kn_reps, h, reps);
    double t = bench_now() - t0;
    BENCH_MERINO_STATS();
    merino_stop();
    return bench_report_i64(t, r == kn_nodes(h), r, kn_tasks(h) * reps);
}
