/* Where workers run (src/core/place.c, merino_config.pin, MERINO_PIN): each worker reports the
 * affinity mask its thread really has, from inside a task, and the test checks it against the
 * setting:
 *  - auto (the default) with 2 or more workers and no more than CPUs: worker i bound to the i-th
 *    CPU of the mask merino_start was called with; one worker, or more workers than CPUs:
 *    unbound (the whole mask);
 *  - on: bound round robin, even with more workers than CPUs; off: unbound;
 *  - merino_config.pin wins over MERINO_PIN, which wins over the default;
 *  - the mask is the caller's: from a thread restricted to one CPU, the default pool is one
 *    worker, bound to that CPU.
 * Every pool also computes fib and checks it. The probe waits for every worker to have run a task
 * with a bound (PATIENCE seconds) only so that a broken runtime ends the test. */
#define _GNU_SOURCE 1
#include "check.h"

#include <merino.h>
#include <pthread.h>
#include <sched.h>

#include "fib.h"

#define PATIENCE 20.0
#define MAX_TESTED_WORKERS 64

static cpu_set_t g_mask;  /* the process's affinity mask when the test starts */
static int g_ncpus;

static cpu_set_t g_seen_mask[MAX_TESTED_WORKERS];
static int g_seen[MAX_TESTED_WORKERS]; /* atomic: 1 once g_seen_mask[i] is written */

/* A leaf records its worker's mask once, then spins a little so that idle workers steal the
 * leaves beside it. */
MERINO_VOID_TASK_1(probe, int, depth) {
    if (depth > 0) {
        MERINO_SPAWN(probe, depth - 1);
        MERINO_CALL(probe, depth - 1);
        MERINO_JOIN(probe);
        return;
    }
    int i = merino_worker_index();
    CHECK(i >= 0 && i < MAX_TESTED_WORKERS);
    /* relaxed: only worker i writes slot i; the main thread reads it after MERINO_RUN returns */
    if (!__atomic_load_n(&g_seen[i], __ATOMIC_RELAXED)) {
        CHECK_EQ_INT(pthread_getaffinity_np(pthread_self(), sizeof g_seen_mask[i], &g_seen_mask[i]), 0);
        __atomic_store_n(&g_seen[i], 1, __ATOMIC_RELEASE); /* release: the mask above */
    }
    double until = check_now() + 20e-6;
    while (check_now() < until) {}
}

/* The c-th CPU (0-based, in increasing order) of mask. */
static int nth_cpu(const cpu_set_t *mask, int c) {
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, mask) && c-- == 0) return cpu;
    CHECK_MSG(0, "the mask has fewer CPUs than asked for");
    return -1;
}

/* Starts a pool of `workers` with `pin` (and the environment as it is), checks fib, has every
 * worker report its mask, stops. */
static void run_pool(unsigned workers, int pin) {
    CHECK(workers <= MAX_TESTED_WORKERS);
    merino_config cfg = {0};
    cfg.workers = workers;
    cfg.pin = pin;
    CHECK_EQ_INT(merino_start(&cfg), 0);
    CHECK_EQ_INT(MERINO_RUN(fib, 25), serial_fib(25));
    memset(g_seen, 0, sizeof g_seen);
    unsigned n = merino_workers(), seen = 0;
    double until = check_now() + PATIENCE;
    while (seen < n && check_now() < until) {
        MERINO_RUN(probe, 7);
        seen = 0;
        for (unsigned i = 0; i < n; i++) seen += __atomic_load_n(&g_seen[i], __ATOMIC_ACQUIRE) != 0;
    }
    CHECK_MSG(seen == n, "only %u of %u workers ran a task in %.0f s", seen, n, PATIENCE);
    CHECK_EQ_INT(merino_stop(), 0);
}

/* Pool thread i (worker i >= 1) is bound to one CPU of mask and to nothing else: the CPUs of the
 * mask in order, round robin, starting after the one the starting thread ran on — so pool thread
 * i and pool thread i + CPUs share a CPU, and the first CPUs - 1 pool threads have distinct CPUs,
 * none of them the one the round starts from. Worker 0, the caller slot, runs on the thread that
 * called MERINO_RUN, whose mask merino leaves as it is. */
