/* sort.c — merino_sort: qsort's contract, sorted by pattern-defeating quicksort (Peters' pdqsort,
 * with Edelkamp and Weiss's block partition) whose two halves after each partition of a large range
 * are a merino spawn and call: the spawn is a private descriptor until an idle worker asks, so the
 * recursion costs a few stores per level and the top of the tree is shared out lazily. The same
 * algorithm as the C++ merino::parallel_sort (include/merino/internal/sort.hpp); here the
 * comparison is a call through cmp and the element moves come from sort_ops.c. */
#include "algo/algo.h"

/* ---- the recursion --------------------------------------------------------------------------------- */

static inline void sort2(const mrn_sort *S, char *a, char *b) {
    if (S->cmp(b, a) < 0) S->ops->swap(S, a, b);
}

static inline void sort3(const mrn_sort *S, char *a, char *b, char *c) {
    sort2(S, a, b);
    sort2(S, b, c);
    sort2(S, a, b);
}

/* Heapsort by swaps: the fallback after too many bad pivots (O(n log n) whatever the input). */
static void sift_down(const mrn_sort *S, char *base, size_t n, size_t i) {
    size_t sz = S->size;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) return;
        if (c + 1 < n && S->cmp(base + c * sz, base + (c + 1) * sz) < 0) c++;
        if (S->cmp(base + i * sz, base + c * sz) >= 0) return;
        S->ops->swap(S, base + i * sz, base + c * sz);
        i = c;
    }
}

static void heap_sort(const mrn_sort *S, char *begin, char *end) {
    size_t n = (size_t)(end - begin) / S->size;
    for (size_t i = n / 2; i-- > 0;) sift_down(S, begin, n, i);
    for (size_t m = n; m > 1;) {
        m--;
        S->ops->swap(S, begin, begin + m * S->size);
        sift_down(S, begin, m, 0);
    }
}

/* Puts the pivot at begin: the median of three, or the pseudomedian of nine for long ranges. The
 * element order this leaves gives the partitions their sentinels (docs in sort.hpp). */
static void choose_pivot(const mrn_sort *S, char *begin, char *end, ptrdiff_t size) {
    ptrdiff_t sz = (ptrdiff_t)S->size, s2 = size / 2;
    char *mid = begin + s2 * sz;
    if (size > MRN_SORT_NINTHER) {
        sort3(S, begin, mid, end - sz);
        sort3(S, begin + sz, mid - sz, end - 2 * sz);
        sort3(S, begin + 2 * sz, mid + sz, end - 3 * sz);
        sort3(S, mid - sz, mid, mid + sz);
        S->ops->swap(S, begin, mid);
    } else {
        sort3(S, mid, begin, end - sz);
    }
}

/* After a highly unbalanced partition: swaps a few elements of each side to break patterns. */
static void shuffle(const mrn_sort *S, char *begin, char *pos, char *end) {
    ptrdiff_t sz = (ptrdiff_t)S->size;
    ptrdiff_t l = (pos - begin) / sz, r = (end - pos) / sz - 1;
    void (*swap)(const mrn_sort *, char *, char *) = S->ops->swap;
    if (l >= MRN_SORT_INSERTION) {
        swap(S, begin, begin + l / 4 * sz);
        swap(S, pos - sz, pos - l / 4 * sz);
        if (l > MRN_SORT_NINTHER) {
            swap(S, begin + sz, begin + (l / 4 + 1) * sz);
            swap(S, begin + 2 * sz, begin + (l / 4 + 2) * sz);
            swap(S, pos - 2 * sz, pos - (l / 4 + 1) * sz);
            swap(S, pos - 3 * sz, pos - (l / 4 + 2) * sz);
        }
    }
    if (r >= MRN_SORT_INSERTION) {
        swap(S, pos + sz, pos + (1 + r / 4) * sz);
        swap(S, end - sz, end - r / 4 * sz);
        if (r > MRN_SORT_NINTHER) {
            swap(S, pos + 2 * sz, pos + (2 + r / 4) * sz);
            swap(S, pos + 3 * sz, pos + (3 + r / 4) * sz);
            swap(S, end - 2 * sz, end - (1 + r / 4) * sz);
            swap(S, end - 3 * sz, end - (2 + r / 4) * sz);
        }
    }
}

