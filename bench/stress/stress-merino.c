/* stress, merino: ./stress-merino --workers N [--reps R] h L reps
 * The trees run one after the other inside one task (stress-merino.h). Also built as stress-merino-allpub
 * with -DMERINO_ALL_PUBLIC (every task public). */
#include <merino.h>

#include "stress.h"
#include "stress-merino.h"

int main(int argc, char **argv) {
    const char *p[3];
    int workers, reps, h;
    long L, trees;
    int np = bench_args(argc, argv, &workers, &reps, p, 3);
    STRESS_PARAMS(p, np, h, L, trees);
    merino_config cfg = {0};
    cfg.workers = (unsigned)workers;
    if (merino_start(&cfg) != 0) return 2;
    double t0 = bench_now();
    int64_t sum = MERINO_RUN(trees_task, h, trees * reps);
    double t = bench_now() - t0;
    BENCH_MERINO_STATS();
    merino_stop();
    return bench_report_i64(t, sum == stress_expected(h, trees, reps), sum, stress_tasks(h, trees, reps));
}
