/* cholesky.h — shared declarations of the cholesky workload (see cholesky-serial.c). */
#ifndef BENCH_CHOLESKY_H
#define BENCH_CHOLESKY_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Leaf blocks are CHOL_B x CHOL_B. */
#define CHOL_B 4

/* A node of the quad-tree: at level 0 a dense leaf block (row-major), above it four children
 * q[0] = top-left, q[1] = top-right, q[2] = bottom-left, q[3] = bottom-right, each of half the
 * size (CHOL_B << level rows). NULL is an all-zero block. A symmetric matrix is stored as its
 * lower triangle: a node on the diagonal has q[1] == NULL, a diagonal leaf has zeros above its
 * diagonal. */
typedef union chol_node {
    union chol_node *q[4];
    double v[CHOL_B * CHOL_B];
} chol_node;

/* In mulsub (r -= a b^T), the quadrants of a and of b that feed quadrant q of r in round k:
 * r_ij -= a_ik b_jk^T with q = 2i + j. */
#define CHOL_QA(q, k) (((q) & 2) | (k))
#define CHOL_QB(q, k) ((((q) & 1) << 1) | (k))

/* The quadrants q of r with work in round k of r -= a b^T (a's and b's blocks both present; the
 * upper one, q = 1, left out when r is on the diagonal): stored in qs, their number returned.
 * Every parallel version's mulsub runs these. */
static inline int chol_quadrants(union chol_node *const *A, union chol_node *const *B, int k, int lower,
                                 int qs[4]) {
    int cnt = 0;
    for (int q = 0; q < 4; q++)
        if (!(lower && q == 1) && A[CHOL_QA(q, k)] && B[CHOL_QB(q, k)]) qs[cnt++] = q;
    return cnt;
}

typedef struct chol_args {
    int workers;    /* --workers */
    int outer;      /* --reps: repetitions of the whole kernel */
    long n;         /* matrix rows */
    long nonzeros;  /* random off-diagonal nonzeros in the lower triangle */
    long reps;      /* factorizations inside the kernel */
} chol_args;

typedef struct chol_input {
    chol_node *root; /* a diagonal node of level `level` */
    int level;       /* N = CHOL_B << level >= n; rows n..N-1 are padding (identity) */
    long n, N;
} chol_input;

/* Parses the command line; returns 0, or 2 after printing the usage on bad arguments. */
int chol_parse(int argc, char **argv, chol_args *a);
/* A random sparse symmetric positive definite matrix (deterministic; diagonally dominant). */
void chol_build(long n, long nonzeros, chol_input *in);

/* Trees */
chol_node *chol_new_leaf(void);     /* zeroed */
chol_node *chol_new_inner(void);    /* four NULL children */
chol_node *chol_copy(const chol_node *a, int level);
void chol_free(chol_node *a, int level);
long chol_count_blocks(const chol_node *a, int level);

/* Leaves, shared by every version. */
void chol_leaf_factor(chol_node *a);                         /* a = L, L L^T = a (lower) */
void chol_leaf_backsub(chol_node *a, const chol_node *l);    /* a := a L^-T */
void chol_leaf_mulsub(const chol_node *a, const chol_node *b, chol_node *r, int lower); /* r -= a b^T */
/* mulsub's leaf in the parallel versions: r made when absent (a fill-in block); returns r. */
static inline chol_node *chol_mulsub_leaf(const chol_node *a, const chol_node *b, chol_node *r, int lower) {
    if (!r) r = chol_new_leaf();
    chol_leaf_mulsub(a, b, r, lower);
    return r;
}

/* The serial reference: the same recursion as the parallel versions (see cholesky-common.c),
 * factoring `a` in place (fill-in blocks are allocated); returns the root of L. If tasks is not
 * NULL, adds to it the number of spawns the parallel versions make. */
chol_node *chol_serial(chol_node *a, int level, int64_t *tasks);
/* The serial recursion's other two steps (backsub(a, l), mulsub(a, b, r, lower)), for a parallel
 * version that runs the levels below a cutoff serially inside one task (experiments/prof).
 * Defined only when cholesky-common.c is compiled with CHOL_SERIAL_STEPS: with more callers, the
 * serial baseline's recursion compiles differently. */
chol_node *chol_serial_backsub(chol_node *a, chol_node *l, int level, int64_t *tasks);
chol_node *chol_serial_mulsub(chol_node *a, chol_node *b, chol_node *r, int level, int lower, int64_t *tasks);
/* Factors a copy of the input serially and compares L with it (same block structure, values
 * within 1e-9 relative); for N <= 512 also checks L L^T = A densely. Returns 1 if all is well, and
 * stores the sum of L's elements in *checksum and, if tasks is not NULL, the spawns of one parallel
 * factorization in *tasks. */
int chol_verify(const chol_input *in, const chol_node *L, double *checksum, int64_t *tasks);

#ifdef __cplusplus
}
#endif
#endif
