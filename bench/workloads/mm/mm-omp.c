/* mm-omp.c — dense matrix multiply with OpenMP: one parallel region, and per product an
 * `omp for schedule(static)` over the rows (its implicit barrier ends the product). See
 * mm-serial.c. */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "mm.h"
#include "bench_omp.h"

int main(int argc, char **argv) {
    mm_args a;
    if (mm_parse(argc, argv, &a)) return 2;
    double *A, *B, *C;
    mm_init(a.n, &A, &B, &C);
    bench_omp_team(a.workers);
    const long n = a.n, reps = a.reps;
    const int outer = a.outer;
    double t0 = bench_now();
#pragma omp parallel
    for (int o = 0; o < outer; o++)
        for (long r = 0; r < reps; r++) {
#pragma omp for schedule(static)
            for (long i = 0; i < n; i++) mm_row(A, B, C, n, i);
        }
    double t1 = bench_now();

    double sum;
    int ok = mm_verify(A, B, C, a.n, &sum);
    mm_free(A, B, C);
    return bench_report_f64(t1 - t0, ok, sum, -1);
}
