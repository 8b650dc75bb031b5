/* reduce-common.c — arguments, the body and the checks of the reduce workload. */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "reduce.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* merino's deterministic reductions cut [0, n) into at most this many leaves (MERINO_LEAVES). */
#define REDUCE_LEAVES 1024

int reduce_parse(int argc, char **argv, reduce_args *a) {
    const char *p[3];
    int np = bench_args(argc, argv, &a->workers, &a->reps, p, 3);
    a->n = bench_param_long(p, np, 0, 0);
    a->det = np >= 2 && strcmp(p[1], "det") == 0;
    a->schedule = np >= 3 ? p[2] : "auto";
    if (np < 2 || a->n < 1 || (!a->det && strcmp(p[1], "plain") != 0)) {
        bench_usage_exit(argv[0], "n plain|det [schedule]");
        return 2;
    }
    return 0;
}

double reduce_range(int64_t lo, int64_t hi) {
    double s = 0;
    for (int64_t i = lo; i < hi; i++) s += reduce_value(i);
    return s;
}

int reduce_check(long n, int det, double sum) {
    if (!det) {
        double want = reduce_range(0, n);
        return fabs(sum - want) <= 1e-9 * fabs(want);
    }
    long leaves = n < REDUCE_LEAVES ? n : REDUCE_LEAVES;
    double *p = malloc(sizeof(double) * (size_t)leaves);
    if (!p) return 0;
    for (long j = 0; j < leaves; j++) /* leaf j: [n j / L, n (j + 1) / L), from the identity 0 */
        p[j] = 0.0 + reduce_range((int64_t)((__int128)n * j / leaves), (int64_t)((__int128)n * (j + 1) / leaves));
    for (long step = 1; step < leaves; step *= 2) /* neighbours, then pairs of pairs, ... */
        for (long i = 0; i + step < leaves; i += 2 * step) p[i] += p[i + step];
    int ok = memcmp(&p[0], &sum, sizeof sum) == 0;
    free(p);
    return ok;
}
