/* dag — dependency graphs in the shapes of Taskflow's benchmarks: a linear chain, a binary tree
 * (each node runs after its parent), a wavefront over a 2-D grid of blocks (each block after its
 * left and upper neighbours) and a random DAG (each node after up to 4 earlier nodes). Each node
 * does about block_us microseconds of work (a calibrated loop) seeded with its predecessors'
 * values; the checksum of all values is compared with a serial evaluation in the same program.
 *
 *     ./dag-<system> --workers N [--reps R] shape size block_us
 *
 * shape: chain (size nodes), tree (2^size - 1 nodes), wavefront (size x size blocks) or random
 * (size nodes). merino runs it as a merino_graph (merino_graph.h), oneTBB as a flow graph of
 * continue_nodes, OpenMP as tasks with depend clauses created in topological order. The graph is
 * built once (not timed) and run R times; tasks = nodes x R. */
#ifndef BENCH_DAG_H
#define BENCH_DAG_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DAG_MAX_PRED 4

typedef struct dag {
    int n;
    int (*pred)[DAG_MAX_PRED]; /* pred[x][0..npred[x]-1]: all earlier than x (index order is topological) */
    int *npred;
    uint64_t iters;            /* loop iterations of one node's work */
    uint64_t *value;           /* value[x] after a run */
} dag;

/* Parses the command line and builds the graph; exits with the usage on bad arguments. */
void dag_setup(int argc, char **argv, dag *d, int *workers, int *reps);
/* Node x's work: reads its predecessors' values, writes value[x]. */
void dag_node(const dag *d, int x);
/* A run in index order (the reference). */
void dag_serial(const dag *d);
/* The checksum of the values. */
uint64_t dag_checksum(const dag *d);
/* Whether the values of the last run are those of a serial run done here (which overwrites
 * them); *result: their checksum, for the JSON line (which each program prints itself: bench.h's
 * extra fields are per file). */
int dag_check(dag *d, int64_t *result);

#ifdef __cplusplus
}
#endif

/* Hooks of workloads/dag/trace, which defines them and then includes a dag-<system> file: a node's
 * work, after the set-up, before each run, after the runs. Nothing here. */
#ifndef DAG_NODE
#define DAG_NODE(d, x) dag_node(d, x)
#define DAG_START(d, reps) ((void)0)
#define DAG_REP(r) ((void)0)
#define DAG_DONE(d, reps) ((void)0)
#endif

#endif
