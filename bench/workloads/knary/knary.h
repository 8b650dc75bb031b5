/* knary.h — shared by every version of knary (Blumofe & Papadopoulos, the Hood paper, sec. 4).
 *
 * knary h d s [iters]: a tree of height h (h levels; knary with h = 1 is a single node) and degree
 * d. At each node the program first runs an empty loop of `iters` iterations (default 400), then
 * generates the d children: the first s one after the other (serially), the remaining d - s in
 * parallel. T_1 = Theta(d^h); s from 0 to d moves T_inf from Theta(h) to Theta(T_1).
 * Parallel children: d - s - 1 are spawned and the last is called, then all are joined.
 * result = the number of nodes, (d^h - 1) / (d - 1); tasks = inner nodes * max(d - s - 1, 0). */
#ifndef BENCH_KNARY_H
#define BENCH_KNARY_H
#include <stdint.h>

#include "bench.h"

#ifdef __cplusplus
extern "C" {
#endif

static int kn_d, kn_s;
static long kn_iters;

BENCH__UNUSED static long kn_serial(int h) {
    bench_spin(kn_iters);
    long n = 1;
    if (h > 1)
        for (int i = 0; i < kn_d; i++) n += kn_serial(h - 1);
    return n;
}

#define KNARY_PARAMS(p, np, h)                                                                      \
    do {                                                                                          \
        if ((np) < 3) bench_usage_exit(argv[0], "h d s [iters]   (height, degree, serial children)"); \
        h = (int)bench_param_long(p, np, 0, 8);                                                   \
        kn_d = (int)bench_param_long(p, np, 1, 4);                                                \
        kn_s = (int)bench_param_long(p, np, 2, 0);                                                \
        kn_iters = bench_param_long(p, np, 3, 400);                                               \
        if (h < 1 || kn_d < 1 || kn_d > 64 || kn_s < 0 || kn_s > kn_d || kn_iters < 0)              \
            bench_usage_exit(argv[0], "h d s [iters]   (h >= 1, 1 <= d <= 64, 0 <= s <= d)");      \
    } while (0)

/* Number of nodes of a tree of height h with the global degree. */
static inline int64_t kn_nodes(int h) {
    int64_t n = 0, level = 1;
    for (int i = 0; i < h; i++, level *= kn_d) n += level;
    return n;
}
static inline int64_t kn_tasks(int h) {
    int par = kn_d - kn_s - 1;
    return h > 1 && par > 0 ? kn_nodes(h - 1) * par : 0;
}

#ifdef __cplusplus
}
#endif
#endif
