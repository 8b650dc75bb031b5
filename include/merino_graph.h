/* merino_graph.h — task objects (the TBB scheduler model), task groups and dependency graphs, on
 * merino's workers.
 *
 * Task objects are for computations that are not strictly nested: a task has an execute function,
 * a parent and a reference count; it may hand its work to a continuation and return (continuation
 * passing), return the next task to run (scheduler bypass) and be reused (recycling).
 *
 *     typedef struct { long n, *sum; } fib_args;
 *     static merino_task *fib(merino_task *self) {
 *         fib_args *a = merino_task_data(self);
 *         if (a->n < 2) { *a->sum = a->n; return NULL; }
 *         long x, y;
 *         merino_task *c1 = merino_task_alloc_child(self, fib, sizeof(fib_args));
 *         merino_task *c2 = merino_task_alloc_child(self, fib, sizeof(fib_args));
 *         *(fib_args *)merino_task_data(c1) = (fib_args){a->n - 1, &x};
 *         *(fib_args *)merino_task_data(c2) = (fib_args){a->n - 2, &y};
 *         merino_task_set_ref_count(self, 3);            // two children + one for the wait
 *         merino_task_spawn(c2);
 *         merino_task_spawn_and_wait_for_all(self, c1);
 *         *a->sum = x + y;
 *         return NULL;
 *     }
 *     ...
 *     merino_task *root = merino_task_alloc_root(fib, sizeof(fib_args));
 *     merino_task_spawn_root_and_wait(root);          // from any thread; starts the pool if needed
 *
 * Task groups run any number of closures and wait for all of them:
 *
 *     merino_task_group g;
 *     merino_task_group_init(&g);
 *     for (node *p = list; p; p = p->next) merino_task_group_run(&g, visit, p);
 *     merino_task_group_wait(&g);
 *
 * Dependency graphs (merino_graph_*) run nodes with explicit edges, any number of times.
 *
 * All of them work from any thread: on a worker (inside a task of either model) the calling worker
 * helps; from a thread outside the pool the wait enters the pool as MERINO_RUN does. docs/graph.md
 * has the scheduling rules, the guarantees and the test of each. C++: merino_graph.hpp. */
#ifndef MERINO_GRAPH_H
#define MERINO_GRAPH_H

#include "merino.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------------
 * Task objects
 * ---------------------------------------------------------------------------------------------- */

typedef struct merino_task merino_task;
typedef struct merino_task_group merino_task_group;

/** What a task does. Returns the next task to run on this worker at once (scheduler bypass: a task
 *  that is ready — allocated, its count zero, not spawned), or NULL. */
typedef merino_task *merino_task_fn(merino_task *self);
/** Called when a task object is freed (after it ran, or when it was cancelled before it started):
 *  destroys what its data holds. */
typedef void merino_task_destroy_fn(merino_task *self);

/** The header of a task object; its data (merino_task_data) follows it. The fields are merino's:
 *  use the functions below. */
struct merino_task {
    merino_task_fn *merino__execute;
    merino_task_destroy_fn *merino__destroy;
    merino_task *merino__parent;
    merino_task_group *merino__group; /* the cancellation and exception context */
    uint64_t merino__seq;             /* order of the task's first ancestor in merino__group */
    int32_t merino__refs;             /* atomic: the reference count */
    uint32_t merino__state;           /* atomic once it runs: allocated, ready, running, recycled, freed */
    int32_t merino__depth;            /* 1 + the parent's depth: the stealing rule (docs/graph.md) */
    uint16_t merino__class;           /* the free list it returns to */
    uint16_t merino__owner;           /* the worker whose free list it belongs to */
    uint64_t merino__prof;            /* atomic: the profiler's record of the task (libmerino_prof) */
} __attribute__((aligned(64)));

/** The largest data a task object takes from merino's free lists (a larger one costs a malloc). */
#define MERINO_TASK_DATA_MAX (1024 - 64)

/** The task's data: data_bytes bytes, 16-byte aligned, uninitialized. */
static inline void *merino_task_data(merino_task *t) { return (void *)(t + 1); }

/** A task with no parent, to run with merino_task_spawn_root_and_wait. From any thread. */
MERINO_API merino_task *merino_task_alloc_root(merino_task_fn *fn, size_t data_bytes);
/** A child of parent: when it finishes, parent's count goes down by one. Set the parent's count
 *  (merino_task_set_ref_count) before spawning any of its children. */
