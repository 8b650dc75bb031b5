/* owner.c — the owner's slow paths of the direct task stack: publishing private tasks on a thief's
 * request, public mode, the slow join (a public task, which a thief may have taken), waiting for a
 * thief by leapfrogging, and the errors of misuse. The inline fast paths are in
 * include/merino/internal/task_stack.h; the thief's side is thief.c. */
#include "core/core.h"

#include "core/backoff.h"

static inline bool mrn_is_private(uintptr_t s) { return s >= MERINO__TASK_MIN && (s & 1); }

__attribute__((noreturn, cold)) static void mrn_overflow(mrn_worker *w);
__attribute__((noreturn, cold)) static void mrn_join_below_floor(void);
__attribute__((noreturn, cold)) static void mrn_join_other_task(void);

/* Invariant: private_from <= top; the live descriptors in [private_from, top) are PRIVATE, those
 * below are public or stolen. split equals private_from, except while a thief's request is
 * pending: then it is all ones, so that every join takes the slow path.
 *
 * Public mode. Every spawn starts private, and a private task can change hands only at its
 * owner's next spawn or join — a whole leaf later if the owner is running one. So a request
 * does more than publish what we hold: from then on every spawn is public (limit stays 0, so each
 * takes merino__spawn_slow), until we have inlined MRN_PUBLIC_RUN public tasks with no request in
 * between — Wool's privatization rule — unless the last of them was long (mrn_public_inlined).
 * In public mode nothing is private: private_from == top. */

/* ---- publishing ---------------------------------------------------------------------------------- */

/* Sets the owner's boundary; the store may overwrite a request, which its thief then makes again
 * when it next finds no public task at bot. */
static void mrn_set_split(mrn_worker *w, merino__task *t) {
    w->private_from = t;
    __atomic_store_n(&merino__split, (uintptr_t)t, __ATOMIC_RELAXED); /* relaxed: no data */
}

/* A thief's request is pending: it stored all ones into split (and 0 into limit). */
static bool mrn_asked(void) {
    return __atomic_load_n(&merino__split, __ATOMIC_RELAXED) == UINTPTR_MAX; /* relaxed: a hint */
}

/* Enters public mode, or stays in it for MRN_PUBLIC_RUN more public tasks inlined. */
void mrn_enter_public(mrn_worker *w) {
    if (w->public_left == 0) merino__count(&w->publishes);
    w->public_left = MRN_PUBLIC_RUN;
    /* relaxed: no data; every spawn now takes the slow path (a thief may have stored it already) */
    __atomic_store_n(&merino__limit, 0, __ATOMIC_RELAXED);
}

/* Makes every private task below t public: [private_from, t), t not included. */
static void mrn_publish_below(mrn_worker *w, merino__task *t) {
    for (merino__task *d = w->private_from; d < t; d++) {
        /* relaxed: only the owner writes a PRIVATE state, and thieves never change one */
        uintptr_t s = __atomic_load_n(&d->state, __ATOMIC_RELAXED);
        /* release: a thief that reads TASK(wrap) must see the arguments stored at spawn */
        if (mrn_is_private(s)) __atomic_store_n(&d->state, s - 1, __ATOMIC_RELEASE);
    }
}

/* Spawn into t found t >= limit: the stack is full, or limit is 0 — a thief asked, or we are in
 * public mode. state is what the inline spawn would have stored (PRIVATE, or TASK under
 * MERINO_ALL_PUBLIC). Publish what we hold and this task. */
void merino__spawn_slow(merino__task *t, uintptr_t state) {
    mrn_worker *w = mrn_self();
    if (MRN_UNLIKELY(t >= w->pub.end)) mrn_overflow(w);
    /* limit 0 outside public mode: a thief stored it (its split store may not be visible yet) */
    if (w->public_left == 0 || mrn_asked()) mrn_enter_public(w);
    mrn_publish_below(w, t);
    mrn_set_split(w, t + 1); /* t's join takes the exchange */
    /* release: a thief that reads TASK(wrap) must see the arguments just stored */
    __atomic_store_n(&t->state, state & ~(uintptr_t)1, __ATOMIC_RELEASE);
    mrn_wake_if_due(w); /* the region's first spawn: wake the sleepers to take it */
}

/* The first work of the region is published: wake a sleeper for it (it wakes the next when it
 * finds work: sleep.c). Sleepers that counted themselves before our take of the slot
 * (mrn_try_take_slot in enter.c, seq_cst) are seen by mrn_wake_one's seq_cst load; those that count
 * themselves after it see the slot taken and do not sleep. */
