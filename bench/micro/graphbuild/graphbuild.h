/* graphbuild — the cost of building a dependency graph: n nodes made, then the edges added in an
 * order that makes incremental cycle detection work (nothing is run in the time measured).
 *
 *     ./graphbuild-<system> --workers N [--reps R] shape n
 *
 * shape: rchain (a chain whose nodes are made in reverse dependency order, its edges added from
 * the far end: node i after node i + 1, for i = 0, 1, ...), rwave (a wavefront of about n nodes
 * made in reverse, its edges added from the last node back) or random (n nodes, each after up to 4
 * of the 64 nodes before it in a hidden order, the nodes made and the edges added in random
 * order). The seconds cover R builds (making the nodes and adding the edges; not deleting). Then
 * the graph runs once, each node taking a ticket: the check is that every node ran, after each of
 * its predecessors. merino builds a merino_graph (whose edges are checked for cycles as they come,
 * within a budget), oneTBB a flow graph of continue_nodes (make_edge checks nothing). */
#ifndef BENCH_GRAPHBUILD_H
#define BENCH_GRAPHBUILD_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gb_edge {
    int from, to;
} gb_edge;

typedef struct gb_graph {
    int n, nedges;
    gb_edge *edges; /* in the order they are added */
    int64_t *ticket; /* ticket[x]: when node x ran (from 1), set by gb_ran */
    int64_t next;    /* atomic */
} gb_graph;

/* Parses the command line and makes the edges; exits with the usage on bad arguments. */
void gb_setup(int argc, char **argv, gb_graph *g, int *workers, int *reps);
/* Node x ran: takes its ticket. */
void gb_ran(gb_graph *g, int x);
/* Whether every node ran once, after its predecessors (then clears the tickets). */
int gb_check(gb_graph *g);

#ifdef __cplusplus
}
#endif

#endif
