/* graphbuild, merino: ./graphbuild-merino --workers N [--reps R] shape n
 * A merino_graph: merino_graph_node_new for each node, merino_graph_edge for each edge (cycles
 * checked as they come, within a budget); the last build runs once, for the check. */
#include <merino.h>
#include <merino_graph.h>

#include <stdlib.h>

#include "bench.h"
#include "graphbuild.h"

typedef struct node_arg {
    gb_graph *g;
    int x;
} node_arg;

static void node_fn(void *p) {
    node_arg *a = p;
    gb_ran(a->g, a->x);
}

int main(int argc, char **argv) {
    gb_graph g;
    int workers, reps;
    gb_setup(argc, argv, &g, &workers, &reps);
    merino_config cfg = {0};
    cfg.workers = (unsigned)workers;
    if (merino_start(&cfg) != 0) return 2;
    node_arg *args = malloc(sizeof *args * (size_t)g.n);
    merino_graph_node **nodes = malloc(sizeof *nodes * (size_t)g.n);
    if (!args || !nodes) return 2;
    for (int x = 0; x < g.n; x++) args[x] = (node_arg){&g, x};
    double t = 0;
    int ok = 1;
    for (int r = 0; r < reps; r++) {
        double t0 = bench_now();
        merino_graph *mg = merino_graph_new();
        for (int x = 0; x < g.n; x++) nodes[x] = merino_graph_node_new(mg, NULL, node_fn, &args[x]);
        for (int k = 0; k < g.nedges; k++) ok &= merino_graph_edge(nodes[g.edges[k].from], nodes[g.edges[k].to]) == 0;
        t += bench_now() - t0;
        if (r == reps - 1) ok &= merino_graph_run(mg) == MERINO_COMPLETE && gb_check(&g);
        merino_graph_delete(mg);
    }
    merino_stop();
    return bench_report_i64(t, ok, g.nedges, -1);
}
