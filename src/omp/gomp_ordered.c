/* gomp_ordered.c — `ordered` regions and doacross loops (`ordered(n)` with depend(sink) and
 * depend(source)).
 *
 * A doacross loop is scheduled on its outermost dimension in chunks of cs iterations aligned at
 * multiples of cs (static: one chunk per thread; dynamic and guided: chunks of the given size),
 * so the chunk of outer iteration i is i / cs. A chunk runs in order on one thread, so one word
 * per chunk says how far it got: the flat index (all dimensions) of its last posted iteration,
 * plus one. Waiting for iteration v is waiting until its chunk's word passes flat(v). */
#include "omp/omp_layer.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

MO_ABI void GOMP_ordered_start(void) {
    mo_task *c = mo_current();
    mo_ordered_start(mo_ws_imp(c));
}

MO_ABI void GOMP_ordered_end(void) {} /* the turn moves at the end of the chunk (loopsched.c) */

/* ---- doacross --------------------------------------------------------------------------------------- */

enum { GFS_RUNTIME = 0, GFS_STATIC = 1, GFS_DYNAMIC = 2, GFS_GUIDED = 3, GFS_AUTO = 4 };

/* Sets up (the first thread) or joins a doacross loop over ncounts dimensions of counts[]
 * iterations; returns the implicit task. */
static mo_implicit *mo_doacross_enter(unsigned ncounts, const uint64_t *counts, int kind, uint64_t chunk,
                                      uintptr_t *reductions, void **mem) {
    mo_task *c = mo_current();
    mo_implicit *imp = mo_ws_imp(c);
    bool first = mo_ws_begin(c, imp, reductions);
    if (first) {
        mo_ws *ws = imp->ws;
        uint32_t nt = imp->task.team->nthreads;
        uint64_t n = ncounts ? counts[0] : 0, inner = 1;
        for (unsigned d = 1; d < ncounts; d++)
            if (__builtin_mul_overflow(inner, counts[d], &inner))
                mo_fatal("a doacross loop nest (ordered(%u)) has more than 2^64 iterations in its "
                         "inner dimensions: merino cannot number them",
                         ncounts);
        uint64_t cs = kind == MO_SCHED_STATIC && chunk == 0 ? (n + nt - 1) / nt : chunk ? chunk : 1;
        if (cs == 0) cs = 1;
        ws->start = 0;
        ws->step = 1;
        ws->end = n;
        ws->up = true;
        mo_loop_init(ws, n, kind == MO_SCHED_STATIC ? MO_SCHED_STATIC : MO_SCHED_DYNAMIC, cs, nt, false);
        ws->chunk = cs;
        uint64_t nchunks = n / cs + (n % cs != 0);
        ws->doacross = calloc(nchunks ? nchunks : 1, sizeof(uint64_t));
        ws->doacross_counts = malloc((ncounts ? ncounts : 1) * sizeof(uint64_t));
        if (!ws->doacross || !ws->doacross_counts)
            mo_fatal("out of memory setting up a doacross loop of %llu chunks", (unsigned long long)nchunks);
        memcpy(ws->doacross_counts, counts, ncounts * sizeof(uint64_t));
        ws->doacross_ndims = ncounts;
        ws->doacross_inner = inner;
    }
    mo_ws_share(c, imp, first, reductions, mem);
    mo_loop_thread_start(imp);
    return imp;
}

static int mo_doacross_kind(long sched, uint64_t *chunk) {
    switch (sched & 0x7fffffffL) {
    case GFS_STATIC: return MO_SCHED_STATIC;
    case GFS_DYNAMIC:
    case GFS_GUIDED: return MO_SCHED_DYNAMIC;
    default: {
        int kind;
        mo_runtime_schedule(mo_current(), &kind, chunk);
        return kind == MO_SCHED_STATIC ? MO_SCHED_STATIC : MO_SCHED_DYNAMIC;
    }
    }
}

static bool mo_doacross_first(mo_implicit *imp, uint64_t *lo, uint64_t *hi) {
    return mo_loop_next(imp, lo, hi);
}

