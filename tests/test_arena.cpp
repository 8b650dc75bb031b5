// merino::arena and merino_arena_run at 1, 2, 3 and 8 workers: counters of the distinct workers
// inside an arena's work at each moment prove that its limit is kept — for parallel loops, task
// groups and fork_join trees, for arenas nested in arenas (each limit kept), for one arena run
// from two threads at once, and while other work runs outside it. Bad limits are refused.
#include "check.h"

#include <merino.hpp>
#include <merino_graph.hpp>
#include <merino_loop.hpp>

#include <atomic>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>

namespace {

// The workers inside one arena's work: a depth per worker (a worker that waits inside a body may
// run another body of the same work: it counts once), the count of those at depth > 0, its peak.
struct gauge {
    std::atomic<int> depth[MERINO_MAX_WORKERS + 1]{};
    std::atomic<int> live{0}, peak{0};
    std::atomic<long> bodies{0};

    void enter() {
        int i = merino_worker_index();
        CHECK(i >= 0);
        // relaxed all through: the counts are checked here and after the joins that order them
        if (depth[i].fetch_add(1, std::memory_order_relaxed) == 0) {
            int now = live.fetch_add(1, std::memory_order_relaxed) + 1;
            int p = peak.load(std::memory_order_relaxed);
            while (now > p && !peak.compare_exchange_weak(p, now, std::memory_order_relaxed)) {
            }
        }
        bodies.fetch_add(1, std::memory_order_relaxed);
    }
    void leave() {
        int i = merino_worker_index();
        if (depth[i].fetch_sub(1, std::memory_order_relaxed) == 1) live.fetch_sub(1, std::memory_order_relaxed);
    }
    int max() const { return peak.load(std::memory_order_relaxed); } // relaxed: after the joins
};

struct inside {
    gauge &g;
    explicit inside(gauge &g_) : g(g_) { g.enter(); }
    ~inside() { g.leave(); }
};

void spin(int n) {
    volatile int x = 0;
    for (int i = 0; i < n; i++) x = x + i;
}

long fib_in(gauge &g, int n) {
    inside in(g);
    if (n < 2) return n;
    auto r = merino::fork_join([&] { return fib_in(g, n - 1); }, [&] { return fib_in(g, n - 2); });
    return r.first + r.second;
}

long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

void limits(unsigned workers) {
    merino::runtime rt(workers);
    for (unsigned k : {1u, 2u, 3u}) {
        check_set_context("workers=%u arena(%u)", workers, k);
        merino::arena a(k);
        CHECK_EQ_UINT(a.max_concurrency(), k);
        { // a parallel loop
            gauge g;
            a.run([&] { merino::parallel_for(0, 4000, [&](int) { inside in(g); spin(2000); }); });
            CHECK_EQ_INT(g.bodies.load(), 4000);
            CHECK_MSG(g.max() <= (int)k, "peak %d workers in an arena of %u", g.max(), k);
        }
        { // a task group, and nested loops in its tasks
            gauge g;
            std::atomic<long> sum{0};
            a.run([&] {
                merino::task_group tg;
                for (int i = 0; i < 200; i++)
                    tg.run([&, i] {
                        inside in(g);
                        merino::parallel_for(0, 20, [&](int j) {
                            inside in2(g);
                            spin(500);
                            sum.fetch_add(i + j, std::memory_order_relaxed); // relaxed: read after wait
                        });
                    });
                tg.wait();
            });
            CHECK_EQ_INT(sum.load(), 200L * 190 + 20L * 199 * 200 / 2);
            CHECK_MSG(g.max() <= (int)k, "peak %d workers in an arena of %u (group)", g.max(), k);
        }
        { // a fork_join tree, with a result
            gauge g;
            long r = a.run([&] { return fib_in(g, 20); });
            CHECK_EQ_INT(r, fib(20));
            CHECK_MSG(g.max() <= (int)k, "peak %d workers in an arena of %u (fork_join)", g.max(), k);
        }
    }
}

// An arena of 3 whose loop bodies each run a loop in an arena of 1 (a new run each time), and an
// arena of 2 run inside itself: each arena's own limit holds.
void nested(unsigned workers) {
    merino::runtime rt(workers);
    check_set_context("workers=%u nested arenas", workers);
    merino::arena outer(3), inner(1), self(2);
    gauge go, gi, gs;
    std::atomic<long> n{0};
    outer.run([&] {
        merino::parallel_for(0, 64, [&](int) {
            inside in(go);
            inner.run([&] {
                merino::parallel_for(0, 50, [&](int) {
                    inside a(go);
                    inside b(gi);
                    spin(300);
                    n.fetch_add(1, std::memory_order_relaxed); // relaxed: read after the loops
                });
            });
        });
    });
    CHECK_EQ_INT(n.load(), 64 * 50);
    CHECK_MSG(go.max() <= 3, "peak %d workers in the outer arena of 3", go.max());
    CHECK_MSG(gi.max() <= 1, "peak %d workers in the inner arena of 1", gi.max());
    self.run([&] {
        merino::parallel_for(0, 16, [&](int) {
            inside in(gs);
            self.run([&] { merino::parallel_for(0, 40, [&](int) { inside in2(gs); spin(300); }); });
        });
    });
    CHECK_MSG(gs.max() <= 2, "peak %d workers in an arena of 2 run inside itself", gs.max());
}

// Two threads run work in one arena of 2 at once, while a third runs a loop outside any arena.
void shared(unsigned workers) {
    merino::runtime rt(workers);
    check_set_context("workers=%u one arena, two threads", workers);
    merino::arena a(2);
    gauge g;
    std::atomic<long> outside{0};
    auto in_arena = [&] {
        a.run([&] { merino::parallel_for(0, 2000, [&](int) { inside in(g); spin(1000); }); });
    };
    std::thread t1(in_arena), t2(in_arena);
    std::thread t3([&] {
        merino::parallel_for(0, 3000, [&](int) {
            spin(500);
            outside.fetch_add(1, std::memory_order_relaxed); // relaxed: read after the join
        });
    });
    t1.join();
    t2.join();
    t3.join();
    CHECK_EQ_INT(g.bodies.load(), 4000);
    CHECK_EQ_INT(outside.load(), 3000);
    CHECK_MSG(g.max() <= 2, "peak %d workers in an arena of 2 run from two threads", g.max());
}

struct c_ctx {
    gauge *g;
    long n;
};

void c_body(int64_t lo, int64_t hi, void *p) {
    c_ctx *c = static_cast<c_ctx *>(p);
    for (int64_t i = lo; i < hi; i++) {
        inside in(*c->g);
        spin(500);
    }
}

void c_run(void *p) { merino_for(0, static_cast<c_ctx *>(p)->n, c_body, p, nullptr); }

void c_form(unsigned workers) {
    merino::runtime rt(workers);
    check_set_context("workers=%u merino_arena_run", workers);
    merino_arena a;
    CHECK_EQ_INT(merino_arena_init(&a, 2), 0);
    gauge g;
    c_ctx c{&g, 3000};
    merino_arena_run(&a, c_run, &c); // from outside the pool
    CHECK_EQ_INT(g.bodies.load(), 3000);
    CHECK(g.max() <= 2);
    CHECK_EQ_INT(merino_arena_init(&a, 0), -1);
    CHECK_STR_CONTAINS(merino_last_error(), "max_concurrency = 0 is out of range");
    bool thrown = false;
    try {
        merino::arena bad(0);
    } catch (const std::invalid_argument &e) {
        thrown = std::string(e.what()).find("give 1 to") != std::string::npos;
    }
    CHECK(thrown);
}

// Misuse that stops the program: run in a child, its message checked.
int run_child(const char *name) {
    merino_arena zeroed{};
    if (strcmp(name, "isolate_null") == 0) merino_isolate(nullptr, nullptr);
    if (strcmp(name, "run_null") == 0) merino_arena_run(nullptr, c_run, nullptr);
    if (strcmp(name, "run_unset") == 0) merino_arena_run(&zeroed, c_run, nullptr);
    return 0;
}

void misuse() {
    const struct {
        const char *child, *message;
    } cases[] = {
        {"isolate_null", "merino: merino_isolate: the function is NULL"},
        {"run_null", "merino: merino_arena_run: the arena is NULL"},
        {"run_unset", "merino: merino_arena_run: the arena's limit is 0: set the arena up with merino_arena_init"},
    };
    for (const auto &c : cases) {
        check_set_context("child %s", c.child);
        check_child ch = check_run_child(c.child, nullptr, 30);
        CHECK_CHILD(ch, ch.signaled || (ch.exited && ch.code != 0));
        CHECK_STR_CONTAINS(ch.err, c.message);
        check_child_free(&ch);
    }
}

} // namespace

int main(int argc, char **argv) {
    const char *child = check_child_name(argc, argv);
    if (child) return run_child(child);
    misuse();
    merino_set_error_handler([](const char *, void *) {}, nullptr); // the refused limits are expected
    for (unsigned w : {1u, 2u, 3u, 8u}) {
        limits(w);
        nested(w);
        shared(w);
        c_form(w);
        printf("workers=%u: arena limits kept\n", w);
    }
    printf("test_arena: ok\n");
    return 0;
}
