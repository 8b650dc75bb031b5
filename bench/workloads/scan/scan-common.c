/* scan-common.c — the scan workload's inputs and checks (scan.h), shared by every version. */
#include "bench.h"
#include "scan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *usage = "type n  (type: i64, f64)";

void scan_parse(int argc, char **argv, scan_args *a) {
    const char *p[2];
    int np = bench_args(argc, argv, &a->workers, &a->reps, p, 2);
    if (np != 2) bench_usage_exit(argv[0], usage);
    long n = bench_param_long(p, np, 1, 0);
    int t = strcmp(p[0], "i64") == 0 ? SCAN_I64 : strcmp(p[0], "f64") == 0 ? SCAN_F64 : -1;
    if (t < 0 || n < 1) {
        fprintf(stderr, "%s: bad type '%s' or n '%s'\n", argv[0], p[0], p[1]);
        bench_usage_exit(argv[0], usage);
    }
    a->type = (enum scan_type)t;
    a->n = (size_t)n;
}

/* splitmix64: a fixed stream of random numbers. */
static uint64_t next_u64(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void *alloc_or_exit(size_t bytes) {
    void *p = malloc(bytes);
    if (!p) {
        perror("scan: malloc");
        exit(2);
    }
    return p;
}

int64_t *scan_make_i64(size_t n) {
    int64_t *x = alloc_or_exit(n * sizeof *x);
    uint64_t s = 42;
    for (size_t i = 0; i < n; i++) x[i] = (int64_t)(next_u64(&s) % 2001) - 1000;
    return x;
}

double *scan_make_f64(size_t n) {
    double *x = alloc_or_exit(n * sizeof *x);
    uint64_t s = 42;
    for (size_t i = 0; i < n; i++) x[i] = (double)(next_u64(&s) >> 11) * 0x1.0p-53;
    return x;
}

void *scan_make_out(size_t n, size_t size) {
    void *p = alloc_or_exit(n * size);
    memset(p, 0xff, n * size); /* touch every page outside the timing */
    return p;
}

int scan_check_i64(const int64_t *in, const int64_t *out, size_t n) {
    int64_t s = 0;
    for (size_t i = 0; i < n; i++) {
        s += in[i];
        if (out[i] != s) return 0;
    }
    return 1;
}

int scan_check_f64(const double *in, const double *out, size_t n) {
    double s = 0;
    for (size_t i = 0; i < n; i++) {
        s += in[i];
        if (!(fabs(out[i] - s) <= 1e-9 * s + 1e-12)) return 0;
    }
    return 1;
}
