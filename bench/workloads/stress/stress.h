/* stress.h — shared by every version of stress (the Wool paper's micro-benchmark).
 *
 * stress h L reps [per_tree]: `reps` balanced binary trees of tasks, one after the other
 * (execution is serialized between the trees); a tree of height h has 2^h leaves, each an empty
 * loop of L iterations making no memory references (Wool: L = 256 is ~512 cycles, L = 4096 ~8K
 * cycles). result = the number of leaves run (reps * 2^h); tasks = reps * (2^h - 1) spawns.
 * per_tree = 0 (the default) runs all the trees in one parallel region (one MERINO_RUN, one
 * `omp parallel` + `single`, one arena.execute, one pool.install); per_tree = 1 enters one region
 * per tree from the main thread (a MERINO_RUN, an `omp parallel` + `single`, an arena.execute, a
 * pool.install per tree), which adds what entering a region costs to every tree. The serial
 * version has no regions: it runs the same trees either way. */
#ifndef BENCH_STRESS_H
#define BENCH_STRESS_H
#include <stdint.h>

#include "bench.h"

#ifdef __cplusplus
extern "C" {
#endif

static long stress_leaf_iters;
BENCH__UNUSED static int stress_per_tree; /* 1: one parallel region per tree (the 4th param) */

static inline long stress_leaf(void) {
    bench_spin(stress_leaf_iters);
    return 1;
}

BENCH__UNUSED static long stress_serial(int h) {
    if (h == 0) return stress_leaf();
    return stress_serial(h - 1) + stress_serial(h - 1);
}

#define STRESS_USAGE "h L reps [per_tree]   (tree height, leaf iterations, trees, 1 = a region per tree)"
#define STRESS_PARAMS(p, np, h, L, trees)                                                         \
    do {                                                                                          \
        if ((np) < 3 || (np) > 4) bench_usage_exit(argv[0], STRESS_USAGE);                        \
        h = (int)bench_param_long(p, np, 0, 7);                                                   \
        L = bench_param_long(p, np, 1, 256);                                                      \
        trees = bench_param_long(p, np, 2, 1);                                                    \
        long per_tree_ = bench_param_long(p, np, 3, 0);                                           \
        if (h < 0 || h > 40 || L < 0 || trees < 1 || per_tree_ < 0 || per_tree_ > 1)              \
            bench_usage_exit(argv[0], STRESS_USAGE);                                              \
        stress_leaf_iters = L;                                                                    \
        stress_per_tree = (int)per_tree_;                                                         \
    } while (0)

static inline int64_t stress_expected(int h, long trees, int reps) {
    return ((int64_t)1 << h) * trees * reps;
}
static inline int64_t stress_tasks(int h, long trees, int reps) {
    return (((int64_t)1 << h) - 1) * trees * reps;
}

#ifdef __cplusplus
}
#endif
#endif
