/* heat-omp.c — 2-D heat diffusion with OpenMP: one parallel region; per step an
 * `omp for schedule(static)` over the interior rows (its implicit barrier ends the step). See
 * heat-serial.c. */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "heat.h"

#include "bench_omp.h"

int main(int argc, char **argv) {
    heat_args a;
    if (heat_parse(argc, argv, &a)) return 2;
    heat_grid g;
    heat_init(a.nx, a.ny, &g);
    bench_omp_team(a.workers);
    const long steps = a.steps, reps = a.reps, nx = a.nx, ny = a.ny;
    const int outer = a.outer;
    double t0 = bench_now();
#pragma omp parallel
    for (int o = 0; o < outer; o++)
        for (long r = 0; r < reps; r++)
            for (long s = 0; s < steps; s++) {
                const double *src = heat_src(&g, s);
                double *dst = heat_dst(&g, s);
#pragma omp for schedule(static)
                for (long i = 1; i < ny - 1; i++) heat_rows(src, dst, nx, i, i + 1);
            }
    double t1 = bench_now();

    double sum;
    int ok = heat_verify(&g, a.steps, &sum);
    heat_free(&g);
    return bench_report_f64(t1 - t0, ok, sum, -1);
}
