/* test_prof_idle_wake.c — what wakes a sleeping pool (src/core/enter.c, docs/idle.md), read from the
 * profiled variant's counters of sleeps and wakes (libmerino_prof; the same core code):
 *  - with the pool threads asleep, MERINO_RUNs of a task that spawns nothing wake none of them: no
 *    futex wake is made, and no pool thread goes to sleep again (it never woke);
 *  - the first spawn of a region wakes them, and its tasks get stolen;
 *  - a region that only queues task objects (a task group, no direct spawn) wakes them too, and a
 *    pool thread runs some of its tasks;
 *  - so does a parallel loop called from outside the pool (its region splits the range by spawning).
 * At 2 workers and at 4 (more than the cores). At 4, also: a region wakes one sleeper, not the
 * pool — regions of one spawned empty task make at most 2 sleeps each (the woken one, and one it
 * passed the wake to if it stole the task; waking all made 3) — and a region with work for all
 * still reaches every pool thread: each of them steals, and the wake is passed on before a
 * woken worker runs what it took (a first task that waits for the next two to start finishes;
 * the same for a task group's tasks). */
#include "check.h"

#include <merino.h>
#include <merino_graph.h>
#include <merino_loop.h>
#include <merino_prof.h>

#include "fib.h"

static unsigned g_workers;

/* Sleeps of the pool threads (workers 1..), and wakes made by anyone. */
static uint64_t pool_sleeps(void) {
    uint64_t s = 0;
    for (unsigned i = 1; i < g_workers; i++) {
        merino_prof_report w;
        CHECK_EQ_INT(merino_prof_get_worker(i, &w), 0);
        s += w.sleeps;
    }
    return s;
}

static uint64_t wakes(void) {
    merino_prof_report r;
    CHECK_EQ_INT(merino_prof_get(&r), 0);
    return r.wakes;
}

/* Waits until the pool threads are asleep: their sleep count has grown by `more` at least, and has
 * then stayed the same for 100 ms (each counts a sleep just before it waits on the futex). */
static void settle(uint64_t since, uint64_t more) {
    double t0 = check_now();
    uint64_t s;
    do {
        s = pool_sleeps();
        check_sleep(0.1);
        CHECK_MSG(check_now() - t0 < 60.0, "the pool threads did not fall asleep (sleeps %llu, from %llu)",
                  (unsigned long long)s, (unsigned long long)since);
    } while (s < since + more || pool_sleeps() != s);
}

MERINO_TASK_1(int, nothing, int, x) { return x + 1; }

/* A region with task objects only: they spin for 2 ms each and say where they ran. */
static int g_on_pool; /* atomic: tasks run by a pool thread */

static void spin_2ms(void *arg) {
    (void)arg;
    double t0 = check_now();
    while (check_now() - t0 < 0.002) {
    }
    if (merino_worker_index() > 0) __atomic_fetch_add(&g_on_pool, 1, __ATOMIC_RELAXED);
}

MERINO_VOID_TASK_0(group_region) {
    merino_task_group g;
    merino_task_group_init(&g);
    for (int i = 0; i < 8; i++) merino_task_group_run(&g, spin_2ms, NULL);
    CHECK_EQ_INT(merino_task_group_wait(&g), MERINO_COMPLETE);
}

/* A loop's sub-ranges: 2 ms of work each, counted where they ran. */
static void loop_body(int64_t lo, int64_t hi, void *ctx) {
    (void)ctx;
    for (int64_t i = lo; i < hi; i++) spin_2ms(NULL);
}

MERINO_TASK_1(int, spawn_one, int, x) {
    MERINO_SPAWN(nothing, x);
    return MERINO_JOIN(nothing);
}

/* A region whose first stolen task holds its thief until the two tasks after it have started:
 * the caller is busy too, so only the other pool threads can start them — the wake must be passed
 * on before the first thief runs what it took, not after. */
