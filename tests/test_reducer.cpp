// merino_reducer.hpp: reducers give the serial program's result bit for bit, with operations that
// do not commute (list append, string concatenation) and one that does (a sum), over thousands of
// random program shapes that mix C tasks (MERINO_SPAWN/JOIN), fork_join, task groups (run, then
// the parent's own updates between runs) and parallel loops (the default schedule and static), at
// 1, 2, 3 and 8 workers; leaves spin a little so that thieves take work, and the test checks that
// they did. Also: views outside the pool, a reducer made and read inside a task, reducer_min/max,
// the C API with a task that spawns. The shapes' seed is printed (MERINO_TEST_SEED replays it).
#include "algo_check.h"

#include <merino.hpp>
#include <merino_graph.hpp>
#include <merino_loop.hpp>
#include <merino_reducer.h>
#include <merino_reducer.hpp>

#include <cstdint>
#include <list>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

// ---- a random program --------------------------------------------------------------------------------

enum kind { LEAF, FORK, SPAWN, GROUP, LOOP };

struct node {
    kind k = LEAF;
    int id = 0;
    int tokens = 1;  // LEAF: tokens appended; LOOP: iterations
    int spin = 0;    // LEAF: busy work, so that steals happen
    bool statics = false; // LOOP: static schedule (one block per worker) instead of the default
    std::vector<std::unique_ptr<node>> kids; // FORK: f, g; SPAWN: child, continuation; GROUP: tasks; LOOP: sub-programs of some indices
};

int g_next_id;

std::unique_ptr<node> make(std::mt19937_64 &rng, int depth) {
    auto n = std::make_unique<node>();
    n->id = g_next_id++;
    unsigned r = static_cast<unsigned>(rng() % 100);
    if (depth == 0 || r < 30) {
        n->k = LEAF;
        n->tokens = 1 + static_cast<int>(rng() % 3);
        n->spin = rng() % 4 == 0 ? static_cast<int>(rng() % 3000) : 0;
        return n;
    }
    if (r < 48) {
        n->k = FORK;
    } else if (r < 66) {
        n->k = SPAWN;
    } else if (r < 84) {
        n->k = GROUP;
        int m = 1 + static_cast<int>(rng() % 4);
        for (int i = 0; i < m; i++) n->kids.push_back(make(rng, depth - 1));
        return n;
    } else {
        n->k = LOOP;
        n->tokens = 1 + static_cast<int>(rng() % 200);
        n->statics = rng() % 4 == 0;
        int m = static_cast<int>(rng() % 3);
        for (int i = 0; i < m; i++) n->kids.push_back(make(rng, depth - 1));
        return n;
    }
    n->kids.push_back(make(rng, depth - 1));
    n->kids.push_back(make(rng, depth - 1));
    return n;
}

// What a program appends: every token differs, so any reordering shows.
struct sink {
    virtual void put(int token) = 0;
    virtual ~sink() = default;
};

struct serial_sink : sink {
    std::list<int> list;
    std::string text;
    long sum = 0;
    void put(int t) override {
        list.push_back(t);
        text += std::to_string(t);
        text += ',';
        sum += t;
    }
};

struct reducer_sink : sink {
    merino::reducer_list_append<int> list;
    merino::reducer<std::string> text{[](std::string *s) { s->clear(); }, [](std::string &l, std::string &r) { l += r; }};
    merino::reducer_opadd<long> sum;
    void put(int t) override {
        list.push_back(t);
        std::string &s = text.view();
        s += std::to_string(t);
        s += ',';
        sum += t;
    }
};

void spin(int n) {
    volatile int x = 0;
    for (int i = 0; i < n; i++) x = x + i;
}

void run(const node &n, sink &out, bool parallel);

struct c_call {
    const node *n;
    sink *out;
};

} // namespace

// A C task: the parallel program's SPAWN node spawns its child this way.
MERINO_VOID_TASK_1(run_c_child, c_call *, c) { run(*c->n, *c->out, true); }

MERINO_VOID_TASK_1(run_c_spawn, c_call *, c) {
    const node &n = *c->n;
    c->out->put(n.id * 1000 + 1); // before the spawn
    c_call child{n.kids[0].get(), c->out};
    MERINO_SPAWN(run_c_child, &child);
    c->out->put(n.id * 1000 + 2);
    run(*n.kids[1], *c->out, true); // the continuation
    c->out->put(n.id * 1000 + 3);
    MERINO_JOIN(run_c_child);       // in serial order the child comes here
    c->out->put(n.id * 1000 + 4);
}

