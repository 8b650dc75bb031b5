/* test_help_one.c — the core's hooks for helping waits (include/merino/internal/layer.h), which
 * merino_mpi's waits are built on, checked without MPI (so that they also run under the
 * sanitizers, where the MPI tests do not):
 *  - a task that waits for a flag set by a task it spawned completes on one worker: the wait's
 *    merino__help_one runs the spawned task (its worker takes its own oldest task), and the join
 *    then finds it done; in both spawn orders, nested two deep, at 1 to 4 workers;
 *  - the same with task-group members (the wait runs the other member from its worker's deque);
 *  - merino__help_one returns 0 outside the pool and when there is nothing to run;
 *  - merino__help_nap / merino__help_wake: a worker that naps in a wait while the other workers
 *    sleep, then spawns, still gets its tasks run (the result is right, nothing hangs);
 *  - merino__source_add: a layer's poll is called by idle workers. */
#include "check.h"

#include <merino.h>
#include <merino/internal/layer.h>
#include <merino_graph.h>

#include <stdlib.h>

/* ---- a wait for a flag that a spawned task sets ------------------------------------------------- */

/* Helps until *flag is set; the number of pieces of work it ran. */
static int wait_for(int *flag) {
    int ran = 0;
    /* acquire: the setter's writes before its release store */
    while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE)) ran += merino__help_one();
    return ran;
}

MERINO_TASK_2(int, setter, int *, flag, int, value) {
    __atomic_store_n(flag, 1, __ATOMIC_RELEASE); /* release: value's computation, for the waiter */
    return value * 2;
}

MERINO_TASK_1(int, waiter, int *, flag) {
    wait_for(flag);
    return 1;
}

/* depth 0: spawn the setter, then wait for it in a called task; depth 1: the same one level down,
 * with an unrelated spawned task below (the wait runs the oldest first: that one). */
MERINO_TASK_2(int, pair, int, order, int, depth) {
    int flag = 0;
    if (depth > 0) {
        MERINO_SPAWN(pair, order ^ 1, depth - 1);
        int inner = MERINO_CALL(pair, order, depth - 1);
        return inner + MERINO_JOIN(pair);
    }
    if (order == 0) {
        MERINO_SPAWN(setter, &flag, 21);
        int w = MERINO_CALL(waiter, &flag);
        return w + MERINO_JOIN(setter); /* 1 + 42 */
    }
    /* the other order: the setter is called after the spawned waiter, which a thief may take;
     * on one worker the setter runs first and the waiter finds the flag set */
    MERINO_SPAWN(waiter, &flag);
    int s = MERINO_CALL(setter, &flag, 21);
    return s + MERINO_JOIN(waiter);
}

MERINO_TASK_0(int, outside_check) { return merino__help_one(); }

/* ---- task-group members ------------------------------------------------------------------------------- */

typedef struct gpair {
    int flag, ran;
} gpair;

static void g_setter(void *p) { __atomic_store_n(&((gpair *)p)->flag, 1, __ATOMIC_RELEASE); /* release: for the waiter */ }
static void g_waiter(void *p) {
    wait_for(&((gpair *)p)->flag);
    __atomic_fetch_add(&((gpair *)p)->ran, 1, __ATOMIC_RELAXED); /* relaxed: read after the group's wait */
}

/* ---- napping ------------------------------------------------------------------------------------------ */

MERINO_TASK_1(long, count_down, int, n) {
    if (n < 2) return 1;
    MERINO_SPAWN(count_down, n - 1);
    long a = MERINO_CALL(count_down, n - 2);
    return a + MERINO_JOIN(count_down);
}

MERINO_TASK_1(long, nap_then_spawn, int, naps) {
    for (int i = 0; i < naps; i++) merino__help_nap(2000); /* the idle workers may fall asleep */
    merino__help_wake();
    return MERINO_CALL(count_down, 20);
}

/* ---- a layer's source -------------------------------------------------------------------------------- */

static int polls; /* atomic */
static int poll_fn(void) {
    __atomic_fetch_add(&polls, 1, __ATOMIC_RELAXED); /* relaxed: a count */
    return 0;
}
static const merino__source test_source = {"test polls", poll_fn, NULL};

int main(void) {
    CHECK_EQ_INT(merino__help_one(), 0); /* not a worker */
    CHECK_EQ_INT(merino__source_add(&test_source), 0);
    for (unsigned w = 1; w <= 4; w++) {
        merino_config cfg = {0};
        cfg.workers = w;
        CHECK(merino_start(&cfg) == 0);
        check_set_context("%u workers", w);
        for (int rep = 0; rep < 200; rep++) {
            CHECK_EQ_INT(MERINO_RUN(pair, 0, 0), 43);
            CHECK_EQ_INT(MERINO_RUN(pair, 1, 0), 43);
            CHECK_EQ_INT(MERINO_RUN(pair, rep & 1, 2), 4 * 43);
        }
        if (w == 1) CHECK_EQ_INT(MERINO_RUN(outside_check), 0); /* nothing to run */
        for (int rep = 0; rep < 200; rep++) {
            gpair p = {0, 0};
            merino_task_group g;
            merino_task_group_init(&g);
            merino_task_group_run(&g, g_setter, &p);
            merino_task_group_run(&g, g_waiter, &p); /* the newest: run first on one worker */
            CHECK_EQ_INT(merino_task_group_wait(&g), MERINO_COMPLETE);
            CHECK_EQ_INT(p.ran, 1);
        }
        CHECK(MERINO_RUN(nap_then_spawn, 20) == 10946); /* fib(21) leaves */
        CHECK(merino_stop() == 0);
    }
    CHECK(__atomic_load_n(&polls, __ATOMIC_RELAXED) > 0); /* idle workers polled the layer's source */
    printf("test_help_one: ok\n");
    return 0;
}
