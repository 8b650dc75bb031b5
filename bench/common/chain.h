/* chain.h — a calibrated amount of work for benchmarks whose tasks should take a given time (the
 * blocks of workloads/dag, the tasks of micro/cancel): a multiply-add chain (bench_chain) the
 * compiler cannot shorten, and its speed on this machine, measured at start-up (not timed). */
#ifndef BENCH_CHAIN_H
#define BENCH_CHAIN_H

#include <stdint.h>
#include <time.h>

#include "bench.h"

/* iters steps of the chain from x. */
static inline uint64_t bench_chain(uint64_t x, uint64_t iters) {
    for (uint64_t i = 0; i < iters; i++) x = x * 6364136223846793005ull + 1442695040888963407ull;
    return x;
}

/* This thread's CPU time in seconds: the calibration must not count time the thread was
 * preempted (a loaded machine would make every block several times too short). */
static inline double bench_thread_cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Steps of bench_chain per microsecond of CPU time: the fastest of three timings of at least
 * 10 ms each. */
static inline double bench_chain_per_us(void) {
    uint64_t n = 1 << 16;
    double best = 0;
    for (int tries = 0; tries < 3;) {
        double t0 = bench_thread_cpu_s();
        bench_sink(bench_chain(1, n));
        double t = bench_thread_cpu_s() - t0;
        if (t <= 0.01) {
            n *= 2;
            continue;
        }
        double rate = (double)n / (t * 1e6);
        if (rate > best) best = rate;
        tries++;
    }
    return best;
}

#endif
