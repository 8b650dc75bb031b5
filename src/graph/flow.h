/* flow.h — the dependency graph's structures, shared by flow.c (the API and runs) and order.c (the
 * topological order kept during construction). Internal to src/graph. */
#ifndef MERINO_GRAPH_FLOW_H
#define MERINO_GRAPH_FLOW_H

#include "graph.h"

/* Its own two cache lines: the first holds what a run reads and writes, so that a node's count,
 * written by the workers that run its predecessors, shares no line with another node. */
struct merino_graph_node {
    _Alignas(MRN_CACHE_LINE) void (*fn)(void *);
    void *arg;
    merino_graph *graph;
    merino_graph_node **succ;
    unsigned nsucc, npred;
    unsigned index;   /* order of creation */
    unsigned level;   /* nodes on the longest path from here to a sink (set by a run) */
    uint32_t pending; /* atomic, during a run: predecessors not finished */
    uint32_t mark;    /* construction: which search visited it (a stamp); a check: predecessors left */
    /* construction (order.c); succ and pred grow by doubling from 4 (mrn_node_grow) */
    _Alignas(MRN_CACHE_LINE) char *name;
    uint64_t label;                 /* place in the topological order: labels grow along it */
    merino_graph_node *prev, *next; /* the topological order, as a list */
    merino_graph_node *via;         /* a search: the node it came from (the cycle's path) */
    merino_graph_node **pred;       /* npred of them */
#if MERINO__PROFILE
    uint64_t prof_path[2]; /* atomic: the profiler's: where the node's path begins (prof_hooks.h) */
#endif
};
_Static_assert(sizeof(merino_graph_node) == 2 * MRN_CACHE_LINE, "a node is two cache lines");

struct merino_graph {
    merino_graph_node **nodes;   /* by index */
    merino_graph_node **work;    /* a search's scratch: room for every node */
    merino_graph_node **sources; /* while ready: the nodes with no predecessor */
    unsigned n, cap;             /* cap: of each of the three arrays */
    unsigned nsources;
    uint32_t busy;               /* atomic: idle, running, or being changed (flow.c, mrn_claim) */
    bool ready;                  /* after a complete run, the graph unchanged since: every node's
                                    pending equals its npred again, and sources holds them */
    merino_graph_node *first, *last; /* the nodes in topological order while checked (order.c) */
    bool checked;                /* acyclic, in order: edges are checked as they come */
    uint32_t stamp;              /* the last search's stamp */
    uint64_t credit;             /* steps the searches may still take (order.c) */
    unsigned long long steps;    /* steps taken: searches, relabelling, whole checks (tests count them) */
    merino_task_group group;
};

/* ---- order.c ---- */

/* Steps of search each node and edge added to a graph gives it (tests change it). */
extern unsigned mrn_graph_search_credit;

/* A new graph's order: empty, checked. */
void mrn_order_init(merino_graph *g);
/* Places x, a new node, last in g's order. */
void mrn_order_append(merino_graph *g, merino_graph_node *x);
/* Whether the edge from -> to may be added. While g is checked: false if the edge would close a
 * cycle (the message names it; nothing changes), else true with the order repaired so that from
 * comes before to — or, when that would take more steps than g's credit, true with g no longer
 * checked. Allocates nothing: g->work has room for every node. The edge is the caller's to add. */
bool mrn_order_edge(merino_graph *g, merino_graph_node *from, merino_graph_node *to);
/* Checks a graph that is not checked, in time linear in its size: true with g in topological order
 * and checked again; or false, the message naming a cycle (what: the API function, for it). */
bool mrn_order_check(merino_graph *g, const char *what);
/* The steps so far (tests/test_graph_build.c checks that they grow near-linearly). */
unsigned long long mrn_graph_steps(const merino_graph *g);
/* Whether g's edges are checked as they come. */
bool mrn_graph_checked(const merino_graph *g);

#endif
