/* steal.h — shared by every version of the steal-cost micro-benchmark (the Wool paper, IV-D1,
 * after Podobas et al.).
 *
 *   ./steal-<system> --workers 2^k [--reps R] k C
 *
 * A balanced binary tree of tasks of height k whose 2^k leaves each run C iterations of an empty
 * loop, run on 2^k workers; the steal cost is T(tree) - T(C), the time of one tree minus the time
 * of one leaf run alone, in TSC cycles (the medians of R trees, default 1000, after 20 warm-ups;
 * T(C) from R runs of the leaf alone on the main thread). k = 1 on 2 cores is the base cost of one
 * steal plus the join with the thief; k >= 2 on fewer than 2^k cores is oversubscribed: the leaves
 * cannot all run at once, and the program also reports T(tree) - 2^k C / P with P = min(cores,
 * workers), the cost over the ideal schedule (labelled, not comparable to the paper's numbers).
 *
 * Output: {"seconds": kernel time, "check", "result": cost_cycles, "tasks": spawns, "leaf_cycles",
 *          "tree_cycles", "cost_cycles", "cost_ns", "cost_vs_ideal_cycles", "workers", "cores",
 *          "oversubscribed", "tsc_hz"} */
#ifndef BENCH_STEAL_H
#define BENCH_STEAL_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#endif
#include <sched.h>
#include <stdint.h>

#include "bench.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STEAL_WARMUP 20

static long steal_leaf_iters;
static int steal_k, steal_reps;
static double *steal_tree_cycles; /* [steal_reps] */

static inline long steal_leaf(void) {
    bench_spin(steal_leaf_iters);
    return 1;
}

#define STEAL_PARAMS(p, np)                                                                         \
    do {                                                                                          \
        if ((np) < 1) bench_usage_exit(argv[0], "k [C]   (tree height, leaf iterations)");        \
        steal_k = (int)bench_param_long(p, np, 0, 1);                                             \
        steal_leaf_iters = bench_param_long(p, np, 1, 100000);                                    \
        if (steal_k < 0 || steal_k > 12 || steal_leaf_iters < 1)                                  \
            bench_usage_exit(argv[0], "k [C]   (0 <= k <= 12, C >= 1)");                          \
        int explicit_reps = 0;                                                                    \
        for (int i_ = 1; i_ < argc; i_++)                                                         \
            if (strncmp(argv[i_], "--reps", 6) == 0 || strcmp(argv[i_], "-r") == 0) explicit_reps = 1; \
        steal_reps = explicit_reps ? reps : 1000;                                                 \
        steal_tree_cycles = (double *)calloc((size_t)steal_reps, sizeof(double));                 \
    } while (0)

static inline int steal_cores(void) {
    cpu_set_t s;
    if (sched_getaffinity(0, sizeof s, &s) == 0) return CPU_COUNT(&s);
    return 1;
}

/* T(C): the leaf alone on the calling thread, median of steal_reps runs, in cycles. */
static BENCH__UNUSED double steal_leaf_alone(void) {
    double *v = (double *)calloc((size_t)steal_reps, sizeof(double));
    for (int i = 0; i < STEAL_WARMUP; i++) steal_leaf();
    for (int i = 0; i < steal_reps; i++) {
        uint64_t c0 = bench_rdtsc();
        steal_leaf();
        v[i] = (double)(bench_rdtsc() - c0);
    }
    double m = bench_median(v, steal_reps);
    free(v);
    return m;
}

/* Prints the report; sum is the total number of leaves run (checked). */
static BENCH__UNUSED int steal_report(double seconds, double leaf, int workers, int64_t sum) {
    int64_t leaves = (int64_t)1 << steal_k;
    int ok = sum == leaves * (int64_t)(steal_reps + STEAL_WARMUP);
    double tree = bench_median(steal_tree_cycles, steal_reps);
    double hz = bench_tsc_hz();
    int cores = steal_cores();
    int pa = cores < workers ? cores : workers;
    if (pa < 1) pa = 1;
    double ideal = (double)leaves * leaf / (double)(pa < leaves ? pa : leaves);
    double cost = tree - leaf;
    char extra[512];
    snprintf(extra, sizeof extra,
             "\"leaf_cycles\": %.0f, \"tree_cycles\": %.0f, \"cost_cycles\": %.0f, \"cost_ns\": %.1f, "
             "\"cost_vs_ideal_cycles\": %.0f, \"k\": %d, \"workers\": %d, \"cores\": %d, "
             "\"oversubscribed\": %s, \"tsc_hz\": %.0f",
             leaf, tree, cost, cost / hz * 1e9, tree - ideal, steal_k, workers, cores,
             workers > cores ? "true" : "false", hz);
    return bench_report_i64x(seconds, ok, (int64_t)cost, (leaves - 1) * steal_reps, extra);
}

#ifdef __cplusplus
}
#endif
#endif