static bool mo_doacross_long(unsigned ncounts, long *counts, int kind, long chunk, long *istart, long *iend,
                             uintptr_t *reductions, void **mem) {
    uint64_t c64[ncounts ? ncounts : 1];
    for (unsigned d = 0; d < ncounts; d++) c64[d] = counts[d] > 0 ? (uint64_t)counts[d] : 0;
    mo_implicit *imp = mo_doacross_enter(ncounts, c64, kind, chunk > 0 ? (uint64_t)chunk : 0, reductions, mem);
    if (!istart) return true;
    uint64_t lo, hi;
    if (!mo_doacross_first(imp, &lo, &hi)) return false;
    *istart = (long)lo;
    *iend = (long)hi;
    return true;
}

static bool mo_doacross_ull(unsigned ncounts, unsigned long long *counts, int kind, unsigned long long chunk,
                            unsigned long long *istart, unsigned long long *iend, uintptr_t *reductions,
                            void **mem) {
    uint64_t c64[ncounts ? ncounts : 1];
    for (unsigned d = 0; d < ncounts; d++) c64[d] = counts[d];
    mo_implicit *imp = mo_doacross_enter(ncounts, c64, kind, chunk, reductions, mem);
    if (!istart) return true;
    uint64_t lo, hi;
    if (!mo_doacross_first(imp, &lo, &hi)) return false;
    *istart = lo;
    *iend = hi;
    return true;
}

MO_ABI bool GOMP_loop_doacross_static_start(unsigned ncounts, long *counts, long chunk, long *istart, long *iend) {
    return mo_doacross_long(ncounts, counts, MO_SCHED_STATIC, chunk, istart, iend, NULL, NULL);
}
MO_ABI bool GOMP_loop_doacross_dynamic_start(unsigned ncounts, long *counts, long chunk, long *istart, long *iend) {
    return mo_doacross_long(ncounts, counts, MO_SCHED_DYNAMIC, chunk, istart, iend, NULL, NULL);
}
MO_ABI bool GOMP_loop_doacross_guided_start(unsigned ncounts, long *counts, long chunk, long *istart, long *iend) {
    return mo_doacross_long(ncounts, counts, MO_SCHED_DYNAMIC, chunk, istart, iend, NULL, NULL);
}
MO_ABI bool GOMP_loop_doacross_runtime_start(unsigned ncounts, long *counts, long *istart, long *iend) {
    uint64_t chunk = 0;
    int kind = mo_doacross_kind(GFS_RUNTIME, &chunk);
    return mo_doacross_long(ncounts, counts, kind, (long)chunk, istart, iend, NULL, NULL);
}
MO_ABI bool GOMP_loop_doacross_start(unsigned ncounts, long *counts, long sched, long chunk, long *istart,
                                     long *iend, uintptr_t *reductions, void **mem) {
    uint64_t ch = chunk > 0 ? (uint64_t)chunk : 0;
    int kind = mo_doacross_kind(sched, &ch);
    return mo_doacross_long(ncounts, counts, kind, (long)ch, istart, iend, reductions, mem);
}

MO_ABI bool GOMP_loop_ull_doacross_static_start(unsigned ncounts, unsigned long long *counts,
                                                unsigned long long chunk, unsigned long long *istart,
                                                unsigned long long *iend) {
    return mo_doacross_ull(ncounts, counts, MO_SCHED_STATIC, chunk, istart, iend, NULL, NULL);
}
MO_ABI bool GOMP_loop_ull_doacross_dynamic_start(unsigned ncounts, unsigned long long *counts,
                                                 unsigned long long chunk, unsigned long long *istart,
                                                 unsigned long long *iend) {
    return mo_doacross_ull(ncounts, counts, MO_SCHED_DYNAMIC, chunk, istart, iend, NULL, NULL);
}
MO_ABI bool GOMP_loop_ull_doacross_guided_start(unsigned ncounts, unsigned long long *counts,
                                                unsigned long long chunk, unsigned long long *istart,
                                                unsigned long long *iend) {
    return mo_doacross_ull(ncounts, counts, MO_SCHED_DYNAMIC, chunk, istart, iend, NULL, NULL);
}
MO_ABI bool GOMP_loop_ull_doacross_runtime_start(unsigned ncounts, unsigned long long *counts,
                                                 unsigned long long *istart, unsigned long long *iend) {
    uint64_t chunk = 0;
    int kind = mo_doacross_kind(GFS_RUNTIME, &chunk);
    return mo_doacross_ull(ncounts, counts, kind, chunk, istart, iend, NULL, NULL);
}
MO_ABI bool GOMP_loop_ull_doacross_start(unsigned ncounts, unsigned long long *counts, long sched,
                                         unsigned long long chunk, unsigned long long *istart,
                                         unsigned long long *iend, uintptr_t *reductions, void **mem) {
    uint64_t ch = chunk;
    int kind = mo_doacross_kind(sched, &ch);
    return mo_doacross_ull(ncounts, counts, kind, ch, istart, iend, reductions, mem);
}

