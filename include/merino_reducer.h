/* merino_reducer.h — reducers (OpenCilk's reducer hyperobjects) for C11 tasks (C++:
 * merino_reducer.hpp, which also has combinable and enumerable_thread_specific).
 *
 *     static void zero(void *v, void *ctx) { *(long *)v = 0; }
 *     static void add(void *l, void *r, void *ctx) { *(long *)l += *(long *)r; }
 *     static const merino_hyper_ops sum_ops = {sizeof(long), 0, zero, add, NULL};
 *
 *     merino_hyper *sum = merino_hyper_new(&sum_ops, NULL);
 *     MERINO_RUN(walk, tree, sum);          // tasks do *(long *)merino_hyper_view(sum) += x
 *     long total = *(long *)merino_hyper_get(sum);
 *     merino_hyper_free(sum);
 *
 * A reducer gives each strand of the computation a view of its own: merino_hyper_view returns the
 * calling strand's, which no other thread touches meanwhile, so updates need no lock. Views are
 * made (identity) only where work was stolen, and folded with reduce in serial order where that
 * work is joined, so that after the parallel work has joined, merino_hyper_get returns exactly what
 * the serial program computes, even when reduce is not commutative (list append, string
 * concatenation); reduce must be associative, and the identity a true identity of it.
 *
 * THE SERIAL PROGRAM. In merino the spawned task of a MERINO_SPAWN ... MERINO_JOIN pair comes, in
 * serial order, at its MERINO_JOIN: the serial program of
 *     A; MERINO_SPAWN(f, x); B; r = MERINO_JOIN(f); C;
 * is A; B; r = f(x); C; — what one worker runs, and what fork_join(g, h) means in C++ (g, then h:
 * h is the spawned branch). Parallel loops (the default schedule, auto/adaptive, and static with
 * one block per worker) fold in iteration order. Task groups and task objects are not covered:
 * a view taken in a task object is its own strand's, see docs/algorithms.md.
 *
 * THE PROTOCOL (src/core/views.c, src/algo/reducer.c; modelled exhaustively by
 * tests/test_reducer_model.c). Each thread holds the map of views of the strand it runs
 * (merino__views; NULL until a reducer is used). Wool's direct task stack lets thieves take the
 * spawned task (the child); the owner goes on with the continuation. Then:
 *  1. A spawn and an inline join do nothing: an unstolen child runs at its join on the owner, in
 *     the owner's map, which is exactly its place in serial order (after the continuation B).
 *  2. A thief runs the stolen child f with an empty map M_f (views appear as f asks for them, as
 *     the identity), and when f returns it leaves M_f in a slot beside the descriptor, before its
 *     release store of DONE; its own map is put back (a thief may be a leapfrogging owner).
 *  3. The owner's join of a stolen child (the slow join, after the acquire of DONE) folds M_f into
 *     its own map M: for each view v_f, M's view v = v (+) v_f (or v_f itself when M has none:
 *     a missing view is the identity). M then holds A; B; and f, in this order: M held A and B
 *     when the join began (B ran on this worker, between the spawn and the join, and whatever B
 *     joined from thieves was folded there by this same rule), and f follows B in serial order.
 *     C goes on in M.
 *  4. A root task (MERINO_RUN from outside the pool, merino::run, a loop entered from outside) runs
 *     with an empty map too; when it returns, each view is folded into its reducer's own view
 *     (the leftmost: what the code outside the runs sees), which holds what came before the run.
 * By induction on the spawn tree every map holds the fold of its strand's updates in serial order,
 * and after the work has joined, the root's map (then the reducer's own view) holds the serial
 * program's. Costs: a view lookup (one compare with the last view looked up, else a search of the
 * map), a load and a compare per steal and per stolen join, a fold per stolen join whose child
 * used reducers. Spawn and the inline join are unchanged.
 *
 * Rules: a view is valid until the strand's next spawn, join, fork_join or loop (take it again
 * after those: it may have moved); merino_hyper_get only where every update has joined — in the
 * code that made the reducer, after its parallel work, or outside the runs; free it there too.
 * Two runs from different threads at once must not update the same reducer.
 *
 * Names: merino_* and MERINO_* are the API; merino__* is internal. */
#ifndef MERINO_REDUCER_H
#define MERINO_REDUCER_H

#include "merino.h"
#include "merino/internal/views.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What a reducer's views are and how they combine. */
typedef struct merino_hyper_ops {
    size_t size;  /**< bytes of a view (> 0) */
    size_t align; /**< their alignment, a power of two; 0: that of max_align_t */
    /** Makes the view at `view` (size bytes, uninitialized) the identity. */
    void (*identity)(void *view, void *ctx);
    /** left = left (+) right, where right's updates follow left's in serial order; right is
     *  destroyed afterwards (destroy) and its memory freed. Associative. */
    void (*reduce)(void *left, void *right, void *ctx);
    /** Ends a view before its memory is freed (views that own memory), or NULL. */
    void (*destroy)(void *view, void *ctx);
} merino_hyper_ops;

/** A reducer (opaque). */
typedef struct merino_hyper merino_hyper;

/** Makes a reducer whose own view (the one the serial code before and after the parallel work
 *  sees) is the identity. ops is copied; ctx is passed to its functions. Bad ops (size 0, an
 *  alignment that is not a power of two, identity or reduce NULL) stop the program with a
 *  message; out of memory: NULL. Call it anywhere, tasks included. */
MERINO_API merino_hyper *merino_hyper_new(const merino_hyper_ops *ops, void *ctx);

/** The calling strand's view: on a worker, the view of the task running there (made the identity
 *  on first use in that strand); outside the pool, the reducer's own view. Valid until the
 *  strand's next spawn, join, fork_join or loop. */
MERINO_API void *merino_hyper_view(merino_hyper *h);

/** The result: once every update has joined (see the rules above), the serial program's fold of
 *  every update since merino_hyper_new, in the reducer's own view. Updates may go on after it. */
MERINO_API void *merino_hyper_get(merino_hyper *h);

/** Ends the reducer and its views (after its parallel work has joined, as merino_hyper_get). */
MERINO_API void merino_hyper_free(merino_hyper *h);

/* Internal: the head of a strand's map of views (src/algo/reducer.c), which the C++ header's
 * inline view() reads: the reducer looked up last and its view. */
typedef struct merino__vmap_head {
    const merino_hyper *last;
    void *last_view;
} merino__vmap_head;

#ifdef __cplusplus
}
#endif

#endif
