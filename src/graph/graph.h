/* graph.h — internal declarations of merino's graph layer: task objects with reference counts (the
 * TBB scheduler model) and task groups, on the core's workers. Never included by users.
 *
 * Files and the direction of their calls (a file calls only files below it in this list):
 *   flow.c    dependency graphs: nodes, edges (cycles rejected as they are made), runs
 *   group.c   task groups: run, wait, cancel, failures (the serial order of exceptions)
 *   task.c    the task-object API, running a task and its bypass chain, spawning, waiting, and
 *             the work source the core's idle loop asks
 *   deque.c   each worker's deque of ready task objects (owner LIFO, thieves FIFO)
 *   alloc.c   task objects from per-worker free lists, and each worker's graph state
 * All of them may call src/core and src/sys. */
#ifndef MERINO_GRAPH_INTERNAL_H
#define MERINO_GRAPH_INTERNAL_H

#include "core/core.h"
#include "merino_graph.h"

/* ---- a task object's life ----------------------------------------------------------------------- */

/* merino__state: ALLOCATED (made, or recycled and set up again), READY (in a deque), RUNNING
 * (its execute is on a C stack), RECYCLED_CHILD / RECYCLED_CONT (running, and kept after it
 * returns), ANCHOR (a group's or a root wait's count: never runs), FREE (on a free list). */
enum {
    MRN_T_ALLOCATED = 1,
    MRN_T_READY,
    MRN_T_RUNNING,
    MRN_T_RECYCLED_CHILD,
    MRN_T_RECYCLED_CONT,
    MRN_T_ANCHOR,
    MRN_T_FREE,
};

/* Free-list classes: blocks of 128, 256, 512 and 1024 bytes (header included); larger tasks, and
 * tasks allocated by threads outside the pool, come from malloc (class MRN_CLASS_MALLOC). */
#define MRN_NCLASSES 4
#define MRN_CLASS_MALLOC 0xFFFF
#define MRN_OWNER_NONE 0xFFFF
#define MRN_CHUNK_BYTES 16384 /* blocks come from malloc in chunks of this many bytes */
_Static_assert(sizeof(merino_task) == 64, "the task header is one cache line");
_Static_assert(MERINO_MAX_WORKERS <= MRN_OWNER_NONE, "worker indexes fit merino__owner");
_Static_assert((MERINO_TASK_DEQUE & (MERINO_TASK_DEQUE - 1)) == 0, "the deque is a power of two");

/* ---- a worker's graph state ----------------------------------------------------------------------- */

/* One per worker index, made by the first thread that runs task objects as that worker and kept
 * for the life of the process (pools may stop and start again; the caller slot passes between
 * threads, one at a time). */
typedef struct mrn_gworker {
    /* The deque (deque.c): thieves take at top (oldest), the owner pushes and pops at bottom. */
    _Alignas(MRN_CACHE_LINE) int64_t top; /* atomic */
    _Alignas(MRN_CACHE_LINE) int64_t bottom; /* atomic: written by the owner only */
    merino_task *slot[MERINO_TASK_DEQUE];    /* atomic elements */
    int32_t depth[MERINO_TASK_DEQUE];        /* atomic elements: the depth of slot[i]'s task */

    /* Free lists (alloc.c): blocks freed by other threads come back through remote. */
    _Alignas(MRN_CACHE_LINE) merino_task *remote[MRN_NCLASSES]; /* atomic: Treiber stacks */
    _Alignas(MRN_CACHE_LINE) merino_task *free_list[MRN_NCLASSES]; /* owner only */
    unsigned index;
} mrn_gworker;

/* ---- alloc.c ---- */

/* The calling thread's graph state, or NULL on a thread that is not a worker. */
mrn_gworker *mrn_gself(void);
/* Worker index i's graph state, or NULL when no thread has run task objects as worker i. */
mrn_gworker *mrn_gworker_at(unsigned i);
/* A task with data_bytes of data, its header set to defaults (no parent, no group, count 0). */
merino_task *mrn_task_new(mrn_gworker *gw, merino_task_fn *fn, size_t data_bytes);
/* Calls the task's destroy function and returns it to its free list (gw: the caller's, or NULL). */
void mrn_task_delete(mrn_gworker *gw, merino_task *t);

/* ---- deque.c ---- */

/* Pushes t at bottom; false when the deque is full. Owner only. */
bool mrn_deque_push(mrn_gworker *gw, merino_task *t);
/* Pops the newest task if it is deeper than above_depth, else NULL. Owner only. */
merino_task *mrn_deque_pop(mrn_gworker *gw, int32_t above_depth);
/* Steals the oldest task of victim if it is deeper than above_depth, else NULL. */
merino_task *mrn_deque_steal(mrn_gworker *victim, int32_t above_depth);
/* Whether gw's deque holds a task (seq_cst reads, for the sleep check). */
bool mrn_deque_nonempty(mrn_gworker *gw);

/* ---- task.c ---- */

/* The task object running on this thread (innermost), or NULL. */
merino_task *mrn_graph_current(void);
/* Registers the graph's work source with the core (once; cheap after the first call). */
void mrn_graph_init(void);
/* Makes t ready on gw: queued, or run at once when the deque is full. */
void mrn_spawn(mrn_gworker *gw, merino_task *t);
/* Runs t, then the tasks it returns (bypass) and those its completion makes ready. */
void mrn_execute(mrn_gworker *gw, merino_task *t);
/* Runs other tasks until anchor's count is 1, stealing only tasks deeper than depth. */
void mrn_wait_for(mrn_gworker *gw, merino_task *anchor, int32_t depth);
/* Whether the context (group, seq) is cancelled: g or a group it is nested in was cancelled, or
 * a task before seq (in run order) failed. */
bool mrn_ctx_cancelled(const merino_task_group *g, uint64_t seq);
/* Runs fn(arg) on a worker: here if this thread is one, else entering the pool (MERINO_RUN's way). */
void mrn_on_worker(void (*fn)(void *), void *arg);

/* ---- group.c ---- */

/* A task of g with the order seq (counted in g from now on: spawn it, or undo with
 * merino__group_discard). */
merino_task *mrn_group_task(merino_task_group *g, merino_task_fn *fn, size_t data_bytes, uint64_t seq);
/* Waits for g on this worker (the calling thread is one) and resets it; MERINO_COMPLETE or
 * MERINO_CANCELED. */
int mrn_group_wait_here(merino_task_group *g);

#endif
