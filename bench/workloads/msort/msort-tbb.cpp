// msort-tbb.cpp — merge sort with oneTBB: tbb::task_group for both the two half-sorts and the two
// sub-merges of the parallel merge, inside one task_arena of --workers slots. See msort-serial.c.
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "msort.h"
#include <stdlib.h>
#include <tbb/task_group.h>
#include "bench_tbb.h"

static void pmerge(const msort_key *a, long na, const msort_key *b, long nb, msort_key *out) {
    if (na + nb <= MSORT_MERGE_CUTOFF) {
        msort_merge_serial(a, na, b, nb, out);
        return;
    }
    long ia, ib;
    msort_split(a, na, b, nb, &ia, &ib);
    tbb::task_group g;
    g.run([=] { pmerge(a, ia, b, ib, out); });
    pmerge(a + ia, na - ia, b + ib, nb - ib, out + ia + ib);
    g.wait();
}

static void psort(const msort_key *src, msort_key *dst, msort_key *tmp, long n) {
    if (n <= MSORT_SORT_CUTOFF) {
        msort_leaf(src, dst, n);
        return;
    }
    long h = n / 2;
    tbb::task_group g;
    g.run([=] { psort(src, tmp, dst, h); });
    psort(src + h, tmp + h, dst + h, n - h);
    g.wait();
    pmerge(tmp, h, tmp + h, n - h, dst);
}

int main(int argc, char **argv) {
    msort_args a;
    if (msort_parse(argc, argv, &a)) return 2;
    msort_key *in, *out, *tmp;
    msort_init(a.n, &in, &out, &tmp);
    double t0, t1;
    {
        bench_tbb_arena arena(a.workers);
        const long n = a.n, reps = a.reps;
        const int outer = a.outer;
        t0 = bench_now();
        arena.execute([=] {
            for (int o = 0; o < outer; o++)
                for (long r = 0; r < reps; r++) psort(in, out, tmp, n);
        });
        t1 = bench_now();
    }
    int64_t sum;
    int ok = msort_verify(in, out, a.n, &sum);
    int64_t tasks = msort_count_tasks(in, a.n) * a.reps * a.outer;
    free(in);
    free(out);
    free(tmp);
    return bench_report_i64(t1 - t0, ok, sum, tasks);
}
