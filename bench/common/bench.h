/* bench.h — shared helpers for merino's benchmark programs (header-only, C11 and C++).
 *
 *   timing        bench_now()                 seconds from CLOCK_MONOTONIC
 *   cycles        bench_rdtsc(), bench_tsc_hz() the time-stamp counter, calibrated against
 *                                             clock_gettime (once per process, ~20 ms)
 *   arguments     bench_args()                --workers N, --reps R, positional params
 *   output        bench_report_*()            the one JSON line of the contract (bench/README.md)
 *   counters      BENCH_MERINO_STATS()        merino's spawns and steals in the JSON line, in the
 *                                             <w>-merino-stats build (-DMERINO_STATS)
 *   work          bench_spin(L)               an empty loop of L iterations the compiler keeps
 *
 * Every program: ./<w>-<system> --workers N [--reps R] <params...>; prints exactly one line
 *   {"seconds": S, "check": "ok"|"FAIL", "result": X, "tasks": N|null}
 * and exits 0 (ok), 1 (FAIL) or 2 (bad arguments). `--tsc-hz` prints {"tsc_hz": F} and exits.
 */
#ifndef MERINO_BENCH_H
#define MERINO_BENCH_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define BENCH__UNUSED __attribute__((unused))
#define BENCH__NOINLINE __attribute__((noinline))
#else
#define BENCH__UNUSED
#define BENCH__NOINLINE
#endif

/* ---- time ----------------------------------------------------------------------------------- */

static inline double bench_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/** The time-stamp counter (x86 rdtsc, aarch64 cntvct_el0); elsewhere nanoseconds. */
static inline uint64_t bench_rdtsc(void) {
#if defined(__x86_64__) || defined(__i386__)
    return (uint64_t)__rdtsc();
#elif defined(__aarch64__)
    uint64_t v;
    __asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(v));
    return v;
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

/** TSC ticks per second, measured once against CLOCK_MONOTONIC over ~20 ms (mean of 3). */
static BENCH__UNUSED double bench_tsc_hz(void) {
    static double hz = 0;
    if (hz > 0) return hz;
    double best = 0;
    for (int i = 0; i < 3; i++) {
        double t0 = bench_now();
        uint64_t c0 = bench_rdtsc();
        double t1;
        do t1 = bench_now(); while (t1 - t0 < 0.007);
        uint64_t c1 = bench_rdtsc();
        double f = (double)(c1 - c0) / (t1 - t0);
        best += f / 3.0; /* the three agree to < 0.1% on an invariant TSC */
    }
    hz = best;
    return hz;
}

/* ---- work the compiler cannot remove -------------------------------------------------------- */

/** An empty loop of n iterations, no memory references (~1 cycle per iteration). On x86-64 it is
 *  written in asm and starts on a 32-byte boundary, so every copy the compiler inlines runs at the
 *  same speed: in C, gcc aligned only the copies it guessed hot, and the same leaf ran up to 1.3x
 *  slower in one executable than in another (stress, merino vs serial) for its placement alone.
 *  Elsewhere a C loop the asm keeps the compiler from removing or collapsing. */
static inline void bench_spin(long n) {
#if defined(__x86_64__)
    if (n > 0) __asm__ volatile(".p2align 5\n1:\n\tsubq $1, %0\n\tjnz 1b" : "+r"(n) : : "cc");
#else
    for (long i = 0; i < n; i++) __asm__ volatile("" : "+r"(i));
#endif
}

/** A pause for spin-wait loops (x86 pause, aarch64 yield): lets the other hardware thread run. */
static inline void bench_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

/** Keep a value alive (the compiler must assume it is used). */
#define bench_sink(x) __asm__ volatile("" : : "r"(x) : "memory")

/* ---- arguments ------------------------------------------------------------------------------- */

static BENCH__UNUSED void bench_usage_exit(const char *argv0, const char *usage) {
    fprintf(stderr, "usage: %s --workers N [--reps R] %s\n", argv0, usage ? usage : "");
    exit(2);
}

/** Parses --workers N (or --workers=N), --reps R (or --reps=R) anywhere on the line; the other
 *  arguments are the positional params, stored in params[0..] in order (at most max). Returns their
 *  number. workers defaults to 1, reps to 1. `--tsc-hz` prints the TSC frequency and exits 0. */
static BENCH__UNUSED int bench_args(int argc, char **argv, int *workers, int *reps, const char **params,
                                    int max) {
    int np = 0;
    if (workers) *workers = 1;
    if (reps) *reps = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = NULL;
        int *dst = NULL;
        if (strcmp(a, "--workers") == 0 || strcmp(a, "-w") == 0 || strcmp(a, "--reps") == 0 ||
            strcmp(a, "-r") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "%s: %s needs a value\n", argv[0], a);
                exit(2);
            }
            dst = (a[2] == 'w' || a[1] == 'w') ? workers : reps;
            val = argv[++i];
        } else if (strncmp(a, "--workers=", 10) == 0) {
            dst = workers;
            val = a + 10;
        } else if (strncmp(a, "--reps=", 7) == 0) {
            dst = reps;
            val = a + 7;
        } else if (strcmp(a, "--tsc-hz") == 0) {
            printf("{\"tsc_hz\": %.0f}\n", bench_tsc_hz());
            exit(0);
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fprintf(stderr, "usage: %s --workers N [--reps R] <params...>\n", argv[0]);
            exit(2);
        } else {
            if (np < max) params[np] = a;
            np++;
            continue;
        }
        char *end;
        long v = strtol(val, &end, 10);
        if (*end != '\0' || v < 1 || v > 1000000000L) {
            fprintf(stderr, "%s: bad value '%s' for %s (a positive integer)\n", argv[0], val, a);
            exit(2);
        }
        if (dst) *dst = (int)v;
    }
    if (np > max) {
        fprintf(stderr, "%s: too many parameters (%d, at most %d)\n", argv[0], np, max);
        exit(2);
    }
    return np;
}

