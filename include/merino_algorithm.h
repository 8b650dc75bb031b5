/* merino_algorithm.h — parallel algorithms for C11 on merino's workers (C++: merino_algorithm.hpp).
 *
 *     static int by_value(const void *a, const void *b) {
 *         double x = *(const double *)a, y = *(const double *)b;
 *         return (x > y) - (x < y);
 *     }
 *     merino_sort(v, n, sizeof(double), by_value);            // qsort's contract, in parallel
 *
 * Every call may come from anywhere: the main program or any other thread (the call enters the pool
 * as MERINO_RUN does, starting a default pool on first use, and the calling thread works too), task
 * bodies, plain functions a task calls, loop bodies. docs/algorithms.md has the guarantees and the
 * test of each.
 *
 * Names: merino_* and MERINO_* are the API; merino__* is internal. */
#ifndef MERINO_ALGORITHM_H
#define MERINO_ALGORITHM_H

#include "merino.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- sorting ------------------------------------------------------------------------------------- */

/** Sorts the n elements of size bytes at base into ascending order by cmp, as qsort does, on the
 *  workers of the pool: cmp(a, b) returns a negative number, zero or a positive number as the
 *  element at a is less than, equal to or greater than the one at b, consistently (a total
 *  preorder), and is only ever given pointers to elements of the array. NOT stable: equal elements
 *  end in any order. cmp is called from several threads at once: it must not write shared state.
 *  O(n log n) comparisons whatever the input. Ranges of fewer than 4096 elements are sorted on the
 *  calling thread without entering the pool. base NULL (with n > 1), size 0 or cmp NULL stop the
 *  program with a message. */
MERINO_API void merino_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

/* ---- scans ---------------------------------------------------------------------------------------- */

/** A scan (prefix sum) over the indices [begin, end): running sums of `size` bytes (at most
 *  MERINO_SCAN_MAX_SIZE; they live on the workers' C stacks, 16-byte aligned), a body that folds a
 *  sub-range into a running sum, and an associative combine. The body is oneTBB's scan body:
 *
 *    body(lo, hi, sum, final, ctx): sum = sum (+) x[lo] (+) ... (+) x[hi - 1]. With final nonzero,
 *      *sum holds, on entry, the fold of every index before lo (the identity when lo is begin), and
 *      the body also writes the outputs of [lo, hi) (out[i] = the fold up to i, or before i for an
 *      exclusive scan). With final zero (a pre-scan, from the identity) it writes nothing.
 *    combine(left, right, ctx): left = left (+) right, where right's indices follow left's.
 *
 *  Each index is folded into a final sum exactly once, in one final call, and at most once more in a
 *  pre-scan. Each running sum starts as a copy of identity, or is made by init when given; destroy,
 *  when given, ends one (for sums that own memory; the C++ interface uses both). combine(a,
 *  identity) must leave a unchanged. */
typedef struct merino_scanner {
    size_t size;
    const void *identity; /* size bytes; may be NULL when init is given */
    void (*body)(int64_t lo, int64_t hi, void *sum, int final, void *ctx);
    void (*combine)(void *left, const void *right, void *ctx);
    void (*init)(void *sum, void *ctx);    /* optional: makes an identity sum in sum */
    void (*destroy)(void *sum, void *ctx); /* optional: ends a sum */
} merino_scanner;

#define MERINO_SCAN_MAX_SIZE 1024

/** Options of one scan. Zero-initialize it and set what you need (or pass NULL). */
typedef struct merino_scan_opts {
    /** Indices per chunk: the unit of work a worker takes, and of the body's calls. 0: 16384. Make a
     *  chunk's data fit well within a core's L2 cache: with two workers each chunk is read twice, the
     *  second time from the cache. Must be >= 0. */
    int64_t chunk;
    /** Optional early exit, as merino_for_opts.stop: once *stop is nonzero, chunks not begun are
     *  skipped (their outputs are not written) and the scan returns as soon as the running ones
     *  have returned; *total is then unspecified. NULL: the scan always runs to the end. */
    const int *stop;
} merino_scan_opts;

/** Scans [begin, end) with s: the final body writes every output, and *total (size bytes, which
 *  merino initializes as a sum) receives the fold of the whole range (the identity when it is
 *  empty). With one worker the body is called once, final, on the whole range. With more, the range
 *  is cut into chunks that the workers take in order: a chunk whose predecessor's prefix is known
 *  is scanned at once (one pass); else it is pre-scanned, its prefix is published as soon as the
 *  predecessor's is, and then it is scanned (so each chunk is read twice, the second time from the
 *  cache). opts may be NULL. Bad arguments (a NULL body or combine, a size out of range, a negative
 *  chunk) stop the program with a message. */
MERINO_API void merino_scan(int64_t begin, int64_t end, void *total, const merino_scanner *s, void *ctx,
                            const merino_scan_opts *opts);

/* ---- pipelines ------------------------------------------------------------------------------------ */

/** How a stage of a pipeline runs its items: any number at once, or one at a time — in the order the
 *  first stage made them, or in any order. */
typedef enum merino_filter_mode {
    MERINO_FILTER_PARALLEL = 0,
    MERINO_FILTER_SERIAL_IN_ORDER = 1,
    MERINO_FILTER_SERIAL_OUT_OF_ORDER = 2
} merino_filter_mode;

/** A stage: fn(item, ctx) returns the item for the next stage (the same pointer or another). The
 *  first stage is called with item NULL and returns a new item, or NULL when the input is over. A
 *  later stage may return NULL to drop the item: the stages after it are not called for it (a
 *  serial in-order stage still lets it pass, so that the items after it keep their turn). */
typedef struct merino_stage {
    merino_filter_mode mode;
    void *(*fn)(void *item, void *ctx);
    void *ctx;
} merino_stage;

/** Runs items through stages[0 .. count) on the workers of the pool, with at most max_tokens items
 *  between the first stage's call that made them and the end of their last stage (so at most
 *  max_tokens items exist at once), and returns when the first stage has returned NULL and every
 *  item has left the pipeline. A serial stage runs one item at a time; an in-order one in the order
 *  the first stage made them; a parallel stage runs items at once. The first stage's calls, when it
 *  is serial, come one after another, in order. Items move from stage to stage on any worker: the
 *  writes of a stage are visible to the stages after it. Memory: a few words per token and per
 *  stage, allocated per call. Bad arguments (max_tokens 0, no stage, a NULL fn, an unknown mode) stop
 *  the program with a message. */
MERINO_API void merino_pipeline(size_t max_tokens, const merino_stage *stages, size_t count);

#ifdef __cplusplus
}
#endif

#endif /* MERINO_ALGORITHM_H */
