/* gomp_loop.c — the ABI of worksharing loops (GOMP_loop_*, GOMP_loop_ull_*, the combined
 * GOMP_parallel_loop_*), on the schedules of loopsched.c. Both forms become iteration numbers
 * 0 .. n-1: iteration i has the value start + i * step counting up, start - i * step counting
 * down, in 64-bit wrapping arithmetic (which is the signed result for long loops). The chunk
 * [lo, hi) goes back as istart = value(lo) and iend = value(hi), or the loop's own end bound for
 * the last chunk (so that no value is computed past it). */
#include "omp/omp_layer.h"


/* libgomp's encoding of a schedule in GOMP_loop_start and GOMP_loop_doacross_start. */
enum { GFS_RUNTIME = 0, GFS_STATIC = 1, GFS_DYNAMIC = 2, GFS_GUIDED = 3, GFS_AUTO = 4 };

/* ---- iteration counts --------------------------------------------------------------------------------- */

typedef struct mo_bounds {
    uint64_t n, start, step, end;
    bool up;
} mo_bounds;

static inline uint64_t mo_div_up(uint64_t span, uint64_t step) { return span / step + (span % step != 0); }

static inline mo_bounds mo_bounds_long(long start, long end, long incr) {
    mo_bounds b = {0, (uint64_t)start, 0, (uint64_t)end, incr > 0};
    if (incr > 0) {
        b.step = (uint64_t)incr;
        if (start < end) b.n = mo_div_up((uint64_t)end - (uint64_t)start, b.step);
    } else {
        b.step = -(uint64_t)incr;
        if (start > end) b.n = mo_div_up((uint64_t)start - (uint64_t)end, b.step);
    }
    return b;
}

/* ull loops: incr is the step counting up, its negation (mod 2^64) counting down. */
static inline mo_bounds mo_bounds_ull(bool up, unsigned long long start, unsigned long long end,
                                      unsigned long long incr) {
    mo_bounds b = {0, start, up ? incr : -incr, end, up};
    if (b.step == 0) b.step = 1; /* not a valid loop; keep the arithmetic defined */
    if (up ? start < end : start > end) b.n = mo_div_up(up ? end - start : start - end, b.step);
    return b;
}

static inline uint64_t mo_value(const mo_ws *ws, uint64_t i) {
    if (i >= ws->n) return ws->end;
    return ws->up ? ws->start + i * ws->step : ws->start - i * ws->step;
}

/* ---- starting a loop ---------------------------------------------------------------------------------- */

static void mo_ws_set_bounds(mo_ws *ws, const mo_bounds *b) {
    ws->start = b->start;
    ws->step = b->step;
    ws->end = b->end;
    ws->up = b->up;
}

/* Enters the next worksharing construct as a loop of b with kind and chunk: the first thread sets
 * it up. Returns the implicit task. */
static mo_implicit *mo_loop_enter(const mo_bounds *b, int kind, uint64_t chunk, bool ordered,
                                  uintptr_t *reductions, void **mem) {
    mo_task *c = mo_current();
    mo_implicit *imp = mo_ws_imp(c);
    bool first = mo_ws_begin(c, imp, reductions);
    if (first) {
        mo_ws_set_bounds(imp->ws, b);
        mo_loop_init(imp->ws, b->n, kind, chunk, imp->task.team->nthreads, ordered);
    }
    mo_ws_share(c, imp, first, reductions, mem);
    mo_loop_thread_start(imp);
    return imp;
}

/* Whether a runtime schedule must hand each thread its chunks in increasing order: asked by the
 * clause (monotonic:runtime), or by run-sched-var for a clause without a modifier. */
enum { MO_MONO, MO_NONMONO, MO_MAYBE };

/* The schedule kind and chunk of run-sched-var for a loop. merino's auto and steal hand a thread
 * chunks from anywhere in the loop; under a monotonic requirement they become guided and
 * dynamic (whose chunks come in order). */
