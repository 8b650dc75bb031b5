/* fib-taskobj.h — fib(n) with merino's task objects in the four variants of the TBB paper's
 * Figure 6: plain (children, then wait), +C (continuation passing), +CB (+ scheduler bypass) and
 * +CBR (+ task recycling). Below the cut-off a task computes fib serially. Shared by
 * workloads/taskobj/taskobj-merino.c and tests/test_graph_tasks.c. */
#ifndef FIB_TASKOBJ_H
#define FIB_TASKOBJ_H

#include <merino_graph.h>

typedef struct fibt_args {
    long n;
    long *sum;
} fibt_args;

typedef struct fibt_cont { /* the continuation: sums what its two children leave */
    long x, y;
    long *sum;
} fibt_cont;

static long fibt_cutoff = 12;

/* The leaves' serial recursion, the serial program's fib_serial (fib/fib.h) to the letter, so
 * that every variant runs the same leaf code (a noinline version made every leaf about 2x slower
 * than the serial program's and the comparison with oneTBB unfair). */
__attribute__((unused)) static long fibt_serial(int n) { return n < 2 ? n : fibt_serial(n - 1) + fibt_serial(n - 2); }

static inline fibt_args *fibt_child(merino_task *parent, merino_task_fn *fn, long n, long *sum, merino_task **out) {
    *out = merino_task_alloc_child(parent, fn, sizeof(fibt_args));
    fibt_args *a = merino_task_data(*out);
    a->n = n;
    a->sum = sum;
    return a;
}

/* plain: two children, spawn one, spawn the other and wait, then add. */
static inline merino_task *fibt_plain(merino_task *self) {
    fibt_args *a = merino_task_data(self);
    if (a->n < fibt_cutoff) {
        *a->sum = fibt_serial(a->n);
        return NULL;
    }
    long x, y;
    merino_task *ca, *cb;
    fibt_child(self, fibt_plain, a->n - 1, &x, &ca);
    fibt_child(self, fibt_plain, a->n - 2, &y, &cb);
    merino_task_set_ref_count(self, 3); /* two children and the wait */
    merino_task_spawn(cb);
    merino_task_spawn_and_wait_for_all(self, ca);
    *a->sum = x + y;
    return NULL;
}

static inline merino_task *fibt_add(merino_task *self) {
    fibt_cont *c = merino_task_data(self);
    *c->sum = c->x + c->y;
    return NULL;
}

/* The continuation that replaces self, its count set to its two children. */
static inline fibt_cont *fibt_continue(merino_task *self, merino_task **out) {
    fibt_args *a = merino_task_data(self);
    *out = merino_task_alloc_continuation(self, fibt_add, sizeof(fibt_cont));
    fibt_cont *c = merino_task_data(*out);
    c->sum = a->sum;
    merino_task_set_ref_count(*out, 2);
    return c;
}

#define FIBT_LEAF(self)                                                                            \
    fibt_args *a = merino_task_data(self);                                                         \
    if (a->n < fibt_cutoff) {                                                                      \
        *a->sum = fibt_serial(a->n);                                                               \
        return NULL;                                                                               \
    }

/* +C: the children belong to a continuation; both are spawned and the task returns. +CB: the same,
 * but one child is returned to run next, not spawned (scheduler bypass). */
static inline merino_task *fibt_split(merino_task *self, merino_task_fn *fn, int bypass) {
    FIBT_LEAF(self)
    merino_task *k, *ca, *cb;
    fibt_cont *c = fibt_continue(self, &k);
    fibt_child(k, fn, a->n - 1, &c->x, &ca);
    fibt_child(k, fn, a->n - 2, &c->y, &cb);
    merino_task_spawn(cb);
    if (bypass) return ca;
    merino_task_spawn(ca);
    return NULL;
}

static inline merino_task *fibt_c(merino_task *self) { return fibt_split(self, fibt_c, 0); }
static inline merino_task *fibt_cb(merino_task *self) { return fibt_split(self, fibt_cb, 1); }

/* +CBR: as +CB, but the task itself becomes the returned child (recycling): one allocation
 * fewer per level. */
static inline merino_task *fibt_cbr(merino_task *self) {
    FIBT_LEAF(self)
    merino_task *k, *cb;
    fibt_cont *c = fibt_continue(self, &k);
    fibt_child(k, fibt_cbr, a->n - 2, &c->y, &cb);
    merino_task_recycle_as_child_of(self, k);
    a->n -= 1;
    a->sum = &c->x;
    merino_task_spawn(cb);
    return self;
}

/* fib(n) with variant fn, from any thread. */
static inline long fibt_run(merino_task_fn *fn, long n) {
    long sum = -1;
    merino_task *root = merino_task_alloc_root(fn, sizeof(fibt_args));
    fibt_args *a = merino_task_data(root);
    a->n = n;
    a->sum = &sum;
    merino_task_spawn_root_and_wait(root);
    return sum;
}

#endif
