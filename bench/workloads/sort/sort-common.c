/* sort-common.c — the sort workload's inputs and checks (sort.h), shared by every version. */
#include "bench.h"
#include "sort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *usage = "kind n  (kind: random, nearly, dups, strings)";

int sort_parse(int argc, char **argv, sort_args *a) {
    const char *p[2];
    int np = bench_args(argc, argv, &a->workers, &a->reps, p, 2);
    if (np != 2) bench_usage_exit(argv[0], usage);
    static const char *names[] = {"random", "nearly", "dups", "strings"};
    int k = -1;
    for (int i = 0; i < 4; i++)
        if (strcmp(p[0], names[i]) == 0) k = i;
    long n = bench_param_long(p, np, 1, 0);
    if (k < 0 || n < 1) {
        fprintf(stderr, "%s: bad kind '%s' or n '%s'\n", argv[0], p[0], p[1]);
        bench_usage_exit(argv[0], usage);
    }
    a->kind = (enum sort_kind)k;
    a->n = (size_t)n;
    return 0;
}

/* splitmix64: a fixed stream of random numbers. */
static uint64_t next_u64(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double next_unit(uint64_t *s) { return (double)(next_u64(s) >> 11) * 0x1.0p-53; }

double *sort_make_doubles(const sort_args *a) {
    size_t n = a->n;
    double *x = malloc(n * sizeof *x);
    if (!x) {
        perror("sort: malloc");
        exit(2);
    }
    uint64_t s = 42;
    switch (a->kind) {
    case SORT_RANDOM:
        for (size_t i = 0; i < n; i++) x[i] = next_unit(&s);
        break;
    case SORT_NEARLY:
        for (size_t i = 0; i < n; i++) x[i] = (double)i / (double)n;
        for (size_t k = 0; k < n / 100; k++) {
            size_t i = next_u64(&s) % n, j = next_u64(&s) % n;
            double t = x[i];
            x[i] = x[j];
            x[j] = t;
        }
        break;
    case SORT_DUPS:
        for (size_t i = 0; i < n; i++) x[i] = (double)(next_u64(&s) % 64) * 0.25;
        break;
    default:
        fprintf(stderr, "sort: strings are not doubles\n");
        exit(2);
    }
    return x;
}

char **sort_make_strings(const sort_args *a, char **pool) {
    size_t n = a->n;
    char **v = malloc(n * sizeof *v);
    char *p = malloc(n * 25);
    if (!v || !p) {
        perror("sort: malloc");
        exit(2);
    }
    uint64_t s = 42;
    char *at = p;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = next_u64(&s);
        size_t len = 8 + r % 17;
        v[i] = at;
        for (size_t j = 0; j < len; j++) {
            if (j % 12 == 0) r = next_u64(&s);
            *at++ = (char)('a' + (r % 26));
            r /= 26;
        }
        *at++ = '\0';
    }
    *pool = p;
    return v;
}

static uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint64_t sort_key_double(double x) {
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return mix(b);
}

uint64_t sort_key_string(const char *s, size_t len) {
    uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a, then mixed */
    for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
    return mix(h ^ len);
}

uint64_t sort_sum_doubles(const double *x, size_t n) {
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) sum += sort_key_double(x[i]);
    return sum;
}

int sort_sorted_doubles(const double *x, size_t n) {
    for (size_t i = 1; i < n; i++)
        if (x[i] < x[i - 1]) return 0;
    return 1;
}