static int mo_rt_kind(long *chunk, int mono) {
    int kind;
    uint64_t ch;
    mo_runtime_schedule(mo_current(), &kind, &ch);
    bool monotonic = mono == MO_MONO || (mono == MO_MAYBE && (mo_current()->icv->run_sched & MO_SCHED_MONOTONIC));
    if (monotonic && kind == MO_SCHED_AUTO) kind = MO_SCHED_GUIDED;
    if (monotonic && kind == MO_SCHED_STEAL) kind = MO_SCHED_DYNAMIC;
    *chunk = (long)ch;
    return kind;
}

/* The schedule GOMP_loop_start's sched means: runtime (no modifier), runtime | monotonic, and
 * auto (runtime with nonmonotonic) take run-sched-var. */
static int mo_gfs_kind(long sched, long *chunk) {
    bool monotonic = (sched & (long)(uint32_t)MO_SCHED_MONOTONIC) != 0;
    switch (sched & ~(long)(uint32_t)MO_SCHED_MONOTONIC & 0xffffffffL) {
    case GFS_STATIC: return MO_SCHED_STATIC;
    case GFS_DYNAMIC: return MO_SCHED_DYNAMIC;
    case GFS_GUIDED: return MO_SCHED_GUIDED;
    case GFS_AUTO: return mo_rt_kind(chunk, MO_NONMONO);
    default: return mo_rt_kind(chunk, monotonic ? MO_MONO : MO_MAYBE);
    }
}

static bool mo_next_long(long *istart, long *iend) {
    mo_implicit *imp = mo_ws_imp(mo_current());
    uint64_t lo, hi;
    if (!mo_loop_next(imp, &lo, &hi)) return false;
    *istart = (long)mo_value(imp->ws, lo);
    *iend = (long)mo_value(imp->ws, hi);
    return true;
}

static bool mo_next_ull(unsigned long long *istart, unsigned long long *iend) {
    mo_implicit *imp = mo_ws_imp(mo_current());
    uint64_t lo, hi;
    if (!mo_loop_next(imp, &lo, &hi)) return false;
    *istart = mo_value(imp->ws, lo);
    *iend = mo_value(imp->ws, hi);
    return true;
}

static bool mo_start_long(long start, long end, long incr, int kind, long chunk, bool ordered,
                          long *istart, long *iend) {
    mo_bounds b = mo_bounds_long(start, end, incr);
    mo_loop_enter(&b, kind, chunk > 0 ? (uint64_t)chunk : 0, ordered, NULL, NULL);
    return mo_next_long(istart, iend);
}

static bool mo_start_ull(bool up, unsigned long long start, unsigned long long end,
                         unsigned long long incr, int kind, unsigned long long chunk, bool ordered,
                         unsigned long long *istart, unsigned long long *iend) {
    mo_bounds b = mo_bounds_ull(up, start, end, incr);
    mo_loop_enter(&b, kind, chunk, ordered, NULL, NULL);
    return mo_next_ull(istart, iend);
}


/* ---- long loops ---------------------------------------------------------------------------------------- */

#define MO_LOOP_LONG(NAME, KIND, ORDERED)                                                            \
    MO_ABI bool GOMP_loop_##NAME##_start(long start, long end, long incr, long chunk, long *istart, \
                                         long *iend) {                                               \
        return mo_start_long(start, end, incr, KIND, chunk, ORDERED, istart, iend);                  \
    }
MO_LOOP_LONG(static, MO_SCHED_STATIC, false)
MO_LOOP_LONG(dynamic, MO_SCHED_DYNAMIC, false)
MO_LOOP_LONG(guided, MO_SCHED_GUIDED, false)
MO_LOOP_LONG(nonmonotonic_dynamic, MO_SCHED_DYNAMIC, false)
MO_LOOP_LONG(nonmonotonic_guided, MO_SCHED_GUIDED, false)
MO_LOOP_LONG(ordered_static, MO_SCHED_STATIC, true)
MO_LOOP_LONG(ordered_dynamic, MO_SCHED_DYNAMIC, true)
MO_LOOP_LONG(ordered_guided, MO_SCHED_GUIDED, true)