__attribute__((noinline)) void mrn_region_wake(mrn_worker *w) {
    w->wake_due = false;
    mrn_wake_one();
}

/* ---- the owner as its own thief (a helping wait) ------------------------------------------------- */

/* A task that waits inside its body (merino__help_one) may have spawned the very task it waits
 * for — one worker, two tasks that send to each other. Its worker takes its own oldest unjoined
 * task as a thief would (mrn_steal: the task becomes STOLEN by us, then DONE before we return, so
 * the owner's join later finds it DONE), after publishing what is private below top. */
bool mrn_run_own_oldest(mrn_worker *w, merino__task *top) {
    /* relaxed: bot is moved by thieves (validated by mrn_steal's CAS) or by us */
    merino__task *bot = __atomic_load_n(&w->bot, __ATOMIC_RELAXED);
    if (bot >= top) return false; /* nothing unjoined below top that a thief has not taken */
    if (w->private_from < top) {
        mrn_enter_public(w);
        mrn_publish_below(w, top);
        mrn_set_split(w, top);
    }
    return mrn_steal(w, w, top);
}

/* ---- the slow join -------------------------------------------------------------------------------- */

/* In public mode, a public task came back untouched. After MRN_PUBLIC_RUN of them with no request
 * in between, spawn private again — unless the last one took longer than MRN_PUBLIC_LONG_NS: then
 * stay public for another run. The clock is read at the last two joins of a run only. */
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

__attribute__((noreturn, cold)) static void mrn_orphan_wait(void) {
    mrn_fatal("a task waits for a task stolen by a worker that does not exist in this process: "
              "fork() was called from a task, and the child has only the forking thread; in such a "
              "child, call only exec or _exit, or fork from outside merino's tasks");
}

/* A wait that only a worker which no longer exists could end (see pool.c, fork). */
static void mrn_check_orphan(void) {
    /* relaxed: set before this thread ran on in a fork's child; no data */
    if (MRN_UNLIKELY(__atomic_load_n(&mrn_fork_orphan, __ATOMIC_RELAXED))) mrn_orphan_wait();
}

/* Joins t with a thief that took it: until its state is DONE, steal only from that thief — work
 * that the stolen task spawned — so the wait does useful work and the stack stays bounded. */
static void mrn_leapfrog(mrn_worker *w, merino__task *t, unsigned thief) {
    mrn_worker *victim = mrn_the_pool.workers[thief];
    mrn_backoff b = {0};
    mrn_set_split(w, t + 1); /* what we run here spawns above t, privately */
    /* acquire: pairs with the thief's DONE store: the result and the thief's bot store */
    while (__atomic_load_n(&t->state, __ATOMIC_ACQUIRE) != MERINO__DONE) {
        MRN_PROF_LEAPFROG_TRY();
        if (mrn_steal(w, victim, t + 1)) {
            merino__count(&w->leapfrogs);
            mrn_backoff_reset(&b);
        } else {
            MRN_PROF_STEAL_FAILED();
            mrn_check_orphan();
            const mrn_steal_hook *hook = mrn_steal_hook_get(); /* CORE HOOK (graph), core.h */
            if (hook) hook->waiting(w);
            mrn_backoff_pause(&b); /* the thief may be preempted: let it run */
        }
    }
    merino__next = t;
}

/* The join of a descriptor below split: a public task, which a thief may have taken — or a
 * private one, when a thief's request made split all ones — or no task at all, when the join has
 * no spawn (t is below where the running task began). Returns 1 if the owner now holds the task
 * and must run it, 0 if a thief ran it (the result is in t). Either way private_from comes down
 * to t: nothing above t is live. */
