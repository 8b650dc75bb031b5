/* Starting and stopping while other threads use merino: merino_stop always ends, runs that race it
 * either finish in the old pool or start a new one, and the lifecycle has no data race (this test
 * runs under ThreadSanitizer in `make tsan`). Each case runs in a child process with a deadline
 * (check_run_child): a hang is a timeout, a failure, never a stuck test.
 *
 *   stop_vs_stats      a task calls merino_stats_get while merino_stop waits for that task's run:
 *                      stop returns once the run ends (it used to deadlock on the lifecycle lock)
 *   stop_vs_runners    4 threads call MERINO_RUN in a loop while the main thread stops the pool:
 *                      stop returns (it waits for the runs in flight only); later runs start a new
 *                      default pool; every result is right. 20 rounds
 *   run_vs_stop        one MERINO_RUN from another thread races merino_stop: the run returns the
 *                      right value, in the old pool or a new one, never blocks. 200 rounds
 *   stats_vs_restart   threads call merino_stats_get and merino_workers from outside the pool
 *                      while the main thread starts and stops pools: each stop returns (a start
 *                      must not lose a concurrent call's count of runs in flight), merino_workers
 *                      is 0 or the pool's size
 *   start_errors       8 threads call merino_start with a different bad configuration each, at
 *                      once: each sees its own message in merino_last_error() (it is per thread) */
#define _GNU_SOURCE 1
#include "check.h"

#include <pthread.h>

#include <merino.h>

#include "fib.h"

enum { CHILD_OK = 42, START_FAILED = 46 };

static void start_workers(unsigned n) {
    merino_config cfg = {0};
    cfg.workers = n;
    if (merino_start(&cfg) != 0) _exit(START_FAILED);
}

static void spawn_thread(pthread_t *t, void *(*fn)(void *), void *arg) {
    if (pthread_create(t, NULL, fn, arg) != 0) {
        fprintf(stderr, "pthread_create failed\n");
        _exit(2);
    }
}

/* ---- stop_vs_stats ---------------------------------------------------------------------------------- */

static int g_in_task, g_stopping; /* atomic flags */
static uint64_t g_stats_calls;    /* atomic */

MERINO_TASK_0(int, stats_until_stop) {
    __atomic_store_n(&g_in_task, 1, __ATOMIC_RELEASE); /* release: a flag, no data */
    while (!__atomic_load_n(&g_stopping, __ATOMIC_ACQUIRE)) check_sleep(0.001);
    /* merino_stop has been called (or is about to be): it waits for this run; ask for the stats
     * meanwhile, for a while */
    double until = check_now() + 0.2;
    while (check_now() < until) {
        merino_stats s;
        merino_stats_get(&s);
        __atomic_fetch_add(&g_stats_calls, 1, __ATOMIC_RELAXED); /* relaxed: a count */
    }
    return 7;
}

static void *run_stats_task(void *arg) {
    *(int *)arg = MERINO_RUN(stats_until_stop);
    return NULL;
}

static int child_stop_vs_stats(void) {
    start_workers(2);
    pthread_t t;
    int result = 0;
    spawn_thread(&t, run_stats_task, &result);
    while (!__atomic_load_n(&g_in_task, __ATOMIC_ACQUIRE)) check_sleep(0.001);
    __atomic_store_n(&g_stopping, 1, __ATOMIC_RELEASE);
    int r = merino_stop();
    pthread_join(t, NULL);
    fprintf(stderr, "stop returned %d; the task returned %d after %llu merino_stats_get calls\n", r, result,
            (unsigned long long)__atomic_load_n(&g_stats_calls, __ATOMIC_RELAXED));
    if (r != 0 || result != 7 || __atomic_load_n(&g_stats_calls, __ATOMIC_RELAXED) == 0) return 1;
    return merino_workers() == 0 ? CHILD_OK : 1;
}

/* ---- stop_vs_runners -------------------------------------------------------------------------------- */

static int g_quit; /* atomic */
static unsigned long g_runs; /* atomic */

static void *keep_running(void *arg) {
    (void)arg;
    while (!__atomic_load_n(&g_quit, __ATOMIC_ACQUIRE)) {
        if (MERINO_RUN(fib, 15) != serial_fib(15)) {
            fprintf(stderr, "a run returned a wrong value\n");
            _exit(1);
        }
        __atomic_fetch_add(&g_runs, 1, __ATOMIC_RELAXED); /* relaxed: a count */
    }
    return NULL;
}

static int child_stop_vs_runners(void) {
    enum { THREADS = 4, ROUNDS = 20 };
    for (int round = 0; round < ROUNDS; round++) {
        start_workers(2);
        __atomic_store_n(&g_quit, 0, __ATOMIC_RELAXED);
        pthread_t t[THREADS];
        for (int i = 0; i < THREADS; i++) spawn_thread(&t[i], keep_running, NULL);
        unsigned long before = __atomic_load_n(&g_runs, __ATOMIC_RELAXED);
        while (__atomic_load_n(&g_runs, __ATOMIC_RELAXED) < before + 20) check_sleep(0.001);
        if (merino_stop() != 0) {
            fprintf(stderr, "round %d: merino_stop failed: %s\n", round, merino_last_error());
            return 1;
        }
        /* the runs go on, in a default pool started by the first of them after the stop */
        before = __atomic_load_n(&g_runs, __ATOMIC_RELAXED);
        while (__atomic_load_n(&g_runs, __ATOMIC_RELAXED) < before + 20) check_sleep(0.001);
        __atomic_store_n(&g_quit, 1, __ATOMIC_RELEASE);
        for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
        if (merino_workers() == 0) {
            fprintf(stderr, "round %d: the runs after merino_stop did not start a pool\n", round);
            return 1;
        }
        if (merino_stop() != 0) return 1;
    }
    fprintf(stderr, "%d rounds, %lu runs\n", ROUNDS, __atomic_load_n(&g_runs, __ATOMIC_RELAXED));
    return CHILD_OK;
}

