// merino::task_group, merino::parallel_invoke and C++ task objects (merino_graph.hpp) at 1, 2, 3, 4
// and 8 workers: sums against serial values with groups used from the main thread, inside
// merino::run, nested in each other and inside fork_join; exceptions rethrown in serial (run)
// order with the tasks before the thrower all run; cancel() with nothing started yet (one worker:
// deterministic), cancellation of nested groups through the outer group, also when the inner group
// is made in a fork_join branch another worker stole; the order of a group's tasks and of
// parallel_invoke's callables at one worker; C++ task objects with continuations, bypass and
// recycling, and an exception out of one.
#include "check.h"

#include <merino_graph.hpp>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace {

struct boom {
    int id;
};

long fib_serial(int n) { return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2); }

// fib with a task_group per level (deep nesting of groups).
long fib_group(int n) {
    if (n < 12) return fib_serial(n);
    long a = 0, b = 0;
    merino::task_group g;
    g.run([&] { a = fib_group(n - 1); });
    g.run([&] { b = fib_group(n - 2); });
    g.wait();
    return a + b;
}

// fib with parallel_invoke, and a fork_join at every other level (the two models mixed).
long fib_mixed(int n) {
    if (n < 12) return fib_serial(n);
    long a = 0, b = 0;
    if (n % 2) {
        merino::parallel_invoke([&] { a = fib_mixed(n - 1); }, [&] { b = fib_mixed(n - 2); });
    } else {
        auto r = merino::fork_join([&] { return fib_mixed(n - 1); }, [&] { return fib_mixed(n - 2); });
        a = r.first;
        b = r.second;
    }
    return a + b;
}

void sums(unsigned workers) {
    check_set_context("workers=%u sums", workers);
    // From the main thread (outside the pool): each run enters the pool.
    std::vector<long> out(200, -1);
    merino::task_group g;
    for (int i = 0; i < 200; i++) g.run([&out, i] { out[i] = fib_serial(i % 20); });
    CHECK(g.wait() == merino::task_group_status::complete);
    for (int i = 0; i < 200; i++) CHECK_EQ_INT(out[i], fib_serial(i % 20));
    // Reused after the wait.
    std::atomic<int> count{0};
    for (int i = 0; i < 50; i++) g.run([&] { count++; });
    g.wait();
    CHECK_EQ_INT(count.load(), 50);
    // Inside the pool, nested, mixed with fork_join.
    CHECK_EQ_INT(merino::run([] { return fib_group(24); }), fib_serial(24));
    CHECK_EQ_INT(fib_mixed(24), fib_serial(24));
    long a = 0, b = 0, c = 0;
    merino::parallel_invoke([&] { a = fib_group(20); }, [&] { b = fib_mixed(21); }, [&] { c = 7; });
    CHECK_EQ_INT(a, fib_serial(20));
    CHECK_EQ_INT(b, fib_serial(21));
    CHECK_EQ_INT(c, 7);
}

void exceptions(unsigned workers, int reps) {
    check_set_context("workers=%u exceptions", workers);
    for (int r = 0; r < reps; r++) {
        // Tasks 0..99; those with (i * 7 + r) % 13 == 0 throw boom{i}: the first in run order wins,
        // and every task before it has run (a task after it may have started before the throw).
        const int n = 100;
        int first = -1;
        for (int i = 0; i < n && first < 0; i++)
            if ((i * 7 + r) % 13 == 0) first = i;
        std::vector<std::atomic<int>> ran(n);
        bool caught = false;
        try {
            merino::run([&] {
                merino::task_group g;
                for (int i = 0; i < n; i++)
                    g.run([&, i] {
                        ran[i] = 1;
                        if ((i * 7 + r) % 13 == 0) throw boom{i};
                    });
                g.wait();
            });
        } catch (const boom &e) {
            caught = true;
            CHECK_EQ_INT(e.id, first);
        }
        CHECK(caught);
        for (int i = 0; i <= first; i++) CHECK_MSG(ran[i].load(), "task %d before the thrower did not run", i);
    }
    // parallel_invoke: the first throwing argument's exception.
    for (int r = 0; r < reps; r++) {
        int got = -1;
        try {
            merino::parallel_invoke([] {}, [] { throw boom{1}; }, [] { throw boom{2}; }, [] {});
        } catch (const boom &e) {
            got = e.id;
        }
        CHECK_EQ_INT(got, 1);
    }
    // An exception of a nested group travels out through the task that waited for it.
    int got = -1;
    try {
        merino::task_group outer;
        outer.run([] {
            merino::task_group inner;
            inner.run([] { throw boom{42}; });
            inner.wait();
        });
        outer.wait();
    } catch (const boom &e) {
        got = e.id;
    }
    CHECK_EQ_INT(got, 42);
    // The pool is fine afterwards.
    CHECK_EQ_INT(merino::run([] { return fib_group(18); }), fib_serial(18));
}

