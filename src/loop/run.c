/* run.c — merino_for, merino_reduce and the sums: checking the options, entering the pool (a root
 * task run with MERINO_RUN: from outside the pool the caller joins the pool's work; on a worker it
 * is a plain call whose spawns other workers may take), the one-worker case, and the
 * deterministic leaves with their fixed combining tree. */
#include "loop/loop.h"

#include "alloc/mem.h"

#include <stdlib.h>

/* ---- the loop on a worker ------------------------------------------------------------------------ */

/* The fixed tree over the leaves' partials: neighbours at distance 1, then 2, 4, ...; the result
 * is left in partial 0. Serial: a few thousand combines at most (MERINO_LEAVES). */
static void mrn_combine_leaves(const mrn_loop *L) {
    for (uint64_t step = 1; step < L->leaves; step *= 2)
        for (uint64_t i = 0; i + step < L->leaves; i += 2 * step)
            mrn_partial_fold(L, L->partials + i * L->stride, L->partials + (i + step) * L->stride);
}

void mrn_loop_prepare(mrn_loop *L, unsigned workers) {
    L->units = L->leaves ? L->leaves : L->n;
    if (L->leaves && L->chunk) { /* a chunk of indices, in leaves */
        uint64_t leaf = L->n / L->leaves;
        L->chunk = L->chunk / leaf ? L->chunk / leaf : 1;
    }
    L->fold = L->r != NULL && L->leaves == 0;
    L->partial_words = L->fold ? (L->r->size + sizeof(max_align_t) - 1) / sizeof(max_align_t) : 1;
    workers = mrn_loop_limit(L, workers);
    L->parts = workers < L->units ? workers : (unsigned)L->units;
    if (L->parts == 0) L->parts = 1; /* no worker to share with (none running): one share, here */
}

/* Runs the loop on the calling worker; acc is the result's partial (reductions) or NULL. */
static void mrn_loop_exec(mrn_loop *L, void *acc) {
    unsigned workers = mrn_loop_limit(L, merino_workers()); /* the pool this run is on, even while it stops */
    /* nothing to share: one call, as the serial loop (the profiled build keeps its chunks) */
    if (L->leaves == 0 && workers <= 1 && MRN_PROF_LOOP_ONE_CALL) {
        mrn_loop_units(L, 0, L->n, acc);
        return;
    }
    mrn_loop_prepare(L, workers);
    if (L->schedule == MERINO_SCHEDULE_ADAPTIVE) {
        if (L->chunk == 0) L->chunk = 1;
        mrn_loop_adaptive(L, 0, L->units, acc);
    } else {
        mrn_loop_shares(L, acc);
    }
    if (L->leaves && L->r) {
        mrn_combine_leaves(L);
        mrn_partial_fold(L, acc, L->partials);
    }
}

MERINO_VOID_TASK_2(mrn_loop_root, mrn_loop *, L, void *, acc) {
    mrn_loop_exec(L, acc);
    MRN_PROF_FOR_END();
}

/* ---- the entry points ---------------------------------------------------------------------------- */

