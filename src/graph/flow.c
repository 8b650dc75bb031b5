/* flow.c — dependency graphs: nodes with explicit edges, run as task objects of a group.
 *
 * Construction keeps a topological order of the nodes (ord) up to date edge by edge (Pearce and
 * Kelly, "A dynamic topological sort algorithm for directed acyclic graphs", JEA 2007): an edge
 * from an earlier to a later node costs nothing; otherwise a search of the nodes between the two
 * either finds a path back (the edge would close a cycle: rejected, and the message names the
 * nodes on it) or reorders just those nodes. So a cycle is refused at the edge that makes it.
 *
 * A run counts each node's predecessors down: a node runs as a task of the graph's group (its
 * order there is its index, so the first failing node in index order is the one reported), and the
 * last predecessor to finish makes it ready. Of the successors a node makes ready, the one with the
 * longest path to a sink (its level, computed when the graph changed) runs next on the same worker
 * (bypass) — unless the worker's oldest queued node is more than MRN_LEVEL_SLACK levels above it,
 * which then runs instead — and the others are queued public at once (a worker that ran dry takes
 * them without asking). A failure or a cancellation stops the release of successors, and cancels
 * the nodes made ready but not started. docs/graph.md has the measurements behind each rule. */
#include "graph.h"

#include "../alloc/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Its own two cache lines: the first holds what a run reads and writes, so that a node's count,
 * written by the workers that run its predecessors, shares no line with another node. */
struct merino_graph_node {
    _Alignas(MRN_CACHE_LINE) void (*fn)(void *);
    void *arg;
    merino_graph *graph;
    merino_graph_node **succ;
    unsigned nsucc, npred;
    unsigned index;      /* order of creation */
    unsigned level;      /* nodes on the longest path from here to a sink (set by a run) */
    uint32_t pending;    /* atomic, during a run: predecessors not finished */
    /* construction */
    _Alignas(MRN_CACHE_LINE) char *name;
    unsigned ord;        /* place in the topological order */
    unsigned mark;       /* search stamp */
    merino_graph_node *via; /* search: the node the search came from (for the cycle's path) */
    merino_graph_node **pred;
    unsigned csucc, npredl, cpred;
#if MERINO__PROFILE
    uint64_t prof_path[2]; /* atomic: the profiler's: where the node's path begins (prof_hooks.h) */
#endif
};
_Static_assert(sizeof(merino_graph_node) == 2 * MRN_CACHE_LINE, "a node is two cache lines");

/* A ready node whose oldest queued node is more than this many levels above it runs that one
 * first (mrn_node_older): a smaller slack swaps more often (a locked instruction each), a larger
 * one lets a worker run further ahead of the longest path. 4: measured on 32 x 32 wavefronts. */
#define MRN_LEVEL_SLACK 4

struct merino_graph {
    merino_graph_node **nodes;  /* by index */
    merino_graph_node **by_ord; /* by place in the topological order */
    merino_graph_node **work;   /* the search's stack: at most n entries; between runs, the sources */
    unsigned n, cap, stamp;     /* cap: of each of the three arrays */
    unsigned nsources;          /* while ready: the nodes with no predecessor, work[0..nsources) */
    bool ready;                 /* after a complete run, the graph unchanged since: every node's
                                   pending equals its npred again, and work holds the sources */
    merino_task_group group;
};

merino_task_group *merino__graph_group(merino_graph *g) { return &g->group; }

/* ---- construction ------------------------------------------------------------------------------------ */

merino_graph *merino_graph_new(void) {
    mrn_graph_init();
    merino_graph *g = mrn_mem_alloc(MRN_CACHE_LINE, sizeof *g); /* its group's anchor task is aligned */
    if (g) memset(g, 0, sizeof *g);
    else mrn_error("out of memory making a dependency graph");
    return g;
}

void merino_graph_delete(merino_graph *g) {
    if (!g) return;
    for (unsigned i = 0; i < g->n; i++) {
        merino_graph_node *x = g->nodes[i];
        free(x->name);
        free(x->succ);
        free(x->pred);
        mrn_mem_free(x);
    }
    free(g->nodes);
    free(g->by_ord);
    free(g->work);
    mrn_mem_free(g);
}

/* Makes room for one more pointer in *a (count n, capacity *cap). */
static bool mrn_grow(merino_graph_node ***a, unsigned n, unsigned *cap) {
    if (n < *cap) return true;
    unsigned c = *cap ? *cap * 2 : 4;
    void *p = realloc(*a, c * sizeof **a);
    if (!p) return false;
    *a = p;
    *cap = c;
    return true;
}

