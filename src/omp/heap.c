/* heap.c — the tasks the direct stack does not take (docs/openmp.md, "(b)"):
 *
 *   - tasks with dependences: held back until their predecessors complete, through a table per
 *     parent (address -> the last task that writes it, and the tasks that read it since);
 *   - detached tasks: complete when their body has returned and omp_fulfill_event was called;
 *   - tasks whose data does not fit a descriptor, or beyond a task's direct-stack children;
 *   - tasks created in a taskgroup with task reductions, which must run on the team's threads;
 *   - tasks that cannot be deferred (if(0), final, outside a region, created by a thread that is
 *     not a worker): they run at once on the creating thread, after their predecessors.
 *
 * A deferred one is a task object (mo_htask): once ready it runs as a task of the parent's task
 * group (merino's graph layer: any worker may run it), or, if only the team may run it, from the
 * team's queue, which the team's threads drain while they wait. Its parent counts it until it
 * completes, and waits for the count at a taskwait and at its own end; its taskgroup counts it too.
 *
 * Dependences: GCC's depend array lists the addresses (out/inout first, then mutexinoutset, then
 * in; depend objects after them). mutexinoutset is handled as inout: a stricter order than
 * OpenMP asks, which is allowed. A task depends on each earlier sibling that writes an address it
 * names (the last writer, or the readers since when it writes). */
#include "omp/omp_layer.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

enum { MO_DEPEND_IN = 1, MO_DEPEND_OUT = 2, MO_DEPEND_INOUT = 3, MO_DEPEND_MUTEXINOUTSET = 4, MO_DEPEND_INOUTSET = 5 };

typedef struct mo_dep {
    void *addr;
    bool out;
} mo_dep;

typedef struct mo_htask mo_htask;
struct mo_htask {
    void (*fn)(void *);
    void *data;
    mo_task *parent;
    mo_taskgroup *taskgroup;
    mo_team *team;
    const mo_icv *icv;
    uint32_t tnum;           /* the creating thread's number in team */
    uint32_t flags;          /* MO_T_FINAL */
    uint32_t npred;          /* atomic: predecessors not complete, + 1 while it is being registered */
    uint32_t parts;          /* atomic: 1 (the body), + 1 with detach (the event): complete at 0 */
    uint32_t succ_lock;      /* atomic spin lock over complete and the successors */
    bool complete;
    bool team_only;          /* may run on the team's threads only (task reductions) */
    bool waiter;             /* not a task: a wait for dependences (mo_wait_depend); done flag below */
    uint32_t done;           /* waiter: atomic, 1 once its predecessors completed */
    mo_htask **succ;
    uint32_t nsucc, capsucc;
    uint32_t ndeps;
    mo_dep *deps;            /* the addresses it is listed under in the parent's table */
    mo_htask *next;          /* the team queue */
};

/* An entry of a parent's dependence table. */
typedef struct mo_dep_entry {
    void *addr;
    mo_htask *last_out;
    mo_htask **ins;
    uint32_t nins, capins;
} mo_dep_entry;

struct mo_heap {
    merino_task_group group; /* ready task objects of this parent */
    uint32_t pending;        /* atomic futex word: task object children not complete */
    uint32_t waiters;        /* atomic: threads asleep on pending */
    uint32_t lock;           /* atomic spin lock over the table */
    mo_dep_entry *table;     /* open addressing, capacity a power of two */
    uint32_t cap, used;
};

/* Appends x to the array *a of *n elements and room for *cap (doubled when full). */
static void mo_push(mo_htask ***a, uint32_t *n, uint32_t *cap, mo_htask *x) {
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 4;
        mo_htask **grown = realloc(*a, *cap * sizeof *grown);
        if (!grown) mo_fatal("out of memory recording a task dependence");
        *a = grown;
    }
    (*a)[(*n)++] = x;
}

static inline void mo_spin_lock(uint32_t *l) {
    /* acquire: what the previous holder did under the lock */
    while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE)) mo_relax();
}
static inline void mo_spin_unlock(uint32_t *l) { __atomic_store_n(l, 0, __ATOMIC_RELEASE); }