/* One round of the sort of [*begin, end): sorts a short range (returns NULL), or partitions it and
 * returns the pivot's place; the caller then sorts [*begin, pivot) and [pivot + size, end).
 * leftmost: nothing lies before *begin in the array (else the element before *begin is not greater
 * than any element of the range). *bad: highly unbalanced partitions left before heapsort takes over
 * (O(n log n) whatever the input). */
static char *pdq_round(const mrn_sort *S, char **begin_p, char *end, int *bad, int leftmost) {
    ptrdiff_t sz = (ptrdiff_t)S->size;
    char *begin = *begin_p;
    for (;;) {
        ptrdiff_t size = (end - begin) / sz;
        if (size < MRN_SORT_INSERTION) {
            S->ops->insertion(S, begin, end, leftmost);
            return NULL;
        }
        choose_pivot(S, begin, end, size);
        /* A pivot equal to the element before the range (an earlier pivot): every element equal
         * to it is in place; put them left and go on with the rest. */
        if (!leftmost && S->cmp(begin - sz, begin) >= 0) {
            begin = *begin_p = S->ops->partition_left(S, begin, end) + sz;
            continue;
        }
        int already;
        char *pos = S->ops->partition_right(S, begin, end, &already);
        ptrdiff_t l = (pos - begin) / sz, r = (end - pos) / sz - 1;
        if (l < size / 8 || r < size / 8) {
            if (--*bad == 0) {
                heap_sort(S, begin, end);
                return NULL;
            }
            shuffle(S, begin, pos, end);
        } else if (already && S->ops->partial_insertion(S, begin, pos) &&
                   S->ops->partial_insertion(S, pos + sz, end)) {
            return NULL; /* was already partitioned, and both halves were nearly sorted */
        }
        return pos;
    }
}

/* The sort on this thread alone: ranges too short to share, and the leaves of the parallel sort. */
static void pdq_serial(const mrn_sort *S, char *begin, char *end, int bad, int leftmost) {
    char *pos;
    while ((pos = pdq_round(S, &begin, end, &bad, leftmost)) != NULL) {
        pdq_serial(S, begin, pos, bad, leftmost);
        begin = pos + S->size;
        leftmost = 0;
    }
}

/* The sort whose halves, after the partition of a range of MRN_SORT_FORK elements or more, are a
 * spawn and a call: both may run in parallel (the pivot between them is final and only read). */
MERINO_VOID_TASK_5(mrn_pdq, const mrn_sort *, S, char *, begin, char *, end, int, bad, int, leftmost) {
    if ((size_t)(end - begin) < MRN_SORT_FORK * S->size) {
        pdq_serial(S, begin, end, bad, leftmost);
        return;
    }
    char *pos = pdq_round(S, &begin, end, &bad, leftmost);
    if (pos == NULL) return;
    MERINO_SPAWN(mrn_pdq, S, pos + S->size, end, bad, 0);
    MERINO_CALL(mrn_pdq, S, begin, pos, bad, leftmost);
    MERINO_JOIN(mrn_pdq);
}

/* ---- the entry --------------------------------------------------------------------------------------- */

static const mrn_sort_ops *ops_for(size_t size) {
    switch (size) {
    case 4: return &mrn_sort_ops_4;
    case 8: return &mrn_sort_ops_8;
    case 16: return &mrn_sort_ops_16;
    default: return &mrn_sort_ops_any;
    }
}

void merino_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *)) {
    if (n < 2) return;
    if (MRN_UNLIKELY(base == NULL || cmp == NULL || size == 0))
        mrn_fatal("merino_sort: %s: pass the array, its element size in bytes and a comparison function, "
                  "as to qsort",
                  base == NULL ? "base is NULL" : cmp == NULL ? "cmp is NULL" : "size is 0");
    if (MRN_UNLIKELY(n > (size_t)PTRDIFF_MAX / size))
        mrn_fatal("merino_sort: %zu elements of %zu bytes do not fit in memory: check n and size", n, size);
    mrn_sort S = {.size = size, .cmp = cmp, .ops = ops_for(size)};
    char *begin = base, *end = begin + n * size;
    int bad = 0;
    for (size_t m = n; m >>= 1;) bad++;
    if (n < 2 * MRN_SORT_FORK) { /* too short to share: not worth entering the pool */
        pdq_serial(&S, begin, end, bad, 1);
        return;
    }
    MERINO_RUN(mrn_pdq, &S, begin, end, bad, 1);
}
