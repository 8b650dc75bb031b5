/* prof, merino: the profiler's accuracy and cost (issue 16's profiler target; docs/profiler.md).
 * Linked with the profiled variant, libmerino_prof (MERINO_PROFILE=1).
 *
 *   ./prof-merino --workers N [--reps R] fib_n fib_w  h L trees  chol_n chol_nz chol_cut  ovh_n
 *
 * Each round (R rounds; 5 when R is 1 or not given; the medians over them are reported) measures, with N workers,
 * the parallelism T_1 / T_inf the profiler reports (merino_wsp around one MERINO_RUN) and an
 * estimate made without it:
 *   fibw fib_n fib_w   fib with fib_w iterations of an empty loop at the start of every call: the
 *                      span is one call per level, S(n) = n calls (S(k) = 1 + max(S(k-1), S(k-2)),
 *                      S(1) = S(0) = 1), the work 2 F(n+1) - 1 calls, so the closed form is
 *                      (2 F(n+1) - 1) / n whatever the cost of a call, as long as the loop
 *                      dominates it (fib_w = 20000 is ~4.7 us; a profiled spawn and join, ~15 ns);
 *   stress h L trees   Wool's stress (workloads/): T_1 = the serial program's time T_S; T_inf =
 *                      trees x (h + 1 calls + one leaf's loop): a call's time measured by the
 *                      serial trees with empty leaves, the loop's alone (each the least of 3);
 *   cholesky n nz cut  workloads/cholesky's tasks, the levels below `cut` run serially inside one
 *                      task (cut 5: blocks of 64 x 64, each task a block's whole step; cut 0: every
 *                      level spawns, 4 x 4 leaves, as workloads/cholesky): T_1 = the serial
 *                      factorization's time T_S; T_inf from a serial replay of the same recursion
 *                      that times every leaf operation (a serial block at the cutoff) with the
 *                      monotonic clock (less one clock read's own time) and adds them up along the
 *                      task graph (+ on a sequence, max across the branches a task spawns); each
 *                      the least of 3. The replay's work (its leaves added up) over T_S checks it.
 * and the profiled build's cost: T_1 / T_S of fib(ovh_n), one task per call, at 1 worker (the
 * default build's is micro/ratios' fib_t1_ts).
 *
 * Each workload is profiled 3 times per round: "<w>_ratio" is the first run's, "<w>_least3_ratio"
 * the run with the least span's (the serial estimates are least-of-3 timings; see round_result).
 *
 * Output: {"seconds", "check", "result": rounds, "tasks": null, "<w>_measured", "<w>_estimate",
 *          "<w>_ratio" (measured / estimate), "<w>_work_ratio" (the profiler's work / T_S),
 *          "<w>_span_ratio" (its span / the estimate's span), the same three as "<w>_least3_*",
 *          "<w>_ratio_lo", "<w>_ratio_hi" and "<w>_least3_ratio_lo/hi" (the range of the rounds'),
 *          for w in fibw, stress, cholesky; "cholesky_replay_work_ratio", "prof_fib_t1_ts", "params"}
 * The profiled cholesky's factor is checked against the serial one once a round.
 *
 * Coarse strands (the defaults, 14 400000  3 262144 256  1000 4000 5: calls of 93 us, leaves of
 * 61 us, blocks of 64 x 64 of 56 us on average) are long beside the gaps this VM's guest cannot see (20-800 us, ~130
 * a second); fine ones (20 20000  7 256 256  500 2000 0) show where the span is an upper bound
 * (docs/profiler.md, "Accuracy"). */
#include <bench.h> /* first: it sets _GNU_SOURCE */

#include "cholesky/cholesky.h"
#include "fib/fib.h"
#include "stress/stress.h"

#include <merino.h>
#include <merino_prof.h>

/* cholesky's levels below chol_cut run serially inside one task (0: every level spawns) */
static int chol_cut;
#define CHOL_SERIAL_BELOW chol_cut
#include "cholesky/cholesky-merino.h"
#include "fib/fib-merino.h"
#include "stress/stress-merino.h"

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
    if (level < chol_cut) { /* one task, run serially (t_mulsub) */
        double t0 = bench_now();
        *r = chol_serial_mulsub(a, b, *r, level, lower, NULL);
        return ws_leaf(t0);
    }
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
    if (level < chol_cut) {
        double t0 = bench_now();
        chol_serial_backsub(a, l, level, NULL);
        return ws_leaf(t0);
    }
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
    if (level < chol_cut) {
        double t0 = bench_now();
        chol_serial(a, level, NULL);
        return ws_leaf(t0);
    }
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

