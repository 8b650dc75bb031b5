/* The live CPU budget (src/core/sleep.c, docs/idle.md): the pool follows its cgroup's CPU quota and
 * its affinity mask while it runs. With a fake cgroup tree (MERINO_CGROUP_ROOT, MERINO_CGROUP_SELF)
 * whose cpu.max the test rewrites during a run, and 4 workers started on a budget of 2 CPUs:
 *  - a quota of 1 CPU leaves 2 workers competing (merino_workers_active), and the 2 others run no
 *    task while it lasts; 0.5 CPU (rounded up) the same;
 *  - no quota ("max"), or a quota of 2, brings all 4 back, and the returning workers run tasks;
 *  - a cpu.max that disappears, or that holds garbage, falls back to the mask: 4, silently;
 *  - the main thread's mask narrowed to 1 CPU (what `taskset -a -p` does to the whole process)
 *    leaves 2 workers; widened again, 4;
 *  - a pool of 2 workers on 2 CPUs (one per CPU) keeps 1 at a quota of 1, 2 without quota;
 *  - merino_stop with workers parked.
 * The workers re-read the budget when they idle; the test waits (with a generous time-out, a hang
 * guard only) for the counts, and asserts on them, never on time. */
#include "check.h"

#include <merino.h>

#include <sched.h>
#include <stdbool.h>
#include <sys/stat.h>

#include "fib.h"

#define WORKERS 4

static char g_dir[256];

static void write_cpu_max(const char *text) {
    char path[512];
    snprintf(path, sizeof path, "%s/root/test.slice/cpu.max", g_dir);
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.new", path);
    FILE *f = fopen(tmp, "w");
    CHECK_MSG(f != NULL, "%s: %s", tmp, strerror(errno));
    fputs(text, f);
    CHECK_EQ_INT(fclose(f), 0);
    CHECK_EQ_INT(rename(tmp, path), 0); /* the workers read either the old file or the new one */
}

static void remove_cpu_max(void) {
    char path[512];
    snprintf(path, sizeof path, "%s/root/test.slice/cpu.max", g_dir);
    CHECK_EQ_INT(unlink(path), 0);
}

MERINO_VOID_TASK_0(nothing) {}

/* Waits, inside a task (so that a run is in flight and the pool threads idle and re-read the
 * budget), until merino_workers_active() == want. Returns the count last seen. The spawn wakes
 * the sleeping pool threads (a region that spawns nothing leaves them asleep); awake, they stay
 * awake until the run ends. */
MERINO_TASK_1(unsigned, wait_active, unsigned, want) {
    MERINO_SPAWN(nothing);
    MERINO_JOIN(nothing);
    double t0 = check_now();
    unsigned seen;
    while ((seen = merino_workers_active()) != want && check_now() - t0 < 60.0) sched_yield();
    return seen;
}

static void expect_active(const char *what, unsigned want) {
    check_set_context("%s", what);
    unsigned seen = MERINO_RUN(wait_active, want);
    printf("%s: %u workers compete\n", what, seen);
    CHECK_EQ_UINT(seen, want);
    check_set_context(NULL);
}

