/* lu-merino.c — blocked LU with merino: the recursion of lu-recursion.h with MERINO_SPAWN/CALL/JOIN
 * at each "||". See lu-serial.c. */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "lu.h"

#include <merino.h>
#include <stdlib.h>
#include <string.h>

/* merino's tasks: MERINO_VOID_TASK_n, MERINO_CALL, and a fork as MERINO_SPAWN/CALL/JOIN */
#define LU_TASK_2 MERINO_VOID_TASK_2
#define LU_TASK_3 MERINO_VOID_TASK_3
#define LU_TASK_5 MERINO_VOID_TASK_5
#define LU_CALL MERINO_CALL
#define LU_FORK(f1, a1, f2, a2)                                                                    \
    do {                                                                                           \
        MERINO_SPAWN(f1, LU_ARGS a1);                                                              \
        MERINO_CALL(f2, LU_ARGS a2);                                                               \
        MERINO_JOIN(f1);                                                                           \
    } while (0)
#include "lu-recursion.h"

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
