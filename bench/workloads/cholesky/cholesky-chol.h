/* cholesky-chol.h — the top of the recursion and the kernel of the versions whose tasks are plain
 * functions (cholesky-omp.c, cholesky-tbb.cpp), written once: chol spawns nothing itself, its
 * parallelism is in the t_backsub and t_mulsub of the file that includes this after defining them. */
#ifndef BENCH_CHOLESKY_CHOL_H
#define BENCH_CHOLESKY_CHOL_H

static node t_chol(node a, int level) {
    if (level == 0) {
        chol_leaf_factor(a);
        return a;
    }
    node *A = a->q;
    A[0] = t_chol(A[0], level - 1);
    A[2] = t_backsub(A[2], A[0], level - 1);
    A[3] = t_mulsub(A[2], A[2], A[3], level - 1, 1);
    A[3] = t_chol(A[3], level - 1);
    return a;
}

/* The kernel: outer x reps factorizations of fresh copies of the input (the copy, and the freeing
 * of the previous factor, not timed); returns the seconds spent factoring, the last factor in *L. */
static double chol_kernel(const chol_input *in, int outer, long reps, node *L) {
    double t = 0.0;
    for (int o = 0; o < outer; o++)
        for (long r = 0; r < reps; r++) {
            chol_free(*L, in->level);
            node c = chol_copy(in->root, in->level);
            double t0 = bench_now();
            *L = t_chol(c, in->level);
            t += bench_now() - t0;
        }
    return t;
}

#endif
