/* A program that uses the installed profiled variant (libmerino_prof): built by
 * tests/install/run.cmake through find_package(merino) (merino::prof) and through pkg-config
 * (merino-prof), whose flags must define MERINO_PROFILE=1. Exits 0 when fib(20) is right and the
 * profiler counted its spawns and measured work >= span > 0. */
#include <merino.h>
#include <merino_prof.h>
#include <stdio.h>

MERINO_TASK_1(int, fib, int, n) {
    if (n < 2) return n;
    MERINO_SPAWN(fib, n - 2);
    int a = MERINO_CALL(fib, n - 1);
    int b = MERINO_JOIN(fib);
    return a + b;
}

static unsigned long long spawns(int n) { return n < 2 ? 0 : 1 + spawns(n - 1) + spawns(n - 2); }

int main(void) {
#if !MERINO__PROFILE
    fprintf(stderr, "consumer_prof: the package's flags do not define MERINO_PROFILE=1\n");
    return 1;
#else
    int r = MERINO_RUN(fib, 20);
    merino_prof_report p;
    if (merino_prof_get(&p) != 0) return 1;
    printf("consumer_prof: fib(20) = %d, %llu spawns, parallelism %.1f\n", r, (unsigned long long)p.spawns,
           p.parallelism);
    return r == 6765 && p.spawns == spawns(20) && p.total.work >= p.total.span && p.total.span > 0 ? 0 : 1;
#endif
}
