/* heat-common.c — grid, leaf, serial reference and verification shared by every heat version. */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "heat.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int heat_parse(int argc, char **argv, heat_args *a) {
    const char *p[8];
    int np = bench_args(argc, argv, &a->workers, &a->outer, p, 8);
    a->nx = bench_param_long(p, np, 0, 256);
    a->ny = bench_param_long(p, np, 1, a->nx);
    a->steps = bench_param_long(p, np, 2, 10);
    a->reps = bench_param_long(p, np, 3, 1);
    if (np > 4 || a->nx < 3 || a->ny < 3 || a->nx > 100000 || a->ny > 100000 || a->steps < 0 ||
        a->reps < 1 || a->workers < 1 || a->outer < 1) {
        fprintf(stderr, "usage: %s --workers N [--reps R] nx [ny [steps [reps]]]   (nx, ny >= 3)\n",
                argv[0]);
        return 2;
    }
    return 0;
}

static double *heat_alloc(long nx, long ny) {
    double *p = (double *)aligned_alloc(64, ((size_t)nx * ny * sizeof(double) + 63) & ~(size_t)63);
    if (!p) {
        fprintf(stderr, "heat: out of memory\n");
        exit(2);
    }
    return p;
}

void heat_init(long nx, long ny, heat_grid *g) {
    g->nx = nx;
    g->ny = ny;
    g->init = heat_alloc(nx, ny);
    g->u = heat_alloc(nx, ny);
    g->v = heat_alloc(nx, ny);
    /* boundary: hot top edge (1.0), a warm left edge (0.5), others cold; interior: pseudo-random
     * in [0, 1) */
    uint64_t x = 88172645463325252ull;
    for (long i = 0; i < ny; i++)
        for (long j = 0; j < nx; j++) {
            double val;
            if (i == 0)
                val = 1.0;
            else if (j == 0)
                val = 0.5;
            else if (i == ny - 1 || j == nx - 1)
                val = 0.0;
            else {
                x ^= x << 13; /* xorshift64 */
                x ^= x >> 7;
                x ^= x << 17;
                val = (double)(x >> 11) / 9007199254740992.0;
            }
            g->init[i * nx + j] = val;
        }
    memcpy(g->u, g->init, (size_t)nx * ny * sizeof(double));
    memcpy(g->v, g->init, (size_t)nx * ny * sizeof(double));
}

void heat_free(heat_grid *g) {
    free(g->init);
    free(g->u);
    free(g->v);
}

void heat_rows(const double *src, double *dst, long nx, long lo, long hi) {
    for (long i = lo; i < hi; i++) {
        const double *up = src + (i - 1) * nx, *c = src + i * nx, *dn = src + (i + 1) * nx;
        double *d = dst + i * nx;
        /* a sum, then one product: no fused multiply-add can change the rounding */
        for (long j = 1; j < nx - 1; j++) d[j] = (c[j] + up[j] + dn[j] + c[j - 1] + c[j + 1]) * 0.2;
    }
}

const double *heat_src(const heat_grid *g, long s) { return s == 0 ? g->init : s % 2 ? g->v : g->u; }

double *heat_dst(const heat_grid *g, long s) { return s % 2 ? g->u : g->v; }

const double *heat_result(const heat_grid *g, long steps) {
    return steps == 0 ? g->init : heat_dst(g, steps - 1);
}

void heat_serial(heat_grid *g, long steps) {
    for (long s = 0; s < steps; s++) heat_rows(heat_src(g, s), heat_dst(g, s), g->nx, 1, g->ny - 1);
}

int heat_verify(heat_grid *g, long steps, double *checksum) {
    heat_grid r;
    heat_init(g->nx, g->ny, &r);
    heat_serial(&r, steps);
    const double *a = heat_result(g, steps), *b = heat_result(&r, steps);
    int ok = 1;
    double sum = 0.0;
    for (long k = 0; k < g->nx * g->ny; k++) {
        sum += a[k];
        if (ok && memcmp(&a[k], &b[k], sizeof(double)) != 0) {
            fprintf(stderr, "heat: MISMATCH at (%ld,%ld): %.17g, serial %.17g\n", k / g->nx,
                    k % g->nx, a[k], b[k]);
            ok = 0;
        }
    }
    heat_free(&r);
    *checksum = sum;
    return ok;
}
