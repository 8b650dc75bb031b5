// Dependency graphs (merino::graph over merino_graph.h) at 1, 2, 3, 4 and 8 workers: a wavefront
// over a grid of blocks and random DAGs (edges added in random order, so that the topological
// order is repaired as they come) against serial evaluation, each graph run several times; a
// cycle rejected with a message naming its nodes (and the graph fine after it, also when it had
// run before: every node runs once in each run before and after); a failing node
// stops its successors and run() rethrows the first failure in node order; cancel() in a running
// chain stops it; a graph run from a task of a group.
#include "check.h"

#include "graph_mix.h"

#include <merino_graph.hpp>

#include <algorithm>
#include <cstring>
#include <atomic>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

// Steps of search each node and edge added gives its graph (src/graph/flow.h).
extern "C" unsigned mrn_graph_search_credit;

namespace {

struct boom {
    int id;
};

void wavefront(unsigned workers) {
    check_set_context("workers=%u wavefront", workers);
    const int n = 24;
    std::vector<uint64_t> v(n * n), expect(n * n);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            expect[i * n + j] = mix((i ? expect[(i - 1) * n + j] : 1) + (j ? expect[i * n + j - 1] : 2) + i * n + j);
    merino::graph g;
    std::vector<merino::graph::node> nodes(n * n);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            nodes[i * n + j] = g.emplace([&v, i, j, n] {
                v[i * n + j] = mix((i ? v[(i - 1) * n + j] : 1) + (j ? v[i * n + j - 1] : 2) + i * n + j);
            });
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            if (i) g.precede(nodes[(i - 1) * n + j], nodes[i * n + j]);
            if (j) g.precede(nodes[i * n + j - 1], nodes[i * n + j]);
        }
    for (int run = 0; run < 3; run++) {
        std::fill(v.begin(), v.end(), 0);
        CHECK(g.run() == merino::task_group_status::complete);
        for (int k = 0; k < n * n; k++) CHECK_EQ_UINT(v[k], expect[k]);
    }
}

void random_dags(unsigned workers, int count) {
    for (int d = 0; d < count; d++) {
        check_set_context("workers=%u random DAG %d", workers, d);
        std::mt19937_64 rng(1000 + d);
        const int n = 50 + (int)(rng() % 300);
        std::vector<int> topo(n); // topo[k]: the node in place k of a hidden topological order
        std::iota(topo.begin(), topo.end(), 0);
        std::shuffle(topo.begin(), topo.end(), rng);
        std::vector<std::pair<int, int>> edges;
        for (int a = 0; a < n; a++)
            for (int b = a + 1; b < n && b < a + 20; b++)
                if (rng() % 4 == 0) edges.emplace_back(topo[a], topo[b]);
        std::shuffle(edges.begin(), edges.end(), rng);
        std::vector<std::vector<int>> preds(n);
        for (auto [a, b] : edges) preds[b].push_back(a);
        std::vector<uint64_t> expect(n), v(n);
        for (int k = 0; k < n; k++) { // serial: in the hidden order
            int x = topo[k];
            uint64_t s = mix((uint64_t)x);
            for (int p : preds[x]) s += expect[p];
            expect[x] = mix(s);
        }
        merino::graph g;
        std::vector<merino::graph::node> nodes;
        for (int x = 0; x < n; x++)
            nodes.push_back(g.emplace([&v, &preds, x] {
                uint64_t s = mix((uint64_t)x);
                for (int p : preds[x]) s += v[p];
                v[x] = mix(s);
            }));
        for (auto [a, b] : edges) g.precede(nodes[a], nodes[b]);
        for (int run = 0; run < 2; run++) {
            std::fill(v.begin(), v.end(), 0);
            CHECK(g.run() == merino::task_group_status::complete);
            for (int x = 0; x < n; x++) CHECK_EQ_UINT(v[x], expect[x]);
        }
    }
}

