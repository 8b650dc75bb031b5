// A global merino::runtime and the end of the program, each case in a child process
// (check_run_child) whose global runtime exists only when TEST_GLOBAL_RUNTIME is set.
//
//   exit_in_run      a task run by merino::run on the main thread calls exit(5): the process exits
//                    5 with nothing on stderr (at c4d7260 the runtime's destructor, run by exit on
//                    the task's thread, printed "merino_stop called from a task")
//   exit_in_branch   a fork_join branch calls exit(6), wherever it runs: exit 6, nothing on stderr
//   detached_exit    4 detached threads keep calling merino::run while main returns: the runtime's
//                    destructor stops the pool and the process ends (at c4d7260, 2 exits in 50
//                    hung). 20 children
#include "check.h"

#include <cstdlib>
#include <optional>
#include <pthread.h>

#include <merino.hpp>

namespace {

struct global_runtime {
    std::optional<merino::runtime> rt;
    global_runtime() {
        if (std::getenv("TEST_GLOBAL_RUNTIME")) rt.emplace(2u);
    }
};
global_runtime g_runtime;

enum { CHILD_OK = 42, SURVIVED = 45 };

long fib(int n) {
    if (n < 2) return n;
    auto [a, b] = merino::fork_join([&] { return fib(n - 1); }, [&] { return fib(n - 2); });
    return a + b;
}

void *keep_running(void *) {
    for (;;)
        if (merino::run([] { return fib(12); }) != 144) std::_Exit(1);
    return nullptr;
}

int run_child(const char *name) {
    if (std::strcmp(name, "exit_in_run") == 0) {
        merino::run([] { std::exit(5); });
        return SURVIVED;
    }
    if (std::strcmp(name, "exit_in_branch") == 0) {
        merino::run([] {
            merino::fork_join([] { return fib(18); }, [] { std::exit(6); });
        });
        return SURVIVED;
    }
    if (std::strcmp(name, "detached_exit") == 0) {
        for (int i = 0; i < 4; i++) {
            pthread_t t;
            if (pthread_create(&t, nullptr, keep_running, nullptr) != 0) return 2;
            pthread_detach(t);
        }
        check_sleep(0.02);
        return CHILD_OK; // exit: the global runtime's destructor stops the pool under the runs
    }
    std::fprintf(stderr, "unknown child %s\n", name);
    return 3;
}

check_child run(const char *name) {
    static const char *const env[] = {"-MERINO_WORKERS", "-MERINO_TASK_STACK", "TEST_GLOBAL_RUNTIME=1", nullptr};
    check_set_context("child %s", name);
    check_child c = check_run_child(name, env, 30);
    CHECK_CHILD(c, !c.timed_out);
    return c;
}

} // namespace

int main(int argc, char **argv) {
    const char *child = check_child_name(argc, argv);
    if (child) return run_child(child);

    {
        check_child c = run("exit_in_run");
        CHECK_CHILD(c, c.exited && c.code == 5);
        CHECK_CHILD(c, c.err[0] == 0);
        check_child_free(&c);
    }
    for (int i = 0; i < 5; i++) {
        check_child c = run("exit_in_branch");
        CHECK_CHILD(c, c.exited && c.code == 6);
        CHECK_CHILD(c, c.err[0] == 0);
        check_child_free(&c);
    }
    for (int i = 0; i < 20; i++) {
        check_child c = run("detached_exit");
        CHECK_CHILD(c, c.exited && c.code == CHILD_OK);
        check_child_free(&c);
    }
    check_set_context(nullptr);
    std::printf("exit_cxx: all checks passed\n");
    return 0;
}
