// loopfib-tbb.cpp — loops nested in fib with oneTBB: fib's calls in task_groups, each leaf's loop
// a parallel_reduce (auto partitioner) inside its task. See loopfib-serial.c.
#include <bench.h> // first: it sets _GNU_SOURCE
#include "loopfib.h"

#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_reduce.h>
#include <tbb/task_group.h>

#include <functional>

static uint64_t loopfib(int n, uint64_t leaf, long m) {
    if (n < 2)
        return tbb::parallel_reduce(
            tbb::blocked_range<long>(0, m), uint64_t(0),
            [leaf](const tbb::blocked_range<long> &r, uint64_t s) { return s + loopfib_range(leaf, r.begin(), r.end()); },
            std::plus<uint64_t>());
    uint64_t b = 0;
    tbb::task_group g;
    g.run([&] { b = loopfib(n - 2, 2 * leaf + 1, m); });
    uint64_t a = loopfib(n - 1, 2 * leaf, m);
    g.wait();
    return a + b;
}

int main(int argc, char **argv) {
    loopfib_args a;
    if (loopfib_parse(argc, argv, &a)) return 2;
    tbb::global_control gc(tbb::global_control::max_allowed_parallelism, static_cast<size_t>(a.workers));
    uint64_t s = 0;
    double t0 = bench_now();
    for (int r = 0; r < a.reps; r++) s = loopfib(a.d, 1, a.m);
    double t1 = bench_now();
    return bench_report_i64(t1 - t0, s == loopfib_serial(a.d, 1, a.m), static_cast<int64_t>(s & INT64_MAX), -1);
}
