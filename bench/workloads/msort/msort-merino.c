/* msort-merino.c — merge sort with merino: the two halves sorted in parallel (spawn one, call the
 * other), then a parallel divide-and-conquer merge. See msort-serial.c. */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "msort.h"
#include <merino.h>
#include <stdlib.h>

MERINO_VOID_TASK_5(pmerge, const msort_key *, a, long, na, const msort_key *, b, long, nb,
                   msort_key *, out) {
    if (na + nb <= MSORT_MERGE_CUTOFF) {
        msort_merge_serial(a, na, b, nb, out);
        return;
    }
    long ia, ib;
    msort_split(a, na, b, nb, &ia, &ib);
    MERINO_SPAWN(pmerge, a, ia, b, ib, out);
    MERINO_CALL(pmerge, a + ia, na - ia, b + ib, nb - ib, out + ia + ib);
    MERINO_JOIN(pmerge);
}

/* dst[0..n) = src[0..n) sorted, using tmp */
MERINO_VOID_TASK_4(psort, const msort_key *, src, msort_key *, dst, msort_key *, tmp, long, n) {
    if (n <= MSORT_SORT_CUTOFF) {
        msort_leaf(src, dst, n);
        return;
    }
    long h = n / 2;
    MERINO_SPAWN(psort, src, tmp, dst, h);
    MERINO_CALL(psort, src + h, tmp + h, dst + h, n - h);
    MERINO_JOIN(psort);
    MERINO_CALL(pmerge, tmp, h, tmp + h, n - h, dst);
}

MERINO_VOID_TASK_5(msort_kernel, const msort_key *, in, msort_key *, out, msort_key *, tmp, long, n,
                   long, reps) {
    for (long r = 0; r < reps; r++) MERINO_CALL(psort, in, out, tmp, n);
}

int main(int argc, char **argv) {
    msort_args a;
    if (msort_parse(argc, argv, &a)) return 2;
    msort_key *in, *out, *tmp;
    msort_init(a.n, &in, &out, &tmp);
    merino_config cfg = {0};
    cfg.workers = (unsigned)a.workers;
    if (merino_start(&cfg) != 0) return 2;

    double t0 = bench_now();
    for (int o = 0; o < a.outer; o++) MERINO_RUN(msort_kernel, in, out, tmp, a.n, a.reps);
    double t1 = bench_now();
    BENCH_MERINO_STATS();
    merino_stop();

    int64_t sum;
    int ok = msort_verify(in, out, a.n, &sum);
    int64_t tasks = msort_count_tasks(in, a.n) * a.reps * a.outer;
    free(in);
    free(out);
    free(tmp);
    return bench_report_i64(t1 - t0, ok, sum, tasks);
}
