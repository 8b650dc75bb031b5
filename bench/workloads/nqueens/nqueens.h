/* nqueens.h — shared by every version of nqueens.
 *
 * nqueens n: count the placements of n non-attacking queens on an n x n board (bit-mask search,
 * one row per level). Every node with k > 0 children spawns k - 1 of them and calls the last;
 * tasks = the number of spawns. Known counts and spawn counts for n <= 15 are tabulated (the
 * check); other n are checked against the serial search run in the same program. */
#ifndef BENCH_NQUEENS_H
#define BENCH_NQUEENS_H
#include <stdint.h>

#include "bench.h"

#ifdef __cplusplus
extern "C" {
#endif

static unsigned nq_all; /* (1 << n) - 1 */

BENCH__UNUSED static long nq_serial(unsigned cols, unsigned ld, unsigned rd) {
    if (cols == nq_all) return 1;
    unsigned avail = nq_all & ~(cols | ld | rd);
    long c = 0;
    while (avail) {
        unsigned bit = avail & (0u - avail);
        avail -= bit;
        c += nq_serial(cols | bit, (ld | bit) << 1, (rd | bit) >> 1);
    }
    return c;
}

static const int64_t nq_known[16][2] = {
    {1, 0},          {1, 0},         {0, 1},          {0, 2},         {2, 5},       {10, 13},
    {4, 49},         {40, 193},      {92, 735},       {352, 2935},    {724, 12773}, {2680, 61075},
    {14200, 314729}, {73712, 1716651}, {365596, 10030691}, {2279184, 62518771}};

/* Sets up for n; exits 2 on a bad n. */
#define NQ_PARAMS(p, np, n)                                                                         \
    do {                                                                                          \
        if ((np) < 1) bench_usage_exit(argv[0], "n   (board size, 1..31)");                        \
        n = (int)bench_param_long(p, np, 0, 12);                                                  \
        if (n < 1 || n > 31) bench_usage_exit(argv[0], "n   (board size, 1..31)");                \
        nq_all = (unsigned)(((uint64_t)1 << n) - 1);                                              \
    } while (0)

/* The expected count (table, or the serial search). */
static inline int64_t nq_expected(int n) {
    if (n <= 15) return nq_known[n][0];
    return nq_serial(0, 0, 0);
}
/* Spawns per search, or -1 if unknown. */
static inline int64_t nq_tasks(int n) {
    return n <= 15 ? nq_known[n][1] : -1;
}

#ifdef __cplusplus
}
#endif
#endif
