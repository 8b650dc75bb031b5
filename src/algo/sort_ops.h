/* sort_ops.h — the operations of merino_sort on elements of one size, included by sort_ops.c once
 * per size with MRN_SZ (the size in bytes; 0: any size, read from the sort) and MRN_OPS (the name of
 * the table it defines). A constant size turns every move into one or two loads and stores.
 *
 * qsort's contract: the comparison is only ever called with pointers to elements of the array (a
 * comparator may compute an index from them), so the pivot stays in the array, at begin, and an
 * element is copied out only to move it, never to compare it. */

#if MRN_SZ
#define SZ ((ptrdiff_t)MRN_SZ)
#else
#define SZ ((ptrdiff_t)S->size)
#endif
#define LESS(a, b) (S->cmp((a), (b)) < 0)
#define OP(name) MRN_CAT(MRN_OPS, _##name)

/* ---- moving elements ----------------------------------------------------------------------------- */

static inline void OP(swap)(const mrn_sort *S, char *a, char *b) {
#if MRN_SZ
    (void)S;
    unsigned char t[MRN_SZ];
    memcpy(t, a, MRN_SZ);
    memcpy(a, b, MRN_SZ);
    memcpy(b, t, MRN_SZ);
#else
    mrn_swap_bytes(a, b, S->size);
#endif
}

static void OP(swap_out)(const mrn_sort *S, char *a, char *b) { OP(swap)(S, a, b); }

/* Moves the element at cur to at (at < cur), shifting [at, cur) up by one element. */
static inline void OP(rotate)(const mrn_sort *S, char *at, char *cur) {
#if MRN_SZ
    (void)S;
    unsigned char t[MRN_SZ];
    memcpy(t, cur, MRN_SZ);
    memmove(at + SZ, at, (size_t)(cur - at));
    memcpy(at, t, MRN_SZ);
#else
    for (; cur != at; cur -= SZ) mrn_swap_bytes(cur, cur - SZ, S->size);
#endif
}

/* ---- small sorts ----------------------------------------------------------------------------------- */

/* Insertion sort; guarded = 0 when an element not greater than every element of the range lies just
 * before begin. Each element's place is found by comparing it where it is, then it is rotated there. */
static void OP(insertion)(const mrn_sort *S, char *begin, char *end, int guarded) {
    if (begin == end) return;
    for (char *cur = begin + SZ; cur < end; cur += SZ) {
        char *at = cur;
        while ((!guarded || at != begin) && LESS(cur, at - SZ)) at -= SZ;
        if (at != cur) OP(rotate)(S, at, cur);
    }
}

/* The same, giving up (0) once more than MRN_SORT_PARTIAL_MOVES elements were moved. */
static int OP(partial_insertion)(const mrn_sort *S, char *begin, char *end) {
    if (begin == end) return 1;
    ptrdiff_t moved = 0;
    for (char *cur = begin + SZ; cur < end; cur += SZ) {
        if (moved > MRN_SORT_PARTIAL_MOVES) return 0;
        char *at = cur;
        while (at != begin && LESS(cur, at - SZ)) at -= SZ;
        if (at != cur) {
            OP(rotate)(S, at, cur);
            moved += (cur - at) / SZ;
        }
    }
    return 1;
}

/* ---- partitions (the pivot is at begin and stays there until the end) ------------------------------ */

/* Moves the elements of the offset blocks to the other side: num of them each side, in one cycle
 * through a temporary (or by swaps when each side has as many, which keeps descending input O(n)). */
