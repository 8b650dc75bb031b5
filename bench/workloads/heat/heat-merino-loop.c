/* heat-merino-loop.c — 2-D heat diffusion with merino's loops: per step, one merino_for over the
 * interior rows (schedule: MERINO_SCHEDULE, default auto), against heat-merino's hand-written
 * recursive split into one task per row. See heat-serial.c. */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "heat.h"

#include <merino_loop.h>

typedef struct heat_step {
    const double *src;
    double *dst;
    long nx;
} heat_step;

static void heat_body(int64_t lo, int64_t hi, void *ctx) {
    const heat_step *s = ctx;
    heat_rows(s->src, s->dst, s->nx, (long)lo, (long)hi);
}

int main(int argc, char **argv) {
    heat_args a;
    if (heat_parse(argc, argv, &a)) return 2;
    heat_grid g;
    heat_init(a.nx, a.ny, &g);
    merino_config cfg = {0};
    cfg.workers = (unsigned)a.workers;
    if (merino_start(&cfg) != 0) return 2;

    double t0 = bench_now();
    for (int o = 0; o < a.outer; o++)
        for (long r = 0; r < a.reps; r++)
            for (long s = 0; s < a.steps; s++) {
                heat_step st = {heat_src(&g, s), heat_dst(&g, s), g.nx};
                merino_for(1, g.ny - 1, heat_body, &st, NULL);
            }
    double t1 = bench_now();
    BENCH_MERINO_STATS();
    merino_stop();

    double sum;
    int ok = heat_verify(&g, a.steps, &sum);
    heat_free(&g);
    return bench_report_f64(t1 - t0, ok, sum, -1);
}
