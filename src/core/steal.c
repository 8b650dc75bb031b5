/* steal.c — the thief's side of the direct task stack, and the owner's slow join: waiting for a
 * thief, leapfrogging, publishing private tasks on request and privatizing them again.
 *
 * The fast paths (spawn, private and public join) are inline in include/merino.h. The protocol is
 * described step by step in docs/architecture.md and modelled in src/core/model/steal.pml. */
#include "internal.h"

static inline bool mrn_is_public(uintptr_t s) { return s >= MERINO__TASK_MIN && !(s & 1); }
static inline bool mrn_is_private(uintptr_t s) { return s >= MERINO__TASK_MIN && (s & 1); }

__attribute__((noreturn, cold)) static void merino__overflow(merino_worker *pw);

/* ---- thief ------------------------------------------------------------------------------------ */

/* Ask the victim to make more of its tasks public: the owner sees it at its next spawn or join. */
static void mrn_request_public(mrn_worker *victim) {
    /* relaxed: hints with no data attached, which send the owner's next join and its next spawn
     * to the slow path; loaded first so idle thieves do not keep writing the owner's hot line */
    if (__atomic_load_n(victim->limit_p, __ATOMIC_RELAXED) != 0) {
        __atomic_store_n(victim->split_p, UINTPTR_MAX, __ATOMIC_RELAXED);
        __atomic_store_n(victim->limit_p, 0, __ATOMIC_RELAXED);
    }
}



