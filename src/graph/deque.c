/* deque.c — each worker's deque of ready task objects: the owner pushes and pops at the bottom
 * (newest first: depth-first work), thieves take at the top (oldest first: breadth-first theft).
 *
 * A split deque: the Chase-Lev deque on a fixed array, with the memory orders of Lê, Pop, Cohen
 * and Zappa Nardelli ("Correct and efficient work-stealing for weak memory models", PPoPP 2013),
 * in which the index thieves read as the bottom is `split`, not the owner's bottom. Tasks pushed
 * above split are private: the owner pushes and pops them with plain stores — no fence, no
 * read-modify-write — as Wool's private tasks (and Lace's split deque). A thief that finds
 * nothing public sets `want`; the owner, which polls it at every push, pop and task run (and
 * before it waits outside this layer: the core's steal hook), then moves split up to bottom with a
 * release store (a publish: a batch of Chase-Lev pushes). When the owner's newest task is public
 * (bottom == split), its pop is Chase-Lev's, with split in bottom's role: split lowered (seq_cst),
 * top read (seq_cst), the last task raced for with a CAS of top. tests/test_graph_deque.c checks
 * every interleaving of a small owner program against two thieves.
 *
 * Indexes only grow (no ABA); a full deque refuses the push (the caller runs the task at once), so
 * a slot is never overwritten while a thief may still take it. Beside each public task its depth,
 * which a worker that waits reads before it takes the task (the stealing rule of docs/graph.md):
 * written by the publish that makes the task public (the owner reads a private task's from its
 * header), read like the task, validated by the same CAS. The owner's fast paths (push, private pop, poll) are inline
 * in graph.h: every task object pays for them. */
#include "graph/graph.h"

merino_task *mrn_deque_pop_public(mrn_gworker *gw, int64_t b, int32_t above_depth) {
    /* b = bottom - 1 = split - 1: the newest task, if any, is public. A peek first: top read
     * relaxed is only a hint, the depth is ours. */
    if (b < __atomic_load_n(&gw->top, __ATOMIC_RELAXED)) return NULL;
    if (__atomic_load_n(&gw->depth[b & MRN_MASK], __ATOMIC_RELAXED) <= above_depth) return NULL; /* relaxed: ours */
    /* seq_cst (this store and the load of top): in one total order with a thief's loads of top
     * and split, so that a thief and we do not both take the last task (Dekker) */
    gw->fast.own_split = b;
    __atomic_store_n(&gw->split, b, __ATOMIC_SEQ_CST);
    __atomic_store_n(&gw->fast.bottom, b, __ATOMIC_RELAXED); /* relaxed: ours */
    int64_t t = __atomic_load_n(&gw->top, __ATOMIC_SEQ_CST); /* seq_cst: see above */
    gw->fast.own_limit = t + MERINO_TASK_DEQUE;
    merino_task *x = __atomic_load_n(&gw->slot[b & MRN_MASK], __ATOMIC_RELAXED); /* relaxed: our own store */
    if (t < b) return x; /* thieves take below split = b only */
    if (t > b || !__atomic_compare_exchange_n(&gw->top, &t, t + 1, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
        x = NULL; /* a thief took it. seq_cst (the CAS): as the store above */
    else
        gw->fast.own_limit = b + 1 + MERINO_TASK_DEQUE;
    /* Empty now (top = b + 1): split and bottom back above it. relaxed: a thief that reads this
     * split reads top = b + 1 first or fails its CAS (top has passed b) */
    gw->fast.own_split = b + 1;
    __atomic_store_n(&gw->split, b + 1, __ATOMIC_RELAXED);
    __atomic_store_n(&gw->fast.bottom, b + 1, __ATOMIC_RELAXED); /* relaxed: ours */
    return x;
}

merino_task *mrn_deque_steal(mrn_gworker *victim, int32_t above_depth, const mrn_region *within) {
    /* seq_cst: see mrn_deque_pop_public; its acquire: the CAS of the thief before us */
    int64_t t = __atomic_load_n(&victim->top, __ATOMIC_SEQ_CST);
    /* seq_cst: see mrn_deque_pop_public; its acquire pairs with a publish's release: the slots,
     * and the tasks' headers and data */
    int64_t s = __atomic_load_n(&victim->split, __ATOMIC_SEQ_CST);
    if (t >= s) {
        /* Nothing public: ask — also when the owner holds no private task yet, so that the next
         * one it pushes is published at once, not after the task it runs next (a graph node that
         * makes two successors ready pushes one and runs the other). relaxed: hints; the
         * publish's release store of split carries the data. Stored only when not set already:
         * the owner reads the line at every push and pop. */
        if (!__atomic_load_n(&victim->want, __ATOMIC_RELAXED)) __atomic_store_n(&victim->want, 1, __ATOMIC_RELAXED);
        return NULL;
    }
    /* relaxed: ordered by the acquire above; valid if the CAS below succeeds (the owner refills
     * this slot only after top has passed it) */
    merino_task *x = __atomic_load_n(&victim->slot[t & MRN_MASK], __ATOMIC_RELAXED);
    if (__atomic_load_n(&victim->depth[t & MRN_MASK], __ATOMIC_RELAXED) <= above_depth) return NULL; /* relaxed: as x */
    /* a thief inside an isolated region takes its region's tasks only (src/core/region.c); compared,
     * never followed: the region may have ended if the task is gone. relaxed: as x */
    if (within && __atomic_load_n(&victim->region[t & MRN_MASK], __ATOMIC_RELAXED) != within) return NULL;
    /* seq_cst: against the owner's pop of the last public task (the store of split there) */
    if (!__atomic_compare_exchange_n(&victim->top, &t, t + 1, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
        return NULL;
    return x;
}

merino_task *mrn_deque_take_top(mrn_gworker *gw, int64_t t) {
    merino_task *x = __atomic_load_n(&gw->slot[t & MRN_MASK], __ATOMIC_RELAXED); /* relaxed: our own store */
    /* relaxed: only the atomicity against the thieves' CAS of top matters (the owner's pop of the
     * last public task is this thread's, not concurrent; the task is ours: we pushed it) */
    if (!__atomic_compare_exchange_n(&gw->top, &t, t + 1, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) return NULL;
    return x;
}

bool mrn_deque_nonempty(mrn_gworker *gw) {
    /* seq_cst: read by a worker about to sleep, after it counted itself as a sleeper */
    int64_t t = __atomic_load_n(&gw->top, __ATOMIC_SEQ_CST);
    return __atomic_load_n(&gw->fast.bottom, __ATOMIC_SEQ_CST) > t; /* seq_cst: likewise */
}
