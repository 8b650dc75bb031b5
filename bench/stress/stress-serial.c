/* stress, serial: ./stress-serial [--reps R] h L reps */
#include "stress.h"

int main(int argc, char **argv) {
    const char *p[3];
    int workers, reps, h;
    long L, trees;
    int np = bench_args(argc, argv, &workers, &reps, p, 3);
    STRESS_PARAMS(p, np, h, L, trees);
    int64_t sum = 0;
    double t0 = bench_now();
    for (long i = 0; i < trees * reps; i++) sum += stress_serial(h);
    double t = bench_now() - t0;
    return bench_report_i64(t, sum == stress_expected(h, trees, reps), sum, -1);
}
