/* A program that uses an installed merino: built by tests/install/run.cmake through
 * find_package(merino) and through pkg-config. Exits 0 when fib(20) == 6765 and a parallel sum of
 * 0..999 is 499500. */
#include <merino.h>
#include <merino_loop.h>
#include <stdio.h>

static int64_t sum_range(int64_t lo, int64_t hi, void *ctx) {
    (void)ctx;
    int64_t s = 0;
    for (int64_t i = lo; i < hi; i++) s += i;
    return s;
}

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
    int64_t s = merino_sum_int64(0, 1000, sum_range, NULL, NULL);
    if (merino_stop() != 0) return 1;
    printf("consumer: fib(20) = %d, sum = %lld\n", r, (long long)s);
    return r == 6765 && s == 499500 ? 0 : 1;
}
