/* cancel — cancellation latency: a task group runs `tasks` tasks of about task_us microseconds
 * each (a calibrated loop); task number `at` cancels the group. Reported seconds: from the cancel
 * call to the return of the group's wait, over R repetitions — how long the tasks already running
 * take to finish, plus how fast the runtime drops the tasks not started.
 *
 *     ./cancel-<system> --workers N [--reps R] tasks task_us at
 *
 * merino: merino_task_group_cancel (merino_graph.h); oneTBB: task_group::cancel. result: how many
 * tasks ran in the last repetition (at least at + 1, less than tasks: the check); tasks: the tasks
 * made, over all repetitions. */
#ifndef BENCH_CANCEL_H
#define BENCH_CANCEL_H

#include <stdint.h>

#include "bench.h"
#include "chain.h"

/* The command line; exits with the usage on an error. */
static inline void cancel_args(int argc, char **argv, int *workers, int *reps, long *tasks, uint64_t *iters, long *at) {
    const char *p[3];
    static const char usage[] = "tasks task_us at (0 <= at < tasks)";
    if (bench_args(argc, argv, workers, reps, p, 3) < 3) bench_usage_exit(argv[0], usage);
    *tasks = bench_param_long(p, 3, 0, 100000);
    long us = bench_param_long(p, 3, 1, 10);
    *at = bench_param_long(p, 3, 2, 1000);
    if (*tasks < 1 || us < 0 || *at < 0 || *at >= *tasks) bench_usage_exit(argv[0], usage);
    *iters = (uint64_t)((double)us * bench_chain_per_us());
}

#endif
