/* idle.h — the idle-cost experiment (rayon #642's pattern), shared by every version.
 *
 * idle --workers N period_us region_us seconds [tasks]
 *   Every period_us microseconds for `seconds` seconds, the main thread submits one parallel region
 *   of `tasks` tasks (default N: one per worker) and waits for it; each task spins region_us / tasks
 *   microseconds (region_us = 0: an empty region; tasks = 1: a region that makes no other task,
 *   e.g. a MERINO_RUN of a task that spawns nothing). Between regions the main thread sleeps (clock_nanosleep to
 *   the next tick), so the runtime's workers idle: what they cost then is the experiment.
 * Prints the contract's JSON line (seconds = the loop's wall time, result = regions run; check ok
 * when every region ran all its tasks) with
 *   cpu_s         the process's CPU time over the loop (getrusage: user + system)
 *   busy_s        the tasks' own time (each task times itself)
 *   cpu_over_busy cpu_s / busy_s (null for empty regions)
 *   idle_cpus     (cpu_s - busy_s) / seconds: CPUs burnt beyond the work, on average
 *   first_med_us, first_p99_us   submission to the first task starting, on any thread
 *   other_med_us, other_p99_us   submission to the first task starting on a thread other than the
 *                 submitter (a woken worker), over the regions where one did; other_regions counts them
 * A version supplies idle_region(n) (runs one region whose n tasks each call idle_task()) and its
 * set-up, and calls idle_main. */
#ifndef BENCH_IDLE_H
#define BENCH_IDLE_H

#include "bench.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The body of every task of a region. */
void idle_task(void);
/* The experiment: parses the arguments, runs the loop, prints the line; returns the exit code.
 * start(workers) sets the runtime up, region(n) runs a region of n tasks. */
int idle_main(int argc, char **argv, void (*start)(int workers), void (*region)(int n));

#ifdef __cplusplus
}
#endif
#endif
