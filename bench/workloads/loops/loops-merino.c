/* loops-merino.c — the loops workload with merino_for; the schedule is the third param, as
 * MERINO_SCHEDULE takes it (auto, adaptive[,K], static[,K], dynamic[,K], guided[,K], steal[,K],
 * idws[,K], idws-poll[,K]).
 * See loops-serial.c. */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "loops.h"

#include <merino_loop.h>

#include <stdio.h>
#include <stdlib.h>

typedef struct loops_ctx {
    const unsigned char *states;
    double *out;
} loops_ctx;

static void loops_body(int64_t lo, int64_t hi, void *ctx) {
    loops_ctx *c = ctx;
    loops_range(c->states, c->out, (long)lo, (long)hi);
}

int main(int argc, char **argv) {
    loops_args a;
    if (loops_parse(argc, argv, &a)) return 2;
    merino_for_opts opts = {0};
    if (merino_schedule_parse(a.schedule, &opts) != 0) {
        fprintf(stderr, "%s\n", merino_last_error());
        return 2;
    }
    loops_ctx c = {loops_states(a.dist, a.n), malloc(sizeof(double) * (size_t)a.n)};
    if (!c.out) return 2;
    merino_config cfg = {0};
    cfg.workers = (unsigned)a.workers;
    if (merino_start(&cfg) != 0) return 2;

    double t0 = bench_now();
    for (int r = 0; r < a.reps; r++) merino_for(0, a.n, loops_body, &c, &opts);
    double t1 = bench_now();
    BENCH_MERINO_STATS();
    merino_stop();

    double sum;
    int ok = loops_check((unsigned char *)c.states, c.out, a.n, &sum);
    return bench_report_f64(t1 - t0, ok, sum, -1);
}
