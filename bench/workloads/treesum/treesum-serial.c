/* treesum, serial: ./treesum-serial [--workers N] [--reps R] nodes cutoff phase variant */
#include "bench.h"
#include "treesum.h"

int main(int argc, char **argv) {
    int workers, reps, phase, variant;
    long n, cutoff;
    ts_args(argc, argv, &workers, &reps, &n, &cutoff, &phase, &variant);
    double t[2] = {0, 0}, sum = 0;
    for (int r = 0; r < reps; r++) {
        double t0 = bench_now();
        tnode *root = ts_build_serial(n, 0);
        double t1 = bench_now();
        sum = ts_sum_serial(root);
        t[TS_ALLOC] += t1 - t0;
        t[TS_SUM] += bench_now() - t1;
        ts_free(root);
    }
    return bench_report_i64(t[phase], sum == ts_expected(n), (int64_t)sum, -1);
}
