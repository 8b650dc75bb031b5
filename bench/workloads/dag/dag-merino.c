/* dag, merino: ./dag-merino --workers N [--reps R] shape size block_us
 * A merino_graph (merino_graph.h): one node per block, its edges from its predecessors; built once,
 * run R times. */
#include <merino_graph.h>
#include <stdlib.h>

#include "bench.h"
#include "dag.h"

typedef struct node_arg {
    const dag *d;
    int x;
} node_arg;

static void run_node(void *p) {
    node_arg *a = p;
    DAG_NODE(a->d, a->x);
}

int main(int argc, char **argv) {
    dag d;
    int workers, reps;
    dag_setup(argc, argv, &d, &workers, &reps);
    DAG_START(&d, reps);
    merino_config cfg = {0};
    cfg.workers = (unsigned)workers;
    if (merino_start(&cfg) != 0) return 2;
    merino_graph *g = merino_graph_new();
    node_arg *args = malloc((size_t)d.n * sizeof *args);
    merino_graph_node **nodes = malloc((size_t)d.n * sizeof *nodes);
    if (!g || !args || !nodes) return 2;
    for (int x = 0; x < d.n; x++) {
        args[x] = (node_arg){&d, x};
        if (!(nodes[x] = merino_graph_node_new(g, NULL, run_node, &args[x]))) return 2;
        for (int i = 0; i < d.npred[x]; i++)
            if (merino_graph_edge(nodes[d.pred[x][i]], nodes[x]) != 0) return 2;
    }
    double t0 = bench_now();
    for (int r = 0; r < reps; r++) {
        DAG_REP(r);
        merino_graph_run(g);
    }
    double t = bench_now() - t0;
    BENCH_MERINO_STATS();
    merino_graph_delete(g);
    merino_stop();
    DAG_DONE(&d, reps);
    int64_t result;
    int ok = dag_check(&d, &result);
    return bench_report_i64(t, ok, result, (int64_t)d.n * reps);
}