// The message of the error that precede(a, b) throws, or "".
std::string edge_error(merino::graph &g, merino::graph::node a, merino::graph::node b) {
    try {
        g.precede(a, b);
    } catch (const std::invalid_argument &e) {
        return e.what();
    }
    return "";
}

void cycles() {
    check_set_context("cycles");
    merino::graph g;
    int runs = 0;
    auto a = g.emplace([&] { runs++; }, "load");
    auto b = g.emplace([&] { runs++; }, "parse");
    auto c = g.emplace([&] { runs++; }, "check");
    g.precede(a, b);
    g.precede(b, c);
    std::string what = edge_error(g, c, a);
    CHECK_STR_CONTAINS(what.c_str(), "would close a cycle");
    CHECK_STR_CONTAINS(what.c_str(), "\"load\" -> \"parse\" -> \"check\" -> \"load\"");
    what = edge_error(g, b, b);
    CHECK_STR_CONTAINS(what.c_str(), "parse");
    CHECK(g.run() == merino::task_group_status::complete); // the rejected edges were not added
    CHECK_EQ_INT(runs, 3);
    // A long cycle through a reordered part: d -> e added before e's predecessor chain.
    auto d = g.emplace([] {}, "d");
    auto e = g.emplace([] {}, "e");
    g.precede(e, a); // e before load: reorders
    g.precede(d, e);
    what = edge_error(g, c, d);
    CHECK_STR_CONTAINS(what.c_str(), "\"d\" -> \"e\" -> \"load\" -> \"parse\" -> \"check\" -> \"d\"");
    // A graph whose edges are not checked one by one (no search credit): run() refuses the cycle.
    unsigned credit = mrn_graph_search_credit;
    mrn_graph_search_credit = 0;
    merino::graph h;
    auto x = h.emplace([&] { runs++; }, "x");
    auto y = h.emplace([&] { runs++; }, "y");
    h.precede(y, x); // goes back in the order: no credit for its search, so the graph is unchecked
    h.precede(x, y); // added unchecked: the cycle is found by run()
    runs = 0;
    try {
        h.run();
        CHECK_MSG(false, "run() of a graph with a cycle did not throw");
    } catch (const std::logic_error &e) {
        CHECK_STR_CONTAINS(e.what(), "the graph has a cycle: ");
    }
    CHECK_EQ_INT(runs, 0);
    mrn_graph_search_credit = credit;
}

// An edge rejected (a cycle) on a graph that has already run leaves the graph as it was: every
// node runs exactly once in each run before and after the rejection, and every run completes. The
// rejected edge's search used to overwrite the sources a complete run caches for the next, and
// the next run then ran some nodes only (a chain: 2 of 3; a diamond: 1 of 4; a 40 x 40
// wavefront: 39 of 1,600) and reported success.
struct counted {
    merino::graph g;
    std::vector<merino::graph::node> nodes;
    std::vector<std::atomic<int>> runs;
    explicit counted(int n) : runs(n) {
        for (int i = 0; i < n; i++) nodes.push_back(g.emplace([this, i] { runs[i]++; }, ("n" + std::to_string(i)).c_str()));
    }
    // Runs the graph and checks that every node ran once in it.
    void run_once(const char *when) {
        for (auto &r : runs) r = 0;
        CHECK_MSG(g.run() == merino::task_group_status::complete, "a run %s did not complete", when);
        for (size_t i = 0; i < runs.size(); i++)
            CHECK_MSG(runs[i].load() == 1, "node %zu ran %d times in a run %s", i, runs[i].load(), when);
    }
    void rejected(int from, int to) {
        std::string what = edge_error(g, nodes[from], nodes[to]);
        CHECK_STR_CONTAINS(what.c_str(), "would close a cycle");
    }
};