static void *mo_xmalloc(size_t n) {
    void *p = merino_malloc(n ? n : 1);
    if (!p) mo_fatal("out of memory for an OpenMP task (%zu bytes)", n);
    return p;
}

static mo_heap *mo_heap_of(mo_task *c) {
    if (MO_LIKELY(c->heap != NULL)) return c->heap;
    /* its group's anchor is a 64-byte aligned merino_task: merino_malloc promises 16 bytes only */
    mo_heap *h = merino_aligned_alloc(_Alignof(mo_heap), sizeof *h);
    if (!h) mo_fatal("out of memory for an OpenMP task (%zu bytes)", sizeof *h);
    memset(h, 0, sizeof *h);
    merino_task_group_init(&h->group);
    c->heap = h;
    return h;
}

/* ---- the dependence table ---------------------------------------------------------------------------------- */

static inline uint32_t mo_hash(const void *p) {
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return (uint32_t)x;
}

static mo_dep_entry *mo_table_find(mo_heap *h, void *addr, bool insert) {
    if (h->cap == 0) {
        if (!insert) return NULL;
        h->cap = 16;
        h->table = calloc(h->cap, sizeof *h->table);
        if (!h->table) mo_fatal("out of memory for a task's dependence table");
    }
    if (insert && 2 * (h->used + 1) > h->cap) { /* grow */
        mo_dep_entry *old = h->table;
        uint32_t oldcap = h->cap;
        h->cap *= 2;
        h->table = calloc(h->cap, sizeof *h->table);
        if (!h->table) mo_fatal("out of memory for a task's dependence table");
        for (uint32_t i = 0; i < oldcap; i++)
            if (old[i].addr) {
                uint32_t j = mo_hash(old[i].addr) & (h->cap - 1);
                while (h->table[j].addr) j = (j + 1) & (h->cap - 1);
                h->table[j] = old[i];
            }
        free(old);
    }
    uint32_t j = mo_hash(addr) & (h->cap - 1);
    while (h->table[j].addr && h->table[j].addr != addr) j = (j + 1) & (h->cap - 1);
    if (h->table[j].addr) return &h->table[j];
    if (!insert) return NULL;
    h->table[j].addr = addr;
    h->used++;
    return &h->table[j];
}

/* Makes s a successor of p unless p is complete (under p's lock: p cannot complete meanwhile). */
static void mo_add_edge(mo_htask *p, mo_htask *s) {
    if (p == s) return; /* a task naming an address twice */
    mo_spin_lock(&p->succ_lock);
    if (!p->complete) {
        mo_push(&p->succ, &p->nsucc, &p->capsucc, s);
        __atomic_fetch_add(&s->npred, 1, __ATOMIC_RELAXED); /* relaxed: s's guard keeps it held */
    }
    mo_spin_unlock(&p->succ_lock);
}

/* GCC's depend array as a list of (address, writes?) pairs; returns how many. */
static uint32_t mo_depend_list(void **depend, mo_dep **out) {
    size_t n, nout, nmutex = 0, nin, first;
    if (depend[0]) { /* the old format: count, out/inout count, addresses */
        n = (uintptr_t)depend[0];
        nout = (uintptr_t)depend[1];
        nin = n - nout;
        first = 2;
    } else {
        n = (uintptr_t)depend[1];
        nout = (uintptr_t)depend[2];
        nmutex = (uintptr_t)depend[3];
        nin = (uintptr_t)depend[4];
        first = 5;
    }
    mo_dep *d = malloc((n ? n : 1) * sizeof *d); /* freed with free(), as the successor lists */
    if (!d) mo_fatal("out of memory for a task's %zu dependences", n);
    size_t normal = depend[0] ? n : nout + nmutex + nin;
    for (size_t i = 0; i < normal; i++) {
        d[i].addr = depend[first + i];
        d[i].out = i < nout + nmutex;
    }
    for (size_t i = normal; i < n; i++) { /* depend objects: {address, kind} */
        void **o = depend[first + i];
        uintptr_t kind = (uintptr_t)o[1];
        if (kind < MO_DEPEND_IN || kind > MO_DEPEND_INOUTSET)
            mo_fatal("a depend object holds the unknown dependence type %d (it was not initialized with "
                     "depobj?)",
                     (int)kind);
        d[i].addr = o[0];
        d[i].out = kind != MO_DEPEND_IN;
    }
    *out = d;
    return (uint32_t)n;
}

