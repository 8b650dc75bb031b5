/* wait.c — how a team's threads wait: at barriers (after their own children), at the end of a
 * region (thread 0), and for each other's progress (ordered, doacross, copyprivate, a busy
 * work-share slot). Every wait follows merino's idle policy: it steals tasks from any worker while
 * there are some (a barrier completes every task of the team, and idle threads should run them),
 * spins, yields, then sleeps on a futex; and every wait gives roles that their worker has not
 * started in time to spare threads, so that a team's progress never depends on a busy worker. */
#include "omp/omp_layer.h"

#include <limits.h>
#include <time.h>

/* ---- roles not started ---------------------------------------------------------------------------- */

/* Whether a role offered to its home worker w, past the usual patience, goes elsewhere after all:
 * w has run other work for MO_ROLE_PATIENCE_NS of CPU time since then (it is busy; a worker that
 * lost its CPU uses none and comes when it gets one back), or the role waited
 * MO_ROLE_PATIENCE_HOME_NS and w is blocked (in other work). Any waiter may ask: the CPU time at
 * the first question is kept in the role (relaxed: hints, the revoking CAS decides). */
static bool mo_home_given_up(mo_role *r, unsigned w, uint64_t waited) {
    if (waited >= MO_ROLE_PATIENCE_HOME_NS && !mo_worker_runnable(w)) return true;
    uint64_t cpu = mo_worker_cpu_ns(w);
    if (cpu == 0) return false; /* not known: only the time limit */
    uint64_t base = __atomic_load_n(&r->cpu_base, __ATOMIC_RELAXED);
    if (base == 0) {
        __atomic_compare_exchange_n(&r->cpu_base, &base, cpu, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
        return false;
    }
    return cpu - base >= MO_ROLE_PATIENCE_NS;
}

void mo_check_roles(mo_team *t, uint64_t now) {
    for (unsigned k = 1; k < t->nthreads; k++) {
        mo_role *r = &t->roles[k];
        /* relaxed: a hint; the CAS below decides */
        if (__atomic_load_n(&r->state, __ATOMIC_RELAXED) != MO_ROLE_OFFERED) continue;
        int32_t w = __atomic_load_n(&r->worker, __ATOMIC_RELAXED); /* relaxed: set before state */
        bool home = __atomic_load_n(&r->home, __ATOMIC_RELAXED);  /* relaxed: set before state */
        uint64_t patience = w > 0 && !home ? mo_worker_patience((unsigned)w) : MO_ROLE_PATIENCE_NS;
        uint64_t waited = now - __atomic_load_n(&r->offered_ns, __ATOMIC_RELAXED);
        if (waited < patience || (home && w > 0 && !mo_home_given_up(r, (unsigned)w, waited))) continue;
        uint32_t offered = MO_ROLE_OFFERED;
        /* acq_rel: against the worker's CAS to STARTED: one of the two runs the role */
        if (__atomic_compare_exchange_n(&r->state, &offered, MO_ROLE_SPARE, false, __ATOMIC_ACQ_REL,
                                        __ATOMIC_RELAXED)) {
            __atomic_fetch_sub(&t->roles_pending, 1, __ATOMIC_RELAXED); /* relaxed: a hint */
            if (w > 0) mo_withdraw_offer((unsigned)w, r); /* before the team can end */
            mo_give_to_spare(r);
        }
    }
}

/* Past the spins: sleep now, not after the yields, while a role of the team has not started —
 * its worker was asleep, and waking it takes tens of microseconds that yielding would burn. */
static inline bool mo_sleep_now(mo_team *t, int step) {
    return step == MERINO__BACKOFF_SLEEP ||
           (t && __atomic_load_n(&t->roles_pending, __ATOMIC_RELAXED) != 0); /* relaxed: a hint */
}

/* How long a sleeping waiter sleeps at most while roles of its team are pending (so that it
 * gives them to spares in time). */
static inline uint64_t mo_sleep_bound(mo_team *t) {
    /* relaxed: a hint */
    return t && __atomic_load_n(&t->roles_pending, __ATOMIC_RELAXED) ? MO_ROLE_PATIENCE_NS : 0;
}

/* ---- the waits ------------------------------------------------------------------------------------ */

/* A region cancelled: its threads leave their barriers for its end (relaxed: a flag). */
static inline bool mo_region_cancelled(const mo_team *t) {
    return MO_UNLIKELY(mo_cancel_on) && t && (__atomic_load_n(&t->cancelled, __ATOMIC_RELAXED) & MO_CANCEL_PARALLEL);
}

void mo_team_wait(mo_team *t, uint32_t *word, uint32_t old, uint32_t *sleepers) {
    bool worker = mo_on_worker();
    merino__backoff b = {0};
    /* acquire: what the thread that changed the word did before (a barrier's arrivals) */
    while (__atomic_load_n(word, __ATOMIC_ACQUIRE) == old && !mo_region_cancelled(t)) {
        if (t && mo_team_queue_run_one(t)) { /* the team's own tasks first */
            b = (merino__backoff){0};
            continue;
        }
        if (worker && merino__help_one()) { /* a task of any worker: the team's, most likely */
            b = (merino__backoff){0};
            continue;
        }
        int step = merino__backoff_wait(&b);
        if (step == 0) continue; /* spun */
        mo_maybe_check_roles(t);
        if (!mo_sleep_now(t, step)) continue;
        /* seq_cst: a Dekker pair with the changer, which stores the word and then reads sleepers */
        __atomic_fetch_add(sleepers, 1, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(word, __ATOMIC_SEQ_CST) == old) {
            uint64_t bound = mo_sleep_bound(t);
            if (bound)
                mo_futex_wait_ns(word, old, bound);
            else
                mo_futex_wait(word, old);
        }
        __atomic_fetch_sub(sleepers, 1, __ATOMIC_SEQ_CST);
        b = (merino__backoff){0};
    }
}

void mo_wait_team_end(mo_team *t) {
    /* Thread 0 counts itself out; then waits for the roles, stealing meanwhile. */
    uint32_t left = __atomic_sub_fetch(&t->running, 1, __ATOMIC_ACQ_REL) & ~MO_RUNNING_SLEEP;
    if (left == 0) return;
    bool worker = mo_on_worker();
    merino__backoff b = {0};
    for (;;) {
        /* acquire: pairs with each role's release decrement: their writes before our return */
        uint32_t v = __atomic_load_n(&t->running, __ATOMIC_ACQUIRE);
        if ((v & ~MO_RUNNING_SLEEP) == 0) return;
        if (mo_team_queue_run_one(t) || (worker && merino__help_one())) {
            b = (merino__backoff){0};
            continue;
        }
        int step = merino__backoff_wait(&b);
        if (step == 0) continue;
        mo_maybe_check_roles(t);
        if (!mo_sleep_now(t, step)) continue;
        /* Announce the sleep in the word itself: only the last role wakes us, and no role reads
         * the team after its decrement (team.c, mo_implicit_run). acquire on failure: as above. */
        if (!(v & MO_RUNNING_SLEEP) &&
            !__atomic_compare_exchange_n(&t->running, &v, v | MO_RUNNING_SLEEP, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            continue;
        uint64_t bound = mo_sleep_bound(t);
        if (bound)
            mo_futex_wait_ns(&t->running, v | MO_RUNNING_SLEEP, bound);
        else
            mo_futex_wait(&t->running, v | MO_RUNNING_SLEEP);
        b = (merino__backoff){0};
    }
}

void mo_spin_wait_u64(mo_team *t, const uint64_t *word, uint64_t until, bool at_least) {
    merino__backoff b = {0};
    for (;;) {
        /* acquire: what the thread that moved the word published with it */
        uint64_t v = __atomic_load_n(word, __ATOMIC_ACQUIRE);
        if (at_least ? v >= until : v == until) return;
        int step = merino__backoff_wait(&b);
        if (step == 0) continue;
        mo_maybe_check_roles(t);
        if (step == MERINO__BACKOFF_SLEEP) { /* a short nap: nothing to sleep on */
            struct timespec ts = {0, 20000};
            nanosleep(&ts, NULL);
        }
    }
}

/* ---- barriers -------------------------------------------------------------------------------------- */

void mo_wake_barrier(mo_team *t) { mo_futex_wake(&t->bar_gen, INT_MAX); }

bool mo_barrier(mo_implicit *imp) {
    mo_task *c = &imp->task;
    mo_wait_children(c); /* every task of the team descends from an implicit task: docs/openmp.md (b) */
    mo_team *t = c->team;
    if (t == NULL || t->nthreads == 1) return mo_region_cancelled(t);
    if (mo_region_cancelled(t)) return true; /* the others may be at the region's end already */
    /* acquire: the generation before our arrival (a late waker's store comes after it) */
    uint32_t gen = __atomic_load_n(&t->bar_gen, __ATOMIC_ACQUIRE);
    /* acq_rel: our writes go with our arrival; the last arrival sees everyone's */
    if (__atomic_add_fetch(&t->bar_count, 1, __ATOMIC_ACQ_REL) == t->nthreads) {
        __atomic_store_n(&t->bar_count, 0, __ATOMIC_RELAXED); /* ordered by the release below */
        /* a cancelled loop or sections construct ends at this barrier (relaxed: released below) */
        if (MO_UNLIKELY(mo_cancel_on)) __atomic_fetch_and(&t->cancelled, MO_CANCEL_PARALLEL, __ATOMIC_RELAXED);
        /* seq_cst: releases the waiters, and the Dekker pair with a sleeper's count */
        __atomic_store_n(&t->bar_gen, gen + 1, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&t->bar_sleepers, __ATOMIC_SEQ_CST)) mo_wake_barrier(t);
    } else {
        mo_team_wait(t, &t->bar_gen, gen, &t->bar_sleepers);
    }
    return mo_region_cancelled(t);
}

bool mo_task_barrier(mo_task *c) {
    if (c->imp) return mo_barrier(c->imp);
    mo_wait_children(c); /* outside a region, or (not allowed) in an explicit task */
    return false;
}