void cancellation(unsigned workers) {
    check_set_context("workers=%u cancellation", workers);
    // One worker: runs queued from inside a task have not started when cancel() is called.
    if (workers == 1) {
        std::atomic<int> count{0};
        merino::task_group g;
        merino::run([&] {
            for (int i = 0; i < 100; i++) g.run([&] { count++; });
            g.cancel();
            CHECK(g.is_canceling());
            CHECK(g.wait() == merino::task_group_status::canceled);
        });
        CHECK_EQ_INT(count.load(), 0);
        CHECK(!g.is_canceling()); // reset by the wait
        g.run([&] { count++; });
        CHECK(g.wait() == merino::task_group_status::complete);
        CHECK_EQ_INT(count.load(), 1);
    }
    // Cancelling the outer group cancels a group nested in one of its tasks.
    std::atomic<int> inner_ran{0};
    merino::task_group outer;
    merino::task_group_status inner_status = merino::task_group_status::complete;
    outer.run([&] {
        merino::task_group inner;
        for (int i = 0; i < 1000; i++) inner.run([&] { inner_ran++; });
        outer.cancel();
        CHECK(inner.is_canceling());
        inner_status = inner.wait();
    });
    CHECK(outer.wait() == merino::task_group_status::canceled);
    CHECK(inner_status == merino::task_group_status::canceled);
    if (workers == 1) CHECK_EQ_INT(inner_ran.load(), 0);
    CHECK(inner_ran.load() <= 1000);
}

// A group made in a fork_join branch that another worker stole is nested in the group of the task
// that forked: cancelling that group cancels it (the context travels with the stolen branch).
void nested_in_stolen_branch(unsigned workers) {
    if (workers < 2) return;
    check_set_context("workers=%u nested in a stolen branch", workers);
    int stolen = 0;
    for (int rep = 0; rep < 20 && stolen < 3; rep++) {
        merino::task_group outer;
        std::atomic<int> phase{0}; // 1: g started elsewhere and made its group; 2: outer cancelled
        std::atomic<int> ran{0};
        bool before = true, after = false, elsewhere = false;
        // From a task: the wait below takes the closure itself (newest first), so an idle worker
        // steals g (a waiting one takes only task objects).
        merino::run([&] {
        outer.run([&] {
            int me = merino_worker_index();
            merino::fork_join(
                [&] {
                    // Wait (bounded) for a thief to start g; if none does, g runs here after us.
                    auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(500);
                    while (phase.load() == 0 && std::chrono::steady_clock::now() < end) std::this_thread::yield();
                    if (phase.load() == 1) {
                        outer.cancel();
                        phase.store(2);
                    }
                },
                [&] {
                    merino::task_group inner;
                    elsewhere = merino_worker_index() != me;
                    before = inner.is_canceling();
                    if (!elsewhere) return; // not stolen: nothing to check
                    phase.store(1);
                    while (phase.load() != 2) std::this_thread::yield();
                    after = inner.is_canceling();
                    for (int i = 0; i < 100; i++) inner.run([&] { ran++; });
                    CHECK(inner.wait() == merino::task_group_status::canceled);
                });
        });
        CHECK(outer.wait() == merino::task_group_status::canceled || !elsewhere);
        });
        if (!elsewhere) continue;
        stolen++;
        CHECK_MSG(!before, "the group in the stolen branch was cancelled before the outer group was");
        CHECK_MSG(after, "cancelling the outer group did not cancel the group made in a stolen branch");
        CHECK_EQ_INT(ran.load(), 0);
    }
    std::printf("  %d stolen branches checked at %u workers\n", stolen, workers);
}

