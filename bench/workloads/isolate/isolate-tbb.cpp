// isolate-tbb.cpp — nested oneTBB parallel_for/parallel_reduce, the inner loop in
// tbb::this_task_arena::isolate or not. See isolate-serial.c.
#include <bench.h>
#include "isolate.h"

#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>
#include <tbb/task_arena.h>

#include <atomic>

int main(int argc, char **argv) {
    int workers, reps, isolated;
    long n, m;
    if (isolate_parse(argc, argv, &workers, &reps, &n, &m, &isolated)) return 2;
    tbb::global_control gc(tbb::global_control::max_allowed_parallelism, workers);
    uint64_t s = 0;
    double t0 = bench_now();
    for (int r = 0; r < reps; r++) {
        std::atomic<uint64_t> sum{0};
        tbb::parallel_for(0L, n, [&](long i) {
            auto inner = [&] {
                return tbb::parallel_reduce(tbb::blocked_range<long>(0, m), uint64_t{0},
                    [&](const tbb::blocked_range<long> &rg, uint64_t acc) {
                        for (long j = rg.begin(); j < rg.end(); j++) acc += isolate_value(i, j);
                        return acc;
                    }, [](uint64_t a, uint64_t b) { return a + b; });
            };
            uint64_t v = isolated ? tbb::this_task_arena::isolate(inner) : inner();
            sum.fetch_add(v, std::memory_order_relaxed);
        });
        s = sum.load(std::memory_order_relaxed);
        bench_sink(s);
    }
    double t = bench_now() - t0;
    return bench_report_i64(t, s == isolate_serial(n, m), (int64_t)(s & INT64_MAX), -1);
}
