/* ratios, merino: issue 2's ratios measured in one process, each serial run paired with the
 * merino runs right after it, beside the best any scheduler could do in the same round.
 *
 *   ./ratios-merino [--reps R] n  h1 L1 trees1  h2 L2 trees2
 *
 * On a shared virtual machine the speed of each core drifts by tens of percent from one second to
 * the next, and the two cores often run at different speeds (one at half the other's, for
 * seconds). So T_S and T_2 taken as medians of separate process runs can each land in a different
 * phase, and a serial run that happens to land on the slow core makes T_S / T_2 look better than
 * two cores can be (above 2). Here every round runs the programs back to back, and:
 *   T_S      the serial program pinned to each CPU in turn (the first two of the affinity mask);
 *            the fastest is T_S — the conservative choice: T_S / T_2 can only come out lower;
 *   T_1      merino with one worker, pinned to the same CPU right after each serial run; the
 *            round's T_1 / T_S is the sum of the T_1 over the sum of the T_S on those CPUs;
 *   T_2      merino with two workers, as a user runs it: the default configuration, which binds
 *            them one per CPU (merino_config.pin, auto);
 *   ceiling  the same stress trees run by two threads pinned one per CPU that share each tree's
 *            leaves through one counter (guided self-scheduling: each takes a quarter of what is
 *            left, at least one leaf), with a barrier between trees: no tasks, no stealing — what
 *            the machine gives two threads on this work in this round.
 * The output is the median (and quartiles) over R rounds (default 21) of, per round:
 *   fib(n), one task per call:   T_1 / T_S and T_S / T_2
 *   stress h1 L1, h2 L2:         T_S / T_2 (trees1, trees2 trees in a row, as workloads/stress),
 *                                T_S / T_ceiling, and T_ceiling / T_2 (merino's share of what the
 *                                machine gave; above 1 when merino beats the self-scheduler)
 * Every result is checked against the serial one. Each merino phase starts its own pool (start,
 * one warm-up run, the timed run, stop), so the pool's start-up is not timed.
 *
 * Output: {"seconds": wall of the timed runs, "check", "result": rounds, "tasks": null, "rounds",
 *          "fib_t1_ts": [p25, median, p75], "fib_ts_t2", "stress1_ts_t2", "stress2_ts_t2",
 *          "ceiling1_ts_t2", "ceiling2_ts_t2", "stress1_of_ceiling", "stress2_of_ceiling",
 *          "cpus": CPUs used, "params"} (the ceiling keys are null with fewer than 2 CPUs) */
#include <merino.h>

#include <pthread.h>
#include <sched.h>

#include "fib/fib.h"
#include "fib/fib-merino.h"
#include "stress/stress.h"
#include "stress/stress-merino.h"
#include "bench.h"

static int g_ok = 1;
static double g_timed;

/* ---- CPUs ------------------------------------------------------------------------------------- */

static cpu_set_t g_mask; /* the process's affinity mask at start */
static int g_cpu[2], g_ncpu;

static void find_cpus(void) {
    if (sched_getaffinity(0, sizeof g_mask, &g_mask) != 0) {
        perror("sched_getaffinity");
        exit(2);
    }
    for (int c = 0; c < CPU_SETSIZE && g_ncpu < 2; c++)
        if (CPU_ISSET(c, &g_mask)) g_cpu[g_ncpu++] = c;
}

/* Pins the calling thread to CPU c; c < 0 restores the process's mask. Threads created after
 * inherit it (merino's workers among them). */
static void pin(int c) {
    cpu_set_t one;
    CPU_ZERO(&one);
    if (c >= 0) CPU_SET(c, &one);
    if (pthread_setaffinity_np(pthread_self(), sizeof one, c >= 0 ? &one : &g_mask) != 0) {
        fprintf(stderr, "ratios: cannot set the CPU affinity\n");
        exit(2);
    }
}

static void start(unsigned workers) {
    merino_config cfg = {0};
    cfg.workers = workers;
    if (merino_start(&cfg) != 0) exit(2);
    long w = MERINO_RUN(fib, 20); /* warm-up: the workers are up and have stolen once */
    g_ok &= w == fib_closed(20);
}

/* ---- the ceiling: two pinned threads self-scheduling each tree's leaves ------------------------ */

static struct {
    int h;
    long trees;
    long next;          /* atomic: the next leaf, counted over all trees */
    unsigned arrived;   /* atomic: threads at the barrier */
    unsigned phase;     /* atomic: bumped by the last one to arrive */
    unsigned go;        /* atomic: both threads pinned and ready */
    long leaves[2];
} g_ceil;

