/* place.c — where worker threads run: each bound to one CPU of the affinity mask merino_start
 * was called with (merino_config.pin, MERINO_PIN).
 *
 * Why bind: an idle worker yields between steal attempts, so it runs every few microseconds, and
 * Linux's load balancer treats a thread that ran within the last half millisecond
 * (sched_migration_cost) as cache-hot and leaves it where it is. Once two workers share a CPU —
 * after a third thread, such as the one that called MERINO_RUN, ran there for a while — they can
 * stay stacked for milliseconds while the other CPU idles, and every task the yielding worker
 * could have stolen runs on the busy one instead (docs/architecture.md, "Where workers run"). */
#include "core/core.h"

/* The CPU pool thread `index` binds to, or -1 when the pool does not bind its threads. The CPUs of
 * the mask are taken in order starting from the one the starting thread runs on, round robin:
 * record 0, the caller slot, runs on the thread that calls in — usually the one that started the
 * pool, which stays where it runs — so pool thread i gets the i-th CPU after it, and none of them
 * is bound where the caller is. */
int mrn_worker_cpu(const mrn_settings *set, unsigned index) {
    if (!set->pin || index == 0) return -1; /* record 0 is the caller slot: the caller's thread */
    int cpus[CPU_SETSIZE], n = 0, first = 0;
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, &set->budget.cpus)) continue;
        if (c == set->first_cpu) first = n;
        cpus[n++] = c;
    }
    return n ? cpus[(first + index) % (unsigned)n] : -1;
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
