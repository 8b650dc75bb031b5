/* lu.h — shared declarations of the lu workload (see lu-serial.c for what it is). */
#ifndef BENCH_LU_H
#define BENCH_LU_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lu_args {
    int workers; /* --workers */
    int outer;   /* --reps: repetitions of the whole kernel */
    long n;      /* matrix order */
    long block;  /* block order (divides n) */
    long reps;   /* factorizations inside the kernel */
} lu_args;

/* The matrix being factored: n x n, row-major, split into nb x nb blocks of b x b. */
typedef struct lu_mat {
    double *a;
    long n, b, nb;
} lu_mat;

/* A schur update C -= A * B on block ranges: C is blocks [i0,i0+ni) x [j0,j0+nj), the inner
 * (k) dimension is blocks [k0,k0+nk). Passed by value to tasks. */
typedef struct lu_rect {
    int i0, ni, j0, nj, k0, nk;
} lu_rect;

/* Splits the update r in two along its longer side (its rows when they are as many as its columns):
 * r keeps the first half, r2 (declared here) is the second. Every version's recursion splits this
 * way. A statement macro, so that the code compiled is the same as when it was written out. */
#define LU_SPLIT(r, r2)                                                                            \
    lu_rect r2 = r;                                                                                \
    if (r.ni >= r.nj) {                                                                            \
        r.ni /= 2;                                                                                 \
        r2.i0 += r.ni;                                                                             \
        r2.ni -= r.ni;                                                                             \
    } else {                                                                                       \
        r.nj /= 2;                                                                                 \
        r2.j0 += r.nj;                                                                             \
        r2.nj -= r.nj;                                                                             \
    }

/* Parses the command line; returns 0, or 2 after printing the usage on bad arguments. */
int lu_parse(int argc, char **argv, lu_args *a);
/* The input: a random, diagonally dominant n x n matrix (deterministic). */
double *lu_input(long n);
/* An uninitialized n x n matrix (64-byte aligned). */
double *lu_alloc(long n);

/* Block leaves, shared by every version (block (I,J) starts at a + I*b*n + J*b). */
void lu_leaf_factor(const lu_mat *m, long k);          /* LU of the diagonal block (k,k) in place */
void lu_leaf_lower(const lu_mat *m, long k, long j);   /* (k,j) := L(k,k)^-1 (k,j), L unit lower */
void lu_leaf_upper(const lu_mat *m, long k, long i);   /* (i,k) := (i,k) U(k,k)^-1 */
void lu_leaf_schur(const lu_mat *m, long i, long j, long k); /* (i,j) -= (i,k) (k,j) */

/* The serial reference: the same recursion as the parallel versions, run serially. If tasks is not
 * NULL, adds to it the number of spawns the parallel versions make. */
void lu_serial(const lu_mat *m, int64_t *tasks);
/* Factors a copy of the input serially and compares m->a with it (1e-9 relative); for n <= 512
 * also checks that the serial factors multiply back to the input (L*U = A within 1e-9 relative).
 * Returns 1 if all is well, and stores the sum of the factors' elements in *checksum and, if tasks
 * is not NULL, the spawns of one parallel factorization in *tasks. */
int lu_verify(const lu_mat *m, const double *input, double *checksum, int64_t *tasks);

#ifdef __cplusplus
}
#endif
#endif
