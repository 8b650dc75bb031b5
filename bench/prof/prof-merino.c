/* prof, merino: the profiler's accuracy and cost (issue 16's profiler target; docs/profiler.md).
 * Linked with the profiled variant, libmerino_prof (MERINO_PROFILE=1).
 *
 *   ./prof-merino --workers N [--reps R] fib_n fib_w  h L trees  chol_n chol_nz  ovh_n
 *
 * Each round (R rounds, default 5; the medians over them are reported) measures, with N workers,
 * the parallelism T_1 / T_inf the profiler reports (merino_wsp around one MERINO_RUN) and an
 * estimate made without it:
 *   fibw fib_n fib_w   fib with fib_w iterations of an empty loop at the start of every call: the
 *                      span is one call per level, S(n) = n calls (S(k) = 1 + max(S(k-1), S(k-2)),
 *                      S(1) = S(0) = 1), the work 2 F(n+1) - 1 calls, so the closed form is
 *                      (2 F(n+1) - 1) / n whatever the cost of a call, as long as the loop
 *                      dominates it (fib_w >> the ~50 cycles of a profiled spawn and join);
 *   stress h L trees   Wool's stress (bench/stress): T_1 = the serial program's time T_S; T_inf =
 *                      trees x (h + 1 calls + one leaf's loop): a call's time measured by the
 *                      serial trees with empty leaves, the loop's alone (each the least of 3);
 *   cholesky n nz      bench/cholesky's tasks: T_1 = the serial factorization's time T_S; T_inf
 *                      from a serial replay of the same recursion that times every leaf operation
 *                      with the monotonic clock (less one clock read's own time) and adds them up
 *                      along the task graph (+ on a sequence, max across the branches a task
 *                      spawns).
 * and the profiled build's cost: T_1 / T_S of fib(ovh_n), one task per call, at 1 worker (the
 * default build's is bench/ratios' fib_t1_ts).
 *
 * Output: {"seconds", "check", "result": rounds, "tasks": null, "<w>_measured", "<w>_estimate",
 *          "<w>_ratio" (measured / estimate) for w in fibw, stress, cholesky, "prof_fib_t1_ts",
 *          "params"} */
#include <bench.h> /* first: it sets _GNU_SOURCE */

#include "../cholesky/cholesky.h"
#include "../fib/fib.h"
#include "../stress/stress.h"

#include <merino.h>
#include <merino_prof.h>

#include "../cholesky/cholesky-merino.h"
#include "../fib/fib-merino.h"
#include "../stress/stress-merino.h"

static long fib_w;

MERINO_TASK_1(long, fibw, int, n) {
    bench_spin(fib_w);
    if (n < 2) return n;
    MERINO_SPAWN(fibw, n - 2);
    long a = MERINO_CALL(fibw, n - 1);
    long b = MERINO_JOIN(fibw);
    return a + b;
}

static int g_ok = 1;

/* ---- the profiler's figure ------------------------------------------------------------------- */

static double parallelism(merino_wsp a, merino_wsp b) {
    merino_wsp d = merino_wsp_sub(b, a);
    return d.span > 0 ? d.work / d.span : 0;
}

/* ---- cholesky: the serial replay that counts the critical path --------------------------------- */

typedef struct ws {
    double work, span;
} ws;

static ws ws_seq(ws a, ws b) { return (ws){a.work + b.work, a.span + b.span}; }
static ws ws_par(ws a, ws b) { return (ws){a.work + b.work, a.span > b.span ? a.span : b.span}; }
/* What one clock read adds to a timed leaf: the least of many empty intervals (set once, before
 * the first replay). Cholesky's sparse leaves are often shorter than a microsecond, and without it
 * the replay's leaves added up to 2.5 times the serial program's time. */
static double clock_cost;

static void measure_clock_cost(void) {
    double least = 1;
    for (int i = 0; i < 10000; i++) {
        double t0 = bench_now();
        double d = bench_now() - t0;
        if (d < least) least = d;
    }
    clock_cost = least;
}

