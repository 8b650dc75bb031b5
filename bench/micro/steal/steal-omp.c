/* steal, OpenMP tasks: ./steal-omp-{gcc,clang} --workers 2^k [--reps R] k [C]   (see steal.h) */
#include "bench_omp.h"

#include "steal.h"

static long tree(int h) {
    if (h == 0) return steal_leaf();
    long a, b;
#pragma omp task shared(a) firstprivate(h)
    a = tree(h - 1);
    b = tree(h - 1);
#pragma omp taskwait
    return a + b;
}

int main(int argc, char **argv) {
    const char *p[2];
    int workers, reps;
    int np = bench_args(argc, argv, &workers, &reps, p, 2);
    STEAL_PARAMS(p, np);
    double leaf = steal_leaf_alone();
    bench_omp_team(workers);
    int64_t sum = 0;
    double t0 = bench_now();
#pragma omp parallel
#pragma omp single
    {
        for (int i = 0; i < STEAL_WARMUP; i++) sum += tree(steal_k);
        for (int i = 0; i < steal_reps; i++) {
            uint64_t c0 = bench_rdtsc();
            sum += tree(steal_k);
            steal_tree_cycles[i] = (double)(bench_rdtsc() - c0);
        }
    }
    double t = bench_now() - t0;
    return steal_report(t, leaf, workers, sum);
}
