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

MERINO_VOID_TASK_4(mrn_adapt, mrn_loop *, L, uint64_t, a, uint64_t, b, void *, acc) {
    uint64_t grain = L->chunk, chunk = grain;
    uint64_t t0 = mrn_clock_ns();
    while (a < b && !mrn_loop_cut(L)) {
        if (MRN_UNLIKELY(mrn_loop_wanted()) && b - a >= 2 * grain) {
            /* Asked: give away the back half (the spawn publishes it), go on with the front. The
             * halves are folded in iteration order: ours, then the back half. */
            uint64_t mid = a + (b - a) / 2;
            MRN_PARTIAL(right, L);
            MERINO_SPAWN(mrn_adapt, L, mid, b, right);
            MERINO_CALL(mrn_adapt, L, a, mid, acc);
            MERINO_JOIN(mrn_adapt);
            mrn_partial_fold_if(L, acc, right);
            return;
        }
        uint64_t c = b - a < chunk ? b - a : chunk;
        mrn_loop_units(L, a, a + c, acc);
        a += c;
        uint64_t t1 = mrn_clock_ns();
        chunk = mrn_chunk_next(chunk, t1 - t0, grain);
        t0 = t1;
    }
}

void mrn_loop_adaptive(mrn_loop *L, uint64_t a, uint64_t b, void *acc) {
    MERINO_RUN(mrn_adapt, L, a, b, acc);
}
