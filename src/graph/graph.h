/* graph.h — internal declarations of merino's graph layer: task objects with reference counts (the
 * TBB scheduler model) and task groups, on the core's workers. Never included by users.
 *
 * Files and the direction of their calls (a file calls only files below it in this list):
 *   flow.c    dependency graphs: nodes, edges, runs (flow.h: their structures)
 *   order.c   a graph's topological order under construction: cycles refused as edges come
 *   group.c   task groups: run, wait, cancel, failures (the serial order of exceptions)
 *   task.c    the task-object API, running a task and its bypass chain, spawning, waiting, the
 *             work source the core's idle loop asks, and the core's steal hook (context frames)
 *   views.c   reducer views in groups: each task's own, folded in serial order at the wait
 *   deque.c   each worker's split deque of ready task objects (owner LIFO and private, thieves
 *             FIFO from the public part); the owner's fast paths are inline below
 *   storage.c task objects from per-worker free lists, and each worker's graph state
 * All of them may call src/core, src/sys and the runtime's memory (alloc/mem.h). */
#ifndef MERINO_GRAPH_INTERNAL_H
#define MERINO_GRAPH_INTERNAL_H

#define MERINO_GRAPH_NO_INLINE /* the library defines the functions the header's macros replace */
#include "core/core.h"
#include "merino_graph.h"
#include "graph/prof_hooks.h" /* the profiler's hooks: nothing in the default build */

#include <stddef.h>

/* ---- a task object's life ----------------------------------------------------------------------- */

/* merino__state: ALLOCATED (made, or recycled and set up again), READY (in a deque), RUNNING
 * (its execute is on a C stack), WAITING (running, inside merino_task_wait_for_all: its count's
 * extra one is the wait's, which drops it by no read-modify-write), RECYCLED_CHILD /
 * RECYCLED_CONT (running, and kept after it returns), ANCHOR (a group's or a root wait's count:
 * never runs), FREE (on a free list). A running task's children read its state (relaxed atomics
 * wherever it may change while they run). */
enum {
    MRN_T_ALLOCATED = MERINO__T_ALLOCATED, /* the values the header's inline code sets */
    MRN_T_READY = MERINO__T_READY,
    MRN_T_RUNNING = 3,
    MRN_T_RECYCLED_CHILD = MERINO__T_RECYCLED_CHILD,
    MRN_T_RECYCLED_CONT = MERINO__T_RECYCLED_CONT,
    MRN_T_ANCHOR,
    MRN_T_FREE,
    MRN_T_WAITING,
};

/* Free-list classes: blocks of 128, 256, 512 and 1024 bytes (header included); larger tasks, and
 * tasks allocated by threads outside the pool, come from merino's allocator one by one (class
 * MRN_CLASS_MALLOC). */
#define MRN_NCLASSES 4
#define MRN_CLASS_MALLOC 0xFFFF
/* Set in merino__class while the task has a destroy function: the free's fast path then fails on
 * its one compare of class and owner (no separate test of the function). */
#define MRN_CLASS_DESTROY 0x8000
#define MRN_OWNER_NONE 0xFFFF
/* Blocks come from merino's allocator in chunks of 63 lines of 128 bytes: with the slack of a
 * 64-byte alignment, its largest small class (8192 bytes, two per 16 KB block; 64 bytes spare). */
#define MRN_CHUNK_BYTES 8064
/* Context frames recorded per worker: nested task-object runs on one C stack (each nested wait is
 * one level deeper); a frame beyond them is counted, not recorded (its direct tasks, if stolen,
 * get the innermost recorded context). */
#define MRN_FRAMES 128
_Static_assert(sizeof(merino_task) == 64, "the task header is one cache line");
_Static_assert(MERINO_MAX_WORKERS <= MRN_OWNER_NONE, "worker indexes fit merino__owner");
_Static_assert((MERINO_TASK_DEQUE & (MERINO_TASK_DEQUE - 1)) == 0, "the deque is a power of two");

/* ---- a worker's graph state ----------------------------------------------------------------------- */

/* One per worker index, made by the first thread that runs task objects as that worker and kept
 * for the life of the process (pools may stop and start again; the caller slot passes between
 * threads, one at a time). */
