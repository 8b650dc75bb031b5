// sort-tbb.cpp — the sort workload with oneTBB's tbb::parallel_sort, in bench_tbb.h's arena (sort.h).
#include "sort-run.hpp"

#include <bench_tbb.h>
#include <tbb/parallel_sort.h>

int main(int argc, char **argv) {
    sort_args a;
    sort_parse(argc, argv, &a);
    bench_tbb_arena arena(a.workers);
    return sort_main(a, [&](auto first, auto last) { arena.execute([&] { tbb::parallel_sort(first, last); }); });
}