static int g_started; /* atomic: tasks of the region started */

static void wait_started(int n) {
    double t0 = check_now();
    while (__atomic_load_n(&g_started, __ATOMIC_RELAXED) < n) { /* relaxed: a count, no data */
        CHECK_MSG(check_now() - t0 < 20.0,
                  "only %d of %d tasks started: a task was out of the others' reach (not public, or nobody woken)",
                  __atomic_load_n(&g_started, __ATOMIC_RELAXED), n);
        check_sleep(0.0005);
    }
}

MERINO_VOID_TASK_1(hold, int, counted) {
    if (counted) __atomic_fetch_add(&g_started, 1, __ATOMIC_RELAXED);
    wait_started(2);
}

MERINO_VOID_TASK_0(chain_region) {
    MERINO_SPAWN(hold, 0); /* the oldest: the first thief takes it */
    MERINO_SPAWN(hold, 1);
    MERINO_SPAWN(hold, 1);
    wait_started(2); /* the caller's own work */
    MERINO_JOIN(hold);
    MERINO_JOIN(hold);
    MERINO_JOIN(hold);
}

/* The same with a task group: the caller runs the newest of three tasks and the first thief the
 * oldest, each waiting until two of the others have started, so the middle one must reach a third
 * thread: the group's wait makes its tasks public before it runs one (a request would come too
 * late), and the thief that takes a task object passes the wake on before it runs it. */
static void hold_fn(void *counted) {
    if (counted) __atomic_fetch_add(&g_started, 1, __ATOMIC_RELAXED); /* relaxed: a count */
    wait_started(2);
}

MERINO_VOID_TASK_0(chain_group_region) {
    merino_task_group g;
    merino_task_group_init(&g);
    merino_task_group_run(&g, hold_fn, NULL);
    merino_task_group_run(&g, hold_fn, &g);
    merino_task_group_run(&g, hold_fn, &g);
    CHECK_EQ_INT(merino_task_group_wait(&g), MERINO_COMPLETE);
}

static uint64_t steals_of(unsigned i) {
    merino_prof_report w;
    CHECK_EQ_INT(merino_prof_get_worker(i, &w), 0);
    return w.steals;
}

static void one_wake_at_a_time(unsigned workers) {
    enum { REGIONS = 200 };
    settle(pool_sleeps(), 0);
    uint64_t s0 = pool_sleeps();
    for (int i = 0; i < REGIONS; i++) {
        CHECK_EQ_INT(MERINO_RUN(spawn_one, i), i + 1);
        check_sleep(0.002); /* the woken ones are asleep again before the next region */
    }
    settle(s0, 0);
    uint64_t slept = pool_sleeps() - s0;
    printf("workers=%u: %d regions of one spawned task: %llu sleeps of the pool threads\n", workers, REGIONS,
           (unsigned long long)slept);
    CHECK_MSG(slept <= 2 * REGIONS + REGIONS / 4, "%llu sleeps: a region woke more than one sleeper",
              (unsigned long long)slept);

    /* Work for all: the wake is passed on until every pool thread has stolen something. */
    uint64_t before[8];
    for (unsigned i = 1; i < workers; i++) before[i] = steals_of(i);
    unsigned idle_ones = workers - 1;
    for (int r = 0; r < 50 && idle_ones > 0; r++) { /* a loaded machine may schedule them late */
        settle(pool_sleeps(), 0);
        CHECK_EQ_INT(MERINO_RUN(fib, 27), serial_fib(27));
        idle_ones = 0;
        for (unsigned i = 1; i < workers; i++) idle_ones += steals_of(i) == before[i];
    }
    printf("workers=%u: pool threads that stole nothing from sleeping starts: %u\n", workers, idle_ones);
    CHECK_EQ_UINT(idle_ones, 0);

    /* A long first task does not hold the wake: the next sleepers come while it runs. */
    settle(pool_sleeps(), 0);
    __atomic_store_n(&g_started, 0, __ATOMIC_RELAXED);
    MERINO_RUN(chain_region);
    printf("workers=%u: a region whose first stolen task waits for the next two: done\n", workers);
    settle(pool_sleeps(), 0);
    __atomic_store_n(&g_started, 0, __ATOMIC_RELAXED);
    MERINO_RUN(chain_group_region);
    printf("workers=%u: the same with a task group's three tasks: done\n", workers);
}

