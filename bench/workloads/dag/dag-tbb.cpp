// dag, oneTBB: ./dag-tbb --workers N [--reps R] shape size block_us
// A tbb::flow::graph of continue_nodes (one per block) with make_edge from each predecessor; the
// nodes with no predecessor are started with try_put; built once, run R times.
#include <tbb/flow_graph.h>
#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include <vector>

#include "bench.h"
#include "dag.h"

int main(int argc, char **argv) {
    dag d;
    int workers, reps;
    dag_setup(argc, argv, &d, &workers, &reps);
    DAG_START(&d, reps);
    tbb::global_control gc(tbb::global_control::max_allowed_parallelism, (size_t)workers);
    tbb::task_arena arena(workers);
    double t = 0;
    arena.execute([&] {
        tbb::flow::graph g;
        std::vector<tbb::flow::continue_node<tbb::flow::continue_msg>> nodes;
        nodes.reserve((size_t)d.n);
        for (int x = 0; x < d.n; x++)
            nodes.emplace_back(g, [&d, x](const tbb::flow::continue_msg &) { DAG_NODE(&d, x); });
        for (int x = 0; x < d.n; x++)
            for (int i = 0; i < d.npred[x]; i++) tbb::flow::make_edge(nodes[(size_t)d.pred[x][i]], nodes[(size_t)x]);
        double t0 = bench_now();
        for (int r = 0; r < reps; r++) {
            DAG_REP(r);
            for (int x = 0; x < d.n; x++)
                if (d.npred[x] == 0) nodes[(size_t)x].try_put(tbb::flow::continue_msg());
            g.wait_for_all();
        }
        t = bench_now() - t0;
    });
    DAG_DONE(&d, reps);
    int64_t result;
    int ok = dag_check(&d, &result);
    return bench_report_i64(t, ok, result, (int64_t)d.n * reps);
}