int merino__join_slow(merino__task *t, uintptr_t private_state) {
    uintptr_t wrap = private_state - 1; /* the joining task's wrapper */
    mrn_worker *w = mrn_self();
    if (MRN_UNLIKELY(w == NULL || t < w->floor)) mrn_join_below_floor();
    MRN_PROF_JOIN_SLOW_BEGIN();
    /* relaxed: a PRIVATE state is written by the owner only. Private, below split: we are here
     * for a request. (Test the state, not private_from: with MERINO_ALL_PUBLIC the tasks above
     * private_from are public.) Give away the older ones; t is ours to run. */
    uintptr_t own = __atomic_load_n(&t->state, __ATOMIC_RELAXED);
    if (mrn_is_private(own)) {
        if (MRN_UNLIKELY(own != private_state)) mrn_join_other_task();
        mrn_enter_public(w);
        mrn_publish_below(w, t);
        mrn_set_split(w, t);
        MRN_PROF_JOIN_SLOW_INLINE();
        return 1;
    }
    if (mrn_asked()) mrn_enter_public(w); /* nothing private to give: spawn public from now on */
    /* acquire: if a thief already finished the task (DONE), its result */
    uintptr_t s = __atomic_exchange_n(&t->state, MERINO__EMPTY, __ATOMIC_ACQUIRE);
    mrn_set_split(w, t);
    for (;;) {
        if (MRN_LIKELY(s >= MERINO__TASK_MIN)) { /* not stolen: run it here */
            if (MRN_UNLIKELY(s != wrap)) mrn_join_other_task();
            if (w->public_left != 0) mrn_public_inlined(w);
            MRN_PROF_JOIN_SLOW_INLINE();
            return 1;
        }
        if (s != MERINO__EMPTY) break; /* STOLEN(i) or DONE */
        /* EMPTY: a thief is between its CAS and its STOLEN store, or backing off */
        mrn_backoff b = {0};
        MRN_PROF_WAIT_BEGIN(prof_cat);
        do {
            mrn_check_orphan();
            mrn_backoff_pause(&b); /* a few instructions of the thief's, unless it is preempted */
            /* acquire: the state may already be DONE, with the thief's result */
            s = __atomic_load_n(&t->state, __ATOMIC_ACQUIRE);
        } while (s == MERINO__EMPTY);
        MRN_PROF_WAIT_END(prof_cat);
        /* put back by a thief that backed off: take it (another thief may beat us: loop) */
        if (s >= MERINO__TASK_MIN) s = __atomic_exchange_n(&t->state, MERINO__EMPTY, __ATOMIC_ACQUIRE);
    }
    if (s != MERINO__DONE) {
        MRN_PROF_WAIT_BEGIN(prof_cat);
        mrn_leapfrog(w, t, MERINO__STOLEN_INDEX(s));
        MRN_PROF_WAIT_END(prof_cat);
        mrn_set_split(w, t);
    }
    /* relaxed: the thief's record of the wrapper it ran, ordered by the DONE we acquired */
    if (MRN_UNLIKELY(__atomic_load_n(&t->check, __ATOMIC_RELAXED) != wrap)) mrn_join_other_task();
    MRN_PROF_JOINED_STOLEN(w, t);
    mrn_views_joined(w, t); /* the thief's views come after ours in serial order */
    /* relaxed: bot is ours again (it pointed at t + 1, whose task we have joined); the next
     * publish's release store orders it before any task a thief could take here */
    __atomic_store_n(&w->bot, t, __ATOMIC_RELAXED);
    return 0;
}

/* ---- errors (cold) -------------------------------------------------------------------------------- */

__attribute__((noreturn, cold)) static void mrn_overflow(mrn_worker *w) {
    size_t n = (size_t)(w->pub.end - w->pub.base);
    mrn_fatal("task stack overflow on worker %u: more than %zu tasks spawned and not yet joined; "
              "raise merino_config.stack_tasks or MERINO_TASK_STACK (now %zu, at most %zu), or "
              "spawn less deeply",
              w->index, n, n, (size_t)MERINO_MAX_TASK_STACK);
}

__attribute__((noreturn, cold)) static void mrn_join_below_floor(void) {
    mrn_fatal("MERINO_JOIN without a matching MERINO_SPAWN: the task body joined more tasks than it "
              "spawned; every join must match an earlier spawn of the same task body");
}

/* A join met a public or stolen task of another task than its own (join_slow's wrap). Builds
 * with the checks catch it at every join, with the task's name (merino__join_mismatch). */
__attribute__((noreturn, cold)) static void mrn_join_other_task(void) {
    mrn_fatal("a MERINO_JOIN does not match the most recent un-joined MERINO_SPAWN (it names a "
              "different task): joins must be made in the reverse order of the spawns; build with "
              "-DMERINO_DEBUG to have every join checked and the task named");
}

void merino__join_mismatch(merino__task *t, const char *name) {
    if (t < merino__self->base) {
        mrn_fatal("MERINO_JOIN(%s) has no matching MERINO_SPAWN: every join must match an earlier "
                  "spawn of the same task body",
                  name);
    }
    mrn_fatal("MERINO_JOIN(%s) does not match the most recent un-joined MERINO_SPAWN (a different "
              "task): joins must be made in the reverse order of the spawns",
              name);
}

void merino__unjoined(merino__task *top, const char *name) {
    mrn_fatal("task %s returned with %td spawned task(s) it did not join: every MERINO_SPAWN needs "
              "a MERINO_JOIN in the same task body before it returns",
              name, merino__next - top);
}
