/* emptyfor-common.c — arguments and the check of the emptyfor workload (see emptyfor-serial.c). */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "emptyfor.h"

#include <string.h>

emptyfor_count emptyfor_counts[EMPTYFOR_THREADS];

int emptyfor_parse(int argc, char **argv, emptyfor_args *a) {
    const char *p[3];
    int np = bench_args(argc, argv, &a->workers, &a->reps, p, 3);
    a->n = bench_param_long(p, np, 0, 0);
    a->grain = np >= 2 && strcmp(p[1], "auto") != 0 ? bench_param_long(p, np, 1, 0) : 0;
    a->schedule = np >= 3 ? p[2] : "adaptive";
    if (np < 2 || a->n < 1 || a->grain < 0 || (a->grain == 0 && strcmp(p[1], "auto") != 0)) {
        bench_usage_exit(argv[0], "n grain|auto [schedule]");
        return 2;
    }
    return 0;
}

int emptyfor_check(long n, int reps, uint64_t *total) {
    uint64_t s = 0;
    for (int t = 0; t < EMPTYFOR_THREADS; t++) s += emptyfor_counts[t].n;
    *total = s;
    return s == (uint64_t)n * (uint64_t)reps;
}