/* Makes room for one more node in the graph's three arrays. */
static bool mrn_reserve_node(merino_graph *g) {
    if (g->n < g->cap) return true;
    unsigned c = g->cap, c2 = g->cap, c3 = g->cap;
    if (!mrn_grow(&g->nodes, g->n, &c) || !mrn_grow(&g->by_ord, g->n, &c2) || !mrn_grow(&g->work, g->n, &c3))
        return false; /* the arrays that grew keep their room: the next call starts from there */
    g->cap = c;
    return true;
}

merino_graph_node *merino_graph_node_new(merino_graph *g, const char *name, void (*fn)(void *), void *arg) {
    merino_graph_node *x = mrn_mem_alloc(MRN_CACHE_LINE, sizeof *x);
    if (x) memset(x, 0, sizeof *x);
    char buf[32];
    if (!name) {
        snprintf(buf, sizeof buf, "node %u", g->n);
        name = buf;
    }
    if (!x || !(x->name = strdup(name)) || !mrn_reserve_node(g)) {
        if (x) free(x->name);
        mrn_mem_free(x);
        mrn_error("out of memory adding a node to a dependency graph of %u nodes", g->n);
        return NULL;
    }
    x->fn = fn;
    x->arg = arg;
    x->graph = g;
    x->index = x->ord = g->n;
    g->nodes[g->n] = g->by_ord[g->n] = x;
    g->n++;
    g->ready = false;
    return x;
}

const char *merino_graph_node_name(const merino_graph_node *n) { return n->name; }

/* Depth-first search from start along succ (forward) or pred (backward), through the nodes whose
 * ord is within [lo, hi]; marks them with the stamp and collects them in out. Returns the number
 * collected, or -1 when the search reaches stop (then stop->via leads back to start). */
static int mrn_search(merino_graph *g, merino_graph_node *start, bool forward, unsigned lo, unsigned hi,
                      merino_graph_node *stop, merino_graph_node **out) {
    unsigned sp = 0, nout = 0;
    merino_graph_node **stack = g->work;
    start->mark = g->stamp;
    start->via = NULL;
    stack[sp++] = start;
    while (sp) {
        merino_graph_node *x = stack[--sp];
        out[nout++] = x;
        merino_graph_node **next = forward ? x->succ : x->pred;
        unsigned nn = forward ? x->nsucc : x->npredl;
        for (unsigned i = 0; i < nn; i++) {
            merino_graph_node *y = next[i];
            if (y == stop) {
                y->via = x;
                return -1;
            }
            if (y->mark == g->stamp || y->ord < lo || y->ord > hi) continue;
            y->mark = g->stamp;
            y->via = x;
            stack[sp++] = y;
        }
    }
    return (int)nout;
}

static int mrn_cmp_unsigned(const void *a, const void *b) {
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return x < y ? -1 : x > y;
}

static int mrn_by_ord(const void *a, const void *b) {
    unsigned x = (*(merino_graph_node *const *)a)->ord, y = (*(merino_graph_node *const *)b)->ord;
    return x < y ? -1 : x > y;
}

/* Reports the cycle the edge from -> to would close: to -> ... -> from (found by the search from
 * to, along via) -> to. */
__attribute__((cold)) static void mrn_cycle(merino_graph_node *from, merino_graph_node *to) {
    char path[512];
    size_t len = 0;
    merino_graph_node *chain[16];
    unsigned n = 0;
    for (merino_graph_node *x = from; x && n < 16; x = x->via) chain[n++] = x; /* from back to to */
    for (unsigned i = n; i-- > 0 && len < sizeof path;)
        len += (size_t)snprintf(path + len, sizeof path - len, "\"%s\" -> ", chain[i]->name);
    if (len < sizeof path) snprintf(path + len, sizeof path - len, "\"%s\"", to->name);
    mrn_error("merino_graph_edge(\"%s\", \"%s\") would close a cycle: %s%s; a dependency graph "
              "must be acyclic: remove one of these edges",
              from->name, to->name, n == 16 ? "... " : "", path);
}