#define MO_LOOP_LONG_RT(NAME, ORDERED, MONO)                                                         \
    MO_ABI bool GOMP_loop_##NAME##_start(long start, long end, long incr, long *istart, long *iend) { \
        long chunk;                                                                                  \
        int kind = mo_rt_kind(&chunk, MONO);                                                         \
        return mo_start_long(start, end, incr, kind, chunk, ORDERED, istart, iend);                  \
    }
MO_LOOP_LONG_RT(runtime, false, MO_MONO)
MO_LOOP_LONG_RT(nonmonotonic_runtime, false, MO_NONMONO)
MO_LOOP_LONG_RT(maybe_nonmonotonic_runtime, false, MO_MAYBE)
MO_LOOP_LONG_RT(ordered_runtime, true, MO_MONO)

#define MO_NEXT_LONG(NAME) \
    MO_ABI bool GOMP_loop_##NAME##_next(long *istart, long *iend) { return mo_next_long(istart, iend); }
MO_NEXT_LONG(static)
MO_NEXT_LONG(dynamic)
MO_NEXT_LONG(guided)
MO_NEXT_LONG(runtime)
MO_NEXT_LONG(nonmonotonic_dynamic)
MO_NEXT_LONG(nonmonotonic_guided)
MO_NEXT_LONG(nonmonotonic_runtime)
MO_NEXT_LONG(maybe_nonmonotonic_runtime)
MO_NEXT_LONG(ordered_static)
MO_NEXT_LONG(ordered_dynamic)
MO_NEXT_LONG(ordered_guided)
MO_NEXT_LONG(ordered_runtime)

static bool mo_loop_start_long(long start, long end, long incr, long sched, long chunk, long *istart,
                               long *iend, uintptr_t *reductions, void **mem, bool ordered) {
    int kind = mo_gfs_kind(sched, &chunk);
    mo_bounds b = mo_bounds_long(start, end, incr);
    mo_loop_enter(&b, kind, chunk > 0 ? (uint64_t)chunk : 0, ordered, reductions, mem);
    if (!istart) return true;
    return mo_next_long(istart, iend);
}

MO_ABI bool GOMP_loop_start(long start, long end, long incr, long sched, long chunk, long *istart,
                            long *iend, uintptr_t *reductions, void **mem) {
    return mo_loop_start_long(start, end, incr, sched, chunk, istart, iend, reductions, mem, false);
}

MO_ABI bool GOMP_loop_ordered_start(long start, long end, long incr, long sched, long chunk,
                                    long *istart, long *iend, uintptr_t *reductions, void **mem) {
    return mo_loop_start_long(start, end, incr, sched, chunk, istart, iend, reductions, mem, true);
}

/* ---- ull loops ----------------------------------------------------------------------------------------- */

#define MO_LOOP_ULL(NAME, KIND, ORDERED)                                                             \
    MO_ABI bool GOMP_loop_ull_##NAME##_start(bool up, unsigned long long start, unsigned long long end, \
                                             unsigned long long incr, unsigned long long chunk,       \
                                             unsigned long long *istart, unsigned long long *iend) {  \
        return mo_start_ull(up, start, end, incr, KIND, chunk, ORDERED, istart, iend);               \
    }
MO_LOOP_ULL(static, MO_SCHED_STATIC, false)
MO_LOOP_ULL(dynamic, MO_SCHED_DYNAMIC, false)
MO_LOOP_ULL(guided, MO_SCHED_GUIDED, false)
MO_LOOP_ULL(nonmonotonic_dynamic, MO_SCHED_DYNAMIC, false)
MO_LOOP_ULL(nonmonotonic_guided, MO_SCHED_GUIDED, false)
MO_LOOP_ULL(ordered_static, MO_SCHED_STATIC, true)
MO_LOOP_ULL(ordered_dynamic, MO_SCHED_DYNAMIC, true)
MO_LOOP_ULL(ordered_guided, MO_SCHED_GUIDED, true)

