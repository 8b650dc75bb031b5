/* recmm, merino: ./recmm-merino --workers N [--reps R] n [reps]   (see recmm.h) */
#include <merino.h>

#include "recmm.h"

static int64_t recmm_spawns;

MERINO_VOID_TASK_8(recmm, const recmm_real *, A, const recmm_real *, B, recmm_real *, C, int, m, int, n,
                   int, p, int, ld, int, add) {
    if (RECMM_LEAF(m, n, p)) {
        recmm_leaf(A, B, C, m, n, p, ld, add);
    } else if (m >= n && n >= p) {
        int m1 = m >> 1;
        MERINO_SPAWN(recmm, A, B, C, m1, n, p, ld, add);
        MERINO_CALL(recmm, A + m1 * ld, B, C + m1 * ld, m - m1, n, p, ld, add);
        MERINO_JOIN(recmm);
    } else if (n >= m && n >= p) {
        int n1 = n >> 1; /* the second half adds to what the first wrote: one after the other */
        MERINO_CALL(recmm, A, B, C, m, n1, p, ld, add);
        MERINO_CALL(recmm, A + n1, B + n1 * ld, C, m, n - n1, p, ld, 1);
    } else {
        int p1 = p >> 1;
        MERINO_SPAWN(recmm, A, B, C, m, n, p1, ld, add);
        MERINO_CALL(recmm, A, B + p1, C + p1, m, n, p - p1, ld, add);
        MERINO_JOIN(recmm);
    }
}

/* The spawns of one product, counted without running it. */
static int64_t recmm_count(int m, int n, int p) {
    if (RECMM_LEAF(m, n, p)) return 0;
    if (m >= n && n >= p) return 1 + recmm_count(m >> 1, n, p) + recmm_count(m - (m >> 1), n, p);
    if (n >= m && n >= p) return recmm_count(m, n >> 1, p) + recmm_count(m, n - (n >> 1), p);
    return 1 + recmm_count(m, n, p >> 1) + recmm_count(m, n, p - (p >> 1));
}

MERINO_VOID_TASK_2(recmm_reps, const recmm_args *, a, int, reps) {
    for (int r = 0; r < reps; r++) MERINO_CALL(recmm, a->A, a->B, a->C, a->n, a->n, a->n, a->n, 0);
}

int main(int argc, char **argv) {
    recmm_args a;
    int workers, outer;
    recmm_setup(argc, argv, &a, &workers, &outer);
    recmm_spawns = recmm_count(a.n, a.n, a.n);
    merino_config cfg = {0};
    cfg.workers = (unsigned)workers;
    if (merino_start(&cfg) != 0) return 2;
    double t0 = bench_now();
    MERINO_RUN(recmm_reps, &a, outer * a.reps);
    double t = bench_now() - t0;
    BENCH_MERINO_STATS();
    merino_stop();
    double sum;
    int ok = recmm_check(&a, &sum);
    return bench_report_f64(t, ok, sum, recmm_spawns * outer * a.reps);
}
