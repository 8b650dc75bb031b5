/* fib.c — the smallest merino program: parallel Fibonacci with the C API. */
#include <merino.h>
#include <stdio.h>

MERINO_TASK_1(long, fib, int, n) {
    if (n < 2) return n;
    MERINO_SPAWN(fib, n - 2);          /* fib(n-2) may now run on another worker */
    long a = MERINO_CALL(fib, n - 1);  /* meanwhile compute fib(n-1) here */
    long b = MERINO_JOIN(fib);         /* fib(n-2): run it here unless it was stolen */
    return a + b;
}

int main(void) {
    if (merino_start(NULL) != 0) return 1;  /* MERINO_WORKERS=n sets the worker count */
    long r = MERINO_RUN(fib, 30);
    printf("fib(30) = %ld on %u workers\n", r, merino_workers());
    merino_stop();
    return r == 832040 ? 0 : 1;
}
