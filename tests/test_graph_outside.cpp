// merino::task_group used from threads outside the pool, at 2 and 4 workers, many times: run() from
// one thread and wait() from another; the same with the wait handed to a pool thread (the caller
// slot held by a third); run() while another thread's wait() is in flight. A task run from outside
// used to stay private on the deque of the worker the run entered as (merino::run does not publish
// task objects when the outside call leaves; the C API's path does): a wait handed to another
// worker then waited for ever (wait_while_slot_held: every time; the program: 1-4 hangs
// in 8-12 runs). A watchdog (SIGALRM) turns a hang into a failure with a message.
#include "check.h"

#include <merino_graph.hpp>

#include <atomic>
#include <chrono>
#include <csignal>
#include <thread>

namespace {

extern "C" void watchdog(int) {
    static const char msg[] = "test_graph_outside: a wait did not return within the time limit (a task run "
                              "from outside the pool was never taken)\n";
    ssize_t r = write(2, msg, sizeof msg - 1);
    (void)r;
    _exit(1);
}

// run() from one thread outside the pool, then wait() from another.
void run_then_wait(int reps) {
    for (int i = 0; i < reps; i++) {
        merino::task_group g;
        std::atomic<int> ran{0};
        std::thread runner([&] {
            for (int k = 0; k < 3; k++) g.run([&] { ran++; });
        });
        runner.join();
        std::thread waiter([&] { CHECK(g.wait() == merino::task_group_status::complete); });
        waiter.join();
        CHECK_EQ_INT(ran.load(), 3);
    }
}

// run() from one thread; then a third thread holds the caller slot (a merino::run that spins in
// plain code, never touching task objects) while wait() is called from a fourth, which is handed
// to a pool thread: the task must be public by then (the run that queued it has left), or no one
// ever publishes it — the one worker that could, the slot's occupant, does not look at its deque.
// The slot is let go once the wait has returned.
void wait_while_slot_held(int reps) {
    for (int i = 0; i < reps; i++) {
        merino::task_group g;
        std::atomic<int> ran{0};
        std::thread([&] { g.run([&] { ran++; }); }).join();
        std::atomic<bool> holding{false}, waited{false};
        std::thread holder([&] {
            merino::run([&] {
                holding = true;
                while (!waited.load()) std::this_thread::yield();
            });
        });
        while (!holding.load()) std::this_thread::yield();
        std::thread([&] { CHECK(g.wait() == merino::task_group_status::complete); }).join();
        waited = true;
        holder.join();
        CHECK_EQ_INT(ran.load(), 1);
    }
}

// run() from one thread while another thread's wait() is in flight, held open by a first task
// until the second run has returned (or 20 ms have passed: a task that blocks on another thread's
// call would hold a worker the call may need); then the last wait, from the main thread, finds
// both run.
void run_during_wait(int reps) {
    for (int i = 0; i < reps; i++) {
        merino::task_group g;
        std::atomic<int> ran{0};
        std::atomic<bool> second_run{false};
        g.run([&] {
            auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(20);
            while (!second_run.load() && std::chrono::steady_clock::now() < until) std::this_thread::yield();
            ran++;
        });
        std::thread waiter([&] { CHECK(g.wait() == merino::task_group_status::complete); });
        std::thread runner([&] {
            g.run([&] { ran++; });
            second_run = true;
        });
        runner.join();
        waiter.join();
        CHECK(g.wait() == merino::task_group_status::complete);
        CHECK_EQ_INT(ran.load(), 2);
    }
}

} // namespace

int main() {
    std::signal(SIGALRM, watchdog);
    int reps = check_scale() < 1 ? 100 : 300;
    for (unsigned workers : {2u, 4u}) {
        merino::runtime rt(workers);
        check_set_context("workers=%u run then wait", workers);
        alarm(120);
        run_then_wait(reps);
        check_set_context("workers=%u wait while the caller slot is held", workers);
        wait_while_slot_held(reps / 3);
        check_set_context("workers=%u run during wait", workers);
        run_during_wait(reps);
        alarm(0);
        std::printf("task_group run and wait from threads outside the pool at %u workers: %d times each\n",
                    workers, reps);
    }
    return 0;
}
