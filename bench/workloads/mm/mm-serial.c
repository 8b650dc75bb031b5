/* mm-serial.c — dense matrix multiply, the serial baseline.
 *
 * Workload (Wool paper, section IV-A, "mm"): C = A * B for square n x n matrices of doubles,
 * not blocked; the parallel versions parallelize the outermost (row) loop: merino by recursive
 * splitting of the row range down to one row per task (n-1 spawns per product, as in Wool),
 * TBB with parallel_for, OpenMP with `omp parallel for schedule(static)`. Every version computes
 * each row with the same leaf, mm_row (mm-common.c, i-k-j order), so results agree with the
 * serial product computed in the same program (checked within 1e-9 relative).
 *
 * Command line: ./mm-<system> --workers N [--reps R] n [reps]
 *   n     matrix rows (= columns)
 *   reps  products computed one after another inside the kernel (default 1); the small-problem,
 *         many-repetitions method of the Wool paper. --reps R repeats the whole kernel R times.
 * Output: one JSON line; result = sum of the elements of C; tasks = R*reps*(n-1) for merino, null
 * for the others.
 */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "mm.h"


int main(int argc, char **argv) {
    mm_args a;
    if (mm_parse(argc, argv, &a)) return 2;
    double *A, *B, *C;
    mm_init(a.n, &A, &B, &C);

    double t0 = bench_now();
    for (int o = 0; o < a.outer; o++)
        for (long r = 0; r < a.reps; r++) mm_serial(A, B, C, a.n);
    double t1 = bench_now();

    double sum;
    int ok = mm_verify(A, B, C, a.n, &sum);
    mm_free(A, B, C);
    return bench_report_f64(t1 - t0, ok, sum, -1);
}