static void ceiling_run(int me) {
    long per_tree = 1L << g_ceil.h, done = 0;
    unsigned phase = 0;
    for (long t = 0; t < g_ceil.trees; t++) {
        long end = (t + 1) * per_tree;
        /* relaxed: the leaves carry no data; the CAS only divides the indices */
        long cur = __atomic_load_n(&g_ceil.next, __ATOMIC_RELAXED);
        while (cur < end) {
            long chunk = (end - cur) / 4;
            if (chunk < 1) chunk = 1;
            if (!__atomic_compare_exchange_n(&g_ceil.next, &cur, cur + chunk, 1, __ATOMIC_RELAXED,
                                             __ATOMIC_RELAXED))
                continue;
            for (long i = 0; i < chunk; i++) done += stress_leaf();
            cur = __atomic_load_n(&g_ceil.next, __ATOMIC_RELAXED);
        }
        /* barrier: the trees are serialized, as in the merino and serial versions */
        phase++;
        if (__atomic_add_fetch(&g_ceil.arrived, 1, __ATOMIC_ACQ_REL) == 2) {
            __atomic_store_n(&g_ceil.arrived, 0, __ATOMIC_RELAXED);
            __atomic_store_n(&g_ceil.phase, phase, __ATOMIC_RELEASE); /* release: the reset above */
        } else {
            while (__atomic_load_n(&g_ceil.phase, __ATOMIC_ACQUIRE) != phase) bench_cpu_relax();
        }
    }
    g_ceil.leaves[me] = done;
}

static void *ceiling_thread(void *arg) {
    (void)arg;
    pin(g_cpu[1]);
    __atomic_add_fetch(&g_ceil.go, 1, __ATOMIC_ACQ_REL);
    while (__atomic_load_n(&g_ceil.go, __ATOMIC_ACQUIRE) < 3) bench_cpu_relax();
    ceiling_run(1);
    return NULL;
}

/* Seconds of the ceiling run of `trees` trees of height h (the calling thread is pinned to the
 * first CPU for it, a second thread to the second). */
static double ceiling_round(int h, long trees) {
    g_ceil.h = h;
    g_ceil.trees = trees;
    g_ceil.next = 0;
    g_ceil.arrived = g_ceil.phase = g_ceil.go = 0;
    pin(g_cpu[0]);
    pthread_t other;
    if (pthread_create(&other, NULL, ceiling_thread, NULL) != 0) exit(2);
    while (__atomic_load_n(&g_ceil.go, __ATOMIC_ACQUIRE) < 1) bench_cpu_relax();
    double t0 = bench_now();
    __atomic_store_n(&g_ceil.go, 3, __ATOMIC_RELEASE);
    ceiling_run(0);
    pthread_join(other, NULL);
    double t = bench_now() - t0;
    pin(-1);
    g_ok &= g_ceil.leaves[0] + g_ceil.leaves[1] == stress_expected(h, trees, 1);
    g_timed += t;
    return t;
}

/* ---- one round ------------------------------------------------------------------------------- */

/* fib(n): fills T_1 / T_S and T_S / T_2. */
static void fib_round(int n, double *t1_ts, double *ts_t2) {
    double ts_best = 1e30, ts_sum = 0, t1_sum = 0;
    for (int c = 0; c < g_ncpu; c++) {
        pin(g_cpu[c]);
        double t0 = bench_now();
        long r = fib_serial(n);
        bench_sink(r);
        double ts = bench_now() - t0;
        g_ok &= r == fib_closed(n);
        start(1); /* the worker inherits the pin */
        t0 = bench_now();
        r = MERINO_RUN(fib, n);
        bench_sink(r);
        double t1 = bench_now() - t0;
        merino_stop();
        g_ok &= r == fib_closed(n);
        if (ts < ts_best) ts_best = ts;
        ts_sum += ts;
        t1_sum += t1;
        g_timed += ts + t1;
    }
    pin(-1);
    start(2);
    double t0 = bench_now();
    long r = MERINO_RUN(fib, n);
    bench_sink(r);
    double t2 = bench_now() - t0;
    merino_stop();
    g_ok &= r == fib_closed(n);
    g_timed += t2;
    *t1_ts = t1_sum / ts_sum;
    *ts_t2 = ts_best / t2;
}

/* `trees` trees of height h with leaves of L iterations: fills T_S / T_2, T_S / T_ceiling and
 * T_ceiling / T_2 (the last two 0 without two CPUs). */
