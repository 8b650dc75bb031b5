/* group.c — task groups: run closures as task objects whose parent is the group's anchor, wait
 * for them, cancel them; record failures in serial order; and the root of a task-object tree,
 * which runs as the one task of a group of its own.
 *
 * Serial order. Each run of a group takes the next number of the group (merino__seq), and a task
 * object inherits its parent's number and group. When a task fails (C++: throws), the group keeps
 * the failure of the smallest number — the one the serial program, where run(f) calls f at once,
 * would have met first — and cancels the tasks with larger numbers only: a task before it may
 * still fail first. A group created inside a task is nested in that task's group at that task's
 * number, so cancelling (or a failure in) the outer group cancels it too (mrn_ctx_cancelled). */
#include "graph/graph.h"

#include <string.h>

void merino_task_group_init(merino_task_group *g) {
    mrn_graph_init();
    merino_task *cur = mrn_graph_current(), *ctx = mrn_graph_context();
    merino_task *a = &g->merino__anchor;
    memset(a, 0, sizeof *a);
    a->merino__depth = cur ? cur->merino__depth : -1;
    a->merino__class = MRN_CLASS_MALLOC; /* never freed: it is part of the group */
    /* relaxed: the group is published to other threads by the spawn of its first task */
    __atomic_store_n(&a->merino__refs, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&a->merino__state, MRN_T_ANCHOR, __ATOMIC_RELAXED); /* relaxed: likewise */
    g->merino__outer = ctx ? ctx->merino__group : NULL;
    g->merino__outer_seq = ctx ? ctx->merino__seq : 0;
    /* relaxed, as refs (atomic stores: a graph's cancel may store the flag meanwhile) */
    __atomic_store_n(&g->merino__next_seq, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&g->merino__failed_seq, UINT64_MAX, __ATOMIC_RELAXED); /* relaxed: as above */
    __atomic_store_n(&g->merino__cancelled, 0, __ATOMIC_RELAXED);       /* relaxed: as above */
    __atomic_store_n(&g->merino__lock, 0, __ATOMIC_RELAXED);            /* relaxed: as above */
    g->merino__error = NULL;
    g->merino__drop_error = NULL;
    g->merino__region = mrn_region_here(); /* its tasks are work of this region (src/core/region.c) */
    g->merino__views = NULL;
}

/* ---- running tasks --------------------------------------------------------------------------------- */

merino_task *mrn_group_task(merino_task_group *g, merino_task_fn *fn, size_t data_bytes, uint64_t seq) {
    merino_task *t = mrn_task_new(mrn_gself(), fn, data_bytes);
    t->merino__parent = &g->merino__anchor;
    t->merino__group = g;
    t->merino__seq = seq;
    t->merino__depth = g->merino__anchor.merino__depth + 1;
    /* relaxed: counted before the task is published (its spawn's release), and the waiter cannot
     * see 1 meanwhile: the runner is the waiter, or one of the group's tasks, which holds a count */
    __atomic_fetch_add(&g->merino__anchor.merino__refs, 1, __ATOMIC_RELAXED);
    return t;
}

merino_task *merino__group_alloc(merino_task_group *g, merino_task_fn *fn, size_t data_bytes) {
    /* relaxed: a number, unique by the RMW; the order of runs made by one thread is its own */
    uint64_t seq = __atomic_fetch_add(&g->merino__next_seq, 1, __ATOMIC_RELAXED);
    mrn_group_views_run(g, seq);
    return mrn_group_task(g, fn, data_bytes, seq);
}

void merino__group_discard(merino_task *t) {
    merino_task *anchor = t->merino__parent;
    mrn_task_delete(mrn_gself(), t);
    __atomic_fetch_sub(&anchor->merino__refs, 1, __ATOMIC_RELAXED); /* relaxed: as the increment */
}

static void mrn_spawn_here(void *t) { mrn_spawn(mrn_gself(), t); }

