/* stress, OpenMP tasks: ./stress-omp-{gcc,clang} --workers N [--reps R] h L reps [per_tree]
 * One parallel region; the master thread runs the trees one after the other (taskwait joins); with
 * per_tree = 1, one parallel region (+ single) per tree. */
#include "bench_omp.h"

#include "stress.h"

static long tree(int h) {
    if (h == 0) return stress_leaf();
    long a, b;
#pragma omp task shared(a) firstprivate(h)
    a = tree(h - 1);
    b = tree(h - 1);
#pragma omp taskwait
    return a + b;
}

int main(int argc, char **argv) {
    const char *p[4];
    int workers, reps, h;
    long L, trees;
    int np = bench_args(argc, argv, &workers, &reps, p, 4);
    STRESS_PARAMS(p, np, h, L, trees);
    bench_omp_team(workers);
    int64_t sum = 0;
    double t0 = bench_now();
    if (stress_per_tree) {
        for (long i = 0; i < trees * reps; i++) {
#pragma omp parallel
#pragma omp single
            sum += tree(h);
        }
    } else {
#pragma omp parallel
#pragma omp single
        for (long i = 0; i < trees * reps; i++) sum += tree(h);
    }
    double t = bench_now() - t0;
    return bench_report_i64(t, sum == stress_expected(h, trees, reps), sum, stress_tasks(h, trees, reps));
}
