/* cancel, merino: ./cancel-merino --workers N [--reps R] tasks task_us at
 * A merino_task_group of `tasks` closures, run from a task; closure number `at` cancels it. */
#include <merino.h>
#include <merino_graph.h>

#include "bench.h"
#include "cancel.h"

static merino_task_group group;
static uint64_t iters;
static long at;
static double cancelled_at; /* when closure `at` called cancel */
static long ran;            /* atomic: closures that ran */

static void work(void *arg) {
    long i = (long)(intptr_t)arg;
    __atomic_fetch_add(&ran, 1, __ATOMIC_RELAXED); /* relaxed: read after the wait */
    if (i == at) {
        cancelled_at = bench_now(); /* read after the wait, which orders it */
        merino_task_group_cancel(&group);
        return;
    }
    bench_sink(bench_chain((uint64_t)i, iters));
}

MERINO_TASK_2(double, cancel_reps, long, tasks, int, reps) {
    double total = 0;
    for (int r = 0; r < reps; r++) {
        __atomic_store_n(&ran, 0, __ATOMIC_RELAXED); /* relaxed: no task runs now */
        merino_task_group_init(&group);
        for (long i = 0; i < tasks; i++) merino_task_group_run(&group, work, (void *)(intptr_t)i);
        merino_task_group_wait(&group);
        total += bench_now() - cancelled_at;
    }
    return total;
}

int main(int argc, char **argv) {
    int workers, reps;
    long tasks;
    cancel_args(argc, argv, &workers, &reps, &tasks, &iters, &at);
    merino_config cfg = {0};
    cfg.workers = (unsigned)workers;
    if (merino_start(&cfg) != 0) return 2;
    double t = MERINO_RUN(cancel_reps, tasks, reps);
    BENCH_MERINO_STATS();
    merino_stop();
    long n = __atomic_load_n(&ran, __ATOMIC_RELAXED); /* relaxed: the pool is stopped */
    return bench_report_i64(t, n > at && n < tasks, n, (int64_t)tasks * reps);
}
