/* task.c — task objects: allocation, reference counts, spawning, running a task and its bypass
 * chain, waiting, recycling, and the work source the core's idle loop asks.
 *
 * The reference-count protocol (modelled exhaustively by tests/test_graph_refcount.c):
 *  - The count is set before any child is spawned (relaxed: the spawn's release publishes it).
 *  - A finishing child decrements its parent's count with release order, so what it wrote (its
 *    result) happens before whatever reads the count and sees it drop. The one that brings it to
 *    zero makes the parent ready after an acquire fence (it then sees every other child's writes:
 *    the decrements form one release sequence) and runs it next unless execute returned a task
 *    to run (bypass); then it spawns it. A child that loads (acquire) a count of 1 holds the last
 *    reference: it stores 0 with no read-modify-write.
 *  - A child that loads a count of 2 while the newest task of its worker's deque is private and a
 *    child of the same parent (mrn_other_ref_private): the other reference is that task's, which
 *    no other thread can take or run until this worker publishes it, so nobody else can change
 *    the count: it stores 1 with no read-modify-write (at one worker, the continuations of fib's
 *    +C, +CB and +CBR then cost no locked instruction).
 *  - A task that waits for its children counts one more: they bring it to 1, never 0; the wait
 *    reads the count with acquire order until it is 1, then sets it to 0. While it waits its
 *    state is WAITING, and that one is inert (the wait writes the count only after it read 1): a
 *    child that loads 2 from a waiting task holds the last reference that moves, and stores 1
 *    with release order (no read-modify-write); the private-child rule below counts it too.
 *  - A task recycled as its own continuation counts one more too: the scheduler drops that one
 *    after execute returns, so the task cannot become ready (and run again) while it still runs.
 *
 * Waiting. A worker that waits runs other tasks meanwhile, but only tasks deeper than the task it
 * waits in (the TBB paper's rule): from its own deque (newest first) and from other workers'
 * (oldest first). Each nested wait on a C stack is then deeper than the one below it, so the C
 * stack holds at most one frame per level of task depth, however long the wait; and the tasks a
 * wait needs are deeper than it, so the deepest wait can always run or steal what it needs. */
#include "graph/graph.h"

#include "core/backoff.h"

#include <string.h>

/* Where the task object running on this thread (innermost) is: the context slot of the innermost
 * mrn_execute_in frame, which holds its running task (stored once per task, for thieves and for
 * us), or NULL. */
static __thread merino_task *const *mrn_current_at;

static inline merino_task *mrn_current(void) {
    merino_task *const *at = mrn_current_at;
    return at ? __atomic_load_n(at, __ATOMIC_RELAXED) : NULL; /* relaxed: our own store */
}

/* The fast-path state of the worker running a task object on this thread (merino_graph.h), set
 * by mrn_execute_in for as long as it runs: only the thread occupying the worker's index runs
 * there, so no stale pointer outlives a thread's turn in the caller slot. */
static uint32_t mrn_no_want; /* atomic: never set */
/* merino__gcur outside task objects: every fast path fails on it, with no write (a full deque, empty
 * free lists) */
static const merino__gfast mrn_gfast_none = {.bottom = 0, .own_limit = 0, .want = &mrn_no_want};
MERINO_API __thread merino__gfast *merino__gcur __attribute__((tls_model("initial-exec"))) =
    (merino__gfast *)&mrn_gfast_none;

/* The calling thread's graph state: merino__gcur's while a task object runs (no lookup). */
static inline mrn_gworker *mrn_gcur_or_self(void) {
    merino__gfast *f = merino__gcur;
    return MRN_LIKELY(f != &mrn_gfast_none) ? mrn_gworker_of(f) : mrn_gself();
}

void merino__graph_publish(void) { mrn_deque_publish(mrn_gworker_of(merino__gcur)); }

merino_task *mrn_graph_current(void) { return mrn_current(); }

merino_task *merino__task_current(void) { return mrn_current(); }

/* ---- context frames ------------------------------------------------------------------------------ */

/* A frame is pushed where a task object starts running (mrn_execute: its context is the task,
 * updated along the bypass chain) and where a thief starts a stolen direct task (its context is
 * the victim's frame that holds the stolen descriptor). Why a thief can read the victim's frames:
 * while the stolen descriptor q is not joined, the frames the victim had when it spawned q stay
 * (each belongs to code that must join q before it returns) and were written before q was
 * published (the steal's acquire orders them); any frame pushed since begins above q. So the
 * innermost frame below nframes whose pos is at or below q is q's context, whatever the victim
 * does meanwhile (frames are read with relaxed atomics: a frame being rewritten begins above q
 * in its old and its new value alike — every write of a frame at an index the victim reached
 * again after spawning q has pos above q, and nframes' acquire shows at least those). */