static ws ws_leaf(double t0) {
    double t = bench_now() - t0 - clock_cost;
    if (t < 0) t = 0;
    return (ws){t, t};
}

static ws r_mulsub(node a, node b, node *r, int level, int lower) {
    ws z = {0, 0};
    if (!a || !b) return z;
    if (level == 0) {
        if (!*r) *r = chol_new_leaf();
        double t0 = bench_now();
        chol_leaf_mulsub(a, b, *r, lower);
        return ws_leaf(t0);
    }
    if (!*r) *r = chol_new_inner();
    node *A = a->q, *B = b->q, *R = (*r)->q;
    ws total = z;
    for (int k = 0; k < 2; k++) { /* a round's quadrants run in parallel (t_mulsub) */
        ws round = z;
        for (int q = 0; q < 4; q++)
            if (!(lower && q == 1) && A[CHOL_QA(q, k)] && B[CHOL_QB(q, k)])
                round = ws_par(round, r_mulsub(A[CHOL_QA(q, k)], B[CHOL_QB(q, k)], &R[q], level - 1, lower && q != 2));
        total = ws_seq(total, round);
    }
    return total;
}

static ws r_backsub(node a, node l, int level) {
    ws z = {0, 0};
    if (!a) return z;
    if (level == 0) {
        double t0 = bench_now();
        chol_leaf_backsub(a, l);
        return ws_leaf(t0);
    }
    node *A = a->q, *L = l->q;
    /* each of the three steps runs its two halves in parallel when both have work (t_backsub) */
    int both = A[0] && A[2];
    ws x = r_backsub(A[0], L[0], level - 1), y = r_backsub(A[2], L[0], level - 1);
    ws total = both ? ws_par(x, y) : ws_seq(x, y);
    both = L[2] && A[0] && A[2];
    x = r_mulsub(A[0], L[2], &A[1], level - 1, 0);
    y = r_mulsub(A[2], L[2], &A[3], level - 1, 0);
    total = ws_seq(total, both ? ws_par(x, y) : ws_seq(x, y));
    both = A[1] && A[3];
    x = r_backsub(A[1], L[3], level - 1);
    y = r_backsub(A[3], L[3], level - 1);
    return ws_seq(total, both ? ws_par(x, y) : ws_seq(x, y));
}

static ws r_chol(node a, int level) {
    if (level == 0) {
        double t0 = bench_now();
        chol_leaf_factor(a);
        return ws_leaf(t0);
    }
    node *A = a->q;
    ws t = r_chol(A[0], level - 1);
    t = ws_seq(t, r_backsub(A[2], A[0], level - 1));
    t = ws_seq(t, r_mulsub(A[2], A[2], &A[3], level - 1, 1));
    return ws_seq(t, r_chol(A[3], level - 1));
}

/* ---- one round --------------------------------------------------------------------------------- */

typedef struct round_result {
    double fib_m, fib_e, stress_m, stress_e, chol_m, chol_e, t1_ts;
    /* where a ratio's error comes from: the profiler's work over the serial time, its span over
     * the estimate's span */
    double fib_w1, fib_wi, stress_w1, stress_wi, chol_w1, chol_wi;
} round_result;

static void work_span_ratios(merino_wsp a, merino_wsp b, double ts, double span_e, double *w1, double *wi) {
    merino_wsp d = merino_wsp_sub(b, a);
    *w1 = ts > 0 ? d.work / ts : 0;
    *wi = span_e > 0 ? d.span / span_e : 0;
}

static double fib_closed_parallelism(int n) {
    return n < 1 ? 1 : (double)(2 * fib_closed(n + 1) - 1) / (double)n;
}

/* The least of three timings of fn(arg): the serial estimates' noise is all upward. */
static double least_of_3(double (*fn)(long), long arg) {
    double best = 1e300;
    for (int i = 0; i < 3; i++) {
        double t = fn(arg);
        if (t < best) best = t;
    }
    return best;
}

