/* loops-common.c — the states array, the per-element work and the verification of the loops
 * workload, shared by every version (see loops-serial.c). */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "loops.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const loops_dists[] = {"regular", "random", "dense-end", "dense-start", "periodic", "pareto",
                                           "hotspot"};
#define LOOPS_NDISTS (int)(sizeof loops_dists / sizeof loops_dists[0])

int loops_parse(int argc, char **argv, loops_args *a) {
    const char *p[3];
    int np = bench_args(argc, argv, &a->workers, &a->reps, p, 3);
    a->dist = -1;
    for (int d = 0; np >= 1 && d < LOOPS_NDISTS; d++)
        if (strcmp(p[0], loops_dists[d]) == 0) a->dist = d;
    a->n = bench_param_long(p, np, 1, 0);
    a->schedule = np >= 3 ? p[2] : "auto";
    if (np < 2 || a->dist < 0 || a->n < 1) {
        bench_usage_exit(argv[0], "regular|random|dense-end|dense-start|periodic|pareto|hotspot n [schedule]");
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
        /* a heavy tail: Pareto with shape 1.5 and scale 1 (P(state >= k) = k^-1.5), capped at 255 */
        case LOOPS_PARETO: {
            double u = (double)((x >> 11) + 1) * 0x1p-53, v = pow(u, -1.0 / 1.5);
            s[i] = v >= 255 ? 255 : (unsigned char)v;
            break;
        }
        /* a hot spot: 10% of the elements, contiguous, holding most of the work */
        case LOOPS_HOTSPOT: s[i] = i >= 6 * (n / 10) && i < 7 * (n / 10) ? 20 : 1; break;
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
    for (int more = 3; more < st; more++) /* states above 3 (pareto, hotspot): more rounds of sinh */
        for (int k = 0; k < 4; k++) r += sinh(x * 0.25 * (k + 1) + more * 1e-3);
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
