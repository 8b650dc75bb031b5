// scan-stdpar.cpp — the scan workload with std::inclusive_scan(std::execution::par, ...): libstdc++'s
// parallel algorithms on oneTBB, run in bench_tbb.h's arena (scan.h).
#include "scan-run.hpp"

#include <bench_tbb.h>
#include <execution>
#include <numeric>

int main(int argc, char **argv) {
    scan_args a;
    scan_parse(argc, argv, &a);
    bench_tbb_arena arena(a.workers);
    return scan_main(a, [&](auto first, auto last, auto out) {
        arena.execute([&] { std::inclusive_scan(std::execution::par, first, last, out); });
    });
}
