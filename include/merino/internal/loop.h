/* merino/internal/loop.h — the inline half of merino_loop.h: merino_for_omp, which must be
 * compiled in the OpenMP program that calls it, and the two exported functions it is made of.
 * INTERNAL: included by merino_loop.h, never directly; not API, changed in any release. */
#ifndef MERINO_INTERNAL_LOOP_H
#define MERINO_INTERNAL_LOOP_H

#ifndef MERINO_LOOP_H
#error "include <merino_loop.h>, not merino/internal/loop.h"
#endif

typedef struct merino_team merino_team;

/* The parts of merino_for_omp (internal; any team of threads could use them): one thread makes the
 * loop for `threads` threads, each thread t in [0, threads) runs its participant with its own body
 * and ctx, and the last to return frees the loop. */
MERINO_API merino_team *merino__team_new(int64_t begin, int64_t end, unsigned threads,
                                         const merino_for_opts *opts);
MERINO_API void merino__team_run(merino_team *team, unsigned thread, merino_for_fn *body, void *ctx);

#if defined(_OPENMP)
#include <omp.h>
static inline void merino_for_omp(int64_t begin, int64_t end, merino_for_fn *body, void *ctx,
                                  const merino_for_opts *opts) {
    merino_team *merino__team;
#pragma omp single copyprivate(merino__team)
    merino__team = merino__team_new(begin, end, (unsigned)omp_get_num_threads(), opts);
    merino__team_run(merino__team, (unsigned)omp_get_thread_num(), body, ctx);
#pragma omp barrier
}
#endif

#endif
