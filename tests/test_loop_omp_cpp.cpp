// test_loop_omp_cpp.cpp — merino::omp_parallel_for (merino_loop.hpp) inside OpenMP parallel regions
// where this file is compiled with OpenMP: per-position and per-range bodies over integral and
// iterator ranges, each position once, thread-private partials adding up to the serial sum, and
// an exception rethrown on the thread whose body threw it. Skipped (check_skip) without OpenMP.
#include "check.h"

#include <merino_loop.hpp>

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <vector>

#if defined(_OPENMP)
static void check_cpp() {
    const long n = 20000;
    std::vector<std::atomic<int>> hits(n);
    std::uint64_t total = 0;
#pragma omp parallel num_threads(3)
    {
        std::uint64_t mine = 0; // thread-private
        merino::omp_parallel_for(0L, n, [&](long i) {
            hits[i].fetch_add(1, std::memory_order_relaxed); // relaxed: counts, read after the loop
            mine += static_cast<std::uint64_t>(i) * (i & 15 ? 1 : 1000);
        });
        merino::omp_parallel_for(0, n, [&](long lo, long hi) { // mixed bound types, sub-ranges
            CHECK(lo < hi);
            for (long i = lo; i < hi; i++) hits[i].fetch_add(1, std::memory_order_relaxed);
        }, merino::loop_options(MERINO_SCHEDULE_IDWS_POLL));
#pragma omp atomic
        total += mine;
    }
    std::uint64_t want = 0;
    for (long i = 0; i < n; i++) {
        CHECK_MSG(hits[i].load() == 2, "position %ld ran %d times (two loops)", i, hits[i].load());
        want += static_cast<std::uint64_t>(i) * (i & 15 ? 1 : 1000);
    }
    CHECK_EQ_UINT(total, want);

    std::vector<double> v(5000, 1.0);
    int threw = 0;
#pragma omp parallel num_threads(2)
    {
        merino::omp_parallel_for(v.begin(), v.end(), [](std::vector<double>::iterator it) { *it *= 3; });
        try {
            merino::omp_parallel_for(0, 1000, [](int i) {
                if (i == 999) throw std::runtime_error("last");
            });
        } catch (const std::runtime_error &e) {
#pragma omp atomic
            threw++;
        }
    }
    for (double e : v) CHECK(e == 3.0);
    CHECK_EQ_INT(threw, 1);
}
#endif

int main() {
#if defined(_OPENMP)
    check_cpp();
    std::puts("test_loop_omp_cpp: ok");
    return 0;
#else
    check_skip("this build has no OpenMP (not found, or ThreadSanitizer), and the test needs its regions");
#endif
}
