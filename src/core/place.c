/* place.c — where worker threads run: each bound to one CPU of the affinity mask merino_start
 * was called with (merino_config.pin, MERINO_PIN).
 *
 * Why bind: an idle worker yields between steal attempts, so it runs every few microseconds, and
 * Linux's load balancer treats a thread that ran within the last half millisecond
 * (sched_migration_cost) as cache-hot and leaves it where it is. Once two workers share a CPU —
 * after a third thread, such as the one that called MERINO_RUN, ran there for a while — they can
 * stay stacked for milliseconds while the other CPU idles, and every task the yielding worker
 * could have stolen runs on the busy one instead (docs/architecture.md, "Where workers run"). */
#include "core.h"

/* The CPU worker `index` binds to: the (index mod ncpus)-th CPU of the caller's mask, in order
 * (round robin), or -1 when the pool does not bind its workers. */
int mrn_worker_cpu(const mrn_settings *set, unsigned index) {
    if (!set->pin || index == 0) return -1; /* record 0 is the caller slot: the caller's thread */
    unsigned k = index % set->budget.ncpus;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set->budget.cpus) && k-- == 0) return c;
    return -1; /* not reached: ncpus counts the CPUs of the mask */
}

/* Binds the calling worker thread to its CPU, if it has one; if the kernel refuses (the CPU left
 * the process's cpuset since merino_start), it stays unbound: a placement, never a reason to
 * fail. */
void mrn_place_worker(const mrn_worker *w) {
    if (w->cpu < 0) return;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(w->cpu, &one);
    (void)pthread_setaffinity_np(pthread_self(), sizeof one, &one);
}
