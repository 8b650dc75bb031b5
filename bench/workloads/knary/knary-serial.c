/* knary, serial: ./knary-serial [--reps R] h d s [iters] */
#include "knary.h"

int main(int argc, char **argv) {
    const char *p[4];
    int workers, reps, h;
    int np = bench_args(argc, argv, &workers, &reps, p, 4);
    KNARY_PARAMS(p, np, h);
    long r = 0;
    double t0 = bench_now();
    for (int i = 0; i < reps; i++) {
        r = kn_serial(h);
        bench_sink(r);
    }
    double t = bench_now() - t0;
    return bench_report_i64(t, r == kn_nodes(h), r, -1);
}
