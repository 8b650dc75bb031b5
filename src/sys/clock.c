/* clock.c — monotonic time. */
#include "sys.h"

#include <time.h>

uint64_t mrn_clock_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t mrn_clock_coarse_ms(void) {
    struct timespec ts;
    /* COARSE: the vDSO reads it without a system call, in a few nanoseconds */
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}
