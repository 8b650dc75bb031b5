/* flow.c — dependency graphs: nodes with explicit edges, run as task objects of a group.
 *
 * Construction keeps a topological order of the nodes up to date edge by edge (order.c), so a
 * cycle is refused at the edge that would close it, with the nodes on it named.
 *
 * A run counts each node's predecessors down: a node runs as a task of the graph's group (its
 * order there is its index, so the first failing node in index order is the one reported), and the
 * last predecessor to finish makes it ready. Of the successors a node makes ready, the one with the
 * longest path to a sink (its level, computed when the graph changed) runs next on the same worker
 * (bypass) — unless the worker's oldest queued node is more than MRN_LEVEL_SLACK levels above it,
 * which then runs instead — and the others are queued public at once (a worker that ran dry takes
 * them without asking). A failure or a cancellation stops the release of successors, and cancels
 * the nodes made ready but not started. */
#include "flow.h"

#include "../alloc/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A ready node whose oldest queued node is more than this many levels above it runs that one
 * first (mrn_node_older): a smaller slack swaps more often (a locked instruction each), a larger
 * one lets a worker run further ahead of the longest path (docs/notes/2026-11-27-graph.md). */
#define MRN_LEVEL_SLACK 4

merino_task_group *merino__graph_group(merino_graph *g) { return &g->group; }

/* ---- one run or one change at a time -------------------------------------------------------------- */

/* g->busy: a run or a change (a node or an edge being added) holds the graph; any other call
 * that would run or change it meanwhile is refused with a message saying which is the case. */
enum { MRN_G_IDLE, MRN_G_RUNNING, MRN_G_CHANGING };