static void expect_bound(unsigned workers, const cpu_set_t *mask) {
    int ncpus = CPU_COUNT(mask);
    CHECK_MSG(CPU_EQUAL(&g_seen_mask[0], &g_mask), "worker 0 (the caller's thread) may run on %d CPUs; "
              "merino should not have changed its mask (%d CPUs)", CPU_COUNT(&g_seen_mask[0]), g_ncpus);
    int start = -1; /* the position in mask of the CPU the round starts from */
    for (unsigned i = 1; i < workers; i++) {
        CHECK_MSG(CPU_COUNT(&g_seen_mask[i]) == 1, "worker %u of %u may run on %d CPUs; it should be "
                  "bound to one", i, workers, CPU_COUNT(&g_seen_mask[i]));
        int pos = -1;
        for (int k = 0; k < ncpus; k++)
            if (CPU_ISSET(nth_cpu(mask, k), &g_seen_mask[i])) pos = k;
        CHECK_MSG(pos >= 0, "worker %u of %u is bound to a CPU outside the mask", i, workers);
        if (start < 0) start = ((pos - 1) % ncpus + ncpus) % ncpus;
        int want = (int)((unsigned)start + i) % ncpus;
        CHECK_MSG(pos == want, "worker %u of %u is bound to the %d-th CPU of the mask; the round "
                  "robin from the %d-th says the %d-th", i, workers, pos, start, want);
    }
}

/* Every worker may run on every CPU of the process's mask. */
static void expect_unbound(unsigned workers) {
    for (unsigned i = 0; i < workers; i++)
        CHECK_MSG(CPU_EQUAL(&g_seen_mask[i], &g_mask),
                  "worker %u of %u may run on %d CPUs; it should be unbound (%d CPUs)", i, workers,
                  CPU_COUNT(&g_seen_mask[i]), g_ncpus);
}

int main(void) {
    CHECK_EQ_INT(sched_getaffinity(0, sizeof g_mask, &g_mask), 0);
    g_ncpus = CPU_COUNT(&g_mask);
    CHECK(g_ncpus >= 1);
    unsigned n = (unsigned)g_ncpus;
    if (n > MAX_TESTED_WORKERS / 2 - 1) n = MAX_TESTED_WORKERS / 2 - 1; /* room for 2n + 1 */
    unsetenv("MERINO_PIN");

    check_set_context("auto, %u workers on %d CPUs", n, g_ncpus);
    run_pool(n, MERINO_PIN_DEFAULT);
    if (n >= 2)
        expect_bound(n, &g_mask);
    else
        expect_unbound(n);

    check_set_context("auto, 1 worker on %d CPUs", g_ncpus);
    run_pool(1, MERINO_PIN_AUTO);
    expect_unbound(1);

    check_set_context("MERINO_PIN_ON, 1 worker on %d CPUs", g_ncpus);
    run_pool(1, MERINO_PIN_ON);
    expect_bound(1, &g_mask);

    check_set_context("auto, %u workers on %d CPUs (more workers than CPUs)", n + 1, g_ncpus);
    run_pool(n + 1, MERINO_PIN_AUTO);
    if ((int)(n + 1) > g_ncpus) expect_unbound(n + 1);

    check_set_context("MERINO_PIN_ON, %u workers on %d CPUs", 2 * n + 1, g_ncpus);
    run_pool(2 * n + 1, MERINO_PIN_ON);
    expect_bound(2 * n + 1, &g_mask);

    check_set_context("MERINO_PIN_OFF, %u workers", n);
    run_pool(n, MERINO_PIN_OFF);
    expect_unbound(n);

    check_set_context("MERINO_PIN=off, %u workers", n);
    setenv("MERINO_PIN", "off", 1);
    run_pool(n, MERINO_PIN_DEFAULT);
    expect_unbound(n);

    check_set_context("MERINO_PIN=off but merino_config.pin = MERINO_PIN_ON, %u workers", n);
    run_pool(n, MERINO_PIN_ON);
    expect_bound(n, &g_mask);

    check_set_context("MERINO_PIN=on, %u workers on %d CPUs", n + 1, g_ncpus);
    setenv("MERINO_PIN", "on", 1);
    run_pool(n + 1, MERINO_PIN_DEFAULT);
    expect_bound(n + 1, &g_mask);
    unsetenv("MERINO_PIN");

    /* From a thread restricted to the last CPU of the mask: the default pool still has a worker per
     * CPU of the process (not of the calling thread); the caller's thread keeps its mask. */
    int last = nth_cpu(&g_mask, g_ncpus - 1);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(last, &one);
    check_set_context("caller restricted to CPU %d, default pool", last);
    CHECK_EQ_INT(pthread_setaffinity_np(pthread_self(), sizeof one, &one), 0);
    CHECK_EQ_INT(merino_start(NULL), 0);
    CHECK_EQ_UINT(merino_workers(), (unsigned)g_ncpus);
    CHECK_EQ_INT(merino_stop(), 0);
    run_pool(0, MERINO_PIN_DEFAULT);
    CHECK_MSG(CPU_EQUAL(&g_seen_mask[0], &one), "worker 0 (the caller's thread) may run on %d CPUs; "
              "merino should not have changed its mask (1 CPU)", CPU_COUNT(&g_seen_mask[0]));
    CHECK_EQ_INT(pthread_setaffinity_np(pthread_self(), sizeof g_mask, &g_mask), 0);

    printf("test_pinning: ok (%d CPUs)\n", g_ncpus);
    return 0;
}