MERINO_API merino_task *merino_task_alloc_child(merino_task *parent, merino_task_fn *fn, size_t data_bytes);
/** A continuation of self (continuation passing): it takes self's place as the child of self's
 *  parent (self now has none); allocate the children as its children, set its count to their
 *  number, spawn them and return: the continuation runs when its count reaches zero. */
MERINO_API merino_task *merino_task_alloc_continuation(merino_task *self, merino_task_fn *fn, size_t data_bytes);
/** Frees a task that was allocated and never spawned (nor returned for bypass). */
MERINO_API void merino_task_free(merino_task *t);
/** Sets what the task calls when it is freed (NULL: nothing). */
MERINO_API void merino_task_set_destroy(merino_task *t, merino_task_destroy_fn *fn);

/** Sets t's reference count: its children (plus one when t will wait for them with
 *  merino_task_wait_for_all or merino_task_spawn_and_wait_for_all). Before any child is spawned. */
MERINO_API void merino_task_set_ref_count(merino_task *t, int count);
/** The current count (a snapshot). */
MERINO_API int merino_task_ref_count(const merino_task *t);
/** The task's parent, or NULL. */
MERINO_API merino_task *merino_task_parent(const merino_task *t);

/** Makes t ready: some worker will run it (this one first, newest first; others steal oldest
 *  first). Inside a task only. */
MERINO_API void merino_task_spawn(merino_task *t);
/** Waits until self's count is 1 (all its children finished), running other tasks meanwhile;
 *  then sets it to 0. Inside self's execute only. */
MERINO_API void merino_task_wait_for_all(merino_task *self);
/** merino_task_spawn(child) (if not NULL), then merino_task_wait_for_all(self). */
MERINO_API void merino_task_spawn_and_wait_for_all(merino_task *self, merino_task *child);
/** Runs root (a task from merino_task_alloc_root) and everything it spawns until root has finished
 *  and its continuations too. From any thread, inside tasks included. Returns MERINO_COMPLETE, or
 *  MERINO_CANCELED when its tasks were cancelled (merino_task_cancel). */
MERINO_API int merino_task_spawn_root_and_wait(merino_task *root);

/** Recycling: self is not freed when its execute returns. As a child of new_parent: execute must
 *  return self (bypass), having set it up again, and it then counts as one of new_parent's
 *  children. */
MERINO_API void merino_task_recycle_as_child_of(merino_task *self, merino_task *new_parent);
/** As its own continuation: set self's count to its new children plus one (the one is dropped when
 *  execute returns, so the count cannot reach zero while it still runs), spawn the children and
 *  return; self runs again (execute is called again) when its count reaches zero. */
MERINO_API void merino_task_recycle_as_continuation(merino_task *self);
/** Replaces the function the task runs (for a task recycled as its own continuation, say). */
MERINO_API void merino_task_set_execute(merino_task *t, merino_task_fn *fn);

/** Cancels the tasks of t's context that have not started: the root's, or the group's whose task
 *  created t (and all groups nested in it). Their execute is not called. */
MERINO_API void merino_task_cancel(merino_task *t);
/** Whether t's context is cancelled (a running task may poll it and stop early). */
MERINO_API int merino_task_is_cancelled(const merino_task *t);

#define MERINO_COMPLETE 0
#define MERINO_CANCELED 1

/* ------------------------------------------------------------------------------------------------
 * Task groups
 * ---------------------------------------------------------------------------------------------- */

/** A task group: lives where it is declared (no allocation); initialize it, run closures, wait.
 *  The fields are merino's. */
struct merino_task_group {
    merino_task merino__anchor;         /* its tasks' parent: count 1 + tasks not finished */
    merino_task_group *merino__outer;   /* the group whose task created this one, or NULL */
    uint64_t merino__outer_seq;         /* ... and that task's order in it */
    uint64_t merino__next_seq;          /* atomic: the order of the next run */
    uint64_t merino__failed_seq;        /* atomic: the first (in run order) task that failed */
    uint32_t merino__cancelled;         /* atomic: cancel() was called, or an outer group was */
    uint32_t merino__lock;              /* atomic: guards the error below (failures only) */
    void *merino__error;                /* the failure of merino__failed_seq (C++: an exception) */
    void (*merino__drop_error)(void *); /* frees an error that a serially earlier one replaced */
    void *merino__region;               /* the isolated region it was made in (merino_isolate), or NULL */
    void *merino__views;                /* reducer views of its tasks, folded at the wait (under lock) */
};

