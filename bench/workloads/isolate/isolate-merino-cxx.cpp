// isolate-merino-cxx.cpp — nested merino::parallel_for, the inner loop in merino::isolate or not.
// See isolate-serial.c.
#include <bench.h>
#include "isolate.h"

#include <merino.hpp>
#include <merino_loop.hpp>

#include <atomic>

int main(int argc, char **argv) {
    int workers, reps, isolated;
    long n, m;
    if (isolate_parse(argc, argv, &workers, &reps, &n, &m, &isolated)) return 2;
    merino::runtime rt(workers);
    uint64_t s = 0;
    double t0 = bench_now();
    for (int r = 0; r < reps; r++) {
        std::atomic<uint64_t> sum{0};
        merino::parallel_for(0L, n, [&](long i) {
            auto inner = [&] {
                return merino::parallel_reduce(0L, m, uint64_t{0}, [&](long lo, long hi, uint64_t acc) {
                    for (long j = lo; j < hi; j++) acc += isolate_value(i, j);
                    return acc;
                }, [](uint64_t a, uint64_t b) { return a + b; });
            };
            uint64_t v = isolated ? merino::isolate(inner) : inner();
            sum.fetch_add(v, std::memory_order_relaxed); // relaxed: read after the loop's joins
        });
        s = sum.load(std::memory_order_relaxed);
        bench_sink(s);
    }
    double t = bench_now() - t0;
    BENCH_MERINO_STATS();
    return bench_report_i64(t, s == isolate_serial(n, m), (int64_t)(s & INT64_MAX), -1);
}
