/* prof.h — internal declarations of the profiler (src/prof), built into libmerino_prof only.
 *
 * Files, each calling only files further down this list (and src/core, src/sys):
 *   report.c   merino_prof_get, the readable report and the CSV file (MERINO_REPORT), at exit
 *   tasks.c    what the graph's and the loop's hooks do (src/graph/prof_hooks.h,
 *              src/loop/prof_hooks.h): task objects, group and graph waits, graph nodes, loop chunks
 *   hooks.c    what the core's hooks (src/core/prof_hooks.h) do: strands, time categories,
 *              counters, root tasks, P_A; merino_wsp_now and merino_wsp_dump
 */
#ifndef MERINO_PROF_PROF_H
#define MERINO_PROF_PROF_H

#include "core/core.h"
#include "merino_prof.h"

#if !MERINO__PROFILE
#error "src/prof is built with MERINO_PROFILE=1 only (libmerino_prof)"
#endif

/* Time categories: enum merino_prof_time, and one for time charged to nobody (a thread outside
 * the pool between its root tasks, a pool thread before its record is bound). */
#define MRN_CAT_NONE MERINO_PROF_TIMES

/* The profiler's record of one worker (by index), beside the core's mrn_worker. Each field has one
 * writer at a time (the worker's thread, or the caller slot's occupant): merino__count and relaxed
 * stores; readers load them relaxed. */
typedef struct mrn_prof_rec {
    mrn_worker *w;
    uint64_t time[MERINO_PROF_TIMES]; /* ticks */
    uint64_t failed_steals, sleeps, wakes;
} mrn_prof_rec;

/* The figures of one worker folded at merino_stop, so that they outlive its pool. */
typedef struct mrn_prof_totals {
    uint64_t counts[10]; /* merino_prof_report's counters, in their order */
    uint64_t time[MERINO_PROF_TIMES];
} mrn_prof_totals;

/* A region row (merino_wsp_dump). */
typedef struct mrn_prof_row {
    char *tag;
    merino_wsp wsp;
} mrn_prof_row;

/* The profiler's process-wide state (hooks.c); `lock` guards what it does not say is atomic. */
typedef struct mrn_prof_state {
    pthread_mutex_t lock;
    mrn_prof_rec *recs[MERINO_MAX_WORKERS]; /* the live pool's workers */
    mrn_prof_totals totals[MERINO_MAX_WORKERS];
    unsigned seen;       /* worker indexes that have existed: 0..seen-1 */
    unsigned workers;    /* P: the workers of the last pool started */
    uint64_t outside_wakes;
    mrn_prof_row *rows;
    size_t nrows, cap_rows;
    /* Root tasks: the whole program's figures. */
    uint64_t work, span, bspan; /* ticks; span: the longest chain of any calling thread */
    unsigned in_flight;         /* root tasks running */
    uint64_t flight_start_ns, elapsed_ns;
    uint64_t cpu_start_ns, cpu_ns;
    char *report;               /* MERINO_REPORT, checked at start; NULL: no report at exit */
    bool atexit_done;
} mrn_prof_state;

extern mrn_prof_state mrn_prof;

/* The loop chunks run in context c join its path: its span is at least their furthest end. */
static inline void mrn_prof_join_chunks(merino__prof_ctx *c) {
    if (c->span < c->pend) c->span = c->pend;
    if (c->bspan < c->pend_b) c->bspan = c->pend_b;
    c->pend = c->pend_b = 0;
}

/* hooks.c */
unsigned mrn_prof_switch(unsigned cat); /* charges this thread's time so far, then to cat; the old cat */
unsigned mrn_prof_app(void);            /* the category of application code on this thread (NA or LA) */
void mrn_delay_sync(void);              /* a fresh strand starts: run delay so far is not its (a system call) */
double mrn_prof_seconds(uint64_t ticks);
uint64_t mrn_prof_cpu_ns(void);
void mrn_prof_collect(merino_prof_report *out, int only); /* only: a worker index, or -1 for all */

/* report.c */
int mrn_prof_check_spec(const char *spec);
void mrn_prof_at_exit(void);

#endif
