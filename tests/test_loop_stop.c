/* test_loop_stop.c — loops while the pool stops and starts, and loops in a forked child, each in
 * a child process with a deadline (a crash or a hang is a failure, not a stuck test):
 *   in_flight:S   a loop under schedule S (plain, deterministic, a reduction) started inside runs in
 *                 flight — one in the caller slot, one handed over to a pool thread — after another
 *                 thread's merino_stop has begun: the runs still see the pool's workers
 *                 (merino_workers()), every index runs once, the reduction is right, stop returns
 *   churn         two threads run small loops of random schedules from outside the pool while the
 *                 main thread stops and starts the pool 3,000 times (replayable: MERINO_TEST_SEED)
 *   fork_task     fork() from a task: the child runs a loop of every schedule on its one thread
 *   fork_main     fork() from outside the pool: the child's loops start a pool of its own */
#include "check.h"

#include "loop_test.h"

#include <pthread.h>

static const char *const schedules[] = {
    "auto", "adaptive", "static", "static,3", "dynamic", "dynamic,7", "guided",
    "steal", "steal,2", "idws", "idws-poll",
};
#define NSCHEDULES (sizeof schedules / sizeof schedules[0])

/* ---- one loop, checked ------------------------------------------------------------------------ */

typedef struct counted {
    int64_t n;
    unsigned char *hits; /* atomic: runs of each index */
} counted;

static void count_body(int64_t lo, int64_t hi, void *ctx) {
    counted *c = ctx;
    /* relaxed: counts, read after the loop's join */
    for (int64_t i = lo; i < hi; i++) __atomic_fetch_add(&c->hits[i], 1, __ATOMIC_RELAXED);
}

static int64_t square(int64_t lo, int64_t hi, void *ctx) {
    (void)ctx;
    int64_t s = 0;
    for (int64_t i = lo; i < hi; i++) s += i * i;
    return s;
}

/* A loop of n indices under schedule `text` (plain and deterministic) and a sum of squares; returns
 * 0, or a nonzero code after printing what went wrong on stderr. */
static int run_loops(const char *text, int64_t n) {
    for (int det = 0; det <= 1; det++) {
        merino_for_opts o = opts_of(text, det);
        counted c = {n, calloc((size_t)n, 1)};
        if (c.hits == NULL) return 2;
        merino_for(0, n, count_body, &c, &o);
        for (int64_t i = 0; i < n; i++)
            if (c.hits[i] != 1) {
                fprintf(stderr, "%s%s: index %lld of %lld ran %d times\n", text, det ? " (deterministic)" : "",
                        (long long)i, (long long)n, c.hits[i]);
                free(c.hits);
                return 3;
            }
        free(c.hits);
        int64_t want = 0;
        for (int64_t i = 0; i < n; i++) want += i * i;
        int64_t got = merino_sum_int64(0, n, square, NULL, &o);
        if (got != want) {
            fprintf(stderr, "%s%s: the sum of squares of [0, %lld) is %lld, not %lld\n", text,
                    det ? " (deterministic)" : "", (long long)n, (long long)got, (long long)want);
            return 4;
        }
    }
    return 0;
}

/* ---- in_flight: loops in runs that merino_stop waits for ------------------------------------------ */

static int g_stop_seen;        /* atomic: an outside thread saw merino_workers() drop to 0 */
static int g_runs_started;     /* atomic: runs in flight that have begun */
static const char *g_schedule; /* the schedule under test */

/* Waits (bounded) until merino_stop has begun, then runs the loops; returns 0 or a code. */
MERINO_TASK_1(int, loops_after_stop, unsigned, workers) {
    __atomic_fetch_add(&g_runs_started, 1, __ATOMIC_RELAXED); /* relaxed: a count */
    double until = check_now() + 20;
    while (!__atomic_load_n(&g_stop_seen, __ATOMIC_ACQUIRE) && check_now() < until) sched_yield(); /* acquire: a flag */
    if (!__atomic_load_n(&g_stop_seen, __ATOMIC_ACQUIRE)) return 5; /* acquire: as above */
    if (merino_workers() != workers) { /* a run in flight sees the pool it runs on */
        fprintf(stderr, "merino_workers() is %u in a run in flight during merino_stop, not %u\n",
                merino_workers(), workers);
        return 6;
    }
    return run_loops(g_schedule, 3000);
}

