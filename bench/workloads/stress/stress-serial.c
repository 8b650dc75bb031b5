/* stress, serial: ./stress-serial [--reps R] h L reps [per_tree]   (per_tree changes nothing here) */
#include "stress.h"

int main(int argc, char **argv) {
    const char *p[4];
    int workers, reps, h;
    long L, trees;
    int np = bench_args(argc, argv, &workers, &reps, p, 4);
    STRESS_PARAMS(p, np, h, L, trees);
    int64_t sum = 0;
    double t0 = bench_now();
    for (long i = 0; i < trees * reps; i++) sum += stress_serial(h);
    double t = bench_now() - t0;
    return bench_report_i64(t, sum == stress_expected(h, trees, reps), sum, -1);
}