static void round_at(unsigned workers) {
    check_set_context("workers=%u", workers);
    g_workers = workers;
    merino_config cfg = {0};
    cfg.workers = workers;
    CHECK_EQ_INT(merino_start(&cfg), 0);
    CHECK_EQ_INT(MERINO_RUN(fib, 20), serial_fib(20));
    settle(0, workers - 1);

    /* Empty regions: nobody is woken. */
    uint64_t w0 = wakes(), s0 = pool_sleeps();
    for (int i = 0; i < 2000; i++) CHECK_EQ_INT(MERINO_RUN(nothing, i), i + 1);
    check_sleep(0.05); /* a worker woken by mistake would have slept again by now */
    printf("workers=%u: 2000 empty regions: %llu wakes, %llu sleeps of the pool threads\n", workers,
           (unsigned long long)(wakes() - w0), (unsigned long long)(pool_sleeps() - s0));
    CHECK_EQ_UINT(wakes() - w0, 0);
    CHECK_EQ_UINT(pool_sleeps() - s0, 0);

    /* A region that spawns wakes them, and they steal. */
    merino_stats st0, st1;
    merino_stats_get(&st0);
    CHECK_EQ_INT(MERINO_RUN(fib, 27), serial_fib(27));
    CHECK(wakes() > w0);
    for (int r = 0; r < 50; r++) { /* a loaded machine may not schedule the woken threads at once */
        merino_stats_get(&st1);
        if (st1.steals > st0.steals) break;
        CHECK_EQ_INT(MERINO_RUN(fib, 27), serial_fib(27));
    }
    printf("workers=%u: fib(27): %llu steals\n", workers, (unsigned long long)(st1.steals - st0.steals));
    CHECK(st1.steals > st0.steals);

    if (workers > 2) one_wake_at_a_time(workers);

    /* A region that only queues task objects wakes them too, and they run some of the tasks. */
    __atomic_store_n(&g_on_pool, 0, __ATOMIC_RELAXED);
    for (int r = 0; r < 20 && __atomic_load_n(&g_on_pool, __ATOMIC_RELAXED) == 0; r++) {
        settle(pool_sleeps(), 0);
        uint64_t w1 = wakes();
        MERINO_RUN(group_region);
        CHECK(wakes() > w1);
    }
    printf("workers=%u: task objects run by pool threads: %d\n", workers, __atomic_load_n(&g_on_pool, __ATOMIC_RELAXED));
    CHECK(__atomic_load_n(&g_on_pool, __ATOMIC_RELAXED) > 0);

    /* A loop from outside the pool: the same. */
    __atomic_store_n(&g_on_pool, 0, __ATOMIC_RELAXED);
    for (int r = 0; r < 20 && __atomic_load_n(&g_on_pool, __ATOMIC_RELAXED) == 0; r++) {
        settle(pool_sleeps(), 0);
        uint64_t w1 = wakes();
        merino_for(0, 16, loop_body, NULL, NULL);
        CHECK(wakes() > w1);
    }
    printf("workers=%u: loop iterations run by pool threads: %d\n", workers, __atomic_load_n(&g_on_pool, __ATOMIC_RELAXED));
    CHECK(__atomic_load_n(&g_on_pool, __ATOMIC_RELAXED) > 0);

    CHECK_EQ_INT(merino_stop(), 0);
    check_set_context(NULL);
}

int main(void) {
    round_at(2);
    round_at(4);
    return 0;
}
