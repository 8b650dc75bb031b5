/* algo_check.h — what the tests of the algorithm layer (test_algo_*) share, on top of check.h:
 * the seed of their random inputs and the worker counts they run at. C11 and C++. */
#ifndef MERINO_TEST_ALGO_CHECK_H
#define MERINO_TEST_ALGO_CHECK_H

#include "check.h"

/* The worker counts every algorithm is checked at: one, the machine's two, an odd count, and more
 * workers than cores. */
#define ALGO_WORKER_COUNTS 4
CHECK__UNUSED const unsigned algo_workers[ALGO_WORKER_COUNTS] = {1, 2, 3, 8};

/** The seed of this run: MERINO_TEST_SEED, else the time and the pid; printed (with the test's name)
 *  and shown with any failure. */
CHECK__UNUSED unsigned long long algo_seed(const char *test) {
    unsigned long long seed;
    if (!check_env_seed(&seed)) seed = (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 20);
    check_set_seed(seed);
    printf("%s: seed %llu (replay with MERINO_TEST_SEED=%llu)\n", test, seed, seed);
    return seed;
}

#endif