void merino__group_spawn(merino_task *t) {
    mrn_gworker *gw = mrn_gself();
    if (gw)
        mrn_spawn(gw, t);
    else
        mrn_on_worker(mrn_spawn_here, t); /* onto the deque of the worker we enter as */
}

typedef struct mrn_closure {
    void (*fn)(void *);
    void *arg;
} mrn_closure;

static merino_task *mrn_closure_run(merino_task *self) {
    mrn_closure *c = merino_task_data(self);
    c->fn(c->arg);
    return NULL;
}

typedef struct mrn_run_args {
    merino_task_group *g;
    mrn_closure c;
} mrn_run_args;

static void mrn_run_here(void *p) {
    mrn_run_args *r = p;
    merino_task *t = merino__group_alloc(r->g, mrn_closure_run, sizeof(mrn_closure));
    *(mrn_closure *)merino_task_data(t) = r->c;
    mrn_spawn(mrn_gself(), t);
}

void merino_task_group_run(merino_task_group *g, void (*fn)(void *), void *arg) {
    mrn_run_args r = {g, {fn, arg}};
    mrn_on_worker(mrn_run_here, &r);
}

/* ---- waiting ---------------------------------------------------------------------------------------- */

typedef struct mrn_wait_args {
    merino_task_group *g;
    merino_task *root; /* a root task to run first, or NULL */
    int status;
} mrn_wait_args;

int mrn_group_wait_here(merino_task_group *g) {
    MRN_PROF_TOBJ_WAIT_BEGIN(prof);
    mrn_wait_for(mrn_gself(), &g->merino__anchor, g->merino__anchor.merino__depth);
    MRN_PROF_TOBJ_WAIT_END(prof, &g->merino__anchor);
    mrn_group_views_wait(g); /* its tasks' views, in serial order */
    int status = merino_task_group_is_canceling(g) ? MERINO_CANCELED : MERINO_COMPLETE;
    /* Reset for reuse, uncounting its flags (mrn_flagged_groups). relaxed: no task of g is left;
     * the next run's spawn publishes these; the exchange: a cancel from another thread meanwhile
     * is either undone here or kept (and counted) for the next run */
    unsigned flags = __atomic_exchange_n(&g->merino__cancelled, 0, __ATOMIC_RELAXED) != 0;
    flags += __atomic_exchange_n(&g->merino__failed_seq, UINT64_MAX, __ATOMIC_RELAXED) != UINT64_MAX; /* relaxed: as above */
    if (flags) __atomic_fetch_sub(&mrn_flagged_groups, flags, __ATOMIC_RELAXED); /* relaxed: see graph.h */
    __atomic_store_n(&g->merino__next_seq, 0, __ATOMIC_RELAXED);             /* relaxed: as above */
    return status;
}

static void mrn_wait_here(void *p) {
    mrn_wait_args *w = p;
    MRN_PROF_TOBJ_WAIT_BEGIN(prof);
    mrn_gworker *gw = mrn_gself();
    if (w->root)
        mrn_execute(gw, w->root); /* depth first: the root at once, here */
    else if (gw && __atomic_load_n(&mrn_the_pool.count, __ATOMIC_RELAXED) > 1) /* relaxed: a bound */
        /* The group's tasks are for the others too: the task this wait runs first may be long,
         * and a thief's request would only be seen after it (a task left private waits for
         * the one the caller runs first). */
        mrn_deque_publish(gw);
    w->status = mrn_group_wait_here(w->g);
    MRN_PROF_TOBJ_WAIT_END(prof, NULL);
}

int merino_task_group_wait(merino_task_group *g) {
    mrn_wait_args w = {g, NULL, MERINO_COMPLETE};
    mrn_on_worker(mrn_wait_here, &w);
    return w.status;
}

int merino__group_wait_after(merino_task_group *g, merino_task *first) {
    mrn_wait_args w = {g, first, MERINO_COMPLETE};
    mrn_on_worker(mrn_wait_here, &w);
    return w.status;
}

