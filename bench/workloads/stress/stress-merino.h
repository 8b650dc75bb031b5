/* stress-merino.h — merino's stress tree (one task per node) and the task that runs trees one
 * after the other: shared by workloads/stress and micro/ratios, so that both measure the same code.
 * Needs stress.h (the leaf) included first. */
#ifndef BENCH_STRESS_MERINO_H
#define BENCH_STRESS_MERINO_H
#include <merino.h>

MERINO_TASK_1(long, tree, int, h) {
    if (h == 0) return stress_leaf();
    MERINO_SPAWN(tree, h - 1);
    long a = MERINO_CALL(tree, h - 1);
    long b = MERINO_JOIN(tree);
    return a + b;
}

/* The repetition loop runs inside one task (as in Wool), so consecutive trees are serialized on
 * the pool without a hand-off from the main thread per tree. */
MERINO_TASK_2(int64_t, trees_task, int, h, long, n) {
    int64_t sum = 0;
    for (long i = 0; i < n; i++) sum += MERINO_CALL(tree, h);
    return sum;
}

#endif
