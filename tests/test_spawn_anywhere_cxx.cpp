// Spawning from code that is not a task body, C++ side: a C task body (spawn_anywhere/c_task.c)
// calls cxx_fib, a plain C++ function that uses merino::fork_join; its second branches are taken
// by the other worker, with the right result — with nothing spawned by the C body, and with a
// spawn of the C body live around the call. At 2 workers each case waits, up to PATIENCE seconds,
// until a branch forked under cxx_fib has run on the other worker, and checks steals > 0.
#include "check.h"

#include <merino.hpp>

#include "fib.h"
#include "spawn_anywhere/c_task.h"

namespace {

constexpr double PATIENCE = 10.0;
int g_outer_worker;   // the worker running the C task body
int g_ran_elsewhere;  // atomic: a leaf of cxx_fib ran on another worker

long fib_forked(int n) {
    if (n < 2) {
        if (merino_worker_index() != g_outer_worker)
            __atomic_store_n(&g_ran_elsewhere, 1, __ATOMIC_RELAXED); // relaxed: read after the run
        return n;
    }
    auto [a, b] = merino::fork_join([&] { return fib_forked(n - 1); }, [&] { return fib_forked(n - 2); });
    return a + b;
}

void check_parallel(const char *what, int live_spawn, int n) {
    check_set_context("%s", what);
    merino_stats st{};
    int elsewhere = 0;
    double until = check_now() + PATIENCE;
    do {
        __atomic_store_n(&g_ran_elsewhere, 0, __ATOMIC_RELAXED);
        merino_stats_reset();
        CHECK_EQ_INT(MERINO_RUN(c_outer, n, live_spawn), serial_fib(n));
        merino_stats_get(&st);
        elsewhere = __atomic_load_n(&g_ran_elsewhere, __ATOMIC_RELAXED);
    } while (!(elsewhere && st.steals > 0) && check_now() < until);
    CHECK_MSG(elsewhere, "no branch forked under cxx_fib ran on the other worker in %.0f s", PATIENCE);
    CHECK(st.steals > 0);
    check_set_context(nullptr);
}

} // namespace

extern "C" __attribute__((noinline)) long cxx_fib(int n) {
    g_outer_worker = merino_worker_index();
    return fib_forked(n);
}

int main() {
    {
        merino::runtime rt(2);
        check_parallel("C body calls cxx_fib", 0, 24);
        check_parallel("C body with a live spawn calls cxx_fib", 1, 24);
    }
    {
        merino::runtime rt(1);
        CHECK_EQ_INT(MERINO_RUN(c_outer, 20, 0), serial_fib(20));
        CHECK_EQ_INT(MERINO_RUN(c_outer, 20, 1), serial_fib(20));
    }
    std::printf("test_spawn_anywhere_cxx: ok\n");
    return 0;
}
