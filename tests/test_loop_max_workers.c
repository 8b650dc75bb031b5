/* test_loop_max_workers.c — merino_for_opts.max_workers: at most that many bodies of a loop run at
 * once (a counter of the bodies in flight, each body on its own worker: no nesting), under every
 * schedule, plain and deterministic, for merino_for, merino_reduce and merino_for_step, at 2, 3 and
 * 8 workers (8 oversubscribed) with limits 1, 2 and 3; the limit is reached (the loop is still
 * shared: until then each body waits up to 50 ms for others, and a loop that does not reach it is
 * played again, up to 5 times); every index still runs once, and the reduction equals the serial
 * one; a negative max_workers stops the program with a message. */
#include "check.h"
#include "loop_test.h"

#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define N 600

typedef struct limit_ctx {
    int in, most;   /* atomic: bodies in flight, the most seen */
    int target;     /* bodies wait (briefly) until this many have been in flight at once */
    int hits[N];    /* atomic: per index */
} limit_ctx;

static void enter(limit_ctx *c) {
    /* relaxed: counts, read after the loop returns (its joins order them) */
    int now = __atomic_add_fetch(&c->in, 1, __ATOMIC_RELAXED);
    int m = __atomic_load_n(&c->most, __ATOMIC_RELAXED);
    while (now > m && !__atomic_compare_exchange_n(&c->most, &m, now, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
    /* until the limit has been reached, each body waits (50 ms at most) for others to come in, so
     * that the loop's other participants overlap it even when they have few, short chunks */
    double t0 = check_now();
    while (__atomic_load_n(&c->most, __ATOMIC_RELAXED) < c->target && check_now() - t0 < 0.05) sched_yield();
    while (check_now() - t0 < 0.00002) { /* then 20 us of work: bodies overlap, so a loop past its limit shows */
    }
}
static void leave(limit_ctx *c) { __atomic_sub_fetch(&c->in, 1, __ATOMIC_RELAXED); }

static void for_body(int64_t lo, int64_t hi, void *ctx) {
    limit_ctx *c = ctx;
    enter(c);
    for (int64_t i = lo; i < hi; i++) __atomic_add_fetch(&c->hits[i], 1, __ATOMIC_RELAXED);
    leave(c);
}

static void step_body(int64_t first, int64_t count, int64_t step, void *ctx) {
    limit_ctx *c = ctx;
    enter(c);
    for (int64_t k = 0; k < count; k++) __atomic_add_fetch(&c->hits[(first + k * step) / 3], 1, __ATOMIC_RELAXED);
    leave(c);
}

static void sum_body(int64_t lo, int64_t hi, void *acc, void *ctx) {
    limit_ctx *c = ctx;
    enter(c);
    for (int64_t i = lo; i < hi; i++) {
        __atomic_add_fetch(&c->hits[i], 1, __ATOMIC_RELAXED);
        *(int64_t *)acc += i;
    }
    leave(c);
}
static void add(void *acc, const void *right, void *ctx) {
    (void)ctx;
    *(int64_t *)acc += *(const int64_t *)right;
}

/* The limit kept, every index once; returns whether the limit (or the worker count) was reached. */
static bool check_ctx(limit_ctx *c, int limit, const char *what) {
    int most = __atomic_load_n(&c->most, __ATOMIC_RELAXED);
    CHECK_MSG(most <= limit, "%s: %d bodies at once, max_workers %d", what, most, limit);
    for (int i = 0; i < N; i++) CHECK_MSG(c->hits[i] == 1, "%s: index %d ran %d times", what, i, c->hits[i]);
    return most >= c->target;
}

static void reset(limit_ctx *c, int limit, int workers) {
    memset(c, 0, sizeof *c);
    c->target = limit < workers ? limit : workers;
}

static void check_limit(const char *sched, int det, int limit, int workers) {
    static limit_ctx c;
    merino_for_opts o = opts_of(sched, det);
    o.max_workers = limit;
    static const int64_t zero = 0;
    merino_reducer r = {.size = sizeof(int64_t), .identity = &zero, .body = sum_body, .combine = add};
    bool reached[3] = {false, false, false};
    for (int round = 0; round < 5 && !(reached[0] && reached[1] && reached[2]); round++) {
        reset(&c, limit, workers);
        merino_for(0, N, for_body, &c, &o);
        reached[0] |= check_ctx(&c, limit, "merino_for");

        reset(&c, limit, workers);
        merino_for_step(3 * (N - 1), -1, -3, step_body, &c, &o);
        reached[1] |= check_ctx(&c, limit, "merino_for_step");

        reset(&c, limit, workers);
        int64_t total = -1;
        merino_reduce(0, N, &total, &r, &c, &o);
        reached[2] |= check_ctx(&c, limit, "merino_reduce");
        CHECK_EQ_INT(total, (int64_t)N * (N - 1) / 2);
    }
    const char *names[] = {"merino_for", "merino_for_step", "merino_reduce"};
    for (int k = 0; k < 3; k++)
        CHECK_MSG(reached[k], "%s: never %d bodies at once in 5 loops, max_workers %d at %d workers", names[k],
                  limit < workers ? limit : workers, limit, workers);
}

int main(int argc, char **argv) {
    unsetenv("MERINO_SCHEDULE");
    const char *child = check_child_name(argc, argv);
    if (child) {
        merino_for_opts o = {.max_workers = -2};
        merino_for(0, 10, for_body, NULL, &o);
        return 0;
    }
    int worker_counts[] = {2, 3, 8};
    for (int w = 0; w < 3; w++) {
        merino_config cfg = {.workers = (unsigned)worker_counts[w]};
        CHECK(merino_start(&cfg) == 0);
        for (size_t s = 0; s < LOOP_SCHEDULES; s++)
            for (int det = 0; det < 2; det++)
                for (int limit = 1; limit <= 3; limit++) {
                    check_set_context("workers=%d schedule=%s deterministic=%d max_workers=%d", worker_counts[w],
                                      loop_schedules[s], det, limit);
                    check_limit(loop_schedules[s], det, limit, worker_counts[w]);
                }
        merino_stop();
    }
    check_set_context("max_workers < 0");
    check_child c = check_run_child("negative", NULL, 30);
    CHECK_MSG(c.signaled && c.sig == SIGABRT, "the child should stop (SIGABRT): %s", c.err);
    CHECK_STR_CONTAINS(c.err, "merino_for_opts.max_workers = -2 is negative");
    check_child_free(&c);
    puts("test_loop_max_workers: ok");
    return 0;
}
