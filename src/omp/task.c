/* task.c — OpenMP tasks on merino's direct task stack: GOMP_task's common case, taskwait,
 * taskgroups, and the end of a task. docs/openmp.md, "(b)".
 *
 * A task whose data fits the payload goes in the next descriptor of the creating worker's stack:
 * the function, the parent's context and the taskgroup, then the data block (copied, or built by
 * the copy function). Any worker may steal it (mo_direct_wrap runs it on the thief's stack); its
 * parent joins it last-in-first-out at a taskwait, at the end of a taskgroup or at its own end.
 * Every task joins its children before it completes, so a task's live children are exactly the
 * descriptors above its frame, and a barrier needs each thread to join only its own. */
#include "omp/omp_layer.h"

#include <string.h>

/* ---- running a direct-stack task ------------------------------------------------------------------------ */

/* Runs the task in d with its children from top: its context, its function, its children. */
static inline void mo_exec_direct(mo_direct *d, merino__task *top) {
    mo_task *parent = d->parent;
    mo_task *prev = mo_cur;
    mo_task c;
    mo_task_init(&c, parent->team, parent->icv, d->taskgroup, parent, top, prev, parent->tnum, 0);
    mo_cur = &c;
    if (MO_LIKELY(!mo_cancel_on) || !mo_task_cancelled(&c)) d->fn(d->data);
    if (MO_UNLIKELY(merino__next != top || c.heap != NULL || (c.flags & MO_T_ICV_OWN))) mo_task_end(&c);
    mo_cur = prev;
}

/* What a thief calls (merino's wrapper protocol): the task runs on the thief's stack at top. */
static __attribute__((aligned(4), used)) void mo_direct_wrap(merino__task *top, merino__task *t) {
    mo_exec_direct((mo_direct *)(void *)t->payload, top);
}

/* The join of descriptor t, the newest live child: run it here, or wait for its thief. */
static inline void mo_join(merino__task *t) {
    if (merino__join(t, (uintptr_t)&mo_direct_wrap)) {
        /* Ours to run. The descriptor stays reserved (the task's children go above it) and is no
         * longer live: EMPTY, so that a publish below does not hand it to a thief. relaxed: the
         * owner's; a thief only reads the state of a descriptor it may take. */
        __atomic_store_n(&t->state, MERINO__EMPTY, __ATOMIC_RELAXED);
        merino__next = t + 1;
        mo_exec_direct((mo_direct *)(void *)t->payload, t + 1);
        merino__next = t;
    }
}

void mo_join_down_to(merino__task *mark) {
    merino__task *t = merino__next;
    while (t > mark) mo_join(--t);
}

/* ---- GOMP_task --------------------------------------------------------------------------------------------- */

/* Whether a task created by cur may go on the direct stack at t (the caller checked if(1), no
 * dependences, no detach): cur is in a region on a worker, not final, the data fits, cur has
 * room for another direct child, and no task reductions are active (their tasks must stay in
 * the team: reduce.c). */
static inline bool mo_direct_ok(const mo_task *cur, const merino__task *t, unsigned flags, long arg_size,
                                long arg_align) {
    return cur != NULL && t != NULL && cur->team != NULL && !(flags & MO_TASK_FLAG_FINAL) &&
           !(cur->flags & MO_T_FINAL) && (unsigned long)arg_size <= MO_DIRECT_DATA && arg_align <= 16 &&
           t - cur->frame < MO_DIRECT_CHILDREN && (cur->taskgroup == NULL || cur->taskgroup->reductions == NULL);
}

/* Spawns the task into t: the header, the data (copied, or built by cpyfn), a taskloop's
 * iterations, the descriptor's state; wakes the team's threads sleeping at its barrier. */
static inline void mo_spawn_direct(mo_task *cur, merino__task *t, void (*fn)(void *), void *data,
                                   void (*cpyfn)(void *, void *), long arg_size, const mo_iters *iters) {
    mo_direct *d = (mo_direct *)(void *)t->payload;
    d->fn = fn;
    d->parent = cur;
    d->taskgroup = cur->taskgroup;
    if (MO_UNLIKELY(cpyfn != NULL))
        cpyfn(d->data, data);
    else if (arg_size > 0) /* no data: data may be NULL, which memcpy may not take */
        memcpy(d->data, data, (size_t)arg_size);
    if (iters) memcpy(d->data, iters, sizeof *iters);
    cur->flags |= MO_T_ICV_SHARED;
    merino__spawn(t, (uintptr_t)&mo_direct_wrap);
    /* relaxed: a hint; a thread that went to sleep at the barrier just now is woken by the
     * barrier's end at the latest (docs/openmp.md) */
    if (MO_UNLIKELY(__atomic_load_n(&cur->team->bar_sleepers, __ATOMIC_RELAXED) != 0)) mo_wake_barrier(cur->team);
}

bool mo_task_direct(mo_task *cur, void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                    long arg_size, long arg_align, unsigned flags, const mo_iters *iters) {
    merino__task *t = merino__next;
    if (!mo_direct_ok(cur, t, flags, arg_size, arg_align)) return false;
    mo_spawn_direct(cur, t, fn, data, cpyfn, arg_size, iters);
    return true;
}

