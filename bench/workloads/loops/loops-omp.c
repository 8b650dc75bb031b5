/* loops-omp.c — the loops workload with an OpenMP worksharing loop, schedule(runtime): the third
 * param (static, static,K, dynamic,K, guided[,K]) is set with omp_set_schedule, the same setting
 * OMP_SCHEDULE makes; "runtime" takes OMP_SCHEDULE itself. See loops-serial.c. */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "loops.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "kind[,chunk]" into omp_set_schedule; "runtime" leaves the schedule to OMP_SCHEDULE. 0 on
 * success. */
static int loops_omp_schedule(const char *text) {
    if (strcmp(text, "runtime") == 0) return 0;
    static const struct {
        const char *name;
        omp_sched_t kind;
    } kinds[] = {{"static", omp_sched_static}, {"dynamic", omp_sched_dynamic}, {"guided", omp_sched_guided}};
    const char *comma = strchr(text, ',');
    size_t len = comma ? (size_t)(comma - text) : strlen(text);
    int chunk = comma ? atoi(comma + 1) : 0;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        if (strlen(kinds[k].name) == len && strncmp(text, kinds[k].name, len) == 0 && (!comma || chunk > 0)) {
            omp_set_schedule(kinds[k].kind, chunk);
            return 0;
        }
    fprintf(stderr, "loops-omp: schedule '%s': use static, static,K, dynamic,K, guided[,K] or runtime "
                    "(OMP_SCHEDULE)\n", text);
    return -1;
}

int main(int argc, char **argv) {
    loops_args a;
    if (loops_parse(argc, argv, &a)) return 2;
    if (loops_omp_schedule(a.schedule) != 0) return 2;
    unsigned char *states = loops_states(a.dist, a.n);
    double *out = malloc(sizeof(double) * (size_t)a.n);
    if (!out) return 2;
    omp_set_num_threads(a.workers);
#pragma omp parallel
    { /* start the team outside the timing */
    }

    double t0 = bench_now();
    for (int r = 0; r < a.reps; r++) {
#pragma omp parallel for schedule(runtime)
        for (long i = 0; i < a.n; i++) out[i] = loops_work(states, i);
    }
    double t1 = bench_now();

    double sum;
    int ok = loops_check(states, out, a.n, &sum);
    return bench_report_f64(t1 - t0, ok, sum, -1);
}
