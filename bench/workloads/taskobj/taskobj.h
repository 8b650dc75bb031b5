/* taskobj — the TBB paper's Figure 6: fib(n) with a serial cut-off (12 or 20 in the paper) by task
 * objects in four variants — plain (children, then wait), c (continuation passing), cb (+ scheduler
 * bypass), cbr (+ task recycling) — against oneTBB's task_group and merino's direct task stack.
 *
 *     ./taskobj-<system> --workers N [--reps R] n cutoff variant
 *
 * variant: plain, c, cb, cbr (merino's task objects, merino_graph.h) or direct (merino's
 * MERINO_SPAWN / MERINO_JOIN); taskobj-tbb runs tbb::task_group whatever the variant (oneTBB has
 * removed the task API the paper measured), taskobj-serial the serial recursion. tasks = the calls
 * with n >= max(2, cutoff), as workloads/fib counts them (the continuation variants allocate about
 * twice as many task objects). */
#ifndef BENCH_TASKOBJ_H
#define BENCH_TASKOBJ_H

#include "fib/fib.h"
#include "bench.h"

#include <string.h>

enum { TASKOBJ_PLAIN, TASKOBJ_C, TASKOBJ_CB, TASKOBJ_CBR, TASKOBJ_DIRECT };

/* The variant named by s, or -1. */
static inline int taskobj_variant(const char *s) {
    static const char *const names[] = {"plain", "c", "cb", "cbr", "direct"};
    for (int i = 0; i < 5; i++)
        if (s && strcmp(s, names[i]) == 0) return i;
    return -1;
}

/* The command line: n, the cut-off (at least 2: fib(0) and fib(1) are leaves whatever it is) and
 * the variant; exits with the usage on an error. */
static inline void taskobj_args(int argc, char **argv, int *workers, int *reps, int *n, int *cutoff, int *variant) {
    const char *p[3];
    if (bench_args(argc, argv, workers, reps, p, 3) < 3) bench_usage_exit(argv[0], "n cutoff variant");
    *n = (int)bench_param_long(p, 3, 0, 30);
    *cutoff = (int)bench_param_long(p, 3, 1, 12);
    if (*cutoff < 2) *cutoff = 2;
    *variant = taskobj_variant(p[2]);
    if (*variant < 0) bench_usage_exit(argv[0], "n cutoff variant (plain, c, cb, cbr or direct)");
}

#endif
