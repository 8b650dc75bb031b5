/* stress.h — shared by every version of stress (the Wool paper's micro-benchmark).
 *
 * stress h L reps: `reps` balanced binary trees of tasks, one after the other (execution is
 * serialized between the trees); a tree of height h has 2^h leaves, each an empty loop of L
 * iterations making no memory references (Wool: L = 256 is ~512 cycles, L = 4096 ~8K cycles).
 * result = the number of leaves run (reps * 2^h); tasks = reps * (2^h - 1) spawns. */
#ifndef BENCH_STRESS_H
#define BENCH_STRESS_H
#include <stdint.h>

#include "bench.h"

#ifdef __cplusplus
extern "C" {
#endif

static long stress_leaf_iters;

static inline long stress_leaf(void) {
    bench_spin(stress_leaf_iters);
    return 1;
}

BENCH__UNUSED static long stress_serial(int h) {
    if (h == 0) return stress_leaf();
    return stress_serial(h - 1) + stress_serial(h - 1);
}

#define STRESS_PARAMS(p, np, h, L, trees)                                                           \
    do {                                                                                          \
        if ((np) < 3) bench_usage_exit(argv[0], "h L reps   (tree height, leaf iterations, trees)"); \
        h = (int)bench_param_long(p, np, 0, 7);                                                   \
        L = bench_param_long(p, np, 1, 256);                                                      \
        trees = bench_param_long(p, np, 2, 1);                                                    \
        if (h < 0 || h > 40 || L < 0 || trees < 1) bench_usage_exit(argv[0], "h L reps");         \
        stress_leaf_iters = L;                                                                    \
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
