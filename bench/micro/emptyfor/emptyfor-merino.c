/* emptyfor-merino.c — the empty-body loop with merino_for: the grain is the chunk of the schedule
 * (third param, default adaptive: `adaptive,GRAIN`); grain auto: the auto schedule. See
 * emptyfor-serial.c. */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "emptyfor.h"

#include <merino_loop.h>

#include <stdio.h>

static void emptyfor_body(int64_t lo, int64_t hi, void *ctx) {
    (void)ctx;
    emptyfor_range((long)lo, (long)hi, merino_worker_index());
}

int main(int argc, char **argv) {
    emptyfor_args a;
    if (emptyfor_parse(argc, argv, &a)) return 2;
    char text[64];
    if (a.grain)
        snprintf(text, sizeof text, "%s,%ld", a.schedule, a.grain);
    else
        snprintf(text, sizeof text, "auto");
    merino_for_opts opts = {0};
    if (merino_schedule_parse(text, &opts) != 0) {
        fprintf(stderr, "%s\n", merino_last_error());
        return 2;
    }
    merino_config cfg = {0};
    cfg.workers = (unsigned)a.workers;
    if (merino_start(&cfg) != 0) return 2;

    double t0 = bench_now();
    for (int r = 0; r < a.reps; r++) merino_for(0, a.n, emptyfor_body, NULL, &opts);
    double t1 = bench_now();
    BENCH_MERINO_STATS();
    merino_stop();

    uint64_t total;
    int ok = emptyfor_check(a.n, a.reps, &total);
    return bench_report_i64(t1 - t0, ok, (int64_t)total, -1);
}
