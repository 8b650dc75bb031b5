/* lu-serial.c — blocked LU decomposition without pivoting, the serial baseline.
 *
 * Workload: A = L U for a random, diagonally dominant n x n matrix of doubles (row-major; no
 * pivoting needed), in place, by a recursive block algorithm on b x b blocks (n/b blocks a side):
 * factor the top-left half, then solve the top-right panel (L^-1 B) and the bottom-left panel
 * (B U^-1) in parallel, update the trailing matrix (C -= A B, split recursively into independent
 * blocks), factor it. The solves split over block columns (rows) in parallel, the updates over
 * blocks of C; the leaves are b x b block kernels (lu-common.c, with the whole recursion in its
 * header comment). Nested fork-join tasks: merino SPAWN/CALL/JOIN, TBB task_group, OpenMP
 * `omp task`/`taskwait`. The serial version runs the same recursion without tasks.
 *
 * Command line: ./lu-<system> --workers N [--reps R] n [block [reps]]
 *   n      matrix order
 *   block  block order b, must divide n (default 16)
 *   reps   factorizations inside the kernel (default 1), each of a fresh copy of the input; the
 *          copy is not timed. --reps R repeats the kernel.
 * Check: equal to a serial factorization within 1e-9 relative (and, for n <= 512, the serial
 * factors give the input back). Output: one JSON line; result = sum of the elements of the
 * factored matrix; tasks = spawns of the recursion (all parallel versions), null for serial.
 */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "lu.h"

#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    lu_args a;
    if (lu_parse(argc, argv, &a)) return 2;
    double *input = lu_input(a.n);
    lu_mat m = {lu_alloc(a.n), a.n, a.block, a.n / a.block};
    size_t bytes = (size_t)a.n * a.n * sizeof(double);

    double t = 0.0;
    for (int o = 0; o < a.outer; o++)
        for (long r = 0; r < a.reps; r++) {
            memcpy(m.a, input, bytes);
            double t0 = bench_now();
            lu_serial(&m, NULL);
            t += bench_now() - t0;
        }

    double sum;
    int ok = lu_verify(&m, input, &sum, NULL);
    free(m.a);
    free(input);
    return bench_report_f64(t, ok, sum, -1);
}
