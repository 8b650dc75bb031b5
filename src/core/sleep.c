/* sleep.c — idle workers sleeping on the pool's epoch, and waking them when work appears.
 *
 * Wake-up is a Dekker pair: a sleeper counts itself in `sleepers`, then asks every work source
 * whether work is pending; whoever makes work available publishes it, then reads `sleepers` (all
 * seq_cst), so one of the two sees the other. The futex word is an epoch read before counting:
 * a wake between the check and the wait makes the wait return at once. */
#include "core.h"

#include "merino/internal/layer.h"

#include <limits.h>
#include <time.h>

/* Wakes every sleeping worker: work was made available, or the pool is stopping. Costs a load
 * when nobody sleeps. */
void mrn_wake_all(void) {
    mrn_pool *p = &mrn_the_pool;
    /* seq_cst: the other half of mrn_sleep's pair (see above) */
    if (__atomic_load_n(&p->sleepers, __ATOMIC_SEQ_CST) == 0) return;
    __atomic_fetch_add(&p->epoch, 1, __ATOMIC_SEQ_CST); /* a sleeper's futex_wait fails if late */
    mrn_futex_wake(&p->epoch, INT_MAX);
}

/* Sleeps until mrn_wake_all, unless pending() says there is work, or the pool stops. */
static __thread bool mrn_counted; /* this thread is counted in sleepers (mrn_all_asleep) */

void mrn_sleep(bool (*pending)(void)) {
    mrn_pool *p = &mrn_the_pool;
    uint32_t epoch = __atomic_load_n(&p->epoch, __ATOMIC_SEQ_CST);
    __atomic_fetch_add(&p->sleepers, 1, __ATOMIC_SEQ_CST);
    mrn_counted = true;
    /* seq_cst (inside pending too): pairs with mrn_wake_all */
    if (!pending() && !__atomic_load_n(&p->stopping, __ATOMIC_SEQ_CST))
        mrn_futex_wait(&p->epoch, epoch);
    mrn_counted = false;
    __atomic_fetch_sub(&p->sleepers, 1, __ATOMIC_RELAXED); /* relaxed: only makes wakers skip */
}

/* ---- sleeping in a helping wait ---------------------------------------------------------------- */

/* While a task run from outside the pool is in flight, idle workers do not sleep (sources.c: any
 * worker may spawn at any time, and a spawn wakes no one) — unless every worker that could spawn
 * sleeps too: in the idle loop (sleepers; the asking worker, which is about to, counts whether it
 * has counted itself yet or not) or in a helping wait that
 * found nothing to do (napping). A napping worker wakes the others (merino__help_wake) before it
 * spawns again, i.e. when its wait ends or it finds work. The napping count and the sleepers count
 * are the two halves of the same Dekker pair as above. */
bool mrn_all_asleep(void) {
    mrn_pool *p = &mrn_the_pool;
    /* seq_cst: see above */
    unsigned could_spawn = p->count - 1 + (__atomic_load_n(&mrn_slot_taken, __ATOMIC_SEQ_CST) != 0);
    unsigned asleep = __atomic_load_n(&p->sleepers, __ATOMIC_SEQ_CST) + __atomic_load_n(&p->napping, __ATOMIC_SEQ_CST);
    return asleep + !mrn_counted >= could_spawn; /* the asking idle worker is about to sleep */
}

void merino__help_nap(unsigned us) {
    mrn_pool *p = &mrn_the_pool;
    bool worker = merino__self != NULL;
    if (worker) __atomic_fetch_add(&p->napping, 1, __ATOMIC_SEQ_CST); /* seq_cst: mrn_all_asleep */
    struct timespec ts = {(time_t)(us / 1000000u), (long)(us % 1000000u) * 1000};
    nanosleep(&ts, NULL);
    if (worker) __atomic_fetch_sub(&p->napping, 1, __ATOMIC_SEQ_CST); /* seq_cst: mrn_all_asleep */
}

void merino__help_wake(void) { mrn_wake_all(); }
