// merino.hpp: merino::runtime, merino::fork_join and merino::run — results of every shape (values,
// void as merino::unit, both void, move-only), recursion, and exceptions from the first, the second
// and both branches, rethrown only after the other branch has finished — or, when the first throws,
// without the second ever starting unless another worker took it (as in the serial program, where
// the second call never comes). At 1, 2 and 4 workers.
#include "check.h"

#include <atomic>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <merino.hpp>

#include "fib.h"

static int64_t fib(int n) {
    if (n < 2) return n;
    auto [a, b] = merino::fork_join([&] { return fib(n - 1); }, [&] { return fib(n - 2); });
    return a + b;
}

// ---- result shapes -------------------------------------------------------------------------------

struct point {
    int x;
    double y;
};

static void shapes() {
    // Both void: the result is void, and both ran.
    std::atomic<int> ran{0};
    auto add1 = [&] { ran += 1; };
    auto add10 = [&] { ran += 10; };
    static_assert(std::is_void_v<decltype(merino::fork_join(add1, add10))>);
    merino::fork_join(add1, add10);
    CHECK_EQ_INT(ran.load(), 11);

    // One void: merino::unit in its place.
    auto p1 = merino::fork_join([] { return 7; }, [&] { ran += 100; });
    static_assert(std::is_same_v<decltype(p1), std::pair<int, merino::unit>>);
    CHECK_EQ_INT(p1.first, 7);
    CHECK_EQ_INT(ran.load(), 111);
    auto p2 = merino::fork_join([&] { ran += 1000; }, [] { return std::string("second"); });
    static_assert(std::is_same_v<decltype(p2), std::pair<merino::unit, std::string>>);
    CHECK_STR_EQ(p2.second.c_str(), "second");
    CHECK_EQ_INT(ran.load(), 1111);
    CHECK(p1.second == merino::unit{});

    // Mixed types, a struct, a vector, a move-only type.
    auto p3 = merino::fork_join([] { return 2.5; }, [] { return point{3, -1.25}; });
    static_assert(std::is_same_v<decltype(p3), std::pair<double, point>>);
    CHECK_EQ_DBL(p3.first, 2.5);
    CHECK_EQ_INT(p3.second.x, 3);
    CHECK_EQ_DBL(p3.second.y, -1.25);
    auto p4 = merino::fork_join([] { return std::vector<int>(1000, 4); },
                                [] { return std::make_unique<std::string>(200, 'z'); });
    static_assert(std::is_same_v<decltype(p4), std::pair<std::vector<int>, std::unique_ptr<std::string>>>);
    CHECK_EQ_INT(p4.first.size(), 1000);
    CHECK_EQ_INT(p4.first[999], 4);
    CHECK(p4.second && p4.second->size() == 200 && (*p4.second)[199] == 'z');

    // Branches that capture by reference and write into the caller's frame.
    int left[64], right[64];
    merino::fork_join([&] { for (int i = 0; i < 64; i++) left[i] = i; },
                      [&] { for (int i = 0; i < 64; i++) right[i] = -i; });
    for (int i = 0; i < 64; i++) CHECK(left[i] == i && right[i] == -i);
}

// ---- exceptions ------------------------------------------------------------------------------------

struct branch_error : std::runtime_error {
    int which;
    branch_error(const char *what, int w) : std::runtime_error(what), which(w) {}
};

// Some forking work, long enough for a thief to take the other branch meanwhile.
static int64_t work(int n) { return fib(n); }

static void exceptions(int reps) {
    for (int r = 0; r < reps; r++) {
        int n = 10 + r % 8;

        // The first branch throws; the second has not started (always so at one worker), or it
        // was stolen and has finished by the catch.
        {
            std::atomic<bool> g_started{false}, g_done{false};
            bool caught = false;
            try {
                merino::fork_join([&]() -> int {
                                      work(n - 4);
                                      throw branch_error("first", 1);
                                  },
                                  [&] {
                                      g_started.store(true);
                                      int64_t v = work(n);
                                      g_done.store(v == serial_fib(n));
                                      return v;
                                  });
            } catch (const branch_error &e) {
                caught = true;
                CHECK_EQ_INT(e.which, 1);
                CHECK_MSG(!g_started.load() || g_done.load(), "the exception of the first branch reached the "
                                                              "catch before the second branch finished (rep %d)", r);
                if (merino_workers() == 1)
                    CHECK_MSG(!g_started.load(), "the second branch ran after the first threw (rep %d)", r);
            }
            CHECK(caught);
        }

        // The second branch throws; the first has finished too.
        {
            std::atomic<bool> f_done{false};
            bool caught = false;
            try {
                merino::fork_join([&] {
                                      int64_t v = work(n);
                                      f_done.store(v == serial_fib(n));
                                  },
                                  [&] {
                                      work(n - 3);
                                      throw branch_error("second", 2);
                                  });
            } catch (const branch_error &e) {
                caught = true;
                CHECK_EQ_INT(e.which, 2);
                CHECK_MSG(f_done.load(), "the first branch had not finished (rep %d)", r);
            }
            CHECK(caught);
        }

        // Both throw: the first branch's exception is rethrown, after the second finished if it
        // started (it was stolen).
        {
            std::atomic<int> ended{0};
            bool caught = false;
            try {
                merino::fork_join([&] {
                                      work(n - 5);
                                      ended += 1;
                                      throw branch_error("first", 1);
                                  },
                                  [&] {
                                      ended += 4;
                                      work(n);
                                      ended += 2;
                                      throw branch_error("second", 2);
                                  });
            } catch (const branch_error &e) {
                caught = true;
                CHECK_EQ_INT(e.which, 1);
                CHECK_STR_EQ(e.what(), "first");
                int x = ended.load();
                CHECK_MSG(x == 1 || x == 7, "ended = %d: the second branch had started and not finished", x);
                if (merino_workers() == 1) CHECK_EQ_INT(x, 1);
            }
            CHECK(caught);
        }

        // A different exception type from the second branch passes through unchanged.
        {
            bool caught = false;
            try {
                merino::fork_join([] { return 1; }, []() -> int { throw std::string("plain string"); });
            } catch (const std::string &s) {
                caught = s == "plain string";
            }
            CHECK(caught);
        }
    }
}

