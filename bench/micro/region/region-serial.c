/* region, serial: ./region-serial [--reps rounds] W R
 * Each "region" runs its two leaves one after the other (region.h). */
#include "region.h"

static uint64_t regions(long first, long n) {
    uint64_t sum = 0;
    for (long r = first; r < first + n; r++) sum += region_leaf(r, 0) + region_leaf(r, 1);
    return sum;
}

int main(int argc, char **argv) {
    int workers, rounds;
    long R = region_args(argc, argv, &workers, &rounds);
    region_result res = region_time(regions, R, rounds);
    return region_report(&res, 0);
}
