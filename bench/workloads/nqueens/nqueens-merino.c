/* nqueens, merino: ./nqueens-merino --workers N [--reps R] n */
#include <merino.h>

#include "nqueens.h"

MERINO_TASK_3(long, nq, unsigned, cols, unsigned, ld, unsigned, rd) {
    if (cols == nq_all) return 1;
    unsigned avail = nq_all & ~(cols | ld | rd);
    long c = 0;
    int k = 0;
    while (avail) {
        unsigned bit = avail & (0u - avail);
        avail -= bit;
        if (!avail) {
            c = MERINO_CALL(nq, cols | bit, (ld | bit) << 1, (rd | bit) >> 1);
            break;
        }
        MERINO_SPAWN(nq, cols | bit, (ld | bit) << 1, (rd | bit) >> 1);
        k++;
    }
    while (k-- > 0) c += MERINO_JOIN(nq);
    return c;
}

MERINO_TASK_1(long, nq_reps, int, reps) {
    long r = 0;
    for (int i = 0; i < reps; i++) {
        r = MERINO_CALL(nq, 0, 0, 0);
        bench_sink(r);
    }
    return r;
}

int main(int argc, char **argv) {
    const char *p[1];
    int workers, reps, n;
    int np = bench_args(argc, argv, &workers, &reps, p, 1);
    NQ_PARAMS(p, np, n);
    merino_config cfg = {0};
    cfg.workers = (unsigned)workers;
    if (merino_start(&cfg) != 0) return 2;
    double t0 = bench_now();
    long r = MERINO_RUN(nq_reps, reps);
    double t = bench_now() - t0;
    BENCH_MERINO_STATS();
    merino_stop();
    int64_t tasks = nq_tasks(n);
    return bench_report_i64(t, r == nq_expected(n), r, tasks < 0 ? -1 : tasks * reps);
}
