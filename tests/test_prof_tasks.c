/* test_prof_tasks.c — the profiler's work and span see task objects, task groups, dependency graphs
 * and loop chunks (issue 27, item 11; docs/profiler.md), as they see direct-stack tasks: for each,
 * at 1 and 2 workers, the work is close to the serial program's time, the parallelism is well
 * above 1 and not above what the program's shape allows, and every task object spawned is counted
 * as run by its spawner or stolen.
 *   - fib with task objects in the TBB paper's four forms (children and a wait, continuation
 *     passing, + scheduler bypass, + recycling: bench/workloads/taskobj/fib-taskobj.h), leaves fib(cut - 1)
 *     and fib(cut - 2) computed serially;
 *   - the same fib with a task group per call (merino_task_group_run, merino_task_group_wait);
 *   - a K x K wavefront graph (node (i, j) after (i - 1, j) and (i, j - 1)), nodes of equal cost:
 *     its parallelism is K^2 / (2K - 1) — a node's path must begin at its longest predecessor;
 *   - a loop of equal iterations: its chunks are parallel strands. */
#include "check.h"

#include <stdbool.h>
#include <time.h>

#include <merino.h>
#include <merino_graph.h>
#include <merino_loop.h>
#include <merino_prof.h>

#include "../bench/workloads/taskobj/fib-taskobj.h"

enum { K = 8 };               /* the wavefront's side */
enum { RUNS = 3 };            /* runs of a program before its figures count as out of range */
static int fib_n, node_n;     /* fib's size; fibt_serial(node_n) is a node's and an iteration's cost */
static int loop_n;            /* the loop's iterations */
/* Under the sanitizers the runtime's code between strands is instrumented too and counts as work,
 * and the serial leaves compile differently: there the checks are of the structure (parallelism
 * above 1, work seen), not of the accuracy. */
static int sanitized;
static long sink; /* atomic: results no compiler may drop */

/* ---- the programs ---------------------------------------------------------------------------------- */

typedef struct gfib_args {
    long n, *sum;
} gfib_args;

static void gfib(void *p) {
    gfib_args *a = p;
    if (a->n < fibt_cutoff) {
        *a->sum = fibt_serial((int)a->n);
        return;
    }
    long x, y;
    gfib_args l = {a->n - 1, &x}, r = {a->n - 2, &y};
    merino_task_group g;
    merino_task_group_init(&g);
    merino_task_group_run(&g, gfib, &r);
    gfib(&l);
    merino_task_group_wait(&g);
    *a->sum = x + y;
}

static void node_work(void *arg) {
    (void)arg;
    __atomic_fetch_add(&sink, fibt_serial(node_n), __ATOMIC_RELAXED); /* relaxed: a sum nobody reads */
}

static void iterations(int64_t lo, int64_t hi, void *ctx) {
    (void)ctx;
    for (int64_t i = lo; i < hi; i++) __atomic_fetch_add(&sink, fibt_serial(node_n), __ATOMIC_RELAXED); /* relaxed: as above */
}

static double cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The least of three timings of f (the serial programs), in this thread's CPU time: like the
 * profiler's strands, not the time other programs took the processor. */
static double least_of_3(void (*f)(void)) {
    double best = 1e30;
    for (int i = 0; i < 3; i++) {
        double t0 = cpu_now();
        f();
        double t = cpu_now() - t0;
        if (t < best) best = t;
    }
    return best;
}

static void serial_fib(void) { __atomic_fetch_add(&sink, fibt_serial(fib_n), __ATOMIC_RELAXED); /* relaxed: as above */ }
static void serial_nodes(void) {
    for (int i = 0; i < K * K; i++) node_work(NULL);
}
static void serial_loop(void) { iterations(0, loop_n, NULL); }

/* ---- the checks ------------------------------------------------------------------------------------ */

typedef struct shape {
    const char *name;
    void (*serial)(void); /* the serial program */
    double min_par;   /* the parallelism must be above this ("well above 1") */
    double max_par;   /* ... and at most this (the program's own, with some slack) */
} shape;

static merino_prof_report counters(void) {
    merino_prof_report r;
    CHECK_EQ_INT(merino_prof_get(&r), 0);
    return r;
}

/* Whether a run's figures are in range: work near the serial time (the profiled strands include
 * the profiler's own few instructions per task), parallelism in range (noise only lowers it). */
static bool in_range(const shape *s, unsigned workers, merino_wsp d, double t_serial, bool last) {
    double par = d.work / d.span, ratio = d.work / t_serial;
    double lo = 0.7, hi = 1.5, min_par = s->min_par;
    if (sanitized) lo = 0.01, hi = 1e9, min_par = 1.5; /* still above 1, and the work was seen */
    printf("  %-22s %u workers: work %.4f s (%.2f of serial), span %.6f s, parallelism %.1f\n", s->name, workers,
           d.work, ratio, d.span, par);
    bool ok = ratio >= lo && ratio <= hi && par >= min_par && par <= s->max_par;
    if (!ok && last)
        fprintf(stderr,
                "test_prof_tasks: %s at %u workers: work %.4f s against %.4f s serially (want %.1f-%.1f of it), "
                "parallelism %.2f (want %.1f to %.1f), in each of %d runs (the last shown)\n",
                s->name, workers, d.work, t_serial, lo, hi, par, min_par, s->max_par, RUNS);
    return ok;
}

