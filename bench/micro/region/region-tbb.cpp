// region, oneTBB: ./region-tbb --workers N [--reps rounds] W R
// Each region is one tbb::parallel_invoke of the two leaves from the main thread (region.h);
// tbb::global_control limits the threads to --workers.
#include <tbb/global_control.h>
#include <tbb/parallel_invoke.h>

#include "region.h"

static uint64_t regions(long first, long n) {
    uint64_t sum = 0;
    for (long r = first; r < first + n; r++) {
        uint64_t a, b;
        tbb::parallel_invoke([&] { a = region_leaf(r, 0); }, [&] { b = region_leaf(r, 1); });
        sum += a + b;
    }
    return sum;
}

int main(int argc, char **argv) {
    int workers, rounds;
    long R = region_args(argc, argv, &workers, &rounds);
    tbb::global_control gc(tbb::global_control::max_allowed_parallelism, (size_t)workers);
    region_result res = region_time(regions, R, rounds);
    return region_report(&res, 1);
}
