/* graph_mix.h — the hash the graph layer's tests build their random trees and values from
 * (splitmix64's finalizer: every bit of the input affects every bit of the output). C and C++. */
#ifndef MERINO_TEST_GRAPH_MIX_H
#define MERINO_TEST_GRAPH_MIX_H

#include <stdint.h>

static inline uint64_t mix(uint64_t x) {
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 31;
    return x;
}

#endif