#define MO_LOOP_ULL_RT(NAME, ORDERED, MONO)                                                          \
    MO_ABI bool GOMP_loop_ull_##NAME##_start(bool up, unsigned long long start, unsigned long long end, \
                                             unsigned long long incr, unsigned long long *istart,     \
                                             unsigned long long *iend) {                              \
        long chunk;                                                                                  \
        int kind = mo_rt_kind(&chunk, MONO);                                                         \
        return mo_start_ull(up, start, end, incr, kind, (unsigned long long)chunk, ORDERED, istart, iend); \
    }
MO_LOOP_ULL_RT(runtime, false, MO_MONO)
MO_LOOP_ULL_RT(nonmonotonic_runtime, false, MO_NONMONO)
MO_LOOP_ULL_RT(maybe_nonmonotonic_runtime, false, MO_MAYBE)
MO_LOOP_ULL_RT(ordered_runtime, true, MO_MONO)

#define MO_NEXT_ULL(NAME)                                                                            \
    MO_ABI bool GOMP_loop_ull_##NAME##_next(unsigned long long *istart, unsigned long long *iend) {  \
        return mo_next_ull(istart, iend);                                                            \
    }
MO_NEXT_ULL(static)
MO_NEXT_ULL(dynamic)
MO_NEXT_ULL(guided)
MO_NEXT_ULL(runtime)
MO_NEXT_ULL(nonmonotonic_dynamic)
MO_NEXT_ULL(nonmonotonic_guided)
MO_NEXT_ULL(nonmonotonic_runtime)
MO_NEXT_ULL(maybe_nonmonotonic_runtime)
MO_NEXT_ULL(ordered_static)
MO_NEXT_ULL(ordered_dynamic)
MO_NEXT_ULL(ordered_guided)
MO_NEXT_ULL(ordered_runtime)

static bool mo_loop_start_ull(bool up, unsigned long long start, unsigned long long end,
                              unsigned long long incr, long sched, unsigned long long chunk,
                              unsigned long long *istart, unsigned long long *iend,
                              uintptr_t *reductions, void **mem, bool ordered) {
    long ch = (long)chunk;
    int kind = mo_gfs_kind(sched, &ch);
    mo_bounds b = mo_bounds_ull(up, start, end, incr);
    mo_loop_enter(&b, kind, (unsigned long long)ch, ordered, reductions, mem);
    if (!istart) return true;
    return mo_next_ull(istart, iend);
}

MO_ABI bool GOMP_loop_ull_start(bool up, unsigned long long start, unsigned long long end,
                                unsigned long long incr, long sched, unsigned long long chunk,
                                unsigned long long *istart, unsigned long long *iend,
                                uintptr_t *reductions, void **mem) {
    return mo_loop_start_ull(up, start, end, incr, sched, chunk, istart, iend, reductions, mem, false);
}

MO_ABI bool GOMP_loop_ull_ordered_start(bool up, unsigned long long start, unsigned long long end,
                                        unsigned long long incr, long sched, unsigned long long chunk,
                                        unsigned long long *istart, unsigned long long *iend,
                                        uintptr_t *reductions, void **mem) {
    return mo_loop_start_ull(up, start, end, incr, sched, chunk, istart, iend, reductions, mem, true);
}

/* ---- the end of a loop ---------------------------------------------------------------------------------- */

/* The thread is done with the construct: the ordered turn passes on, the slot is left. */
static mo_task *mo_loop_leave(void) {
    mo_task *c = mo_current();
    mo_implicit *imp = mo_ws_imp(c);
    mo_loop_finish(imp);
    mo_ws_leave(imp);
    return c;
}

MO_ABI void GOMP_loop_end(void) { mo_task_barrier(mo_loop_leave()); }
MO_ABI void GOMP_loop_end_nowait(void) { mo_loop_leave(); }
MO_ABI bool GOMP_loop_end_cancel(void) { return mo_task_barrier(mo_loop_leave()); }

/* ---- combined parallel loops ---------------------------------------------------------------------------- */

typedef struct mo_preset_loop {
    mo_bounds b;
    int kind;
    uint64_t chunk;
} mo_preset_loop;

