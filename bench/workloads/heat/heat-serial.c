/* heat-serial.c — 2-D heat diffusion (Jacobi), the serial baseline.
 *
 * Workload: a grid of nx columns by ny rows of doubles, boundary included (hot top edge, warm left
 * edge, the other edges cold, interior pseudo-random); each step replaces every interior point by
 * the average of itself and its 4 neighbours, (c + n + s + w + e) * 0.2, reading the previous time
 * level and writing the other (two buffers). A run is `steps` steps from the initial grid; the
 * steps are serialized, each is parallel over its ny-2 interior rows: merino by recursive
 * splitting of the row range down to one row per task (ny-3 spawns per step); TBB with
 * parallel_for; OpenMP with `omp for schedule(static)` inside one parallel region. Every version
 * uses the same row leaf (heat-common.c), so the result must equal a serial run bit for bit.
 *
 * Command line: ./heat-<system> --workers N [--reps R] nx ny steps [reps]
 *   nx, ny  grid size, boundary included (>= 3)
 *   steps   time steps per run
 *   reps    runs inside the kernel (default 1); --reps R repeats the kernel.
 * Output: one JSON line; result = sum of the final grid; tasks = R*reps*steps*(ny-3) for merino,
 * null for the others.
 */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "heat.h"

int main(int argc, char **argv) {
    heat_args a;
    if (heat_parse(argc, argv, &a)) return 2;
    heat_grid g;
    heat_init(a.nx, a.ny, &g);

    double t0 = bench_now();
    for (int o = 0; o < a.outer; o++)
        for (long r = 0; r < a.reps; r++) heat_serial(&g, a.steps);
    double t1 = bench_now();

    double sum;
    int ok = heat_verify(&g, a.steps, &sum);
    heat_free(&g);
    return bench_report_f64(t1 - t0, ok, sum, -1);
}
