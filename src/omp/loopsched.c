/* loopsched.c — the schedules of worksharing loops, on iteration numbers 0 .. n-1 (the ABI
 * layers, gomp_loop.c and gomp_loop_ull.c, turn them into the loop's values). The compiler's code
 * pulls chunks (GOMP_loop_*_next), so every schedule here hands out the calling thread's next
 * chunk:
 *
 *   static      one block per thread (chunk 0), or chunks dealt round robin — as libgomp
 *   dynamic     chunks from one shared counter (a CAS per chunk)
 *   guided      ceil(remaining / threads), at least chunk, from the same counter
 *   steal       each thread owns a contiguous block and takes chunks from its front; a thread
 *               whose block is done takes the back half of the largest block left
 *   auto        merino's adaptive schedule: steal, with each thread's chunk timed and grown (or
 *               shrunk) so that a chunk takes 10 to 40 us: static's locality and cost on regular
 *               loops, balance on irregular ones
 *
 * Ordered loops pass a turn from chunk to chunk in iteration order: a chunk's ordered regions
 * run when the turn has reached its first iteration, and the turn moves to the chunk's end when
 * its thread asks for the next chunk (or ends the loop). */
#include "omp/omp_layer.h"

#include <stdlib.h>

/* A thread's block for steal and auto. */
typedef struct mo_range {
    _Alignas(MO_LINE) uint64_t lo, hi; /* under lock */
    uint32_t lock;                     /* atomic spin lock: the owner and thieves */
} mo_range;

#define MO_AUTO_MIN_NS 10000u
#define MO_AUTO_MAX_NS 40000u

static inline void mo_range_lock(mo_range *r) {
    /* acquire: the range as the last holder left it */
    while (__atomic_exchange_n(&r->lock, 1, __ATOMIC_ACQUIRE)) mo_relax();
}
static inline void mo_range_unlock(mo_range *r) { __atomic_store_n(&r->lock, 0, __ATOMIC_RELEASE); }

void mo_loop_init(mo_ws *ws, uint64_t n, int kind, uint64_t chunk, uint32_t nthreads, bool ordered) {
    kind &= ~MO_SCHED_MONOTONIC;
    if (ordered && (kind == MO_SCHED_STEAL || kind == MO_SCHED_AUTO)) kind = MO_SCHED_DYNAMIC;
    if (nthreads == 1 && !ordered) kind = MO_SCHED_STATIC, chunk = 0; /* one chunk: the whole loop */
    ws->kind = kind;
    ws->n = n;
    ws->chunk = chunk;
    ws->nthreads = nthreads;
    ws->ordered = ordered;
    /* relaxed: published by the slot's ready (release) */
    __atomic_store_n(&ws->next, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&ws->ord_turn, 0, __ATOMIC_RELAXED);
    if (kind == MO_SCHED_STEAL || kind == MO_SCHED_AUTO) {
        free(ws->ranges);
        ws->ranges = aligned_alloc(MO_LINE, nthreads * sizeof(mo_range));
        if (!ws->ranges) mo_fatal("out of memory setting up a loop of %u threads", nthreads);
        uint64_t q = n / nthreads, r = n % nthreads;
        for (uint32_t i = 0; i < nthreads; i++) {
            uint64_t lo = i * q + (i < r ? i : r);
            ws->ranges[i].lo = lo;
            ws->ranges[i].hi = lo + q + (i < r);
            ws->ranges[i].lock = 0;
        }
    }
}

/* Resets the calling thread's private state for the loop it has just entered. */
void mo_loop_thread_start(mo_implicit *imp) {
    imp->trip = 0;
    imp->have_chunk = false;
    imp->grain = imp->ws->chunk ? imp->ws->chunk : 1;
    imp->chunk_start_ns = 0;
}

/* ---- static, dynamic, guided ---------------------------------------------------------------------- */

