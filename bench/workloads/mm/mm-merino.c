/* mm-merino.c — dense matrix multiply with merino: the row range is split recursively into two
 * halves (spawn one, call the other) down to one row per task. See mm-serial.c. */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "mm.h"
#include <merino.h>

typedef struct mm_job {
    const double *A, *B;
    double *C;
    long n;
} mm_job;

MERINO_VOID_TASK_3(mm_rows, const mm_job *, job, long, lo, long, hi) {
    if (hi - lo == 1) {
        mm_row(job->A, job->B, job->C, job->n, lo);
        return;
    }
    long mid = lo + (hi - lo) / 2;
    MERINO_SPAWN(mm_rows, job, mid, hi);
    MERINO_CALL(mm_rows, job, lo, mid);
    MERINO_JOIN(mm_rows);
}

/* The kernel: reps products, in one root task (as Wool's main task loops over them). */
MERINO_VOID_TASK_2(mm_kernel, const mm_job *, job, long, reps) {
    for (long r = 0; r < reps; r++) MERINO_CALL(mm_rows, job, 0, job->n);
}

int main(int argc, char **argv) {
    mm_args a;
    if (mm_parse(argc, argv, &a)) return 2;
    double *A, *B, *C;
    mm_init(a.n, &A, &B, &C);
    merino_config cfg = {0};
    cfg.workers = (unsigned)a.workers;
    if (merino_start(&cfg) != 0) return 2;

    mm_job job = {A, B, C, a.n};
    double t0 = bench_now();
    for (int o = 0; o < a.outer; o++) MERINO_RUN(mm_kernel, &job, a.reps);
    double t1 = bench_now();
    BENCH_MERINO_STATS();
    merino_stop();

    double sum;
    int ok = mm_verify(A, B, C, a.n, &sum);
    mm_free(A, B, C);
    return bench_report_f64(t1 - t0, ok, sum, (int64_t)a.outer * a.reps * (a.n - 1));
}