/** Prepares g. Call it where the group will be used: a group created in a task is nested in that
 *  task's group (cancelling that cancels g). */
MERINO_API void merino_task_group_init(merino_task_group *g);
/** Runs fn(arg) as a task of g (from any thread). When the calling worker holds many tasks not yet
 *  started (MERINO_TASK_DEQUE), fn runs at once instead: a loop that runs one task per element of a
 *  long list needs bounded memory. */
MERINO_API void merino_task_group_run(merino_task_group *g, void (*fn)(void *), void *arg);
/** Waits for every task run in g, helping meanwhile. Returns MERINO_COMPLETE, or MERINO_CANCELED
 *  when g (or a group it is nested in) was cancelled or a task failed; then resets g for reuse. */
MERINO_API int merino_task_group_wait(merino_task_group *g);
/** Cancels the tasks of g that have not started, and those of the groups nested in g. */
MERINO_API void merino_task_group_cancel(merino_task_group *g);
/** Whether g, or a group it is nested in, is cancelled. */
MERINO_API int merino_task_group_is_canceling(const merino_task_group *g);

/** Tasks a worker holds ready and not started before merino_task_group_run and merino_task_spawn
 *  run a task at once instead of queuing it (a power of two). */
#define MERINO_TASK_DEQUE 4096

/* ------------------------------------------------------------------------------------------------
 * Dependency graphs
 * ---------------------------------------------------------------------------------------------- */

/** A graph of nodes with explicit edges, run as a whole (a node runs once all its predecessors have
 *  finished), as many times as wanted. One run or one change (a node or an edge added) at a time:
 *  a call that would run or change a graph while it runs (from another thread, or from one of its
 *  own nodes) or while another thread changes it is refused with a message saying which. */
typedef struct merino_graph merino_graph;
typedef struct merino_graph_node merino_graph_node;

/** A new empty graph, or NULL when out of memory (merino_last_error says so). */
MERINO_API merino_graph *merino_graph_new(void);
/** Frees the graph and its nodes. Not while it runs or changes: the program then stops with a
 *  message. */
MERINO_API void merino_graph_delete(merino_graph *g);
/** A node that calls fn(arg); name (copied; NULL: "node N") is what errors call it. NULL when out
 *  of memory, or while the graph runs or another thread changes it (merino_last_error says which). */
MERINO_API merino_graph_node *merino_graph_node_new(merino_graph *g, const char *name, void (*fn)(void *), void *arg);
/** The node's name. */
MERINO_API const char *merino_graph_node_name(const merino_graph_node *n);
/** Makes to run after from. Returns 0; or -1, adding nothing, when the edge would close a cycle
 *  (merino_last_error names the nodes on it), when the nodes belong to different graphs, while the
 *  graph runs or another thread changes it, or when out of memory. Cycles are checked edge by edge within a budget of a few steps per node and
 *  edge (chains, trees and grids cost O(1) per edge, whatever order they are built in); a graph
 *  whose edges come in an order that would cost more (random edges over a large graph) stops
 *  being checked edge by edge: its edges are then added as they come, and its next run checks it
 *  whole, in time linear in its size. */
MERINO_API int merino_graph_edge(merino_graph_node *from, merino_graph_node *to);
/** Runs the graph from any thread and waits for it: MERINO_COMPLETE, or MERINO_CANCELED when it
 *  was cancelled (merino_graph_cancel, or an outer group) or a node failed: then the successors of
 *  the nodes not yet finished do not run. -1, running no node (merino_last_error says why), when
 *  the graph has a cycle (one that merino_graph_edge did not check: the message names its nodes),
 *  when it is running already (from another thread, or this is one of its own nodes), or while
 *  another thread changes it. */
MERINO_API int merino_graph_run(merino_graph *g);
/** Cancels the run in flight, from any thread: nodes not started do not run. */
MERINO_API void merino_graph_cancel(merino_graph *g);

#include "merino/internal/graph.h" /* the inline fast paths and what merino_graph.hpp uses */

#ifdef __cplusplus
}
#endif

#endif /* MERINO_GRAPH_H */