/* fib that records the highest worker index any of its calls ran on. */
static int g_max_index;
MERINO_TASK_1(int64_t, fib_where, int, n) {
    int i = merino_worker_index();
    int m = __atomic_load_n(&g_max_index, __ATOMIC_RELAXED);
    while (i > m && !__atomic_compare_exchange_n(&g_max_index, &m, i, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
    if (n < 2) return n;
    MERINO_SPAWN(fib_where, n - 2);
    int64_t a = MERINO_CALL(fib_where, n - 1);
    int64_t b = MERINO_JOIN(fib_where);
    return a + b;
}

static int max_index_of_runs(int runs) {
    __atomic_store_n(&g_max_index, -1, __ATOMIC_RELAXED);
    for (int r = 0; r < runs; r++) CHECK_EQ_INT(MERINO_RUN(fib_where, 18), serial_fib(18));
    return __atomic_load_n(&g_max_index, __ATOMIC_RELAXED);
}

/* Parked workers are asleep: none of the tasks of many runs lands on them. */
static void expect_only_first(const char *what, int active) {
    check_set_context("%s", what);
    int m = max_index_of_runs(200);
    CHECK_MSG(m < active, "a task ran on worker %d while only %d compete", m, active);
    check_set_context(NULL);
}

/* Returning workers compete again: some task eventually runs on one of them. */
static void expect_some_on(const char *what, int index) {
    check_set_context("%s", what);
    double t0 = check_now();
    int m;
    while ((m = max_index_of_runs(20)) < index && check_now() - t0 < 60.0) {
    }
    CHECK_MSG(m >= index, "no task ran on worker %d or above", index);
    check_set_context(NULL);
}

int main(void) {
    cpu_set_t mask;
    CHECK_EQ_INT(sched_getaffinity(0, sizeof mask, &mask), 0);
    if (CPU_COUNT(&mask) < 2) check_skip("the budget cannot shrink below 1 CPU, and this process may use only 1");

    snprintf(g_dir, sizeof g_dir, "%s/merino-live-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    CHECK(mkdtemp(g_dir) != NULL);
    char path[512];
    snprintf(path, sizeof path, "%s/root", g_dir);
    CHECK_EQ_INT(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/root/test.slice", g_dir);
    CHECK_EQ_INT(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/self", g_dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fputs("0::/test.slice\n", f);
    CHECK_EQ_INT(fclose(f), 0);
    write_cpu_max("200000 100000\n"); /* 2 CPUs at start */
    CHECK_EQ_INT(setenv("MERINO_CGROUP_SELF", path, 1), 0);
    snprintf(path, sizeof path, "%s/root", g_dir);
    CHECK_EQ_INT(setenv("MERINO_CGROUP_ROOT", path, 1), 0);

    merino_config cfg = {0};
    cfg.workers = WORKERS; /* twice the budget: the pool keeps that ratio */
    CHECK_EQ_INT(merino_start(&cfg), 0);
    expect_active("start, quota 2", 4);

    write_cpu_max("100000 100000\n");
    expect_active("quota 1", 2);
    expect_only_first("quota 1", 2);

    write_cpu_max("max 100000\n");
    expect_active("no quota", 4);
    expect_some_on("no quota", 2);

    write_cpu_max("50000 100000\n");
    expect_active("quota 0.5", 2);
    expect_only_first("quota 0.5", 2);

    remove_cpu_max();
    expect_active("cpu.max removed", 4);

    write_cpu_max("100000 100000\n");
    expect_active("quota 1 again", 2);
    write_cpu_max("garbage\n");
    expect_active("cpu.max malformed", 4);

    /* The mask: the main thread's narrowed to one CPU, as a change to the whole process would. */
    cpu_set_t one;
    CPU_ZERO(&one);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &mask)) {
            CPU_SET(c, &one);
            break;
        }
    CHECK_EQ_INT(sched_setaffinity(0, sizeof one, &one), 0);
    expect_active("mask of 1 CPU", 2);
    expect_only_first("mask of 1 CPU", 2);
    CHECK_EQ_INT(sched_setaffinity(0, sizeof mask, &mask), 0);
    expect_active("mask restored", 4);
    expect_some_on("mask restored", 2);

    CHECK_EQ_INT(merino_stop(), 0);
    CHECK_EQ_UINT(merino_workers_active(), 0);

    /* A pool of one worker per CPU (2 on 2) follows the budget itself: 1 CPU, 1 worker. */
    write_cpu_max("200000 100000\n");
    merino_config two = {0};
    two.workers = 2;
    CHECK_EQ_INT(merino_start(&two), 0);
    expect_active("2 workers, quota 2", 2);
    write_cpu_max("100000 100000\n");
    expect_active("2 workers, quota 1", 1);
    expect_only_first("2 workers, quota 1", 1);
    write_cpu_max("max 100000\n");
    expect_active("2 workers, no quota", 2);
    CHECK_EQ_INT(merino_stop(), 0);

    /* Stopping with workers parked wakes and ends them. */
    write_cpu_max("200000 100000\n"); /* a quota file must be readable at start to be followed */
    CHECK_EQ_INT(merino_start(&cfg), 0);
    write_cpu_max("100000 100000\n");
    expect_active("quota 1, then stop", 2);
    CHECK_EQ_INT(merino_stop(), 0);

    remove_cpu_max();
    snprintf(path, sizeof path, "%s/root/test.slice", g_dir);
    rmdir(path);
    snprintf(path, sizeof path, "%s/root", g_dir);
    rmdir(path);
    snprintf(path, sizeof path, "%s/self", g_dir);
    unlink(path);
    rmdir(g_dir);
    return 0;
}
