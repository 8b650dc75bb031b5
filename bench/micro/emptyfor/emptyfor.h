/* emptyfor.h — shared declarations of the emptyfor workload (see emptyfor-serial.c). */
#ifndef BENCH_EMPTYFOR_H
#define BENCH_EMPTYFOR_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct emptyfor_args {
    int workers, reps;
    long n;               /* iterations */
    long grain;           /* 0: the automatic partitioner */
    const char *schedule; /* merino: the schedule the grain is given to (default adaptive) */
} emptyfor_args;

/* Parses `n grain|auto [schedule]`; returns 0, or 2 after printing the usage. */
int emptyfor_parse(int argc, char **argv, emptyfor_args *a);

/* Iterations counted per thread (one cache line each), indexed by the thread's number in its
 * runtime: the body adds its sub-range's length to its thread's counter, so the sum checks that
 * every iteration ran, without an atomic or a shared line in the body. */
#define EMPTYFOR_THREADS 256
typedef struct emptyfor_count {
    uint64_t n __attribute__((aligned(64)));
} emptyfor_count;
extern emptyfor_count emptyfor_counts[EMPTYFOR_THREADS];

/* The body: an empty iteration the compiler keeps (an empty asm), lo..hi, counted for thread t. */
static inline void emptyfor_range(long lo, long hi, unsigned t) {
    for (long i = lo; i < hi; i++) __asm__ volatile("");
    emptyfor_counts[t % EMPTYFOR_THREADS].n += (uint64_t)(hi - lo);
}

/* 1 when the counters add up to n * reps; *total gets the sum. */
int emptyfor_check(long n, int reps, uint64_t *total);

#ifdef __cplusplus
}
#endif
#endif
