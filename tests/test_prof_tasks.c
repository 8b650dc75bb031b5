/* test_prof_tasks.c — the profiler's work and span see task objects, task groups, dependency graphs
 * and loop chunks (issue 27, item 11; docs/profiler.md), as they see direct-stack tasks: for each,
 * at 1 and 2 workers, the work is close to the serial program's time, the parallelism is well
 * above 1 and not above what the program's shape allows, and every task object spawned is counted
 * as run by its spawner or stolen.
 *   - fib with task objects in the TBB paper's four forms (children and a wait, continuation
 *     passing, + scheduler bypass, + recycling: bench/taskobj/fib-taskobj.h), leaves fib(cut - 1)
 *     and fib(cut - 2) computed serially;
 *   - the same fib with a task group per call (merino_task_group_run, merino_task_group_wait);
 *   - a K x K wavefront graph (node (i, j) after (i - 1, j) and (i, j - 1)), nodes of equal cost:
 *     its parallelism is K^2 / (2K - 1) — a node's path must begin at its longest predecessor;
 *   - a loop of equal iterations: its chunks are parallel strands. */
#include "check.h"

#include <time.h>

#include <merino.h>
#include <merino_graph.h>
#include <merino_loop.h>
#include <merino_prof.h>

#include "../bench/taskobj/fib-taskobj.h"

enum { K = 8 };               /* the wavefront's side */
static int fib_n, node_n;     /* fib's size; fibt_serial(node_n) is a node's and an iteration's cost */
static int loop_n;            /* the loop's iterations */
static volatile long sink;

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
    sink += fibt_serial(node_n);
}

static void iterations(int64_t lo, int64_t hi, void *ctx) {
    (void)ctx;
    for (int64_t i = lo; i < hi; i++) sink += fibt_serial(node_n);
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

static void serial_fib(void) { sink += fibt_serial(fib_n); }
static void serial_nodes(void) {
    for (int i = 0; i < K * K; i++) node_work(NULL);
}
static void serial_loop(void) { iterations(0, loop_n, NULL); }

/* ---- the checks ------------------------------------------------------------------------------------ */

typedef struct shape {
    const char *name;
    double t_serial;  /* the serial program's time */
    double min_par;   /* the parallelism must be above this ("well above 1") */
    double max_par;   /* ... and at most this (the program's own, with some slack) */
} shape;

static merino_prof_report counters(void) {
    merino_prof_report r;
    CHECK_EQ_INT(merino_prof_get(&r), 0);
    return r;
}

/* What a run measured: work near the serial time (the profiled strands include the profiler's own
 * few instructions per task; the span's noise only lowers the parallelism), parallelism in range. */
static void check_run(const shape *s, unsigned workers, merino_wsp d) {
    double par = d.work / d.span, ratio = d.work / s->t_serial;
    printf("  %-22s %u workers: work %.4f s (%.2f of serial), span %.6f s, parallelism %.1f\n", s->name, workers,
           d.work, ratio, d.span, par);
    if (ratio < 0.7 || ratio > 1.5 || par < s->min_par || par > s->max_par) {
        fprintf(stderr,
                "test_prof_tasks: %s at %u workers: work %.4f s against %.4f s serially (want 0.7-1.5 of it), "
                "parallelism %.2f (want %.1f to %.1f)\n",
                s->name, workers, d.work, s->t_serial, par, s->min_par, s->max_par);
        exit(1);
    }
}

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
    for (int f = 0; f < 4; f++) {
        merino_prof_report before = counters();
        merino_wsp a = merino_wsp_now();
        CHECK(fibt_run(forms[f], fib_n) == fibt_serial(fib_n));
        merino_wsp d = merino_wsp_sub(merino_wsp_now(), a);
        merino_prof_report after = counters();
        shape s = *fib;
        s.name = names[f];
        check_run(&s, workers, d);
        /* every task object spawned ran once: here (inlined) or on a thief (a steal) */
        uint64_t spawns = after.spawns - before.spawns, inlined = after.inlined - before.inlined,
                 steals = after.steals - before.steals;
        CHECK(spawns > 0);
        CHECK_EQ_UINT(inlined + steals, spawns);
        if (workers == 1) CHECK_EQ_UINT(steals, 0);
    }

    long r = -1;
    gfib_args args = {fib_n, &r};
    merino_wsp a = merino_wsp_now();
    gfib(&args); /* from outside the pool: each group call enters it */
    merino_wsp d = merino_wsp_sub(merino_wsp_now(), a);
    CHECK(r == fibt_serial(fib_n));
    shape s = *fib;
    s.name = "task groups";
    check_run(&s, workers, d);

    merino_graph *g = make_wavefront();
    for (int run = 0; run < 2; run++) { /* the second run reuses the first's counts */
        a = merino_wsp_now();
        CHECK_EQ_INT(merino_graph_run(g), MERINO_COMPLETE);
        check_run(graph, workers, merino_wsp_sub(merino_wsp_now(), a));
    }
    merino_graph_delete(g);

    a = merino_wsp_now();
    merino_for(0, loop_n, iterations, NULL, NULL);
    check_run(loop, workers, merino_wsp_sub(merino_wsp_now(), a));
    CHECK_EQ_INT(merino_stop(), 0);
}

int main(void) {
    double scale = check_scale();
    fibt_cutoff = 24;             /* leaves fib(23) and fib(22): tens of microseconds each */
    fib_n = scale < 1 ? 31 : 34;  /* ~40 and ~180 leaves */
    node_n = 22;                  /* tens of microseconds a node and an iteration */
    loop_n = scale < 1 ? 100 : 500;
    shape fib = {"", least_of_3(serial_fib), 20, 1e9};
    double wave = (double)(K * K) / (2 * K - 1);
    shape graph = {"graph (wavefront)", least_of_3(serial_nodes), 0.5 * wave, 1.3 * wave};
    shape loop = {"loop", least_of_3(serial_loop), 10, 1.3 * loop_n}; /* at most one chunk an iteration */
    printf("serial: fib(%d) %.4f s, %d nodes %.4f s, %d iterations %.4f s\n", fib_n, fib.t_serial, K * K,
           graph.t_serial, loop_n, loop.t_serial);
    run_all(1, &fib, &graph, &loop);
    run_all(2, &fib, &graph, &loop);
    printf("test_prof_tasks: ok\n");
    return 0;
}
