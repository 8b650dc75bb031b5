/* units.c — running units of a loop: a sub-range of indices, or whole deterministic leaves, each
 * leaf into its own partial. Every schedule ends here. */
#include "loop/loop.h"

/* The indices of offsets [a, b): begin + a (two's complement wrap-around, as GCC and Clang define
 * the conversion). */
static inline int64_t mrn_index(const mrn_loop *L, uint64_t a) { return (int64_t)((uint64_t)L->begin + a); }

/* Offset i * n / m without overflow: the start of leaf i of m. */
static inline uint64_t mrn_leaf_start(uint64_t n, uint64_t m, uint64_t i) {
    return (uint64_t)((unsigned __int128)n * i / m);
}

/* Whole deterministic leaves [a, b): out of line, so that the common path below saves no
 * registers for this loop. */
static __attribute__((noinline)) void mrn_loop_leaves(const mrn_loop *L, uint64_t a, uint64_t b);

void mrn_loop_units(const mrn_loop *L, uint64_t a, uint64_t b, void *acc) {
    if (MRN_UNLIKELY(L->leaves != 0)) {
        mrn_loop_leaves(L, a, b);
        return;
    }
    if (mrn_loop_past(L, a)) return;
    MRN_PROF_CHUNK_BEGIN(prof);
    if (L->r)
        L->r->body(mrn_index(L, a), mrn_index(L, b), acc, L->ctx);
    else
        L->body(mrn_index(L, a), mrn_index(L, b), L->ctx);
    MRN_PROF_CHUNK_END(prof);
}

static void mrn_loop_leaves(const mrn_loop *L, uint64_t a, uint64_t b) {
    /* whole leaves, each on its own; 64-bit products where they cannot overflow (n < 2^54 with
     * 1024 leaves: a 128-bit division, __udivti3, is a large part of a leaf's own cost), each leaf
     * starting where the previous one ended */
    uint64_t n = L->n, m = L->leaves;
    bool narrow = n <= UINT64_MAX / m;
    uint64_t lo = narrow ? n * a / m : mrn_leaf_start(n, m, a);
    for (uint64_t j = a; j < b; j++) {
        uint64_t hi = narrow ? n * (j + 1) / m : mrn_leaf_start(n, m, j + 1);
        bool stopped = mrn_loop_past(L, j);
        MRN_PROF_CHUNK_BEGIN(prof);
        if (L->r) {
            void *p = L->partials + j * L->stride;
            mrn_partial_init(L, p);
            if (!stopped) L->r->body(mrn_index(L, lo), mrn_index(L, hi), p, L->ctx);
        } else if (!stopped) {
            L->body(mrn_index(L, lo), mrn_index(L, hi), L->ctx);
        }
        MRN_PROF_CHUNK_END(prof);
        lo = hi;
    }
}

bool mrn_loop_past_slow(const mrn_loop *L, uint64_t u) {
    /* relaxed: requests to skip what has not begun; no data rides on them */
    if (L->stop != NULL && __atomic_load_n(L->stop, __ATOMIC_RELAXED) != 0) return true;
    if (L->stop_at == NULL) return false;
    int64_t s = __atomic_load_n(L->stop_at, __ATOMIC_RELAXED);
    return s <= L->origin || mrn_unit_offset(L, u) >= (uint64_t)s - (uint64_t)L->origin;
}