/* Pushes frame n (gw's nframes, read by the caller). */
static inline void mrn_frame_push_at(mrn_gworker *gw, uint32_t n, merino__task *pos, merino_task *ctx) {
    if (MRN_LIKELY(n < MRN_FRAMES)) {
        __atomic_store_n(&gw->frames[n].pos, pos, __ATOMIC_RELAXED); /* relaxed: published by nframes */
        __atomic_store_n(&gw->frames[n].ctx, ctx, __ATOMIC_RELAXED); /* relaxed: likewise */
    }
    __atomic_store_n(&gw->nframes, n + 1, __ATOMIC_RELEASE); /* release: the frame, for thieves */
}

static inline void mrn_frame_push(mrn_gworker *gw, merino__task *pos, merino_task *ctx) {
    mrn_frame_push_at(gw, __atomic_load_n(&gw->nframes, __ATOMIC_RELAXED), pos, ctx); /* relaxed: the owner's */
}

static inline void mrn_frame_pop(mrn_gworker *gw) {
    uint32_t n = __atomic_load_n(&gw->nframes, __ATOMIC_RELAXED); /* relaxed: the owner's */
    __atomic_store_n(&gw->nframes, n - 1, __ATOMIC_RELAXED); /* relaxed: thieves ignore frames above q */
}

/* The context of gw's frames for the direct-stack descriptor q (see above), or NULL. */
static merino_task *mrn_frame_context(mrn_gworker *gw, merino__task *q) {
    uint32_t n = __atomic_load_n(&gw->nframes, __ATOMIC_ACQUIRE); /* acquire: the frames below n */
    if (n > MRN_FRAMES) n = MRN_FRAMES;
    while (n > 0) {
        n--;
        if (__atomic_load_n(&gw->frames[n].pos, __ATOMIC_RELAXED) <= q) /* relaxed: see above */
            return __atomic_load_n(&gw->frames[n].ctx, __ATOMIC_RELAXED); /* relaxed: likewise */
    }
    return NULL;
}

merino_task *mrn_graph_context(void) {
    mrn_gworker *gw = mrn_self() ? mrn_gworker_at(mrn_self()->index) : NULL;
    if (!gw) return NULL;
    uint32_t n = __atomic_load_n(&gw->nframes, __ATOMIC_RELAXED); /* relaxed: ours */
    if (n == 0) return NULL;
    if (n > MRN_FRAMES) n = MRN_FRAMES;
    return __atomic_load_n(&gw->frames[n - 1].ctx, __ATOMIC_RELAXED); /* relaxed: ours */
}

/* The steal hook (src/core/core.h): a thief that takes victim's descriptor t runs it in t's
 * context. Nothing to do when neither worker has ever run task objects. */
#define MRN_NO_FRAME ((void *)1)

static void *mrn_steal_enter(mrn_worker *self, mrn_worker *victim, merino__task *t, merino__task *top) {
    mrn_gworker *vg = mrn_gworker_at(victim->index);
    merino_task *ctx = vg ? mrn_frame_context(vg, t) : NULL;
    mrn_gworker *gw = ctx ? mrn_gself() : mrn_gworker_at(self->index);
    if (!gw) return MRN_NO_FRAME; /* no frames here: the context is already none */
    mrn_deque_publish(gw); /* the stolen task may run long, or wait: our tasks are for the others */
    mrn_frame_push(gw, top, ctx);
    return gw;
}

static void mrn_steal_leave(mrn_worker *self, void *saved) {
    (void)self;
    if (saved != MRN_NO_FRAME) mrn_frame_pop(saved);
}

/* A join waits for a thief (the core's leapfrog): whoever it waits for may wait for our tasks. */
static void mrn_steal_waiting(mrn_worker *self) {
    mrn_gworker *gw = mrn_gworker_at(self->index);
    if (gw) mrn_deque_poll(gw);
}

static const mrn_steal_hook mrn_graph_hook = {mrn_steal_enter, mrn_steal_leave, mrn_steal_waiting};

/* ---- the work source ------------------------------------------------------------------------------ */

/* A random other worker's graph state (the core's choice of victim), or NULL. */
static mrn_gworker *mrn_pick_gvictim(void) {
    if (__atomic_load_n(&mrn_the_pool.count, __ATOMIC_RELAXED) < 2) return NULL; /* relaxed: a bound */
    return mrn_gworker_at(mrn_pick_victim(mrn_self())->index);
}

