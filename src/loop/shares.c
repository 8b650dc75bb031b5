/* shares.c — the schedules with one share per participant: static (blocks), static,k (chunks dealt
 * round-robin), dynamic,k and guided,k (one shared counter), and steal (per-participant ranges;
 * an idle participant takes the back half of the largest); idws's participants are run here too
 * (their ranges and donations are idws.c's). The L->parts participants are tasks,
 * spawned as a binary tree so that the first thieves take the largest subtrees; a participant that
 * nobody steals is run by the loop's worker when it joins it (its share is then already done, for
 * dynamic, guided and steal, by the participants that ran).
 *
 * Every atomic here is relaxed: the counters and ranges only decide which participant runs which
 * units (each read-modify-write hands out disjoint units); no data rides on them. The bodies'
 * writes reach the caller through the joins of the participant tasks. */
#include "loop/loop.h"

#include "alloc/mem.h"

#include <stdlib.h>

/* ---- static ---------------------------------------------------------------------------------------- */

static void mrn_share_static(const mrn_loop *L, unsigned p, void *acc) {
    uint64_t n = L->units, k = L->chunk;
    if (k == 0) { /* one block: [p n / P, (p + 1) n / P) */
        uint64_t a = (uint64_t)((unsigned __int128)n * p / L->parts);
        uint64_t b = (uint64_t)((unsigned __int128)n * (p + 1) / L->parts);
        if (a < b) mrn_loop_units(L, a, b, acc);
        return;
    }
    unsigned __int128 step = (unsigned __int128)k * L->parts; /* 128 bits: no overflow near 2^64 */
    for (unsigned __int128 a = (unsigned __int128)k * p; a < n && !mrn_loop_cut(L, (uint64_t)a); a += step) {
        uint64_t b = a + k < n ? (uint64_t)(a + k) : n;
        mrn_loop_units(L, (uint64_t)a, b, acc);
    }
}

/* ---- dynamic and guided ------------------------------------------------------------------------- */

/* Takes the next units from the shared counter: `want` of them, or (guided) the remaining ones
 * divided by the participants, at least want. Returns false when none are left. */
static bool mrn_claim(mrn_loop *L, bool guided, uint64_t want, uint64_t *a, uint64_t *b) {
    uint64_t n = L->units;
    /* relaxed: hands out units; no data rides on the counter */
    uint64_t cur = __atomic_load_n(L->counter, __ATOMIC_RELAXED);
    for (;;) {
        if (cur >= n) return false;
        uint64_t left = n - cur, take = want;
        if (guided) {
            uint64_t share = (left + L->parts - 1) / L->parts;
            if (share > take) take = share;
        }
        if (take > left) take = left;
        /* relaxed: as above; the CAS makes the units ours alone (a compare-and-swap, not an add,
         * so the counter never passes n and cannot wrap around however large the range) */
        if (__atomic_compare_exchange_n(L->counter, &cur, cur + take, true, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED)) {
            *a = cur;
            *b = cur + take;
            return true;
        }
    }
}

static void mrn_share_counter(mrn_loop *L, bool guided, void *acc) {
    uint64_t a, b;
    /* units are claimed in increasing order: once one is past a stop, so are all later ones */
    while (mrn_claim(L, guided, L->chunk, &a, &b) && !mrn_loop_cut(L, a)) mrn_loop_units(L, a, b, acc);
}

/* ---- steal ---------------------------------------------------------------------------------------- */

/* A participant's range [lo, hi) of chunk indices (units / L->unit_scale), packed in one word so
 * that one CAS takes a chunk from its front (the owner) or its back half (a thief). */
static inline uint64_t mrn_pack(uint64_t lo, uint64_t hi) { return lo << 32 | hi; }
static inline uint64_t mrn_lo(uint64_t r) { return r >> 32; }
static inline uint64_t mrn_hi(uint64_t r) { return r & 0xffffffffu; }

