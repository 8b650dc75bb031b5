/* cholesky-omp.c — sparse Cholesky with OpenMP tasks: the recursion of cholesky-common.c with
 * `omp task` / `taskwait` at each "||" where both sides have work (a task stores its result in the
 * parent's child slot), inside one parallel region (`single` runs the repetitions). See
 * cholesky-serial.c. */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "cholesky.h"

#include "bench_omp.h"

typedef chol_node *node;

static node t_mulsub(node a, node b, node r, int level, int lower) {
    if (!a || !b) return r;
    if (level == 0) return chol_mulsub_leaf(a, b, r, lower);
    if (!r) r = chol_new_inner();
    node *A = a->q, *B = b->q, *R = r->q;
    for (int k = 0; k < 2; k++) {
        int qs[4], cnt = chol_quadrants(A, B, k, lower, qs);
        if (cnt == 0) continue;
        for (int s = 0; s < cnt - 1; s++) {
            int q = qs[s];
#pragma omp task firstprivate(A, B, R, q, k, level, lower)
            R[q] = t_mulsub(A[CHOL_QA(q, k)], B[CHOL_QB(q, k)], R[q], level - 1, lower && q != 2);
        }
        int q = qs[cnt - 1];
        R[q] = t_mulsub(A[CHOL_QA(q, k)], B[CHOL_QB(q, k)], R[q], level - 1, lower && q != 2);
#pragma omp taskwait
    }
    return r;
}

static node t_backsub(node a, node l, int level) {
    if (!a) return NULL;
    if (level == 0) {
        chol_leaf_backsub(a, l);
        return a;
    }
    node *A = a->q, *L = l->q;
    if (A[0] && A[2]) {
#pragma omp task firstprivate(A, L, level)
        A[0] = t_backsub(A[0], L[0], level - 1);
        A[2] = t_backsub(A[2], L[0], level - 1);
#pragma omp taskwait
    } else {
        A[0] = t_backsub(A[0], L[0], level - 1);
        A[2] = t_backsub(A[2], L[0], level - 1);
    }
    if (L[2] && A[0] && A[2]) {
#pragma omp task firstprivate(A, L, level)
        A[1] = t_mulsub(A[0], L[2], A[1], level - 1, 0);
        A[3] = t_mulsub(A[2], L[2], A[3], level - 1, 0);
#pragma omp taskwait
    } else {
        A[1] = t_mulsub(A[0], L[2], A[1], level - 1, 0);
        A[3] = t_mulsub(A[2], L[2], A[3], level - 1, 0);
    }
    if (A[1] && A[3]) {
#pragma omp task firstprivate(A, L, level)
        A[1] = t_backsub(A[1], L[3], level - 1);
        A[3] = t_backsub(A[3], L[3], level - 1);
#pragma omp taskwait
    } else {
        A[1] = t_backsub(A[1], L[3], level - 1);
        A[3] = t_backsub(A[3], L[3], level - 1);
    }
    return a;
}

#include "cholesky-chol.h"

int main(int argc, char **argv) {
    chol_args a;
    if (chol_parse(argc, argv, &a)) return 2;
    chol_input in;
    chol_build(a.n, a.nonzeros, &in);
    bench_omp_team(a.workers);
    double t = 0.0;
    node L = NULL;
#pragma omp parallel
#pragma omp single
    t = chol_kernel(&in, a.outer, a.reps, &L);

    double sum;
    int64_t tasks;
    int ok = chol_verify(&in, L, &sum, &tasks);
    chol_free(L, in.level);
    chol_free(in.root, in.level);
    return bench_report_f64(t, ok, sum, tasks * a.reps * a.outer);
}