/* Whether w may run task t now (src/core/region.c: w waits in an isolated region t is not work of,
 * or t's arena is full); if so w is in t's region, and *entered says whether to leave it after. */
static inline bool mrn_task_admit(mrn_worker *w, merino_task *t, bool *entered) {
    *entered = false;
    mrn_region *r = mrn_task_region(t);
    return MRN_LIKELY(r == w->region) || mrn_region_admit(w, r, merino__next, entered);
}

/* Gives back a stolen task w may not run (its arena is full): public on our deque, for the workers
 * in that arena; run at once only if the deque is full (it then exceeds the arena's limit). */
__attribute__((noinline, cold)) static void mrn_task_refused(mrn_gworker *gw, merino_task *t) {
    if (mrn_deque_push(gw, t))
        mrn_deque_publish(gw);
    else
        mrn_execute(gw, t);
}

/* One task deeper than depth that w may run: our newest, else another worker's oldest (one
 * attempt); w is then in its region (*entered: leave it after, mrn_region_leave). A child of
 * anchor (what the wait waits for: a group made outside the region the wait is in) is ours to run
 * whatever its region, in the wait's. */
static merino_task *mrn_find_task(mrn_gworker *gw, int32_t depth, mrn_worker *w, bool *entered,
                                  const merino_task *anchor) {
    merino_task *t = mrn_deque_pop(gw, depth);
    if (t) {
        if (MRN_LIKELY(mrn_task_admit(w, t, entered))) return t;
        if (t->merino__parent == anchor) return t; /* *entered is false: it runs in our region */
        mrn_deque_push(gw, t); /* not for this wait: back where it was (it just left: there is room) */
    }
    mrn_gworker *victim = mrn_pick_gvictim();
    if (!victim) return NULL;
    t = mrn_deque_steal(victim, depth, w->region);
    if (!t) return NULL;
    merino__count(&w->steals); /* merino_stats and the profiler count every steal */
    if (MRN_LIKELY(mrn_task_admit(w, t, entered))) return t;
    mrn_task_refused(gw, t);
    return NULL;
}

/* The anchor of a chain run from the idle loop: its count is never 1, so the chain goes on with
 * our newest task of any depth until the deque is empty, in one frame (returning to the idle loop
 * after each task that made nothing ready would publish our private tasks and try the other
 * sources first, each time: a stolen subtree of continuations, whose leaves end that way, would
 * pay that at every leaf). Never written. */
static merino_task mrn_idle_anchor = {.merino__refs = 2};
merino_task mrn_no_chain = {.merino__refs = 1}; /* never written */

/* The idle loop's source: any task at all, run at top on the worker's task stack (its base in the
 * idle loop, above a waiting task's live tasks in a helping wait), then our own tasks after it. */
static bool mrn_graph_run_one(mrn_worker *w, merino__task *top) {
    mrn_gworker *gw = mrn_gworker_at(w->index);
    if (!gw) gw = mrn_gself();
    if (MRN_UNLIKELY(!gw)) return false; /* not reached: w is this thread's */
    mrn_region *outer = w->region;
    bool entered;
    merino__next = top; /* where a region entered for the task begins */
    merino_task *t = mrn_find_task(gw, INT32_MIN, w, &entered, NULL);
    if (!t) return false;
    mrn_pass_wake(w); /* before the chain, which may run for long */
    merino__task *floor = w->floor;
    w->floor = top; /* a direct-stack join below top has no spawn in this task */
    merino__next = top;
    mrn_execute_in(gw, t, &mrn_idle_anchor, INT32_MIN);
    if (MRN_UNLIKELY(entered)) mrn_region_leave(w, outer);
    w->floor = floor;
    mrn_deque_publish(gw); /* back to the idle loop, which may run other sources' work for long */
    return true;
}

/* Every task a worker pushes it runs itself unless stolen, so a worker never sleeps on a task of
 * its own; this keeps the others awake while any deque holds a task for them to steal. */
static bool mrn_graph_pending(void) {
    unsigned n = __atomic_load_n(&mrn_the_pool.count, __ATOMIC_RELAXED); /* relaxed: a bound */
    for (unsigned i = 0; i < n; i++) {
        mrn_gworker *gw = mrn_gworker_at(i);
        if (gw && mrn_deque_nonempty(gw)) return true;
    }
    return false;
}

static const mrn_source mrn_graph_source = {"task objects", mrn_graph_run_one, mrn_graph_pending};

