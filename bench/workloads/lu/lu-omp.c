/* lu-omp.c — blocked LU with OpenMP tasks: the recursion of lu-common.c with `omp task` /
 * `taskwait` at each "||", inside one parallel region (`single` runs the repetitions). See
 * lu-serial.c. */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "lu.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

static void t_schur(const lu_mat *m, lu_rect r) {
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
#pragma omp task firstprivate(m, r2)
        t_schur(m, r2);
        t_schur(m, r);
#pragma omp taskwait
        return;
    }
    for (int k = r.k0; k < r.k0 + r.nk; k++) lu_leaf_schur(m, r.i0, r.j0, k);
}

static void t_lower(const lu_mat *m, int d, int dm, int c0, int nc) {
    if (nc > 1) {
#pragma omp task firstprivate(m, d, dm, c0, nc)
        t_lower(m, d, dm, c0 + nc / 2, nc - nc / 2);
        t_lower(m, d, dm, c0, nc / 2);
#pragma omp taskwait
        return;
    }
    if (dm == 1) {
        lu_leaf_lower(m, d, c0);
        return;
    }
    int h = dm / 2;
    t_lower(m, d, h, c0, 1);
    lu_rect r = {d + h, dm - h, c0, 1, d, h};
    t_schur(m, r);
    t_lower(m, d + h, dm - h, c0, 1);
}

static void t_upper(const lu_mat *m, int d, int dm, int r0, int nr) {
    if (nr > 1) {
#pragma omp task firstprivate(m, d, dm, r0, nr)
        t_upper(m, d, dm, r0 + nr / 2, nr - nr / 2);
        t_upper(m, d, dm, r0, nr / 2);
#pragma omp taskwait
        return;
    }
    if (dm == 1) {
        lu_leaf_upper(m, d, r0);
        return;
    }
    int h = dm / 2;
    t_upper(m, d, h, r0, 1);
    lu_rect r = {r0, 1, d + h, dm - h, d, h};
    t_schur(m, r);
    t_upper(m, d + h, dm - h, r0, 1);
}

static void t_lu(const lu_mat *m, int d, int dm) {
    if (dm == 1) {
        lu_leaf_factor(m, d);
        return;
    }
    int h = dm / 2;
    t_lu(m, d, h);
#pragma omp task firstprivate(m, d, h, dm)
    t_lower(m, d, h, d + h, dm - h);
    t_upper(m, d, h, d + h, dm - h);
#pragma omp taskwait
    lu_rect r = {d + h, dm - h, d + h, dm - h, d, h};
    t_schur(m, r);
    t_lu(m, d + h, dm - h);
}

int main(int argc, char **argv) {
    lu_args a;
    if (lu_parse(argc, argv, &a)) return 2;
    double *input = lu_input(a.n);
    lu_mat m = {lu_alloc(a.n), a.n, a.block, a.n / a.block};
    omp_set_dynamic(0);
    omp_set_num_threads(a.workers);
#pragma omp parallel
    { bench_sink(omp_get_thread_num()); } /* start the team outside the timing */
    const size_t bytes = (size_t)a.n * a.n * sizeof(double);
    double t = 0.0;
#pragma omp parallel
#pragma omp single
    for (int o = 0; o < a.outer; o++)
        for (long r = 0; r < a.reps; r++) {
            memcpy(m.a, input, bytes);
            double t0 = bench_now();
            t_lu(&m, 0, (int)m.nb);
            t += bench_now() - t0;
        }

    double sum;
    int64_t tasks;
    int ok = lu_verify(&m, input, &sum, &tasks);
    free(m.a);
    free(input);
    return bench_report_f64(t, ok, sum, tasks * a.reps * a.outer);
}
