// region, merino's C++ interface: ./region-merino-cxx --workers N [--reps rounds] W R
// Each region is one merino::run from the main thread of a merino::fork_join of the two leaves
// (region.h).
#include <merino.hpp>

#include "region.h"

static uint64_t regions(long first, long n) {
    uint64_t sum = 0;
    for (long r = first; r < first + n; r++)
        sum += merino::run([r] {
            auto [a, b] = merino::fork_join([r] { return region_leaf(r, 0); }, [r] { return region_leaf(r, 1); });
            return a + b;
        });
    return sum;
}

int main(int argc, char **argv) {
    int workers, rounds;
    long R = region_args(argc, argv, &workers, &rounds);
    try {
        merino::runtime rt((unsigned)workers);
        region_result res = region_time(regions, R, rounds);
        return region_report(&res, 1);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "region-merino-cxx: %s\n", e.what());
        return 2;
    }
}