static pthread_once_t mrn_graph_once = PTHREAD_ONCE_INIT;
static void mrn_graph_add_source(void) {
    mrn_sources_init(); /* the core's sources first: handed-over tasks, then the task stacks */
    if (mrn_source_add(&mrn_graph_source) != 0)
        mrn_fatal("no room for the task-object work source (MRN_MAX_SOURCES in src/core/core.h)");
    if (mrn_steal_hook_set(&mrn_graph_hook) != 0) mrn_fatal("the core's steal hook is taken by another layer");
}

void mrn_graph_init(void) { pthread_once(&mrn_graph_once, mrn_graph_add_source); }

/* A worker's first task object: the layer's work source, then the worker's state (storage.c). */
__attribute__((noinline, cold)) mrn_gworker *mrn_gworker_make_self(void) {
    mrn_worker *w = mrn_self();
    if (!w) return NULL;
    mrn_graph_init(); /* the work source, before the first task object can be queued */
    return mrn_gworker_make(w);
}

/* ---- running ---------------------------------------------------------------------------------------- */

_Alignas(MRN_CACHE_LINE) uint32_t mrn_flagged_groups; /* atomic */

bool mrn_ctx_cancelled(const merino_task_group *g, uint64_t seq) {
    if (MRN_LIKELY(!mrn_ctx_flagged())) return false;
    for (; g; seq = g->merino__outer_seq, g = g->merino__outer) {
        /* relaxed: hints with no data; a task that starts just before a cancel runs, as it would
         * have if it had started a little earlier */
        if (__atomic_load_n(&g->merino__cancelled, __ATOMIC_RELAXED)) return true;
        if (seq > __atomic_load_n(&g->merino__failed_seq, __ATOMIC_RELAXED)) return true; /* relaxed: likewise */
    }
    return false;
}

/* A count that reached zero (or a waiting task's one) while a child had not finished: seen when a
 * child finds its parent's count already at zero or below, or running or waiting with a count of
 * 2 while its last sibling is still queued here, private. */
__attribute__((noreturn, cold, noinline)) static void mrn_count_too_low(void) {
    mrn_fatal("a task's reference count reached zero (or, for a task waiting for its children, one) "
              "before all its children finished: set a task's count to the number of its children, "
              "plus one when it waits for them (merino_task_wait_for_all) or is recycled as its own "
              "continuation");
}

__attribute__((noreturn, cold)) static void mrn_zero_while_running(void) {
    mrn_fatal("a task's reference count reached zero while the task was still running (or "
              "waiting): when a task waits for its children (merino_task_wait_for_all), or is "
              "recycled as its own continuation, set its count to the number of children plus one");
}

/* ThreadSanitizer does not model fences: there the decrement itself acquires too (the same
 * instruction on x86-64). */
#ifdef MERINO__TSAN
#define MRN_DROP_ORDER __ATOMIC_ACQ_REL
#else
#define MRN_DROP_ORDER __ATOMIC_RELEASE
#endif

/* Whether, p's count being 2 with one reference ours, the other is held by the newest task of
 * gw's deque, private: a child of p that has not started. No other thread can take or run it until
 * this worker publishes it, and no other thread holds a reference to p (the count counts them all:
 * a group's anchor, whose count other threads raise, counts its base one too, so it is at least 3
 * then), so nobody else can change the count before this worker's next publish. Owner only. */
static inline bool mrn_other_ref_private(mrn_gworker *gw, const merino_task *p) {
    int64_t b = __atomic_load_n(&gw->fast.bottom, __ATOMIC_RELAXED) - 1; /* relaxed: ours */
    if (b < gw->fast.own_split) return false; /* empty, or the newest task is public */
    const merino_task *q = __atomic_load_n(&gw->slot[b & MRN_MASK], __ATOMIC_RELAXED); /* relaxed: our own store */
    return q->merino__parent == p; /* plain: a queued task's header is fixed, and ours while private */
}

/* One reference of p dropped; returns p when that made it ready. A count of 1 is the last
 * reference, ours: nobody else can change it, so it needs no read-modify-write (the TBB
 * scheduler's shortcut; half the drops of a continuation with two children, when the first
 * child finished before the second — always on one worker). A count of 2 whose other reference
 * is our newest private task needs none either (mrn_other_ref_private: the other half). */
