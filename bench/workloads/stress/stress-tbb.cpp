// stress, oneTBB: ./stress-tbb --workers N [--reps R] h L reps [per_tree]
// (tbb::task_group per inner node; the trees in one arena.execute, or with per_tree = 1 one
// arena.execute per tree from the main thread)
#include <tbb/task_group.h>
#include "bench_tbb.h"

#include "stress.h"

static long tree(int h) {
    if (h == 0) return stress_leaf();
    long a, b;
    tbb::task_group g;
    g.run([&] { a = tree(h - 1); });
    b = tree(h - 1);
    g.wait();
    return a + b;
}

int main(int argc, char **argv) {
    const char *p[4];
    int workers, reps, h;
    long L, trees;
    int np = bench_args(argc, argv, &workers, &reps, p, 4);
    STRESS_PARAMS(p, np, h, L, trees);
    bench_tbb_arena arena(workers);
    int64_t sum = 0;
    double t0 = bench_now();
    if (stress_per_tree) {
        for (long i = 0; i < trees * reps; i++) arena.execute([&] { sum += tree(h); });
    } else {
        arena.execute([&] {
            for (long i = 0; i < trees * reps; i++) sum += tree(h);
        });
    }
    double t = bench_now() - t0;
    return bench_report_i64(t, sum == stress_expected(h, trees, reps), sum, stress_tasks(h, trees, reps));
}
