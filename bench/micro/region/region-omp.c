/* region, OpenMP: ./region-omp-{gcc,clang} --workers N [--reps rounds] W R
 * Each region is one `#pragma omp parallel` of --workers threads that share the two leaves by
 * thread number (with two threads, one leaf each; with one, both) (region.h). */
#include <omp.h>

#include "region.h"

static uint64_t regions(long first, long n) {
    uint64_t sum = 0;
    for (long r = first; r < first + n; r++) {
        struct {
            _Alignas(64) uint64_t v; /* one cache line per leaf: no false sharing between them */
        } out[2];
#pragma omp parallel
        {
            int nt = omp_get_num_threads();
            for (int side = omp_get_thread_num(); side < 2; side += nt) out[side].v = region_leaf(r, side);
        }
        sum += out[0].v + out[1].v;
    }
    return sum;
}

int main(int argc, char **argv) {
    int workers, rounds;
    long R = region_args(argc, argv, &workers, &rounds);
    omp_set_dynamic(0);
    omp_set_num_threads(workers);
    region_result res = region_time(regions, R, rounds);
    return region_report(&res, 1);
}
