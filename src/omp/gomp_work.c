/* gomp_work.c — `sections`, `single` (with copyprivate), `scope`, and the combined
 * `parallel sections`: worksharing constructs on the work-share ring (work.c). Sections are a
 * dynamic loop over the section numbers (1-based, 0: none left), handed out one at a time. */
#include "omp/omp_layer.h"

#include <stdint.h>

/* ---- sections ----------------------------------------------------------------------------------------- */

static void mo_sections_init(mo_ws *ws, unsigned count, uint32_t nthreads) {
    ws->start = 1;
    ws->step = 1;
    ws->end = (uint64_t)count + 1;
    ws->up = true;
    mo_loop_init(ws, count, MO_SCHED_DYNAMIC, 1, nthreads, false);
    ws->kind = MO_SCHED_DYNAMIC; /* one section at a time, also in a team of one */
}

static unsigned mo_sections_next(mo_implicit *imp) {
    uint64_t lo, hi;
    if (!mo_loop_next(imp, &lo, &hi)) return 0;
    return (unsigned)(lo + 1);
}

static unsigned mo_sections_start(unsigned count, uintptr_t *reductions, void **mem) {
    mo_task *c = mo_current();
    mo_implicit *imp = mo_ws_imp(c);
    bool first = mo_ws_begin(c, imp, reductions);
    if (first) mo_sections_init(imp->ws, count, imp->task.team->nthreads);
    mo_ws_share(c, imp, first, reductions, mem);
    mo_loop_thread_start(imp);
    return mo_sections_next(imp);
}

MO_ABI unsigned GOMP_sections_start(unsigned count) { return mo_sections_start(count, NULL, NULL); }

MO_ABI unsigned GOMP_sections2_start(unsigned count, uintptr_t *reductions, void **mem) {
    return mo_sections_start(count, reductions, mem);
}

MO_ABI unsigned GOMP_sections_next(void) { return mo_sections_next(mo_ws_imp(mo_current())); }

static mo_task *mo_sections_leave(void) {
    mo_task *c = mo_current();
    mo_ws_leave(mo_ws_imp(c));
    return c;
}

MO_ABI void GOMP_sections_end(void) { mo_task_barrier(mo_sections_leave()); }
MO_ABI void GOMP_sections_end_nowait(void) { mo_sections_leave(); }
MO_ABI bool GOMP_sections_end_cancel(void) { return mo_task_barrier(mo_sections_leave()); }

static void mo_preset_sections(mo_team *t, void *arg) {
    mo_ws *ws = &t->ws[0];
    mo_sections_init(ws, *(unsigned *)arg, t->nthreads);
    ws->claimed = 1; /* construct 0 is set up */
    ws->ready = 1;
    t->preset_ws = true;
}

MO_ABI void GOMP_parallel_sections(void (*fn)(void *), void *data, unsigned num_threads, unsigned count,
                                   unsigned flags) {
    mo_parallel(fn, data, num_threads, flags, mo_preset_sections, &count, NULL);
}

MO_ABI void GOMP_parallel_sections_start(void (*fn)(void *), void *data, unsigned num_threads, unsigned count) {
    mo_parallel_start(fn, data, num_threads, mo_preset_sections, &count);
}

/* ---- single --------------------------------------------------------------------------------------------- */

/* The first thread to reach the construct runs it; the slot is left at once (the compiler puts
 * the barrier after the construct, unless nowait). */
MO_ABI bool GOMP_single_start(void) {
    mo_implicit *imp = mo_ws_imp(mo_current());
    bool first = mo_ws_enter(imp);
    if (first) mo_ws_ready(imp);
    mo_ws_leave(imp);
    return first;
}

/* copyprivate: the thread that runs the construct gets NULL, runs it and publishes its data with
 * GOMP_single_copy_end (the slot's `next` word says it did); the others wait for that data, copy
 * from it, and meet at the barrier that follows (so the data stays alive until all have copied). */
MO_ABI void *GOMP_single_copy_start(void) {
    mo_implicit *imp = mo_ws_imp(mo_current());
    if (mo_ws_enter(imp)) {
        __atomic_store_n(&imp->ws->next, 0, __ATOMIC_RELAXED); /* relaxed: published by ready */
        mo_ws_ready(imp);
        return NULL; /* GOMP_single_copy_end leaves the slot */
    }
    mo_ws *ws = imp->ws;
    mo_spin_wait_u64(imp->task.team, &ws->next, 1, true); /* acquire inside: the data */
    void *data = ws->copyprivate;
    mo_ws_leave(imp);
    return data;
}

MO_ABI void GOMP_single_copy_end(void *data) {
    mo_implicit *imp = mo_ws_imp(mo_current());
    imp->ws->copyprivate = data;
    __atomic_store_n(&imp->ws->next, 1, __ATOMIC_RELEASE); /* release: the data and the pointer */
    mo_ws_leave(imp);
}

/* ---- scope (OpenMP 5.1): a construct every thread runs, with task reductions ------------------------------ */

MO_ABI void GOMP_scope_start(uintptr_t *reductions) {
    mo_task *c = mo_current();
    mo_implicit *imp = mo_ws_imp(c);
    bool first = mo_ws_begin(c, imp, reductions);
    mo_ws_share(c, imp, first, reductions, NULL);
    mo_ws_leave(imp);
}
