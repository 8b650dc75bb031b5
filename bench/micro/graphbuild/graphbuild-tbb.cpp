// graphbuild, oneTBB: ./graphbuild-tbb --workers N [--reps R] shape n
// A tbb::flow::graph of continue_nodes with make_edge for each edge (no cycle check); the last
// build runs once (try_put to the nodes with no predecessor), for the check.
#include <tbb/flow_graph.h>
#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include <memory>
#include <vector>

#include "bench.h"
#include "graphbuild.h"

int main(int argc, char **argv) {
    gb_graph g;
    int workers, reps;
    gb_setup(argc, argv, &g, &workers, &reps);
    tbb::global_control gc(tbb::global_control::max_allowed_parallelism, (size_t)workers);
    tbb::task_arena arena(workers);
    double t = 0;
    int ok = 1;
    std::vector<int> npred((size_t)g.n);
    for (int k = 0; k < g.nedges; k++) npred[(size_t)g.edges[k].to]++;
    arena.execute([&] {
        for (int r = 0; r < reps; r++) {
            double t0 = bench_now();
            auto fg = std::make_unique<tbb::flow::graph>();
            std::vector<tbb::flow::continue_node<tbb::flow::continue_msg>> nodes;
            nodes.reserve((size_t)g.n);
            for (int x = 0; x < g.n; x++)
                nodes.emplace_back(*fg, [&g, x](const tbb::flow::continue_msg &) { gb_ran(&g, x); });
            for (int k = 0; k < g.nedges; k++)
                tbb::flow::make_edge(nodes[(size_t)g.edges[k].from], nodes[(size_t)g.edges[k].to]);
            t += bench_now() - t0;
            if (r == reps - 1) {
                for (int x = 0; x < g.n; x++)
                    if (npred[(size_t)x] == 0) nodes[(size_t)x].try_put(tbb::flow::continue_msg());
                fg->wait_for_all();
                ok &= gb_check(&g);
            }
        }
    });
    return bench_report_i64(t, ok, g.nedges, -1);
}
