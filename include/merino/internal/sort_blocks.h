/* merino/internal/sort_blocks.h — the bookkeeping of the block partition (Edelkamp and Weiss's
 * BlockQuicksort) that merino::parallel_sort (sort.hpp) and merino_sort (src/algo/sort_ops.h)
 * share: how many positions each end classifies next, and which of the misplaced elements found
 * are swapped. Each caller classifies and moves its elements its own way (C++: values and a
 * comparator; C: bytes and qsort's comparison, called on elements of the array only).
 * INTERNAL: C and C++; not API, changed in any release. */
#ifndef MERINO_INTERNAL_SORT_BLOCKS_H
#define MERINO_INTERNAL_SORT_BLOCKS_H

#include <stddef.h>

/* Positions classified per block: the offsets of a block fit an unsigned char. */
#define MERINO__SORT_BLOCK 64

/* The misplaced elements found and not swapped yet: num_l of the left block's offsets from start_l
 * on, num_r of the right block's from start_r on. */
typedef struct merino__sort_blocks {
    size_t num_l, num_r, start_l, start_r;
} merino__sort_blocks;

/* How many of the `unknown` positions left between the two ends each end classifies next, at most
 * a block: none at an end whose block still holds misplaced elements; when both blocks are empty,
 * the unknown positions are shared between them. */
static inline void merino__sort_blocks_split(const merino__sort_blocks *b, size_t unknown, size_t *split_l,
                                             size_t *split_r) {
    size_t l = b->num_l == 0 ? (b->num_r == 0 ? unknown / 2 : unknown) : 0;
    size_t r = b->num_r == 0 ? unknown - l : 0;
    *split_l = l < MERINO__SORT_BLOCK ? l : MERINO__SORT_BLOCK;
    *split_r = r < MERINO__SORT_BLOCK ? r : MERINO__SORT_BLOCK;
}

/* The pairs to swap once the blocks are classified: as many misplaced elements from each end. */
static inline size_t merino__sort_blocks_pairs(const merino__sort_blocks *b) {
    return b->num_l < b->num_r ? b->num_l : b->num_r;
}

/* Drops the num pairs just swapped. Returns which blocks are now empty (1: the left, 2: the right):
 * the caller's next block of that end starts where its scan stands. */
static inline unsigned merino__sort_blocks_drop(merino__sort_blocks *b, size_t num) {
    unsigned empty = 0;
    b->num_l -= num;
    b->num_r -= num;
    b->start_l += num;
    b->start_r += num;
    if (b->num_l == 0) {
        b->start_l = 0;
        empty |= 1;
    }
    if (b->num_r == 0) {
        b->start_r = 0;
        empty |= 2;
    }
    return empty;
}

#endif