MO_ABI void GOMP_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
                      long arg_align, bool if_clause, unsigned flags, void **depend, int priority,
                      void *detach) {
    mo_task *cur = mo_cur;
    merino__task *t = merino__next;
    /* The common case: on a worker, in a region, deferrable, no dependences, data that fits. */
    if (MO_LIKELY(if_clause && !(flags & (MO_TASK_FLAG_DEPEND | MO_TASK_FLAG_DETACH)) &&
                  mo_direct_ok(cur, t, flags, arg_size, arg_align))) {
        if (MO_UNLIKELY(mo_cancel_on) && mo_task_cancelled(cur)) return;
        mo_spawn_direct(cur, t, fn, data, cpyfn, arg_size, NULL);
        return;
    }
    mo_task_general(mo_current(), fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, priority,
                    detach, NULL);
}

/* An undeferred task (if(0), final, included, or created where it cannot be deferred): runs at
 * once on this thread, as a child of cur with a context of its own. */
void mo_run_undeferred(mo_task *cur, void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                       long arg_size, long arg_align, unsigned flags, const mo_iters *iters) {
    mo_task c;
    bool final = (cur->flags & MO_T_FINAL) || (flags & MO_TASK_FLAG_FINAL);
    mo_task_init(&c, cur->team, cur->icv, cur->taskgroup, cur, merino__next, cur, cur->tnum,
                 MO_T_UNDEFERRED | (final ? MO_T_FINAL : 0));
    cur->flags |= MO_T_ICV_SHARED;
    mo_task *prev = mo_cur;
    mo_cur = &c;
    if (cpyfn || iters) {
        if (arg_align < 1) arg_align = 1;
        char buf[arg_size + arg_align];
        char *arg = (char *)(((uintptr_t)buf + (uintptr_t)arg_align - 1) & ~((uintptr_t)arg_align - 1));
        if (cpyfn)
            cpyfn(arg, data);
        else
            memcpy(arg, data, (size_t)arg_size);
        if (iters) memcpy(arg, iters, sizeof *iters);
        fn(arg);
    } else {
        fn(data);
    }
    mo_task_end(&c);
    mo_cur = prev;
}

/* ---- waiting for children ----------------------------------------------------------------------------------- */

void mo_wait_children(mo_task *c) {
    if (c->frame != NULL && merino__next != NULL) mo_join_down_to(c->frame);
    if (c->heap) mo_wait_heap(c);
}

void mo_task_end(mo_task *c) {
    mo_wait_children(c);
    if (c->heap) mo_heap_free(c);
    if (c->flags & MO_T_ICV_OWN) {
        merino_free((void *)c->icv);
        c->flags &= ~MO_T_ICV_OWN;
    }
}

MO_ABI void GOMP_taskwait(void) {
    mo_task *c = mo_cur;
    if (MO_UNLIKELY(c == NULL)) return; /* no task was ever made on this thread */
    mo_wait_children(c);
}

MO_ABI void GOMP_taskyield(void) {} /* tied tasks: nothing else may run here that taskwait would not */

/* ---- taskgroups ----------------------------------------------------------------------------------------------- */

static mo_taskgroup *mo_taskgroup_push(mo_task *c) {
    mo_taskgroup *g = merino_malloc(sizeof *g);
    if (!g) mo_fatal("out of memory entering a taskgroup");
    memset(g, 0, sizeof *g);
    g->prev = c->taskgroup;
    g->mark = merino__next;
    g->reductions = g->prev ? g->prev->reductions : NULL;
    c->taskgroup = g;
    return g;
}

/* Waits for the taskgroup's tasks: the direct-stack children above its mark, and its task
 * objects (their descendants complete before them). */
static void mo_taskgroup_wait(mo_task *c, mo_taskgroup *g) {
    if (g->mark != NULL && merino__next != NULL) mo_join_down_to(g->mark);
    /* acquire: pairs with each task object's release decrement at its completion */
    if (__atomic_load_n(&g->pending, __ATOMIC_ACQUIRE) != 0) mo_wait_taskgroup_heap(c, g);
}

static void mo_taskgroup_pop(mo_task *c, mo_taskgroup *g) {
    c->taskgroup = g->prev;
    merino_free(g);
}

MO_ABI void GOMP_taskgroup_start(void) { mo_taskgroup_push(mo_current()); }

MO_ABI void GOMP_taskgroup_end(void) {
    mo_task *c = mo_current();
    mo_taskgroup *g = c->taskgroup;
    if (MO_UNLIKELY(g == NULL)) mo_fatal("GOMP_taskgroup_end without GOMP_taskgroup_start");
    mo_taskgroup_wait(c, g);
    mo_taskgroup_pop(c, g);
}

/* A worksharing construct with task reductions runs in a taskgroup of its own (reduce.c). */
void mo_workshare_taskgroup_start(mo_task *c) { mo_taskgroup_push(c)->workshare = true; }

void mo_workshare_taskgroup_end(mo_task *c) {
    mo_taskgroup *g = c->taskgroup;
    if (g == NULL) return;
    mo_taskgroup_wait(c, g);
    mo_taskgroup_pop(c, g);
}
