/* tasks.c — the work and span of task objects, task groups, graphs and loop chunks: what the
 * graph's and the loop's hooks do (src/graph/prof_hooks.h, src/loop/prof_hooks.h).
 *
 * Task objects have no join that names its task: a task's end reaches whatever waits for it through
 * reference counts. So each task object has a record (merino_task's merino__prof field), made when
 * it is spawned or when its first child finishes:
 *  - at_span: where its path begins, the spawner's span at the spawn (a task run without a spawn —
 *    a bypass, a wait's first child, a root — begins where the code before it ended);
 *  - kid_*: the work of its finished children and the furthest end of their paths, which it adds
 *    when it starts (a continuation) or when its wait ends (merino_task_wait_for_all).
 * A task that finishes adds its work (its strands and its children's) and its path's end to its
 * parent's record — to its group's anchor when it has no parent (a task that passed its parent to a
 * continuation) — before the count's decrement, whose release publishes them to whoever reads the
 * count. A group's wait takes its anchor's; a graph node's path begins at the end of its longest
 * predecessor (each predecessor keeps the maximum in the node). The time a wait spends waiting is
 * nobody's work; the time it spends running other tasks is theirs.
 *
 * A loop chunk (one call of the body) is a parallel strand forked where the loop began: its time
 * goes to the work, its end to the context's pend (merino/internal/prof.h), and the path goes on
 * from where it was before the chunk; the loop's end (or the end of a task that ran chunks) takes
 * the furthest chunk end into its span. */
#include "prof.h"

#include "graph/graph.h"
#include "loop/loop.h"

#include <stdlib.h>

/* A task object's record: see above. at_span, at_bspan and spawner are written by the spawner
 * (before the push that publishes the task) and read by the task's runner; kid_* are atomic. */
typedef struct mrn_prof_tobj {
    uint64_t at_span, at_bspan;
    unsigned spawner;    /* 1 + the spawning worker's index, until the task starts; 0: not pending */
    uint64_t kid_work;   /* atomic */
    uint64_t kid_span;   /* atomic */
    uint64_t kid_bspan;  /* atomic */
} mrn_prof_tobj;

/* acquire: pairs with the release of the CAS that made the record (its zeroed fields) */
static mrn_prof_tobj *mrn_tobj_of(merino_task *t) {
    return (mrn_prof_tobj *)(uintptr_t)__atomic_load_n(&t->merino__prof, __ATOMIC_ACQUIRE);
}

/* t's record, made if it has none (by its spawner, or by the first of its children to finish,
 * several of which may try at once). NULL when out of memory: the figures are then lost. */
static mrn_prof_tobj *mrn_tobj_make(merino_task *t) {
    mrn_prof_tobj *r = mrn_tobj_of(t);
    if (r) return r;
    mrn_prof_tobj *fresh = calloc(1, sizeof *fresh);
    if (!fresh) return NULL;
    uint64_t none = 0;
    /* release: the zeroed record, for the other children's acquire; acquire (failure): the winner's */
    if (__atomic_compare_exchange_n(&t->merino__prof, &none, (uint64_t)(uintptr_t)fresh, false, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE))
        return fresh;
    free(fresh);
    return (mrn_prof_tobj *)(uintptr_t)none;
}

static void mrn_tobj_free(merino_task *t) {
    mrn_prof_tobj *r = mrn_tobj_of(t);
    if (!r) return;
    __atomic_store_n(&t->merino__prof, 0, __ATOMIC_RELAXED); /* relaxed: nobody else holds t now */
    free(r);
}