int merino_graph_edge(merino_graph_node *from, merino_graph_node *to) {
    merino_graph *g = from->graph;
    if (to->graph != g) {
        mrn_error("merino_graph_edge(\"%s\", \"%s\"): the nodes belong to different graphs; an edge "
                  "joins two nodes of the same graph",
                  from->name, to->name);
        return -1;
    }
    if (from == to) {
        mrn_error("merino_graph_edge(\"%s\", \"%s\") would close a cycle: a node cannot follow "
                  "itself; a dependency graph must be acyclic",
                  from->name, to->name);
        return -1;
    }
    if (!mrn_grow(&from->succ, from->nsucc, &from->csucc) || !mrn_grow(&to->pred, to->npredl, &to->cpred)) {
        mrn_error("out of memory adding the edge \"%s\" -> \"%s\"", from->name, to->name);
        return -1;
    }
    if (to->ord < from->ord) { /* the order must change, or this edge closes a cycle */
        unsigned lo = to->ord, hi = from->ord;
        merino_graph_node **fwd = malloc(2 * (size_t)g->n * sizeof *fwd);
        if (!fwd) {
            mrn_error("out of memory adding the edge \"%s\" -> \"%s\"", from->name, to->name);
            return -1;
        }
        g->stamp++;
        int nf = mrn_search(g, to, true, lo, hi, from, fwd);
        if (nf < 0) {
            mrn_cycle(from, to);
            free(fwd);
            return -1;
        }
        g->stamp++;
        merino_graph_node **bwd = fwd + nf;
        int nb = mrn_search(g, from, false, lo, hi, NULL, bwd);
        /* Reorder: the nodes reaching from (bwd) take the smallest places the two sets hold, in
         * their old order, then those reachable from to (fwd). */
        qsort(fwd, (size_t)nf, sizeof *fwd, mrn_by_ord);
        qsort(bwd, (size_t)nb, sizeof *bwd, mrn_by_ord);
        unsigned *places = malloc((size_t)(nf + nb) * sizeof *places);
        if (!places) {
            free(fwd);
            mrn_error("out of memory adding the edge \"%s\" -> \"%s\"", from->name, to->name);
            return -1;
        }
        for (int i = 0; i < nb; i++) places[i] = bwd[i]->ord;
        for (int i = 0; i < nf; i++) places[nb + i] = fwd[i]->ord;
        qsort(places, (size_t)(nf + nb), sizeof *places, mrn_cmp_unsigned);
        for (int i = 0; i < nb + nf; i++) {
            merino_graph_node *x = i < nb ? bwd[i] : fwd[i - nb];
            x->ord = places[i];
            g->by_ord[x->ord] = x;
        }
        free(places);
        free(fwd);
    }
    from->succ[from->nsucc++] = to;
    to->pred[to->npredl++] = from;
    to->npred++;
    from->graph->ready = false; /* and the search may have used work */
    return 0;
}

/* ---- running ---------------------------------------------------------------------------------------- */

static merino_task *mrn_node_run(merino_task *self);

/* The task that runs node x in its graph's group, with x's index as its order. */
static merino_task *mrn_node_task(merino_graph_node *x) {
    merino_task *t = mrn_group_task(&x->graph->group, mrn_node_run, sizeof x, x->index);
    memcpy(merino_task_data(t), &x, sizeof x);
    return t;
}

/* Queues t, the task of node y, public, and records y's level beside its slot (mrn_node_older). */
static void mrn_node_queue(mrn_gworker *gw, merino_task *t, const merino_graph_node *y) {
    unsigned i = (unsigned)(__atomic_load_n(&gw->fast.bottom, __ATOMIC_RELAXED) & MRN_MASK); /* relaxed: ours */
    gw->node_task[i] = t; /* before the spawn: a full deque runs t at once, and what it queues */
    gw->node_graph[i] = y->graph;
    gw->node_level[i] = y->level;
    mrn_spawn_public(gw, t);
}

/* Our oldest queued task, taken, if it is a node of g whose level is above level; else NULL. */
static merino_task *mrn_node_older(mrn_gworker *gw, const merino_graph *g, unsigned level) {
    int64_t t = __atomic_load_n(&gw->top, __ATOMIC_RELAXED); /* relaxed: a hint, the take's CAS checks it */
    if (t >= gw->fast.own_split) return NULL; /* nothing public */
    unsigned i = (unsigned)(t & MRN_MASK);
    merino_task *q = __atomic_load_n(&gw->slot[i], __ATOMIC_RELAXED); /* relaxed: our own store */
    /* Only a node of g: a task taken and queued again lands at the bottom, where one of an outer
     * graph, shallower than g's wait, would stop that wait's pops (at one worker, for ever) */
    if (q != gw->node_task[i] || gw->node_graph[i] != g || gw->node_level[i] <= level + MRN_LEVEL_SLACK)
        return NULL;
    if (!mrn_deque_take_top(gw, t)) return NULL;
    if (MRN_LIKELY(q->merino__execute == mrn_node_run && q->merino__group == &g->group)) return q;
    mrn_spawn_public(gw, q); /* a stale record (another task in a reused block): queued again */
    return NULL;
}

