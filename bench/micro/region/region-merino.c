/* region, merino: ./region-merino --workers N [--reps rounds] W R
 * Each region is one MERINO_RUN from the main thread of a task that spawns one leaf and calls the
 * other (region.h). */
#include <merino.h>

/* the <w>-merino-stats build counts the timed regions' spawns and steals only */
#define REGION_AFTER_WARMUP() merino_stats_reset()
#include "region.h"

MERINO_TASK_2(uint64_t, leaf, long, r, int, side) { return region_leaf(r, side); }

MERINO_TASK_1(uint64_t, region, long, r) {
    MERINO_SPAWN(leaf, r, 1);
    uint64_t a = MERINO_CALL(leaf, r, 0);
    uint64_t b = MERINO_JOIN(leaf);
    return a + b;
}

static uint64_t regions(long first, long n) {
    uint64_t sum = 0;
    for (long r = first; r < first + n; r++) sum += MERINO_RUN(region, r);
    return sum;
}

int main(int argc, char **argv) {
    int workers, rounds;
    long R = region_args(argc, argv, &workers, &rounds);
    merino_config cfg = {0};
    cfg.workers = (unsigned)workers;
    if (merino_start(&cfg) != 0) return 2;
    region_result res = region_time(regions, R, rounds);
    BENCH_MERINO_STATS();
    merino_stop();
    return region_report(&res, 1);
}
