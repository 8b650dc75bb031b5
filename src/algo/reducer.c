/* reducer.c — reducers (include/merino_reducer.h): the reducer object with its own (leftmost)
 * view, and the strands' maps of views, which the core creates and hands around as opaque
 * pointers (merino__views; src/core/views.c). The protocol and its argument are in the header. */
#include "algo/algo.h"

#include "merino_reducer.h"

#include <stdlib.h>

struct merino_hyper {
    merino_hyper_ops ops;
    void *ctx;
    void *own; /* the leftmost view: what the code outside the runs sees */
};

/* ---- a strand's map of views ---------------------------------------------------------------------- */

typedef struct mrn_ventry {
    merino_hyper *h;
    void *view;
} mrn_ventry;

typedef struct mrn_vmap {
    merino__vmap_head head; /* first: the C++ header's inline view() reads it */
    unsigned n, cap;
    mrn_ventry *e;
} mrn_vmap;

__attribute__((noreturn, cold)) static void mrn_out_of_memory(const char *what) {
    mrn_fatal("out of memory for %s", what);
}

static void *mrn_view_new(merino_hyper *h) {
    size_t a = h->ops.align, bytes = (h->ops.size + a - 1) / a * a;
    void *v = aligned_alloc(a, bytes);
    if (!v) mrn_out_of_memory("a reducer's view");
    h->ops.identity(v, h->ctx);
    return v;
}

static void mrn_view_delete(merino_hyper *h, void *v) {
    if (h->ops.destroy) h->ops.destroy(v, h->ctx);
    free(v);
}

/* left (+)= right; right is destroyed and freed. */
static void mrn_view_fold(merino_hyper *h, void *left, void *right) {
    h->ops.reduce(left, right, h->ctx);
    mrn_view_delete(h, right);
}

static mrn_ventry *mrn_vmap_find(mrn_vmap *m, const merino_hyper *h) {
    for (unsigned i = 0; i < m->n; i++)
        if (m->e[i].h == h) return &m->e[i];
    return NULL;
}

static void mrn_vmap_add(mrn_vmap *m, merino_hyper *h, void *view) {
    if (m->n == m->cap) {
        unsigned cap = m->cap ? 2 * m->cap : 4;
        mrn_ventry *e = realloc(m->e, cap * sizeof *e);
        if (!e) mrn_out_of_memory("a strand's map of reducer views");
        m->e = e;
        m->cap = cap;
    }
    m->e[m->n++] = (mrn_ventry){h, view};
}

static void mrn_vmap_remove(mrn_vmap *m, mrn_ventry *e) {
    if (m->head.last == e->h) m->head.last = NULL;
    *e = m->e[--m->n];
}

static void mrn_vmap_delete(mrn_vmap *m) {
    free(m->e);
    free(m);
}

/* The core's operations (views.h): called at a stolen join and at the end of a root task. */
static void *mrn_vmap_fold(void *left, void *right) {
    mrn_vmap *l = left, *r = right;
    if (!l) return r;
    for (unsigned i = 0; i < r->n; i++) {
        mrn_ventry *e = mrn_vmap_find(l, r->e[i].h);
        if (e)
            mrn_view_fold(e->h, e->view, r->e[i].view);
        else
            mrn_vmap_add(l, r->e[i].h, r->e[i].view); /* a missing view is the identity: take right's */
    }
    mrn_vmap_delete(r);
    return l;
}

static void mrn_vmap_root_end(void *map) {
    mrn_vmap *m = map;
    for (unsigned i = 0; i < m->n; i++) mrn_view_fold(m->e[i].h, m->e[i].h->own, m->e[i].view);
    mrn_vmap_delete(m);
}

static const merino__views_ops mrn_vmap_ops = {mrn_vmap_fold, mrn_vmap_root_end};

/* ---- the API ------------------------------------------------------------------------------------------- */

merino_hyper *merino_hyper_new(const merino_hyper_ops *ops, void *ctx) {
    if (!ops || ops->size == 0 || !ops->identity || !ops->reduce)
        mrn_fatal("merino_hyper_new: ops is NULL or incomplete (size 0, identity or reduce NULL): "
                  "give the view's size and both functions");
    size_t align = ops->align ? ops->align : _Alignof(max_align_t);
    if (align & (align - 1))
        mrn_fatal("merino_hyper_new: ops->align is %zu, not a power of two: give a power of two, "
                  "or 0 for max_align_t's",
                  ops->align);
    if (merino__views_set_ops(&mrn_vmap_ops) != 0)
        mrn_fatal("merino_hyper_new: the core's views hook is taken by another layer");
    merino_hyper *h = malloc(sizeof *h);
    if (!h) return NULL;
    h->ops = *ops;
    h->ops.align = align;
    h->ctx = ctx;
    h->own = mrn_view_new(h);
    return h;
}

__attribute__((noinline)) static void *mrn_view_slow(merino_hyper *h) {
    if (!merino__self) return h->own; /* outside the pool: the reducer's own view */
    mrn_vmap *m = merino__views;
    if (!m) {
        m = calloc(1, sizeof *m);
        if (!m) mrn_out_of_memory("a strand's map of reducer views");
        merino__views = m;
    }
    mrn_ventry *e = mrn_vmap_find(m, h);
    void *v = e ? e->view : NULL;
    if (!v) {
        v = mrn_view_new(h);
        mrn_vmap_add(m, h, v);
    }
    m->head.last = h;
    m->head.last_view = v;
    return v;
}

void *merino_hyper_view(merino_hyper *h) {
    merino__vmap_head *m = merino__views;
    if (MRN_LIKELY(m != NULL && m->last == h)) return m->last_view;
    return mrn_view_slow(h);
}

void *merino_hyper_get(merino_hyper *h) {
    mrn_vmap *m = merino__views;
    mrn_ventry *e = m ? mrn_vmap_find(m, h) : NULL;
    if (e) {
        void *v = e->view;
        mrn_vmap_remove(m, e);
        mrn_view_fold(h, h->own, v);
    }
    return h->own;
}

void merino_hyper_free(merino_hyper *h) {
    if (!h) return;
    mrn_vmap *m = merino__views;
    mrn_ventry *e = m ? mrn_vmap_find(m, h) : NULL;
    if (e) {
        mrn_view_delete(h, e->view);
        mrn_vmap_remove(m, e);
    }
    mrn_view_delete(h, h->own);
    free(h);
}
