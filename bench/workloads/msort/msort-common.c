/* msort-common.c — input, leaves, serial reference and verification shared by every msort version. */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "msort.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int msort_parse(int argc, char **argv, msort_args *a) {
    const char *p[8];
    int np = bench_args(argc, argv, &a->workers, &a->outer, p, 8);
    a->n = bench_param_long(p, np, 0, 100000);
    a->reps = bench_param_long(p, np, 1, 1);
    if (np > 2 || a->n < 1 || a->n > (1L << 31) || a->reps < 1 || a->workers < 1 || a->outer < 1) {
        fprintf(stderr, "usage: %s --workers N [--reps R] n [reps]   (n: keys, >= 1)\n", argv[0]);
        return 2;
    }
    return 0;
}

static uint64_t msort_mix(uint64_t x) { /* splitmix64 */
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static msort_key *msort_alloc(long n) {
    msort_key *p = (msort_key *)malloc((size_t)n * sizeof(msort_key));
    if (!p) {
        fprintf(stderr, "msort: out of memory\n");
        exit(2);
    }
    return p;
}

void msort_init(long n, msort_key **in, msort_key **out, msort_key **tmp) {
    *in = msort_alloc(n);
    *out = msort_alloc(n);
    *tmp = msort_alloc(n);
    for (long i = 0; i < n; i++) {
        (*in)[i] = (msort_key)(msort_mix((uint64_t)i) >> 32);
        (*out)[i] = (*tmp)[i] = 0;
    }
}

void msort_leaf(const msort_key *src, msort_key *dst, long n) {
    for (long i = 0; i < n; i++) {
        msort_key x = src[i];
        long j = i;
        while (j > 0 && dst[j - 1] > x) {
            dst[j] = dst[j - 1];
            j--;
        }
        dst[j] = x;
    }
}

void msort_merge_serial(const msort_key *a, long na, const msort_key *b, long nb, msort_key *out) {
    long i = 0, j = 0, k = 0;
    while (i < na && j < nb) out[k++] = b[j] < a[i] ? b[j++] : a[i++];
    while (i < na) out[k++] = a[i++];
    while (j < nb) out[k++] = b[j++];
}

/* first index in v[0..n) whose key is >= x */
static long msort_lower_bound(const msort_key *v, long n, msort_key x) {
    long lo = 0, hi = n;
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* With na >= nb: ia = na/2 and ib = the first b >= a[ia]. Then everything in a[0..ia) and b[0..ib)
 * is <= a[ia] <= everything in a[ia..) and b[ib..). Symmetric otherwise. The left part gets at
 * least max(na,nb)/2 keys and the right part at least as many, so both shrink. */
void msort_split(const msort_key *a, long na, const msort_key *b, long nb, long *ia, long *ib) {
    if (na >= nb) {
        *ia = na / 2;
        *ib = msort_lower_bound(b, nb, a[*ia]);
    } else {
        *ib = nb / 2;
        *ia = msort_lower_bound(a, na, b[*ib]);
    }
}

void msort_serial(const msort_key *src, msort_key *dst, msort_key *tmp, long n) {
    if (n <= MSORT_SORT_CUTOFF) {
        msort_leaf(src, dst, n);
        return;
    }
    long h = n / 2;
    msort_serial(src, tmp, dst, h);
    msort_serial(src + h, tmp + h, dst + h, n - h);
    msort_merge_serial(tmp, h, tmp + h, n - h, dst);
}

/* The parallel recursion, run serially, counting spawns: one per sort node above the cutoff, one
 * per merge node above the cutoff. */
static int64_t count_merge(const msort_key *a, long na, const msort_key *b, long nb, msort_key *out) {
    if (na + nb <= MSORT_MERGE_CUTOFF) {
        msort_merge_serial(a, na, b, nb, out);
        return 0;
    }
    long ia, ib;
    msort_split(a, na, b, nb, &ia, &ib);
    return 1 + count_merge(a, ia, b, ib, out) + count_merge(a + ia, na - ia, b + ib, nb - ib, out + ia + ib);
}

static int64_t count_sort(const msort_key *src, msort_key *dst, msort_key *tmp, long n) {
    if (n <= MSORT_SORT_CUTOFF) {
        msort_leaf(src, dst, n);
        return 0;
    }
    long h = n / 2;
    int64_t c = 1 + count_sort(src, tmp, dst, h) + count_sort(src + h, tmp + h, dst + h, n - h);
    return c + count_merge(tmp, h, tmp + h, n - h, dst);
}

int64_t msort_count_tasks(const msort_key *src, long n) {
    msort_key *dst = msort_alloc(n), *tmp = msort_alloc(n);
    int64_t c = count_sort(src, dst, tmp, n);
    free(dst);
    free(tmp);
    return c;
}

int msort_verify(const msort_key *in, const msort_key *out, long n, int64_t *checksum) {
    uint64_t sum_in = 0, sum_out = 0, ordered = 0;
    int ok = 1;
    for (long i = 0; i < n; i++) {
        sum_in += msort_mix(in[i]);
        sum_out += msort_mix(out[i]);
        ordered += (uint64_t)out[i] * (uint64_t)(i + 1);
        if (i > 0 && out[i - 1] > out[i] && ok) {
            fprintf(stderr, "msort: NOT SORTED at %ld: %u > %u\n", i, (unsigned)out[i - 1], (unsigned)out[i]);
            ok = 0;
        }
    }
    if (sum_in != sum_out) {
        fprintf(stderr, "msort: checksum of the output differs from the input's\n");
        ok = 0;
    }
    msort_key *dst = msort_alloc(n), *tmp = msort_alloc(n);
    msort_serial(in, dst, tmp, n);
    if (ok && memcmp(dst, out, (size_t)n * sizeof(msort_key)) != 0) {
        fprintf(stderr, "msort: MISMATCH with the serial sort\n");
        ok = 0;
    }
    free(dst);
    free(tmp);
    *checksum = (int64_t)(ordered & 0x7fffffffffffffffull);
    return ok;
}
