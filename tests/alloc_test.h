/* alloc_test.h — helpers of the allocator's tests (tests/test_alloc_*.c): a small random number
 * generator, a fill pattern that is a function of (object, seed) so that any overwritten byte is
 * caught; and the benchmarks' helpers (ab_rss_kb). Include after check.h. */
#ifndef MERINO_TEST_ALLOC_TEST_H
#define MERINO_TEST_ALLOC_TEST_H

#include "../bench/alloc/alloc-bench.h" /* ab_rss_kb: the resident size in KB */

#include <merino_alloc.h>
#include <pthread.h>
#include <stdint.h>

/* splitmix64: one 64-bit state, good enough and replayable. */
static inline uint64_t at_next(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A size from 1 byte to max, small ones far more often (as programs allocate). */
static inline size_t at_size(uint64_t *s, size_t max) {
    uint64_t r = at_next(s);
    size_t cap = (r & 7) == 0 ? max : (r & 7) < 3 ? 1024 : 128;
    if (cap > max) cap = max;
    return 1 + (size_t)((r >> 8) % cap);
}

/* Fills n bytes at p with a pattern of tag; at_check returns the first wrong offset, or -1. */
static inline void at_fill(void *p, size_t n, uint64_t tag) {
    unsigned char *c = (unsigned char *)p;
    for (size_t i = 0; i < n; i++) c[i] = (unsigned char)(tag + i * 131 + (i >> 8));
}

static inline long at_check(const void *p, size_t n, uint64_t tag) {
    const unsigned char *c = (const unsigned char *)p;
    for (size_t i = 0; i < n; i++)
        if (c[i] != (unsigned char)(tag + i * 131 + (i >> 8))) return (long)i;
    return -1;
}

/* The seed of a randomized test: MERINO_TEST_SEED, else from the clock; printed either way. */
static inline uint64_t at_seed(const char *test) {
    unsigned long long seed;
    if (!check_env_seed(&seed)) seed = (unsigned long long)(check_now() * 1e6) ^ (unsigned long long)getpid();
    printf("%s: seed %llu (replay with MERINO_TEST_SEED=%llu)\n", test, seed, seed);
    fflush(stdout);
    check_set_seed(seed);
    return seed;
}

#endif
