/* merino_prof.h — merino's profiler: counters, the CPU-time breakdown, and the work, span and
 * parallelism of the running program, whole and per region (docs/profiler.md).
 *
 * The profiler is in a variant of the library, libmerino_prof, whose flags define MERINO_PROFILE=1
 * for the program's code too (pkg-config merino-prof, or the CMake target merino::prof):
 *
 *     cc -O2 app.c $(pkg-config --cflags --libs merino-prof)
 *     MERINO_REPORT=1 ./app              # a readable report on stderr at exit
 *     MERINO_REPORT=csv:out.csv ./app    # Cilkscale's CSV columns, plus P_A and the model's T_P
 *
 * Regions, as Cilkscale's wsp_t API:
 *
 *     merino_wsp start = merino_wsp_now();
 *     MERINO_RUN(solve, problem);
 *     merino_wsp_dump(merino_wsp_sub(merino_wsp_now(), start), "solve");
 *
 * Compiled without MERINO_PROFILE (against the default libmerino), every function here is an
 * inline stub that returns zeros (merino_prof_get returns -1): region marks can stay in the code
 * and cost nothing there. */
#ifndef MERINO_PROF_H
#define MERINO_PROF_H

#include <merino.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Work, span and burdened span, in seconds, of the computation that precedes a point of the
 *  program (merino_wsp_now), or of a region (a difference of two points). */
typedef struct merino_wsp {
    double work;          /* T_1: the time of every strand, added up */
    double span;          /* T_inf: the longest chain of strands (the critical path) */
    double burdened_span; /* the span with a steal's cost (2000 cycles) on each path through a
                             spawned task: the parallelism the scheduler can really use */
} merino_wsp;

/** The CPU-time breakdown of the Wool paper (Figure 6), plus idle time: the wall-clock seconds each
 *  worker spent in each state (its CPU time on a dedicated machine). */
enum merino_prof_time {
    MERINO_PROF_STARTUP,      /* TR: pool threads starting and stopping */
    MERINO_PROF_APP,          /* NA: application code run normally (its own or stolen tasks) */
    MERINO_PROF_APP_LEAPFROG, /* LA: application code acquired by leapfrogging */
    MERINO_PROF_STEAL,        /* ST: looking for work: steal attempts, other work sources */
    MERINO_PROF_LEAPFROG,     /* LF: a join waiting for a stolen task, between leapfrog steals */
    MERINO_PROF_IDLE,         /* spinning, yielding and sleeping with nothing to do */
    MERINO_PROF_TIMES
};

/** What merino_prof_get reports: counters and times summed over the workers (or of one worker,
 *  merino_prof_get_worker), and the figures of the whole program since it started. */
typedef struct merino_prof_report {
    unsigned workers;          /* P: the workers of the (last) pool */
    uint64_t spawns;           /* MERINO_SPAWN, fork_join, loop splits, task objects spawned */
    uint64_t inlined;          /* spawned tasks run by the worker that spawned them */
    uint64_t steals;           /* spawned tasks taken by another worker (leapfrogs included):
                                  inlined + steals = spawns */
    uint64_t failed_steals;    /* steal attempts that found nothing to take */
    uint64_t leapfrogs;        /* steals made by a join waiting for its stolen task */
    uint64_t publishes;        /* private tasks made public on a thief's request */
    uint64_t privatizations;   /* returns to private spawning after unused public tasks */
    uint64_t sleeps;           /* times an idle worker went to sleep */
    uint64_t wakes;            /* wake-ups of sleeping workers (futex wakes made) */
    double time[MERINO_PROF_TIMES]; /* seconds, by enum merino_prof_time */
    /* Whole program (zero in merino_prof_get_worker): the root tasks (MERINO_RUN, merino::run
     * from threads outside the pool), one after the other on each calling thread. */
    merino_wsp total;          /* work, span, burdened span */
    double parallelism;        /* work / span */
    double burdened_parallelism;
    double elapsed;            /* T_P measured: seconds during which a root task was running */
    double cpu;                /* CPU seconds the process's threads got meanwhile (the sum of
                                  /proc/self/task/<tid>/schedstat's first fields, read through
                                  CLOCK_PROCESS_CPUTIME_ID, which is exact for running threads) */
    double processors;         /* P_A = cpu / elapsed: the processors the program actually got */
    double predicted;          /* the Hood model's T_P = work / P_A + span * P / P_A */
} merino_prof_report;

#if MERINO__PROFILE
#define MERINO_PROF_API MERINO_API

/** The work and span of the computation that precedes this point: on a thread outside the pool,
 *  of its root tasks so far (one after the other); in a task, of the task since it began (its
 *  own strands and the tasks it joined) — subtract two points of the same task or thread. */
MERINO_PROF_API merino_wsp merino_wsp_now(void);
/** Records a row (tag, work, span, parallelism, ...) for the report and the CSV file, as
 *  Cilkscale's wsp_dump. The tag is copied; NULL or "" is allowed. */
MERINO_PROF_API void merino_wsp_dump(merino_wsp w, const char *tag);
/** Fills *out with the figures of the whole program so far (exact when no task runs). Returns 0. */
MERINO_PROF_API int merino_prof_get(merino_prof_report *out);
/** The counters and times of worker `index` (0..merino_prof_get's workers - 1). Returns 0, or -1
 *  for an index that no pool has had. */
MERINO_PROF_API int merino_prof_get_worker(unsigned index, merino_prof_report *out);
/** Writes the report that MERINO_REPORT asks for at exit, now: "1" (readable) or "csv:FILE". Returns
 *  0, or -1 with a message (merino_last_error) for a malformed spec or a file that cannot be written. */
MERINO_PROF_API int merino_prof_write(const char *spec);

#else /* the default build: stubs */

static inline merino_wsp merino_wsp_now(void) {
    merino_wsp z = {0, 0, 0};
    return z;
}
static inline void merino_wsp_dump(merino_wsp w, const char *tag) {
    (void)w;
    (void)tag;
}
static inline int merino_prof_get(merino_prof_report *out) {
    __builtin_memset(out, 0, sizeof *out);
    return -1;
}
static inline int merino_prof_get_worker(unsigned index, merino_prof_report *out) {
    (void)index;
    return merino_prof_get(out);
}
static inline int merino_prof_write(const char *spec) {
    (void)spec;
    return -1;
}

#endif

/** a - b and a + b, field by field (Cilkscale's wsp_sub and wsp_add). */
static inline merino_wsp merino_wsp_sub(merino_wsp a, merino_wsp b) {
    merino_wsp r = {a.work - b.work, a.span - b.span, a.burdened_span - b.burdened_span};
    return r;
}
static inline merino_wsp merino_wsp_add(merino_wsp a, merino_wsp b) {
    merino_wsp r = {a.work + b.work, a.span + b.span, a.burdened_span + b.burdened_span};
    return r;
}

#ifdef __cplusplus
}
#endif

#endif
