/* trace.h — workloads/dag's hooks (dag.h) defined to time each node with rdtsc (README.md). Records
 * are padded to a cache line (no false sharing between the workers' stores) and touched before
 * the runs (no page faults inside them). Include before a dag-<system> file. */
#ifndef BENCH_DAG_TRACE_H
#define BENCH_DAG_TRACE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

/* before dag.h, whose defaults they replace */
#define DAG_NODE(d, x) trace_node(d, x)
#define DAG_START(d, reps) trace_start(d, reps)
#define DAG_REP(r) (trace_rep = (r))
#define DAG_DONE(d, reps) trace_done(d, reps)
#include "dag.h"

typedef struct trace_rec {
    _Alignas(64) uint64_t start, end;
    int worker;
} trace_rec;

static trace_rec *trace_recs;
static int trace_rep;
static __thread int trace_worker = -1;
static int trace_workers; /* atomic: workers seen */

static inline void trace_node(const dag *d, int x) {
    trace_rec *r = &trace_recs[(long)trace_rep * d->n + x];
    if (trace_worker < 0) trace_worker = __atomic_fetch_add(&trace_workers, 1, __ATOMIC_RELAXED); /* relaxed: a number */
    r->worker = trace_worker;
    r->start = __rdtsc();
    dag_node(d, x);
    r->end = __rdtsc();
}

static inline void trace_start(const dag *d, int reps) {
    trace_recs = (trace_rec *)aligned_alloc(64, (size_t)d->n * reps * sizeof *trace_recs);
    if (!trace_recs || !getenv("TRACE")) {
        fprintf(stderr, "trace: set TRACE=file (and enough memory for %d records)\n", d->n * reps);
        exit(2);
    }
    memset(trace_recs, 1, (size_t)d->n * reps * sizeof *trace_recs);
}

/* The file: "n reps", a line per node "npred pred...", then a line per record "start end worker". */
static inline void trace_done(const dag *d, int reps) {
    FILE *f = fopen(getenv("TRACE"), "w");
    if (!f) exit(2);
    fprintf(f, "%d %d\n", d->n, reps);
    for (int x = 0; x < d->n; x++) {
        fprintf(f, "%d", d->npred[x]);
        for (int i = 0; i < d->npred[x]; i++) fprintf(f, " %d", d->pred[x][i]);
        fprintf(f, "\n");
    }
    for (long i = 0; i < (long)d->n * reps; i++)
        fprintf(f, "%lu %lu %d\n", (unsigned long)trace_recs[i].start, (unsigned long)trace_recs[i].end, trace_recs[i].worker);
    fclose(f);
}

#endif