/* The workloads, in the output's order. */
enum { FIBW, STRESS, CHOL, WORKLOADS };
static const char *const names[WORKLOADS] = {"fibw", "stress", "cholesky"};

/* Per workload: the estimate; the profiler's parallelism in the round's first profiled run, and
 * its work over the serial time and span over the estimate's span (where a ratio's error comes
 * from); the same from the least span of PROFILED_RUNS runs. The serial estimates are each the
 * least of 3 timings (their noise is all upward); the profiler's span is a maximum over paths,
 * whose noise is all upward too, so the least of as many profiled runs treats both sides alike. */
#define PROFILED_RUNS 3
typedef struct round_result {
    double e[WORKLOADS];
    double m[WORKLOADS], w1[WORKLOADS], wi[WORKLOADS];
    double lm[WORKLOADS], lw1[WORKLOADS], lwi[WORKLOADS];
    double t1_ts;
    double replay_work; /* cholesky: the replay's work (its leaves added up) over T_S */
} round_result;

/* The profiled runs of one workload: the first, and the one with the least span. */
typedef struct profiled {
    merino_wsp first, least;
} profiled;

static void profiled_keep(profiled *p, int run, merino_wsp a, merino_wsp b) {
    merino_wsp d = merino_wsp_sub(b, a);
    if (run == 0) p->first = p->least = d;
    else if (d.span < p->least.span) p->least = d;
}

/* Fills workload k's figures of the round from its profiled runs, its T_S and its estimated span. */
static void profiled_result(round_result *rr, int k, const profiled *p, double ts, double span_e) {
    const merino_wsp *d[2] = {&p->first, &p->least};
    double *m[2] = {&rr->m[k], &rr->lm[k]}, *w1[2] = {&rr->w1[k], &rr->lw1[k]}, *wi[2] = {&rr->wi[k], &rr->lwi[k]};
    for (int i = 0; i < 2; i++) {
        *m[i] = d[i]->span > 0 ? d[i]->work / d[i]->span : 0;
        *w1[i] = ts > 0 ? d[i]->work / ts : 0;
        *wi[i] = span_e > 0 ? d[i]->span / span_e : 0;
    }
    rr->e[k] = span_e > 0 ? ts / span_e : 0;
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
    profiled p;
    for (int run = 0; run < PROFILED_RUNS; run++) {
        merino_wsp a = merino_wsp_now();
        g_ok &= MERINO_RUN(trees_task, h, trees) == ((long)1 << h) * trees;
        profiled_keep(&p, run, a, merino_wsp_now());
    }
    /* a tree's critical path: the root's call down to one leaf, h + 1 calls and a leaf's loop */
    profiled_result(rr, STRESS, &p, ts, (double)trees * ((h + 1) * t_call + t_leaf));
}

static const chol_input *g_chol;
static double time_chol(long unused) { /* the serial factorization: T_S (the copy not timed) */
    (void)unused;
    node c = chol_copy(g_chol->root, g_chol->level);
    double t0 = bench_now();
    c = chol_serial(c, g_chol->level, NULL);
    double t = bench_now() - t0;
    chol_free(c, g_chol->level);
    return t;
}

