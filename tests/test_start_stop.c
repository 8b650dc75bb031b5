/* merino_start / merino_stop: repeated, at varying worker counts, with a MERINO_RUN each time; the
 * error returns of a second start, of a stop without start, and of a stop from inside a task. */
#define _GNU_SOURCE 1
#include "check.h"

#include <sched.h>

#include <merino.h>

MERINO_TASK_1(int, fib, int, n) {
    if (n < 2) return n;
    MERINO_SPAWN(fib, n - 2);
    int a = MERINO_CALL(fib, n - 1);
    int b = MERINO_JOIN(fib);
    return a + b;
}

/* Returns the worker index it ran on, and in *seen a bit per worker that ran part of it. */
MERINO_TASK_2(int, where, int, n, uint64_t *, seen) {
    int i = merino_worker_index();
    __atomic_fetch_or(seen, 1ull << (i & 63), __ATOMIC_RELAXED);
    if (n < 2) return i;
    MERINO_SPAWN(where, n - 1, seen);
    MERINO_CALL(where, n - 2, seen);
    MERINO_JOIN(where);
    return i;
}

MERINO_TASK_0(int, stop_from_task) { return merino_stop(); }

MERINO_TASK_0(int, start_from_task) {
    merino_config cfg = {0};
    cfg.workers = 1;
    return merino_start(&cfg);
}

int main(void) {
    /* Everything here sets its worker count itself; an inherited setting would change the defaults. */
    unsetenv("MERINO_WORKERS");
    unsetenv("MERINO_TASK_STACK");

    /* Not running: no workers, no index, stop fails with a message. */
    CHECK_EQ_INT(merino_workers(), 0);
    CHECK_EQ_INT(merino_worker_index(), -1);
    CHECK_STR_EQ(merino_last_error(), "");
    CHECK_EQ_INT(merino_stop(), -1);
    CHECK(merino_last_error()[0] != 0);

    static const unsigned counts[] = {1, 2, 3, 4, 8, 2, 1, 5};
    for (int i = 0; i < 100; i++) {
        unsigned n = counts[i % 8];
        merino_config cfg = {0};
        cfg.workers = n;
        if (i % 3 == 1) cfg.stack_tasks = MERINO_MIN_TASK_STACK + (size_t)i;
        check_set_context("iteration %d, workers=%u", i, n);
        CHECK_EQ_INT(merino_start(&cfg), 0);
        CHECK_EQ_INT(merino_workers(), n);
        static const int fibs[] = {55, 89, 144, 233, 377};
        CHECK_EQ_INT(MERINO_RUN(fib, 10 + i % 5), fibs[i % 5]);
        uint64_t seen = 0;
        int idx = MERINO_RUN(where, 8, &seen);
        CHECK(idx >= 0 && (unsigned)idx < n);
        CHECK(seen != 0 && (n >= 64 || (seen >> n) == 0)); /* only indices 0..n-1 */
        CHECK_EQ_INT(merino_worker_index(), -1);
        CHECK_EQ_INT(merino_stop(), 0);
        CHECK_EQ_INT(merino_workers(), 0);
    }
    check_set_context(NULL);

    /* Default worker count: the CPUs of this process's affinity mask, or MERINO_WORKERS. */
    cpu_set_t set;
    CHECK_EQ_INT(sched_getaffinity(0, sizeof set, &set), 0);
    int cpus = CPU_COUNT(&set);
    CHECK_EQ_INT(merino_start(NULL), 0);
    CHECK_EQ_INT(merino_workers(), cpus > MERINO_MAX_WORKERS ? MERINO_MAX_WORKERS : cpus);
    CHECK_EQ_INT(MERINO_RUN(fib, 15), 610);
    CHECK_EQ_INT(merino_stop(), 0);
    setenv("MERINO_WORKERS", "3", 1);
    CHECK_EQ_INT(merino_start(NULL), 0);
    CHECK_EQ_INT(merino_workers(), 3);
    CHECK_EQ_INT(merino_stop(), 0);
    merino_config two = {0};
    two.workers = 2; /* cfg.workers wins over the environment */
    CHECK_EQ_INT(merino_start(&two), 0);
    CHECK_EQ_INT(merino_workers(), 2);
    CHECK_EQ_INT(merino_stop(), 0);
    unsetenv("MERINO_WORKERS");

    /* A second start fails with a message and leaves the running pool as it was. */
    merino_config cfg = {0};
    cfg.workers = 3;
    CHECK_EQ_INT(merino_start(&cfg), 0);
    cfg.workers = 2;
    CHECK_EQ_INT(merino_start(&cfg), -1);
    CHECK(merino_last_error()[0] != 0);
    CHECK_EQ_INT(merino_start(NULL), -1);
    CHECK_EQ_INT(merino_workers(), 3);
    CHECK_EQ_INT(MERINO_RUN(fib, 20), 6765);

    /* Stop and start from inside a task fail, and the pool goes on. */
    CHECK_EQ_INT(MERINO_RUN(stop_from_task), -1);
    CHECK(merino_last_error()[0] != 0);
    CHECK_EQ_INT(MERINO_RUN(start_from_task), -1);
    CHECK_EQ_INT(merino_workers(), 3);
    CHECK_EQ_INT(MERINO_RUN(fib, 20), 6765);

    CHECK_EQ_INT(merino_stop(), 0);
    CHECK_EQ_INT(merino_workers(), 0);
    CHECK_EQ_INT(merino_stop(), -1); /* once per start */
    CHECK(merino_last_error()[0] != 0);

    /* And it starts again after all that. */
    CHECK_EQ_INT(merino_start(&cfg), 0);
    CHECK_EQ_INT(merino_workers(), 2);
    CHECK_EQ_INT(MERINO_RUN(fib, 20), 6765);
    CHECK_EQ_INT(merino_stop(), 0);
    printf("start/stop: all checks passed\n");
    return 0;
}
