/* merino_loop.h — parallel loops and reductions for C11 (C++: merino_loop.hpp).
 *
 *     static void scale(int64_t lo, int64_t hi, void *ctx) {   // one sub-range [lo, hi)
 *         double *x = ctx;
 *         for (int64_t i = lo; i < hi; i++) x[i] *= 2;         // plain C: the compiler vectorizes it
 *     }
 *     merino_for(0, n, scale, x, NULL);                        // NULL: the default schedule
 *
 * It includes <merino.h>, so a program that uses loops only needs this header. Loops may be called
 * from anywhere: the main program or any other thread (the call enters the pool as MERINO_RUN
 * does, starting a default pool on first use, and the calling thread works on the loop too), task
 * bodies, plain functions a task calls, the body of another loop (nested loops), at any worker
 * count. A loop returns when every index has been run; the body's writes are visible to the caller
 * then.
 *
 * Indices are int64_t and the range is [begin, end): empty when end <= begin; any begin and end,
 * negative ones included, up to the whole int64_t range. For an unsigned or larger index space,
 * loop over offsets from its start (0 .. count) and add the start in the body; a range of more than
 * INT64_MAX elements needs two loops.
 *
 * Guarantees (docs/loops.md lists the test of each): every index in [begin, end) is passed to the
 * body exactly once, in exactly one sub-range; sub-ranges are never empty; within one sub-range the
 * body sees indices in increasing order; nothing is said about the order of sub-ranges.
 *
 * Names: merino_* and MERINO_* are the API; merino__* is internal. */
#ifndef MERINO_LOOP_H
#define MERINO_LOOP_H

#include "merino.h"