/* Runs prog up to RUNS times until its figures are in range, each run right after one of the
 * serial program (the least of 3, in this thread's CPU time, like the profiler's strands): a
 * shared machine's bursts and slow minutes land on single runs (docs/profiler.md: take the least
 * span of a few runs). */
static void check_runs(const shape *s, unsigned workers, void (*prog)(void)) {
    for (int run = 1;; run++) {
        double t_serial = least_of_3(s->serial);
        merino_wsp a = merino_wsp_now();
        prog();
        if (in_range(s, workers, merino_wsp_sub(merino_wsp_now(), a), t_serial, run == RUNS)) return;
        if (run == RUNS) exit(1);
    }
}

/* The programs check_runs measures (their inputs in these). */
static merino_task_fn *fib_form;
static merino_graph *wavefront;

static void run_fib_form(void) {
    merino_prof_report before = counters();
    CHECK(fibt_run(fib_form, fib_n) == fibt_serial(fib_n));
    merino_prof_report after = counters();
    /* every task object spawned ran once: on its spawner (inlined) or on a thief (a steal) */
    uint64_t spawns = after.spawns - before.spawns, inlined = after.inlined - before.inlined,
             steals = after.steals - before.steals;
    CHECK(spawns > 0);
    CHECK_EQ_UINT(inlined + steals, spawns);
    if (after.workers == 1) CHECK_EQ_UINT(steals, 0);
}

static void run_group_fib(void) {
    long r = -1;
    gfib_args args = {fib_n, &r};
    gfib(&args); /* from outside the pool: each group call enters it */
    CHECK(r == fibt_serial(fib_n));
}

static void run_wavefront(void) { CHECK_EQ_INT(merino_graph_run(wavefront), MERINO_COMPLETE); }
static void run_loop(void) { merino_for(0, loop_n, iterations, NULL, NULL); }

static merino_graph *make_wavefront(void) {
    merino_graph *g = merino_graph_new();
    CHECK(g != NULL);
    merino_graph_node *n[K][K];
    for (int i = 0; i < K; i++)
        for (int j = 0; j < K; j++) {
            n[i][j] = merino_graph_node_new(g, NULL, node_work, NULL);
            CHECK(n[i][j] != NULL);
        }
    /* edges from the far end first: the construction reorders as it goes (not what is measured) */
    for (int i = K; i-- > 0;)
        for (int j = K; j-- > 0;) {
            if (i > 0) CHECK_EQ_INT(merino_graph_edge(n[i - 1][j], n[i][j]), 0);
            if (j > 0) CHECK_EQ_INT(merino_graph_edge(n[i][j - 1], n[i][j]), 0);
        }
    return g;
}

static void run_all(unsigned workers, const shape *fib, const shape *graph, const shape *loop) {
    merino_config cfg = {0};
    cfg.workers = workers;
    CHECK_EQ_INT(merino_start(&cfg), 0);
    static merino_task_fn *const forms[] = {fibt_plain, fibt_c, fibt_cb, fibt_cbr};
    static const char *const names[] = {"task objects (plain)", "task objects (+C)", "task objects (+CB)",
                                        "task objects (+CBR)"};
    shape s = *fib;
    for (int f = 0; f < 4; f++) {
        fib_form = forms[f];
        s.name = names[f];
        check_runs(&s, workers, run_fib_form);
    }
    s.name = "task groups";
    check_runs(&s, workers, run_group_fib);
    wavefront = make_wavefront();
    check_runs(graph, workers, run_wavefront); /* its runs after the first reuse the counts */
    merino_graph_delete(wavefront);
    check_runs(loop, workers, run_loop);
    CHECK_EQ_INT(merino_stop(), 0);
}

int main(void) {
    double scale = check_scale();
    sanitized = scale < 1;
    fibt_cutoff = 24;             /* leaves fib(23) and fib(22): tens of microseconds each */
    fib_n = scale < 1 ? 31 : 34;  /* ~40 and ~180 leaves */
    node_n = 22;                  /* tens of microseconds a node and an iteration */
    loop_n = scale < 1 ? 100 : 500;
    shape fib = {"", serial_fib, 20, 1e9};
    double wave = (double)(K * K) / (2 * K - 1);
    shape graph = {"graph (wavefront)", serial_nodes, 0.5 * wave, 1.3 * wave};
    shape loop = {"loop", serial_loop, 10, 1.3 * loop_n}; /* at most one chunk an iteration */
    printf("fib(%d) with leaves below %ld, %d nodes and %d iterations of fib(%d)\n", fib_n, fibt_cutoff, K * K,
           loop_n, node_n);
    run_all(1, &fib, &graph, &loop);
    run_all(2, &fib, &graph, &loop);
    printf("test_prof_tasks: ok\n");
    return 0;
}