namespace {

// The serial program of each node, and its parallel form when parallel.
void run(const node &n, sink &out, bool parallel) {
    switch (n.k) {
    case LEAF:
        spin(n.spin);
        for (int i = 0; i < n.tokens; i++) out.put(n.id * 1000 + i);
        break;
    case FORK:
        if (parallel)
            merino::fork_join([&] { run(*n.kids[0], out, true); }, [&] { run(*n.kids[1], out, true); });
        else {
            run(*n.kids[0], out, false);
            run(*n.kids[1], out, false);
        }
        break;
    case SPAWN:
        if (parallel) {
            c_call c{&n, &out};
            MERINO_RUN(run_c_spawn, &c);
        } else {
            out.put(n.id * 1000 + 1);
            out.put(n.id * 1000 + 2);
            run(*n.kids[1], out, false);
            out.put(n.id * 1000 + 3);
            run(*n.kids[0], out, false);
            out.put(n.id * 1000 + 4);
        }
        break;
    case GROUP:
        if (parallel) {
            merino::task_group g;
            for (size_t i = 0; i < n.kids.size(); i++) {
                const node *k = n.kids[i].get();
                g.run([k, &out] { run(*k, out, true); });
                out.put(n.id * 1000 + static_cast<int>(i)); // the parent's own, between runs
            }
            g.wait();
        } else {
            for (size_t i = 0; i < n.kids.size(); i++) {
                run(*n.kids[i], out, false);
                out.put(n.id * 1000 + static_cast<int>(i));
            }
        }
        out.put(n.id * 1000 + 999);
        break;
    case LOOP: {
        auto body = [&](int64_t i) {
            out.put(n.id * 1000 + static_cast<int>(i));
            size_t m = n.kids.size();
            if (m && i % 37 == 0) run(*n.kids[static_cast<size_t>(i / 37) % m], out, parallel);
        };
        if (parallel) {
            merino::loop_options o;
            if (n.statics) o = merino::loop_options(MERINO_SCHEDULE_STATIC);
            merino::parallel_for(int64_t(0), int64_t(n.tokens), body, o);
        } else {
            for (int64_t i = 0; i < n.tokens; i++) body(i);
        }
        break;
    }
    }
}

uint64_t g_seed;

void random_shapes(unsigned workers, int count) {
    merino::runtime rt(workers);
    merino_stats_reset();
    std::mt19937_64 rng(g_seed + workers);
    for (int s = 0; s < count; s++) {
        check_set_context("workers=%u shape=%d", workers, s);
        g_next_id = 1;
        auto prog = make(rng, 4);
        serial_sink want;
        run(*prog, want, false);
        reducer_sink got;
        merino::run([&] { run(*prog, got, true); });
        CHECK(got.list.get() == want.list);
        CHECK(got.text.get() == want.text);
        CHECK(got.sum.get() == want.sum);
    }
    merino_stats st;
    merino_stats_get(&st);
    printf("  %u workers: %d shapes, %llu steals\n", workers, count, static_cast<unsigned long long>(st.steals));
    // Steals must have happened, or the parallel runs proved nothing beyond the serial order.
    if (workers > 1) CHECK(st.steals > 0);
}

// A reducer used from outside the pool, then in runs, then outside again: one serial order.
void outside_and_runs() {
    merino::runtime rt(2);
    merino::reducer_list_append<int> r;
    r.push_back(1); // outside the pool: the reducer's own view
    merino::run([&] {
        merino::fork_join([&] { r.push_back(2); }, [&] { r.push_back(3); });
    });
    r.push_back(4);
    merino::fork_join([&] { r.push_back(5); }, [&] { r.push_back(6); }); // from outside: a run of its own
    CHECK((r.get() == std::list<int>{1, 2, 3, 4, 5, 6}));
    r.push_back(7); // goes on after get
    CHECK((r.get() == std::list<int>{1, 2, 3, 4, 5, 6, 7}));
}

// A reducer made, used and read inside one task.
void inside_a_task() {
    merino::runtime rt(3);
    std::string got = merino::run([] {
        merino::reducer<std::string> r([](std::string *) {}, [](std::string &l, std::string &r2) { l += r2; });
        merino::parallel_for(0, 1000, [&](int i) { r.view() += static_cast<char>('a' + i % 26); });
        return r.get();
    });
    std::string want;
    for (int i = 0; i < 1000; i++) want += static_cast<char>('a' + i % 26);
    CHECK(got == want);
}

void min_max() {
    merino::runtime rt(2);
    merino::reducer_min<int> lo;
    merino::reducer_max<int> hi;
    CHECK_EQ_INT(lo.get(), std::numeric_limits<int>::max()); // none seen: the identity
    merino::parallel_for(0, 100000, [&](int i) {
        int v = static_cast<int>((i * 7919L) % 100003) - 50000;
        lo.update(v);
        hi.update(v);
    });
    int want_lo = 1 << 30, want_hi = -(1 << 30);
    for (int i = 0; i < 100000; i++) {
        int v = static_cast<int>((i * 7919L) % 100003) - 50000;
        want_lo = std::min(want_lo, v);
        want_hi = std::max(want_hi, v);
    }
    CHECK_EQ_INT(lo.get(), want_lo);
    CHECK_EQ_INT(hi.get(), want_hi);
}

} // namespace

int main() {
    g_seed = algo_seed("test_reducer");
    int count = static_cast<int>(2000 * check_scale());
    if (count < 50) count = 50;
    for (unsigned w : algo_workers) random_shapes(w, count);
    outside_and_runs();
    inside_a_task();
    min_max();
    printf("ok\n");
    return 0;
}