void rejected_edges_after_runs() {
    check_set_context("rejected edges after runs: chain");
    {
        counted c(3); // a -> b -> c, then c -> a rejected
        c.g.precede(c.nodes[0], c.nodes[1]);
        c.g.precede(c.nodes[1], c.nodes[2]);
        c.run_once("before the rejection");
        c.rejected(2, 0);
        c.run_once("after the rejection");
        c.run_once("after the rejection (again)");
    }
    check_set_context("rejected edges after runs: diamond");
    {
        counted d(4); // 0 -> 1, 0 -> 2, 1 -> 3, 2 -> 3; then 3 -> 0 and 3 -> 1 rejected
        d.g.precede(d.nodes[0], d.nodes[1]);
        d.g.precede(d.nodes[0], d.nodes[2]);
        d.g.precede(d.nodes[1], d.nodes[3]);
        d.g.precede(d.nodes[2], d.nodes[3]);
        d.run_once("before the rejection");
        d.rejected(3, 0);
        d.run_once("after the rejection");
        d.rejected(3, 1);
        d.rejected(2, 2);
        d.run_once("after three rejections");
    }
    check_set_context("rejected edges after runs: 40 x 40 wavefront");
    {
        const int n = 40;
        counted w(n * n);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                if (i) w.g.precede(w.nodes[(i - 1) * n + j], w.nodes[i * n + j]);
                if (j) w.g.precede(w.nodes[i * n + j - 1], w.nodes[i * n + j]);
            }
        w.run_once("before the rejection");
        w.rejected(n * n - 1, 0);
        w.run_once("after the rejection");
        w.rejected(n * n - 1, n + 1); // a search through part of the grid
        w.run_once("after the second rejection");
    }
}

void failures(unsigned workers) {
    check_set_context("workers=%u failures", workers);
    for (int rep = 0; rep < 20; rep++) {
        merino::graph g;
        std::atomic<int> after{0};
        auto r1 = g.emplace([] { throw boom{1}; });
        auto r2 = g.emplace([] { throw boom{2}; });
        auto s1 = g.emplace([&] { after++; });
        auto s2 = g.emplace([&] { after++; });
        g.precede(r1, s1);
        g.precede(r2, s2);
        int got = -1;
        try {
            g.run();
        } catch (const boom &e) {
            got = e.id;
        }
        CHECK_EQ_INT(got, 1); // r1 comes first in node order, whichever threw first (both start)
        CHECK_EQ_INT(after.load(), 0);
    }
    // A run that failed part-way leaves counts part-way: the next runs start from whole counts
    // (a node made ready resets its own count for the next run; a run that does not complete
    // makes the next one reset them all). A diamond grid, one node failing in the first run only.
    {
        merino::graph g;
        const int n = 12;
        std::atomic<int> runs_of[n * n];
        for (auto &r : runs_of) r = 0;
        std::atomic<bool> fail{true};
        std::vector<merino::graph::node> grid;
        std::atomic<int> early{0}; // nodes that started before a predecessor had run in this run
        for (int i = 0; i < n * n; i++) grid.push_back(g.emplace([&, i] {
            int r = runs_of[i].load() + 1; // this node's runs so far in this round, this one included
            if ((i >= n && runs_of[i - n].load() < r) || (i % n > 0 && runs_of[i - 1].load() < r)) early++;
            runs_of[i]++;
            if (i == n + 1 && fail.exchange(false)) throw boom{7};
        }));
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                if (i + 1 < n) g.precede(grid[i * n + j], grid[(i + 1) * n + j]);
                if (j + 1 < n) g.precede(grid[i * n + j], grid[i * n + j + 1]);
            }
        int got = -1;
        try {
            g.run();
        } catch (const boom &e) {
            got = e.id;
        }
        CHECK_EQ_INT(got, 7);
        CHECK_EQ_INT(runs_of[n * n - 1].load(), 0); // the last node is after the failing one
        for (int run = 1; run <= 5; run++) {
            for (auto &r : runs_of) r = 0;
            CHECK(g.run() == merino::task_group_status::complete);
            for (int i = 0; i < n * n; i++) CHECK_EQ_INT(runs_of[i].load(), 1);
            CHECK_EQ_INT(early.load(), 0);
        }
        // A node added after complete runs is a source of the next run too.
        std::atomic<int> extra{0};
        auto late = g.emplace([&] { extra++; });
        g.precede(late, grid[0]);
        for (auto &r : runs_of) r = 0;
        CHECK(g.run() == merino::task_group_status::complete);
        CHECK_EQ_INT(extra.load(), 1);
        for (int i = 0; i < n * n; i++) CHECK_EQ_INT(runs_of[i].load(), 1);
        CHECK_EQ_INT(early.load(), 0);
    }
    // cancel() from a node of a chain: the nodes after it do not run; the next run runs them all.
    merino::graph g;
    std::atomic<int> ran{0};
    std::vector<merino::graph::node> chain;
    for (int i = 0; i < 200; i++) chain.push_back(g.emplace([&, i] {
        ran++;
        if (i == 10 && ran.load() < 200) g.cancel();
    }));
    for (int i = 1; i < 200; i++) g.precede(chain[i - 1], chain[i]);
    CHECK(g.run() == merino::task_group_status::canceled);
    CHECK_EQ_INT(ran.load(), 11);
    ran = 1000;
    CHECK(g.run() == merino::task_group_status::complete);
    CHECK_EQ_INT(ran.load(), 1200);
    // A graph run inside a task group's task, the group cancelled from the graph: nested.
    merino::task_group outer;
    std::atomic<int> nested{0};
    outer.run([&] {
        merino::graph h;
        auto x = h.emplace([&] { outer.cancel(); });
        auto y = h.emplace([&] { nested++; });
        h.precede(x, y);
        CHECK(h.run() == merino::task_group_status::canceled);
    });
    CHECK(outer.wait() == merino::task_group_status::canceled);
    CHECK_EQ_INT(nested.load(), 0);
}

