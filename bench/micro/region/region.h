/* region.h — shared by every version of region: what entering a parallel region costs, measured
 * the EPCC syncbench way (a region of little work entered many times in a row).
 *
 * region W R: R parallel regions entered one after the other from the main thread, each of two
 * leaves of W iterations of stress's empty loop (stress_leaf of stress/stress.h, so W means
 * what stress's L means: about one cycle an iteration, no memory references). The serial version
 * runs both leaves one after the other; merino runs each region as one MERINO_RUN of a task that
 * spawns one leaf and calls the other (merino::run of a merino::fork_join in the C++ version);
 * OpenMP as one `#pragma omp parallel` whose threads share the two leaves (one each with two
 * threads); oneTBB as one tbb::parallel_invoke of the two leaves. The runtime is started, and one
 * region run, before the timing.
 *
 * --reps N is the number of rounds: each round enters the R regions and is timed alone; region_ns
 * is the median over the rounds of the round's time / R, in nanoseconds. The speedup of a system
 * is the serial region_ns over its region_ns (T_S / T_P). Each leaf returns a value mixed from its
 * region and side; result = the sum of every leaf's value, checked against the same sum computed
 * without the leaves' loops (a leaf lost or run twice changes it). tasks = one spawn per region
 * (null for serial).
 *
 * Output: {"seconds": all rounds, "check", "result", "tasks", "region_ns": median,
 *          "region_ns_p25", "region_ns_p75", "rounds"} */
#ifndef BENCH_REGION_H
#define BENCH_REGION_H
#include <stdint.h>

#include "stress/stress.h"
#include "bench.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The value leaf `side` (0 or 1) of region r returns. */
static inline uint64_t region_value(long r, int side) {
    uint64_t x = (uint64_t)r * 2u + (uint64_t)side + 1u;
    x ^= x >> 31;
    x *= 0x9e3779b97f4a7c15ull;
    x ^= x >> 29;
    return x;
}

/* One leaf: W iterations of stress's empty loop, then its value. */
static inline uint64_t region_leaf(long r, int side) {
    stress_leaf();
    return region_value(r, side);
}

/* Parses ./region-<system> --workers N [--reps rounds] W R (exits 2 on bad input): sets the leaves'
 * loop to W iterations, *workers and *rounds; returns R. */
static BENCH__UNUSED long region_args(int argc, char **argv, int *workers, int *rounds) {
    const char *usage = "W R   (leaf iterations, regions a round; --reps = rounds)";
    const char *p[2];
    int np = bench_args(argc, argv, workers, rounds, p, 2);
    if (np != 2) bench_usage_exit(argv[0], usage);
    long W = bench_param_long(p, np, 0, 0), R = bench_param_long(p, np, 1, 1);
    if (W < 0 || R < 1) bench_usage_exit(argv[0], usage);
    stress_leaf_iters = W;
    return R;
}

/* Runs the regions first .. first + n - 1 in a row; returns the sum of their leaves' values. */
typedef uint64_t (*region_fn)(long first, long n);

typedef struct {
    double seconds; /* all rounds */
    uint64_t sum;   /* of every timed leaf */
    int ok;
    long R;
    int rounds;
    double ns[3]; /* per region: p25, median, p75 over the rounds */
} region_result;

static BENCH__UNUSED region_result region_time(region_fn fn, long R, int rounds) {
    region_result res = {0, 0, 1, R, rounds, {0, 0, 0}};
    double *per = (double *)malloc((size_t)rounds * sizeof *per);
    if (!per) {
        fprintf(stderr, "region: out of memory\n");
        exit(2);
    }
    long warm = R * rounds; /* a warm-up region past the timed ones, checked alone */
    res.ok = fn(warm, 1) == region_value(warm, 0) + region_value(warm, 1);
#ifdef REGION_AFTER_WARMUP
    REGION_AFTER_WARMUP(); /* e.g. merino's counters reset: Table I counts the timed regions */
#endif
    for (int k = 0; k < rounds; k++) {
        double t0 = bench_now();
        res.sum += fn((long)k * R, R);
        double dt = bench_now() - t0;
        res.seconds += dt;
        per[k] = dt / (double)R * 1e9;
    }
    uint64_t want = 0;
    for (long r = 0; r < R * rounds; r++) want += region_value(r, 0) + region_value(r, 1);
    res.ok = res.ok && res.sum == want;
    res.ns[1] = bench_median(per, rounds); /* sorts per */
    res.ns[0] = per[(rounds - 1) / 4];
    res.ns[2] = per[(3 * (rounds - 1) + 3) / 4];
    free(per);
    return res;
}

/* The JSON line; spawns_per_region = 1 for the parallel versions, 0 for serial (tasks null). */
static BENCH__UNUSED int region_report(const region_result *res, int spawns_per_region) {
    char extra[200];
    snprintf(extra, sizeof extra,
             "\"region_ns\": %.1f, \"region_ns_p25\": %.1f, \"region_ns_p75\": %.1f, \"rounds\": %d",
             res->ns[1], res->ns[0], res->ns[2], res->rounds);
    int64_t tasks = spawns_per_region ? (int64_t)spawns_per_region * res->R * res->rounds : -1;
    return bench_report_i64x(res->seconds, res->ok, (int64_t)(res->sum & INT64_MAX), tasks, extra);
}

#ifdef __cplusplus
}
#endif
#endif