/* Sets up the team's first work share as the loop, before its threads start (the outlined
 * function of a combined construct calls GOMP_loop_*_next first). */
static void mo_preset_loop_ws(mo_team *t, void *arg) {
    mo_preset_loop *p = arg;
    mo_ws *ws = &t->ws[0];
    mo_ws_set_bounds(ws, &p->b);
    mo_loop_init(ws, p->b.n, p->kind, p->chunk, t->nthreads, false);
    ws->claimed = 1; /* construct 0 is set up: its threads take it as ready */
    ws->ready = 1;
    t->preset_ws = true;
}

static void mo_parallel_loop(void (*fn)(void *), void *data, unsigned num_threads, long start,
                             long end, long incr, int kind, long chunk, unsigned flags) {
    mo_preset_loop p = {mo_bounds_long(start, end, incr), kind, chunk > 0 ? (uint64_t)chunk : 0};
    mo_parallel(fn, data, num_threads, flags, mo_preset_loop_ws, &p, NULL);
}

#define MO_PARALLEL_LOOP(NAME, KIND)                                                                   \
    MO_ABI void GOMP_parallel_loop_##NAME(void (*fn)(void *), void *data, unsigned num_threads, long start, \
                                          long end, long incr, long chunk, unsigned flags) {          \
        mo_parallel_loop(fn, data, num_threads, start, end, incr, KIND, chunk, flags);                 \
    }
MO_PARALLEL_LOOP(static, MO_SCHED_STATIC)
MO_PARALLEL_LOOP(dynamic, MO_SCHED_DYNAMIC)
MO_PARALLEL_LOOP(guided, MO_SCHED_GUIDED)
MO_PARALLEL_LOOP(nonmonotonic_dynamic, MO_SCHED_DYNAMIC)
MO_PARALLEL_LOOP(nonmonotonic_guided, MO_SCHED_GUIDED)

#define MO_PARALLEL_LOOP_RT(NAME, MONO)                                                                \
    MO_ABI void GOMP_parallel_loop_##NAME(void (*fn)(void *), void *data, unsigned num_threads, long start, \
                                          long end, long incr, unsigned flags) {                      \
        long chunk;                                                                                    \
        int kind = mo_rt_kind(&chunk, MONO);                                                           \
        mo_parallel_loop(fn, data, num_threads, start, end, incr, kind, chunk, flags);                 \
    }
MO_PARALLEL_LOOP_RT(runtime, MO_MONO)
MO_PARALLEL_LOOP_RT(nonmonotonic_runtime, MO_NONMONO)
MO_PARALLEL_LOOP_RT(maybe_nonmonotonic_runtime, MO_MAYBE)

/* GCC before 4.9: the team starts, thread 0 returns and calls fn itself, then GOMP_parallel_end. */
#define MO_PARALLEL_LOOP_START(NAME, KIND)                                                             \
    MO_ABI void GOMP_parallel_loop_##NAME##_start(void (*fn)(void *), void *data, unsigned num_threads, \
                                                  long start, long end, long incr, long chunk) {      \
        mo_preset_loop p = {mo_bounds_long(start, end, incr), KIND, chunk > 0 ? (uint64_t)chunk : 0}; \
        mo_parallel_start(fn, data, num_threads, mo_preset_loop_ws, &p);                               \
    }
MO_PARALLEL_LOOP_START(static, MO_SCHED_STATIC)
MO_PARALLEL_LOOP_START(dynamic, MO_SCHED_DYNAMIC)
MO_PARALLEL_LOOP_START(guided, MO_SCHED_GUIDED)

MO_ABI void GOMP_parallel_loop_runtime_start(void (*fn)(void *), void *data, unsigned num_threads,
                                             long start, long end, long incr) {
    long chunk;
    int kind = mo_rt_kind(&chunk, MO_MONO);
    mo_preset_loop p = {mo_bounds_long(start, end, incr), kind, chunk > 0 ? (uint64_t)chunk : 0};
    mo_parallel_start(fn, data, num_threads, mo_preset_loop_ws, &p);
}