/* Takes g for a run or a change; returns MRN_G_IDLE, or what holds it (taking nothing). */
static uint32_t mrn_claim(merino_graph *g, uint32_t as) {
    uint32_t was = MRN_G_IDLE;
    /* acquire: what the last run or change wrote (its release in mrn_unclaim) */
    __atomic_compare_exchange_n(&g->busy, &was, as, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
    return was;
}

static void mrn_unclaim(merino_graph *g) {
    __atomic_store_n(&g->busy, MRN_G_IDLE, __ATOMIC_RELEASE); /* release: for the next claim */
}

/* A change refused: call is the API call, with its arguments. */
__attribute__((cold, noinline)) static void mrn_change_refused(uint32_t busy, const char *call) {
    if (busy == MRN_G_RUNNING)
        mrn_error("%s: the graph is running: add nodes and edges between its runs (not from its nodes, "
                  "nor while another thread runs it)",
                  call);
    else
        mrn_error("%s: another thread is adding a node or an edge to the graph at the same time: build a "
                  "graph from one thread at a time",
                  call);
}

/* A run refused. */
__attribute__((cold, noinline)) static int mrn_run_refused(merino_graph *g, uint32_t busy) {
    if (busy == MRN_G_CHANGING) {
        mrn_error("merino_graph_run: another thread is adding a node or an edge to the graph: run it "
                  "once it is built");
        return -1;
    }
    /* Inside a node of g (or in a group or graph nested in one)? Its run would wait for itself. */
    merino_task *ctx = mrn_graph_context();
    for (merino_task_group *grp = ctx ? ctx->merino__group : NULL; grp; grp = grp->merino__outer)
        if (grp == &g->group) {
            mrn_error("merino_graph_run inside a node of the same graph: a graph cannot run itself (the run "
                      "would wait for the node that started it); run another graph or a task group there");
            return -1;
        }
    mrn_error("merino_graph_run of a graph that is already running (started by another thread): a graph "
              "runs once at a time; wait for that run to return, or give each thread a graph of its own");
    return -1;
}

/* ---- construction ------------------------------------------------------------------------------------ */

merino_graph *merino_graph_new(void) {
    mrn_graph_init();
    merino_graph *g = mrn_mem_alloc(MRN_CACHE_LINE, sizeof *g); /* its group's anchor task is aligned */
    if (g) {
        memset(g, 0, sizeof *g);
        mrn_order_init(g);
    } else {
        mrn_error("out of memory making a dependency graph");
    }
    return g;
}

void merino_graph_delete(merino_graph *g) {
    if (!g) return;
    if (MRN_UNLIKELY(mrn_claim(g, MRN_G_CHANGING) != MRN_G_IDLE))
        mrn_fatal("merino_graph_delete of a graph that is running or being changed: delete it after its "
                  "run (or the call changing it) has returned, never from one of its nodes");
    for (unsigned i = 0; i < g->n; i++) {
        merino_graph_node *x = g->nodes[i];
        free(x->name);
        free(x->succ);
        free(x->pred);
        mrn_mem_free(x);
    }
    free(g->nodes);
    free(g->work);
    free(g->sources);
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

/* Makes room for one more pointer in a node's *a (count n), whose capacity doubles from 4: it is
 * full when n is 0, or 4 or more and a power of two. */
static bool mrn_node_grow(merino_graph_node ***a, unsigned n) {
    if (n != 0 && (n < 4 || (n & (n - 1)) != 0)) return true;
    void *p = realloc(*a, (n ? 2 * (size_t)n : 4) * sizeof **a);
    if (!p) return false;
    *a = p;
    return true;
}

/* Makes room for one more node in the graph's three arrays. */
static bool mrn_reserve_node(merino_graph *g) {
    if (g->n < g->cap) return true;
    unsigned c = g->cap, c2 = g->cap, c3 = g->cap;
    if (!mrn_grow(&g->nodes, g->n, &c) || !mrn_grow(&g->work, g->n, &c2) || !mrn_grow(&g->sources, g->n, &c3))
        return false; /* the arrays that grew keep their room: the next call starts from there */
    g->cap = c;
    return true;
}

/* merino_graph_node_new, the graph taken. */
static merino_graph_node *mrn_node_new(merino_graph *g, const char *name, void (*fn)(void *), void *arg) {
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
    x->index = g->n;
    g->nodes[g->n++] = x;
    mrn_order_append(g, x);
    g->ready = false;
    return x;
}

merino_graph_node *merino_graph_node_new(merino_graph *g, const char *name, void (*fn)(void *), void *arg) {
    uint32_t busy = mrn_claim(g, MRN_G_CHANGING);
    if (MRN_UNLIKELY(busy != MRN_G_IDLE)) {
        char call[160];
        snprintf(call, sizeof call, "merino_graph_node_new(\"%s\")", name ? name : "(unnamed)");
        mrn_change_refused(busy, call);
        return NULL;
    }
    merino_graph_node *x = mrn_node_new(g, name, fn, arg);
    mrn_unclaim(g);
    return x;
}

const char *merino_graph_node_name(const merino_graph_node *n) { return n->name; }

/* merino_graph_edge, the graph taken. */
static int mrn_edge(merino_graph *g, merino_graph_node *from, merino_graph_node *to) {
    if (from == to) {
        mrn_error("merino_graph_edge(\"%s\", \"%s\") would close a cycle: a node cannot follow "
                  "itself; a dependency graph must be acyclic",
                  from->name, to->name);
        return -1;
    }
    if (!mrn_node_grow(&from->succ, from->nsucc) || !mrn_node_grow(&to->pred, to->npred)) {
        mrn_error("out of memory adding the edge \"%s\" -> \"%s\"", from->name, to->name);
        return -1;
    }
    if (!mrn_order_edge(g, from, to)) return -1; /* a cycle: reported, nothing changed */
    from->succ[from->nsucc++] = to;
    to->pred[to->npred++] = from;
    g->ready = false; /* a new edge: the next run counts predecessors and levels again */
    return 0;
}

int merino_graph_edge(merino_graph_node *from, merino_graph_node *to) {
    merino_graph *g = from->graph;
    if (to->graph != g) {
        mrn_error("merino_graph_edge(\"%s\", \"%s\"): the nodes belong to different graphs; an edge "
                  "joins two nodes of the same graph",
                  from->name, to->name);
        return -1;
    }
    uint32_t busy = mrn_claim(g, MRN_G_CHANGING);
    if (MRN_UNLIKELY(busy != MRN_G_IDLE)) {
        char call[160];
        snprintf(call, sizeof call, "merino_graph_edge(\"%s\", \"%s\")", from->name, to->name);
        mrn_change_refused(busy, call);
        return -1;
    }
    int rc = mrn_edge(g, from, to);
    mrn_unclaim(g);
    return rc;
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
     * while the other workers idle. */
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
            if (x->npred == 0) g->sources[g->nsources++] = x;
        }
        for (merino_graph_node *x = g->last; x; x = x->prev) { /* levels, in reverse topological order */
            x->level = 1;
            for (unsigned i = 0; i < x->nsucc; i++)
                if (x->succ[i]->level >= x->level) x->level = x->succ[i]->level + 1;
        }
    }
    mrn_gworker *gw = mrn_gself();
    for (unsigned i = g->nsources; i-- > 0;) { /* in reverse: this worker pops the first node first */
        MRN_PROF_NODE_PRED(g->sources[i]); /* the run is the sources' predecessor */
        mrn_node_queue(gw, mrn_node_task(g->sources[i]), g->sources[i]);
    }
    r->status = mrn_group_wait_here(&g->group);
    /* A run that did not complete left counts part-way (successors of a node that threw, or of a
     * cancelled one, never reached zero): the next run resets them all. */
    g->ready = r->status == MERINO_COMPLETE;
}

/* Takes g for a run: 0; or -1, with the message, when it is taken or has a cycle. */
static int mrn_run_begin(merino_graph *g) {
    uint32_t busy = mrn_claim(g, MRN_G_RUNNING);
    if (MRN_UNLIKELY(busy != MRN_G_IDLE)) return mrn_run_refused(g, busy);
    /* edges added unchecked (order.c): the whole graph checked once, before it runs */
    if (MRN_LIKELY(g->checked) || mrn_order_check(g, "merino_graph_run")) return 0;
    mrn_unclaim(g);
    return -1;
}

/* Runs g, taken by mrn_run_begin, and gives it back. */
static int mrn_run_taken(merino_graph *g) {
    mrn_graph_run_args r = {g, MERINO_COMPLETE};
    mrn_on_worker(mrn_graph_run_here, &r);
    mrn_unclaim(g);
    return r.status;
}

int merino_graph_run(merino_graph *g) { return mrn_run_begin(g) == 0 ? mrn_run_taken(g) : -1; }

int merino__graph_run_quiet(merino_graph *g) {
    bool was = mrn_error_quiet(true); /* the refusal only: the nodes' own calls print as usual */
    int rc = mrn_run_begin(g);
    mrn_error_quiet(was);
    return rc == 0 ? mrn_run_taken(g) : -1;
}

int merino__graph_quiet(int quiet) { return mrn_error_quiet(quiet != 0); }

void merino_graph_cancel(merino_graph *g) { merino_task_group_cancel(&g->group); }
