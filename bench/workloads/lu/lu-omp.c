/* lu-omp.c — blocked LU with OpenMP tasks: the recursion of lu-recursion.h with `omp task` /
 * `taskwait` at each "||", inside one parallel region (`single` runs the repetitions). See
 * lu-serial.c. */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "lu.h"

#include "bench_omp.h"
#include <stdlib.h>
#include <string.h>

/* a fork: an OpenMP task and a taskwait (the arguments are the task's firstprivate copies) */
#define LU_FORK(f1, a1, f2, a2)                                                                    \
    do {                                                                                           \
        _Pragma("omp task") f1 a1;                                                                 \
        f2 a2;                                                                                     \
        _Pragma("omp taskwait")                                                                    \
    } while (0)
#include "lu-recursion.h"

int main(int argc, char **argv) {
    lu_args a;
    if (lu_parse(argc, argv, &a)) return 2;
    double *input = lu_input(a.n);
    lu_mat m = {lu_alloc(a.n), a.n, a.block, a.n / a.block};
    bench_omp_team(a.workers);
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
