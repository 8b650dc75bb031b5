// sort-gnupar.cpp — the sort workload with libstdc++'s parallel mode: __gnu_parallel::sort on
// OpenMP (gcc -fopenmp -D_GLIBCXX_PARALLEL), its team started before the timing (sort.h).
#include "sort-run.hpp"

#include <bench_omp.h>
#include <parallel/algorithm>

int main(int argc, char **argv) {
    sort_args a;
    sort_parse(argc, argv, &a);
    bench_omp_team(a.workers);
    return sort_main(a, [](auto first, auto last) { __gnu_parallel::sort(first, last); });
}
