/* decay.c — the decay thread. The decays (trim.c for the pool's free blocks, mapcache.c for freed
 * large mappings) run from the allocator's slow paths when due; a program that frees a burst and
 * then stops calling the allocator would keep the burst resident. So while a decay is pending a
 * thread of the allocator's own sleeps until it is due and runs it; it is started when a decay
 * goes from nothing pending to pending, and ends when nothing is pending any more, so a program
 * whose free memory stays within the retained bound never has one. Making it allocates (the
 * thread's TLS), so a decay that becomes pending only asks for it, and the thread is made at the
 * next point where an allocation may safely nest: the start of malloc's slow path and of a large
 * or medium allocation, the end of a large object's free, a thread's exit (mrn_decay_safe_point).
 * It blocks every signal, never allocates, and only ever holds the pool's or the cache's lock for
 * one pass. If it cannot be made (a thread limit), and in a fork's child, the slow paths still run
 * the decays. */
#include "alloc/alloc.h"

#include <pthread.h>
#include <signal.h>

/* The decays' schedule and the state of this thread, shared with the files that wake it, are in
 * schedule.c. */

/* The earliest pass due (MRN_NEVER: none). seq_cst: see mrn_decay_start. */
static uint64_t mrn_decay_next(void) {
    uint64_t a = atomic_load(&mrn_decay.due), b = atomic_load(&mrn_decay.large);
    return a < b ? a : b;
}

static void *mrn_decay_main(void *arg) {
    (void)arg;
    pthread_setname_np(pthread_self(), "merino-decay"); /* what top and gdb show */
    for (;;) {
        /* seq_cst, before the dues are read: a bell rung after this wakes the sleep below */
        uint32_t bell = atomic_load(&mrn_decay_bell);
        uint64_t due = mrn_decay_next();
        if (due == MRN_NEVER) {
            /* seq_cst store, then seq_cst loads of the dues: with mrn_decay_start's fence, either
             * we see a decay armed after our look above, or its arming thread sees us gone */
            atomic_store(&mrn_decayer, MRN_DECAYER_NONE);
            if (mrn_decay_next() == MRN_NEVER) return NULL;
            int none = MRN_DECAYER_NONE;
            if (!atomic_compare_exchange_strong(&mrn_decayer, &none, MRN_DECAYER_RUNNING)) return NULL;
            continue;
        }
        uint64_t now = mrn_clock_coarse_ms();
        if (now < due) {
            mrn_futex_wait_ns((uint32_t *)&mrn_decay_bell, bell, (due - now) * 1000000);
            continue;
        }
        mrn_pool_tick();
    }
}

void mrn_decay_spawn(void) {
    /* relaxed: the request is consumed here; the CAS decides who starts the thread */
    atomic_store_explicit(&mrn_decay_wanted, false, memory_order_relaxed);
    int none = MRN_DECAYER_NONE;
    if (!atomic_compare_exchange_strong_explicit(&mrn_decayer, &none, MRN_DECAYER_RUNNING, memory_order_relaxed,
                                                 memory_order_relaxed))
        return;
    /* The thread inherits the signal mask: it takes none of the program's signals. pthread_create
     * allocates (the thread's TLS): this runs only where an allocation may (mrn_decay_safe_point). */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_attr_t attr;
    pthread_t t;
    int err = pthread_attr_init(&attr);
    if (!err) {
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&attr, 64 * 1024);
        err = pthread_create(&t, &attr, mrn_decay_main, NULL);
        pthread_attr_destroy(&attr);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (err)
        atomic_store_explicit(&mrn_decayer, MRN_DECAYER_NEVER, memory_order_relaxed); /* relaxed: a hint now */
    else
        MRN_STAT_ADD(decay_threads, 1);
}

void mrn_decay_forked(void) {
    /* A fork's child starts no decay thread (as jemalloc's disables its background threads): a
     * thread made in the child of a multithreaded process is what ThreadSanitizer refuses and a
     * child about to exec never needs; its slow paths still run the decays. relaxed: the child
     * has one thread. */
    atomic_store_explicit(&mrn_decayer, MRN_DECAYER_NEVER, memory_order_relaxed);
    atomic_store_explicit(&mrn_decay_wanted, false, memory_order_relaxed);
}
