/* A program that uses an installed merino: built by tests/install/run.cmake through
 * find_package(merino) and through pkg-config. Exits 0 when fib(20) == 6765. */
#include <merino.h>
#include <stdio.h>

MERINO_TASK_1(int, fib, int, n) {
    if (n < 2) return n;
    MERINO_SPAWN(fib, n - 2);
    int a = MERINO_CALL(fib, n - 1);
    int b = MERINO_JOIN(fib);
    return a + b;
}

int main(void) {
    if (merino_start(NULL) != 0) return 1;
    int r = MERINO_RUN(fib, 20);
    if (merino_stop() != 0) return 1;
    printf("consumer: fib(20) = %d\n", r);
    return r == 6765 ? 0 : 1;
}
