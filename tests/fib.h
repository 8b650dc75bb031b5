/* fib.h — the fib task most tests run (one task per call, the smaller half spawned) and the value
 * it must return. Include after check.h and merino.h (or merino.hpp). */
#ifndef MERINO_TESTS_FIB_H
#define MERINO_TESTS_FIB_H
#include <stdint.h>

/* fib(n) by iteration: the expected value, independent of the code under test. */
static inline int64_t serial_fib(int n) {
    int64_t a = 0, b = 1;
    for (int i = 0; i < n; i++) {
        int64_t t = a + b;
        a = b;
        b = t;
    }
    return a;
}

#ifndef __cplusplus /* the C++ tests write their fib with merino::fork_join */
MERINO_TASK_1(int64_t, fib, int, n) {
    if (n < 2) return n;
    MERINO_SPAWN(fib, n - 2);
    int64_t a = MERINO_CALL(fib, n - 1);
    int64_t b = MERINO_JOIN(fib);
    return a + b;
}
#endif

#endif
