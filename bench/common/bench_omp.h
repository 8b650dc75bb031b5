/* bench_omp.h — the setting of the OpenMP versions (<f>-omp.c): `workers` threads, no dynamic
 * adjustment of the team, and the team started once before the timing. */
#ifndef BENCH_OMP_H
#define BENCH_OMP_H

#include "bench.h" /* first: it sets _GNU_SOURCE */

#include <omp.h>

static BENCH__UNUSED void bench_omp_team(int workers) {
    omp_set_dynamic(0);
    omp_set_num_threads(workers);
#pragma omp parallel
    { bench_sink(omp_get_thread_num()); } /* start the team outside the timing */
}

#endif
