// merino::isolate and merino_isolate: the mutex pattern of oneTBB's documentation (rayon #592,
// #1174) at 1, 2, 3 and 8 workers, for a few seconds each. Outer work whose every piece locks one
// mutex and runs inner parallel work while holding it: without isolation a worker that waits in
// the inner work (a group's wait, a join) may take another outer piece, which locks the mutex it
// already holds. A watchdog turns such a hang into a failure. Also: isolate returns f's result and
// rethrows its exception; the C form.
#include "check.h"

#include <merino.hpp>
#include <merino_graph.hpp>
#include <merino_loop.hpp>

#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace {

std::atomic<long> progress{0};         // outer pieces finished: the watchdog's sign of life
std::atomic<const char *> phase{"start"};

// Fails the test when no outer piece finishes for this long: the pattern has deadlocked.
void watchdog() {
    const double limit = 10.0 / check_scale();
    long last = -1;
    auto since = std::chrono::steady_clock::now();
    for (;;) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        long now = progress.load(std::memory_order_relaxed); // relaxed: a sign of life, no data
        auto t = std::chrono::steady_clock::now();
        if (now != last) {
            last = now;
            since = t;
        } else if (std::chrono::duration<double>(t - since).count() > limit) {
            fprintf(stderr, "test_isolate: no progress for %.0f s in %s: a worker that waits inside the "
                            "isolated region ran work from outside it and deadlocked on the mutex\n",
                    limit, phase.load(std::memory_order_relaxed)); // relaxed: a name
            fflush(stderr);
            _exit(1);
        }
    }
}

void spin(int n) {
    volatile int x = 0;
    for (int i = 0; i < n; i++) x = x + i;
}

// The inner work, run while the mutex is held: a parallel loop whose bodies fork again (groups
// and fork_join), so that a worker which steals a piece of it waits inside it.
long inner(int k) {
    std::atomic<long> sum{0};
    merino::parallel_for(0, k, [&](int j) {
        long a = 0, b = 0;
        merino::parallel_invoke([&] { spin(200); a = j; }, [&] { spin(200); b = 1; });
        sum.fetch_add(a + b, std::memory_order_relaxed); // relaxed: read after the loop's joins
    });
    return sum.load(std::memory_order_relaxed);
}

long inner_expected(int k) { return (long)k * (k - 1) / 2 + k; }

// One round of the pattern: outer pieces as a task group (task objects, as oneTBB's parallel_for
// is made of), each locking the one mutex around isolated inner work.
void outer_group_round(int pieces, int k) {
    std::mutex m;
    std::atomic<int> wrong{0};
    merino::task_group g;
    for (int i = 0; i < pieces; i++)
        g.run([&] {
            std::lock_guard<std::mutex> lock(m);
            long s = merino::isolate([&] { return inner(k); });
            if (s != inner_expected(k)) wrong.fetch_add(1, std::memory_order_relaxed); // relaxed: read after wait
            progress.fetch_add(1, std::memory_order_relaxed);                         // relaxed: a sign of life
        });
    g.wait();
    CHECK_EQ_INT(wrong.load(std::memory_order_relaxed), 0); // relaxed: the wait ordered the increments
}

// The same with the outer pieces as a parallel loop whose bodies start their inner work in a
// fork_join branch: a thief of that branch waits inside the region, with no task object of its own.
void outer_loop_round(int pieces, int k) {
    std::mutex m;
    std::atomic<int> wrong{0};
    merino::parallel_for(0, pieces, [&](int) {
        merino::task_group g; // outer task objects beside the loop, which inner waits could take
        g.run([&] { spin(1000); });
        std::lock_guard<std::mutex> lock(m);
        long s = merino::isolate([&] {
            auto r = merino::fork_join([&] { return inner(k); }, [&] { return inner(k); });
            return r.first + r.second;
        });
        if (s != 2 * inner_expected(k)) wrong.fetch_add(1, std::memory_order_relaxed); // relaxed: read after the loop
        progress.fetch_add(1, std::memory_order_relaxed);                              // relaxed: a sign of life
        g.wait();
    });
    CHECK_EQ_INT(wrong.load(std::memory_order_relaxed), 0); // relaxed: the loop's joins ordered them
}

void mutex_pattern(unsigned workers, double seconds) {
    merino::runtime rt(workers);
    check_set_context("workers=%u mutex pattern", workers);
    auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    int rounds = 0;
    while (std::chrono::steady_clock::now() < end || rounds < 2) {
        phase.store(rounds % 2 ? "outer loop" : "outer group", std::memory_order_relaxed); // relaxed: a name
        if (rounds % 2)
            outer_loop_round(16, 24);
        else
            outer_group_round(32, 24);
        rounds++;
    }
    printf("workers=%u: %d rounds of the mutex pattern\n", workers, rounds);
    fflush(stdout);
}

// isolate returns f's result, rethrows its exception, and nests.
void results(unsigned workers) {
    merino::runtime rt(workers);
    check_set_context("workers=%u results", workers);
    CHECK_EQ_INT(merino::isolate([] { return 42; }), 42);
    int calls = 0;
    merino::isolate([&] { calls++; }); // void f
    CHECK_EQ_INT(calls, 1);
    bool caught = false;
    try {
        merino::isolate([]() -> int { throw std::runtime_error("inner"); });
    } catch (const std::runtime_error &e) {
        caught = std::string(e.what()) == "inner";
    }
    CHECK(caught);
    // Nested regions, on a worker and from outside the pool.
    long s = merino::run([] { return merino::isolate([] { return merino::isolate([] { return inner(50); }); }); });
    CHECK_EQ_INT(s, inner_expected(50));
    CHECK_EQ_INT(merino::isolate([] { return inner(30); }), inner_expected(30));
    // A group made outside the region, run and waited inside it: its tasks are what the wait is
    // for, so the waiting worker runs them (at one worker nobody else could).
    merino::run([] {
        merino::task_group g;
        std::atomic<int> ran{0};
        merino::isolate([&] {
            for (int i = 0; i < 10; i++) g.run([&] { ran.fetch_add(1, std::memory_order_relaxed); }); // relaxed: read after wait
            g.wait();
        });
        CHECK_EQ_INT(ran.load(std::memory_order_relaxed), 10);
    });
}

struct c_args {
    int k;
    long out;
};

void c_inner(void *p) {
    c_args *a = static_cast<c_args *>(p);
    a->out = inner(a->k);
}

void c_form(unsigned workers) {
    merino::runtime rt(workers);
    check_set_context("workers=%u merino_isolate", workers);
    c_args a{40, -1};
    merino_isolate(c_inner, &a); // from outside the pool: enters it
    CHECK_EQ_INT(a.out, inner_expected(40));
    a.out = -1;
    merino::run([&] { merino_isolate(c_inner, &a); }); // on a worker
    CHECK_EQ_INT(a.out, inner_expected(40));
}

} // namespace

int main() {
    std::thread(watchdog).detach();
    const unsigned counts[] = {1, 2, 3, 8};
    for (unsigned w : counts) {
        results(w);
        c_form(w);
    }
    double seconds = 3.0 * check_scale();
    for (unsigned w : counts) mutex_pattern(w, w == 1 ? seconds / 3 : seconds);
    printf("test_isolate: ok\n");
    return 0;
}
