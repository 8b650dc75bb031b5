/* nqarray, merino: ./nqarray-merino --workers N [--reps R] n   (see nqarray.h) */
#include <merino.h>

#include "nqarray.h"

static int64_t nqa_calls;

MERINO_TASK_4(int, nqa, const int *, a, int, n, int, d, int, i) {
    int aa[d + 2]; /* d + 1 queens, at least one element (the root has d = -1); the children read
                    * it: they are joined before it goes */
    if (!nqa_place(a, aa, d, i)) return 0;
    if (++d == n) return 1;
    for (int k = 0; k < n; k++) MERINO_SPAWN(nqa, aa, n, d, k);
    int sum = 0;
    for (int k = 0; k < n; k++) sum += MERINO_JOIN(nqa);
    return sum;
}

/* The calls of one search, counted serially once (not timed). */
static int64_t nqa_count(const int *a, int n, int d, int i) {
    int aa[d + 2]; /* d + 1 queens; at least one element (the root has d = -1) */
    if (!nqa_place(a, aa, d, i)) return 1;
    if (++d == n) return 1;
    int64_t c = 1;
    for (int k = 0; k < n; k++) c += nqa_count(aa, n, d, k);
    return c;
}

MERINO_TASK_2(long, nqa_reps, int, n, int, reps) {
    long r = 0;
    for (int i = 0; i < reps; i++) {
        r = MERINO_CALL(nqa, NULL, n, -1, 0);
        bench_sink(r);
    }
    return r;
}

int main(int argc, char **argv) {
    const char *p[1];
    int workers, reps, n;
    int np = bench_args(argc, argv, &workers, &reps, p, 1);
    NQA_PARAMS(p, np, n);
    nqa_calls = nqa_count(NULL, n, -1, 0);
    merino_config cfg = {0};
    cfg.workers = (unsigned)workers;
    if (merino_start(&cfg) != 0) return 2;
    double t0 = bench_now();
    long r = MERINO_RUN(nqa_reps, n, reps);
    double t = bench_now() - t0;
    BENCH_MERINO_STATS();
    merino_stop();
    return bench_report_i64(t, r == nqa_known[n], r, (nqa_calls - 1) * reps);
}
