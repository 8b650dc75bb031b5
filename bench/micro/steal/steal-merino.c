/* steal, merino: ./steal-merino --workers 2^k [--reps R] k [C]   (see steal.h) */
#include <merino.h>

#include "steal.h"

MERINO_TASK_1(long, tree, int, h) {
    if (h == 0) return steal_leaf();
    MERINO_SPAWN(tree, h - 1);
    long a = MERINO_CALL(tree, h - 1);
    long b = MERINO_JOIN(tree);
    return a + b;
}

MERINO_TASK_0(int64_t, trees) {
    int64_t sum = 0;
    for (int i = 0; i < STEAL_WARMUP; i++) sum += MERINO_CALL(tree, steal_k);
    for (int i = 0; i < steal_reps; i++) {
        uint64_t c0 = bench_rdtsc();
        sum += MERINO_CALL(tree, steal_k);
        steal_tree_cycles[i] = (double)(bench_rdtsc() - c0);
    }
    return sum;
}

int main(int argc, char **argv) {
    const char *p[2];
    int workers, reps;
    int np = bench_args(argc, argv, &workers, &reps, p, 2);
    STEAL_PARAMS(p, np);
    double leaf = steal_leaf_alone();
    merino_config cfg = {0};
    cfg.workers = (unsigned)workers;
    if (merino_start(&cfg) != 0) return 2;
    double t0 = bench_now();
    int64_t sum = MERINO_RUN(trees);
    double t = bench_now() - t0;
    merino_stop();
    return steal_report(t, leaf, workers, sum);
}
