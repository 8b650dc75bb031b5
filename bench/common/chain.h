/* chain.h — a calibrated amount of work for benchmarks whose tasks should take a given time (the
 * blocks of bench/dag, the tasks of bench/cancel): a multiply-add chain (bench_chain) the compiler
 * cannot shorten, and its speed on this machine, measured at start-up (not timed). */
#ifndef BENCH_CHAIN_H
#define BENCH_CHAIN_H

#include <stdint.h>

#include "bench.h"

/* iters steps of the chain from x. */
static inline uint64_t bench_chain(uint64_t x, uint64_t iters) {
    for (uint64_t i = 0; i < iters; i++) x = x * 6364136223846793005ull + 1442695040888963407ull;
    return x;
}

/* Steps of bench_chain per microsecond: timed over at least 10 ms. */
static inline double bench_chain_per_us(void) {
    uint64_t n = 1 << 16;
    for (;;) {
        double t0 = bench_now();
        bench_sink(bench_chain(1, n));
        double t = bench_now() - t0;
        if (t > 0.01) return (double)n / (t * 1e6);
        n *= 2;
    }
}

#endif
