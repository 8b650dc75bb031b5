/* isolate-common.c — arguments and the serial answer of the isolate workload. */
#include <bench.h>
#include "isolate.h"

int isolate_parse(int argc, char **argv, int *workers, int *reps, long *n, long *m, int *isolated) {
    const char *p[3];
    int np = bench_args(argc, argv, workers, reps, p, 3);
    if (np != 3 || (strcmp(p[2], "plain") != 0 && strcmp(p[2], "isolate") != 0)) {
        fprintf(stderr, "usage: %s --workers N [--reps R] n m plain|isolate\n"
                        "  n outer iterations, each an inner parallel loop of m iterations; isolate: the\n"
                        "  inner loop runs in merino::isolate (oneTBB: this_task_arena::isolate)\n",
                argv[0]);
        return 2;
    }
    *n = bench_param_long(p, np, 0, 0);
    *m = bench_param_long(p, np, 1, 0);
    *isolated = strcmp(p[2], "isolate") == 0;
    if (*n < 1 || *m < 1) {
        fprintf(stderr, "%s: n and m must be positive\n", argv[0]);
        return 2;
    }
    return 0;
}

uint64_t isolate_serial(long n, long m) {
    uint64_t s = 0;
    for (long i = 0; i < n; i++)
        for (long j = 0; j < m; j++) s += isolate_value(i, j);
    return s;
}