int merino__group_run_root(merino_task_group *g, merino_task *root) {
    /* relaxed: ours if it is a root not yet run; anything else is reported, as far as it shows */
    if (MRN_UNLIKELY(__atomic_load_n(&root->merino__state, __ATOMIC_RELAXED) != MRN_T_ALLOCATED ||
                     root->merino__parent != NULL))
        mrn_fatal("merino_task_spawn_root_and_wait of a task that is not a root ready to run (it ran "
                  "already, was freed or spawned, or has a parent): allocate a root "
                  "(merino_task_alloc_root) for each run");
    root->merino__parent = &g->merino__anchor;
    root->merino__group = g;
    root->merino__seq = __atomic_fetch_add(&g->merino__next_seq, 1, __ATOMIC_RELAXED); /* as alloc */
    mrn_group_views_run(g, root->merino__seq);
    root->merino__depth = g->merino__anchor.merino__depth + 1;
    __atomic_fetch_add(&g->merino__anchor.merino__refs, 1, __ATOMIC_RELAXED); /* as alloc */
    return merino__group_wait_after(g, root);
}

int merino_task_spawn_root_and_wait(merino_task *root) {
    merino_task_group g;
    merino_task_group_init(&g);
    return merino__group_run_root(&g, root);
}

/* ---- cancellation and failures ---------------------------------------------------------------------- */

void merino_task_group_cancel(merino_task_group *g) {
    /* relaxed: a flag, no data; the cancel that sets it counts it (mrn_flagged_groups, graph.h) */
    if (!__atomic_exchange_n(&g->merino__cancelled, 1, __ATOMIC_RELAXED))
        __atomic_fetch_add(&mrn_flagged_groups, 1, __ATOMIC_RELAXED); /* relaxed: see graph.h */
}

void merino_task_cancel(merino_task *t) {
    if (t->merino__group) merino_task_group_cancel(t->merino__group);
}

int merino_task_group_is_canceling(const merino_task_group *g) {
    if (__atomic_load_n(&g->merino__cancelled, __ATOMIC_RELAXED)) return 1; /* relaxed: a flag */
    if (__atomic_load_n(&g->merino__failed_seq, __ATOMIC_RELAXED) != UINT64_MAX) return 1; /* likewise */
    return mrn_ctx_cancelled(g->merino__outer, g->merino__outer_seq);
}

void merino__task_fail(merino_task *t, void *err, void (*drop)(void *)) {
    merino_task_group *g = t->merino__group;
    if (MRN_UNLIKELY(g == NULL))
        mrn_fatal("a task object failed (threw) outside any root or group, so no wait can report it: "
                  "allocate task objects inside a task of merino_task_spawn_root_and_wait or a group");
    /* acquire: the error stored by the previous holder */
    while (__atomic_exchange_n(&g->merino__lock, 1, __ATOMIC_ACQUIRE)) mrn_cpu_relax();
    uint64_t was = __atomic_load_n(&g->merino__failed_seq, __ATOMIC_RELAXED); /* relaxed: under the lock */
    if (t->merino__seq < was) {
        if (g->merino__error) g->merino__drop_error(g->merino__error);
        g->merino__error = err;
        g->merino__drop_error = drop;
        /* relaxed: read by tasks about to start as a hint; the waiter reads the error after the
         * count's acquire (this task's completion comes after this store) */
        __atomic_store_n(&g->merino__failed_seq, t->merino__seq, __ATOMIC_RELAXED);
        /* relaxed: see graph.h; the first failure of g counts it */
        if (was == UINT64_MAX) __atomic_fetch_add(&mrn_flagged_groups, 1, __ATOMIC_RELAXED);
        err = NULL;
    }
    __atomic_store_n(&g->merino__lock, 0, __ATOMIC_RELEASE); /* release: the error, for the next holder */
    if (err) drop(err);
}

void *merino__group_take_error(merino_task_group *g) {
    void *e = g->merino__error;
    g->merino__error = NULL;
    return e;
}
