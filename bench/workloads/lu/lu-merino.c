/* lu-merino.c — blocked LU with merino: the recursion of lu-common.c with MERINO_SPAWN/CALL/JOIN
 * at each "||". See lu-serial.c. */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "lu.h"

#include <merino.h>
#include <stdlib.h>
#include <string.h>

MERINO_VOID_TASK_2(t_schur, const lu_mat *, m, lu_rect, r) {
    if (r.ni > 1 || r.nj > 1) {
        lu_rect r2 = r;
        if (r.ni >= r.nj) {
            r.ni /= 2;
            r2.i0 += r.ni;
            r2.ni -= r.ni;
        } else {
            r.nj /= 2;
            r2.j0 += r.nj;
            r2.nj -= r.nj;
        }
        MERINO_SPAWN(t_schur, m, r2);
        MERINO_CALL(t_schur, m, r);
        MERINO_JOIN(t_schur);
        return;
    }
    for (int k = r.k0; k < r.k0 + r.nk; k++) lu_leaf_schur(m, r.i0, r.j0, k);
}

MERINO_VOID_TASK_5(t_lower, const lu_mat *, m, int, d, int, dm, int, c0, int, nc) {
    if (nc > 1) {
        MERINO_SPAWN(t_lower, m, d, dm, c0 + nc / 2, nc - nc / 2);
        MERINO_CALL(t_lower, m, d, dm, c0, nc / 2);
        MERINO_JOIN(t_lower);
        return;
    }
    if (dm == 1) {
        lu_leaf_lower(m, d, c0);
        return;
    }
    int h = dm / 2;
    MERINO_CALL(t_lower, m, d, h, c0, 1);
    lu_rect r = {d + h, dm - h, c0, 1, d, h};
    MERINO_CALL(t_schur, m, r);
    MERINO_CALL(t_lower, m, d + h, dm - h, c0, 1);
}

MERINO_VOID_TASK_5(t_upper, const lu_mat *, m, int, d, int, dm, int, r0, int, nr) {
    if (nr > 1) {
        MERINO_SPAWN(t_upper, m, d, dm, r0 + nr / 2, nr - nr / 2);
        MERINO_CALL(t_upper, m, d, dm, r0, nr / 2);
        MERINO_JOIN(t_upper);
        return;
    }
    if (dm == 1) {
        lu_leaf_upper(m, d, r0);
        return;
    }
    int h = dm / 2;
    MERINO_CALL(t_upper, m, d, h, r0, 1);
    lu_rect r = {r0, 1, d + h, dm - h, d, h};
    MERINO_CALL(t_schur, m, r);
    MERINO_CALL(t_upper, m, d + h, dm - h, r0, 1);
}

MERINO_VOID_TASK_3(t_lu, const lu_mat *, m, int, d, int, dm) {
    if (dm == 1) {
        lu_leaf_factor(m, d);
        return;
    }
    int h = dm / 2;
    MERINO_CALL(t_lu, m, d, h);
    MERINO_SPAWN(t_lower, m, d, h, d + h, dm - h);
    MERINO_CALL(t_upper, m, d, h, d + h, dm - h);
    MERINO_JOIN(t_lower);
    lu_rect r = {d + h, dm - h, d + h, dm - h, d, h};
    MERINO_CALL(t_schur, m, r);
    MERINO_CALL(t_lu, m, d + h, dm - h);
}

/* The kernel: reps factorizations of fresh copies of the input; returns the time spent factoring
 * (the copies are not timed). */
MERINO_TASK_3(double, lu_kernel, const lu_mat *, m, const double *, input, long, reps) {
    double t = 0.0;
    for (long r = 0; r < reps; r++) {
        memcpy(m->a, input, (size_t)m->n * m->n * sizeof(double));
        double t0 = bench_now();
        MERINO_CALL(t_lu, m, 0, (int)m->nb);
        t += bench_now() - t0;
    }
    return t;
}

int main(int argc, char **argv) {
    lu_args a;
    if (lu_parse(argc, argv, &a)) return 2;
    double *input = lu_input(a.n);
    lu_mat m = {lu_alloc(a.n), a.n, a.block, a.n / a.block};
    merino_config cfg = {0};
    cfg.workers = (unsigned)a.workers;
    if (merino_start(&cfg) != 0) return 2;

    double t = 0.0;
    for (int o = 0; o < a.outer; o++) t += MERINO_RUN(lu_kernel, &m, input, a.reps);
    BENCH_MERINO_STATS();
    merino_stop();

    double sum;
    int64_t tasks;
    int ok = lu_verify(&m, input, &sum, &tasks);
    free(m.a);
    free(input);
    return bench_report_f64(t, ok, sum, tasks * a.reps * a.outer);
}