static void stress_round(int h, long L, long trees, double *ts_t2, double *ts_tc, double *tc_t2) {
    stress_leaf_iters = L;
    double ts = 1e30;
    for (int c = 0; c < g_ncpu; c++) {
        pin(g_cpu[c]);
        double t0 = bench_now();
        int64_t sum = 0;
        for (long i = 0; i < trees; i++) sum += stress_serial(h);
        double t = bench_now() - t0;
        g_ok &= sum == stress_expected(h, trees, 1);
        if (t < ts) ts = t;
        g_timed += t;
    }
    pin(-1);
    start(2);
    double t0 = bench_now();
    int64_t par = MERINO_RUN(trees_task, h, trees);
    double t2 = bench_now() - t0;
    merino_stop();
    g_ok &= par == stress_expected(h, trees, 1);
    g_timed += t2;
    *ts_t2 = ts / t2;
    if (g_ncpu >= 2) {
        double tc = ceiling_round(h, trees);
        *ts_tc = ts / tc;
        *tc_t2 = tc / t2;
    } else {
        *ts_tc = *tc_t2 = 0;
    }
}

/* ---- output ---------------------------------------------------------------------------------- */

/* "name": [p25, median, p75] of v[0..n) (sorts v); null when none is positive. */
static void quartiles(char *buf, size_t size, const char *name, double *v, int n) {
    double med = bench_median(v, n); /* sorts */
    if (v[n - 1] <= 0)
        snprintf(buf, size, "\"%s\": null", name);
    else
        snprintf(buf, size, "\"%s\": [%.3f, %.3f, %.3f]", name, v[n / 4], med, v[(3 * n) / 4]);
}

enum { FIB_T1_TS, FIB_TS_T2, S1_TS_T2, S2_TS_T2, C1_TS_T2, C2_TS_T2, S1_OF_C, S2_OF_C, NKEYS };
static const char *const g_keys[NKEYS] = {"fib_t1_ts",      "fib_ts_t2",      "stress1_ts_t2",
                                          "stress2_ts_t2",  "ceiling1_ts_t2", "ceiling2_ts_t2",
                                          "stress1_of_ceiling", "stress2_of_ceiling"};

int main(int argc, char **argv) {
    const char *p[7];
    int workers, reps;
    int np = bench_args(argc, argv, &workers, &reps, p, 7);
    if (np < 7) bench_usage_exit(argv[0], "n h1 L1 trees1 h2 L2 trees2");
    int explicit_reps = 0;
    for (int i = 1; i < argc; i++)
        if (strncmp(argv[i], "--reps", 6) == 0 || strcmp(argv[i], "-r") == 0) explicit_reps = 1;
    int rounds = explicit_reps ? reps : 21;
    if (rounds < 1 || rounds > 1000) bench_usage_exit(argv[0], "--reps 1..1000 rounds");
    int n = (int)bench_param_long(p, np, 0, 36);
    int h[2];
    long L[2], trees[2];
    for (int k = 0; k < 2; k++) {
        h[k] = (int)bench_param_long(p, np, 1 + 3 * k, 7);
        L[k] = bench_param_long(p, np, 2 + 3 * k, 256);
        trees[k] = bench_param_long(p, np, 3 + 3 * k, 1024);
        if (h[k] < 0 || h[k] > 30 || L[k] < 0 || trees[k] < 1) bench_usage_exit(argv[0], "h L trees");
    }
    find_cpus();
    double *v[NKEYS];
    for (int k = 0; k < NKEYS; k++) v[k] = (double *)calloc((size_t)rounds, sizeof(double));
    for (int r = 0; r < rounds; r++) {
        fib_round(n, &v[FIB_T1_TS][r], &v[FIB_TS_T2][r]);
        for (int k = 0; k < 2; k++)
            stress_round(h[k], L[k], trees[k], &v[S1_TS_T2 + k][r], &v[C1_TS_T2 + k][r], &v[S1_OF_C + k][r]);
    }
    char extra[2048], part[160];
    int len = snprintf(extra, sizeof extra, "\"rounds\": %d, \"cpus\": %d", rounds, g_ncpu);
    for (int k = 0; k < NKEYS; k++) {
        quartiles(part, sizeof part, g_keys[k], v[k], rounds);
        len += snprintf(extra + len, sizeof extra - (size_t)len, ", %s", part);
    }
    snprintf(extra + len, sizeof extra - (size_t)len, ", \"params\": \"%d %d %ld %ld %d %ld %ld\"", n, h[0],
             L[0], trees[0], h[1], L[1], trees[1]);
    return bench_report_i64x(g_timed, g_ok, rounds, -1, extra);
}
