/* nqarray.h — shared by every version of nqarray: n-queens as Lace's and BOTS's benchmarks write
 * it, the other shape of n-queens beside workloads/nqueens's bit masks.
 *
 * nqarray n: a task places queen i on row d after the d queens of the array a: it copies a into
 * an array of its own (on its C stack), checking each earlier queen for a conflict, and if none,
 * spawns one task per column of the next row — all n of them, a loop of spawns, then a loop of
 * joins; the conflict test is made by the children. So a task is about a hundred instructions of
 * copying and comparing, against workloads/nqueens's tens, and most tasks return at once.
 * Result: the number of solutions (tabulated for n <= 15); tasks: the calls (every one a spawn but
 * the root's). */
#ifndef BENCH_NQARRAY_H
#define BENCH_NQARRAY_H
#include <stdint.h>

#include "bench.h"

/* Copies a[0..d-1] into aa and checks queen i on row d against them; 0 on a conflict. */
static inline int nqa_place(const int *a, int *aa, int d, int i) {
    for (int j = 0; j < d; j++) {
        aa[j] = a[j];
        int diff = a[j] - i, dist = d - j;
        if (diff == 0 || dist == diff || dist + diff == 0) return 0;
    }
    if (d >= 0) aa[d] = i;
    return 1;
}

BENCH__UNUSED static int nqa_serial(const int *a, int n, int d, int i) {
    int aa[d + 2]; /* d + 1 queens; at least one element (the root has d = -1) */
    if (!nqa_place(a, aa, d, i)) return 0;
    if (++d == n) return 1;
    int sum = 0;
    for (int k = 0; k < n; k++) sum += nqa_serial(aa, n, d, k);
    return sum;
}

/* Solutions for n = 1..15. */
static const int64_t nqa_known[16] = {0, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596, 2279184};

#define NQA_PARAMS(p, np, n)                                                                       \
    do {                                                                                         \
        if ((np) != 1) bench_usage_exit(argv[0], "n   (board size, 1..15)");                     \
        n = (int)bench_param_long(p, np, 0, 0);                                                  \
        if (n < 1 || n > 15) bench_usage_exit(argv[0], "n   (board size, 1..15)");                 \
    } while (0)

#endif
