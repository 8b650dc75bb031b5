/* nqueens, serial: ./nqueens-serial [--reps R] n */
#include "nqueens.h"

int main(int argc, char **argv) {
    const char *p[1];
    int workers, reps, n;
    int np = bench_args(argc, argv, &workers, &reps, p, 1);
    NQ_PARAMS(p, np, n);
    long r = 0;
    double t0 = bench_now();
    for (int i = 0; i < reps; i++) {
        r = nq_serial(0, 0, 0);
        bench_sink(r);
    }
    double t = bench_now() - t0;
    return bench_report_i64(t, r == nq_expected(n), r, -1);
}
