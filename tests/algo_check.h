/* algo_check.h — what the tests of the algorithm layer (test_algo_*) share, on top of check.h:
 * the seed of their random inputs and the worker counts they run at. C11 and C++. */
#ifndef MERINO_TEST_ALGO_CHECK_H
#define MERINO_TEST_ALGO_CHECK_H

#include "check.h"

#include <merino.h>

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

/** Runs the child `names[i]` (see check_run_child) for each i < count and checks that it stops with
 *  one line on stderr that starts with `who` and contains `says[i]`. */
CHECK__UNUSED void algo_check_messages(const char *who, const char *const *names, const char *const *says,
                                       int count) {
    for (int i = 0; i < count; i++) {
        check_set_context("bad input: %s", names[i]);
        check_child c = check_run_child(names[i], NULL, 30);
        CHECK_CHILD(c, !c.exited || c.code != 0);
        CHECK_STR_CONTAINS(c.err, who);
        CHECK_STR_CONTAINS(c.err, says[i]);
        CHECK_EQ_INT(check_count_lines(c.err), 1);
        check_child_free(&c);
    }
}

/** The whole main of an algorithm test: runs the child `check_child_name` names (through `child`,
 *  when given), else seeds the run and calls `setup(seed)` once, then `at_workers(w)` inside a pool
 *  of each of algo_workers' sizes; prints "<test>: ok" at the end. */
CHECK__UNUSED int algo_test_main(int argc, char **argv, const char *test, int (*child)(const char *),
                                 void (*setup)(unsigned long long), void (*at_workers)(unsigned)) {
    const char *name = child ? check_child_name(argc, argv) : NULL;
    if (name) return child(name);
    setup(algo_seed(test));
    for (int w = 0; w < ALGO_WORKER_COUNTS; w++) {
        merino_config cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.workers = algo_workers[w];
        CHECK(merino_start(&cfg) == 0);
        at_workers(algo_workers[w]);
        merino_stop();
    }
    printf("%s: ok\n", test);
    return 0;
}

#endif
