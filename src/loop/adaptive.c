/* adaptive.c — lazy binary splitting (the adaptive and auto schedules; Tzannes et al., PPoPP
 * 2010): a worker runs its range in chunks, one after another, and splits off the back half as a
 * task only when another worker wants work (mrn_loop_wanted: a thief's request is pending, or the
 * worker is in public mode and none of its public tasks is left for thieves). So a loop that
 * nobody helps costs a few loads and compares per chunk, no atomic read-modify-write, and its body
 * sees long sub-ranges; a loop that is helped splits once per hungry thief, not at every chunk.
 *
 * Chunks start at L->chunk units and double while a chunk takes less than half of
 * MRN_LOOP_CHUNK_NS (halving when one takes more than twice that): short bodies get long
 * sub-ranges, long bodies still answer a request within about MRN_LOOP_CHUNK_NS. */
#include "loop/loop.h"

/* ---- max_workers ----------------------------------------------------------------------------------
 * Under a limit, L->busy counts the workers in the loop (the root's, 1) plus the halves given away
 * and not yet begun. A split first takes a place (fails at the limit: the worker goes on alone); the
 * half's task carries the worker that gave it: run by that worker, it gives the place back at once
 * (the worker is counted already); run by a thief, it keeps the place until it returns. A worker
 * inside two halves at once (leapfrogging) is counted twice: never more workers than the limit. */

static bool mrn_adapt_reserve(mrn_loop *L) {
    /* relaxed: a count; each read-modify-write of it is ordered with every other, so it is exact */
    unsigned cur = __atomic_load_n(&L->busy, __ATOMIC_RELAXED);
    do {
        if (cur >= L->max_workers) return false;
    } while (!__atomic_compare_exchange_n(&L->busy, &cur, cur + 1, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    return true;
}

static void mrn_adapt_release(mrn_loop *L) {
    __atomic_fetch_sub(&L->busy, 1, __ATOMIC_RELAXED); /* relaxed: a count, as above */
}

/* ---- the loop --------------------------------------------------------------------------------------- */

MERINO_VOID_TASK_5(mrn_adapt, mrn_loop *, L, uint64_t, a, uint64_t, b, void *, acc, const void *, giver) {
    bool held = MRN_UNLIKELY(giver != NULL) && giver != (const void *)mrn_self();
    if (MRN_UNLIKELY(giver != NULL) && !held) mrn_adapt_release(L); /* run by its giver: counted already */
    uint64_t grain = L->chunk, chunk = grain;
    uint64_t t0 = mrn_clock_ns();
    while (a < b && !mrn_loop_cut(L, a)) {
        if (MRN_UNLIKELY(mrn_loop_wanted()) && b - a >= 2 * grain && (!L->max_workers || mrn_adapt_reserve(L))) {
            /* Asked: give away the back half (the spawn publishes it), go on with the front. The
             * halves are folded in iteration order: ours, then the back half. */
            uint64_t mid = a + (b - a) / 2;
            MRN_PARTIAL(right, L);
            MERINO_SPAWN(mrn_adapt, L, mid, b, right, L->max_workers ? (const void *)mrn_self() : NULL);
            MERINO_CALL(mrn_adapt, L, a, mid, acc, NULL);
            MERINO_JOIN(mrn_adapt);
            mrn_partial_fold_if(L, acc, right);
            break;
        }
        uint64_t c = b - a < chunk ? b - a : chunk;
        mrn_loop_units(L, a, a + c, acc);
        a += c;
        uint64_t t1 = mrn_clock_ns();
        chunk = mrn_chunk_next(chunk, t1 - t0, grain);
        t0 = t1;
    }
    if (MRN_UNLIKELY(held)) mrn_adapt_release(L);
}

void mrn_loop_adaptive(mrn_loop *L, uint64_t a, uint64_t b, void *acc) {
    L->busy = 1; /* the worker running the loop */
    MERINO_RUN(mrn_adapt, L, a, b, acc, NULL);
}
