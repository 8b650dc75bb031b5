/* gomp_parallel.c — the ABI of parallel regions, barriers and cancellation: GOMP_parallel (and
 * the pre-4.9 GOMP_parallel_start / _end pair), GOMP_parallel_reductions, GOMP_barrier,
 * GOMP_cancel, GOMP_cancellation_point. */
#include "omp/omp_layer.h"

MO_ABI void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags) {
    mo_parallel(fn, data, num_threads, flags, NULL, NULL, NULL);
}

MO_ABI void GOMP_parallel_start(void (*fn)(void *), void *data, unsigned num_threads) {
    mo_parallel_start(fn, data, num_threads, NULL, NULL);
}

MO_ABI void GOMP_parallel_end(void) { mo_parallel_end(); }

/* `parallel reduction(task, ...)`: the team's implicit tasks share task reductions, registered
 * here for its threads; the compiler combines the copies after the region, for the thread count
 * returned. data's first word points to the reductions. */
MO_ABI unsigned GOMP_parallel_reductions(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags) {
    uintptr_t *rdata = *(uintptr_t **)data;
    return mo_parallel(fn, data, num_threads, flags, NULL, NULL, rdata);
}

MO_ABI void GOMP_barrier(void) { mo_task_barrier(mo_current()); }
MO_ABI bool GOMP_barrier_cancel(void) { return mo_task_barrier(mo_current()); }

/* ---- cancellation ------------------------------------------------------------------------------------- */

bool mo_task_cancelled(const mo_task *c) {
    for (const mo_taskgroup *g = c->taskgroup; g; g = g->prev) {
        if (__atomic_load_n(&g->cancelled, __ATOMIC_RELAXED)) return true; /* relaxed: a flag */
        if (!g->workshare) break; /* a worksharing taskgroup's enclosing one counts too */
    }
    /* relaxed: a flag */
    return c->team && (__atomic_load_n(&c->team->cancelled, __ATOMIC_RELAXED) & MO_CANCEL_PARALLEL);
}

static bool mo_cancelled(const mo_task *c, int which) {
    if (which & MO_CANCEL_TASKGROUP) {
        const mo_taskgroup *g = c->taskgroup;
        /* relaxed: flags */
        if (g && __atomic_load_n(&g->cancelled, __ATOMIC_RELAXED)) return true;
        if (g && g->workshare && g->prev && __atomic_load_n(&g->prev->cancelled, __ATOMIC_RELAXED)) return true;
        return false;
    }
    /* relaxed: a flag; a loop's or sections' bits are cleared by the barrier that ends them */
    return c->team && (__atomic_load_n(&c->team->cancelled, __ATOMIC_RELAXED) & (uint32_t)which) != 0;
}

MO_ABI bool GOMP_cancellation_point(int which) {
    if (!mo_cancel_on) return false;
    return mo_cancelled(mo_current(), which);
}

MO_ABI bool GOMP_cancel(int which, bool do_cancel) {
    if (!mo_cancel_on) return false;
    mo_task *c = mo_current();
    if (!do_cancel) return mo_cancelled(c, which);
    if (which & MO_CANCEL_TASKGROUP) {
        mo_taskgroup *g = c->taskgroup;
        if (g == NULL) return false;
        if (g->workshare && g->prev) g = g->prev;
        __atomic_store_n(&g->cancelled, 1, __ATOMIC_RELAXED); /* relaxed: a flag; tasks poll it */
        return true;
    }
    mo_team *t = c->team;
    if (t == NULL) return true; /* a region of one thread and no team: the construct just ends */
    __atomic_fetch_or(&t->cancelled, (uint32_t)which, __ATOMIC_RELAXED); /* relaxed: a flag */
    if (which & MO_CANCEL_PARALLEL) {
        /* Threads waiting in a barrier of the region leave it: the barrier returns cancelled,
         * and they go to the region's end. seq_cst: the waiters' Dekker pair (wait.c). */
        __atomic_fetch_add(&t->bar_gen, 1, __ATOMIC_SEQ_CST);
        mo_wake_barrier(t);
    }
    return true;
}