/* Moves the back half of the largest other range into p's (empty) slot; false when all are empty. */
static bool mrn_steal_half(mrn_loop *L, unsigned p) {
    for (;;) {
        unsigned best = p;
        uint64_t best_r = 0, best_left = 0;
        for (unsigned q = 0; q < L->parts; q++) {
            /* relaxed: a snapshot to choose from; the CAS below decides */
            uint64_t r = __atomic_load_n(&L->slots[q].range, __ATOMIC_RELAXED);
            if (q != p && mrn_hi(r) > mrn_lo(r) && mrn_hi(r) - mrn_lo(r) > best_left &&
                !mrn_loop_cut(L, mrn_lo(r) * L->unit_scale)) { /* past a stop: nothing to run there */
                best = q;
                best_r = r;
                best_left = mrn_hi(r) - mrn_lo(r);
            }
        }
        if (best == p) return false; /* what is in flight between slots, its thief runs */
        uint64_t mid = mrn_lo(best_r) + best_left / 2; /* one chunk left: take it whole */
        /* relaxed: takes [mid, hi) from the victim (any range value is valid to replace: it
         * describes exactly the chunks the slot still holds); no data rides on it */
        if (__atomic_compare_exchange_n(&L->slots[best].range, &best_r, mrn_pack(mrn_lo(best_r), mid),
                                        false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
            /* relaxed: our slot, empty, so no thief writes it; others read it as a snapshot */
            __atomic_store_n(&L->slots[p].range, mrn_pack(mid, mrn_hi(best_r)), __ATOMIC_RELAXED);
            return true;
        }
    }
}

static void mrn_share_steal(mrn_loop *L, unsigned p, void *acc) {
    uint64_t *mine = &L->slots[p].range, u = L->unit_scale;
    do {
        /* relaxed: our own slot; thieves change it only by CAS, which makes ours fail */
        uint64_t r = __atomic_load_n(mine, __ATOMIC_RELAXED);
        while (mrn_lo(r) < mrn_hi(r) && !mrn_loop_cut(L, mrn_lo(r) * u)) {
            uint64_t c = mrn_lo(r);
            /* relaxed: takes chunk c from our front; no data rides on it */
            if (!__atomic_compare_exchange_n(mine, &r, mrn_pack(c + 1, mrn_hi(r)), true,
                                             __ATOMIC_RELAXED, __ATOMIC_RELAXED))
                continue; /* r now holds the range a thief left us */
            uint64_t a = c * u, b = L->units - a > u ? a + u : L->units; /* no wrap-around */
            mrn_loop_units(L, a, b, acc);
            r = mrn_pack(c + 1, mrn_hi(r)); /* a guess; the next CAS checks it */
        }
    } while (mrn_steal_half(L, p));
}

/* Sets up the slots: chunks of L->chunk units (default: a share / MRN_STEAL_CHUNKS_PER_SHARE),
 * made larger where needed so that chunk indices fit 32 bits, dealt out in contiguous ranges. */
static void mrn_steal_setup(mrn_loop *L) {
    uint64_t n = L->units, u = L->chunk;
    if (u == 0) u = n / ((uint64_t)L->parts * MRN_STEAL_CHUNKS_PER_SHARE);
    if (u == 0) u = 1;
    if (n / u >= ((uint64_t)1 << 31)) u = n / ((uint64_t)1 << 31) + 1;
    L->unit_scale = u;
    uint64_t chunks = n / u + (n % u != 0);
    L->slots = mrn_mem_alloc(MRN_CACHE_LINE, sizeof(mrn_loop_slot) * L->parts);
    if (L->slots == NULL) mrn_fatal("merino_for: out of memory for the ranges of %u workers (steal)", L->parts);
    for (unsigned p = 0; p < L->parts; p++)
        L->slots[p].range = mrn_pack(chunks * p / L->parts, chunks * (p + 1) / L->parts);
}

/* ---- the participants ----------------------------------------------------------------------------- */

void mrn_loop_share(mrn_loop *L, unsigned p, void *acc) {
    switch (L->schedule) {
    case MERINO_SCHEDULE_STATIC: mrn_share_static(L, p, acc); break;
    case MERINO_SCHEDULE_DYNAMIC: mrn_share_counter(L, false, acc); break;
    case MERINO_SCHEDULE_GUIDED: mrn_share_counter(L, true, acc); break;
    case MERINO_SCHEDULE_IDWS:
    case MERINO_SCHEDULE_IDWS_POLL: mrn_idws_share(L, p, acc); break;
    default: mrn_share_steal(L, p, acc); break;
    }
}

/* Participants [p0, p1): the back half is spawned, the front half run here; partials fold in
 * participant order. */
MERINO_VOID_TASK_4(mrn_fan, mrn_loop *, L, unsigned, p0, unsigned, p1, void *, acc) {
    if (p1 - p0 == 1) {
        mrn_loop_share(L, p0, acc);
        return;
    }
    unsigned mid = p0 + (p1 - p0) / 2;
    MRN_PARTIAL(right, L);
    MERINO_SPAWN(mrn_fan, L, mid, p1, right);
    MERINO_CALL(mrn_fan, L, p0, mid, acc);
    MERINO_JOIN(mrn_fan);
    mrn_partial_fold_if(L, acc, right);
}

void mrn_loop_shares_setup(mrn_loop *L) {
    bool counter = L->schedule == MERINO_SCHEDULE_DYNAMIC || L->schedule == MERINO_SCHEDULE_GUIDED;
    bool idws = L->schedule == MERINO_SCHEDULE_IDWS || L->schedule == MERINO_SCHEDULE_IDWS_POLL;
    if ((counter || idws) && L->chunk == 0) L->chunk = 1;
    if (L->counter == NULL) L->counter = &L->next;
    if (L->schedule == MERINO_SCHEDULE_STEAL) mrn_steal_setup(L);
    if (idws) mrn_idws_setup(L);
}

void mrn_loop_shares_teardown(mrn_loop *L) {
    if (L->idws) mrn_idws_teardown(L);
    mrn_mem_free(L->slots);
    L->slots = NULL;
}

void mrn_loop_shares(mrn_loop *L, void *acc) {
    mrn_loop_shares_setup(L);
    MERINO_RUN(mrn_fan, L, 0, L->parts, acc);
    mrn_loop_shares_teardown(L);
}