static bool mo_next_static(mo_implicit *imp, mo_ws *ws, uint64_t *lo, uint64_t *hi) {
    uint64_t n = ws->n, nt = ws->nthreads, me = imp->task.tnum;
    if (ws->chunk == 0) {
        if (imp->trip++ != 0) return false;
        uint64_t q = n / nt, r = n % nt;
        *lo = me * q + (me < r ? me : r);
        *hi = *lo + q + (me < r);
        return *lo < *hi;
    }
    uint64_t c = ws->chunk, idx, start;
    if (__builtin_mul_overflow(imp->trip, nt, &idx) || __builtin_add_overflow(idx, me, &idx) ||
        __builtin_mul_overflow(idx, c, &start) || start >= n)
        return false;
    imp->trip++;
    *lo = start;
    *hi = n - start < c ? n : start + c;
    return true;
}

static bool mo_next_dynamic(mo_ws *ws, uint64_t *lo, uint64_t *hi) {
    uint64_t c = ws->chunk ? ws->chunk : 1, n = ws->n;
    uint64_t cur = __atomic_load_n(&ws->next, __ATOMIC_RELAXED); /* relaxed: the CAS decides */
    uint64_t end;
    do {
        if (cur >= n) return false;
        end = n - cur < c ? n : cur + c;
        /* relaxed: hands out disjoint chunks; no data rides on the counter */
    } while (!__atomic_compare_exchange_n(&ws->next, &cur, end, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    *lo = cur;
    *hi = end;
    return true;
}

static bool mo_next_guided(mo_ws *ws, uint64_t *lo, uint64_t *hi) {
    uint64_t c = ws->chunk ? ws->chunk : 1, n = ws->n, nt = ws->nthreads;
    uint64_t cur = __atomic_load_n(&ws->next, __ATOMIC_RELAXED); /* relaxed: the CAS decides */
    uint64_t end;
    do {
        if (cur >= n) return false;
        uint64_t left = n - cur, q = (left + nt - 1) / nt;
        if (q < c) q = c;
        end = left <= q ? n : cur + q;
        /* relaxed: as dynamic */
    } while (!__atomic_compare_exchange_n(&ws->next, &cur, end, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    *lo = cur;
    *hi = end;
    return true;
}

/* ---- steal and auto ------------------------------------------------------------------------------- */

/* Takes the back half of the largest block left into the thief's own (empty) block; false when
 * every block is empty. */
static bool mo_steal_half(mo_ws *ws, uint32_t me) {
    for (;;) {
        uint32_t victim = me;
        uint64_t most = 0;
        for (uint32_t i = 0; i < ws->nthreads; i++) {
            if (i == me) continue;
            /* relaxed: a racy look to choose; the lock decides */
            uint64_t l = __atomic_load_n(&ws->ranges[i].lo, __ATOMIC_RELAXED);
            uint64_t h = __atomic_load_n(&ws->ranges[i].hi, __ATOMIC_RELAXED);
            if (h > l && h - l > most) most = h - l, victim = i;
        }
        if (victim == me) return false;
        mo_range *v = &ws->ranges[victim];
        mo_range_lock(v);
        uint64_t left = v->hi > v->lo ? v->hi - v->lo : 0;
        if (left == 0) {
            mo_range_unlock(v);
            continue; /* taken meanwhile: look again */
        }
        uint64_t take = left - left / 2; /* a block of one goes whole */
        uint64_t from = v->hi - take, to = v->hi;
        __atomic_store_n(&v->hi, from, __ATOMIC_RELAXED); /* relaxed: under the lock */
        mo_range_unlock(v);
        mo_range *mine = &ws->ranges[me];
        mo_range_lock(mine);
        __atomic_store_n(&mine->lo, from, __ATOMIC_RELAXED);
        __atomic_store_n(&mine->hi, to, __ATOMIC_RELAXED);
        mo_range_unlock(mine);
        return true;
    }
}

static bool mo_next_steal(mo_implicit *imp, mo_ws *ws, uint64_t *lo, uint64_t *hi) {
    uint32_t me = imp->task.tnum;
    mo_range *mine = &ws->ranges[me];
    if (ws->kind == MO_SCHED_AUTO) { /* time the chunk just run: keep chunks at 10-40 us */
        uint64_t now = mo_now_ns();
        if (imp->chunk_start_ns) {
            uint64_t took = now - imp->chunk_start_ns;
            if (took < MO_AUTO_MIN_NS && imp->grain < (UINT64_MAX >> 1))
                imp->grain *= 2;
            else if (took > MO_AUTO_MAX_NS && imp->grain > 1)
                imp->grain /= 2;
        }
        imp->chunk_start_ns = now;
    }
    uint64_t grain = ws->kind == MO_SCHED_STEAL && ws->chunk == 0 ? 0 : imp->grain;
    for (;;) {
        mo_range_lock(mine);
        if (mine->lo < mine->hi) {
            uint64_t g = grain;
            if (g == 0) { /* steal's default: about 1/64 of the thread's share */
                g = ws->n / ((uint64_t)ws->nthreads * 64);
                if (g == 0) g = 1;
            }
            *lo = mine->lo;
            *hi = mine->hi - mine->lo <= g ? mine->hi : mine->lo + g;
            __atomic_store_n(&mine->lo, *hi, __ATOMIC_RELAXED); /* relaxed: under the lock */
            mo_range_unlock(mine);
            return true;
        }
        mo_range_unlock(mine);
        if (!mo_steal_half(ws, me)) return false;
    }
}

/* ---- the next chunk ------------------------------------------------------------------------------- */

bool mo_loop_next(mo_implicit *imp, uint64_t *lo, uint64_t *hi) {
    mo_ws *ws = imp->ws;
    if (MO_UNLIKELY(ws->ordered) && imp->have_chunk) {
        /* our chunk is done: wait for its turn (its ordered parts may not have run, and later
         * chunks wait for it), then pass the turn on. release: our ordered regions' writes */
        mo_spin_wait_u64(imp->task.team, &ws->ord_turn, imp->chunk_lo, false);
        __atomic_store_n(&ws->ord_turn, imp->chunk_hi, __ATOMIC_RELEASE);
        imp->have_chunk = false;
    }
    bool got;
    switch (ws->kind) {
    case MO_SCHED_STATIC: got = mo_next_static(imp, ws, lo, hi); break;
    case MO_SCHED_DYNAMIC: got = mo_next_dynamic(ws, lo, hi); break;
    case MO_SCHED_GUIDED: got = mo_next_guided(ws, lo, hi); break;
    default: got = mo_next_steal(imp, ws, lo, hi); break;
    }
    if (got && ws->ordered) {
        imp->have_chunk = true;
        imp->chunk_lo = *lo;
        imp->chunk_hi = *hi;
    }
    return got;
}

/* The end of an ordered loop for the calling thread: its last chunk passes the turn on. */
void mo_loop_finish(mo_implicit *imp) {
    mo_ws *ws = imp->ws;
    if (ws && ws->ordered && imp->have_chunk) {
        mo_spin_wait_u64(imp->task.team, &ws->ord_turn, imp->chunk_lo, false);
        __atomic_store_n(&ws->ord_turn, imp->chunk_hi, __ATOMIC_RELEASE); /* release: as above */
        imp->have_chunk = false;
    }
}

/* GOMP_ordered_start: waits until the turn reaches the calling thread's chunk. */
void mo_ordered_start(mo_implicit *imp) {
    mo_ws *ws = imp->ws;
    if (ws == NULL || !ws->ordered || !imp->have_chunk) return;
    mo_spin_wait_u64(imp->task.team, &ws->ord_turn, imp->chunk_lo, false);
}

void mo_runtime_schedule(const mo_task *c, int *kind, uint64_t *chunk) {
    *kind = c->icv->run_sched & ~MO_SCHED_MONOTONIC;
    *chunk = c->icv->run_chunk > 0 ? (uint64_t)c->icv->run_chunk : 0;
}
