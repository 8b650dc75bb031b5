/* loops-serial.c — the synthetic loop benchmark of the IDWS paper (Rokos, Gorman & Kelly): one
 * parallel loop over states[n], whose values 0..3 decide how much trigonometric work each element
 * gets (0: none; 1: sines and powers; 2: also cosines; 3: also hyperbolic sines), in five
 * distributions: regular (all 2), random (uniform 0..3), dense-end (a mixture in the first quarter,
 * nothing in the middle, all 3 in the last quarter), dense-start (its mirror image: bad for guided)
 * and periodic (work in every other element, in a period of 8: bad for static,1); and two more: pareto
 * (a heavy tail: P(state >= k) = k^-1.5 up to 255, each state above 3 a round of sinh more) and
 * hotspot (10% of the elements, contiguous, holding most of the work).
 * Params: dist n [schedule] — schedule is the system's own: merino's (auto, adaptive, static,
 * static,K, dynamic,K, guided,K, steal, idws, idws-poll), OpenMP's (static, static,K, dynamic,K, guided[,K], through
 * schedule(runtime); runtime: OMP_SCHEDULE) or oneTBB's partitioner (auto, simple (grain 1), affinity). The serial version
 * ignores it. Result: the sum of out[], checked element by element against a serial loop. */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "loops.h"

#include <stdlib.h>

int main(int argc, char **argv) {
    loops_args a;
    if (loops_parse(argc, argv, &a)) return 2;
    unsigned char *states = loops_states(a.dist, a.n);
    double *out = malloc(sizeof(double) * (size_t)a.n);
    if (!out) return 2;
    double t0 = bench_now();
    for (int r = 0; r < a.reps; r++) loops_range(states, out, 0, a.n);
    double t1 = bench_now();
    double sum;
    int ok = loops_check(states, out, a.n, &sum);
    return bench_report_f64(t1 - t0, ok, sum, -1);
}