/* Adds the edges from h's predecessors among the parent's children; with insert, lists h in the
 * table as the last writer or a reader of each address (a waiter is not listed). */
static void mo_register(mo_heap *heap, mo_htask *h, bool insert) {
    mo_spin_lock(&heap->lock);
    for (uint32_t i = 0; i < h->ndeps; i++) {
        mo_dep_entry *e = mo_table_find(heap, h->deps[i].addr, insert);
        if (e == NULL) continue;
        if (!h->deps[i].out) {
            if (e->last_out) mo_add_edge(e->last_out, h);
            if (insert) mo_push(&e->ins, &e->nins, &e->capins, h);
        } else {
            /* the readers since the last writer each depend on it: they are enough */
            if (e->nins)
                for (uint32_t k = 0; k < e->nins; k++) mo_add_edge(e->ins[k], h);
            else if (e->last_out)
                mo_add_edge(e->last_out, h);
            if (!insert) continue;
            e->last_out = h;
            e->nins = 0;
        }
    }
    mo_spin_unlock(&heap->lock);
}

/* Takes a completed task out of its parent's table. */
static void mo_unregister(mo_heap *heap, mo_htask *h) {
    mo_spin_lock(&heap->lock);
    for (uint32_t i = 0; i < h->ndeps; i++) {
        mo_dep_entry *e = mo_table_find(heap, h->deps[i].addr, false);
        if (e == NULL) continue;
        if (e->last_out == h) e->last_out = NULL;
        for (uint32_t k = 0; k < e->nins; k++)
            if (e->ins[k] == h) e->ins[k--] = e->ins[--e->nins];
    }
    mo_spin_unlock(&heap->lock);
}

/* ---- running and completing --------------------------------------------------------------------------------- */

static void mo_htask_ready(mo_htask *h);

static void mo_htask_complete(mo_htask *h) {
    mo_spin_lock(&h->succ_lock);
    h->complete = true;
    mo_spin_unlock(&h->succ_lock);
    for (uint32_t i = 0; i < h->nsucc; i++) /* acq_rel: our writes reach the successor */
        if (__atomic_sub_fetch(&h->succ[i]->npred, 1, __ATOMIC_ACQ_REL) == 0) mo_htask_ready(h->succ[i]);
    mo_heap *heap = h->parent->heap;
    if (h->ndeps) mo_unregister(heap, h);
    /* release: the task's work, for whoever waits for the taskgroup (it may end at once) */
    if (h->taskgroup) __atomic_fetch_sub(&h->taskgroup->pending, 1, __ATOMIC_RELEASE);
    free(h->succ);
    free(h->deps);
    merino_free(h);
    /* Last: the parent may end (and free its heap) as soon as pending is 0. seq_cst: the Dekker
     * pair with a waiter's count; a wake on a word freed meanwhile is harmless. */
    if (__atomic_sub_fetch(&heap->pending, 1, __ATOMIC_SEQ_CST) == 0 || __atomic_load_n(&heap->waiters, __ATOMIC_SEQ_CST))
        mo_futex_wake(&heap->pending, INT_MAX);
}

/* The body is done, or the event is fulfilled: at 0 the task completes. */
static void mo_htask_part_done(mo_htask *h) {
    /* acq_rel: the body's and the fulfiller's writes, for whoever completes it */
    if (__atomic_sub_fetch(&h->parts, 1, __ATOMIC_ACQ_REL) == 0) mo_htask_complete(h);
}

