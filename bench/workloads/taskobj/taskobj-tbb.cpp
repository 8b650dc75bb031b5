// taskobj, oneTBB: ./taskobj-tbb --workers N [--reps R] n cutoff variant (variant ignored)
// tbb::task_group with both children run and waited for: the plain variant in today's oneTBB,
// whose task API (continuations, bypass, recycling) the TBB paper measured and oneTBB removed.
#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include "bench.h"
#include "taskobj.h"

static int cutoff;

static long fib_group(int n) {
    if (n < cutoff) return fib_serial(n);
    long x, y;
    tbb::task_group g;
    g.run([&] { x = fib_group(n - 1); });
    g.run([&] { y = fib_group(n - 2); });
    g.wait();
    return x + y;
}

int main(int argc, char **argv) {
    int workers, reps, n, variant;
    taskobj_args(argc, argv, &workers, &reps, &n, &cutoff, &variant);
    tbb::global_control gc(tbb::global_control::max_allowed_parallelism, (size_t)workers);
    tbb::task_arena arena(workers);
    arena.initialize();
    long r = 0;
    double t0 = bench_now();
    arena.execute([&] {
        for (int i = 0; i < reps; i++) bench_sink(r = fib_group(n));
    });
    double t = bench_now() - t0;
    return bench_report_i64(t, r == fib_closed(n), r, fib_tasks(n, cutoff) * reps);
}
