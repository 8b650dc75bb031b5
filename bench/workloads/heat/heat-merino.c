/* heat-merino.c — 2-D heat diffusion with merino: per step, the interior rows are split
 * recursively (spawn one half, call the other) down to one row per task. See heat-serial.c. */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "heat.h"

#include <merino.h>

MERINO_VOID_TASK_5(heat_range, const double *, src, double *, dst, long, nx, long, lo, long, hi) {
    if (hi - lo == 1) {
        heat_rows(src, dst, nx, lo, hi);
        return;
    }
    long mid = lo + (hi - lo) / 2;
    MERINO_SPAWN(heat_range, src, dst, nx, mid, hi);
    MERINO_CALL(heat_range, src, dst, nx, lo, mid);
    MERINO_JOIN(heat_range);
}

MERINO_VOID_TASK_3(heat_kernel, heat_grid *, g, long, steps, long, reps) {
    for (long r = 0; r < reps; r++)
        for (long s = 0; s < steps; s++)
            MERINO_CALL(heat_range, heat_src(g, s), heat_dst(g, s), g->nx, 1, g->ny - 1);
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
    for (int o = 0; o < a.outer; o++) MERINO_RUN(heat_kernel, &g, a.steps, a.reps);
    double t1 = bench_now();
    BENCH_MERINO_STATS();
    merino_stop();

    double sum;
    int ok = heat_verify(&g, a.steps, &sum);
    heat_free(&g);
    return bench_report_f64(t1 - t0, ok, sum, (int64_t)a.outer * a.reps * a.steps * (a.ny - 3));
}
