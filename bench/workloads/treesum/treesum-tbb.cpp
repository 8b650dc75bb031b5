// treesum, oneTBB: ./treesum-tbb --workers N [--reps R] nodes cutoff phase variant (variant ignored)
// tbb::task_group for both phases (oneTBB has removed the task API the TBB paper measured).
#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include "bench.h"
#include "treesum.h"

static long cutoff;

static tnode *build(long n, long first) {
    if (n < cutoff) return ts_build_serial(n, first);
    tnode *t = (tnode *)malloc(sizeof *t);
    if (!t) abort();
    long nl = (n - 1) / 2;
    t->value = (double)(first % 8);
    tbb::task_group g;
    g.run([&] { t->left = build(nl, first + 1); });
    g.run([&] { t->right = build(n - 1 - nl, first + 1 + nl); });
    g.wait();
    return t;
}

static double sum(const tnode *t, long n) { // n: the subtree's size, as built
    if (n < cutoff) return ts_sum_serial(t);
    long nl = (n - 1) / 2;
    double l = 0, r = 0;
    tbb::task_group g;
    g.run([&] { l = sum(t->left, nl); });
    g.run([&] { r = sum(t->right, n - 1 - nl); });
    g.wait();
    return t->value + l + r;
}

int main(int argc, char **argv) {
    int workers, reps, phase, variant;
    long n;
    ts_args(argc, argv, &workers, &reps, &n, &cutoff, &phase, &variant);
    tbb::global_control gc(tbb::global_control::max_allowed_parallelism, (size_t)workers);
    tbb::task_arena arena(workers);
    double t[2] = {0, 0}, s = 0;
    arena.execute([&] {
        for (int r = 0; r < reps; r++) {
            double t0 = bench_now();
            tnode *root = build(n, 0);
            double t1 = bench_now();
            s = sum(root, n);
            t[TS_ALLOC] += t1 - t0;
            t[TS_SUM] += bench_now() - t1;
            ts_free(root);
        }
    });
    return bench_report_i64(t[phase], s == ts_expected(n), (int64_t)s, -1);
}
