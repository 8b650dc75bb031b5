/* cholesky-merino.c — sparse Cholesky with merino: the tasks of cholesky-merino.h (the recursion of
 * cholesky-common.c, spawning at each "||" where both sides have work). See cholesky-serial.c. */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "cholesky.h"

#include <merino.h>

#include "cholesky-merino.h"

/* The kernel: reps factorizations of fresh copies of the input; returns the time spent factoring
 * (copying and freeing are not timed). The last factor is left in *out. */
MERINO_TASK_3(double, chol_kernel, const chol_input *, in, long, reps, node *, out) {
    double t = 0.0;
    for (long r = 0; r < reps; r++) {
        chol_free(*out, in->level);
        node c = chol_copy(in->root, in->level);
        double t0 = bench_now();
        *out = MERINO_CALL(t_chol, c, in->level);
        t += bench_now() - t0;
    }
    return t;
}

int main(int argc, char **argv) {
    chol_args a;
    if (chol_parse(argc, argv, &a)) return 2;
    chol_input in;
    chol_build(a.n, a.nonzeros, &in);
    merino_config cfg = {0};
    cfg.workers = (unsigned)a.workers;
    if (merino_start(&cfg) != 0) return 2;

    double t = 0.0;
    node L = NULL;
    for (int o = 0; o < a.outer; o++) t += MERINO_RUN(chol_kernel, &in, a.reps, &L);
    BENCH_MERINO_STATS();
    merino_stop();

    double sum;
    int64_t tasks;
    int ok = chol_verify(&in, L, &sum, &tasks);
    chol_free(L, in.level);
    chol_free(in.root, in.level);
    return bench_report_f64(t, ok, sum, tasks * a.reps * a.outer);
}