static void *run_in_flight(void *arg) {
    *(int *)arg = MERINO_RUN(loops_after_stop, 2);
    return NULL;
}

/* Sets g_stop_seen once merino_workers() reads 0 on this thread (outside the pool): stop has begun. */
static void *watch_stop(void *arg) {
    (void)arg;
    double until = check_now() + 20;
    while (merino_workers() != 0 && check_now() < until) sched_yield();
    __atomic_store_n(&g_stop_seen, 1, __ATOMIC_RELEASE); /* release: a flag */
    return NULL;
}

static int child_in_flight(const char *schedule) {
    g_schedule = schedule;
    merino_config cfg = {.workers = 2};
    if (merino_start(&cfg) != 0) return 2;
    /* Two runs in flight: the first takes the caller slot, the second is handed to the pool thread
     * (which of them does which depends on timing; both are run either way). */
    int r[2] = {-1, -1};
    pthread_t t[2], watcher;
    for (int i = 0; i < 2; i++)
        if (pthread_create(&t[i], NULL, run_in_flight, &r[i]) != 0) return 2;
    double until = check_now() + 20; /* both runs begin before the stop (bounded) */
    while (__atomic_load_n(&g_runs_started, __ATOMIC_RELAXED) < 2 && check_now() < until) sched_yield(); /* relaxed: a count */
    if (__atomic_load_n(&g_runs_started, __ATOMIC_RELAXED) < 2) return 8; /* relaxed: as above */
    if (pthread_create(&watcher, NULL, watch_stop, NULL) != 0) return 2;
    int stopped = merino_stop(); /* waits for both runs */
    pthread_join(watcher, NULL);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    if (stopped != 0) return 7;
    for (int i = 0; i < 2; i++)
        if (r[i] != 0) return r[i];
    return 0;
}

static void check_in_flight(void) {
    for (size_t s = 0; s < NSCHEDULES; s++) {
        char name[64];
        snprintf(name, sizeof name, "in_flight:%s", schedules[s]);
        check_set_context("%s", name);
        check_child c = check_run_child(name, NULL, 60);
        CHECK_CHILD(c, c.exited && c.code == 0);
        check_child_free(&c);
    }
    check_set_context(NULL);
    printf("in_flight: loops of %zu schedules in runs in flight during merino_stop: ok\n", NSCHEDULES);
}

/* ---- churn: small loops from outside while the pool stops and starts ------------------------------- */

static int g_churn_done;       /* atomic: the main thread has finished its stops and starts */
static unsigned long long g_seed;