void mrn_loop_setup(mrn_loop *L, int64_t begin, int64_t end, const merino_for_opts *opts,
                           const char *fn) {
    memset(L, 0, sizeof *L);
    L->begin = begin;
    L->n = end > begin ? (uint64_t)end - (uint64_t)begin : 0;
    merino_for_opts o = {0};
    if (opts) o = *opts;
    if (o.chunk < 0)
        mrn_fatal("%s: merino_for_opts.chunk = %lld is negative: give a number of iterations "
                  "per chunk, or 0 for the schedule's default",
                  fn, (long long)o.chunk);
    if (o.schedule == MERINO_SCHEDULE_DEFAULT) {
        merino_for_opts env;
        mrn_loop_env(&env);
        o.schedule = env.schedule;
        if (o.chunk == 0) o.chunk = env.chunk;
    }
    if ((unsigned)o.schedule > MERINO_SCHEDULE_IDWS_POLL)
        mrn_fatal("%s: merino_for_opts.schedule = %d is not a merino_schedule: use one of the "
                  "MERINO_SCHEDULE_* values, or 0 for the default",
                  fn, (int)o.schedule);
    L->schedule = o.schedule == MERINO_SCHEDULE_AUTO ? MERINO_SCHEDULE_ADAPTIVE : o.schedule;
    L->chunk = (uint64_t)o.chunk;
    if (o.max_workers < 0)
        mrn_fatal("%s: merino_for_opts.max_workers = %d is negative: give the most workers the loop may "
                  "use, or 0 for no limit",
                  fn, o.max_workers);
    L->stop = o.stop;
    L->stop_at = o.stop_at;
    L->origin = begin;
    L->watch = o.stop != NULL || o.stop_at != NULL;
    L->max_workers = (unsigned)o.max_workers;
    if (o.deterministic) L->leaves = L->n < MERINO_LEAVES ? L->n : MERINO_LEAVES;
}

void merino_for(int64_t begin, int64_t end, merino_for_fn *body, void *ctx, const merino_for_opts *opts) {
    if (body == NULL) mrn_fatal("merino_for: the body is NULL: pass the function to run on each sub-range");
    mrn_loop L;
    mrn_loop_setup(&L, begin, end, opts, "merino_for");
    L.body = body;
    L.ctx = ctx;
    if (L.n == 0) return;
    MERINO_RUN(mrn_loop_root, &L, NULL);
}