static merino_task *mrn_node_run(merino_task *self) {
    merino_graph_node *x;
    memcpy(&x, merino_task_data(self), sizeof x);
    MRN_PROF_NODE_BEGIN(x);
    x->fn(x->arg);
    merino_graph *g = x->graph;
    /* failed or cancelled: stop here (no group flagged anywhere: none of ours, one load) */
    if (MRN_UNLIKELY(mrn_ctx_flagged()) && merino_task_group_is_canceling(&g->group)) return NULL;
    mrn_gworker *gw = mrn_gcur();
    merino_graph_node *best = NULL; /* the ready successor with the highest level */
    for (unsigned i = 0; i < x->nsucc; i++) {
        merino_graph_node *y = x->succ[i];
        MRN_PROF_NODE_PRED(y);
        /* A node with one predecessor is ready now: its count is never touched (a locked
         * instruction saved, and its line left shared). Else acq_rel: release, what this node
         * wrote happens before y runs; acquire, for the last predecessor, what the others wrote
         * (it spawns y, which publishes it all to y; or runs y itself, below) */
        if (y->npred != 1) {
            if (__atomic_fetch_sub(&y->pending, 1, __ATOMIC_ACQ_REL) != 1) continue;
            /* relaxed: y's count is ready for the next run (nobody decrements it again in this
             * one; the next run's decrements come after this run's wait) — so a run starts with
             * no pass over the nodes */
            __atomic_store_n(&y->pending, y->npred, __ATOMIC_RELAXED);
        }
        if (!best) {
            best = y;
            continue;
        }
        merino_graph_node *other = y;
        if (y->level > best->level) other = best, best = y;
        /* Public at once: a worker that ran dry takes it now, not after our next node (which
         * would leave it idle for a whole node at a wavefront's narrow diagonals) */
        mrn_node_queue(gw, mrn_node_task(other), other);
    }
    if (!best) return NULL;
    /* Longest path first: when our oldest queued node has a longer path to a sink than best, it
     * runs next and best is queued in its task object (two nodes swapped, nothing allocated).
     * Left queued, it would run when this worker's newer nodes are done, and end the run alone
     * while the other workers idle (a 32 x 32 wavefront: ~1% of its time). */
    merino_task *q = mrn_node_older(gw, g, best->level);
    if (q) {
        merino_graph_node *o;
        memcpy(&o, merino_task_data(q), sizeof o);
        memcpy(merino_task_data(q), &best, sizeof best);
        q->merino__seq = best->index;
        mrn_node_queue(gw, q, best);
        best = o;
    }
    /* best runs next, here, in this very task object recycled as a child of the same group: no
     * allocation, and the group's count does not move (our reference becomes its) — two
     * read-modify-writes of the group's shared count saved per bypass. Its start checks
     * cancellation with its own order, as a new task's would. */
    memcpy(merino_task_data(self), &best, sizeof best);
    self->merino__seq = best->index;
    merino__task_recycle_as_child_of(self, self->merino__parent);
    return self;
}

typedef struct mrn_graph_run_args {
    merino_graph *g;
    int status;
} mrn_graph_run_args;

static void mrn_graph_run_here(void *p) {
    mrn_graph_run_args *r = p;
    merino_graph *g = r->g;
    merino_task_group_init(&g->group);
    if (MRN_UNLIKELY(!g->ready)) { /* the first run, a changed graph, or a run that stopped early */
        g->nsources = 0;
        for (unsigned i = 0; i < g->n; i++) { /* relaxed: published by the spawns below */
            merino_graph_node *x = g->nodes[i];
            __atomic_store_n(&x->pending, x->npred, __ATOMIC_RELAXED);
            MRN_PROF_NODE_RESET(x);
            if (x->npred == 0) g->work[g->nsources++] = x;
        }
        for (unsigned k = g->n; k-- > 0;) { /* levels, in reverse topological order */
            merino_graph_node *x = g->by_ord[k];
            x->level = 1;
            for (unsigned i = 0; i < x->nsucc; i++)
                if (x->succ[i]->level >= x->level) x->level = x->succ[i]->level + 1;
        }
    }
    mrn_gworker *gw = mrn_gself();
    for (unsigned i = g->nsources; i-- > 0;) { /* in reverse: this worker pops the first node first */
        MRN_PROF_NODE_PRED(g->work[i]); /* the run is the sources' predecessor */
        mrn_node_queue(gw, mrn_node_task(g->work[i]), g->work[i]);
    }
    r->status = mrn_group_wait_here(&g->group);
    /* A run that did not complete left counts part-way (successors of a node that threw, or of a
     * cancelled one, never reached zero): the next run resets them all. */
    g->ready = r->status == MERINO_COMPLETE;
}

int merino_graph_run(merino_graph *g) {
    mrn_graph_run_args r = {g, MERINO_COMPLETE};
    mrn_on_worker(mrn_graph_run_here, &r);
    return r.status;
}

void merino_graph_cancel(merino_graph *g) { merino_task_group_cancel(&g->group); }