static uint64_t next_random(uint64_t *x) { /* splitmix64 */
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void *churn_loops(void *arg) {
    uint64_t x = g_seed + (uint64_t)(uintptr_t)arg;
    unsigned char hits[64];
    while (!__atomic_load_n(&g_churn_done, __ATOMIC_ACQUIRE)) { /* acquire: a flag */
        uint64_t r = next_random(&x);
        merino_for_opts o = opts_of(schedules[r % NSCHEDULES], (int)(r >> 8) & 1);
        int64_t n = 1 + (int64_t)((r >> 16) % 64);
        counted c = {n, hits};
        memset(hits, 0, sizeof hits);
        merino_for(0, n, count_body, &c, &o);
        for (int64_t i = 0; i < n; i++)
            if (hits[i] != 1) {
                fprintf(stderr, "churn: %s: index %lld of %lld ran %d times\n", schedules[r % NSCHEDULES],
                        (long long)i, (long long)n, hits[i]);
                _exit(3);
            }
    }
    return NULL;
}

static int child_churn(int cycles) {
    if (!check_env_seed(&g_seed)) return 2; /* the parent passes it */
    pthread_t t[2];
    for (uintptr_t i = 0; i < 2; i++)
        if (pthread_create(&t[i], NULL, churn_loops, (void *)i) != 0) return 2;
    merino_config cfg = {.workers = 2, .quiet = 1};
    for (int k = 0; k < cycles; k++) {
        if (merino_ensure_started(&cfg) != 0) return 4; /* the loops may have started one */
        if (merino_stop() != 0) return 5;
    }
    __atomic_store_n(&g_churn_done, 1, __ATOMIC_RELEASE); /* release: a flag */
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    return 0;
}

static void check_churn(void) {
    unsigned long long seed;
    if (!check_env_seed(&seed)) seed = (unsigned long long)time(NULL) ^ (unsigned long long)getpid() << 20;
    check_set_seed(seed);
    char env_seed[64];
    snprintf(env_seed, sizeof env_seed, "MERINO_TEST_SEED=%llu", seed);
    const char *const env[] = {env_seed, NULL};
    int cycles = (int)(3000 * check_scale());
    char name[32];
    snprintf(name, sizeof name, "churn:%d", cycles);
    double t0 = check_now();
    check_child c = check_run_child(name, env, 120);
    CHECK_CHILD(c, c.exited && c.code == 0);
    check_child_free(&c);
    printf("churn: %d stops and starts beside two threads of loops in %.1f s: ok (seed %llu)\n", cycles,
           check_now() - t0, seed);
    check_clear_seed();
}

/* ---- fork ------------------------------------------------------------------------------------------ */

/* The forked child's exit code, or -1 (it died of a signal, or hung and was killed). */
static int forked_exit_code(pid_t pid) {
    int status = pid > 0 ? check_wait_pid(pid, 30) : -1;
    return status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* In a child with only the forking thread: every schedule's loops, on that thread. */
static int loops_in_forked_child(unsigned expect_workers) {
    for (size_t s = 0; s < NSCHEDULES; s++) {
        int r = run_loops(schedules[s], 2000);
        if (r) return r;
    }
    if (expect_workers && merino_workers() != expect_workers) {
        fprintf(stderr, "merino_workers() is %u in the forked child, not %u\n", merino_workers(), expect_workers);
        return 6;
    }
    return 0;
}

MERINO_TASK_0(int, fork_in_task) {
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) _exit(loops_in_forked_child(1)); /* only this thread is left: one worker */
    return forked_exit_code(pid);
}

static int child_fork_task(void) {
    merino_config cfg = {.workers = 2};
    if (merino_start(&cfg) != 0) return 2;
    if (run_loops("auto", 1000) != 0) return 3; /* the pool has run loops before the fork */
    int r = MERINO_RUN(fork_in_task);
    if (merino_stop() != 0) return 7;
    return r;
}

static int child_fork_main(void) {
    merino_config cfg = {.workers = 2};
    if (merino_start(&cfg) != 0) return 2;
    if (run_loops("idws", 1000) != 0) return 3;
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) _exit(loops_in_forked_child(0)); /* the loops start a pool in the child */
    int r = forked_exit_code(pid);
    if (merino_stop() != 0) return 7;
    return r;
}

static void check_fork(void) {
    check_child c = check_run_child("fork_task", NULL, 60);
    CHECK_CHILD(c, c.exited && c.code == 0);
    check_child_free(&c);
    printf("fork_task: loops of every schedule in the child of a fork from a task: ok\n");
#if CHECK_TSAN
    printf("fork_main: skipped under ThreadSanitizer (no threads after a multi-threaded fork)\n");
#else
    c = check_run_child("fork_main", NULL, 60);
    CHECK_CHILD(c, c.exited && c.code == 0);
    check_child_free(&c);
    printf("fork_main: loops of every schedule in the child of a fork from outside the pool: ok\n");
#endif
}

static int run_child(const char *name) {
    if (strncmp(name, "in_flight:", 10) == 0) return child_in_flight(name + 10);
    if (strncmp(name, "churn:", 6) == 0) return child_churn(atoi(name + 6));
    if (strcmp(name, "fork_task") == 0) return child_fork_task();
    if (strcmp(name, "fork_main") == 0) return child_fork_main();
    fprintf(stderr, "unknown child %s\n", name);
    return 2;
}

int main(int argc, char **argv) {
    const char *child = check_child_name(argc, argv);
    if (child) return run_child(child);
    unsetenv("MERINO_SCHEDULE");
    check_in_flight();
    check_fork();
    check_churn();
    puts("test_loop_stop: ok");
    return 0;
}
