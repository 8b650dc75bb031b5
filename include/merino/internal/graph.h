/* merino/internal/graph.h — the inline half of merino_graph.h: the exported internals that
 * merino_graph.hpp calls, and the task-object API's inline fast paths (a worker's deque and free
 * lists, reached through merino__gcur), which the macros of merino_graph.h put in place of calls.
 * INTERNAL: included by merino_graph.h, never directly; not API, changed in any release. */
#ifndef MERINO_INTERNAL_GRAPH_H
#define MERINO_INTERNAL_GRAPH_H

#ifndef MERINO_GRAPH_H
#error "include <merino_graph.h>, not merino/internal/graph.h"
#endif

/* ---- internal, for merino_graph.hpp ---- */

/** The task object running on this thread (innermost), or NULL. */
MERINO_API merino_task *merino__task_current(void);
/** The group a graph runs its nodes in (its failures are taken from it after a run). */
MERINO_API merino_task_group *merino__graph_group(merino_graph *g);
/** Sets whether this thread's errors are only recorded (merino_last_error), not printed; returns
 *  the previous setting. Around graph calls that run no user code: the C++ exception carries the
 *  message. */
MERINO_API int merino__graph_quiet(int quiet);
/** merino_graph_run, its refusal recorded, not printed (the nodes' own errors print as usual). */
MERINO_API int merino__graph_run_quiet(merino_graph *g);

/** Records that the task t failed with err (C++: a heap-held exception): kept if t is the first
 *  failure in serial order, else dropped with drop; cancels the tasks after it. */
MERINO_API void merino__task_fail(merino_task *t, void *err, void (*drop)(void *));
/** Takes g's error (after a wait), or NULL. */
MERINO_API void *merino__group_take_error(merino_task_group *g);
/** Runs root as the one task of g (with the order 0) and waits for g. */
MERINO_API int merino__group_run_root(merino_task_group *g, merino_task *root);
/** Runs first (a task of g from merino__group_alloc, not spawned) at once on this worker, then
 *  waits for g (from any thread: it enters the pool). */
MERINO_API int merino__group_wait_after(merino_task_group *g, merino_task *first);
/** Allocates a task of g with data_bytes of data; merino__group_spawn makes it ready (it counts in g
 *  from the allocation). */
MERINO_API merino_task *merino__group_alloc(merino_task_group *g, merino_task_fn *fn, size_t data_bytes);
MERINO_API void merino__group_spawn(merino_task *t);
/** Undoes merino__group_alloc for a task that will not be spawned (its closure's copy threw). */
MERINO_API void merino__group_discard(merino_task *t);

/* ---- internal: the inline fast paths of the task-object API ----
 * While a task object runs on a worker, merino__gcur points at that worker's part of the graph
 * state that the fast paths below use (the rest is in src/graph/graph.h); elsewhere it points at a
 * state that makes every fast path fail (no free block, a full deque: no test of NULL), and every
 * call takes the out-of-line function of the same name, which does the same and more (errors,
 * other size classes, threads outside the pool). The macros at the end send the API's calls here;
 * define MERINO_GRAPH_NO_INLINE before including this header to call the library directly. */

/* A task object's states (merino__state) that the inline code sets. */
#define MERINO__T_ALLOCATED 1
#define MERINO__T_READY 2
#define MERINO__T_RECYCLED_CHILD 4
#define MERINO__T_RECYCLED_CONT 5

typedef struct merino__gfast {
    int64_t bottom;                 /* atomic: the deque's bottom, written by the owner only */
    int64_t own_split;              /* the owner's copy of split */
    int64_t own_limit;              /* the owner's last view of top (a lower bound) + MERINO_TASK_DEQUE */
    uint32_t *want;                 /* atomic target: set by a thief that found nothing public */
    merino_task *free_list[4];      /* the owner's free lists, by size class (128 << c bytes) */
    /* (outside task objects: bottom = own_limit and empty free lists) */
    /* then, in the runtime's layout: merino_task *slot[MERINO_TASK_DEQUE] (atomic elements) and
     * int32_t depth[MERINO_TASK_DEQUE] (atomic elements: the depth of slot[i]'s task, for thieves:
     * written when the task is published, not by a push) */
} merino__gfast;

extern MERINO_API __thread merino__gfast *merino__gcur __attribute__((tls_model("initial-exec")));

/** Publishes the calling worker's private tasks (a thief asked). */
MERINO_API void merino__graph_publish(void);

static inline merino_task **merino__gslot(merino__gfast *f) { return (merino_task **)(f + 1); }

/* Pushes t private at the bottom of f's deque (no fence, no read-modify-write: thieves do not look
 * at or above split; its depth, which they read, is written when it is published); 0, pushing
 * nothing, when the owner's view of top says it may be full. */
static inline int merino__deque_try_push(merino__gfast *f, merino_task *t) {
    int64_t b = __atomic_load_n(&f->bottom, __ATOMIC_RELAXED); /* relaxed: ours */
    if (__builtin_expect(b >= f->own_limit, 0)) return 0;
    __atomic_store_n(&merino__gslot(f)[b & (MERINO_TASK_DEQUE - 1)], t, __ATOMIC_RELAXED); /* relaxed: private until a publish's release */
    __atomic_store_n(&f->bottom, b + 1, __ATOMIC_RELAXED); /* relaxed: thieves read it as a hint */
    return 1;
}

