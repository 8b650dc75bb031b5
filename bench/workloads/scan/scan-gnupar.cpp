// scan-gnupar.cpp — the scan workload with libstdc++'s parallel mode: __gnu_parallel::partial_sum on
// OpenMP (gcc -fopenmp -D_GLIBCXX_PARALLEL), its team started before the timing (scan.h).
#include "scan-run.hpp"

#include <bench_omp.h>
#include <parallel/numeric>

int main(int argc, char **argv) {
    scan_args a;
    scan_parse(argc, argv, &a);
    bench_omp_team(a.workers);
    return scan_main(a, [](auto first, auto last, auto out) { __gnu_parallel::partial_sum(first, last, out); });
}