/* One steal attempt from victim's bottom task; on success runs it on self's stack at top. */
bool mrn_steal(mrn_worker *self, mrn_worker *victim, merino_task *top) {
    /* relaxed: whatever bot we read is validated after the CAS below */
    merino_task *t = __atomic_load_n(&victim->bot, __ATOMIC_RELAXED);
    uintptr_t s = __atomic_load_n(&t->state, __ATOMIC_RELAXED); /* a peek; the CAS decides */
    if (!mrn_is_public(s)) {
        /* Nothing to take at bot (a private task, or none yet): ask, so that the victim's next
         * spawn or join makes work public for us. */
        mrn_request_public(victim);
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
    /* relaxed: tells the owner whom to leapfrog; no data attached */
    __atomic_store_n(&t->state, MERINO__STOLEN(self->index), __ATOMIC_RELAXED);
    /* relaxed: thieves validate bot themselves; the owner reads it after our DONE store */
    __atomic_store_n(&victim->bot, t + 1, __ATOMIC_RELAXED);
    /* Trip-wire: we took the highest public task; ask for more before the victim's public part
     * runs dry. (t + 1 may be the sentinel past the end, which stays EMPTY.) */
    if (mrn_is_private(__atomic_load_n(&t[1].state, __ATOMIC_RELAXED))) mrn_request_public(victim);

    merino__count(&self->steals);
    self->pub.top = top;
    ((merino__wrap_fn)s)(&self->pub, top, t);
    /* release: publishes the result (and our bot store) to the joining owner */
    __atomic_store_n(&t->state, MERINO__DONE, __ATOMIC_RELEASE);
    return true;
}

/* ---- owner: publishing ------------------------------------------------------------------------- */

/* Invariant: private_from <= top; the live descriptors in [private_from, top) are PRIVATE, those
 * below are public or stolen. split equals private_from, except while a thief's request is
 * pending: then it is all ones, so that every join takes the slow path.
 *
 * Public mode. Every spawn starts private, and a private task can change hands only at its
 * owner's next spawn or join — a whole leaf later if the owner is running one. So a request
 * (a thief found no public task at our bottom, or took the last one) does more than publish what
 * we hold: from then on every spawn is public (limit stays 0, so each takes merino__spawn_slow),
 * until we have inlined MRN_PUBLIC_RUN public tasks with no request in between — Wool's rule,
 * "make tasks private again after inlining many public ones" — unless the last of them was long
 * (mrn_public_inlined). While thieves keep asking, the tasks they want are already public when
 * they look; when they stop, the cost is MRN_PUBLIC_RUN exchange joins. In public mode nothing is
 * private: private_from == top. */

/* Sets the owner's boundary; the store may overwrite a request, which its thief then makes again
 * when it next finds no public task at bot. */
static void mrn_set_split(mrn_worker *w, merino_task *t) {
    w->private_from = t;
    __atomic_store_n(&merino__split, (uintptr_t)t, __ATOMIC_RELAXED); /* relaxed: no data */
}

/* A thief's request is pending: it stored all ones into split (and 0 into limit). */
static bool mrn_asked(void) {
    return __atomic_load_n(&merino__split, __ATOMIC_RELAXED) == UINTPTR_MAX; /* relaxed: a hint */
}

/* Enters public mode, or stays in it for MRN_PUBLIC_RUN more public tasks inlined. */
static void mrn_enter_public(mrn_worker *w) {
    if (w->public_left == 0) merino__count(&w->publishes);
    w->public_left = MRN_PUBLIC_RUN;
    /* relaxed: no data; every spawn now takes the slow path (a thief may have stored it already) */
    __atomic_store_n(&merino__limit, 0, __ATOMIC_RELAXED);
}

/* Makes every private task below t public: [private_from, t), t not included. */
static void mrn_publish_below(mrn_worker *w, merino_task *t) {
    for (merino_task *d = w->private_from; d < t; d++) {
        /* relaxed: only the owner writes a PRIVATE state, and thieves never change one */
        uintptr_t s = __atomic_load_n(&d->state, __ATOMIC_RELAXED);
        /* release: a thief that reads TASK(wrap) must see the arguments stored at spawn */
        if (mrn_is_private(s)) __atomic_store_n(&d->state, s - 1, __ATOMIC_RELEASE);
    }
}

/* Spawn into t found t >= limit: the stack is full, or limit is 0 — a thief asked, or we are in
 * public mode. state is what the inline spawn would have stored (PRIVATE, or TASK under
 * MERINO_ALL_PUBLIC). Publish what we hold and this task. */
void merino__spawn_slow(merino_task *t, uintptr_t state) {
    mrn_worker *w = mrn_full(merino__self);
    if (t >= w->pub.end) merino__overflow(&w->pub);
    /* limit 0 outside public mode: a thief stored it (its split store may not be visible yet) */
    if (w->public_left == 0 || mrn_asked()) mrn_enter_public(w);
    mrn_publish_below(w, t);
    mrn_set_split(w, t + 1); /* t's join takes the exchange */
    /* release: a thief that reads TASK(wrap) must see the arguments just stored */
    __atomic_store_n(&t->state, state & ~(uintptr_t)1, __ATOMIC_RELEASE);
}

/* ---- owner: the public join ------------------------------------------------------------------------ */

/* In public mode, a public task came back untouched. After MRN_PUBLIC_RUN of them with no request
 * in between, spawn private again — unless the last one took longer than MRN_PUBLIC_LONG_NS:
 * then stay public for another run (see internal.h). The clock is read at the last two joins of
 * a run only. */
static void mrn_public_inlined(mrn_worker *w) {
    if (w->public_left == 2) w->public_mark = mrn_clock_ns();
    if (w->public_left == 1 && mrn_clock_ns() - w->public_mark > MRN_PUBLIC_LONG_NS) {
        w->public_left = MRN_PUBLIC_RUN;
        return;
    }
    if (--w->public_left == 0) {
        /* relaxed: no data; a request that lands on this store is lost, and made again */
        __atomic_store_n(&merino__limit, (uintptr_t)w->pub.end, __ATOMIC_RELAXED);
        merino__count(&w->privatizations);
    }
}

/* Joins t with a thief that took it: until its state is DONE, steal only from that thief — work
 * that the stolen task spawned — so the wait does useful work and the stack stays bounded. */
static void mrn_leapfrog(mrn_worker *w, merino_task *t, unsigned thief) {
    mrn_worker *victim = mrn_the_pool.workers[thief];
    unsigned fails = 0;
    mrn_set_split(w, t + 1); /* what we run here spawns above t, privately */
    /* acquire: pairs with the thief's DONE store: the result and the thief's bot store */
    while (__atomic_load_n(&t->state, __ATOMIC_ACQUIRE) != MERINO__DONE) {
        if (mrn_steal(w, victim, t + 1)) {
            merino__count(&w->leapfrogs);
            fails = 0;
        } else if (++fails < MRN_IDLE_SPINS) {
            mrn_cpu_relax();
        } else {
            /* relaxed: set before this thread ran on in a fork's child; no data */
            if (MERINO__UNLIKELY(__atomic_load_n(&mrn_fork_orphan, __ATOMIC_RELAXED))) mrn_orphan_wait();
            sched_yield(); /* the thief may be preempted: let it run */
        }
    }
    w->pub.top = t;
}

/* The join of a descriptor below split: a public task, which a thief may have taken — or a
 * private one, when a thief's request made split all ones. Returns 1 if the owner now holds the
 * task and must run it, 0 if a thief ran it (the result is in t). Either way private_from comes
 * down to t: nothing above t is live. */
int merino__join_public(merino_task *t) {
    mrn_worker *w = mrn_full(merino__self);
    /* relaxed: a PRIVATE state is written by the owner only. Private, below split: we are here
     * for a request. (Test the state, not private_from: with MERINO_ALL_PUBLIC the tasks above
     * private_from are public.) Give away the older ones; t is ours to run. */
    if (mrn_is_private(__atomic_load_n(&t->state, __ATOMIC_RELAXED))) {
        mrn_enter_public(w);
        mrn_publish_below(w, t);
        mrn_set_split(w, t);
        return 1;
    }
    if (mrn_asked()) mrn_enter_public(w); /* nothing private to give: spawn public from now on */
    /* acquire: if a thief already finished the task (DONE), its result */
    uintptr_t s = __atomic_exchange_n(&t->state, MERINO__EMPTY, __ATOMIC_ACQUIRE);
    mrn_set_split(w, t);
    for (;;) {
        if (MERINO__LIKELY(s >= MERINO__TASK_MIN)) { /* not stolen: run it here */
            if (w->public_left != 0) mrn_public_inlined(w);
            return 1;
        }
        if (s != MERINO__EMPTY) break;                       /* STOLEN(i) or DONE */
        /* EMPTY: a thief is between its CAS and its STOLEN store, or backing off */
        do {
            mrn_cpu_relax();
            /* relaxed: set before this thread ran on in a fork's child; no data */
            if (MERINO__UNLIKELY(__atomic_load_n(&mrn_fork_orphan, __ATOMIC_RELAXED))) mrn_orphan_wait();
            /* acquire: the state may already be DONE, with the thief's result */
            s = __atomic_load_n(&t->state, __ATOMIC_ACQUIRE);
        } while (s == MERINO__EMPTY);
        /* put back by a thief that backed off: take it (another thief may beat us: loop) */
        if (s >= MERINO__TASK_MIN) s = __atomic_exchange_n(&t->state, MERINO__EMPTY, __ATOMIC_ACQUIRE);
    }
    if (s != MERINO__DONE) {
        mrn_leapfrog(w, t, MERINO__STOLEN_INDEX(s));
        mrn_set_split(w, t);
    }
    /* relaxed: bot is ours again (it pointed at t + 1, whose task we have joined); the next
     * publish's release store orders it before any task a thief could take here */
    __atomic_store_n(&w->bot, t, __ATOMIC_RELAXED);
    return 0;
}

/* ---- errors --------------------------------------------------------------------------------------- */

__attribute__((noreturn, cold)) static void merino__overflow(merino_worker *pw) {
    mrn_worker *w = mrn_full(pw);
    size_t n = (size_t)(w->pub.end - w->pub.base);
    mrn_fatal("task stack overflow on worker %u: more than %zu tasks spawned and not yet joined; "
              "raise merino_config.stack_tasks or MERINO_TASK_STACK (now %zu, at most %zu), or "
              "spawn less deeply",
              w->index, n, n, (size_t)MERINO_MAX_TASK_STACK);
}

void merino__join_mismatch(merino_task *t, const char *name) {
    if (t < merino__self->base)
        mrn_fatal("MERINO_JOIN(%s) has no matching MERINO_SPAWN: every join must match an earlier "
                  "spawn of the same task body",
                  name);
    mrn_fatal("MERINO_JOIN(%s) does not match the most recent un-joined MERINO_SPAWN (a different "
              "task): joins must be made in the reverse order of the spawns",
              name);
}
