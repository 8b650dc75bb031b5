/* loops.c — a parallel loop and a reduction with merino_loop.h: scale a vector, then sum it. */
#include <merino_loop.h>

#include <stdio.h>
#include <stdlib.h>

static void scale(int64_t lo, int64_t hi, void *ctx) { /* one sub-range [lo, hi) */
    double *x = ctx;
    for (int64_t i = lo; i < hi; i++) x[i] = 2.0 * (double)i;
}

static double part_sum(int64_t lo, int64_t hi, void *ctx) { /* the partial sum of a sub-range */
    const double *x = ctx;
    double s = 0;
    for (int64_t i = lo; i < hi; i++) s += x[i];
    return s;
}

int main(void) {
    enum { N = 1000000 };
    double *x = malloc(sizeof(double) * N);
    if (!x) return 1;
    merino_for(0, N, scale, x, NULL);                      /* the default schedule (auto) */
    merino_for_opts det = {.deterministic = 1};            /* the same bits at any worker count */
    double s = merino_sum_double(0, N, part_sum, x, &det);
    printf("sum = %.1f\n", s);
    free(x);
    return s == (double)N * (N - 1) ? 0 : 1;               /* 2 * (0 + 1 + ... + N-1), exact */
}
