/* nqarray, serial: ./nqarray-serial [--reps R] n   (see nqarray.h) */
#include "nqarray.h"

int main(int argc, char **argv) {
    const char *p[1];
    int workers, reps, n;
    int np = bench_args(argc, argv, &workers, &reps, p, 1);
    NQA_PARAMS(p, np, n);
    long r = 0;
    double t0 = bench_now();
    for (int i = 0; i < reps; i++) {
        r = nqa_serial(NULL, n, -1, 0);
        bench_sink(r);
    }
    double t = bench_now() - t0;
    return bench_report_i64(t, r == nqa_known[n], r, -1);
}
