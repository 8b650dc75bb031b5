/* test_prof_own_cost.c — the profiler's own system calls are not charged to the program's strands
 * (docs/profiler.md, "How it measures"). The profiler reads the thread's run delay
 * (/proc/thread-self/schedstat, with pread) where a stolen task starts and after a long strand; a
 * read made after the strand's first tick lands in the work, and on the span when the strand is
 * on the critical path: at two workers every stolen task paid one. This test makes that read slow
 * (its own pread, which the static library's call resolves to, adds 200 us) and checks that the
 * first strand of a stolen task, and a strand right after a long one, stay short. */
#include "check.h"

#include <merino.h>
#include <merino_prof.h>

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile int slow_reads; /* set between runs, by the main thread, while no task runs */

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void spin_ns(uint64_t ns) {
    uint64_t end = now_ns() + ns;
    while (now_ns() < end) {
    }
}

/* The profiler's only pread: the run-delay look. */
ssize_t pread(int fd, void *buf, size_t n, off_t off) {
    ssize_t r = (ssize_t)syscall(SYS_pread64, fd, buf, n, off);
    if (slow_reads) spin_ns(200000);
    return r;
}

/* The first strand of a leaf run by a worker other than the root's (stolen): from where the
 * profiler started the task to its first instruction. */
static int root_worker;         /* set by the root before its first spawn */
static double stolen_first_max; /* seconds; written by the one pool thread, read after the run */
static int stolen_count;

MERINO_VOID_TASK_0(leaf) {
    merino_wsp first = merino_wsp_now(); /* in a stolen task: the work of the task so far */
    if (merino_worker_index() != root_worker) {
        if (first.work > stolen_first_max) stolen_first_max = first.work;
        stolen_count++;
    }
    spin_ns(2000);
}

MERINO_VOID_TASK_1(trees, int, n) {
    root_worker = merino_worker_index();
    for (int i = 0; i < n; i++) {
        MERINO_SPAWN(leaf);
        MERINO_CALL(leaf);
        MERINO_JOIN(leaf);
    }
}

/* A strand longer than MERINO__PROF_LONG (its end looks at the run delay), then an empty one: the
 * empty strand's work is the time between two merino_wsp_now() calls, the look not included. */
MERINO_TASK_0(double, long_then_empty) {
    double worst = 0;
    for (int i = 0; i < 20; i++) {
        spin_ns(60000);
        merino_wsp a = merino_wsp_now();
        merino_wsp b = merino_wsp_now();
        if (b.work - a.work > worst) worst = b.work - a.work;
    }
    return worst;
}

int main(void) {
    merino_config cfg = {0};
    cfg.workers = 2;
    CHECK_EQ_INT(merino_start(&cfg), 0);
    slow_reads = 1;

    /* Each look costs 200 us now: charged to a strand, it would show as at least that much. */
    for (int tries = 0; stolen_count == 0 && tries < 100; tries++) MERINO_RUN(trees, 200);
    CHECK_MSG(stolen_count > 0, "no leaf was stolen in 100 runs: the check needs a steal");
    CHECK_MSG(stolen_first_max < 100e-6, "a stolen task's first strand took %g s (of %d stolen)",
              stolen_first_max, stolen_count);

    double empty = MERINO_RUN(long_then_empty);
    CHECK_MSG(empty < 100e-6, "an empty strand after a long one took %g s", empty);

    slow_reads = 0;
    CHECK_EQ_INT(merino_stop(), 0);
    return 0;
}
