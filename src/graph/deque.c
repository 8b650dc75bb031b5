/* deque.c — each worker's deque of ready task objects: the owner pushes and pops at the bottom
 * (newest first: depth-first work), thieves take at the top (oldest first: breadth-first theft).
 *
 * The Chase-Lev deque on a fixed array, with the memory orders of Lê, Pop, Cohen and Zappa Nardelli
 * ("Correct and efficient work-stealing for weak memory models", PPoPP 2013). Indexes only grow
 * (no ABA); a full deque refuses the push (the caller runs the task at once), so a slot is never
 * overwritten while a thief may still take it. Beside each task its depth, which a worker that
 * waits reads before it takes the task (the stealing rule of docs/graph.md): read like the task,
 * validated by the same CAS. */
#include "graph.h"

#define MRN_MASK (MERINO_TASK_DEQUE - 1)

bool mrn_deque_push(mrn_gworker *gw, merino_task *t) {
    int64_t b = __atomic_load_n(&gw->bottom, __ATOMIC_RELAXED); /* relaxed: ours */
    /* acquire: a thief's CAS of top is before our reuse of the slot it freed */
    int64_t tp = __atomic_load_n(&gw->top, __ATOMIC_ACQUIRE);
    if (MRN_UNLIKELY(b - tp >= MERINO_TASK_DEQUE)) return false;
    /* relaxed: published by the release store of bottom below */
    __atomic_store_n(&gw->slot[b & MRN_MASK], t, __ATOMIC_RELAXED);
    __atomic_store_n(&gw->depth[b & MRN_MASK], t->merino__depth, __ATOMIC_RELAXED); /* relaxed: likewise */
    /* release: the slot, and the task's header and data, for a thief's acquire of bottom */
    __atomic_store_n(&gw->bottom, b + 1, __ATOMIC_RELEASE);
    return true;
}

merino_task *mrn_deque_pop(mrn_gworker *gw, int32_t above_depth) {
    int64_t b = __atomic_load_n(&gw->bottom, __ATOMIC_RELAXED) - 1; /* relaxed: ours */
    /* A peek first: the newest task, if any, must be deeper than above_depth. Its slot and depth
     * are ours (thieves never write them); top read relaxed is only a hint here. */
    if (b < __atomic_load_n(&gw->top, __ATOMIC_RELAXED)) return NULL;
    if (__atomic_load_n(&gw->depth[b & MRN_MASK], __ATOMIC_RELAXED) <= above_depth) return NULL; /* relaxed: ours */
    /* seq_cst (this store and the load of top): in one total order with a thief's loads of top
     * and bottom, so that a thief and we do not both take the last task (Dekker) */
    __atomic_store_n(&gw->bottom, b, __ATOMIC_SEQ_CST);
    int64_t t = __atomic_load_n(&gw->top, __ATOMIC_SEQ_CST); /* seq_cst: see above */
    merino_task *x = NULL;
    if (t <= b) {
        x = __atomic_load_n(&gw->slot[b & MRN_MASK], __ATOMIC_RELAXED); /* relaxed: our own store */
        if (t == b) {
            /* The last task: race the thieves for it. seq_cst: as the fence above */
            if (!__atomic_compare_exchange_n(&gw->top, &t, t + 1, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
                x = NULL;
            __atomic_store_n(&gw->bottom, b + 1, __ATOMIC_RELAXED); /* relaxed: empty either way */
        }
    } else {
        __atomic_store_n(&gw->bottom, b + 1, __ATOMIC_RELAXED); /* relaxed: it was empty */
    }
    return x;
}

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
