/* stress, merino: ./stress-merino --workers N [--reps R] h L reps [per_tree]
 * The trees run one after the other inside one task (stress-merino.h), or with per_tree = 1 as one
 * MERINO_RUN each from the main thread. Also built as stress-merino-allpub with -DMERINO_ALL_PUBLIC
 * (every task public). */
#include <merino.h>

#include "stress.h"
#include "stress-merino.h"

int main(int argc, char **argv) {
    const char *p[4];
    int workers, reps, h;
    long L, trees;
    int np = bench_args(argc, argv, &workers, &reps, p, 4);
    STRESS_PARAMS(p, np, h, L, trees);
    merino_config cfg = {0};
    cfg.workers = (unsigned)workers;
    if (merino_start(&cfg) != 0) return 2;
    double t0 = bench_now();
    int64_t sum = 0;
    if (stress_per_tree)
        for (long i = 0; i < trees * reps; i++) sum += MERINO_RUN(tree, h);
    else
        sum = MERINO_RUN(trees_task, h, trees * reps);
    double t = bench_now() - t0;
    BENCH_MERINO_STATS();
    merino_stop();
    return bench_report_i64(t, sum == stress_expected(h, trees, reps), sum, stress_tasks(h, trees, reps));
}