static long fibw_serial(int n) {
    bench_spin(fib_w);
    if (n < 2) return n;
    return fibw_serial(n - 2) + fibw_serial(n - 1);
}
static double time_fibw(long n) { /* the serial fibw: its T_S */
    double t0 = bench_now();
    g_ok &= fibw_serial((int)n) == fib_closed((int)n);
    return bench_now() - t0;
}

static int g_h;
static double time_trees(long trees) { /* the serial program: T_S */
    double t0 = bench_now();
    long s = 0;
    for (long i = 0; i < trees; i++) s += stress_serial(g_h);
    g_ok &= s == ((long)1 << g_h) * trees;
    return bench_now() - t0;
}
static double time_leaves(long leaves) { /* one leaf's loop, alone */
    double t0 = bench_now();
    for (long i = 0; i < leaves; i++) bench_sink(stress_leaf());
    return (bench_now() - t0) / (double)leaves;
}
static double time_calls(long trees) { /* one call of the serial recursion, with an empty leaf */
    long iters = stress_leaf_iters;
    stress_leaf_iters = 0;
    double t = time_trees(trees) / (double)((((long)2 << g_h) - 1) * trees);
    stress_leaf_iters = iters;
    return t;
}

static void stress_round(int h, long trees, round_result *rr) {
    g_h = h;
    double ts = least_of_3(time_trees, trees);
    double t_leaf = least_of_3(time_leaves, ((long)1 << h) * trees);
    double t_call = least_of_3(time_calls, trees);
    /* a tree's critical path: the root's call down to one leaf, h + 1 calls and a leaf's loop */
    rr->stress_e = ts / ((double)trees * ((h + 1) * t_call + t_leaf));
    merino_wsp a = merino_wsp_now();
    g_ok &= MERINO_RUN(trees_task, h, trees) == ((long)1 << h) * trees;
    merino_wsp b = merino_wsp_now();
    rr->stress_m = parallelism(a, b);
    work_span_ratios(a, b, ts, (double)trees * ((h + 1) * t_call + t_leaf), &rr->stress_w1, &rr->stress_wi);
}

