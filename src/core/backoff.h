/* backoff.h — the one back-off policy of every wait in the runtime: the idle loop, the join that
 * waits for a thief (leapfrogging, or a thief between two stores), and the caller of MERINO_RUN
 * waiting for its task. Spin briefly (keeps the latency of fine-grained work low), then yield
 * (with more workers than cores, the ones with work get the processor), then, where the wait has
 * something to sleep on, sleep (frees the processor for other programs). */
#ifndef MERINO_CORE_BACKOFF_H
#define MERINO_CORE_BACKOFF_H

#include "sys/sys.h"

#include <sched.h>

/* Failed attempts spent spinning, then yielding, before a wait may sleep. */
#define MRN_BACKOFF_SPINS 64
#define MRN_BACKOFF_YIELDS 256

typedef struct mrn_backoff {
    unsigned fails;
} mrn_backoff;

typedef enum mrn_backoff_step { MRN_SPUN, MRN_YIELDED, MRN_SLEEP_NOW } mrn_backoff_step;

/* After a failed attempt: spin or yield, or tell the caller it is time to sleep (it sleeps on what
 * it waits for, or yields when it has nothing to sleep on, and resets after a real sleep). */
static inline mrn_backoff_step mrn_backoff_wait(mrn_backoff *b) {
    unsigned f = ++b->fails;
    if (f < MRN_BACKOFF_SPINS) {
        mrn_cpu_relax();
        return MRN_SPUN;
    }
    if (f < MRN_BACKOFF_SPINS + MRN_BACKOFF_YIELDS) {
        sched_yield();
        return MRN_YIELDED;
    }
    b->fails = MRN_BACKOFF_SPINS + MRN_BACKOFF_YIELDS; /* stays at the sleeping step */
    return MRN_SLEEP_NOW;
}

/* The same for waits with nothing to sleep on: yield for ever after the spins. */
static inline void mrn_backoff_pause(mrn_backoff *b) {
    if (mrn_backoff_wait(b) == MRN_SLEEP_NOW) sched_yield();
}

static inline void mrn_backoff_reset(mrn_backoff *b) { b->fails = 0; }

#endif