/* ---- post and wait ---------------------------------------------------------------------------------- */

/* The flat index of iteration v (all dimensions), or false when v is outside the space. */
static bool mo_flat(const mo_ws *ws, const uint64_t *v, uint64_t *flat) {
    uint64_t f = 0;
    for (uint32_t d = 0; d < ws->doacross_ndims; d++) {
        if (v[d] >= ws->doacross_counts[d]) return false;
        f = d == 0 ? v[0] : f * ws->doacross_counts[d] + v[d];
    }
    *flat = f;
    return true;
}

static void mo_post(const uint64_t *v) {
    mo_implicit *imp = mo_ws_imp(mo_current());
    mo_ws *ws = imp->ws;
    uint64_t flat;
    if (!ws || !ws->doacross || !mo_flat(ws, v, &flat)) return;
    /* release: the iteration's writes, for the waiters' acquire */
    __atomic_store_n(&ws->doacross[v[0] / ws->chunk], flat + 1, __ATOMIC_RELEASE);
}

static void mo_wait_for(const uint64_t *v) {
    mo_implicit *imp = mo_ws_imp(mo_current());
    mo_ws *ws = imp->ws;
    uint64_t flat;
    if (!ws || !ws->doacross || !mo_flat(ws, v, &flat)) return; /* a sink outside the space: no wait */
    mo_spin_wait_u64(imp->task.team, &ws->doacross[v[0] / ws->chunk], flat + 1, true);
}

MO_ABI void GOMP_doacross_post(long *counts) {
    mo_implicit *imp = mo_ws_imp(mo_current());
    uint32_t n = imp->ws ? imp->ws->doacross_ndims : 0;
    uint64_t v[n ? n : 1];
    for (uint32_t d = 0; d < n; d++) v[d] = (uint64_t)counts[d];
    mo_post(v);
}

MO_ABI void GOMP_doacross_ull_post(unsigned long long *counts) {
    mo_implicit *imp = mo_ws_imp(mo_current());
    uint32_t n = imp->ws ? imp->ws->doacross_ndims : 0;
    uint64_t v[n ? n : 1];
    for (uint32_t d = 0; d < n; d++) v[d] = counts[d];
    mo_post(v);
}

MO_ABI void GOMP_doacross_wait(long first, ...) {
    mo_implicit *imp = mo_ws_imp(mo_current());
    uint32_t n = imp->ws ? imp->ws->doacross_ndims : 0;
    if (n == 0) return;
    uint64_t v[n];
    v[0] = (uint64_t)first; /* a negative number is past every count: outside the space */
    va_list ap;
    va_start(ap, first);
    for (uint32_t d = 1; d < n; d++) v[d] = (uint64_t)va_arg(ap, long);
    va_end(ap);
    mo_wait_for(v);
}

MO_ABI void GOMP_doacross_ull_wait(unsigned long long first, ...) {
    mo_implicit *imp = mo_ws_imp(mo_current());
    uint32_t n = imp->ws ? imp->ws->doacross_ndims : 0;
    if (n == 0) return;
    uint64_t v[n];
    v[0] = first;
    va_list ap;
    va_start(ap, first);
    for (uint32_t d = 1; d < n; d++) v[d] = va_arg(ap, unsigned long long);
    va_end(ap);
    mo_wait_for(v);
}
