/* algo.h — internal declarations of merino's algorithm layer (src/algo). Never included by users.
 *
 * Files and the direction of their calls (a file calls only files below it in this list):
 *   pipeline.c   merino_pipeline: items through stages on the tasks of one task group
 *   scan.c       merino_scan: chunks taken in order, one pass where a prefix is known, else two
 *   sort.c       merino_sort: pdqsort whose halves are merino tasks; bad input
 *   sort_ops.c   the per-element-size operations merino_sort runs (sort_ops.h, once per size)
 * All of them may call src/graph and src/loop through their public headers, src/core through
 * merino.h's tasks, and src/sys.
 *
 * The C++ algorithms (include/merino_algorithm.hpp) are templates in the headers; they call the C
 * engines of this layer only where the work is not per element. */
#ifndef MERINO_ALGO_INTERNAL_H
#define MERINO_ALGO_INTERNAL_H

#include "sys/sys.h"

#define MERINO__BUILDING 1 /* merino.h: the runtime reads its thread-local words with the builtin */
#include "merino_algorithm.h"
#include "merino/internal/sort_blocks.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define MRN_CAT(a, b) MRN_CAT_I(a, b)
#define MRN_CAT_I(a, b) a##b

/* ---- merino_sort ---------------------------------------------------------------------------------- */

/* Tuning, each with why (the same values as the C++ sort, include/merino/internal/sort.hpp):
 * ranges below INSERTION are insertion-sorted; above NINTHER the pivot is the pseudomedian of nine;
 * a partial insertion sort gives up after PARTIAL_MOVES moves (the partition's blocks are
 * merino/internal/sort_blocks.h's, shared with the C++ sort); ranges of FORK elements and more offer
 * their second half to other workers (sorting them takes tens of microseconds, the untaken offer a
 * few nanoseconds). */
#define MRN_SORT_INSERTION 24
#define MRN_SORT_NINTHER 128
#define MRN_SORT_PARTIAL_MOVES 8
#define MRN_SORT_FORK 2048

typedef struct mrn_sort mrn_sort;

/* What the sort does to elements, specialized per element size (sort_ops.c). */
typedef struct mrn_sort_ops {
    void (*insertion)(const mrn_sort *S, char *begin, char *end, int guarded);
    int (*partial_insertion)(const mrn_sort *S, char *begin, char *end);
    char *(*partition_right)(const mrn_sort *S, char *begin, char *end, int *already);
    char *(*partition_left)(const mrn_sort *S, char *begin, char *end);
    void (*swap)(const mrn_sort *S, char *a, char *b);
} mrn_sort_ops;

struct mrn_sort {
    size_t size;
    int (*cmp)(const void *, const void *);
    const mrn_sort_ops *ops;
};

/* The tables of sort_ops.c: elements of 4, 8 and 16 bytes, and of any size. */
extern const mrn_sort_ops mrn_sort_ops_4, mrn_sort_ops_8, mrn_sort_ops_16, mrn_sort_ops_any;

/* Swaps n bytes at a and b (the regions do not overlap). */
static inline void mrn_swap_bytes(char *a, char *b, size_t n) {
    for (; n >= 8; n -= 8, a += 8, b += 8) {
        uint64_t x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        memcpy(a, &y, 8);
        memcpy(b, &x, 8);
    }
    for (; n > 0; n--, a++, b++) {
        char t = *a;
        *a = *b;
        *b = t;
    }
}

#endif