static void chol_round(const chol_input *in, round_result *rr) {
    g_chol = in;
    double ts = least_of_3(time_chol, 0);
    if (clock_cost == 0) measure_clock_cost();
    ws replay = {0, 1e300}; /* the least span of 3 replays, as T_S is the least of 3 timings */
    for (int i = 0; i < 3; i++) {
        node c = chol_copy(in->root, in->level);
        ws r = r_chol(c, in->level);
        chol_free(c, in->level);
        if (r.span < replay.span) replay = r;
    }
    profiled p;
    for (int run = 0; run < PROFILED_RUNS; run++) {
        node c = chol_copy(in->root, in->level);
        merino_wsp a = merino_wsp_now();
        c = MERINO_RUN(t_chol, c, in->level);
        profiled_keep(&p, run, a, merino_wsp_now());
        if (run == 0) { /* the factor, once a round (outside the timings) */
            double sum;
            g_ok &= chol_verify(in, c, &sum, NULL);
        }
        chol_free(c, in->level);
    }
    profiled_result(rr, CHOL, &p, ts, replay.span);
    rr->replay_work = ts > 0 ? replay.work / ts : 0;
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

/* The least and the greatest of the rounds' ratios of workload k (least: of the least-span runs). */
static void ratio_range(const round_result *r, int n, int k, int least, double *lo, double *hi) {
    *lo = 1e300;
    *hi = 0;
    for (int i = 0; i < n; i++) {
        double x = r[i].e[k] > 0 ? (least ? r[i].lm[k] : r[i].m[k]) / r[i].e[k] : 0;
        if (x < *lo) *lo = x;
        if (x > *hi) *hi = x;
    }
}

int main(int argc, char **argv) {
    const char *p[9];
    int workers, reps;
    int np = bench_args(argc, argv, &workers, &reps, p, 9);
    if (np != 9) bench_usage_exit(argv[0], "fib_n fib_w h L trees chol_n chol_nz chol_cut ovh_n");
    int fib_n = (int)bench_param_long(p, np, 0, 14);
    fib_w = bench_param_long(p, np, 1, 400000);
    int h = (int)bench_param_long(p, np, 2, 3);
    stress_leaf_iters = bench_param_long(p, np, 3, 262144);
    long trees = bench_param_long(p, np, 4, 256);
    long chol_n = bench_param_long(p, np, 5, 1000), chol_nz = bench_param_long(p, np, 6, 4000);
    chol_cut = (int)bench_param_long(p, np, 7, 5);
    int ovh_n = (int)bench_param_long(p, np, 8, 30);
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
        profiled p;
        for (int run = 0; run < PROFILED_RUNS; run++) {
            merino_wsp a = merino_wsp_now();
            g_ok &= MERINO_RUN(fibw, fib_n) == fib_closed(fib_n);
            profiled_keep(&p, run, a, merino_wsp_now());
        }
        /* the closed form's span, in the serial program's time per call */
        profiled_result(&rr[r], FIBW, &p, fib_ts, fib_ts / fib_closed_parallelism(fib_n));
        stress_round(h, trees, &rr[r]);
        chol_round(&in, &rr[r]);
        merino_stop();
    }
    double seconds = bench_now() - t_all;
    chol_free(in.root, in.level);

    char extra[4096];
    int len = 0;
    for (int k = 0; k < WORKLOADS; k++) {
        double m = median_of(rr, rounds, offsetof(round_result, m[k]));
        double lm = median_of(rr, rounds, offsetof(round_result, lm[k]));
        double e = median_of(rr, rounds, offsetof(round_result, e[k]));
        len += snprintf(extra + len, sizeof extra - (size_t)len,
                        "\"%s_measured\": %.4g, \"%s_estimate\": %.4g, \"%s_ratio\": %.4f, "
                        "\"%s_work_ratio\": %.4f, \"%s_span_ratio\": %.4f, \"%s_least3_ratio\": %.4f, "
                        "\"%s_least3_work_ratio\": %.4f, \"%s_least3_span_ratio\": %.4f, ",
                        names[k], m, names[k], e, names[k], e > 0 ? m / e : 0, names[k],
                        median_of(rr, rounds, offsetof(round_result, w1[k])), names[k],
                        median_of(rr, rounds, offsetof(round_result, wi[k])), names[k], e > 0 ? lm / e : 0,
                        names[k], median_of(rr, rounds, offsetof(round_result, lw1[k])), names[k],
                        median_of(rr, rounds, offsetof(round_result, lwi[k])));
        double lo, hi, llo, lhi;
        ratio_range(rr, rounds, k, 0, &lo, &hi);
        ratio_range(rr, rounds, k, 1, &llo, &lhi);
        len += snprintf(extra + len, sizeof extra - (size_t)len,
                        "\"%s_ratio_lo\": %.4f, \"%s_ratio_hi\": %.4f, \"%s_least3_ratio_lo\": %.4f, "
                        "\"%s_least3_ratio_hi\": %.4f, ",
                        names[k], lo, names[k], hi, names[k], llo, names[k], lhi);
    }
    snprintf(extra + len, sizeof extra - (size_t)len,
             "\"cholesky_replay_work_ratio\": %.4f, \"prof_fib_t1_ts\": %.4f, \"rounds\": %d, "
             "\"params\": \"%d %ld %d %ld %ld %ld %ld %d %d\"",
             median_of(rr, rounds, offsetof(round_result, replay_work)),
             median_of(rr, rounds, offsetof(round_result, t1_ts)), rounds, fib_n, fib_w, h, stress_leaf_iters,
             trees, chol_n, chol_nz, chol_cut, ovh_n);
    printf("{\"seconds\": %.6f, \"check\": \"%s\", \"result\": %d", seconds, g_ok ? "ok" : "FAIL", rounds);
    return bench__report_end(g_ok, -1, extra);
}
