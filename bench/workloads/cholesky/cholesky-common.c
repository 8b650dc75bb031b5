/* cholesky-common.c — input, quad-tree helpers, leaves, serial reference and verification shared
 * by every cholesky version.
 *
 * The recursion (same in every version; "||" marks what the parallel versions run in parallel).
 * With a = [a00 0; a10 a11] on the diagonal (lower storage) and L likewise:
 *   chol(a)            leaf: dense Cholesky. Else: a00 = chol(a00); a10 = backsub(a10, a00);
 *                      a11 = mulsub(a10, a10, a11, lower); a11 = chol(a11)
 *   backsub(a, L)      X L^T = a for X (a general), in place. NULL a: NULL. Leaf: dense. Else:
 *                      x00 = backsub(a00, L00) || x10 = backsub(a10, L00);
 *                      a01 = mulsub(x00, L10, a01) || a11 = mulsub(x10, L10, a11);
 *                      x01 = backsub(a01, L11) || x11 = backsub(a11, L11)
 *   mulsub(a, b, r, lower)   r -= a b^T; `lower`: r is on the diagonal, only its lower triangle is
 *                      computed. NULL a or b: r unchanged; NULL r: a new zero block (fill-in).
 *                      Else two rounds, k = 0 then k = 1 (as in Cilk-5), each running in parallel,
 *                      for the quadrants rij of r (r01 skipped when lower, r00 and r11 lower then):
 *                      rij = mulsub(aik, bjk, rij)
 * A call that has nothing to do (NULL a) is not spawned: a "||" pair is a spawn only when both
 * sides have work, a round of mulsub with c non-trivial quadrants makes c-1 spawns. chol itself
 * spawns nothing: its parallelism is inside backsub and mulsub.
 */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "cholesky.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int chol_parse(int argc, char **argv, chol_args *a) {
    const char *p[8];
    int np = bench_args(argc, argv, &a->workers, &a->outer, p, 8);
    a->n = bench_param_long(p, np, 0, 1000);
    a->nonzeros = bench_param_long(p, np, 1, 4 * a->n);
    a->reps = bench_param_long(p, np, 2, 1);
    if (np > 3 || a->n < 1 || a->n > (1L << 20) || a->nonzeros < 0 || a->reps < 1 ||
        (a->n < 2 && a->nonzeros > 0) || a->workers < 1 || a->outer < 1) {
        fprintf(stderr, "usage: %s --workers N [--reps R] n [nonzeros [reps]]\n", argv[0]);
        return 2;
    }
    return 0;
}

static chol_node *chol_alloc(void) {
    chol_node *p = (chol_node *)calloc(1, sizeof(chol_node));
    if (!p) {
        fprintf(stderr, "cholesky: out of memory\n");
        exit(2);
    }
    return p;
}

chol_node *chol_new_leaf(void) { return chol_alloc(); }
chol_node *chol_new_inner(void) { return chol_alloc(); }

chol_node *chol_copy(const chol_node *a, int level) {
    if (!a) return NULL;
    chol_node *c = chol_alloc();
    if (level == 0)
        memcpy(c, a, sizeof *c);
    else
        for (int i = 0; i < 4; i++) c->q[i] = chol_copy(a->q[i], level - 1);
    return c;
}

void chol_free(chol_node *a, int level) {
    if (!a) return;
    if (level > 0)
        for (int i = 0; i < 4; i++) chol_free(a->q[i], level - 1);
    free(a);
}

long chol_count_blocks(const chol_node *a, int level) {
    if (!a) return 0;
    if (level == 0) return 1;
    long c = 0;
    for (int i = 0; i < 4; i++) c += chol_count_blocks(a->q[i], level - 1);
    return c;
}

/* a[i][j] += v, creating the path; (i, j) relative to the node, size CHOL_B << level */
static chol_node *chol_add(chol_node *a, int level, long i, long j, double v) {
    if (!a) a = level == 0 ? chol_new_leaf() : chol_new_inner();
    if (level == 0) {
        a->v[i * CHOL_B + j] += v;
        return a;
    }
    long h = (long)CHOL_B << (level - 1);
    int qi = (i >= h) * 2 + (j >= h);
    a->q[qi] = chol_add(a->q[qi], level - 1, i % h, j % h, v);
    return a;
}

