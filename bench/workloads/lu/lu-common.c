/* lu-common.c — input, block leaves, serial reference and verification shared by every lu version.
 *
 * The recursion (same in every version; "||" marks what the parallel versions run in parallel):
 *   lu(d, m)      factor diagonal blocks [d,d+m): m == 1: leaf; else with h = m/2:
 *                 lu(d,h); lower(d,h, cols [d+h,d+m)) || upper(d,h, rows [d+h,d+m));
 *                 schur(rows, cols [d+h,d+m), k [d,d+h)); lu(d+h, m-h)
 *   lower(d,m,c)  X := L^-1 B on block columns c: more than one column: halves ||; one column:
 *                 m == 1: leaf; else lower(top half); schur(bottom half -= L10 X0); lower(bottom)
 *   upper(d,m,r)  X := B U^-1 on block rows r: the transpose of lower
 *   schur(C,A,B)  C -= A B on block ranges: split the longer of C's two dimensions ||, down to one
 *                 block of C, which loops over k in order
 */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "lu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int lu_parse(int argc, char **argv, lu_args *a) {
    const char *p[8];
    int np = bench_args(argc, argv, &a->workers, &a->outer, p, 8);
    a->n = bench_param_long(p, np, 0, 256);
    a->block = bench_param_long(p, np, 1, 16);
    a->reps = bench_param_long(p, np, 2, 1);
    if (np > 3 || a->n < 1 || a->n > 16384 || a->block < 1 || a->n % a->block != 0 ||
        a->n / a->block > 1000000 || a->reps < 1 || a->workers < 1 || a->outer < 1) {
        fprintf(stderr,
                "usage: %s --workers N [--reps R] n [block [reps]]   (block must divide n)\n",
                argv[0]);
        return 2;
    }
    return 0;
}

double *lu_alloc(long n) {
    double *p = (double *)aligned_alloc(64, ((size_t)n * n * sizeof(double) + 63) & ~(size_t)63);
    if (!p) {
        fprintf(stderr, "lu: out of memory\n");
        exit(2);
    }
    return p;
}

double *lu_input(long n) {
    double *a = lu_alloc(n);
    uint64_t x = 0x2545f4914f6cdd1dull;
    for (long i = 0; i < n * n; i++) {
        x ^= x << 13; /* xorshift64 */
        x ^= x >> 7;
        x ^= x << 17;
        a[i] = (double)(x >> 11) / 9007199254740992.0; /* [0, 1) */
    }
    for (long i = 0; i < n; i++) a[i * n + i] += (double)n; /* diagonally dominant: no pivoting */
    return a;
}

#define BLK(m, I, J) ((m)->a + (I) * (m)->b * (m)->n + (J) * (m)->b)

void lu_leaf_factor(const lu_mat *m, long k) {
    double *a = BLK(m, k, k);
    long n = m->n, b = m->b;
    for (long p = 0; p < b; p++) {
        double piv = a[p * n + p];
        for (long i = p + 1; i < b; i++) {
            double l = a[i * n + p] / piv;
            a[i * n + p] = l;
            for (long j = p + 1; j < b; j++) a[i * n + j] -= l * a[p * n + j];
        }
    }
}

void lu_leaf_lower(const lu_mat *m, long k, long jb) {
    const double *l = BLK(m, k, k);
    double *x = BLK(m, k, jb);
    long n = m->n, b = m->b;
    for (long i = 1; i < b; i++)
        for (long p = 0; p < i; p++) {
            double lip = l[i * n + p];
            for (long j = 0; j < b; j++) x[i * n + j] -= lip * x[p * n + j];
        }
}

void lu_leaf_upper(const lu_mat *m, long k, long ib) {
    const double *u = BLK(m, k, k);
    double *x = BLK(m, ib, k);
    long n = m->n, b = m->b;
    for (long r = 0; r < b; r++) {
        double *xr = x + r * n;
        for (long j = 0; j < b; j++) {
            double v = xr[j] / u[j * n + j];
            xr[j] = v;
            for (long q = j + 1; q < b; q++) xr[q] -= v * u[j * n + q];
        }
    }
}

void lu_leaf_schur(const lu_mat *m, long ib, long jb, long kb) {
    double *c = BLK(m, ib, jb);
    const double *x = BLK(m, ib, kb), *y = BLK(m, kb, jb);
    long n = m->n, b = m->b;
    for (long i = 0; i < b; i++)
        for (long p = 0; p < b; p++) {
            double xip = x[i * n + p];
            for (long j = 0; j < b; j++) c[i * n + j] -= xip * y[p * n + j];
        }
}

