// lu-tbb.cpp — blocked LU with oneTBB: the recursion of lu-recursion.h with a tbb::task_group at each
// "||", inside one task_arena of --workers slots. See lu-serial.c.
#include <bench.h>
#include "lu.h"

#include <stdlib.h>
#include <string.h>
#include <tbb/task_group.h>
#include "bench_tbb.h"

// a fork: a tbb::task_group running the first call, the caller the second
#define LU_FORK(f1, a1, f2, a2)                                                                    \
    do {                                                                                           \
        tbb::task_group g;                                                                         \
        g.run([=] { f1 a1; });                                                                     \
        f2 a2;                                                                                     \
        g.wait();                                                                                  \
    } while (0)
#include "lu-recursion.h"

int main(int argc, char **argv) {
    lu_args a;
    if (lu_parse(argc, argv, &a)) return 2;
    double *input = lu_input(a.n);
    lu_mat m = {lu_alloc(a.n), a.n, a.block, a.n / a.block};
    double t = 0.0;
    {
        bench_tbb_arena arena(a.workers);
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