static void mo_htask_exec(mo_htask *h) {
    mo_task *prev = mo_cur;
    mo_task c;
    mo_task_init(&c, h->team, h->icv, h->taskgroup, h->parent, merino__next, prev, h->tnum, h->flags);
    mo_cur = &c;
    if (!(mo_cancel_on && mo_task_cancelled(&c))) h->fn(h->data);
    mo_task_end(&c);
    mo_cur = prev;
    mo_htask_part_done(h);
}

static void mo_htask_group_fn(void *arg) { mo_htask_exec(arg); }

/* ---- the team's own queue ---------------------------------------------------------------------------------------- */

static void mo_team_queue_push(mo_team *t, mo_htask *h) {
    h->next = NULL;
    mo_spin_lock(&t->tq_lock);
    if (t->tq_tail)
        t->tq_tail->next = h;
    else
        t->tq_head = h;
    t->tq_tail = h;
    __atomic_fetch_add(&t->tq_count, 1, __ATOMIC_RELAXED); /* relaxed: a hint; the lock orders */
    mo_spin_unlock(&t->tq_lock);
    if (__atomic_load_n(&t->bar_sleepers, __ATOMIC_RELAXED)) mo_wake_barrier(t); /* relaxed: a hint */
}

bool mo_team_queue_run_one(mo_team *t) {
    if (MO_LIKELY(__atomic_load_n(&t->tq_count, __ATOMIC_RELAXED) == 0)) return false; /* relaxed: a peek */
    mo_spin_lock(&t->tq_lock);
    mo_htask *h = t->tq_head;
    if (h) {
        t->tq_head = h->next;
        if (!t->tq_head) t->tq_tail = NULL;
        __atomic_fetch_sub(&t->tq_count, 1, __ATOMIC_RELAXED);
    }
    mo_spin_unlock(&t->tq_lock);
    if (!h) return false;
    mo_htask_exec(h);
    return true;
}

static void mo_htask_ready(mo_htask *h) {
    if (h->waiter) {
        __atomic_store_n(&h->done, 1, __ATOMIC_SEQ_CST); /* seq_cst: release, and the sleeper's pair */
        mo_futex_wake(&h->done, 1);
        return;
    }
    if (h->team_only)
        mo_team_queue_push(h->team, h);
    else
        merino_task_group_run(&h->parent->heap->group, mo_htask_group_fn, h);
}

/* ---- creating ---------------------------------------------------------------------------------------------------- */

/* A task object for a task of cur. detach: the event variable, which gets the handle (so does the
 * data's first word, which the compiler reserves for the task's copy of it: written before the
 * copy, as libgomp does). */
static mo_htask *mo_htask_new(mo_task *cur, void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                              long arg_size, long arg_align, unsigned flags, const mo_iters *iters, void *detach) {
    if (arg_align < 1) arg_align = 1;
    size_t bytes = sizeof(mo_htask) + (size_t)arg_size + (size_t)arg_align;
    mo_htask *h = mo_xmalloc(bytes);
    memset(h, 0, sizeof *h);
    h->fn = fn;
    h->data = (char *)(((uintptr_t)(h + 1) + (uintptr_t)arg_align - 1) & ~((uintptr_t)arg_align - 1));
    h->parent = cur;
    h->taskgroup = cur->taskgroup;
    h->team = cur->team;
    h->icv = cur->icv;
    h->tnum = cur->tnum;
    h->flags = (flags & MO_TASK_FLAG_FINAL) || (cur->flags & MO_T_FINAL) ? MO_T_FINAL : 0;
    h->npred = 1;
    h->parts = 1;
    h->team_only = cur->taskgroup && cur->taskgroup->reductions;
    cur->flags |= MO_T_ICV_SHARED;
    if (detach) {
        h->parts = 2; /* the body, and the event */
        *(void **)detach = h;
        if (data) *(void **)data = h;
    }
    if (cpyfn)
        cpyfn(h->data, data);
    else
        memcpy(h->data, data, (size_t)arg_size);
    if (iters) memcpy(h->data, iters, sizeof *iters);
    return h;
}