typedef struct mrn_gworker {
    /* The deque (deque.c): thieves take at top (oldest), the owner pushes and pops at bottom.
     * [top, split) is public (thieves may take it), [split, bottom) private (the owner's alone). */
    _Alignas(MRN_CACHE_LINE) int64_t top; /* atomic: thieves' CAS, and the owner's for the last public task */
    int64_t split;                        /* atomic: written by the owner only */
    _Alignas(MRN_CACHE_LINE) uint32_t want; /* atomic: a thief found nothing public (a request) */
    /* The owner's line: bottom, its copies of split and top, the free lists (merino_graph.h's
     * inline fast paths read and write these through merino__gcur; their slot and depth follow). */
    _Alignas(MRN_CACHE_LINE) merino__gfast fast;
    merino_task *slot[MERINO_TASK_DEQUE];    /* atomic elements */
    int32_t depth[MERINO_TASK_DEQUE];        /* atomic elements: the depth of slot[i]'s task, if public */
    /* The owner's alone (flow.c): the graph node task it last pushed into slot i, its graph and
     * that node's level (longest path to a sink). A hint: valid while slot[i] still holds that
     * task. The graph: a node of another graph (a graph run inside a node) is never taken. */
    merino_task *node_task[MERINO_TASK_DEQUE];
    const void *node_graph[MERINO_TASK_DEQUE];
    uint32_t node_level[MERINO_TASK_DEQUE];
    /* atomic elements: the isolated region of slot[i]'s task (its group's), if public: written by
     * the publish, read by a thief in a region before it takes the task, as depth */
    mrn_region *region[MERINO_TASK_DEQUE];

    /* Context frames (task.c): where on this worker's direct task stack each running task
     * object (or stolen direct task) began, and the task object whose context the direct tasks
     * spawned above that point have — for a thief that steals one of them. The owner pushes and
     * pops; thieves read (docs/graph.md, "Nesting"). */
    _Alignas(MRN_CACHE_LINE) uint32_t nframes; /* atomic: frames pushed (may exceed MRN_FRAMES) */
    struct mrn_frame {
        merino__task *pos; /* atomic: merino__next when the frame began */
        merino_task *ctx;  /* atomic: its context: the running task object, or NULL */
    } frames[MRN_FRAMES];

    /* Free lists (storage.c): the owner's are fast.free_list; blocks freed by other threads come
     * back through remote. */
    _Alignas(MRN_CACHE_LINE) merino_task *remote[MRN_NCLASSES]; /* atomic: Treiber stacks */
    unsigned index;
    uint32_t own_tag; /* index << 16: merino__owner and a merino__class of 0, as one 32-bit word */
} mrn_gworker;
_Static_assert(offsetof(mrn_gworker, slot) == offsetof(mrn_gworker, fast) + sizeof(merino__gfast),
               "the slots follow the fast-path state (merino__gslot)");
_Static_assert(offsetof(mrn_gworker, depth) == offsetof(mrn_gworker, slot) + sizeof(merino_task *) * MERINO_TASK_DEQUE,
               "the depths follow the slots (merino_graph.h's layout)");
_Static_assert(sizeof(((merino__gfast *)0)->free_list) / sizeof(merino_task *) == MRN_NCLASSES,
               "a free list per class");

/* ---- storage.c (fast paths inline: every task object pays for them) ---- */

extern mrn_gworker *mrn_gworkers[MERINO_MAX_WORKERS]; /* atomic elements: by worker index */

/* Worker index i's graph state, or NULL when no thread has run task objects as worker i. */
static inline mrn_gworker *mrn_gworker_at(unsigned i) {
    return __atomic_load_n(&mrn_gworkers[i], __ATOMIC_ACQUIRE); /* acquire: its initialization */
}
/* Makes worker w's graph state and publishes it in mrn_gworkers. */
mrn_gworker *mrn_gworker_make(mrn_worker *w);
/* task.c: makes the calling worker's graph state, after registering the layer's work source;
 * NULL on a thread that is not a worker. */
