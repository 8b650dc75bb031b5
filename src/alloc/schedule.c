/* schedule.c — the decays' schedule, below the files that run them (trim.c, mapcache.c) and the
 * decay thread (decay.c), which all call down to it: when each decay is next due, the settings
 * they follow (the retained bound, the decay period), and waking the decay thread when a decay
 * becomes due sooner. */
#include "alloc/alloc.h"

size_t mrn_pool_keep = MRN_POOL_KEEP;
uint64_t mrn_decay_ms = MRN_DECAY_MS;
mrn_decay_due mrn_decay = {MRN_NEVER, MRN_NEVER};
_Atomic int mrn_decayer;
_Atomic uint32_t mrn_decay_bell;
_Atomic bool mrn_decay_wanted;

void mrn_decay_sooner(void) {
    /* The due just stored (under a lock, relaxed) before the thread's state is read: the store-load
     * pair of mrn_decay_main's exit, the other way round; and a release fence for the bell below,
     * so that the thread that reads the bell rung sees the due too. */
    atomic_thread_fence(memory_order_seq_cst);
    /* relaxed: the fence above orders it */
    int state = atomic_load_explicit(&mrn_decayer, memory_order_relaxed);
    if (state == MRN_DECAYER_RUNNING) {
        atomic_fetch_add_explicit(&mrn_decay_bell, 1, memory_order_relaxed); /* relaxed: the fence orders it */
        mrn_futex_wake((uint32_t *)&mrn_decay_bell, 1);
    } else if (state == MRN_DECAYER_NONE) {
        /* relaxed: a request; mrn_decay_spawn's CAS decides */
        atomic_store_explicit(&mrn_decay_wanted, true, memory_order_relaxed);
    }
}