/* always inline: the execute loop's hot path (out of line, the loop saves and restores around a call) */
static inline __attribute__((always_inline)) merino_task *mrn_release_ref(mrn_gworker *gw, merino_task *p) {
    /* acquire: a count of 1 was left by the other references' release decrements: their writes */
    int32_t c = __atomic_load_n(&p->merino__refs, __ATOMIC_ACQUIRE);
    if (c == 1) {
        __atomic_store_n(&p->merino__refs, 0, __ATOMIC_RELAXED); /* relaxed: ours alone now */
    } else if (c == 2 && mrn_other_ref_private(gw, p)) {
        /* p has not started (a continuation): one waiting would count 3 (its wait's one), one
         * recycled as its own continuation and still running 3 too (its extra one). relaxed: p's
         * own stores of its state come before the spawn that made us */
        if (MRN_UNLIKELY(__atomic_load_n(&p->merino__state, __ATOMIC_RELAXED) != MRN_T_ALLOCATED)) mrn_count_too_low();
        /* relaxed: the private child that drops the last reference runs here after this store, or
         * on a thief after the publish, whose release store of split comes after it: either way
         * the store (and our result before it) happens before that child's load */
        __atomic_store_n(&p->merino__refs, 1, __ATOMIC_RELAXED);
        return NULL;
    } else {
        /* the references that move: all but p's wait's one, inert while p waits (p leaves the wait
         * only after it reads 1). relaxed: a flag read after the acquire above; p set it after the
         * spawn that made us, so an older wait's cannot be read, and it holds until our store */
        int32_t moving = c - (__atomic_load_n(&p->merino__state, __ATOMIC_RELAXED) == MRN_T_WAITING);
        if (moving == 1) {
            /* release: our writes (and those of the children before us, whose release decrements we
             * acquired) before the waiter's acquire load of 1 */
            __atomic_store_n(&p->merino__refs, 1, __ATOMIC_RELEASE);
            return NULL;
        }
        if (moving == 2 && c == 3 && mrn_other_ref_private(gw, p)) {
            /* relaxed: as the store of 1 above (the child's own store of 1 is a release) */
            __atomic_store_n(&p->merino__refs, 2, __ATOMIC_RELAXED);
            return NULL;
        }
        /* release: what this task wrote (its result) happens before the count is seen to drop */
        int32_t old = __atomic_fetch_sub(&p->merino__refs, 1, MRN_DROP_ORDER);
        if (MRN_LIKELY(old > 1)) return NULL;
        if (MRN_UNLIKELY(old != 1)) mrn_count_too_low(); /* p's count said done before we were */
#ifndef MERINO__TSAN
        /* acquire: the writes of every child that decremented before us (one release sequence) */
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
#endif
    }
    uint32_t s = __atomic_load_n(&p->merino__state, __ATOMIC_RELAXED); /* relaxed: ours now */
    if (MRN_UNLIKELY(s != MRN_T_ALLOCATED)) mrn_zero_while_running();
    return p;
}

void mrn_spawn(mrn_gworker *gw, merino_task *t) {
    MRN_PROF_TOBJ_SPAWN(t);
    __atomic_store_n(&t->merino__state, MRN_T_READY, __ATOMIC_RELAXED); /* relaxed: the push publishes */
    if (MRN_UNLIKELY(!mrn_deque_push(gw, t))) mrn_execute(gw, t); /* full: run it now (bounded space) */
    mrn_wake_if_due(mrn_self()); /* a region's first work: thieves must be awake to ask for it */
}

/* The rare cases at a task's start, out of line: a thief's request (publish), a flagged group
 * (whether t's context is cancelled). Returns whether t runs. */
__attribute__((noinline, cold)) static bool mrn_run_check(mrn_gworker *gw, const merino_task *t) {
    mrn_deque_poll(gw);
    return !mrn_ctx_cancelled(t->merino__group, t->merino__seq);
}

/* What a task that returned without being recycled leaves: it is freed and its parent's count
 * dropped; returns the parent when that made it ready. */
static inline merino_task *mrn_finish(mrn_gworker *gw, merino_task *t) {
    merino_task *parent = t->merino__parent;
    if (MRN_UNLIKELY(!mrn_task_free_fast(gw, t))) mrn_task_delete_slow(gw, t); /* the fast path failed: not again */
    return MRN_LIKELY(parent != NULL) ? mrn_release_ref(gw, parent) : NULL;
}

/* The recycled cases after execute returned, out of the loop's straight line; returns the task
 * that became ready (a continuation whose children are all done), or NULL. */