// The order at one worker (deterministic): of the successors a node makes ready, the one with the
// longest path to a sink runs first; and a worker that has run far down one path (its next node
// more than 4 levels below its oldest queued one) switches to that queued node. S precedes P1 and
// Q1, edges in that order (the old rule, the last made ready first, ran Q1 first); P1..P8 and
// Q1..Q7 are chains. P1 (level 8) runs before Q1 (level 7); after P6, P7 (level 2) is more than 4
// below Q1, so the Q chain runs, then P7 and P8.
void longest_path_first() {
    check_set_context("workers=1 longest path first");
    std::string order;
    merino::graph g;
    auto s = g.emplace([&] { order += "S "; });
    std::vector<merino::graph::node> p, q;
    for (int i = 1; i <= 8; i++) p.push_back(g.emplace([&order, i] { order += "P" + std::to_string(i) + " "; }));
    for (int i = 1; i <= 7; i++) q.push_back(g.emplace([&order, i] { order += "Q" + std::to_string(i) + " "; }));
    g.precede(s, p[0]);
    g.precede(s, q[0]);
    for (size_t i = 1; i < p.size(); i++) g.precede(p[i - 1], p[i]);
    for (size_t i = 1; i < q.size(); i++) g.precede(q[i - 1], q[i]);
    for (int run = 0; run < 2; run++) {
        order.clear();
        CHECK(g.run() == merino::task_group_status::complete);
        CHECK_STR_EQ(order.c_str(), "S P1 P2 P3 P4 P5 P6 Q1 Q2 Q3 Q4 Q5 Q6 Q7 P7 P8 ");
    }
}