void merino_reduce(int64_t begin, int64_t end, void *result, const merino_reducer *r, void *ctx,
                   const merino_for_opts *opts) {
    if (r == NULL || result == NULL || r->body == NULL || r->combine == NULL ||
        (r->identity == NULL && r->init == NULL))
        mrn_fatal("merino_reduce: %s is NULL: pass a result, and a merino_reducer with a body, a "
                  "combine and an identity (or an init)",
                  r == NULL ? "the reducer" : result == NULL ? "the result" : r->body == NULL ? "the body"
                  : r->combine == NULL ? "the combine" : "the identity");
    if (r->size == 0 || r->size > MERINO_REDUCE_MAX_SIZE)
        mrn_fatal("merino_reduce: merino_reducer.size = %zu is out of range: partials take 1 to %d "
                  "bytes (they live on the workers' C stacks); reduce into a pointer for more",
                  r->size, MERINO_REDUCE_MAX_SIZE);
    mrn_loop L;
    mrn_loop_setup(&L, begin, end, opts, "merino_reduce");
    L.r = r;
    L.ctx = ctx;
    mrn_partial_init(&L, result);
    if (L.n == 0) return;
    if (L.leaves) {
        L.stride = (r->size + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
        L.partials = mrn_mem_alloc(sizeof(max_align_t), L.leaves * L.stride);
        if (L.partials == NULL)
            mrn_fatal("merino_reduce: out of memory for %llu partials of %zu bytes (deterministic)",
                      (unsigned long long)L.leaves, r->size);
    }
    MERINO_RUN(mrn_loop_root, &L, result);
    mrn_mem_free(L.partials);
}

/* ---- stepped loops --------------------------------------------------------------------------------
 * Iteration k of the loop is index begin + k * step; the iterations run as the indices
 * INT64_MIN + [0, count) of a plain loop (count < 2^64), so that no index past the range is ever
 * computed and the whole int64_t range fits. */

typedef struct mrn_step_ctx {
    int64_t begin, step;
    merino_for_step_fn *body;
    void *ctx;
} mrn_step_ctx;

static void mrn_step_body(int64_t lo, int64_t hi, void *c) {
    const mrn_step_ctx *s = c;
    uint64_t k = (uint64_t)lo - (uint64_t)INT64_MIN, count = (uint64_t)hi - (uint64_t)lo;
    while (count) { /* in calls of at most INT64_MAX iterations (one call at one worker may hold 2^64 - 1) */
        uint64_t m = count > (uint64_t)INT64_MAX ? (uint64_t)INT64_MAX : count;
        /* unsigned: wraps to the right index, which lies in the range */
        s->body((int64_t)((uint64_t)s->begin + k * (uint64_t)s->step), (int64_t)m, s->step, s->ctx);
        k += m, count -= m;
    }
}

void merino_for_step(int64_t begin, int64_t end, int64_t step, merino_for_step_fn *body, void *ctx,
                     const merino_for_opts *opts) {
    if (body == NULL) mrn_fatal("merino_for_step: the body is NULL: pass the function to run on each run of iterations");
    if (step == 0)
        mrn_fatal("merino_for_step: the step is 0: give a positive step (begin < end) or a negative one "
                  "(begin > end)");
    uint64_t span = step > 0 ? (end > begin ? (uint64_t)end - (uint64_t)begin : 0)
                             : (begin > end ? (uint64_t)begin - (uint64_t)end : 0);
    uint64_t stride = step > 0 ? (uint64_t)step : 0 - (uint64_t)step; /* |INT64_MIN| too */
    uint64_t count = span ? (span - 1) / stride + 1 : 0;
    mrn_step_ctx s = {begin, step, body, ctx};
    mrn_loop L;
    mrn_loop_setup(&L, INT64_MIN, (int64_t)((uint64_t)INT64_MIN + count), opts, "merino_for_step");
    L.origin = 0; /* stop_at counts iterations */
    L.body = mrn_step_body;
    L.ctx = &s;
    if (L.n == 0) return;
    MERINO_RUN(mrn_loop_root, &L, NULL);
}

/* ---- sums ----------------------------------------------------------------------------------------- */

typedef struct mrn_sum_ctx {
    double (*fd)(int64_t lo, int64_t hi, void *ctx);
    int64_t (*fi)(int64_t lo, int64_t hi, void *ctx);
    void *ctx;
} mrn_sum_ctx;

/* Both sums add 8-byte partials: doubles, or int64_t as unsigned (wrapping around, not overflowing). */
static void mrn_sum_body(int64_t lo, int64_t hi, void *acc, void *ctx) {
    mrn_sum_ctx *s = ctx;
    if (s->fd)
        *(double *)acc += s->fd(lo, hi, s->ctx);
    else
        *(uint64_t *)acc += (uint64_t)s->fi(lo, hi, s->ctx);
}
static void mrn_sum_double_combine(void *acc, const void *right, void *ctx) {
    (void)ctx;
    *(double *)acc += *(const double *)right;
}
static void mrn_sum_int64_combine(void *acc, const void *right, void *ctx) {
    (void)ctx;
    *(uint64_t *)acc += *(const uint64_t *)right;
}

static void mrn_sum(int64_t begin, int64_t end, mrn_sum_ctx *s, void *out, const merino_for_opts *opts) {
    static const union { double d; uint64_t u; } zero = {0}; /* 0.0 and 0 alike: all bits 0 */
    merino_reducer r = {.size = 8, .identity = &zero, .body = mrn_sum_body,
                        .combine = s->fd ? mrn_sum_double_combine : mrn_sum_int64_combine};
    if (s->fd == NULL && s->fi == NULL) mrn_fatal("merino_sum_*: the body is NULL: pass the partial-sum function");
    merino_reduce(begin, end, out, &r, s, opts);
}

double merino_sum_double(int64_t begin, int64_t end, double (*body)(int64_t, int64_t, void *), void *ctx,
                         const merino_for_opts *opts) {
    mrn_sum_ctx s = {.fd = body, .ctx = ctx};
    double out;
    mrn_sum(begin, end, &s, &out, opts);
    return out;
}

int64_t merino_sum_int64(int64_t begin, int64_t end, int64_t (*body)(int64_t, int64_t, void *), void *ctx,
                         const merino_for_opts *opts) {
    mrn_sum_ctx s = {.fi = body, .ctx = ctx};
    uint64_t out;
    mrn_sum(begin, end, &s, &out, opts);
    return (int64_t)out;
}
