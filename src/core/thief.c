/* thief.c — the thief's side of the direct task stack: one steal attempt from a victim's bottom
 * task, and the request that makes a victim publish private tasks. The owner's side is owner.c;
 * the protocol is described step by step in docs/architecture.md and modelled in
 * src/core/model/steal.pml. */
#include "core/core.h"

static inline bool mrn_is_public(uintptr_t s) { return s >= MERINO__TASK_MIN && !(s & 1); }
static inline bool mrn_is_private(uintptr_t s) { return s >= MERINO__TASK_MIN && (s & 1); }

/* ---- the steal hook (CORE HOOK for src/graph; core.h) ----------------------------------------------- */

static const mrn_steal_hook *mrn_hook; /* atomic: set once */

const mrn_steal_hook *mrn_steal_hook_get(void) {
    return __atomic_load_n(&mrn_hook, __ATOMIC_ACQUIRE); /* acquire: pairs with mrn_steal_hook_set */
}

int mrn_steal_hook_set(const mrn_steal_hook *h) {
    const mrn_steal_hook *none = NULL;
    /* release: the hook's functions (static) before a thief that reads the pointer calls them */
    if (__atomic_compare_exchange_n(&mrn_hook, &none, h, false, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) return 0;
    return none == h ? 0 : -1;
}

/* ---- one steal attempt -------------------------------------------------------------------------- */

static void mrn_request_public(mrn_worker *self, mrn_worker *victim);

/* One steal attempt from victim's bottom task; on success runs it on self's stack at top. */
bool mrn_steal(mrn_worker *self, mrn_worker *victim, merino__task *top) {
    /* relaxed: a hint; an empty caller slot has nothing to take (its stale descriptors are not
     * public), and asking it would only cost the visitor count */
    if (!__atomic_load_n(&victim->occupied, __ATOMIC_RELAXED)) return false;
    /* relaxed: whatever bot we read is validated after the CAS below */
    merino__task *t = __atomic_load_n(&victim->bot, __ATOMIC_RELAXED);
    uintptr_t s = __atomic_load_n(&t->state, __ATOMIC_RELAXED); /* a peek; the CAS decides */
    if (!mrn_is_public(s)) {
        /* Nothing to take at bot (a private task, or none yet): ask, so that the victim's next
         * spawn or join makes work public for us. */
        mrn_request_public(self, victim);
        return false;
    }
    /* acquire: pairs with the release store that made the task public (spawn, publish or a
     * restore), so the arguments are visible */
    if (!__atomic_compare_exchange_n(&t->state, &s, MERINO__EMPTY, false, __ATOMIC_ACQUIRE,
                                     __ATOMIC_RELAXED))
        return false;
    /* Re-check bot (ordered after the CAS by its acquire): if the owner joined this descriptor
     * and spawned into it again meanwhile, tasks below may be unstolen, and taking this one would
     * move bot past them. Back off: put the task back. */
    if (__atomic_load_n(&victim->bot, __ATOMIC_RELAXED) != t) {
        /* release: re-publishes the arguments to the next thief (a plain store would end the
         * release sequence of the owner's spawn) */
        __atomic_store_n(&t->state, s, __ATOMIC_RELEASE);
        return false;
    }
    /* Isolated regions (region.c): self may have to leave t alone — it waits inside a region t is
     * not in, or t's arena is full. Then put t back, as above. */
    bool entered;
    mrn_region *outer = self->region;
    if (!mrn_region_steal_ok(self, victim, t, top, &entered)) {
        __atomic_store_n(&t->state, s, __ATOMIC_RELEASE); /* release: as above */
        return false;
    }
    /* relaxed: the wrapper we run, for the owner's join to check; published by our DONE store */
    __atomic_store_n(&t->check, s, __ATOMIC_RELAXED);
    /* relaxed: tells the owner whom to leapfrog; no data attached */
    __atomic_store_n(&t->state, MERINO__STOLEN(self->index), __ATOMIC_RELAXED);
    /* relaxed: thieves validate bot themselves; the owner reads it after our DONE store */
    __atomic_store_n(&victim->bot, t + 1, __ATOMIC_RELAXED);
    /* Trip-wire: we took the highest public task; ask for more before the victim's public part
     * runs dry. (t + 1 may be the sentinel past the end, which stays EMPTY.) */
    if (mrn_is_private(__atomic_load_n(&t[1].state, __ATOMIC_RELAXED))) mrn_request_public(self, victim);

    merino__count(&self->steals);
    mrn_pass_wake(self); /* before running it: a long task must not hold the next sleeper */
    merino__task *floor = self->floor;
    self->floor = top; /* a join below top has no spawn in the stolen task */
    merino__next = top;
    const mrn_steal_hook *hook = mrn_steal_hook_get();
    void *saved = hook ? hook->enter(self, victim, t, top) : NULL;
    void *views = mrn_views_enter(); /* the task's views are its own, handed back at its join */
    MRN_PROF_TASK_BEGIN(prof, victim, t);
    ((merino__wrap_fn)s)(top, t);
    MRN_PROF_TASK_END(prof, victim, t);
    mrn_views_leave(victim, t, views);
    if (hook) hook->leave(self, saved);
    if (MRN_UNLIKELY(entered)) mrn_region_leave(self, outer);
    self->floor = floor;
    /* release: publishes the result (and our bot store) to the joining owner */
    __atomic_store_n(&t->state, MERINO__DONE, __ATOMIC_RELEASE);
    return true;
}

/* A random other worker (xorshift64). */
mrn_worker *mrn_pick_victim(mrn_worker *w) {
    unsigned n = mrn_the_pool.count;
    uint64_t x = w->rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    w->rng = x;
    unsigned v = (unsigned)(((x >> 32) * (n - 1)) >> 32); /* 0..n-2, then skip ourselves */
    if (v >= w->index) v++;
    return mrn_the_pool.workers[v];
}

/* A thread that occupied the caller slot exits: after a barrier on every thread, wait until no
 * thief is storing a request into its words (see mrn_request_public). */
void mrn_wait_no_asking(mrn_pool *p) {
    mrn_barrier_all();
    unsigned n = __atomic_load_n(&p->count, __ATOMIC_RELAXED);
    for (unsigned i = 0; i < n; i++)
        /* acquire: pairs with the thief's release store of 0: its stores are done */
        while (__atomic_load_n(&p->workers[i]->asking, __ATOMIC_ACQUIRE)) mrn_cpu_relax();
}

/* ---- the request for public tasks --------------------------------------------------------------- */

static void mrn_store_request(mrn_worker *victim) {
    /* relaxed: hints with no data attached, which send the owner's next join and its next spawn
     * to the slow path; loaded first so idle thieves do not keep writing the owner's hot line */
    /* acquire (the pointers): a caller slot's may already be the next occupant's, stored after
     * the occupied we acquired; pairs with their release store (enter.c), which orders that
     * thread's storage they point into before our use (ThreadSanitizer saw the race with its
     * initialization) */
    uintptr_t *limit_p = __atomic_load_n(&victim->limit_p, __ATOMIC_ACQUIRE);
    uintptr_t *split_p = __atomic_load_n(&victim->split_p, __ATOMIC_ACQUIRE);
    if (__atomic_load_n(limit_p, __ATOMIC_RELAXED) != 0) {
        __atomic_store_n(split_p, UINTPTR_MAX, __ATOMIC_RELAXED);
        __atomic_store_n(limit_p, 0, __ATOMIC_RELAXED);
    }
}

/* Asks the victim to make more of its tasks public: the owner sees it at its next spawn or join.
 * The words are in the owner thread's own storage. A pool thread's stay until the pool stops;
 * the caller slot's belong to whichever thread occupies it, which may leave and exit. So the
 * thief first says it is asking, then checks that the slot is occupied; a thread that leaves the
 * slot for good (at its exit, enter.c) makes every thread execute a barrier (mrn_barrier_all)
 * and then waits until no thief is asking: either the thief sees the slot empty, or the leaving
 * thread sees the thief and waits for its stores. The thief's side costs no fence. */
static void mrn_request_public(mrn_worker *self, mrn_worker *victim) {
    if (!victim->caller_slot) {
        mrn_store_request(victim);
        return;
    }
    __atomic_store_n(&self->asking, 1, __ATOMIC_RELAXED); /* ordered by the leaver's barrier */
    if (MRN_UNLIKELY(mrn_the_pool.fence_requests))
        __atomic_thread_fence(__ATOMIC_SEQ_CST); /* no barrier_all: fence this side too */
    else
        __atomic_signal_fence(__ATOMIC_SEQ_CST); /* the compiler keeps the store before the load */
    /* acquire: the occupant's pointers, stored before its release store of occupied = 1 */
    if (__atomic_load_n(&victim->occupied, __ATOMIC_ACQUIRE)) mrn_store_request(victim);
    __atomic_store_n(&self->asking, 0, __ATOMIC_RELEASE); /* release: our stores are done */
}
