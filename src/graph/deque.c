/* deque.c — each worker's deque of ready task objects: the owner pushes and pops at the bottom
 * (newest first: depth-first work), thieves take at the top (oldest first: breadth-first theft).
 *
 * The Chase-Lev deque on a fixed array, with the memory orders of Lê, Pop, Cohen and Zappa Nardelli
 * ("Correct and efficient work-stealing for weak memory models", PPoPP 2013). Indexes only grow
 * (no ABA); a full deque refuses the push (the caller runs the task at once), so a slot is never
 * overwritten while a thief may still take it. Beside each task its depth, which a worker that
 * waits reads before it takes the task (the stealing rule of docs/graph.md): read like the task,
 * validated by the same CAS. The owner's side (push, pop) is inline in graph.h: every task
 * object pays for it. */
#include "graph.h"

merino_task *mrn_deque_steal(mrn_gworker *victim, int32_t above_depth) {
    /* seq_cst: see mrn_deque_pop; its acquire: the CAS of the thief before us */
    int64_t t = __atomic_load_n(&victim->top, __ATOMIC_SEQ_CST);
    /* seq_cst: see mrn_deque_pop; its acquire pairs with the push's release: the slot, and the
     * task's header and data */
    int64_t b = __atomic_load_n(&victim->bottom, __ATOMIC_SEQ_CST);
    if (t >= b) return NULL;
    /* relaxed: ordered by the acquire above; valid if the CAS below succeeds (the owner refills
     * this slot only after top has passed it) */
    merino_task *x = __atomic_load_n(&victim->slot[t & MRN_MASK], __ATOMIC_RELAXED);
    if (__atomic_load_n(&victim->depth[t & MRN_MASK], __ATOMIC_RELAXED) <= above_depth) return NULL; /* relaxed: as x */
    /* seq_cst: against the owner's pop of the last task (the fence there) */
    if (!__atomic_compare_exchange_n(&victim->top, &t, t + 1, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
        return NULL;
    return x;
}

bool mrn_deque_nonempty(mrn_gworker *gw) {
    /* seq_cst: read by a worker about to sleep, after it counted itself as a sleeper */
    int64_t t = __atomic_load_n(&gw->top, __ATOMIC_SEQ_CST);
    return __atomic_load_n(&gw->bottom, __ATOMIC_SEQ_CST) > t; /* seq_cst: likewise */
}
