/* loops-common.c — the states array, the per-element work and the verification of the loops
 * workload, shared by every version (see loops-serial.c). */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "loops.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const loops_dists[] = {"regular", "random", "dense-end", "dense-start", "periodic"};

int loops_parse(int argc, char **argv, loops_args *a) {
    const char *p[3];
    int np = bench_args(argc, argv, &a->workers, &a->reps, p, 3);
    a->dist = -1;
    for (int d = 0; np >= 1 && d < 5; d++)
        if (strcmp(p[0], loops_dists[d]) == 0) a->dist = d;
    a->n = bench_param_long(p, np, 1, 0);
    a->schedule = np >= 3 ? p[2] : "auto";
    if (np < 2 || a->dist < 0 || a->n < 1) {
        bench_usage_exit(argv[0], "regular|random|dense-end|dense-start|periodic n [schedule]");
        return 2;
    }
    return 0;
}

unsigned char *loops_states(int dist, long n) {
    unsigned char *s = malloc((size_t)n);
    if (!s) exit(2);
    uint64_t x = 0x9E3779B97F4A7C15ull; /* xorshift64: the same array in every version */
    for (long i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        unsigned char mixed = (unsigned char)(x >> 62); /* uniform 0..3 */
        static const unsigned char period[8] = {3, 0, 3, 0, 1, 0, 1, 0};
        switch (dist) {
        case LOOPS_REGULAR: s[i] = 2; break;
        case LOOPS_RANDOM: s[i] = mixed; break;
        /* a mixture in the first quarter, nothing in the middle half, all 3 in the last quarter */
        case LOOPS_DENSE_END: s[i] = i < n / 4 ? mixed : i < 3 * (n / 4) ? 0 : 3; break;
        case LOOPS_DENSE_START: s[i] = i < n / 4 ? 3 : i < 3 * (n / 4) ? 0 : mixed; break;
        /* the work in every other element, heavier in the first half of each period of 8: what
         * interleaved chunks (static,1) share out worst */
        default: s[i] = period[i % 8]; break;
        }
    }
    return s;
}

double loops_work(const unsigned char *states, long i) {
    int st = states[i];
    double x = (double)(i % 1000) * 0.001 + 0.5, r = 0;
    if (st >= 1)
        for (int k = 0; k < 4; k++) r += sin(x + k) * pow(x, k + 0.5);
    if (st >= 2)
        for (int k = 0; k < 4; k++) r += cos(x + k) * pow(x, k + 1.5);
    if (st >= 3)
        for (int k = 0; k < 4; k++) r += sinh(x * 0.25 * (k + 1));
    return r;
}

void loops_range(const unsigned char *states, double *out, long lo, long hi) {
    for (long i = lo; i < hi; i++) out[i] = loops_work(states, i);
}

int loops_check(unsigned char *states, double *out, long n, double *sum_out) {
    int ok = 1;
    double sum = 0;
    for (long i = 0; i < n; i++) {
        double w = loops_work(states, i);
        if (memcmp(&w, &out[i], sizeof w) != 0) ok = 0;
        sum += out[i];
    }
    free(out);
    free(states);
    *sum_out = sum;
    return ok;
}
