/* mm-merino-loop.c — dense matrix multiply with merino's loops: one merino_for over the rows per
 * product (schedule: MERINO_SCHEDULE, default auto), against mm-merino's hand-written recursive
 * split into one task per row. See mm-serial.c. */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "mm.h"
#include <merino_loop.h>

typedef struct mm_job {
    const double *A, *B;
    double *C;
    long n;
} mm_job;

static void mm_body(int64_t lo, int64_t hi, void *ctx) {
    const mm_job *job = ctx;
    for (int64_t i = lo; i < hi; i++) mm_row(job->A, job->B, job->C, job->n, (long)i);
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
    for (int o = 0; o < a.outer; o++)
        for (long r = 0; r < a.reps; r++) merino_for(0, a.n, mm_body, &job, NULL);
    double t1 = bench_now();
    BENCH_MERINO_STATS();
    merino_stop();

    double sum;
    int ok = mm_verify(A, B, C, a.n, &sum);
    mm_free(A, B, C);
    return bench_report_f64(t1 - t0, ok, sum, -1);
}
