/* ratios, merino: issue 2's ratios measured in one process, each serial run paired with the
 * merino runs right after it.
 *
 *   ./ratios-merino [--reps R] n  h1 L1 trees1  h2 L2 trees2  hc Lc treesc
 *
 * On a shared virtual machine the speed of the cores drifts by tens of percent from one second to
 * the next, so T_S and T_2 taken as medians of separate process runs can each land in a different
 * phase (bench/run's tables have shown merino at 1 worker 1.5x faster than the serial program for
 * no reason but that). Here every round runs, back to back, the serial program and then merino at
 * 1 and 2 workers on the same input, and the ratios are taken within the round; the output is the
 * median (and quartiles) over R rounds (default 21). Measured per round:
 *   fib(n), one task per call:      T_1 / T_S and T_S / T_2
 *   stress h1 L1 and h2 L2:         T_S / T_2 (trees1, trees2 trees in a row, as bench/stress)
 *   stress hc Lc (hc = 1: two big independent leaves): T_S / T_2, the ceiling — what the machine
 *                                   gives two threads during the run, with no scheduling to speak of
 * Every result is checked against the serial one. Each merino phase starts its own pool (start,
 * one warm-up run, the timed run, stop), so the pool's start-up is not timed.
 *
 * Output: {"seconds": wall of the timed runs, "check", "result": rounds, "tasks": null, "rounds",
 *          "fib_t1_ts": [p25, median, p75], "fib_ts_t2": [...], "stress1_ts_t2": [...],
 *          "stress2_ts_t2": [...], "ceiling_ts_t2": [...], "params"} */
#include <merino.h>

#include "../fib/fib.h"
#include "../fib/fib-merino.h"
#include "../stress/stress.h"
#include "../stress/stress-merino.h"
#include "bench.h"

static int g_ok = 1;
static double g_timed;

static void start(unsigned workers) {
    merino_config cfg = {0};
    cfg.workers = workers;
    if (merino_start(&cfg) != 0) exit(2);
    long w = MERINO_RUN(fib, 20); /* warm-up: the workers are up and have stolen once */
    g_ok &= w == fib_closed(20);
}

/* Seconds of serial fib(n), then of merino's at 1 and 2 workers. */
static void fib_round(int n, double *ts, double *t1, double *t2) {
    double t0 = bench_now();
    long r = fib_serial(n);
    bench_sink(r);
    *ts = bench_now() - t0;
    g_ok &= r == fib_closed(n);
    for (unsigned w = 1; w <= 2; w++) {
        start(w);
        t0 = bench_now();
        r = MERINO_RUN(fib, n);
        bench_sink(r);
        double t = bench_now() - t0;
        merino_stop();
        g_ok &= r == fib_closed(n);
        *(w == 1 ? t1 : t2) = t;
        g_timed += t;
    }
    g_timed += *ts;
}

/* T_S / T_2 of `trees` trees of height h with leaves of L iterations. */
static double stress_round(int h, long L, long trees) {
    stress_leaf_iters = L;
    double t0 = bench_now();
    int64_t sum = 0;
    for (long i = 0; i < trees; i++) sum += stress_serial(h);
    double ts = bench_now() - t0;
    g_ok &= sum == stress_expected(h, trees, 1);
    start(2);
    t0 = bench_now();
    int64_t par = MERINO_RUN(trees_task, h, trees);
    double t2 = bench_now() - t0;
    merino_stop();
    g_ok &= par == sum;
    g_timed += ts + t2;
    return ts / t2;
}

/* [p25, median, p75] of v[0..n) as a JSON array (sorts v). */
static void quartiles(char *buf, size_t size, const char *name, double *v, int n) {
    double med = bench_median(v, n); /* sorts */
    snprintf(buf, size, "\"%s\": [%.3f, %.3f, %.3f]", name, v[n / 4], med, v[(3 * n) / 4]);
}

int main(int argc, char **argv) {
    const char *p[10];
    int workers, reps;
    int np = bench_args(argc, argv, &workers, &reps, p, 10);
    if (np < 10) bench_usage_exit(argv[0], "n h1 L1 trees1 h2 L2 trees2 hc Lc treesc");
    int explicit_reps = 0;
    for (int i = 1; i < argc; i++)
        if (strncmp(argv[i], "--reps", 6) == 0 || strcmp(argv[i], "-r") == 0) explicit_reps = 1;
    int rounds = explicit_reps ? reps : 21;
    if (rounds < 1 || rounds > 1000) bench_usage_exit(argv[0], "--reps 1..1000 rounds");
    int n = (int)bench_param_long(p, np, 0, 36);
    int h[3];
    long L[3], trees[3];
    for (int k = 0; k < 3; k++) {
        h[k] = (int)bench_param_long(p, np, 1 + 3 * k, 7);
        L[k] = bench_param_long(p, np, 2 + 3 * k, 256);
        trees[k] = bench_param_long(p, np, 3 + 3 * k, 1024);
        if (h[k] < 0 || h[k] > 30 || L[k] < 0 || trees[k] < 1) bench_usage_exit(argv[0], "h L trees");
    }
    double *v[5];
    for (int k = 0; k < 5; k++) v[k] = (double *)calloc((size_t)rounds, sizeof(double));
    for (int r = 0; r < rounds; r++) {
        double ts, t1, t2;
        fib_round(n, &ts, &t1, &t2);
        v[0][r] = t1 / ts;
        v[1][r] = ts / t2;
        for (int k = 0; k < 3; k++) v[2 + k][r] = stress_round(h[k], L[k], trees[k]);
    }
    static const char *const names[5] = {"fib_t1_ts", "fib_ts_t2", "stress1_ts_t2", "stress2_ts_t2", "ceiling_ts_t2"};
    char extra[1024], part[128];
    int len = snprintf(extra, sizeof extra, "\"rounds\": %d", rounds);
    for (int k = 0; k < 5; k++) {
        quartiles(part, sizeof part, names[k], v[k], rounds);
        len += snprintf(extra + len, sizeof extra - (size_t)len, ", %s", part);
    }
    snprintf(extra + len, sizeof extra - (size_t)len,
             ", \"params\": \"%d %d %ld %ld %d %ld %ld %d %ld %ld\"", n, h[0], L[0], trees[0], h[1], L[1],
             trees[1], h[2], L[2], trees[2]);
    return bench_report_i64x(g_timed, g_ok, rounds, -1, extra);
}
