/* cholesky-merino.h — merino's sparse Cholesky tasks (the recursion of cholesky-common.c, with
 * MERINO_SPAWN/CALL/JOIN at each "||" where both sides have work; tasks return the (possibly new)
 * block): shared by workloads/cholesky and experiments/prof, so that both measure the same code.
 * Needs cholesky.h and merino.h included first. */
#ifndef BENCH_CHOLESKY_MERINO_H
#define BENCH_CHOLESKY_MERINO_H

typedef chol_node *node;

/* CHOL_SERIAL_BELOW (experiments/prof only; an int expression): the levels below it run the serial
 * recursion inside one task, so that a task's strands are a block's whole factorization, solve or
 * update (coarse strands). Not defined: every level spawns, as workloads/cholesky measures. */
#ifdef CHOL_SERIAL_BELOW
#define CHOL_SERIAL_HERE(level) ((level) < (CHOL_SERIAL_BELOW))
#else
#define CHOL_SERIAL_HERE(level) 0
#endif

MERINO_TASK_5(node, t_mulsub, node, a, node, b, node, r, int, level, int, lower) {
    if (!a || !b) return r;
    if (CHOL_SERIAL_HERE(level)) return chol_serial_mulsub(a, b, r, level, lower, NULL);
    if (level == 0) return chol_mulsub_leaf(a, b, r, lower);
    if (!r) r = chol_new_inner();
    node *A = a->q, *B = b->q, *R = r->q;
    for (int k = 0; k < 2; k++) {
        int qs[4], cnt = chol_quadrants(A, B, k, lower, qs);
        if (cnt == 0) continue;
        for (int s = 0; s < cnt - 1; s++) {
            int q = qs[s];
            MERINO_SPAWN(t_mulsub, A[CHOL_QA(q, k)], B[CHOL_QB(q, k)], R[q], level - 1, lower && q != 2);
        }
        int q = qs[cnt - 1];
        R[q] = MERINO_CALL(t_mulsub, A[CHOL_QA(q, k)], B[CHOL_QB(q, k)], R[q], level - 1, lower && q != 2);
        for (int s = cnt - 2; s >= 0; s--) R[qs[s]] = MERINO_JOIN(t_mulsub);
    }
    return r;
}

MERINO_TASK_3(node, t_backsub, node, a, node, l, int, level) {
    if (!a) return NULL;
    if (CHOL_SERIAL_HERE(level)) return chol_serial_backsub(a, l, level, NULL);
    if (level == 0) {
        chol_leaf_backsub(a, l);
        return a;
    }
    node *A = a->q, *L = l->q;
    if (A[0] && A[2]) {
        MERINO_SPAWN(t_backsub, A[0], L[0], level - 1);
        A[2] = MERINO_CALL(t_backsub, A[2], L[0], level - 1);
        A[0] = MERINO_JOIN(t_backsub);
    } else {
        A[0] = MERINO_CALL(t_backsub, A[0], L[0], level - 1);
        A[2] = MERINO_CALL(t_backsub, A[2], L[0], level - 1);
    }
    if (L[2] && A[0] && A[2]) {
        MERINO_SPAWN(t_mulsub, A[0], L[2], A[1], level - 1, 0);
        A[3] = MERINO_CALL(t_mulsub, A[2], L[2], A[3], level - 1, 0);
        A[1] = MERINO_JOIN(t_mulsub);
    } else {
        A[1] = MERINO_CALL(t_mulsub, A[0], L[2], A[1], level - 1, 0);
        A[3] = MERINO_CALL(t_mulsub, A[2], L[2], A[3], level - 1, 0);
    }
    if (A[1] && A[3]) {
        MERINO_SPAWN(t_backsub, A[1], L[3], level - 1);
        A[3] = MERINO_CALL(t_backsub, A[3], L[3], level - 1);
        A[1] = MERINO_JOIN(t_backsub);
    } else {
        A[1] = MERINO_CALL(t_backsub, A[1], L[3], level - 1);
        A[3] = MERINO_CALL(t_backsub, A[3], L[3], level - 1);
    }
    return a;
}

MERINO_TASK_2(node, t_chol, node, a, int, level) {
    if (CHOL_SERIAL_HERE(level)) return chol_serial(a, level, NULL);
    if (level == 0) {
        chol_leaf_factor(a);
        return a;
    }
    node *A = a->q;
    A[0] = MERINO_CALL(t_chol, A[0], level - 1);
    A[2] = MERINO_CALL(t_backsub, A[2], A[0], level - 1);
    A[3] = MERINO_CALL(t_mulsub, A[2], A[2], A[3], level - 1, 1);
    A[3] = MERINO_CALL(t_chol, A[3], level - 1);
    return a;
}

#endif
