/* cholesky-serial.c — sparse Cholesky factorization, the serial baseline.
 *
 * Workload (Wool paper section IV-A "cholesky", after the Cilk-5 example; this is an independent
 * implementation of that algorithm): A = L L^T for a random sparse symmetric positive definite
 * matrix of n rows, stored as a quad-tree of 4x4 blocks (lower triangle only; an absent sub-tree
 * is a zero block; padded to a power of two times 4 with an identity). The factorization is a
 * recursive block algorithm with explicit nested tasks: factor the top-left quadrant, solve the
 * bottom-left one against it, subtract its outer product from the bottom-right one, factor that;
 * the solve and the multiply-subtract recurse over quadrants in parallel, creating fill-in blocks
 * as needed (malloc inside tasks). The recursion is spelled out in cholesky-common.c. Tasks are
 * tiny (4x4 leaves): this is the finest-grained workload of the set.
 *
 * Input: `nonzeros` random off-diagonal entries (i != j, uniform in [-1, 1)) of the lower
 * triangle, mirrored; the diagonal is 1 + the sum of the magnitudes in its row, so A is strictly
 * diagonally dominant, hence positive definite. Fixed seed: every version factors the same matrix.
 *
 * Command line: ./cholesky-<system> --workers N [--reps R] n [nonzeros [reps]]
 *   n         matrix rows
 *   nonzeros  random off-diagonal nonzeros (default 4n)
 *   reps      factorizations inside the kernel (default 1), each of a fresh copy of the input; the
 *             copy and the freeing of the factor are not timed. --reps R repeats the kernel.
 * Check: same blocks as a serial factorization and values within 1e-9 relative; for padded size
 * <= 512 the serial factor is also checked densely: L L^T = A. Output: one JSON line; result = sum
 * of L's elements; tasks = spawns of the recursion (all parallel versions), null for serial.
 */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "cholesky.h"

int main(int argc, char **argv) {
    chol_args a;
    if (chol_parse(argc, argv, &a)) return 2;
    chol_input in;
    chol_build(a.n, a.nonzeros, &in);

    double t = 0.0;
    chol_node *L = NULL;
    for (int o = 0; o < a.outer; o++)
        for (long r = 0; r < a.reps; r++) {
            chol_free(L, in.level);
            chol_node *c = chol_copy(in.root, in.level);
            double t0 = bench_now();
            L = chol_serial(c, in.level, NULL);
            t += bench_now() - t0;
        }

    double sum;
    int ok = chol_verify(&in, L, &sum, NULL);
    chol_free(L, in.level);
    chol_free(in.root, in.level);
    return bench_report_f64(t, ok, sum, -1);
}
