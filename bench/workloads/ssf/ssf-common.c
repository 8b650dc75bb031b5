/* ssf-common.c — input, leaf kernel, serial reference and verification shared by every ssf version. */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "ssf.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ssf_parse(int argc, char **argv, ssf_args *a) {
    const char *p[8];
    int np = bench_args(argc, argv, &a->workers, &a->outer, p, 8);
    a->n = bench_param_long(p, np, 0, 14);
    a->reps = bench_param_long(p, np, 1, 1);
    if (np > 2 || a->n < 0 || a->n > 30 || a->reps < 1 || a->workers < 1 || a->outer < 1) {
        fprintf(stderr, "usage: %s --workers N [--reps R] n [reps]   (n: 0..30, string s_n)\n", argv[0]);
        return 2;
    }
    return 0;
}

static void *ssf_alloc(size_t bytes) {
    void *p = calloc(1, bytes);
    if (!p) {
        fprintf(stderr, "ssf: out of memory\n");
        exit(2);
    }
    return p;
}

void ssf_init(long n, ssf_problem *p) {
    long la = 1, lb = 1; /* |s_{k-2}|, |s_{k-1}| */
    for (long k = 2; k <= n; k++) {
        long lc = la + lb;
        la = lb;
        lb = lc;
    }
    long len = lb; /* |s_n| (|s_0| = |s_1| = 1) */
    /* three buffers of the final size, rotated: c = b a, then (a, b) = (b, c) */
    char *a = (char *)ssf_alloc((size_t)len + 1), *b = (char *)ssf_alloc((size_t)len + 1),
         *c = (char *)ssf_alloc((size_t)len + 1);
    strcpy(a, "a");
    strcpy(b, n == 0 ? "a" : "b");
    for (long k = 2; k <= n; k++) {
        size_t lb_ = strlen(b);
        memcpy(c, b, lb_);
        strcpy(c + lb_, a);
        char *t = a;
        a = b;
        b = c;
        c = t;
    }
    free(a);
    free(c);
    p->str = b;
    p->len = len;
    p->max_len = (long *)ssf_alloc((size_t)len * sizeof(long));
    p->max_pos = (long *)ssf_alloc((size_t)len * sizeof(long));
}

void ssf_free(ssf_problem *p) {
    free(p->str);
    free(p->max_len);
    free(p->max_pos);
}

void ssf_position(ssf_problem *p, long i) {
    const char *s = p->str;
    long len = p->len, best = 0, best_pos = 0;
    for (long j = 0; j < len; j++) {
        if (j == i) continue;
        long limit = len - (i > j ? i : j);
        long k = 0;
        while (k < limit && s[i + k] == s[j + k]) k++;
        if (k > best) {
            best = k;
            best_pos = j;
        }
    }
    p->max_len[i] = best;
    p->max_pos[i] = best_pos;
}

void ssf_serial(ssf_problem *p) {
    for (long i = 0; i < p->len; i++) ssf_position(p, i);
}

int ssf_verify(const ssf_problem *p, long n, long long *checksum) {
    ssf_problem r;
    ssf_init(n, &r);
    ssf_serial(&r);
    int ok = r.len == p->len && strcmp(r.str, p->str) == 0;
    long long sum = 0;
    for (long i = 0; ok && i < p->len; i++) {
        sum += p->max_len[i];
        if (p->max_len[i] != r.max_len[i] || p->max_pos[i] != r.max_pos[i]) {
            fprintf(stderr, "ssf: MISMATCH at position %ld: (%ld, %ld), serial (%ld, %ld)\n", i,
                    p->max_len[i], p->max_pos[i], r.max_len[i], r.max_pos[i]);
            ok = 0;
        }
    }
    ssf_free(&r);
    *checksum = sum;
    return ok;
}
