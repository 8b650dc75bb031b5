/* cyclcr — the Hood paper's competing program (Blumofe & Papadopoulos, section 6): it consumes a
 * random, time-varying number of processors and logs how many it consumed, so that the processors
 * left to a program run beside it (P_A) can be estimated.
 *
 *   cyclcr [--seed S] [--log FILE] p w W     p subordinate threads; each iteration the main thread
 *                                            releases a random 1..p of them, each performs a random
 *                                            1..w increments of a shared counter (an empty loop of
 *                                            CYCLCR_N1 iterations before each), then reparks; the
 *                                            program ends once the counter reaches W (0: never; it
 *                                            then runs until SIGTERM or SIGINT)
 *   cyclcr --calibrate [seconds]             one thread incrementing alone: prints
 *                                            {"rate": increments per second per processor}
 *   cyclcr --hog N                           N threads spinning for ever (the CPU-bound hogs)
 *
 * Every CYCLCR_N2-th increment writes (counter, monotonic time) into a buffer; at the end the
 * program prints one JSON line {"increments": v, "seconds": t, "log": [[t_ns, v], ...]} on stdout
 * (or into --log FILE), times in CLOCK_MONOTONIC nanoseconds, as the runner reads them. Over any
 * interval [t1, t2] of the log, P_A(cyclcr) = ((v2 - v1) / (t2 - t1)) / rate. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

/* About 50 us of empty loop per increment on a 2-3 GHz core, and a log entry every 20 increments
 * of one thread (~1 ms): the paper's "every few hundred microseconds" and "every few milliseconds",
 * scaled to finer clocks. */
#define CYCLCR_N1 100000
#define CYCLCR_N2 20
#define CYCLCR_LOG_MAX (1 << 20)

static atomic_llong cy_counter;
static atomic_int cy_stop;
static long long cy_log[CYCLCR_LOG_MAX][2];
static atomic_long cy_nlog;

static long long cy_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void cy_increment(void) {
    bench_spin(CYCLCR_N1);
    long long v = atomic_fetch_add_explicit(&cy_counter, 1, memory_order_relaxed) + 1;
    if (v % CYCLCR_N2 == 0) {
        long i = atomic_fetch_add_explicit(&cy_nlog, 1, memory_order_relaxed);
        if (i < CYCLCR_LOG_MAX) {
            cy_log[i][0] = cy_now();
            cy_log[i][1] = v;
        }
    }
}

/* ---- the subordinates: park on a condition variable until released ------------------------------ */

static pthread_mutex_t cy_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cy_go = PTHREAD_COND_INITIALIZER, cy_parked = PTHREAD_COND_INITIALIZER;
static int cy_released, cy_running; /* under cy_lock: tickets handed out, subordinates working */
static long cy_w;

static uint64_t cy_rand(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void *cy_subordinate(void *arg) {
    uint64_t rng = (uintptr_t)arg * 0x9E3779B97F4A7C15ull | 1;
    pthread_mutex_lock(&cy_lock);
    for (;;) {
        while (cy_released == 0 && !atomic_load(&cy_stop)) pthread_cond_wait(&cy_go, &cy_lock);
        if (atomic_load(&cy_stop)) break;
        cy_released--;
        pthread_mutex_unlock(&cy_lock);
        long n = 1 + (long)(cy_rand(&rng) % (uint64_t)cy_w);
        for (long i = 0; i < n && !atomic_load_explicit(&cy_stop, memory_order_relaxed); i++) cy_increment();
        pthread_mutex_lock(&cy_lock);
        if (--cy_running == 0) pthread_cond_signal(&cy_parked);
    }
    pthread_mutex_unlock(&cy_lock);
    return NULL;
}

static void cy_on_signal(int sig) {
    (void)sig;
    atomic_store(&cy_stop, 1);
}

static void *cy_hog(void *arg) {
    (void)arg;
    while (!atomic_load_explicit(&cy_stop, memory_order_relaxed)) bench_spin(1000000);
    return NULL;
}

static int cy_usage(void) {
    fprintf(stderr, "usage: cyclcr [--seed S] [--log FILE] p w W | cyclcr --calibrate [seconds] | cyclcr --hog N\n");
    return 2;
}

int main(int argc, char **argv) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = cy_on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);

    uint64_t seed = 0x2545F4914F6CDD1Dull;
    const char *log_path = NULL;
    int i = 1;
    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
        if (strcmp(argv[i], "--calibrate") == 0) {
            double secs = i + 1 < argc ? atof(argv[i + 1]) : 0.3;
            long long t0 = cy_now(), n = 0;
            while (cy_now() - t0 < (long long)(secs * 1e9)) {
                cy_increment();
                n++;
            }
            printf("{\"rate\": %.3f}\n", (double)n / ((double)(cy_now() - t0) * 1e-9));
            return 0;
        }
        if (strcmp(argv[i], "--hog") == 0 && i + 1 < argc) {
            int n = atoi(argv[i + 1]);
            if (n < 1 || n > 256) return cy_usage();
            pthread_t t[256];
            for (int k = 0; k < n; k++) pthread_create(&t[k], NULL, cy_hog, NULL);
            for (int k = 0; k < n; k++) pthread_join(t[k], NULL);
            return 0;
        }
        if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            seed = strtoull(argv[++i], NULL, 10) * 2 + 1;
        } else if (strcmp(argv[i], "--log") == 0 && i + 1 < argc) {
            log_path = argv[++i];
        } else {
            return cy_usage();
        }
    }
    if (argc - i != 3) return cy_usage();
    long p = atol(argv[i]), W = atol(argv[i + 2]);
    cy_w = atol(argv[i + 1]);
    if (p < 1 || p > 256 || cy_w < 1 || W < 0) return cy_usage();

    pthread_t t[256];
    for (long k = 0; k < p; k++) pthread_create(&t[k], NULL, cy_subordinate, (void *)(uintptr_t)(k + seed));
    long long t0 = cy_now();
    while (!atomic_load(&cy_stop) && (W == 0 || atomic_load(&cy_counter) < W)) {
        int k = 1 + (int)(cy_rand(&seed) % (uint64_t)p);
        pthread_mutex_lock(&cy_lock);
        cy_released = k;
        cy_running = k;
        pthread_cond_broadcast(&cy_go);
        /* timed: a signal ends the run without a broadcast; tickets left then are never taken */
        while (cy_running > 0 && !atomic_load(&cy_stop)) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 10000000;
            if (ts.tv_nsec >= 1000000000) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000;
            }
            pthread_cond_timedwait(&cy_parked, &cy_lock, &ts);
        }
        pthread_mutex_unlock(&cy_lock);
    }
    pthread_mutex_lock(&cy_lock);
    atomic_store(&cy_stop, 1);
    pthread_cond_broadcast(&cy_go);
    pthread_mutex_unlock(&cy_lock);
    for (long k = 0; k < p; k++) pthread_join(t[k], NULL);

    FILE *out = log_path ? fopen(log_path, "w") : stdout;
    if (!out) return 1;
    long n = atomic_load(&cy_nlog);
    if (n > CYCLCR_LOG_MAX) n = CYCLCR_LOG_MAX;
    fprintf(out, "{\"increments\": %lld, \"seconds\": %.6f, \"log\": [", (long long)atomic_load(&cy_counter),
            (double)(cy_now() - t0) * 1e-9);
    for (long k = 0; k < n; k++) fprintf(out, "%s[%lld, %lld]", k ? ", " : "", cy_log[k][0], cy_log[k][1]);
    fprintf(out, "]}\n");
    if (out != stdout) fclose(out);
    return 0;
}
