/* idle-common.c — the loop of the idle-cost experiment (idle.h), linked into every version. */
#include "idle.h"

#include <limits.h>
#include <stdatomic.h>
#include <sys/resource.h>

static _Thread_local int idle_is_submitter;
static long idle_iters_per_task;
static atomic_llong idle_busy_ns, idle_tasks_run;
static atomic_llong idle_first_ns, idle_other_ns; /* this region's first starts (ns since the epoch of bench_ns) */

static long long idle_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void idle_min(atomic_llong *slot, long long v) {
    long long cur = atomic_load_explicit(slot, memory_order_relaxed);
    while (v < cur && !atomic_compare_exchange_weak_explicit(slot, &cur, v, memory_order_relaxed, memory_order_relaxed)) {
    }
}

void idle_task(void) {
    long long t0 = idle_ns();
    idle_min(&idle_first_ns, t0);
    if (!idle_is_submitter) idle_min(&idle_other_ns, t0);
    if (idle_iters_per_task > 0) {
        bench_spin(idle_iters_per_task);
        atomic_fetch_add_explicit(&idle_busy_ns, idle_ns() - t0, memory_order_relaxed);
    }
    atomic_fetch_add_explicit(&idle_tasks_run, 1, memory_order_relaxed);
}

static double idle_cpu_s(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec * 1e-6;
}

static int idle_cmp(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}

/* The q-quantile of v[0..n) (sorted in place), in microseconds; -1 when n == 0. */
static double idle_quantile_us(long long *v, long n, double q) {
    if (n == 0) return -1;
    qsort(v, (size_t)n, sizeof *v, idle_cmp);
    long i = (long)(q * (double)(n - 1) + 0.5);
    return (double)v[i] * 1e-3;
}

/* Iterations of bench_spin per microsecond, over ~20 ms. */
static double idle_calibrate(void) {
    long n = 1000000;
    double t0 = bench_now();
    bench_spin(n);
    double t = bench_now() - t0;
    while (t < 0.02) {
        n *= 2;
        t0 = bench_now();
        bench_spin(n);
        t = bench_now() - t0;
    }
    return (double)n / (t * 1e6);
}

int idle_main(int argc, char **argv, void (*start)(int workers), void (*region)(int n)) {
    const char *p[4];
    int workers, reps;
    int np = bench_args(argc, argv, &workers, &reps, p, 4);
    if (np < 3) bench_usage_exit(argv[0], "period_us region_us seconds [tasks]");
    long period_us = bench_param_long(p, np, 0, 1000);
    long region_us = bench_param_long(p, np, 1, 0);
    double seconds = bench_param_double(p, np, 2, 1.0);
    long tasks = bench_param_long(p, np, 3, workers);
    if (period_us < 1 || region_us < 0 || seconds <= 0 || workers > 64 || tasks < 1 || tasks > 64)
        bench_usage_exit(argv[0], "period_us region_us seconds [tasks]   (period >= 1, region >= 0, workers <= 64, "
                                  "1 <= tasks <= 64)");
    idle_is_submitter = 1;
    idle_iters_per_task = region_us > 0 ? (long)(idle_calibrate() * (double)region_us / tasks) : 0;
    start(workers);
    region(workers); /* the threads are up before the loop */

    long cap = (long)(seconds * 1e6 / (double)period_us) + 2;
    long long *first = malloc(sizeof *first * (size_t)cap), *other = malloc(sizeof *other * (size_t)cap);
    if (!first || !other) return 2;
    atomic_store(&idle_busy_ns, 0);
    atomic_store(&idle_tasks_run, 0);
    long regions = 0, nother = 0;
    double c0 = idle_cpu_s();
    long long t_start = idle_ns(), t_end = t_start + (long long)(seconds * 1e9), next = t_start;
    while (regions < cap) {
        next += period_us * 1000LL;
        if (next >= t_end) break;
        struct timespec ts = {(time_t)(next / 1000000000LL), (long)(next % 1000000000LL)};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0) {
        }
        atomic_store_explicit(&idle_first_ns, LLONG_MAX, memory_order_relaxed);
        atomic_store_explicit(&idle_other_ns, LLONG_MAX, memory_order_relaxed);
        long long t_submit = idle_ns();
        region((int)tasks);
        first[regions] = atomic_load_explicit(&idle_first_ns, memory_order_relaxed) - t_submit;
        long long o = atomic_load_explicit(&idle_other_ns, memory_order_relaxed);
        if (o != LLONG_MAX) other[nother++] = o - t_submit;
        regions++;
        long long now = idle_ns();
        if (next < now) next = now; /* a region longer than the period: the next one follows it */
    }
    double wall = (double)(idle_ns() - t_start) * 1e-9;
    double cpu = idle_cpu_s() - c0;
    double busy = (double)atomic_load(&idle_busy_ns) * 1e-9;
    int ok = atomic_load(&idle_tasks_run) == (long long)regions * tasks;
    char extra[512];
    char ratio[32];
    if (busy > 0)
        snprintf(ratio, sizeof ratio, "%.4f", cpu / busy);
    else
        snprintf(ratio, sizeof ratio, "null");
    double f_med = idle_quantile_us(first, regions, 0.5), f_99 = idle_quantile_us(first, regions, 0.99);
    double o_med = idle_quantile_us(other, nother, 0.5), o_99 = idle_quantile_us(other, nother, 0.99);
    snprintf(extra, sizeof extra,
             "\"cpu_s\": %.6f, \"busy_s\": %.6f, \"cpu_over_busy\": %s, \"idle_cpus\": %.5f, "
             "\"first_med_us\": %.2f, \"first_p99_us\": %.2f, \"other_med_us\": %.2f, \"other_p99_us\": %.2f, "
             "\"other_regions\": %ld, \"period_us\": %ld, \"region_us\": %ld, \"tasks\": %ld",
             cpu, busy, ratio, (cpu - busy) / wall, f_med, f_99, o_med, o_99, nother, period_us, region_us, tasks);
    free(first);
    free(other);
    return bench_report_i64x(wall, ok, regions, (int64_t)regions * tasks, extra);
}
