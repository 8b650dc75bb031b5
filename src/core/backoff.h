/* backoff.h — the one back-off policy of every wait in the runtime: the idle loop, the join that
 * waits for a thief (leapfrogging, or a thief between two stores), and the caller of MERINO_RUN
 * waiting for its task. Spin briefly (keeps the latency of fine-grained work low), then yield
 * (with more workers than cores, the ones with work get the processor: the Hood paper's yields),
 * then, where the wait has something to sleep on, sleep (frees the processor for other programs).
 * The spins and the time before sleeping are settings (merino_config.idle_spins / idle_us,
 * MERINO_IDLE_SPINS / MERINO_IDLE_US); docs/idle.md has the policy and its measurements.
 *
 * Built with MRN_IDLE_NAIVE (the CMake option MERINO_IDLE_NAIVE, a library of its own for the
 * benchmarks only), every wait spins for ever: the "naive non-blocking" work stealer of the Hood
 * paper, section 4, kept so that the benefit of yielding and sleeping is measured, not assumed. */
#ifndef MERINO_CORE_BACKOFF_H
#define MERINO_CORE_BACKOFF_H

#include "sys/sys.h"

#include <sched.h>

/* The settings of the running pool (config.c resolves them, pool.c stores them before starting
 * its threads); atomic, relaxed: plain numbers, read by waits of any thread at any time. */
extern uint32_t mrn_idle_spins;  /* failed attempts spent spinning before the first yield */
extern uint64_t mrn_idle_ns;     /* time from the first yield until a wait may sleep */

typedef struct mrn_backoff {
    unsigned fails;
    uint64_t yield_from; /* when the yields began (0: not yet) */
    uint64_t now;        /* the clock at the last yield, for callers that time other things */
} mrn_backoff;

typedef enum mrn_backoff_step { MRN_SPUN, MRN_YIELDED, MRN_SLEEP_NOW } mrn_backoff_step;

/* After a failed attempt: spin or yield, or tell the caller it is time to sleep (it sleeps on what
 * it waits for, or yields when it has nothing to sleep on, and resets after a real sleep). */
static inline mrn_backoff_step mrn_backoff_wait(mrn_backoff *b) {
#ifdef MRN_IDLE_NAIVE
    (void)b;
    mrn_cpu_relax();
    return MRN_SPUN;
#else
    if (b->fails < __atomic_load_n(&mrn_idle_spins, __ATOMIC_RELAXED)) { /* relaxed: a setting */
        b->fails++;
        mrn_cpu_relax();
        return MRN_SPUN;
    }
    b->now = mrn_clock_ns(); /* a vDSO call: small next to the yield's system call */
    if (!b->yield_from) b->yield_from = b->now;
    if (b->now - b->yield_from < __atomic_load_n(&mrn_idle_ns, __ATOMIC_RELAXED)) {
        sched_yield();
        return MRN_YIELDED;
    }
    return MRN_SLEEP_NOW; /* and stays there until reset */
#endif
}

/* The same for waits with nothing to sleep on: yield for ever after the spins. */
static inline void mrn_backoff_pause(mrn_backoff *b) {
    if (mrn_backoff_wait(b) == MRN_SLEEP_NOW) sched_yield();
}

static inline void mrn_backoff_reset(mrn_backoff *b) {
    b->fails = 0;
    b->yield_from = 0;
}

#endif