// A graph run inside a node of another graph, at one worker: the inner graph's node that makes two
// successors ready looks at the worker's oldest queued node for the longest-path swap, and finds
// the outer graph's node B (level 9, far above). It must leave it where it is: moved to the
// bottom of the deque (as a node of another graph was), B sits above the inner graph's queued
// node, shallower than the inner wait, which then can neither pop it nor steal anything: the run
// hung. An alarm turns the hang into a failure.
void nested_graph_in_node() {
    check_set_context("workers=1 a graph run in a node of another graph");
    std::string order;
    merino::graph inner;
    auto x = inner.emplace([&] { order += "X "; });
    auto y = inner.emplace([&] { order += "Y "; });
    auto z = inner.emplace([&] { order += "Z "; });
    inner.precede(x, y);
    inner.precede(x, z);
    merino::graph outer;
    // A first (its task is pushed last, so it runs first), then B at the head of a chain of 9.
    auto a = outer.emplace([&] {
        order += "A[ ";
        CHECK(inner.run() == merino::task_group_status::complete);
        order += "] ";
    });
    std::vector<merino::graph::node> b;
    for (int i = 0; i < 9; i++) b.push_back(outer.emplace([&order, i] { order += "B" + std::to_string(i) + " "; }));
    for (size_t i = 1; i < b.size(); i++) outer.precede(b[i - 1], b[i]);
    (void)a;
    alarm(30); // the default action ends the test: the run hung
    for (int run = 0; run < 2; run++) {
        order.clear();
        CHECK(outer.run() == merino::task_group_status::complete);
        CHECK_STR_CONTAINS(order.c_str(), "A[ X ");
        CHECK_STR_CONTAINS(order.c_str(), " ] ");
        CHECK_STR_CONTAINS(order.c_str(), "B8 ");
    }
    alarm(0);
}

// In a child process: the errors graph's calls throw are not printed too (they were: a cycle
// refused by precede() was on stderr as well as in the exception). A cycle refused by precede()
// and by run(), a node and an edge refused during a run: each throws, with merino's message.
int quiet_errors() {
    unsigned credit = mrn_graph_search_credit;
    merino::graph g;
    auto a = g.emplace([] {}, "a");
    auto b = g.emplace([] {}, "b");
    g.precede(a, b);
    std::string what = edge_error(g, b, a);
    CHECK_STR_CONTAINS(what.c_str(), "merino: merino_graph_edge(\"b\", \"a\") would close a cycle");
    mrn_graph_search_credit = 0; // unchecked: the cycle is run()'s to find
    merino::graph h;
    auto x = h.emplace([] {}, "x");
    auto y = h.emplace([] {}, "y");
    h.precede(y, x);
    h.precede(x, y);
    try {
        h.run();
        CHECK_MSG(false, "run() of a graph with a cycle did not throw");
    } catch (const std::logic_error &e) {
        CHECK_STR_CONTAINS(e.what(), "merino: merino_graph_run: the graph has a cycle");
    }
    mrn_graph_search_credit = credit;
    merino::graph k;
    std::string refused;
    merino::graph::node p, q;
    p = k.emplace([&] {
        try {
            k.emplace([] {}, "late");
        } catch (const std::logic_error &e) {
            refused += e.what();
        }
        try {
            k.precede(p, q);
        } catch (const std::invalid_argument &e) {
            refused += e.what();
        }
    }, "p");
    q = k.emplace([] {}, "q");
    CHECK(k.run() == merino::task_group_status::complete);
    CHECK_STR_CONTAINS(refused.c_str(), "merino_graph_node_new(\"late\"): the graph is running");
    CHECK_STR_CONTAINS(refused.c_str(), "merino_graph_edge(\"p\", \"q\"): the graph is running");
    return 0;
}

} // namespace

int main(int argc, char **argv) {
    if (const char *child = check_child_name(argc, argv))
        return std::strcmp(child, "quiet_errors") == 0 ? quiet_errors() : 2;
    check_child quiet = check_run_child("quiet_errors", nullptr, 60);
    CHECK_MSG(quiet.exited && quiet.code == 0, "the child quiet_errors failed:\n%s", quiet.err);
    CHECK_MSG(quiet.err[0] == 0, "graph errors that were thrown were printed too:\n%s", quiet.err);
    std::free(quiet.err);
    int dags = check_scale() < 1 ? 5 : 20;
    for (unsigned workers : {1u, 2u, 3u, 4u, 8u}) {
        merino::runtime rt(workers);
        if (workers == 1) cycles(), longest_path_first(), nested_graph_in_node();
        rejected_edges_after_runs();
        wavefront(workers);
        random_dags(workers, dags);
        failures(workers);
        std::printf("dependency graphs correct at %u workers\n", workers);
    }
    return 0;
}
