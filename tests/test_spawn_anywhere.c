/* Spawning from code that is not a task body: a plain function, called from a task body, runs a
 * task with MERINO_RUN; that task's spawns are taken by the other worker (MERINO_RUN on a worker
 * spawns above the caller's live descriptors, found through merino__next), with the right result:
 *  - with nothing spawned by the calling body;
 *  - with a spawn of the calling body still live (not yet joined) around the call.
 * At 2 workers each waits, up to PATIENCE seconds, until a task spawned under the plain function
 * has run on the other worker, and checks steals > 0. */
#include "check.h"

#include <merino.h>

#include "fib.h"

#define PATIENCE 10.0

static int g_outer_worker;           /* the worker that runs the plain function */
static int g_ran_elsewhere;          /* atomic: a fib_seen leaf ran on another worker */

/* fib, noting whether a leaf ran on a worker other than g_outer_worker. */
MERINO_TASK_1(int64_t, fib_seen, int, n) {
    if (n < 2) {
        if (merino_worker_index() != g_outer_worker)
            __atomic_store_n(&g_ran_elsewhere, 1, __ATOMIC_RELAXED); /* relaxed: read after the run */
        return n;
    }
    MERINO_SPAWN(fib_seen, n - 2);
    int64_t a = MERINO_CALL(fib_seen, n - 1);
    int64_t b = MERINO_JOIN(fib_seen);
    return a + b;
}

/* A plain function: it has no merino__top of its own, and is not inlined into the task body. */
__attribute__((noinline)) static int64_t plain_helper(int n) {
    g_outer_worker = merino_worker_index();
    return MERINO_RUN(fib_seen, n);
}

MERINO_TASK_1(int64_t, calls_helper, int, n) { return plain_helper(n); }

/* The same with a spawn of this body live around the call. */
MERINO_TASK_1(int64_t, calls_helper_live_spawn, int, n) {
    MERINO_SPAWN(fib, n - 2);
    int64_t a = plain_helper(n - 1);
    int64_t b = MERINO_JOIN(fib);
    return a + b;
}

typedef int64_t run_fn(int n);
static int64_t run_calls_helper(int n) { return MERINO_RUN(calls_helper, n); }
static int64_t run_calls_helper_live_spawn(int n) { return MERINO_RUN(calls_helper_live_spawn, n); }

static void check_parallel(const char *what, run_fn *run, int n) {
    check_set_context("%s", what);
    merino_stats st = {0};
    int elsewhere = 0;
    double until = check_now() + PATIENCE;
    do {
        __atomic_store_n(&g_ran_elsewhere, 0, __ATOMIC_RELAXED);
        merino_stats_reset();
        CHECK_EQ_INT(run(n), serial_fib(n));
        merino_stats_get(&st);
        elsewhere = __atomic_load_n(&g_ran_elsewhere, __ATOMIC_RELAXED);
    } while (!(elsewhere && st.steals > 0) && check_now() < until);
    CHECK_MSG(elsewhere, "no task spawned under the plain function ran on the other worker in %.0f s",
              PATIENCE);
    CHECK(st.steals > 0);
    check_set_context(NULL);
}

int main(void) {
    merino_config cfg = {0};
    cfg.workers = 2;
    CHECK_EQ_INT(merino_start(&cfg), 0);
    check_parallel("calls_helper", run_calls_helper, 24);
    check_parallel("calls_helper_live_spawn", run_calls_helper_live_spawn, 24);
    CHECK_EQ_INT(merino_stop(), 0);

    /* One worker: the same code, in order. */
    cfg.workers = 1;
    CHECK_EQ_INT(merino_start(&cfg), 0);
    CHECK_EQ_INT(run_calls_helper(20), serial_fib(20));
    CHECK_EQ_INT(run_calls_helper_live_spawn(20), serial_fib(20));
    CHECK_EQ_INT(merino_stop(), 0);
    printf("test_spawn_anywhere: ok\n");
    return 0;
}
