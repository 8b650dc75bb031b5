/* place.c — where worker threads run: each bound to one CPU of the affinity mask merino_start
 * was called with (merino_config.pin, MERINO_PIN).
 *
 * Why bind: an idle worker yields between steal attempts, so it runs every few microseconds, and
 * Linux's load balancer treats a thread that ran within the last half millisecond
 * (sched_migration_cost) as cache-hot and leaves it where it is. Once two workers share a CPU —
 * after a third thread, such as the one that called MERINO_RUN, ran there for a while — they can
 * stay stacked for milliseconds while the other CPU idles, and every task the yielding worker
 * could have stolen runs on the busy one instead (docs/architecture.md, "Where workers run"). */
#include "internal.h"

/* Binds the calling worker thread to its CPU when the pool binds workers; otherwise, or if the
 * kernel refuses (the CPU left the process's cpuset since merino_start), it stays unbound: a
 * placement, never a reason to fail. */
void mrn_place_worker(const mrn_worker *w) {
    const mrn_pool *p = &mrn_the_pool;
    if (!p->pin) return;
    unsigned k = w->index % p->ncpus; /* round robin over the CPUs of the mask, in order */
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, &p->cpus) || k-- != 0) continue;
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(c, &one);
        (void)pthread_setaffinity_np(pthread_self(), sizeof one, &one);
        return;
    }
}
