// steal, oneTBB: ./steal-tbb --workers 2^k [--reps R] k [C]   (see steal.h; tbb::task_group)
#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include "steal.h"

static long tree(int h) {
    if (h == 0) return steal_leaf();
    long a, b;
    tbb::task_group g;
    g.run([&] { a = tree(h - 1); });
    b = tree(h - 1);
    g.wait();
    return a + b;
}

int main(int argc, char **argv) {
    const char *p[2];
    int workers, reps;
    int np = bench_args(argc, argv, &workers, &reps, p, 2);
    STEAL_PARAMS(p, np);
    double leaf = steal_leaf_alone();
    tbb::global_control gc(tbb::global_control::max_allowed_parallelism, (size_t)workers);
    tbb::task_arena arena(workers);
    arena.initialize();
    int64_t sum = 0;
    double t0 = bench_now();
    arena.execute([&] {
        for (int i = 0; i < STEAL_WARMUP; i++) sum += tree(steal_k);
        for (int i = 0; i < steal_reps; i++) {
            uint64_t c0 = bench_rdtsc();
            sum += tree(steal_k);
            steal_tree_cycles[i] = (double)(bench_rdtsc() - c0);
        }
    });
    double t = bench_now() - t0;
    return steal_report(t, leaf, workers, sum);
}
