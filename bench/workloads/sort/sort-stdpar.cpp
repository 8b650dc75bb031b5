// sort-stdpar.cpp — the sort workload with std::sort(std::execution::par, ...): libstdc++'s parallel
// algorithms on oneTBB, run in bench_tbb.h's arena (sort.h).
#include "sort-run.hpp"

#include <bench_tbb.h>
#include <execution>

int main(int argc, char **argv) {
    sort_args a;
    sort_parse(argc, argv, &a);
    bench_tbb_arena arena(a.workers);
    return sort_main(a, [&](auto first, auto last) {
        arena.execute([&] { std::sort(std::execution::par, first, last); });
    });
}