static void OP(swap_offsets)(const mrn_sort *S, char *first, char *last, const unsigned char *off_l,
                             const unsigned char *off_r, size_t num, int use_swaps) {
#if MRN_SZ
    if (!use_swaps && num > 0) {
        char *l = first + off_l[0] * SZ, *r = last - off_r[0] * SZ;
        unsigned char t[MRN_SZ];
        memcpy(t, l, MRN_SZ);
        memcpy(l, r, MRN_SZ);
        for (size_t i = 1; i < num; i++) {
            l = first + off_l[i] * SZ;
            memcpy(r, l, MRN_SZ);
            r = last - off_r[i] * SZ;
            memcpy(l, r, MRN_SZ);
        }
        memcpy(r, t, MRN_SZ);
        return;
    }
#else
    (void)use_swaps;
#endif
    for (size_t i = 0; i < num; i++) OP(swap)(S, first + off_l[i] * SZ, last - off_r[i] * SZ);
}

/* Elements less than the pivot go left of it, the others right, with Edelkamp and Weiss's block
 * partition (the comparisons' results are counted, not branched on). Returns the pivot's final place;
 * *already: the range was partitioned before (no element moved). */
static char *OP(partition_right)(const mrn_sort *S, char *begin, char *end, int *already) {
    char *pivot = begin, *first = begin, *last = end;
    while (LESS(first += SZ, pivot)) {
    }
    if (first - SZ == begin) {
        while (first < last && !LESS(last -= SZ, pivot)) {
        }
    } else {
        while (!LESS(last -= SZ, pivot)) {
        }
    }
    *already = first >= last;
    if (!*already) {
        OP(swap)(S, first, last);
        first += SZ;
        unsigned char off_l[MERINO__SORT_BLOCK], off_r[MERINO__SORT_BLOCK];
        char *base_l = first, *base_r = last;
        merino__sort_blocks b = {0, 0, 0, 0};
        while (first < last) {
            size_t split_l, split_r;
            merino__sort_blocks_split(&b, (size_t)((last - first) / SZ), &split_l, &split_r);
            for (size_t i = 0; i < split_l; i++) {
                off_l[b.num_l] = (unsigned char)i;
                b.num_l += !LESS(first, pivot);
                first += SZ;
            }
            for (size_t i = 0; i < split_r;) {
                off_r[b.num_r] = (unsigned char)++i;
                last -= SZ;
                b.num_r += LESS(last, pivot);
            }
            size_t num = merino__sort_blocks_pairs(&b);
            OP(swap_offsets)(S, base_l, base_r, off_l + b.start_l, off_r + b.start_r, num, b.num_l == b.num_r);
            unsigned empty = merino__sort_blocks_drop(&b, num);
            if (empty & 1) base_l = first;
            if (empty & 2) base_r = last;
        }
        if (b.num_l) {
            const unsigned char *o = off_l + b.start_l;
            while (b.num_l--) {
                last -= SZ;
                OP(swap)(S, base_l + o[b.num_l] * SZ, last);
            }
            first = last;
        }
        if (b.num_r) {
            const unsigned char *o = off_r + b.start_r;
            while (b.num_r--) {
                OP(swap)(S, base_r - o[b.num_r] * SZ, first);
                first += SZ;
            }
        }
    }
    char *pos = first - SZ;
    if (pos != begin) OP(swap)(S, begin, pos);
    return pos;
}

/* Elements equal to the pivot go left, greater ones right (many duplicates). Returns the pivot's place. */
static char *OP(partition_left)(const mrn_sort *S, char *begin, char *end) {
    char *pivot = begin, *first = begin, *last = end;
    while (LESS(pivot, last -= SZ)) {
    }
    if (last + SZ == end) {
        while (first < last && !LESS(pivot, first += SZ)) {
        }
    } else {
        while (!LESS(pivot, first += SZ)) {
        }
    }
    while (first < last) {
        OP(swap)(S, first, last);
        while (LESS(pivot, last -= SZ)) {
        }
        while (!LESS(pivot, first += SZ)) {
        }
    }
    if (last != begin) OP(swap)(S, begin, last);
    return last;
}

const mrn_sort_ops MRN_OPS = {
    .insertion = OP(insertion),
    .partial_insertion = OP(partial_insertion),
    .partition_right = OP(partition_right),
    .partition_left = OP(partition_left),
    .swap = OP(swap_out),
};

#undef SZ
#undef LESS
#undef OP