static void chol_round(const chol_input *in, round_result *rr) {
    node c = chol_copy(in->root, in->level);
    double t0 = bench_now();
    c = chol_serial(c, in->level, NULL);
    double ts = bench_now() - t0;
    chol_free(c, in->level);
    c = chol_copy(in->root, in->level);
    if (clock_cost == 0) measure_clock_cost();
    ws replay = r_chol(c, in->level);
    chol_free(c, in->level);
    rr->chol_e = replay.span > 0 ? ts / replay.span : 0;
    c = chol_copy(in->root, in->level);
    merino_wsp a = merino_wsp_now();
    c = MERINO_RUN(t_chol, c, in->level);
    merino_wsp b = merino_wsp_now();
    rr->chol_m = parallelism(a, b);
    work_span_ratios(a, b, ts, replay.span, &rr->chol_w1, &rr->chol_wi);
    chol_free(c, in->level);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(round_result *r, int n, size_t offset) {
    double v[n];
    for (int i = 0; i < n; i++) v[i] = *(const double *)((const char *)&r[i] + offset);
    qsort(v, (size_t)n, sizeof v[0], cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv) {
    const char *p[8];
    int workers, reps;
    int np = bench_args(argc, argv, &workers, &reps, p, 8);
    if (np != 8) bench_usage_exit(argv[0], "fib_n fib_w h L trees chol_n chol_nz ovh_n");
    int fib_n = (int)bench_param_long(p, np, 0, 20);
    fib_w = bench_param_long(p, np, 1, 20000);
    int h = (int)bench_param_long(p, np, 2, 3);
    stress_leaf_iters = bench_param_long(p, np, 3, 4096);
    long trees = bench_param_long(p, np, 4, 256);
    long chol_n = bench_param_long(p, np, 5, 500), chol_nz = bench_param_long(p, np, 6, 2000);
    int ovh_n = (int)bench_param_long(p, np, 7, 30);
    int rounds = reps > 1 ? reps : 5;
    chol_input in;
    chol_build(chol_n, chol_nz, &in);

    round_result rr[rounds];
    double t_all = bench_now();
    for (int r = 0; r < rounds; r++) {
        /* the profiled build's cost: fib, one task per call, at 1 worker against the serial fib */
        merino_config one = {0};
        one.workers = 1;
        if (merino_start(&one) != 0) return 2;
        double t0 = bench_now();
        long f = fib_serial(ovh_n);
        double ts = bench_now() - t0;
        t0 = bench_now();
        g_ok &= MERINO_RUN(fib, ovh_n) == f;
        rr[r].t1_ts = (bench_now() - t0) / ts;
        merino_stop();

        merino_config cfg = {0};
        cfg.workers = (unsigned)workers;
        if (merino_start(&cfg) != 0) return 2;
        double fib_ts = least_of_3(time_fibw, fib_n);
        merino_wsp a = merino_wsp_now();
        g_ok &= MERINO_RUN(fibw, fib_n) == fib_closed(fib_n);
        merino_wsp b = merino_wsp_now();
        rr[r].fib_m = parallelism(a, b);
        rr[r].fib_e = fib_closed_parallelism(fib_n);
        work_span_ratios(a, b, fib_ts, fib_ts / rr[r].fib_e, &rr[r].fib_w1, &rr[r].fib_wi);
        stress_round(h, trees, &rr[r]);
        chol_round(&in, &rr[r]);
        merino_stop();
    }
    double seconds = bench_now() - t_all;
    chol_free(in.root, in.level);

    char extra[2048];
    int len = 0;
    const char *names[] = {"fibw", "stress", "cholesky"};
    size_t m_off[] = {offsetof(round_result, fib_m), offsetof(round_result, stress_m), offsetof(round_result, chol_m)};
    size_t e_off[] = {offsetof(round_result, fib_e), offsetof(round_result, stress_e), offsetof(round_result, chol_e)};
    size_t w1_off[] = {offsetof(round_result, fib_w1), offsetof(round_result, stress_w1), offsetof(round_result, chol_w1)};
    size_t wi_off[] = {offsetof(round_result, fib_wi), offsetof(round_result, stress_wi), offsetof(round_result, chol_wi)};
    for (int k = 0; k < 3; k++) {
        double m = median_of(rr, rounds, m_off[k]), e = median_of(rr, rounds, e_off[k]);
        len += snprintf(extra + len, sizeof extra - (size_t)len,
                        "\"%s_measured\": %.4g, \"%s_estimate\": %.4g, \"%s_ratio\": %.4f, ", names[k], m,
                        names[k], e, names[k], e > 0 ? m / e : 0);
        len += snprintf(extra + len, sizeof extra - (size_t)len, "\"%s_work_ratio\": %.4f, \"%s_span_ratio\": %.4f, ",
                        names[k], median_of(rr, rounds, w1_off[k]), names[k], median_of(rr, rounds, wi_off[k]));
    }
    snprintf(extra + len, sizeof extra - (size_t)len,
             "\"prof_fib_t1_ts\": %.4f, \"rounds\": %d, \"params\": \"%d %ld %d %ld %ld %ld %ld %d\"",
             median_of(rr, rounds, offsetof(round_result, t1_ts)), rounds, fib_n, fib_w, h, stress_leaf_iters,
             trees, chol_n, chol_nz, ovh_n);
    printf("{\"seconds\": %.6f, \"check\": \"%s\", \"result\": %d", seconds, g_ok ? "ok" : "FAIL", rounds);
    return bench__report_end(g_ok, -1, extra);
}