/* Counts h as a pending child of cur (and of its taskgroup) before it can complete. */
static void mo_htask_count(mo_task *cur, mo_htask *h) {
    mo_heap *heap = mo_heap_of(cur);
    __atomic_fetch_add(&heap->pending, 1, __ATOMIC_RELAXED); /* relaxed: before h is published */
    if (h->taskgroup) __atomic_fetch_add(&h->taskgroup->pending, 1, __ATOMIC_RELAXED); /* likewise */
}

/* Waits until every predecessor of the waiter w (its npred) has completed, helping meanwhile. */
static void mo_wait_waiter(mo_task *cur, mo_htask *w) {
    if (__atomic_sub_fetch(&w->npred, 1, __ATOMIC_ACQ_REL) == 0) return; /* nothing to wait for */
    merino__backoff b = {0};
    bool worker = mo_on_worker();
    bool member = cur->team && !(cur->flags & MO_T_FOREIGN);
    /* acquire: the predecessors' writes */
    while (!__atomic_load_n(&w->done, __ATOMIC_ACQUIRE)) {
        if (cur->heap) merino_task_group_wait(&cur->heap->group); /* the siblings that are ready */
        if (__atomic_load_n(&w->done, __ATOMIC_ACQUIRE)) break;
        if ((member && mo_team_queue_run_one(cur->team)) || (worker && merino__help_one())) {
            b = (merino__backoff){0};
            continue;
        }
        int step = merino__backoff_wait(&b);
        if (step != 0) mo_maybe_check_roles(cur->team); /* team-only tasks may need a role started */
        if (step != MERINO__BACKOFF_SLEEP) continue;
        mo_futex_wait_ns(&w->done, 0, 1000000); /* woken by mo_htask_ready (bounded: no count) */
        b = (merino__backoff){0};
    }
}

void mo_wait_depend(mo_task *c, void **depend) {
    if (c->heap == NULL) return; /* no sibling with dependences was ever deferred */
    mo_htask w;
    memset(&w, 0, sizeof w);
    w.waiter = true;
    w.npred = 1;
    w.ndeps = mo_depend_list(depend, &w.deps);
    mo_register(c->heap, &w, false);
    mo_wait_waiter(c, &w);
    free(w.deps);
}

MO_ABI void GOMP_taskwait_depend(void **depend) {
    mo_task *c = mo_current();
    mo_wait_depend(c, depend);
}

void mo_task_general(mo_task *cur, void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                     long arg_size, long arg_align, bool if_clause, unsigned flags, void **depend,
                     int priority, void *detach, const mo_iters *iters) {
    (void)priority; /* a hint */
    if (MO_UNLIKELY(mo_cancel_on) && mo_task_cancelled(cur)) return;
    bool deferrable = if_clause && !(flags & MO_TASK_FLAG_FINAL) && !(cur->flags & MO_T_FINAL) && cur->team != NULL;
    /* A task with task reductions made by a thread outside the team (it stole its creator): only
     * the team's threads may run it (reduce.c), and they may all be waiting for this thread.
     * Run at once here instead, in the borrowed thread number's copies, which no thread of the
     * team touches: the taskgroup is this thread's, and none of its tasks is ever queued. */
    if (MO_UNLIKELY(cur->flags & MO_T_FOREIGN) && cur->taskgroup && cur->taskgroup->reductions) deferrable = false;
    bool has_deps = (flags & MO_TASK_FLAG_DEPEND) && depend != NULL;
    bool detached = (flags & MO_TASK_FLAG_DETACH) != 0;
    if (!deferrable || !mo_on_worker()) {
        /* At once on this thread, once its predecessors are complete. */
        if (has_deps) mo_wait_depend(cur, depend);
        if (!detached) {
            mo_run_undeferred(cur, fn, data, cpyfn, arg_size, arg_align, flags, iters);
            return;
        }
        /* Detached: a task object whose body runs now and which completes when the event is
         * fulfilled — later (deferrable, on a thread that is not a worker; its successors wait
         * for it), or before we go on (undeferred: OpenMP says the creating task waits). */
        mo_htask *h = mo_htask_new(cur, fn, data, cpyfn, arg_size, arg_align, flags, iters, detach);
        mo_htask_count(cur, h);
        if (has_deps) {
            h->ndeps = mo_depend_list(depend, &h->deps);
            mo_register(cur->heap, h, true); /* its predecessors are complete: no edge to it */
        }
        mo_htask w;
        memset(&w, 0, sizeof w);
        w.waiter = true;
        w.npred = 1;
        if (!deferrable) mo_add_edge(h, &w); /* w becomes ready when h completes */
        mo_htask_exec(h);
        if (!deferrable) mo_wait_waiter(cur, &w);
        return;
    }
    mo_htask *h = mo_htask_new(cur, fn, data, cpyfn, arg_size, arg_align, flags, iters, detached ? detach : NULL);
    mo_htask_count(cur, h);
    if (has_deps) {
        h->ndeps = mo_depend_list(depend, &h->deps);
        mo_register(cur->heap, h, true);
    }
    /* acq_rel: the guard off; our set-up before whoever runs it */
    if (__atomic_sub_fetch(&h->npred, 1, __ATOMIC_ACQ_REL) == 0) mo_htask_ready(h);
}

