/* merino_algorithm.h — parallel algorithms for C11 on merino's workers (C++: merino_algorithm.hpp).
 *
 *     static int by_value(const void *a, const void *b) {
 *         double x = *(const double *)a, y = *(const double *)b;
 *         return (x > y) - (x < y);
 *     }
 *     merino_sort(v, n, sizeof(double), by_value);            // qsort's contract, in parallel
 *
 * Every call may come from anywhere: the main program or any other thread (the call enters the pool
 * as MERINO_RUN does, starting a default pool on first use, and the calling thread works too), task
 * bodies, plain functions a task calls, loop bodies. docs/algorithms.md has the guarantees and the
 * test of each.
 *
 * Names: merino_* and MERINO_* are the API; merino__* is internal. */
#ifndef MERINO_ALGORITHM_H
#define MERINO_ALGORITHM_H

#include "merino.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- sorting ------------------------------------------------------------------------------------- */

/** Sorts the n elements of size bytes at base into ascending order by cmp, as qsort does, on the
 *  workers of the pool: cmp(a, b) returns a negative number, zero or a positive number as the
 *  element at a is less than, equal to or greater than the one at b, consistently (a total
 *  preorder), and is only ever given pointers to elements of the array. NOT stable: equal elements
 *  end in any order. cmp is called from several threads at once: it must not write shared state.
 *  O(n log n) comparisons whatever the input. Ranges of fewer than 4096 elements are sorted on the
 *  calling thread without entering the pool. base NULL (with n > 1), size 0 or cmp NULL stop the
 *  program with a message. */
MERINO_API void merino_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

#ifdef __cplusplus
}
#endif

#endif /* MERINO_ALGORITHM_H */