/* A header set up from the block t (its destroy function is NULL already: so is every block's
 * on a free list). Plain stores, the count's and state's too: a block off a free list is this
 * thread's alone (its last user's accesses happen before its free), and the spawn's release
 * publishes the header; plain, the compiler merges them with the stores that follow. */
static inline void merino__task_init(merino_task *t, merino_task_fn *fn, merino_task *parent,
                                     merino_task_group *group, uint64_t seq, int32_t depth) {
    t->merino__execute = fn;
    t->merino__parent = parent;
    t->merino__group = group;
    t->merino__seq = seq;
    t->merino__depth = depth;
    t->merino__refs = 0;
    t->merino__state = MERINO__T_ALLOCATED;
}

/* A block of the smallest class (64 bytes of data) from this worker's free list, or NULL. */
static inline merino_task *merino__task_block(size_t data_bytes) {
    merino__gfast *f = merino__gcur;
    merino_task *t;
    if (__builtin_expect(data_bytes > 128 - sizeof(merino_task) || (t = f->free_list[0]) == NULL, 0)) return NULL;
    f->free_list[0] = t->merino__parent;
    return t;
}

static inline merino_task *merino__task_alloc_child(merino_task *parent, merino_task_fn *fn, size_t data_bytes) {
    merino_task *t = merino__task_block(data_bytes);
    if (__builtin_expect(t == NULL, 0)) return merino_task_alloc_child(parent, fn, data_bytes);
    merino__task_init(t, fn, parent, parent->merino__group, parent->merino__seq, parent->merino__depth + 1);
    return t;
}

static inline merino_task *merino__task_alloc_continuation(merino_task *self, merino_task_fn *fn, size_t data_bytes) {
    merino_task *c = merino__task_block(data_bytes);
    if (__builtin_expect(c == NULL, 0)) return merino_task_alloc_continuation(self, fn, data_bytes);
    merino__task_init(c, fn, self->merino__parent, self->merino__group, self->merino__seq, self->merino__depth);
    self->merino__parent = NULL;
    return c;
}

/** Reports a negative count (debug builds check it here; every build when the count is used). */
MERINO_API void merino__task_bad_count(int count);

static inline void merino__task_set_ref_count(merino_task *t, int count) {
#if MERINO__CHECKS
    if (count < 0) merino__task_bad_count(count);
#endif
    /* plain: no child of t is spawned yet, so no other thread reaches the count (those of an earlier
     * round finished before the wait that ended it); their spawn (the deque's release) or bypass
     * (same thread) publishes it. Plain, it merges with the allocation's store of 0. */
    t->merino__refs = count;
}

static inline void merino__task_spawn(merino_task *t) {
    merino__gfast *f = merino__gcur;
    /* plain: the state is this thread's (allocated here, or made ready to it by a count's acquire) */
    if (__builtin_expect(t->merino__parent != NULL && t->merino__state == MERINO__T_ALLOCATED, 1)) {
        if (__builtin_expect(merino__deque_try_push(f, t), 1)) {
            /* plain: private until a publish's release store, which comes after it */
            t->merino__state = MERINO__T_READY;
            /* relaxed: a request carries no data (the thief reads split with acquire) */
            if (__builtin_expect(__atomic_load_n(f->want, __ATOMIC_RELAXED) != 0, 0)) merino__graph_publish();
            return;
        }
    }
    merino_task_spawn(t); /* errors, a deque that may be full, or not in a task object */
}

static inline void merino__task_recycle_as_child_of(merino_task *self, merino_task *new_parent) {
    self->merino__parent = new_parent;
    self->merino__depth = new_parent->merino__depth + 1;
    /* relaxed: ours; its children (of the round before) may read it (src/graph/task.c) */
    __atomic_store_n(&self->merino__state, MERINO__T_RECYCLED_CHILD, __ATOMIC_RELAXED);
}

static inline void merino__task_recycle_as_continuation(merino_task *self) {
    /* relaxed: ours; its children may read it while it runs (src/graph/task.c, mrn_release_ref) */
    __atomic_store_n(&self->merino__state, MERINO__T_RECYCLED_CONT, __ATOMIC_RELAXED);
}

#ifndef MERINO_GRAPH_NO_INLINE
#define merino_task_alloc_child(parent, fn, data_bytes) merino__task_alloc_child(parent, fn, data_bytes)
#define merino_task_alloc_continuation(self, fn, data_bytes) merino__task_alloc_continuation(self, fn, data_bytes)
#define merino_task_set_ref_count(t, count) merino__task_set_ref_count(t, count)
#if !MERINO__PROFILE /* the profiled build spawns in the library, which records where a task's path begins */
#define merino_task_spawn(t) merino__task_spawn(t)
#endif
#define merino_task_recycle_as_child_of(self, new_parent) merino__task_recycle_as_child_of(self, new_parent)
#define merino_task_recycle_as_continuation(self) merino__task_recycle_as_continuation(self)
#endif

#endif