mrn_gworker *mrn_gworker_make_self(void);
/* The calling thread's graph state, or NULL on a thread that is not a worker. */
static inline mrn_gworker *mrn_gself(void) {
    mrn_worker *w = mrn_self();
    if (MRN_UNLIKELY(w == NULL)) return NULL;
    /* relaxed: only this thread (the index's occupant) stores it */
    mrn_gworker *gw = __atomic_load_n(&mrn_gworkers[w->index], __ATOMIC_RELAXED);
    return MRN_LIKELY(gw != NULL) ? gw : mrn_gworker_make_self();
}

/* The graph state whose fast-path part is f. */
static inline mrn_gworker *mrn_gworker_of(merino__gfast *f) {
    return (mrn_gworker *)((char *)f - offsetof(mrn_gworker, fast));
}
/* The calling worker's graph state, inside a task object's execute only (merino__gcur, which
 * mrn_execute_in sets while a task object runs: no lookup). */
static inline mrn_gworker *mrn_gcur(void) { return mrn_gworker_of(merino__gcur); }

/* The header of a new task: defaults (no parent, no group, count 0). */
static inline void mrn_task_init(merino_task *t, merino_task_fn *fn) { merino__task_init(t, fn, NULL, NULL, 0, 0); }
/* Out of line: an empty free list, a large task, or no graph state (gw NULL). */
merino_task *mrn_task_new_slow(mrn_gworker *gw, merino_task_fn *fn, size_t data_bytes);
/* A task with data_bytes of data, its header set to defaults. Fast path: a pop from the free list
 * of the smallest class (64 bytes of data), with no atomic. */
static inline merino_task *mrn_task_new(mrn_gworker *gw, merino_task_fn *fn, size_t data_bytes) {
    merino_task *t;
    if (MRN_LIKELY(gw != NULL && data_bytes <= 128 - sizeof(merino_task) && (t = gw->fast.free_list[0]) != NULL)) {
        gw->fast.free_list[0] = t->merino__parent;
        mrn_task_init(t, fn);
        return t;
    }
    return mrn_task_new_slow(gw, fn, data_bytes);
}
/* Out of line: a destroy function, another class, another worker's block, or malloc's. */
void mrn_task_delete_slow(mrn_gworker *gw, merino_task *t);
/* Returns t to gw's free list if it is a block of gw's smallest class with no destroy function
 * (one compare of the two 16-bit fields: MRN_CLASS_DESTROY makes it fail), else false. Leaves
 * its state: a task that ran is RUNNING, which a spawn refuses as it refuses FREE. */
static inline bool mrn_task_free_fast(mrn_gworker *gw, merino_task *t) {
    if (MRN_UNLIKELY((t->merino__class | (uint32_t)t->merino__owner << 16) != gw->own_tag)) return false;
    t->merino__parent = gw->fast.free_list[0];
    gw->fast.free_list[0] = t;
    return true;
}
/* Calls the task's destroy function and returns it to its free list (gw: the caller's, or NULL). */
static inline void mrn_task_delete(mrn_gworker *gw, merino_task *t) {
    __atomic_store_n(&t->merino__state, MRN_T_FREE, __ATOMIC_RELAXED); /* relaxed: a debug aid */
    if (MRN_LIKELY(gw != NULL) && mrn_task_free_fast(gw, t)) return;
    mrn_task_delete_slow(gw, t);
}

/* ---- deque.c (the owner's side inline) ---- */

/* The isolated region a task object is work of: its group's (src/core/region.c), or NULL. */
static inline mrn_region *mrn_task_region(const merino_task *t) {
    return t->merino__group ? (mrn_region *)t->merino__group->merino__region : NULL;
}

#define MRN_MASK (MERINO_TASK_DEQUE - 1)

/* Steals the oldest task of victim if it is deeper than above_depth and, when within is not
 * NULL, work of the region within, else NULL. */
merino_task *mrn_deque_steal(mrn_gworker *victim, int32_t above_depth, const mrn_region *within);
/* The owner takes its own oldest public task, at index t (top as it read it, below its split), as
 * a thief would; NULL when a thief took it first. */
merino_task *mrn_deque_take_top(mrn_gworker *gw, int64_t t);
/* Whether gw's deque holds a task (seq_cst reads, for the sleep check). */
bool mrn_deque_nonempty(mrn_gworker *gw);

/* Makes every task of gw's deque public (a thief asked, or the owner is about to wait outside the
 * graph layer). Owner only. */
