/* isolate.h — shared declarations of the isolate workload (see isolate-serial.c). */
#ifndef BENCH_ISOLATE_H
#define BENCH_ISOLATE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The value of inner iteration j of outer iteration i: a few integer operations (sums are exact,
 * in any order). */
static inline uint64_t isolate_value(int64_t i, int64_t j) {
    uint64_t x = (uint64_t)i * 0x9E3779B97F4A7C15ull + (uint64_t)j;
    for (int k = 0; k < 16; k++) x = x * 6364136223846793005ull + 1442695040888963407ull;
    return x >> 40;
}

/* Parses `n m variant` (variant: plain or isolate; the serial and peer programs take it too).
 * Returns 0, or 2 after printing the usage. */
int isolate_parse(int argc, char **argv, int *workers, int *reps, long *n, long *m, int *isolated);

/* The answer, serially. */
uint64_t isolate_serial(long n, long m);

#ifdef __cplusplus
}
#endif
#endif
