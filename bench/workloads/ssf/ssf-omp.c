/* ssf-omp.c — sub-string finder with OpenMP: one parallel region, and per search an
 * `omp for schedule(dynamic)` over the positions (work per position varies; the implicit barrier
 * ends the search). See ssf-serial.c. */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "ssf.h"
#include "bench_omp.h"

int main(int argc, char **argv) {
    ssf_args a;
    if (ssf_parse(argc, argv, &a)) return 2;
    ssf_problem p;
    ssf_init(a.n, &p);
    bench_omp_team(a.workers);
    const long len = p.len, reps = a.reps;
    const int outer = a.outer;
    double t0 = bench_now();
#pragma omp parallel
    for (int o = 0; o < outer; o++)
        for (long r = 0; r < reps; r++) {
#pragma omp for schedule(dynamic)
            for (long i = 0; i < len; i++) ssf_position(&p, i);
        }
    double t1 = bench_now();

    long long sum;
    int ok = ssf_verify(&p, a.n, &sum);
    ssf_free(&p);
    return bench_report_i64(t1 - t0, ok, sum, -1);
}
