// lu-tbb.cpp — blocked LU with oneTBB: the recursion of lu-common.c with a tbb::task_group at each
// "||", inside one task_arena of --workers slots. See lu-serial.c.
#include <bench.h>
#include "lu.h"

#include <stdlib.h>
#include <string.h>
#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

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
        tbb::task_group g;
        g.run([=] { t_schur(m, r2); });
        t_schur(m, r);
        g.wait();
        return;
    }
    for (int k = r.k0; k < r.k0 + r.nk; k++) lu_leaf_schur(m, r.i0, r.j0, k);
}

static void t_lower(const lu_mat *m, int d, int dm, int c0, int nc) {
    if (nc > 1) {
        tbb::task_group g;
        g.run([=] { t_lower(m, d, dm, c0 + nc / 2, nc - nc / 2); });
        t_lower(m, d, dm, c0, nc / 2);
        g.wait();
        return;
    }
    if (dm == 1) {
        lu_leaf_lower(m, d, c0);
        return;
    }
    int h = dm / 2;
    t_lower(m, d, h, c0, 1);
    t_schur(m, lu_rect{d + h, dm - h, c0, 1, d, h});
    t_lower(m, d + h, dm - h, c0, 1);
}

static void t_upper(const lu_mat *m, int d, int dm, int r0, int nr) {
    if (nr > 1) {
        tbb::task_group g;
        g.run([=] { t_upper(m, d, dm, r0 + nr / 2, nr - nr / 2); });
        t_upper(m, d, dm, r0, nr / 2);
        g.wait();
        return;
    }
    if (dm == 1) {
        lu_leaf_upper(m, d, r0);
        return;
    }
    int h = dm / 2;
    t_upper(m, d, h, r0, 1);
    t_schur(m, lu_rect{r0, 1, d + h, dm - h, d, h});
    t_upper(m, d + h, dm - h, r0, 1);
}

static void t_lu(const lu_mat *m, int d, int dm) {
    if (dm == 1) {
        lu_leaf_factor(m, d);
        return;
    }
    int h = dm / 2;
    t_lu(m, d, h);
    {
        tbb::task_group g;
        g.run([=] { t_lower(m, d, h, d + h, dm - h); });
        t_upper(m, d, h, d + h, dm - h);
        g.wait();
    }
    t_schur(m, lu_rect{d + h, dm - h, d + h, dm - h, d, h});
    t_lu(m, d + h, dm - h);
}

int main(int argc, char **argv) {
    lu_args a;
    if (lu_parse(argc, argv, &a)) return 2;
    double *input = lu_input(a.n);
    lu_mat m = {lu_alloc(a.n), a.n, a.block, a.n / a.block};
    double t = 0.0;
    {
        tbb::global_control gc(tbb::global_control::max_allowed_parallelism, (size_t)a.workers);
        tbb::task_arena arena(a.workers);
        arena.initialize();
        arena.execute([] { tbb::task_group g; g.run([] {}); g.wait(); }); // start the workers
        const lu_mat *mp = &m;
        const size_t bytes = (size_t)a.n * a.n * sizeof(double);
        arena.execute([&] {
            for (int o = 0; o < a.outer; o++)
                for (long r = 0; r < a.reps; r++) {
                    memcpy(mp->a, input, bytes);
                    double t0 = bench_now();
                    t_lu(mp, 0, (int)mp->nb);
                    t += bench_now() - t0;
                }
        });
    }
    double sum;
    int64_t tasks;
    int ok = lu_verify(&m, input, &sum, &tasks);
    free(m.a);
    free(input);
    return bench_report_f64(t, ok, sum, tasks * a.reps * a.outer);
}
