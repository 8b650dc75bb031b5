/* c_task.c — a C task body that calls the plain C++ function cxx_fib (see c_task.h). */
#include "c_task.h"

MERINO_TASK_1(long, c_fib, int, n) {
    if (n < 2) return n;
    MERINO_SPAWN(c_fib, n - 2);
    long a = MERINO_CALL(c_fib, n - 1);
    long b = MERINO_JOIN(c_fib);
    return a + b;
}

MERINO_TASK_IMPL_2(long, c_outer, int, n, int, live_spawn) {
    if (!live_spawn) return cxx_fib(n);
    MERINO_SPAWN(c_fib, n - 2);
    long a = cxx_fib(n - 1);
    long b = MERINO_JOIN(c_fib);
    return a + b;
}