/* ---- run_vs_stop ------------------------------------------------------------------------------------ */

static void *run_once(void *arg) {
    *(int64_t *)arg = MERINO_RUN(fib, 12);
    return NULL;
}

static int child_run_vs_stop(void) {
    enum { ROUNDS = 200 };
    for (int round = 0; round < ROUNDS; round++) {
        start_workers(1 + (unsigned)round % 3);
        pthread_t t;
        int64_t result = -1;
        spawn_thread(&t, run_once, &result);
        if (round % 2) sched_yield();
        if (merino_stop() != 0) return 1;
        pthread_join(t, NULL);
        if (result != serial_fib(12)) {
            fprintf(stderr, "round %d: the run returned %lld\n", round, (long long)result);
            return 1;
        }
        /* the run may have started a new pool after the stop */
        if (merino_workers() != 0 && merino_stop() != 0) return 1;
    }
    return CHILD_OK;
}

/* ---- stats_vs_restart ------------------------------------------------------------------------------- */

static unsigned g_sizes_seen_bad; /* atomic */

static void *poll_pool(void *arg) {
    (void)arg;
    while (!__atomic_load_n(&g_quit, __ATOMIC_ACQUIRE)) {
        merino_stats s;
        merino_stats_get(&s);
        unsigned n = merino_workers();
        if (n != 0 && n != 2 && n != 3) __atomic_fetch_add(&g_sizes_seen_bad, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

static int child_stats_vs_restart(void) {
    enum { THREADS = 2, ROUNDS = 100 };
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) spawn_thread(&t[i], poll_pool, NULL);
    for (int round = 0; round < ROUNDS; round++) {
        start_workers(2 + (unsigned)round % 2);
        if (MERINO_RUN(fib, 10) != serial_fib(10)) return 1;
        if (merino_stop() != 0) return 1;
    }
    __atomic_store_n(&g_quit, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    if (__atomic_load_n(&g_sizes_seen_bad, __ATOMIC_RELAXED) != 0) {
        fprintf(stderr, "merino_workers returned a size no pool had\n");
        return 1;
    }
    return CHILD_OK;
}

/* ---- start_errors ----------------------------------------------------------------------------------- */

enum { ERR_THREADS = 8 };
static int g_go; /* atomic */

static void *bad_start(void *arg) {
    unsigned i = (unsigned)(uintptr_t)arg;
    merino_config cfg = {0};
    cfg.quiet = 1;
    cfg.workers = MERINO_MAX_WORKERS + 1 + i; /* out of range, and names this thread */
    while (!__atomic_load_n(&g_go, __ATOMIC_ACQUIRE)) sched_yield();
    for (int k = 0; k < 200; k++) {
        if (merino_start(&cfg) != -1) return (void *)1;
        if (!check_has_number(merino_last_error(), (long long)cfg.workers)) {
            fprintf(stderr, "thread %u sees another's error: %s\n", i, merino_last_error());
            return (void *)1;
        }
    }
    return NULL;
}

static int child_start_errors(void) {
    pthread_t t[ERR_THREADS];
    for (unsigned i = 0; i < ERR_THREADS; i++) spawn_thread(&t[i], bad_start, (void *)(uintptr_t)i);
    __atomic_store_n(&g_go, 1, __ATOMIC_RELEASE);
    int bad = 0;
    for (unsigned i = 0; i < ERR_THREADS; i++) {
        void *r;
        pthread_join(t[i], &r);
        bad |= r != NULL;
    }
    return bad || merino_workers() != 0 ? 1 : CHILD_OK;
}

/* ---- the checks ------------------------------------------------------------------------------------- */

static int run_child(const char *name) {
    if (strcmp(name, "stop_vs_stats") == 0) return child_stop_vs_stats();
    if (strcmp(name, "stop_vs_runners") == 0) return child_stop_vs_runners();
    if (strcmp(name, "run_vs_stop") == 0) return child_run_vs_stop();
    if (strcmp(name, "stats_vs_restart") == 0) return child_stats_vs_restart();
    if (strcmp(name, "start_errors") == 0) return child_start_errors();
    fprintf(stderr, "unknown child %s\n", name);
    return 3;
}

int main(int argc, char **argv) {
    const char *child = check_child_name(argc, argv);
    if (child) return run_child(child);

    static const char *const env[] = {"-MERINO_WORKERS", "-MERINO_TASK_STACK", "-MERINO_C_STACK", NULL};
    static const char *const names[] = {"stop_vs_stats", "stop_vs_runners", "run_vs_stop", "stats_vs_restart",
                                        "start_errors"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        check_set_context("child %s", names[i]);
        check_child c = check_run_child(names[i], env, 120);
        char buf[64];
        printf("%s: %s; stderr:\n%s", names[i], check_child_status(&c, buf, sizeof buf), c.err);
        CHECK_CHILD(c, !c.timed_out);
        CHECK_CHILD(c, c.exited && c.code == CHILD_OK);
        check_child_free(&c);
    }
    check_set_context(NULL);
    printf("lifecycle: all checks passed\n");
    return 0;
}