static void mrn_max_into(uint64_t *m, uint64_t v) {
    uint64_t old = __atomic_load_n(m, __ATOMIC_RELAXED); /* relaxed: the CAS checks it */
    /* relaxed: the count's decrement that follows publishes it */
    while (old < v && !__atomic_compare_exchange_n(m, &old, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
}

/* A child (or a task recycled as its own continuation) of t finished with these figures. */
static void mrn_tobj_add(merino_task *t, const merino__prof_ctx *c) {
    mrn_prof_tobj *r = mrn_tobj_make(t);
    if (!r) return;
    __atomic_fetch_add(&r->kid_work, c->work, __ATOMIC_RELAXED); /* relaxed: as mrn_max_into */
    mrn_max_into(&r->kid_span, c->span);
    mrn_max_into(&r->kid_bspan, c->bspan);
}

/* Adds t's children's figures to the context, and clears them (no child of t runs now: t is
 * starting, or its wait has seen them all finish). */
static void mrn_tobj_take_kids(mrn_prof_tobj *r, merino__prof_ctx *c) {
    /* relaxed: ordered by the count's acquire that let t start or end its wait */
    c->work += __atomic_exchange_n(&r->kid_work, 0, __ATOMIC_RELAXED);
    uint64_t s = __atomic_exchange_n(&r->kid_span, 0, __ATOMIC_RELAXED);   /* relaxed: likewise */
    uint64_t b = __atomic_exchange_n(&r->kid_bspan, 0, __ATOMIC_RELAXED);  /* relaxed: likewise */
    if (c->span < s) c->span = s;
    if (c->bspan < b) c->bspan = b;
}

/* ---- task objects --------------------------------------------------------------------------------- */

void mrn_prof_tobj_spawn(merino_task *t) {
    merino__prof_ctx *c = &merino__prof_here;
    merino__prof_strand(c);
    mrn_prof_tobj *r = mrn_tobj_make(t);
    if (!r) return;
    r->at_span = c->span;
    r->at_bspan = c->bspan;
    mrn_worker *w = mrn_self();
    if (r->spawner == 0 && w) { /* a task queued again before it started is one spawn */
        r->spawner = w->index + 1;
        merino__count(&w->pub.spawns);
    }
}

mrn_prof_saved mrn_prof_chain_begin(void) {
    mrn_prof_saved sv = {.ctx = merino__prof_here, .la = 0};
    sv.cat = mrn_prof_switch(mrn_prof_app());
    return sv;
}

/* The caller's context again; the chain's time was the tasks', not the caller's. */
void mrn_prof_chain_end(const mrn_prof_saved *sv) {
    merino__prof_here = sv->ctx;
    merino__prof_here.mark = merino__prof_ticks();
    mrn_prof_switch(sv->cat);
}

void mrn_prof_tobj_begin(merino_task *t) {
    merino__prof_ctx *c = &merino__prof_here;
    /* Not spawned: the path goes on from where the code before it ended (in this context). */
    merino__prof_ctx fresh = {.span = c->span, .bspan = c->bspan};
    mrn_prof_tobj *r = mrn_tobj_of(t);
    bool stolen = false;
    if (r) {
        if (r->spawner) {
            fresh.span = r->at_span;
            fresh.bspan = r->at_bspan + MERINO__PROF_BURDEN;
            mrn_worker *w = mrn_self();
            if (r->spawner == w->index + 1)
                merino__count(&w->pub.prof_inlined);
            else
                stolen = true; /* counted by the thief as a steal (src/graph/task.c) */
            r->spawner = 0;
        }
        mrn_tobj_take_kids(r, &fresh); /* a continuation: its children's paths end before it */
    }
    if (stolen) mrn_delay_sync(); /* a system call: before the strand's first tick */
    fresh.mark = merino__prof_ticks();
    *c = fresh;
}

void mrn_prof_tobj_end(merino_task *t, uint32_t state) {
    if (state == MERINO__T_RECYCLED_CHILD) return; /* it runs again at once, in this context */
    merino__prof_ctx *c = &merino__prof_here;
    merino__prof_strand(c);
    mrn_prof_join_chunks(c);
    if (state == MERINO__T_RECYCLED_CONT) { /* it runs again after its new children: one of them */
        mrn_tobj_add(t, c);
        return;
    }
    merino_task *to = t->merino__parent;
    if (!to && t->merino__group) to = &t->merino__group->merino__anchor;
    if (to) mrn_tobj_add(to, c);
    mrn_tobj_free(t);
}

unsigned mrn_prof_tobj_wait_begin(void) {
    merino__prof_strand(&merino__prof_here);
    return mrn_prof_switch(MERINO_PROF_LEAPFROG);
}

void mrn_prof_tobj_wait_end(merino_task *waited, unsigned cat) {
    merino__prof_ctx *c = &merino__prof_here;
    c->mark = merino__prof_ticks(); /* the wait was not work */
    mrn_prof_tobj *r = waited ? mrn_tobj_of(waited) : NULL;
    if (r) {
        mrn_tobj_take_kids(r, c);
        mrn_tobj_free(waited); /* a group's anchor has no end to free it at */
    }
    mrn_prof_switch(cat);
}

/* ---- graph nodes ------------------------------------------------------------------------------------ */

void mrn_prof_node_pred(uint64_t rec[2]) {
    merino__prof_ctx *c = &merino__prof_here;
    merino__prof_strand(c);
    mrn_max_into(&rec[0], c->span);
    mrn_max_into(&rec[1], c->bspan);
}

/* The node's path begins at the end of its longest predecessor, not where the task that runs it
 * was (a task runs one node after another, whatever their dependencies). */
void mrn_prof_node_begin(uint64_t rec[2]) {
    merino__prof_ctx *c = &merino__prof_here;
    merino__prof_strand(c);
    /* relaxed: ordered by the node's count (the last predecessor's acq_rel) or its spawn */
    uint64_t s = __atomic_exchange_n(&rec[0], 0, __ATOMIC_RELAXED);
    uint64_t b = __atomic_exchange_n(&rec[1], 0, __ATOMIC_RELAXED); /* relaxed: likewise */
    if (s == 0) return; /* none recorded (a node reached by code compiled without the profiler) */
    c->span = s;
    c->bspan = b + MERINO__PROF_BURDEN;
}

/* ---- loop chunks ------------------------------------------------------------------------------------ */

/* On a thread that is not a worker (an OpenMP team's loop, merino_for_omp) nothing is measured. */
merino__prof_ctx mrn_prof_chunk_begin(void) {
    merino__prof_ctx *c = &merino__prof_here;
    if (!merino__self) return *c;
    merino__prof_strand(c);
    merino__prof_ctx before = *c;
    c->pend = c->pend_b = 0; /* a loop inside the chunk joins its own chunks */
    return before;
}

void mrn_prof_chunk_end(const merino__prof_ctx *before) {
    merino__prof_ctx *c = &merino__prof_here;
    if (!merino__self) return;
    merino__prof_strand(c);
    mrn_prof_join_chunks(c);
    uint64_t end = c->span, end_b = c->bspan;
    c->span = before->span; /* the code after the chunk does not wait for it: the loop's end does */
    c->bspan = before->bspan;
    c->pend = before->pend > end ? before->pend : end;
    c->pend_b = before->pend_b > end_b ? before->pend_b : end_b;
}

void mrn_prof_for_end(void) {
    merino__prof_ctx *c = &merino__prof_here;
    if (!merino__self) return;
    merino__prof_strand(c);
    mrn_prof_join_chunks(c);
}
