/* sleep.c — idle workers sleeping on the pool's epoch, and waking them when work appears.
 *
 * Wake-up is a Dekker pair: a sleeper counts itself in `sleepers`, then asks every work source
 * whether work is pending; whoever makes work available publishes it, then reads `sleepers` (all
 * seq_cst), so one of the two sees the other. The futex word is an epoch read before counting:
 * a wake between the check and the wait makes the wait return at once. */
#include "core.h"

#include <limits.h>

/* Wakes every sleeping worker: work was made available, or the pool is stopping. Costs a load
 * when nobody sleeps. */
void mrn_wake_all(void) {
    mrn_pool *p = &mrn_the_pool;
    /* seq_cst: the other half of mrn_sleep's pair (see above) */
    if (__atomic_load_n(&p->sleepers, __ATOMIC_SEQ_CST) == 0) return;
    __atomic_fetch_add(&p->epoch, 1, __ATOMIC_SEQ_CST); /* a sleeper's futex_wait fails if late */
    mrn_futex_wake(&p->epoch, INT_MAX);
    MRN_PROF_WAKE();
}

/* Sleeps until mrn_wake_all, unless pending() says there is work, or the pool stops. */
void mrn_sleep(bool (*pending)(void)) {
    mrn_pool *p = &mrn_the_pool;
    uint32_t epoch = __atomic_load_n(&p->epoch, __ATOMIC_SEQ_CST);
    __atomic_fetch_add(&p->sleepers, 1, __ATOMIC_SEQ_CST);
    /* seq_cst (inside pending too): pairs with mrn_wake_all */
    if (!pending() && !__atomic_load_n(&p->stopping, __ATOMIC_SEQ_CST)) {
        MRN_PROF_SLEEP();
        mrn_futex_wait(&p->epoch, epoch);
    }
    __atomic_fetch_sub(&p->sleepers, 1, __ATOMIC_RELAXED); /* relaxed: only makes wakers skip */
}
