/* treesum — the tree-sum application of the TBB paper (Figures 14 and 15): build a binary tree of
 * `nodes` nodes in parallel (each node allocated with malloc; subtrees smaller than the cut-off
 * serially), then sum its values in parallel (same cut-off). Both phases run and the sum is
 * checked against its closed form; the seconds reported are those of one phase, over R
 * repetitions (the tree is freed between them, not timed).
 *
 *     ./treesum-<system> --workers N [--reps R] nodes cutoff phase variant
 *
 * phase: alloc or sum. variant (merino's task objects): plain (children, then wait) or cbr
 * (continuation passing, bypass and recycling); taskobj-tbb runs tbb::task_group and
 * treesum-serial the serial recursion whatever the variant. The paper's cut-offs: 10 and 10,000.
 * With the system malloc; merino's allocator does not exist yet. */
#ifndef BENCH_TREESUM_H
#define BENCH_TREESUM_H

#include <stdlib.h>
#include <string.h>

#include "bench.h"

typedef struct tnode {
    struct tnode *left, *right;
    double value;
} tnode;

/* The subtree of n nodes whose root has preorder number first: left gets (n - 1) / 2 nodes. */
static inline tnode *ts_build_serial(long n, long first) {
    if (n <= 0) return NULL;
    tnode *t = (tnode *)malloc(sizeof *t);
    if (!t) abort();
    long nl = (n - 1) / 2;
    t->value = (double)(first % 8);
    t->left = ts_build_serial(nl, first + 1);
    t->right = ts_build_serial(n - 1 - nl, first + 1 + nl);
    return t;
}

static inline double ts_sum_serial(const tnode *t) {
    return t ? t->value + ts_sum_serial(t->left) + ts_sum_serial(t->right) : 0;
}

static inline void ts_free(tnode *t) {
    if (!t) return;
    ts_free(t->left);
    ts_free(t->right);
    free(t);
}

/* The sum of first % 8 over all nodes: the check (exact in a double: integers below 2^53). */
static inline double ts_expected(long n) { return (double)(n / 8 * 28 + (n % 8) * (n % 8 - 1) / 2); }

enum { TS_ALLOC, TS_SUM };

/* The command line; exits with the usage on an error. variant: 0 plain, 1 cbr. */
static inline void ts_args(int argc, char **argv, int *workers, int *reps, long *n, long *cutoff, int *phase,
                           int *variant) {
    const char *p[4];
    static const char usage[] = "nodes cutoff phase variant (phase: alloc or sum; variant: plain or cbr)";
    if (bench_args(argc, argv, workers, reps, p, 4) < 4) bench_usage_exit(argv[0], usage);
    *n = bench_param_long(p, 4, 0, 1000000);
    *cutoff = bench_param_long(p, 4, 1, 10);
    if (*cutoff < 1) *cutoff = 1;
    *phase = strcmp(p[2], "alloc") == 0 ? TS_ALLOC : strcmp(p[2], "sum") == 0 ? TS_SUM : -1;
    *variant = strcmp(p[3], "plain") == 0 ? 0 : strcmp(p[3], "cbr") == 0 ? 1 : -1;
    if (*n < 0 || *phase < 0 || *variant < 0) bench_usage_exit(argv[0], usage);
}

#endif