static inline void mrn_deque_publish(mrn_gworker *gw) {
    int64_t b = __atomic_load_n(&gw->fast.bottom, __ATOMIC_RELAXED); /* relaxed: ours */
    if (b != gw->fast.own_split) {
        /* the depths thieves read (a push does not write them: most tasks are never published).
         * relaxed: published by the release below; the slots and headers are ours while private */
        for (int64_t i = gw->fast.own_split; i < b; i++) {
            merino_task *x = __atomic_load_n(&gw->slot[i & MRN_MASK], __ATOMIC_RELAXED); /* relaxed: our own store */
            __atomic_store_n(&gw->depth[i & MRN_MASK], x->merino__depth, __ATOMIC_RELAXED);
            __atomic_store_n(&gw->region[i & MRN_MASK], mrn_task_region(x), __ATOMIC_RELAXED); /* relaxed: likewise */
        }
        gw->fast.own_split = b;
        /* release: the slots and the tasks' headers and data, for a thief's acquire of split */
        __atomic_store_n(&gw->split, b, __ATOMIC_RELEASE);
    }
    /* relaxed: a hint; a thief asks again. Cleared only when set: thieves write the line */
    if (__atomic_load_n(&gw->want, __ATOMIC_RELAXED)) __atomic_store_n(&gw->want, 0, __ATOMIC_RELAXED);
}

/* Publishes gw's private tasks if a thief asked. Owner only: at every push, pop and task run. */
static inline void mrn_deque_poll(mrn_gworker *gw) {
    /* relaxed: a request carries no data (the thief reads split with acquire) */
    if (MRN_UNLIKELY(__atomic_load_n(&gw->want, __ATOMIC_RELAXED))) mrn_deque_publish(gw);
}

/* Pushes t at bottom, private; false when the deque is full. Owner only. No fence and no
 * read-modify-write: thieves do not look at or above split. */
static inline bool mrn_deque_push(mrn_gworker *gw, merino_task *t) {
    if (MRN_UNLIKELY(!merino__deque_try_push(&gw->fast, t))) {
        /* acquire: a thief's CAS of top is before our reuse of the slot it freed */
        gw->fast.own_limit = __atomic_load_n(&gw->top, __ATOMIC_ACQUIRE) + MERINO_TASK_DEQUE;
        if (!merino__deque_try_push(&gw->fast, t)) return false;
    }
    mrn_deque_poll(gw);
    return true;
}

/* Out of line: the newest task is public (deque.c). */
merino_task *mrn_deque_pop_public(mrn_gworker *gw, int64_t b, int32_t above_depth);

/* Pops the newest task if it is deeper than above_depth, else NULL. Owner only. A private task
 * costs no fence and no read-modify-write; a public one is raced for with the thieves. */
/* mrn_deque_pop without the poll of requests, for a caller that polls before it runs the task. */
static inline merino_task *mrn_deque_pop_unpolled(mrn_gworker *gw, int32_t above_depth) {
    int64_t b = __atomic_load_n(&gw->fast.bottom, __ATOMIC_RELAXED) - 1; /* relaxed: ours */
    if (MRN_UNLIKELY(b < gw->fast.own_split)) return mrn_deque_pop_public(gw, b, above_depth);
    merino_task *x = __atomic_load_n(&gw->slot[b & MRN_MASK], __ATOMIC_RELAXED); /* relaxed: our own store */
    if (x->merino__depth <= above_depth) return NULL; /* plain: a private task's header is ours */
    __atomic_store_n(&gw->fast.bottom, b, __ATOMIC_RELAXED); /* relaxed: ours */
    return x;
}

static inline merino_task *mrn_deque_pop(mrn_gworker *gw, int32_t above_depth) {
    merino_task *x = mrn_deque_pop_unpolled(gw, above_depth);
    mrn_deque_poll(gw);
    return x;
}

/* ---- task.c ---- */

/* The task object running on this thread (innermost), or NULL: its depth bounds the waits. */
merino_task *mrn_graph_current(void);
/* The context of code running here: the task object whose group a group made here nests in (the
 * innermost frame's: a task object running here, or the one that spawned the stolen direct task
 * running here), or NULL. */