// A tree of fork_joins in which leaf `bad` throws: every leaf before it has run by the time the
// exception reaches the top, and those after it only if another worker took them before the
// throw (never at one worker): a second branch does not start after its first branch threw.
static void tree(int depth, int index, int bad, std::atomic<int> &before, std::atomic<int> &after) {
    if (depth == 0) {
        if (index == bad) throw branch_error("leaf", index);
        (index < bad ? before : after)++;
        return;
    }
    merino::fork_join([&] { tree(depth - 1, 2 * index, bad, before, after); },
                      [&] { tree(depth - 1, 2 * index + 1, bad, before, after); });
}

static void exception_trees(int reps) {
    const int depth = 9;
    for (int r = 0; r < reps; r++) {
        int bad = (r * 97) % (1 << depth);
        std::atomic<int> before{0}, after{0};
        bool caught = false;
        try {
            merino::run([&] { tree(depth, 0, bad, before, after); });
        } catch (const branch_error &e) {
            caught = true;
            CHECK_EQ_INT(e.which, bad);
            CHECK_EQ_INT(before.load(), bad);
            if (merino_workers() == 1) CHECK_EQ_INT(after.load(), 0);
        }
        CHECK(caught);
        // The pool is fine afterwards.
        CHECK_EQ_INT(merino::run([] { return fib(15); }), 610);
    }
}

// ---- merino::run ----------------------------------------------------------------------------------

static void runs(unsigned workers) {
    CHECK_EQ_INT(merino_worker_index(), -1);
    int idx = merino::run([] { return merino_worker_index(); });
    CHECK(idx >= 0 && (unsigned)idx < workers);
    std::string s = merino::run([] { return std::string(100, 'q'); });
    CHECK_EQ_INT(s.size(), 100);
    int side = 0;
    merino::run([&] { side = 42; });
    CHECK_EQ_INT(side, 42);
    // On a worker, run is a call: same worker, same thread.
    merino::run([] {
        int me = merino_worker_index();
        static thread_local int marker;
        marker = me + 1000;
        int inner = merino::run([] { return marker; });
        CHECK_EQ_INT(inner, me + 1000);
        CHECK_EQ_INT(merino::run([] { return merino_worker_index(); }), me);
    });
    bool caught = false;
    try {
        merino::run([]() -> int { throw branch_error("run", 9); });
    } catch (const branch_error &e) {
        caught = e.which == 9;
    }
    CHECK(caught);
}

int main() {
    double scale = check_scale();
    int reps = (int)(40 * scale) < 6 ? 6 : (int)(40 * scale);
    int fib_n = scale >= 1 ? 24 : 20;

    unsetenv("MERINO_WORKERS");
    for (unsigned workers : {1u, 2u, 4u}) {
        check_set_context("workers=%u", workers);
        {
            merino::runtime rt(workers);
            CHECK_EQ_INT(rt.workers(), workers);
            CHECK_EQ_INT(merino_workers(), workers);

            // Already running: a second runtime throws, and the first goes on.
            bool threw = false;
            try {
                merino::runtime again(workers);
            } catch (const std::runtime_error &e) {
                threw = e.what()[0] != 0;
            }
            CHECK(threw);
            CHECK_EQ_INT(merino_workers(), workers);

            CHECK_EQ_INT(merino::run([&] { return fib(fib_n); }), serial_fib(fib_n));
            CHECK_EQ_INT(fib(fib_n - 2), serial_fib(fib_n - 2)); // fork_join from outside the pool
            merino::run(shapes);
            shapes();
            merino::run([&] { exceptions(reps); });
            exceptions(2); // from outside the pool: enters it, and exceptions come out
            exception_trees(reps / 2);
            runs(workers);
        }
        CHECK_EQ_INT(merino_workers(), 0); // the runtime stopped the pool
        printf("workers=%u: fork_join and run correct\n", workers);
    }

    // A bad environment makes the default runtime throw with merino's message.
    check_set_context("MERINO_WORKERS=abc");
    setenv("MERINO_WORKERS", "abc", 1);
    bool threw = false;
    try {
        merino::runtime rt;
    } catch (const std::runtime_error &e) {
        threw = std::string(e.what()).find("MERINO_WORKERS") != std::string::npos;
    }
    CHECK(threw);
    CHECK_EQ_INT(merino_workers(), 0);
    unsetenv("MERINO_WORKERS");
    {
        merino::runtime rt;
        CHECK(rt.workers() >= 1);
        CHECK_EQ_INT(fib(12), 144);
    }
    return 0;
}