// The order of a group's tasks at one worker: run() queues, the waiting worker takes the newest
// first (the last run first: depth-first, as oneTBB's task_group); parallel_invoke calls its
// callables in argument order, and one that throws stops those after it, as in the serial program.
void order_at_one_worker() {
    check_set_context("one worker: order");
    std::vector<int> seen;
    merino::run([&] {
        merino::task_group g;
        for (int i = 0; i < 5; i++) g.run([&, i] { seen.push_back(i); });
        g.wait();
    });
    CHECK_EQ_INT(seen.size(), 5);
    for (int i = 0; i < 5; i++) CHECK_EQ_INT(seen[i], 4 - i);
    seen.clear();
    merino::parallel_invoke([&] { seen.push_back(0); }, [&] { seen.push_back(1); }, [&] { seen.push_back(2); },
                            [&] { seen.push_back(3); });
    CHECK_EQ_INT(seen.size(), 4);
    for (int i = 0; i < 4; i++) CHECK_EQ_INT(seen[i], i);
    seen.clear();
    int got = -1;
    try {
        merino::parallel_invoke([&] { seen.push_back(0); },
                                [&] {
                                    seen.push_back(1);
                                    throw boom{1};
                                },
                                [&] { seen.push_back(2); });
    } catch (const boom &e) {
        got = e.id;
    }
    CHECK_EQ_INT(got, 1);
    CHECK_EQ_INT(seen.size(), 2); // the third was cancelled
}

// ---- C++ task objects -------------------------------------------------------------------------------

struct fib_sum : merino::task {
    long x = 0, y = 0, *sum;
    explicit fib_sum(long *s) : sum(s) {}
    merino::task *execute() override {
        *sum = x + y;
        return nullptr;
    }
};

struct fib_task : merino::task {
    long n, *sum;
    fib_task(long n_, long *s) : n(n_), sum(s) {}
    merino::task *execute() override {
        if (n < 10) {
            *sum = fib_serial((int)n);
            return nullptr;
        }
        if (n == 23) throw_here();
        fib_sum &c = allocate_continuation<fib_sum>(sum);
        fib_task &b = c.allocate_child<fib_task>(n - 2, &c.y);
        recycle_as_child_of(c); // +CBR
        n -= 1;
        sum = &c.x;
        c.set_ref_count(2);
        spawn(b);
        return this;
    }
    static bool throws;
    static void throw_here() {
        if (throws) throw boom{23};
    }
};
bool fib_task::throws = false;

void task_objects(unsigned workers) {
    check_set_context("workers=%u C++ task objects", workers);
    for (int n : {5, 15, 22, 25}) {
        long sum = -1;
        fib_task &root = merino::task::allocate_root<fib_task>(n, &sum);
        CHECK(merino::task::spawn_root_and_wait(root) == merino::task_group_status::complete);
        CHECK_EQ_INT(sum, fib_serial(n));
    }
    fib_task::throws = true;
    int got = -1;
    try {
        long sum = -1;
        merino::task::spawn_root_and_wait(merino::task::allocate_root<fib_task>(26, &sum));
    } catch (const boom &e) {
        got = e.id;
    }
    fib_task::throws = false;
    CHECK_EQ_INT(got, 23);
}

} // namespace

int main() {
    int reps = check_scale() < 1 ? 10 : 40;
    for (unsigned workers : {1u, 2u, 3u, 4u, 8u}) {
        merino::runtime rt(workers);
        sums(workers);
        exceptions(workers, reps);
        cancellation(workers);
        nested_in_stolen_branch(workers);
        if (workers == 1) order_at_one_worker();
        task_objects(workers);
        std::printf("task groups correct at %u workers\n", workers);
    }
    return 0;
}
