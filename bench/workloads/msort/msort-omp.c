/* msort-omp.c — merge sort with OpenMP tasks: `omp task` for one half (and one sub-merge),
 * `taskwait` to join, inside one parallel region (`single` runs the repetitions). See
 * msort-serial.c. */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "msort.h"
#include "bench_omp.h"
#include <stdlib.h>

static void pmerge(const msort_key *a, long na, const msort_key *b, long nb, msort_key *out) {
    if (na + nb <= MSORT_MERGE_CUTOFF) {
        msort_merge_serial(a, na, b, nb, out);
        return;
    }
    long ia, ib;
    msort_split(a, na, b, nb, &ia, &ib);
#pragma omp task firstprivate(a, ia, b, ib, out)
    pmerge(a, ia, b, ib, out);
    pmerge(a + ia, na - ia, b + ib, nb - ib, out + ia + ib);
#pragma omp taskwait
}

static void psort(const msort_key *src, msort_key *dst, msort_key *tmp, long n) {
    if (n <= MSORT_SORT_CUTOFF) {
        msort_leaf(src, dst, n);
        return;
    }
    long h = n / 2;
#pragma omp task firstprivate(src, dst, tmp, h)
    psort(src, tmp, dst, h);
    psort(src + h, tmp + h, dst + h, n - h);
#pragma omp taskwait
    pmerge(tmp, h, tmp + h, n - h, dst);
}

int main(int argc, char **argv) {
    msort_args a;
    if (msort_parse(argc, argv, &a)) return 2;
    msort_key *in, *out, *tmp;
    msort_init(a.n, &in, &out, &tmp);
    bench_omp_team(a.workers);
    const long n = a.n, reps = a.reps;
    const int outer = a.outer;
    double t0 = bench_now();
#pragma omp parallel
#pragma omp single
    for (int o = 0; o < outer; o++)
        for (long r = 0; r < reps; r++) psort(in, out, tmp, n);
    double t1 = bench_now();

    int64_t sum;
    int ok = msort_verify(in, out, a.n, &sum);
    int64_t tasks = msort_count_tasks(in, a.n) * a.reps * a.outer;
    free(in);
    free(out);
    free(tmp);
    return bench_report_i64(t1 - t0, ok, sum, tasks);
}