/** params[i] as an integer, or def when there are not that many params. Exits 2 on garbage. */
static BENCH__UNUSED long bench_param_long(const char **params, int np, int i, long def) {
    if (i >= np) return def;
    char *end;
    long v = strtol(params[i], &end, 10);
    if (*end != '\0' || end == params[i]) {
        fprintf(stderr, "bad parameter %d: '%s' (an integer)\n", i + 1, params[i]);
        exit(2);
    }
    return v;
}

static BENCH__UNUSED double bench_param_double(const char **params, int np, int i, double def) {
    if (i >= np) return def;
    char *end;
    double v = strtod(params[i], &end);
    if (*end != '\0' || end == params[i]) {
        fprintf(stderr, "bad parameter %d: '%s' (a number)\n", i + 1, params[i]);
        exit(2);
    }
    return v;
}

/* ---- output ---------------------------------------------------------------------------------- */

/** More JSON fields for the line every bench_report_* prints, e.g. "\"spawns\": 12" (comma
 *  separated, no leading comma); bench_add_field_u64 appends to it. */
static BENCH__UNUSED char bench_extra_fields[512];

static BENCH__UNUSED void bench_add_field_u64(const char *name, uint64_t v) {
    size_t n = strlen(bench_extra_fields);
    snprintf(bench_extra_fields + n, sizeof bench_extra_fields - n, "%s\"%s\": %" PRIu64,
             n ? ", " : "", name, v);
}

/* merino programs: BENCH_MERINO_STATS() after the timed kernel, before merino_stop(). In the
 * <w>-merino-stats build (compiled with -DMERINO_STATS, so that merino.h's inline spawn counts) it
 * adds "spawns", "steals", "leapfrogs" and "publishes" from merino_stats_get (counted since
 * merino_start) to the JSON line, for bench/run's Table I; in every other build it does nothing.
 * A macro, so that merino.h may be included before or after this file. */
#ifdef MERINO_STATS
#define BENCH_MERINO_STATS()                                                                       \
    do {                                                                                           \
        merino_stats bench__st;                                                                    \
        merino_stats_get(&bench__st);                                                              \
        bench_add_field_u64("spawns", bench__st.spawns);                                           \
        bench_add_field_u64("steals", bench__st.steals);                                           \
        bench_add_field_u64("leapfrogs", bench__st.leapfrogs);                                     \
        bench_add_field_u64("publishes", bench__st.publishes);                                     \
    } while (0)
#else
#define BENCH_MERINO_STATS() ((void)0)
#endif

/* The end of the JSON line: tasks, the extra fields, the newline. Returns the exit code. */
static BENCH__UNUSED int bench__report_end(int ok, int64_t tasks, const char *extra) {
    printf(", \"tasks\": ");
    if (tasks < 0)
        printf("null");
    else
        printf("%" PRId64, tasks);
    if (extra && *extra) printf(", %s", extra);
    if (bench_extra_fields[0]) printf(", %s", bench_extra_fields);
    printf("}\n");
    fflush(stdout);
    return ok ? 0 : 1;
}

/** Prints the JSON line; extra is NULL or more fields, e.g. "\"cycles_per_task\": 3.1" (no leading
 *  comma). Returns the exit code (0 ok, 1 FAIL). */
static BENCH__UNUSED int bench_report_i64x(double seconds, int ok, int64_t result, int64_t tasks,
                                          const char *extra) {
    printf("{\"seconds\": %.6f, \"check\": \"%s\", \"result\": %" PRId64, seconds, ok ? "ok" : "FAIL",
           result);
    return bench__report_end(ok, tasks, extra);
}

static BENCH__UNUSED int bench_report_i64(double seconds, int ok, int64_t result, int64_t tasks) {
    return bench_report_i64x(seconds, ok, result, tasks, NULL);
}

static BENCH__UNUSED int bench_report_f64(double seconds, int ok, double result, int64_t tasks) {
    printf("{\"seconds\": %.6f, \"check\": \"%s\", \"result\": %.17g", seconds, ok ? "ok" : "FAIL",
           result);
    return bench__report_end(ok, tasks, NULL);
}

/** result is printed as a JSON string (no escaping: keep it to letters, digits and punctuation
 *  other than quotes and backslashes). */
static BENCH__UNUSED int bench_report_str(double seconds, int ok, const char *result, int64_t tasks) {
    printf("{\"seconds\": %.6f, \"check\": \"%s\", \"result\": \"%s\"", seconds, ok ? "ok" : "FAIL",
           result);
    return bench__report_end(ok, tasks, NULL);
}

/* ---- misc ------------------------------------------------------------------------------------ */

static int bench__cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/** Median of v[0..n) (sorts v in place). */
static BENCH__UNUSED double bench_median(double *v, int n) {
    if (n <= 0) return 0;
    qsort(v, (size_t)n, sizeof *v, bench__cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#ifdef __cplusplus
}
#endif

#endif /* MERINO_BENCH_H */