merino_task *mrn_graph_context(void);
/* Registers the graph's work source with the core (once; cheap after the first call). */
void mrn_graph_init(void);
/* Makes t ready on gw: queued, or run at once when the deque is full. */
void mrn_spawn(mrn_gworker *gw, merino_task *t);
/* The same, and every task of gw's deque public at once (for a task a thief should not have to
 * ask for: a graph node beside the one this worker runs next). */
static inline void mrn_spawn_public(mrn_gworker *gw, merino_task *t) {
    mrn_spawn(gw, t);
    mrn_deque_publish(gw);
}
/* Runs t, then the tasks it returns (bypass) and those its completion makes ready, then our newest
 * tasks deeper than depth while the anchor's count (a wait's) is not 1. */
void mrn_execute_in(mrn_gworker *gw, merino_task *t, const merino_task *anchor, int32_t depth);
/* The anchor of a chain that takes no further task: its count is always 1. */
extern merino_task mrn_no_chain;
/* Runs t, then the tasks it returns (bypass) and those its completion makes ready. */
static inline void mrn_execute(mrn_gworker *gw, merino_task *t) { mrn_execute_in(gw, t, &mrn_no_chain, 0); }
/* Runs other tasks until anchor's count is 1, stealing only tasks deeper than depth. */
void mrn_wait_loop(mrn_gworker *gw, merino_task *anchor, int32_t depth);
static inline void mrn_wait_for(mrn_gworker *gw, merino_task *anchor, int32_t depth) {
    /* acquire: pairs with the children's release decrements: their results */
    if (__atomic_load_n(&anchor->merino__refs, __ATOMIC_ACQUIRE) != 1) mrn_wait_loop(gw, anchor, depth);
}
/* Groups flagged now: cancelled, or with a failure (each counted once from the flag's setting to its
 * reset by a wait; a group abandoned flagged stays counted: slower checks, not wrong ones). While it
 * is 0, no check walks a chain of groups. Incremented by the thread that sets the flag, right
 * after, so whoever is ordered after that by happens-before sees a count above 0 too; a check that
 * races with a cancel may miss it, as it may miss the flag (relaxed all through). */
extern uint32_t mrn_flagged_groups; /* atomic */
/* Whether any group is flagged (mrn_ctx_cancelled is false while none is). */
static inline bool mrn_ctx_flagged(void) {
    /* relaxed: as the flags (a group flagged before this task was made ready, by this thread or one
     * it synchronized with since, was counted before that) */
    return __atomic_load_n(&mrn_flagged_groups, __ATOMIC_RELAXED) != 0;
}
/* Whether the context (group, seq) is cancelled: g or a group it is nested in was cancelled, or
 * a task before seq (in run order) failed. */
bool mrn_ctx_cancelled(const merino_task_group *g, uint64_t seq);
/* Runs fn(arg) on a worker: here if this thread is one, else entering the pool (MERINO_RUN's way). */
void mrn_on_worker(void (*fn)(void *), void *arg);

/* ---- views.c: reducer views in groups (costs a load and a compare per run and per task) ---- */

void mrn_group_views_cut(merino_task_group *g, uint64_t seq);
void mrn_task_views_keep(merino_task *t, void *map);
void mrn_group_views_wait(merino_task_group *g);
/* A run of g numbered seq: the strand's views so far come before the task. */
static inline void mrn_group_views_run(merino_task_group *g, uint64_t seq) {
    if (MRN_UNLIKELY(merino__views != NULL)) mrn_group_views_cut(g, seq);
}
/* After a task object ran with a map of its own (mrn_views_enter before it): the runner's back. */
static inline void mrn_task_views_leave(merino_task *t, void *saved) {
    void *m = merino__views;
    merino__views = saved;
    if (MRN_UNLIKELY(m != NULL)) mrn_task_views_keep(t, m);
}

/* ---- group.c ---- */

/* A task of g with the order seq (counted in g from now on: spawn it, or undo with
 * merino__group_discard). */
merino_task *mrn_group_task(merino_task_group *g, merino_task_fn *fn, size_t data_bytes, uint64_t seq);
/* Waits for g on this worker (the calling thread is one) and resets it; MERINO_COMPLETE or
 * MERINO_CANCELED. */
int mrn_group_wait_here(merino_task_group *g);

#endif