static merino_task *mrn_after_recycled(mrn_gworker *gw, merino_task *t, uint32_t s, const merino_task *next) {
    __atomic_store_n(&t->merino__state, MRN_T_ALLOCATED, __ATOMIC_RELAXED); /* relaxed: ours */
    if (s == MRN_T_RECYCLED_CHILD) {
        if (MRN_UNLIKELY(next != t))
            mrn_fatal("a task recycled as a child (merino_task_recycle_as_child_of) must "
                      "return itself from execute, to run again at once");
        return NULL;
    }
    return mrn_release_ref(gw, t); /* MRN_T_RECYCLED_CONT: drop the count's extra one, now that it has returned */
}

void mrn_execute_in(mrn_gworker *gw, merino_task *t, const merino_task *anchor, int32_t depth) {
    if (gw == NULL) __builtin_unreachable(); /* the caller's state: spares the checks of NULL below */
    /* a region's first task object (its children are pushed inline, unseen by the core) */
    mrn_wake_if_due(mrn_self());
    merino__gfast *outer_fast = merino__gcur;
    merino__gcur = &gw->fast;
    uint32_t n = __atomic_load_n(&gw->nframes, __ATOMIC_RELAXED); /* relaxed: the owner's */
    /* this frame's context, or for a frame past the recorded ones a slot of its own that thieves
     * do not read (they take the innermost recorded one) */
    merino_task *unrecorded;
    merino_task **ctx = n < MRN_FRAMES ? &gw->frames[n].ctx : &unrecorded;
    merino_task *const *outer_at = mrn_current_at;
    mrn_current_at = ctx; /* the running task: *ctx from now on */
    mrn_frame_push_at(gw, n, merino__next, t);
    MRN_PROF_CHAIN_BEGIN(prof);
    do {
        /* relaxed: the task now running in this frame (mrn_current's too); a thief reads it only
         * while a direct task this task spawned is stolen, which this task joins before it returns */
        __atomic_store_n(ctx, t, __ATOMIC_RELAXED);
        MRN_PROF_TOBJ_BEGIN(t);
    again:
        __atomic_store_n(&t->merino__state, MRN_T_RUNNING, __ATOMIC_RELAXED); /* relaxed: this thread's */
        /* One test for both rare cases: a thief's request (a bypass chain may run long without a
         * push or pop) and a flagged group (relaxed both: hints, see mrn_ctx_flagged). */
        uint32_t attn = __atomic_load_n(&gw->want, __ATOMIC_RELAXED) | __atomic_load_n(&mrn_flagged_groups, __ATOMIC_RELAXED);
        merino_task *next = NULL;
        /* its reducer views are its own, ordered by its group; nothing to do until a reducer exists
         * (relaxed: a hint, read once per task so that enter and leave pair) */
        bool views_on = MRN_UNLIKELY(__atomic_load_n(&mrn_views_on, __ATOMIC_RELAXED) != 0);
        void *views = views_on ? mrn_views_enter() : NULL;
        if (MRN_LIKELY(attn == 0) || mrn_run_check(gw, t)) next = t->merino__execute(t);
        if (views_on) mrn_task_views_leave(t, views);
        /* mrn_current() still names t until the next task or the end of the chain: the code
         * between (freeing t, dropping a reference, a push) reads it nowhere */
        uint32_t s = __atomic_load_n(&t->merino__state, __ATOMIC_RELAXED); /* relaxed: this thread's */
        MRN_PROF_TOBJ_END(t, s);
        merino_task *ready;
        if (MRN_LIKELY(s == MRN_T_RUNNING))
            ready = mrn_finish(gw, t);
        else if (s == MRN_T_RECYCLED_CHILD && next == t)
            goto again; /* recycled as a child and returned: it runs again at once, in this frame's context */
        else
            ready = mrn_after_recycled(gw, t, s, next);
        if (ready) {
            if (MRN_LIKELY(!next)) {
                t = ready; /* depth first: the parent whose last child this was */
                continue;
            }
            mrn_spawn(gw, ready);
        }
        /* A wait's chain goes on with our newest task deeper than the wait, in this frame (what the
         * wait's loop would do next, without leaving and entering again), while the wait's count
         * is not 1. relaxed: a hint; the wait reads the count again with acquire */
        if (!next && __atomic_load_n(&anchor->merino__refs, __ATOMIC_RELAXED) != 1) {
            next = mrn_deque_pop_unpolled(gw, depth); /* the loop polls before it runs it */
            /* work of another isolated region than the chain's: not here (src/core/region.c) */
            if (next && MRN_UNLIKELY(mrn_task_region(next) != mrn_self()->region) && next->merino__parent != anchor) {
                mrn_deque_push(gw, next); /* back where it was */
                next = NULL;
            }
        }
        t = next;
    } while (t);
    MRN_PROF_CHAIN_END(prof);
    mrn_current_at = outer_at;
    merino__gcur = outer_fast;
    mrn_frame_pop(gw);
}