MO_ABI void omp_fulfill_event(void *event) {
    mo_htask *h = event;
    if (h == NULL) mo_fatal("omp_fulfill_event called with a null event");
    mo_htask_part_done(h);
}

/* ---- waiting ------------------------------------------------------------------------------------------------------- */

/* Waits until *count is 0: runs the parent's ready task objects, the team's own tasks (when this
 * thread is one of the team's), any worker's tasks; then sleeps on the parent's pending word. */
static void mo_wait_count(mo_task *c, uint32_t *count) {
    mo_heap *heap = c->heap;
    bool worker = mo_on_worker();
    bool member = c->team && !(c->flags & MO_T_FOREIGN);
    merino__backoff b = {0};
    /* acquire: pairs with each completion's release decrement */
    while (__atomic_load_n(count, __ATOMIC_ACQUIRE) != 0) {
        merino_task_group_wait(&heap->group); /* the ready ones, helping */
        if (__atomic_load_n(count, __ATOMIC_ACQUIRE) == 0) break;
        if ((member && mo_team_queue_run_one(c->team)) || (worker && merino__help_one())) {
            b = (merino__backoff){0};
            continue;
        }
        /* A thread outside the team (a pool thread that stole our task before taking its role)
         * cannot run the team-only tasks it waits for: the role, given to a spare, runs them. */
        int step = merino__backoff_wait(&b);
        if (step != 0) mo_maybe_check_roles(c->team);
        if (step != MERINO__BACKOFF_SLEEP) continue;
        uint32_t v = __atomic_load_n(&heap->pending, __ATOMIC_SEQ_CST);
        /* seq_cst: the Dekker pair with the completion's decrement and its read of waiters */
        __atomic_fetch_add(&heap->waiters, 1, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(count, __ATOMIC_SEQ_CST) != 0 && v != 0)
            mo_futex_wait_ns(&heap->pending, v, 1000000); /* a taskgroup's count wakes nobody: a bound */
        __atomic_fetch_sub(&heap->waiters, 1, __ATOMIC_SEQ_CST);
        b = (merino__backoff){0};
    }
}

void mo_wait_heap(mo_task *c) {
    if (__atomic_load_n(&c->heap->pending, __ATOMIC_ACQUIRE) != 0) mo_wait_count(c, &c->heap->pending);
}

void mo_wait_taskgroup_heap(mo_task *c, mo_taskgroup *g) {
    if (c->heap == NULL) mo_heap_of(c);
    mo_wait_count(c, &g->pending);
}

void mo_heap_free(mo_task *c) {
    mo_heap *h = c->heap;
    c->heap = NULL;
    for (uint32_t i = 0; i < h->cap; i++) free(h->table[i].ins);
    free(h->table);
    merino_free(h);
}
