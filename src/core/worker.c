/* worker.c — a pool thread: it sets up its thread-local words, then loops over the work sources
 * (sources.c) until the pool stops, backing off (backoff.h) and sleeping (sleep.c) when there is
 * nothing to do, or when the process's CPU budget shrank below its index (sleep.c). */
#include "core/core.h"

#include "core/backoff.h"

/* The calling thread's words for worker w, and their addresses for thieves (before `ready`). */
static void mrn_bind_thread(mrn_worker *w) {
    merino__self = &w->pub;
    merino__next = w->pub.base;
    /* relaxed: no thief reads them before the release store of ready / occupied */
    __atomic_store_n(&merino__limit, (uintptr_t)w->pub.end, __ATOMIC_RELAXED);
    __atomic_store_n(&merino__split, (uintptr_t)w->pub.base, __ATOMIC_RELAXED); /* all private */
    __atomic_store_n(&w->limit_p, &merino__limit, __ATOMIC_RELAXED); /* published by ready */
    __atomic_store_n(&w->split_p, &merino__split, __ATOMIC_RELAXED);
    __atomic_store_n(&w->occupied, 1, __ATOMIC_RELAXED); /* published by ready's release */
}

static void mrn_wait_until_all_ready(void) {
    /* No stealing from a worker not yet set up. (count is lowered if a thread cannot be made.) */
    mrn_pool *p = &mrn_the_pool;
    for (unsigned i = 1; i < __atomic_load_n(&p->count, __ATOMIC_ACQUIRE); i++)
        while (i < __atomic_load_n(&p->count, __ATOMIC_ACQUIRE) &&
               !__atomic_load_n(&p->workers[i]->ready, __ATOMIC_ACQUIRE)) /* acquire: its pointers */
            sched_yield();
}

__attribute__((noreturn, cold)) static void mrn_orphan_idle(void) {
    mrn_fatal("fork() was called from a task, and in the child process the task returned to "
              "merino's idle loop, where nothing would ever end the process (the child has only "
              "the forking thread): in such a child, call _exit or exec before the task returns, "
              "or fork from outside merino's tasks");
}

void *mrn_worker_main(void *arg) {
    mrn_worker *w = arg;
    mrn_pool *p = &mrn_the_pool;
    MRN_PROF_THREAD_BEGIN();
    mrn_stack_guard_enter(w->index, p->c_stack_bytes); /* a C stack overflow is told, not silent */
    mrn_place_worker(w); /* first, so that its task stack's pages are first touched on its CPU */
    mrn_bind_thread(w);
    __atomic_store_n(&w->ready, 1, __ATOMIC_RELEASE); /* release: the pointers above */
    mrn_wait_until_all_ready();
    MRN_PROF_LOOP_BEGIN();

    mrn_backoff b = {0};
    bool woken = false; /* back from a sleep, and not yet looked for work */
    /* acquire: pairs with merino_stop's release store; nothing to read after it but our exit */
    while (!__atomic_load_n(&p->stopping, __ATOMIC_ACQUIRE)) {
        /* relaxed: set in the child of a fork made from a task, by this very thread */
        if (MRN_UNLIKELY(__atomic_load_n(&mrn_fork_orphan, __ATOMIC_RELAXED))) mrn_orphan_idle();
        if (MRN_UNLIKELY(mrn_over_budget(p, w))) {
            mrn_park(p, w, mrn_work_pending); /* the budget shrank: stop competing until it grows */
            mrn_backoff_reset(&b);
            continue;
        }
        w->woke_next = false;
        MRN_PROF_FIND_BEGIN();
        bool found = mrn_find_work(w, w->pub.base);
        MRN_PROF_FIND_END();
        if (found) {
            /* a region woke one sleeper: pass it on while there is work (a steal from a task
             * stack and a task object have already, before running; other sources' work is run
             * by now) */
            if (!w->woke_next) mrn_wake_one();
            mrn_backoff_reset(&b);
            woken = false;
            continue;
        }
        /* Woken for a run that has ended before we looked (an empty region is over in a
         * microsecond, a wake-up takes several): sleep again at once, not after idle_us of
         * yielding — the yields are for a worker that has just run out of work. */
        bool resleep = MRN_UNLIKELY(woken) && !mrn_work_pending();
        woken = false;
        if (!resleep) {
            mrn_backoff_step step = mrn_backoff_wait(&b);
            if (step == MRN_SPUN) continue;
            mrn_budget_poll(p, b.now); /* from the idle path only, never from a spawn */
            if (step != MRN_SLEEP_NOW) continue;
            if (mrn_work_pending()) {
                sched_yield(); /* work may appear at any moment: look again soon */
                continue;
            }
        }
        mrn_sleep(mrn_work_pending); /* nothing in flight: free the processor until there is */
        mrn_backoff_reset(&b);
        woken = true;
    }
    /* Thieves reach this thread's words through pointers into its thread-local storage, which
     * goes away with the thread: leave only when every pool thread has left its loop. */
    MRN_PROF_LOOP_END();
    __atomic_fetch_add(&p->left, 1, __ATOMIC_ACQ_REL); /* acq_rel: our last steal is over */
    while (__atomic_load_n(&p->left, __ATOMIC_ACQUIRE) + 1 < __atomic_load_n(&p->count, __ATOMIC_ACQUIRE))
        sched_yield();
    MRN_PROF_THREAD_END();
    merino__self = NULL;
    merino__next = NULL;
    mrn_stack_guard_leave();
    return NULL;
}