/* A wait for a task whose count is below one: it would never end. */
__attribute__((noreturn, cold, noinline)) static void mrn_wait_count_low(int32_t c) {
    mrn_fatal("a wait for the children of a task whose reference count is %d: set the count to the "
              "number of children plus one (for the wait) before spawning them",
              (int)c);
}

void mrn_wait_loop(mrn_gworker *gw, merino_task *anchor, int32_t depth) {
    mrn_backoff b = {0};
    int32_t c;
    /* acquire: pairs with the children's release decrements: their results */
    while ((c = __atomic_load_n(&anchor->merino__refs, __ATOMIC_ACQUIRE)) != 1) {
        if (MRN_UNLIKELY(c < 1)) mrn_wait_count_low(c);
        mrn_worker *w = mrn_self();
        mrn_region *outer = w->region;
        bool entered;
        merino_task *t = mrn_find_task(gw, depth, w, &entered, anchor);
        if (t) {
            mrn_execute_in(gw, t, anchor, depth);
            if (MRN_UNLIKELY(entered)) mrn_region_leave(w, outer);
            mrn_backoff_reset(&b);
        } else {
            mrn_deque_poll(gw); /* our tasks not deep enough for us may be what a thief needs */
            mrn_backoff_pause(&b); /* a thief runs what we wait for: let it */
        }
    }
}

/* A thread that is not a worker runs fn(arg) on the pool: a direct-stack task descriptor holds
 * the call, and merino__run_external runs it in the caller slot or hands it over. */
typedef struct mrn_call {
    void (*fn)(void *);
    void *arg;
} mrn_call;

MERINO__WRAP_ATTR static void mrn_call_wrap(merino__task *top, merino__task *t) {
    (void)top;
    mrn_call c;
    memcpy(&c, t->payload, sizeof c);
    c.fn(c.arg);
    /* The calling thread leaves the worker it ran as (the caller slot, or a job's worker) and may
     * leave task objects it pushed private there: publish them now, since only a running owner
     * publishes (a group's external spawn, then a wait handed to another worker, hung for ever). */
    mrn_gworker *gw = mrn_gworker_at(mrn_self()->index);
    if (gw) mrn_deque_publish(gw);
}

void mrn_on_worker(void (*fn)(void *), void *arg) {
    if (merino__self) {
        fn(arg);
        return;
    }
    merino__task d;
    mrn_call c = {fn, arg};
    memcpy(d.payload, &c, sizeof c);
    merino__run_external(&d, mrn_call_wrap);
}

/* ---- the API ------------------------------------------------------------------------------------------ */

__attribute__((noreturn, cold)) static void mrn_not_on_worker(const char *what) {
    mrn_fatal("%s called on a thread that is not running a task: spawn and wait inside a task's "
              "execute; start a computation with merino_task_spawn_root_and_wait",
              what);
}

merino_task *merino_task_alloc_root(merino_task_fn *fn, size_t data_bytes) {
    mrn_graph_init();
    return mrn_task_new(mrn_gself(), fn, data_bytes);
}

merino_task *merino_task_alloc_child(merino_task *parent, merino_task_fn *fn, size_t data_bytes) {
    merino_task *t = mrn_task_new(mrn_gself(), fn, data_bytes);
    merino__task_init(t, fn, parent, parent->merino__group, parent->merino__seq, parent->merino__depth + 1);
    return t;
}

merino_task *merino_task_alloc_continuation(merino_task *self, merino_task_fn *fn, size_t data_bytes) {
    merino_task *c = mrn_task_new(mrn_gself(), fn, data_bytes);
    merino__task_init(c, fn, self->merino__parent, self->merino__group, self->merino__seq, self->merino__depth);
    self->merino__parent = NULL;
    return c;
}

void merino_task_free(merino_task *t) {
    /* relaxed: a spawned task's state may be written by the worker running it; a hint here */
    if (MRN_UNLIKELY(__atomic_load_n(&t->merino__state, __ATOMIC_RELAXED) != MRN_T_ALLOCATED))
        mrn_fatal("merino_task_free of a task that was spawned (queued, running or finished) or freed "
                  "already: free only a task allocated and never spawned; merino frees the others when "
                  "they have run");
    mrn_task_delete(mrn_gself(), t);
}