static uint64_t chol_rand(uint64_t *s) { /* splitmix64 */
    uint64_t x = (*s += 0x9e3779b97f4a7c15ull);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

void chol_build(long n, long nonzeros, chol_input *in) {
    int level = 0;
    while (((long)CHOL_B << level) < n) level++;
    long N = (long)CHOL_B << level;
    double *diag = (double *)calloc((size_t)N, sizeof(double));
    if (!diag) {
        fprintf(stderr, "cholesky: out of memory\n");
        exit(2);
    }
    chol_node *root = NULL;
    uint64_t s = 20100913; /* the seed */
    for (long e = 0; e < nonzeros; e++) {
        long i, j;
        do {
            i = (long)(chol_rand(&s) % (uint64_t)n);
            j = (long)(chol_rand(&s) % (uint64_t)n);
        } while (i == j);
        if (i < j) {
            long t = i;
            i = j;
            j = t;
        }
        double v = (double)(chol_rand(&s) >> 11) * (2.0 / 9007199254740992.0) - 1.0; /* [-1, 1) */
        root = chol_add(root, level, i, j, v);
        diag[i] += fabs(v);
        diag[j] += fabs(v);
    }
    /* strictly diagonally dominant with a positive diagonal: positive definite; padding: identity */
    for (long i = 0; i < N; i++) root = chol_add(root, level, i, i, i < n ? 1.0 + diag[i] : 1.0);
    free(diag);
    in->root = root;
    in->level = level;
    in->n = n;
    in->N = N;
}

/* ---- leaves ---------------------------------------------------------------------------------- */

#define AT(p, i, j) ((p)->v[(i) * CHOL_B + (j)])

void chol_leaf_factor(chol_node *a) {
    for (int j = 0; j < CHOL_B; j++) {
        double d = AT(a, j, j);
        for (int k = 0; k < j; k++) d -= AT(a, j, k) * AT(a, j, k);
        d = sqrt(d);
        AT(a, j, j) = d;
        for (int i = j + 1; i < CHOL_B; i++) {
            double s = AT(a, i, j);
            for (int k = 0; k < j; k++) s -= AT(a, i, k) * AT(a, j, k);
            AT(a, i, j) = s / d;
        }
    }
}

void chol_leaf_backsub(chol_node *a, const chol_node *l) {
    for (int r = 0; r < CHOL_B; r++)
        for (int j = 0; j < CHOL_B; j++) {
            double s = AT(a, r, j);
            for (int k = 0; k < j; k++) s -= AT(a, r, k) * AT(l, j, k);
            AT(a, r, j) = s / AT(l, j, j);
        }
}

void chol_leaf_mulsub(const chol_node *a, const chol_node *b, chol_node *r, int lower) {
    for (int i = 0; i < CHOL_B; i++) {
        int jmax = lower ? i + 1 : CHOL_B;
        for (int j = 0; j < jmax; j++) {
            double s = AT(r, i, j);
            for (int k = 0; k < CHOL_B; k++) s -= AT(a, i, k) * AT(b, j, k);
            AT(r, i, j) = s;
        }
    }
}

/* ---- the serial recursion -------------------------------------------------------------------- */

static chol_node *s_mulsub(chol_node *a, chol_node *b, chol_node *r, int level, int lower, int64_t *t) {
    if (!a || !b) return r;
    if (level == 0) {
        if (!r) r = chol_new_leaf();
        chol_leaf_mulsub(a, b, r, lower);
        return r;
    }
    if (!r) r = chol_new_inner();
    chol_node **A = a->q, **B = b->q, **R = r->q;
    for (int k = 0; k < 2; k++) {
        int cnt = 0;
        for (int q = 0; q < 4; q++) {
            if (lower && q == 1) continue;
            if (!A[CHOL_QA(q, k)] || !B[CHOL_QB(q, k)]) continue;
            cnt++;
            R[q] = s_mulsub(A[CHOL_QA(q, k)], B[CHOL_QB(q, k)], R[q], level - 1, lower && q != 2, t);
        }
        if (t && cnt > 1) *t += cnt - 1;
    }
    return r;
}

static chol_node *s_backsub(chol_node *a, chol_node *l, int level, int64_t *t) {
    if (!a) return NULL;
    if (level == 0) {
        chol_leaf_backsub(a, l);
        return a;
    }
    chol_node **A = a->q, **L = l->q;
    if (t && A[0] && A[2]) ++*t;
    A[0] = s_backsub(A[0], L[0], level - 1, t);
    A[2] = s_backsub(A[2], L[0], level - 1, t);
    if (t && L[2] && A[0] && A[2]) ++*t;
    A[1] = s_mulsub(A[0], L[2], A[1], level - 1, 0, t);
    A[3] = s_mulsub(A[2], L[2], A[3], level - 1, 0, t);
    if (t && A[1] && A[3]) ++*t;
    A[1] = s_backsub(A[1], L[3], level - 1, t);
    A[3] = s_backsub(A[3], L[3], level - 1, t);
    return a;
}

static chol_node *s_chol(chol_node *a, int level, int64_t *t) {
    if (level == 0) {
        chol_leaf_factor(a);
        return a;
    }
    chol_node **A = a->q;
    A[0] = s_chol(A[0], level - 1, t);
    A[2] = s_backsub(A[2], A[0], level - 1, t);
    A[3] = s_mulsub(A[2], A[2], A[3], level - 1, 1, t);
    A[3] = s_chol(A[3], level - 1, t);
    return a;
}

chol_node *chol_serial(chol_node *a, int level, int64_t *tasks) { return s_chol(a, level, tasks); }
#ifdef CHOL_SERIAL_STEPS /* experiments/prof only: other callers change how the serial baseline compiles */
chol_node *chol_serial_backsub(chol_node *a, chol_node *l, int level, int64_t *tasks) {
    return s_backsub(a, l, level, tasks);
}
chol_node *chol_serial_mulsub(chol_node *a, chol_node *b, chol_node *r, int level, int lower, int64_t *tasks) {
    return s_mulsub(a, b, r, level, lower, tasks);
}
#endif

/* ---- verification ---------------------------------------------------------------------------- */

/* 1 if the trees have the same blocks and values within 1e-9 relative; sums x's elements */
static int chol_same(const chol_node *x, const chol_node *y, int level, long r0, long c0, double *sum) {
    if (!x || !y) {
        if (x != y) {
            fprintf(stderr, "cholesky: MISMATCH: block at (%ld,%ld), level %d, present in one factor only\n",
                    r0, c0, level);
            return 0;
        }
        return 1;
    }
    if (level == 0) {
        for (int i = 0; i < CHOL_B * CHOL_B; i++) {
            *sum += x->v[i];
            if (!(fabs(x->v[i] - y->v[i]) <= 1e-9 * (1.0 + fabs(y->v[i])))) {
                fprintf(stderr, "cholesky: MISMATCH at (%ld,%ld): %.17g, serial %.17g\n",
                        r0 + i / CHOL_B, c0 + i % CHOL_B, x->v[i], y->v[i]);
                return 0;
            }
        }
        return 1;
    }
    long h = (long)CHOL_B << (level - 1);
    for (int q = 0; q < 4; q++)
        if (!chol_same(x->q[q], y->q[q], level - 1, r0 + (q / 2) * h, c0 + (q % 2) * h, sum)) return 0;
    return 1;
}

static void chol_dense(const chol_node *a, int level, double *d, long N, long r0, long c0) {
    if (!a) return;
    if (level == 0) {
        for (int i = 0; i < CHOL_B; i++)
            for (int j = 0; j < CHOL_B; j++) d[(r0 + i) * N + c0 + j] = AT(a, i, j);
        return;
    }
    long h = (long)CHOL_B << (level - 1);
    for (int q = 0; q < 4; q++) chol_dense(a->q[q], level - 1, d, N, r0 + (q / 2) * h, c0 + (q % 2) * h);
}

int chol_verify(const chol_input *in, const chol_node *L, double *checksum, int64_t *tasks) {
    chol_node *R = chol_copy(in->root, in->level);
    int64_t count = 0;
    R = chol_serial(R, in->level, &count);
    if (tasks) *tasks = count;
    double sum = 0.0;
    int ok = chol_same(L, R, in->level, 0, 0, &sum);
    long N = in->N;
    if (ok && N <= 512) { /* the reference itself: L L^T must give the input back */
        double *A = (double *)calloc((size_t)(N * N), sizeof(double));
        double *F = (double *)calloc((size_t)(N * N), sizeof(double));
        if (!A || !F) {
            fprintf(stderr, "cholesky: out of memory\n");
            exit(2);
        }
        chol_dense(in->root, in->level, A, N, 0, 0);
        chol_dense(R, in->level, F, N, 0, 0);
        for (long i = 0; i < N && ok; i++)
            for (long j = 0; j <= i; j++) {
                double s = 0.0;
                for (long k = 0; k <= j; k++) s += F[i * N + k] * F[j * N + k];
                if (!(fabs(s - A[i * N + j]) <= 1e-9 * (1.0 + fabs(A[i * N + j])))) {
                    fprintf(stderr, "cholesky: L*L^T differs from the input at (%ld,%ld): %.17g vs %.17g\n",
                            i, j, s, A[i * N + j]);
                    ok = 0;
                    break;
                }
            }
        free(A);
        free(F);
    }
    chol_free(R, in->level);
    *checksum = sum;
    return ok;
}