#ifdef __cplusplus
extern "C" {
#endif

/** How the iterations are shared out. docs/loops.md says when to use each. */
typedef enum merino_schedule {
    /** MERINO_SCHEDULE from the environment if set (read once, at the first loop), else AUTO. */
    MERINO_SCHEDULE_DEFAULT = 0,
    /** The default: ADAPTIVE, the schedule that does well whatever the shape of the work
     *  (docs/loops.md). */
    MERINO_SCHEDULE_AUTO,
    /** chunk 0: one contiguous block per worker. chunk k: blocks of k, dealt round-robin to the
     *  workers (OpenMP's static and static,k); which worker runs which share is dynamic. */
    MERINO_SCHEDULE_STATIC,
    /** Chunks of chunk (default 1) taken from one shared counter (OpenMP's dynamic,k). */
    MERINO_SCHEDULE_DYNAMIC,
    /** Chunks of the remaining iterations / workers, at least chunk (default 1), from one shared
     *  counter (OpenMP's guided,k). */
    MERINO_SCHEDULE_GUIDED,
    /** Range stealing: each worker owns a contiguous range and takes chunks of chunk from its front;
     *  an idle one takes the back half of the largest remaining range. chunk 0: about 1/64 of a
     *  worker's share. */
    MERINO_SCHEDULE_STEAL,
    /** Lazy binary splitting: a worker runs chunks of its range one after another (growing from
     *  chunk, default 1) and splits off the back half as a task only when another worker asks for
     *  work. No atomic operation between chunks. */
    MERINO_SCHEDULE_ADAPTIVE,
    /** Interrupt-driven work sharing (Rokos, Gorman & Kelly): each worker owns a contiguous range
     *  and runs it in chunks (growing from chunk, default 1, as adaptive's); an idle worker asks
     *  the one with the most iterations left, with a real-time signal, and its handler gives away
     *  the back half of what lies beyond the chunk in progress. A victim that does not answer
     *  within 200 us (descheduled, say) has the half taken from it with atomics. The signal is
     *  SIGRTMIN+3 unless MERINO_IDWS_SIGNAL names another (a number); merino refuses, with a
     *  message, to replace a disposition the program set on it. It reaches a thread only while
     *  the thread runs the loop's iterations (docs/loops.md lists what a body's system calls
     *  see); a thread that blocks it is not signalled, and answers between chunks instead. */
    MERINO_SCHEDULE_IDWS,
    /** The same donation decided by the victim itself at its next chunk boundary, when it sees a
     *  request: no signal (the ablation that shows what the signal buys). */
    MERINO_SCHEDULE_IDWS_POLL
} merino_schedule;

/** Options of one loop. Zero-initialize it and set what you need (or pass NULL for all defaults). */
typedef struct merino_for_opts {
    merino_schedule schedule; /* MERINO_SCHEDULE_DEFAULT: the environment, else AUTO */
    /** Iterations per chunk (the grain): its meaning depends on the schedule (above). 0: the
     *  schedule's default, or the number given in MERINO_SCHEDULE ("dynamic,16"). Must be >= 0. */
    int64_t chunk;
    /** Nonzero: the body is called with the same sub-ranges, and a reduction combines them in the
     *  same tree, whatever the worker count and the schedule: merino_reduce gives the same bits
     *  every time. The range is cut into at most MERINO_LEAVES equal leaves (fixed by begin and
     *  end only); the schedule shares out leaves. */
    int deterministic;
    /** Optional early exit: once *stop is nonzero (set by a body, or by any thread), sub-ranges
     *  not yet begun are skipped and the loop returns as soon as the running ones have returned.
     *  Which indices ran is then unspecified (each at most once). Read with relaxed atomic loads:
     *  set it with __atomic_store_n(stop, 1, __ATOMIC_RELAXED) or a C11 atomic_int store. NULL:
     *  the loop always runs to the end. */
    const int *stop;
    /** Optional stop in serial order: the sub-ranges that begin at or after index *stop_at are
     *  skipped, and those that begin before it still run (a search for the first match, or a body
     *  that failed, as docs/guarantees.md "Failures in serial order" describes). Lower it with
     *  merino_for_stop_at (an atomic minimum, from any thread); it starts at any value at or past
     *  the end (INT64_MAX, say). For merino_for_step it counts iterations (0 is the first). NULL:
     *  no such stop. (The C++ loops use it to cancel the iterations after a throw.) */
    const int64_t *stop_at;
    /** At most this many workers run the loop's iterations at a time (the caller's included); the
     *  rest of the pool serves other work. 0: no limit (the pool's workers). Must be >= 0. */
    int max_workers;
} merino_for_opts;

/** Lowers *stop_at to index when it is above it (a relaxed atomic minimum: the stop only decides
 *  what is skipped; the bodies' writes reach the caller through the loop's return). */
static inline void merino_for_stop_at(int64_t *stop_at, int64_t index) {
    int64_t cur = __atomic_load_n(stop_at, __ATOMIC_RELAXED); /* relaxed: see above */
    while (index < cur &&
           !__atomic_compare_exchange_n(stop_at, &cur, index, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
}

/** The most leaves a deterministic loop cuts its range into. */
#define MERINO_LEAVES 1024

/** The body of a loop: runs the indices [lo, hi) (lo < hi), with the ctx given to merino_for. It
 *  must return: leaving it by longjmp (or pthread_exit) is undefined, as for a task body. */
typedef void merino_for_fn(int64_t lo, int64_t hi, void *ctx);

/** Runs body over [begin, end) in sub-ranges, on the workers of the pool; returns when all have
 *  run. opts may be NULL. A bad option (a negative chunk, an unknown schedule) or a malformed
 *  MERINO_SCHEDULE stops the program with a message naming it and the accepted values. */
MERINO_API void merino_for(int64_t begin, int64_t end, merino_for_fn *body, void *ctx,
                           const merino_for_opts *opts);

/** The body of a stepped loop: runs the count (>= 1) indices first, first + step, ...,
 *  first + (count - 1) * step, with the ctx given to merino_for_step. Every one of them is in the
 *  loop's range, so `first + k * step` for k < count never overflows. */
typedef void merino_for_step_fn(int64_t first, int64_t count, int64_t step, void *ctx);

/** The loop `for (i = begin; i < end; i += step)` (step > 0), or `for (i = begin; i > end;
 *  i += step)` (step < 0), run as merino_for runs [begin, end): body gets runs of consecutive
 *  iterations, every iteration exactly once. Any bounds and steps, INT64_MIN .. INT64_MAX: no
 *  index past the range is ever computed. opts as merino_for's (stop_at counts iterations). A
 *  step of 0 stops the program with a message. */
MERINO_API void merino_for_step(int64_t begin, int64_t end, int64_t step, merino_for_step_fn *body, void *ctx,
                                const merino_for_opts *opts);

/* ---- reductions ---------------------------------------------------------------------------------- */

/** A reduction: partial values of `size` bytes (at most MERINO_REDUCE_MAX_SIZE; they live on the
 *  C stack of the workers, 16-byte aligned), a body that folds a sub-range into a partial, and an
 *  associative combine.
 *
 *  Each partial starts as a copy of `identity` (or is made by init, when given) and the body folds
 *  into it the indices of each sub-range it is given: acc = acc (+) f(lo) (+) ... (+) f(hi - 1).
 *  combine(acc, right, ctx) sets acc = acc (+) right, where right comes after acc in iteration
 *  order. Plain reductions need a commutative combine too (the partials of dynamic, guided, steal,
 *  idws, idws-poll and static,k mix sub-ranges from anywhere in the range); deterministic ones (opts.deterministic)
 *  combine in iteration order only and need associativity alone. destroy, when given, is called
 *  on each partial that has been combined into another (for partials that own memory). */
typedef struct merino_reducer {
    size_t size;
    const void *identity; /* size bytes; may be NULL when init is given */
    void (*body)(int64_t lo, int64_t hi, void *acc, void *ctx);
    void (*combine)(void *acc, const void *right, void *ctx);
    void (*init)(void *acc, void *ctx);    /* optional: makes an identity partial in acc */
    void (*destroy)(void *acc, void *ctx); /* optional: ends a partial that was combined */
} merino_reducer;

#define MERINO_REDUCE_MAX_SIZE 1024

/** Reduces [begin, end) with r into *result (size bytes, which merino initializes as a partial:
 *  an empty range gives the identity). opts may be NULL; with opts->deterministic the bits of the
 *  result do not depend on the worker count or the schedule. Bad arguments stop the program with
 *  a message, as merino_for. */
MERINO_API void merino_reduce(int64_t begin, int64_t end, void *result, const merino_reducer *r,
                              void *ctx, const merino_for_opts *opts);

/** The sum over [begin, end) of body(lo, hi, ctx), each the partial sum of one sub-range, as a
 *  double: merino_reduce with + and the identity 0. */
MERINO_API double merino_sum_double(int64_t begin, int64_t end,
                                    double (*body)(int64_t lo, int64_t hi, void *ctx), void *ctx,
                                    const merino_for_opts *opts);

/** The same with int64_t partial sums (which wrap around on overflow, as unsigned arithmetic). */
MERINO_API int64_t merino_sum_int64(int64_t begin, int64_t end,
                                    int64_t (*body)(int64_t lo, int64_t hi, void *ctx), void *ctx,
                                    const merino_for_opts *opts);

/* ---- loops on the threads of an OpenMP parallel region ------------------------------------------ */

/** merino_for_omp(begin, end, body, ctx, opts): the loop `#pragma omp for` would run, called by
 *  EVERY thread of an enclosing `#pragma omp parallel` region (as an orphaned `omp for` is), run on
 *  the region's threads only, and balanced by interrupt-driven work sharing (the IDWS paper's
 *  OpenMP use): each thread starts with an equal block of [begin, end) and an idle thread asks the
 *  one with the most left to give it half, with a real-time signal (see MERINO_SCHEDULE_IDWS).
 *
 *      #pragma omp parallel                       // was: #pragma omp parallel
 *      {                                          //      {
 *          double mine = 0;                       //          double mine = 0;
 *          merino_for_omp(0, n, body, &mine, NULL); //        #pragma omp for
 *          #pragma omp atomic                     //          for (long i = 0; i < n; i++) ...
 *          total += mine;                         //          ...
 *      }
 *
 *  - begin, end and opts are read on one thread of the team: pass the same values on every thread.
 *    body and ctx are each thread's own: a thread runs the sub-ranges it is given (its own block,
 *    and what it is donated) with the body and ctx it passed, so ctx may point to thread-private
 *    data (a partial sum, as above).
 *  - It returns on every thread when every index has run (a barrier ends it, as `omp for` without
 *    `nowait`); the bodies' writes are visible to every thread then.
 *  - Schedules: opts->schedule idws (the default: also for auto, adaptive and MERINO_SCHEDULE_DEFAULT
 *    when MERINO_SCHEDULE says auto or adaptive), idws-poll, static, static,K, dynamic, guided and
 *    steal. Lazy splitting needs merino's own workers, which a region's threads are not.
 *    `deterministic` fixes the sub-ranges; `stop` works as in merino_for.
 *  - Called outside a parallel region (a team of one thread), it is one call of the body.
 *  - Cost over `omp for`: one more barrier per loop (the loop's state is made by one thread and
 *    handed to the others by `omp single copyprivate`).
 *  Defined only where the including file is compiled with OpenMP (_OPENMP: gcc/clang -fopenmp); the
 *  library itself needs no OpenMP. */
#if defined(_OPENMP)
static inline void merino_for_omp(int64_t begin, int64_t end, merino_for_fn *body, void *ctx,
                                  const merino_for_opts *opts);
#endif

#include "merino/internal/loop.h" /* merino_for_omp's inline definition */

/* ---- schedules as text --------------------------------------------------------------------------- */

/** Parses a schedule as MERINO_SCHEDULE accepts it: "auto", "adaptive", "adaptive,K", "static",
 *  "static,K", "dynamic", "dynamic,K", "guided", "guided,K", "steal", "steal,K", "idws", "idws,K",
 *  "idws-poll" or "idws-poll,K" (K a positive decimal number of iterations), into out->schedule and out->chunk (0 when no K); other fields
 *  are left alone. Returns 0, or -1 with a message in merino_last_error() (not printed). */
MERINO_API int merino_schedule_parse(const char *text, merino_for_opts *out);

/** The name of a schedule ("auto", "static", ...), for messages and benchmarks. */
MERINO_API const char *merino_schedule_name(merino_schedule s);

#ifdef __cplusplus
}
#endif

#endif /* MERINO_LOOP_H */
