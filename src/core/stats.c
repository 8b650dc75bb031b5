/* stats.c — the counters summed over the workers. */
#include "core/core.h"

/* Sums (or clears) the counters of a running pool. No lock: counted in `active` like a run from
 * outside, this read is one that merino_stop waits for before it frees the records — and from a
 * task, which stop waits for anyway, it cannot deadlock with a stop in progress. */
static void mrn_stats_visit(merino_stats *sum, bool clear) {
    mrn_pool *p = &mrn_the_pool;
    /* seq_cst: as a run from outside (enter.c), so that merino_stop waits for this read */
    __atomic_fetch_add(&p->active, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&mrn_running, __ATOMIC_SEQ_CST)) {
        unsigned n = __atomic_load_n(&p->count, __ATOMIC_RELAXED);
        for (unsigned i = 0; i < n; i++) {
            mrn_worker *w = p->workers[i];
            uint64_t *c[] = {&w->pub.spawns, &w->steals, &w->leapfrogs, &w->publishes, &w->privatizations};
            uint64_t *s[] = {&sum->spawns, &sum->steals, &sum->leapfrogs, &sum->publishes, &sum->privatizations};
            for (unsigned k = 0; k < sizeof c / sizeof c[0]; k++) {
                /* relaxed: each counter has one writer; no data hangs on them */
                if (clear)
                    __atomic_store_n(c[k], 0, __ATOMIC_RELAXED);
                else
                    *s[k] += __atomic_load_n(c[k], __ATOMIC_RELAXED);
            }
        }
    }
    __atomic_fetch_sub(&p->active, 1, __ATOMIC_RELEASE); /* release: our reads are done */
}

void merino_stats_get(merino_stats *out) {
    merino_stats sum = {0};
    mrn_stats_visit(&sum, false);
    *out = sum;
}

void merino_stats_reset(void) {
    merino_stats unused = {0};
    mrn_stats_visit(&unused, true);
}