/* ---- the serial recursion -------------------------------------------------------------------- */

static void s_schur(const lu_mat *m, lu_rect r, int64_t *t) {
    if (r.ni > 1 || r.nj > 1) {
        LU_SPLIT(r, r2);
        if (t) ++*t;
        s_schur(m, r, t);
        s_schur(m, r2, t);
        return;
    }
    for (int k = r.k0; k < r.k0 + r.nk; k++) lu_leaf_schur(m, r.i0, r.j0, k);
}

static void s_lower(const lu_mat *m, int d, int dm, int c0, int nc, int64_t *t) {
    if (nc > 1) {
        if (t) ++*t;
        s_lower(m, d, dm, c0, nc / 2, t);
        s_lower(m, d, dm, c0 + nc / 2, nc - nc / 2, t);
        return;
    }
    if (dm == 1) {
        lu_leaf_lower(m, d, c0);
        return;
    }
    int h = dm / 2;
    s_lower(m, d, h, c0, 1, t);
    lu_rect r = {d + h, dm - h, c0, 1, d, h};
    s_schur(m, r, t);
    s_lower(m, d + h, dm - h, c0, 1, t);
}

static void s_upper(const lu_mat *m, int d, int dm, int r0, int nr, int64_t *t) {
    if (nr > 1) {
        if (t) ++*t;
        s_upper(m, d, dm, r0, nr / 2, t);
        s_upper(m, d, dm, r0 + nr / 2, nr - nr / 2, t);
        return;
    }
    if (dm == 1) {
        lu_leaf_upper(m, d, r0);
        return;
    }
    int h = dm / 2;
    s_upper(m, d, h, r0, 1, t);
    lu_rect r = {r0, 1, d + h, dm - h, d, h};
    s_schur(m, r, t);
    s_upper(m, d + h, dm - h, r0, 1, t);
}

static void s_lu(const lu_mat *m, int d, int dm, int64_t *t) {
    if (dm == 1) {
        lu_leaf_factor(m, d);
        return;
    }
    int h = dm / 2;
    s_lu(m, d, h, t);
    if (t) ++*t;
    s_lower(m, d, h, d + h, dm - h, t);
    s_upper(m, d, h, d + h, dm - h, t);
    lu_rect r = {d + h, dm - h, d + h, dm - h, d, h};
    s_schur(m, r, t);
    s_lu(m, d + h, dm - h, t);
}

void lu_serial(const lu_mat *m, int64_t *tasks) { s_lu(m, 0, (int)m->nb, tasks); }

int lu_verify(const lu_mat *m, const double *input, double *checksum, int64_t *tasks) {
    long n = m->n;
    lu_mat r = {lu_alloc(n), n, m->b, m->nb};
    memcpy(r.a, input, (size_t)n * n * sizeof(double));
    int64_t count = 0;
    lu_serial(&r, &count);
    if (tasks) *tasks = count;
    int ok = 1;
    double sum = 0.0;
    for (long i = 0; i < n * n; i++) {
        sum += m->a[i];
        if (!(fabs(m->a[i] - r.a[i]) <= 1e-9 * (1.0 + fabs(r.a[i])))) {
            if (ok)
                fprintf(stderr, "lu: MISMATCH at (%ld,%ld): %.17g, serial %.17g\n", i / n, i % n,
                        m->a[i], r.a[i]);
            ok = 0;
        }
    }
    if (n <= 512) { /* the reference itself: L (unit lower) times U must give the input back */
        for (long i = 0; i < n && ok; i++)
            for (long j = 0; j < n; j++) {
                long kmax = i < j ? i : j; /* L[i][k] U[k][j] for k <= min(i,j), L[i][i] = 1 */
                double s = i <= j ? r.a[i * n + j] : 0.0;
                for (long k = 0; k < kmax; k++) s += r.a[i * n + k] * r.a[k * n + j];
                if (i > j) s += r.a[i * n + j] * r.a[j * n + j];
                if (!(fabs(s - input[i * n + j]) <= 1e-9 * (1.0 + fabs(input[i * n + j])))) {
                    fprintf(stderr, "lu: L*U differs from the input at (%ld,%ld): %.17g vs %.17g\n",
                            i, j, s, input[i * n + j]);
                    ok = 0;
                    break;
                }
            }
    }
    free(r.a);
    *checksum = sum;
    return ok;
}
