// heat-tbb.cpp — 2-D heat diffusion with oneTBB: per step a tbb::parallel_for over the interior
// rows (default auto_partitioner, grain 1), inside one task_arena of --workers slots. See
// heat-serial.c.
#include <bench.h>
#include "heat.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include "bench_tbb.h"

int main(int argc, char **argv) {
    heat_args a;
    if (heat_parse(argc, argv, &a)) return 2;
    heat_grid g;
    heat_init(a.nx, a.ny, &g);
    double t0, t1;
    {
        bench_tbb_arena arena(a.workers);
        const heat_grid *gp = &g;
        const long steps = a.steps, reps = a.reps;
        const int outer = a.outer;
        t0 = bench_now();
        arena.execute([=] {
            for (int o = 0; o < outer; o++)
                for (long r = 0; r < reps; r++)
                    for (long s = 0; s < steps; s++) {
                        const double *src = heat_src(gp, s);
                        double *dst = heat_dst(gp, s);
                        const long nx = gp->nx;
                        tbb::parallel_for(tbb::blocked_range<long>(1, gp->ny - 1),
                                          [=](const tbb::blocked_range<long> &rg) {
                                              heat_rows(src, dst, nx, rg.begin(), rg.end());
                                          });
                    }
        });
        t1 = bench_now();
    }
    double sum;
    int ok = heat_verify(&g, a.steps, &sum);
    heat_free(&g);
    return bench_report_f64(t1 - t0, ok, sum, -1);
}