void merino_task_set_destroy(merino_task *t, merino_task_destroy_fn *fn) {
    t->merino__destroy = fn;
    /* the free's fast path tests the class alone (a malloc'd block's class has the bit already) */
    if (t->merino__class != MRN_CLASS_MALLOC)
        t->merino__class = (uint16_t)(fn ? t->merino__class | MRN_CLASS_DESTROY : t->merino__class & ~MRN_CLASS_DESTROY);
}

void merino_task_set_execute(merino_task *t, merino_task_fn *fn) { t->merino__execute = fn; }

void merino__task_bad_count(int count) {
    mrn_fatal("merino_task_set_ref_count(t, %d): a count is the number of the task's children, plus one "
              "when it waits for them or is recycled as its own continuation; never negative",
              count);
}

void merino_task_set_ref_count(merino_task *t, int count) {
    if (MRN_UNLIKELY(count < 0)) merino__task_bad_count(count);
    merino__task_set_ref_count(t, count);
}

int merino_task_ref_count(const merino_task *t) {
    return __atomic_load_n(&t->merino__refs, __ATOMIC_RELAXED); /* relaxed: a snapshot */
}

merino_task *merino_task_parent(const merino_task *t) { return t->merino__parent; }

/* The checks of a task about to be spawned (or run at once in a spawn's place). */
static void mrn_check_spawnable(const merino_task *t) {
    /* relaxed: the state is this thread's (allocated here, or made ready to it by a count's acquire) */
    if (MRN_UNLIKELY(__atomic_load_n(&t->merino__state, __ATOMIC_RELAXED) != MRN_T_ALLOCATED))
        mrn_fatal("merino_task_spawn of a task that is running, queued or freed: spawn a task once, "
                  "after allocating it; a task recycled as a child is run again by returning it");
    if (MRN_UNLIKELY(t->merino__parent == NULL))
        mrn_fatal("merino_task_spawn of a task with no parent (a root): nothing would wait for it; "
                  "run a root with merino_task_spawn_root_and_wait, or allocate the task as a child");
}

void merino_task_spawn(merino_task *t) {
    mrn_gworker *gw = mrn_gcur_or_self();
    if (MRN_UNLIKELY(!gw)) mrn_not_on_worker("merino_task_spawn");
    mrn_check_spawnable(t);
    mrn_spawn(gw, t);
}

/* merino_task_spawn_and_wait_for_all (child may be NULL); what: the API function, for errors. */
static void mrn_spawn_and_wait(merino_task *self, merino_task *child, const char *what) {
    mrn_gworker *gw = mrn_gcur_or_self();
    if (MRN_UNLIKELY(!gw)) mrn_not_on_worker(what);
    MRN_PROF_TOBJ_WAIT_BEGIN(prof);
    int32_t depth = self->merino__depth;
    /* WAITING marks the count's extra one as the wait's, inert (mrn_release_ref); only for a task
     * that runs plainly (relaxed: ours; children read it, see mrn_release_ref) */
    bool mark = __atomic_load_n(&self->merino__state, __ATOMIC_RELAXED) == MRN_T_RUNNING;
    if (mark) __atomic_store_n(&self->merino__state, MRN_T_WAITING, __ATOMIC_RELAXED);
    if (child) {
        mrn_check_spawnable(child);
        /* The task the wait would take first (the newest), run at once in the wait's frame: no push
         * and pop. Only a task deeper than self, as the wait's stealing rule says; else queued. */
        if (MRN_LIKELY(child->merino__depth > depth))
            mrn_execute_in(gw, child, self, depth);
        else
            mrn_spawn(gw, child);
    }
    mrn_wait_for(gw, self, depth);
    MRN_PROF_TOBJ_WAIT_END(prof, self);
    if (mark) __atomic_store_n(&self->merino__state, MRN_T_RUNNING, __ATOMIC_RELAXED); /* relaxed: as above */
    __atomic_store_n(&self->merino__refs, 0, __ATOMIC_RELAXED); /* relaxed: no child is left */
}

void merino_task_wait_for_all(merino_task *self) { mrn_spawn_and_wait(self, NULL, "merino_task_wait_for_all"); }

void merino_task_spawn_and_wait_for_all(merino_task *self, merino_task *child) {
    mrn_spawn_and_wait(self, child, "merino_task_spawn_and_wait_for_all");
}

void merino_task_recycle_as_child_of(merino_task *self, merino_task *new_parent) {
    merino__task_recycle_as_child_of(self, new_parent);
}

void merino_task_recycle_as_continuation(merino_task *self) { merino__task_recycle_as_continuation(self); }


int merino_task_is_cancelled(const merino_task *t) {
    return mrn_ctx_cancelled(t->merino__group, t->merino__seq);
}
