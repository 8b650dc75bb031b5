/* enter.c — a thread that is not a worker runs a task (MERINO_RUN, merino::run): it starts a
 * default pool if none runs, then runs the task itself in the caller slot — worker record 0,
 * which the pool keeps for threads that call in, as OpenMP's master thread is thread 0 of its
 * team and a oneTBB external thread takes a slot in its arena — while the pool threads steal
 * from it. Only when another thread holds the slot is the task handed to the pool threads, and
 * the caller waits for it. */
#include "core/core.h"

#include "core/backoff.h"
#include "merino/internal/layer.h"

#include <stdio.h>
#include <string.h>

/* ---- the caller slot ------------------------------------------------------------------------------ */

/* mrn_slot_taken: 0 free, 1 taken, 2 taken and a thread waits for it (a pool of one worker). */
static bool mrn_try_take_slot(void) {
    uint32_t free_ = 0;
    /* seq_cst: with merino_stop's store of mrn_running and its wait for the slot (see
     * merino__run_external); acquire in it: the last occupant's stores to the record */
    return __atomic_compare_exchange_n(&mrn_slot_taken, &free_, 1, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
}

static void mrn_release_slot(void) {
    /* release: our stores to the record, for the next occupant and for merino_stop */
    if (__atomic_exchange_n(&mrn_slot_taken, 0, __ATOMIC_RELEASE) == 2) mrn_futex_wake(&mrn_slot_taken, INT32_MAX);
}

/* With no pool thread to hand the task to: wait for the slot. */
static void mrn_wait_for_slot(void) {
    for (;;) {
        uint32_t seen = 0;
        /* acquire: the last occupant's stores; 2 keeps the wake-up for the other waiters */
        if (__atomic_compare_exchange_n(&mrn_slot_taken, &seen, 2, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            return;
        /* relaxed: the futex word itself; the wait re-checks it */
        if (seen == 2 || __atomic_compare_exchange_n(&mrn_slot_taken, &seen, 2, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            mrn_futex_wait(&mrn_slot_taken, 2);
    }
}

/* ---- a thread that has occupied the slot exits ------------------------------------------------------ */

/* Thieves may have read this thread's word pointers while it occupied the slot, and store through
 * them a little later (thief.c, mrn_request_public): before the thread's storage goes away, every
 * thread executes a barrier, then we wait until no thief is asking. Under the lifecycle lock
 * (pool.c), so that the records stay; with no pool, no thief is left. */
static void mrn_leave_for_good(void *unused) {
    (void)unused;
    mrn_with_pool_locked(mrn_wait_no_asking);
}

static pthread_key_t mrn_exit_key;
static pthread_once_t mrn_exit_key_once = PTHREAD_ONCE_INIT;
static void mrn_make_exit_key(void) { (void)pthread_key_create(&mrn_exit_key, mrn_leave_for_good); }

/* Once per thread that occupies the slot: its exit will run mrn_leave_for_good. */
static __thread bool mrn_exit_registered;
static void mrn_register_exit(void) {
    mrn_exit_registered = true;
    pthread_once(&mrn_exit_key_once, mrn_make_exit_key);
    (void)pthread_setspecific(mrn_exit_key, (void *)1); /* non-NULL: the destructor runs */
}

/* Runs the root task t in the caller slot w on this thread, which becomes a worker meanwhile. */
static void mrn_run_in_slot(mrn_pool *p, mrn_worker *w, merino__task *t, merino__wrap_fn wrap) {
    if (MRN_UNLIKELY(!mrn_exit_registered)) mrn_register_exit();
    merino__self = &w->pub;
    merino__next = w->pub.base;
    w->private_from = w->floor = w->pub.base;
    /* relaxed: this thread's own words; thieves reach them only after `occupied` below */
    __atomic_store_n(&merino__split, (uintptr_t)w->pub.base, __ATOMIC_RELAXED);
    __atomic_store_n(&merino__limit, (uintptr_t)w->pub.end, __ATOMIC_RELAXED);
    w->public_left = 0;
    /* The region's first spawns are public when other workers may be idle, so that they can be
     * taken at once, not at our next spawn or join — a whole leaf later; and the first of them
     * wakes the sleepers (mrn_region_wake), which a region that spawns nothing leaves asleep. */
    bool others = p->count > 1;
    if (others) mrn_enter_public(w);
    w->wake_due = others;
    /* release: a thief that acquired the last occupant's occupied = 1 may load these pointers
     * before our occupied below; its acquire load of a pointer then orders our thread's start
     * (which initialized the storage it points into) before its use. Atomic: such a thief may
     * still be reading the old ones. */
    __atomic_store_n(&w->limit_p, &merino__limit, __ATOMIC_RELEASE);
    __atomic_store_n(&w->split_p, &merino__split, __ATOMIC_RELEASE);
    __atomic_store_n(&w->occupied, 1, __ATOMIC_RELEASE); /* release: the pointers above */

    void *views = mrn_views_enter();
    MRN_PROF_ROOT_BEGIN();
    wrap(w->pub.base, t);
    MRN_PROF_ROOT_END();
    mrn_views_root_end(views); /* the root's views into their reducers' own */
    w->wake_due = false;

    /* relaxed: thieves that still see 1 may store a request into this thread's words, harmless
     * while it lives; at its exit it waits for them (mrn_leave_for_good) */
    __atomic_store_n(&w->occupied, 0, __ATOMIC_RELAXED);
    merino__self = NULL;
    merino__next = NULL;
}

/* ---- handing over --------------------------------------------------------------------------------- */

/* Waits until a pool thread has run the job. */
static void mrn_wait_job(mrn_job *job) {
    /* done: 0 running, 2 we sleep, 1 done */
    mrn_backoff b = {0};
    /* acquire: pairs with the worker's release exchange: the result */
    while (__atomic_load_n(&job->done, __ATOMIC_ACQUIRE) != 1) {
        if (mrn_backoff_wait(&b) != MRN_SLEEP_NOW) continue;
        uint32_t expected = 0;
        /* acquire on failure: the worker finished (done == 1) and its result is visible */
        if (!__atomic_compare_exchange_n(&job->done, &expected, 2, false, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE))
            return;
        while (__atomic_load_n(&job->done, __ATOMIC_ACQUIRE) != 1) mrn_futex_wait(&job->done, 2);
        return;
    }
}

static void mrn_hand_over(merino__task *t, merino__wrap_fn wrap) {
    mrn_job job = {.task = t, .wrap = wrap};
    MRN_PROF_ROOT_BEGIN();
    MRN_PROF_HAND_OVER(&job);
    mrn_push_job(&job);
    mrn_wait_job(&job);
    MRN_PROF_HANDED_BACK(&job);
    MRN_PROF_ROOT_END();
}

/* ---- MERINO_RUN from outside the pool ------------------------------------------------------------- */

/* Not the common case: no pool yet (start one), a pool stopping (wait, then start one), or the
 * slot taken (hand over). `active` counts the run, so that merino_stop waits for it. */
__attribute__((noinline, cold)) static void mrn_run_external_slow(merino__task *t, merino__wrap_fn wrap) {
    mrn_pool *p = &mrn_the_pool;
    for (;;) {
        /* seq_cst: with merino_stop's store of mrn_running and its load of active: either we see
         * the pool stopping, or stop sees us and waits */
        __atomic_fetch_add(&p->active, 1, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&mrn_running, __ATOMIC_SEQ_CST)) break;
        __atomic_fetch_sub(&p->active, 1, __ATOMIC_SEQ_CST);
        if (mrn_start_default() != 0) { /* quiet: the reason is said once, in the line below */
            char why[512];
            const char *err = merino_last_error();
            snprintf(why, sizeof why, "%s", strncmp(err, "merino: ", 8) == 0 ? err + 8 : err);
            mrn_fatal("MERINO_RUN could not start a pool of workers: %s (or call merino_start with "
                      "a configuration that works, and check its error)",
                      why);
        }
    }
    bool in_slot = mrn_try_take_slot();
    if (!in_slot && p->count > 1) {
        mrn_hand_over(t, wrap);
    } else {
        if (!in_slot) mrn_wait_for_slot(); /* no pool thread to hand it to */
        mrn_run_in_slot(p, p->workers[0], t, wrap);
        mrn_release_slot();
    }
    /* release: the run is over, for merino_stop's acquire load */
    __atomic_fetch_sub(&p->active, 1, __ATOMIC_RELEASE);
}

/* The common case, with one atomic read-modify-write to enter and one to leave: a pool runs and
 * the caller slot is free. Runs t there and returns true; false when it did not run it. */
static inline bool mrn_run_if_slot_free(merino__task *t, merino__wrap_fn wrap) {
    /* acquire: pairs with merino_start's release: the pool is built */
    if (MRN_LIKELY(__atomic_load_n(&mrn_running, __ATOMIC_ACQUIRE)) && mrn_try_take_slot()) {
        /* seq_cst, with the slot's CAS: merino_stop stores mrn_running = 0, then waits for the
         * slot to be free; either it waits for us, or we see it stopping */
        if (MRN_LIKELY(__atomic_load_n(&mrn_running, __ATOMIC_SEQ_CST))) {
            mrn_run_in_slot(&mrn_the_pool, mrn_the_pool.workers[0], t, wrap);
            mrn_release_slot();
            return true;
        }
        mrn_release_slot();
    }
    return false;
}

void merino__run_external(merino__task *t, merino__wrap_fn wrap) {
    if (MRN_LIKELY(mrn_run_if_slot_free(t, wrap))) return;
    mrn_run_external_slow(t, wrap);
}

/* CORE SEAM (omp, include/merino/internal/layer.h): the caller slot or nothing — a thread that
 * must run the task itself (OpenMP's thread 0 of a region) is never handed over. */
int merino__run_in_slot(merino__task *t, merino__wrap_fn wrap) {
    if (MRN_UNLIKELY(merino__self != NULL)) return 0; /* a worker already: run it where it is */
    return mrn_run_if_slot_free(t, wrap);
}
