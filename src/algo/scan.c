/* scan.c — merino_scan: a prefix sum in one pass over memory where it can, two where it must.
 *
 * The range is cut into chunks, which participants take in order from a shared counter. Chunk c
 * needs P(c-1), the fold of every chunk before it. If P(c-1) is published when c is taken, c is
 * scanned at once (the final body, from P(c-1)): one pass, as the serial scan. Otherwise c is
 * pre-scanned into its aggregate A(c) while its predecessor runs, P(c) = P(c-1) (+) A(c) is
 * published as soon as P(c-1) is, and c is then scanned from P(c-1) — from the cache, which still
 * holds the chunk. One participant alone takes the first path for every chunk; two or more mostly
 * the second, and the chain of publications moves one combine per chunk.
 *
 * Memory: two prefix slots, whatever the length. Chunk c writes slot c % 2 only after it has seen
 * P(c-1) published, and chunk c-1 publishes P(c-1) only after it has read P(c-2), the slot's old
 * value; so no prefix is overwritten before it is read.
 *
 * Waits: a chunk waits only for its predecessor, which a running participant took before it, and the
 * earliest unfinished chunk never waits: the scan always progresses. A wait spins briefly, then
 * yields the CPU (the predecessor's thread may be descheduled on a shared machine).
 *
 * Participants: the calling worker runs the first; between its chunks, when a thief asks for work
 * (the core's request), it spawns one more, up to the pool's size, and joins them at the end. */
#include "algo/algo.h"

#include <sched.h>

/* Indices per chunk when merino_scan_opts.chunk is 0. */
#define MRN_SCAN_CHUNK 16384
/* Pauses a waiting chunk spins before it yields: a predecessor's publication is usually less than
 * a chunk's time away (microseconds). */
#define MRN_SCAN_SPINS 256

typedef struct mrn_scan_slot {
    _Alignas(MRN_CACHE_LINE) uint64_t ready;                       /* atomic: 1 + the chunk of the prefix held */
    _Alignas(16) unsigned char value[MERINO_SCAN_MAX_SIZE]; /* the prefix, on the same line when small */
} mrn_scan_slot;

typedef struct mrn_scan {
    int64_t begin;
    uint64_t n, chunk, chunks;
    const merino_scanner *s;
    void *ctx;
    const int *stop;
    unsigned workers; /* the pool's: at most workers - 1 helpers */
    _Alignas(MRN_CACHE_LINE) uint64_t next; /* atomic: the next chunk to hand out */
    mrn_scan_slot slot[2];
} mrn_scan;

/* ---- sums -------------------------------------------------------------------------------------------- */

static inline void sum_init(const mrn_scan *S, void *sum) {
    if (S->s->init)
        S->s->init(sum, S->ctx);
    else
        memcpy(sum, S->s->identity, S->s->size);
}

static inline void sum_destroy(const mrn_scan *S, void *sum) {
    if (S->s->destroy) S->s->destroy(sum, S->ctx);
}

static inline bool stopped(const mrn_scan *S) {
    /* relaxed: a request to skip what has not begun; no data rides on it */
    return S->stop != NULL && __atomic_load_n(S->stop, __ATOMIC_RELAXED) != 0;
}

/* ---- one chunk ------------------------------------------------------------------------------------------ */

/* Whether P(c) is published. */
static inline bool published(const mrn_scan *S, uint64_t c) {
    /* acquire: the prefix's value, written before its release store below */
    return __atomic_load_n(&S->slot[c & 1].ready, __ATOMIC_ACQUIRE) == c + 1;
}

/* Waits for P(c); false when the scan was stopped meanwhile (its chunk may never be published). */
static bool wait_published(const mrn_scan *S, uint64_t c) {
    for (unsigned spins = 0; !published(S, c); spins++) {
        if (stopped(S)) return false;
        if (spins < MRN_SCAN_SPINS)
            mrn_cpu_relax();
        else
            sched_yield();
    }
    return true;
}

/* Publishes P(c) = a (+) b (b may be NULL). */
static void publish(mrn_scan *S, uint64_t c, const void *a, const void *b) {
    mrn_scan_slot *sl = &S->slot[c & 1];
    sum_destroy(S, sl->value); /* P(c-2): read already (see the top of this file) */
    sum_init(S, sl->value);
    S->s->combine(sl->value, a, S->ctx);
    if (b) S->s->combine(sl->value, b, S->ctx);
    __atomic_store_n(&sl->ready, c + 1, __ATOMIC_RELEASE); /* release: the value above */
}

static void scan_chunk(mrn_scan *S, uint64_t c) {
    uint64_t a = c * S->chunk, b = S->n - a < S->chunk ? S->n : a + S->chunk;
    int64_t lo = (int64_t)((uint64_t)S->begin + a), hi = (int64_t)((uint64_t)S->begin + b);
    _Alignas(16) unsigned char carry[MERINO_SCAN_MAX_SIZE];
    sum_init(S, carry);
    if (c > 0 && !published(S, c - 1)) {
        /* The predecessor runs: pre-scan now, scan once its prefix is known. */
        _Alignas(16) unsigned char agg[MERINO_SCAN_MAX_SIZE];
        sum_init(S, agg);
        S->s->body(lo, hi, agg, 0, S->ctx);
        if (wait_published(S, c - 1)) {
            S->s->combine(carry, S->slot[(c - 1) & 1].value, S->ctx);
            publish(S, c, carry, agg);
            S->s->body(lo, hi, carry, 1, S->ctx);
        }
        sum_destroy(S, agg);
    } else {
        if (c > 0) S->s->combine(carry, S->slot[(c - 1) & 1].value, S->ctx);
        S->s->body(lo, hi, carry, 1, S->ctx);
        publish(S, c, carry, NULL);
    }
    sum_destroy(S, carry);
}

/* Takes chunks until none is left. */
static void participate(mrn_scan *S) {
    while (!stopped(S)) {
        /* relaxed: hands out chunks; the prefixes carry their own order */
        uint64_t c = __atomic_fetch_add(&S->next, 1, __ATOMIC_RELAXED);
        if (c >= S->chunks) return;
        scan_chunk(S, c);
    }
}

/* ---- participants ---------------------------------------------------------------------------------------- */

/* Whether a thief wants work from this worker: its request is pending (split all ones), or the
 * worker spawns public (limit 0) — then a helper spawned now is taken at once or joined unused. */
static inline bool work_wanted(void) {
    /* relaxed: the owner's words and a thief's hints; no data attached */
    return __atomic_load_n(&merino__split, __ATOMIC_RELAXED) == UINTPTR_MAX ||
           __atomic_load_n(&merino__limit, __ATOMIC_RELAXED) == 0;
}

MERINO_VOID_TASK_1(mrn_scan_helper, mrn_scan *, S) { participate(S); }

/* The first participant: offers a helper whenever a thief asks (at most workers - 1), takes chunks
 * until none is left, then joins the helpers (one nobody took runs here and finds nothing to do). */
MERINO_VOID_TASK_1(mrn_scan_root, mrn_scan *, S) {
    S->workers = merino_workers(); /* the pool this run entered (it may have started it) */
    unsigned helpers = 0;
    while (!stopped(S)) {
        if (helpers + 1 < S->workers && work_wanted()) {
            MERINO_SPAWN(mrn_scan_helper, S);
            helpers++;
        }
        /* relaxed: as in participate */
        uint64_t c = __atomic_fetch_add(&S->next, 1, __ATOMIC_RELAXED);
        if (c >= S->chunks) break;
        scan_chunk(S, c);
    }
    for (; helpers > 0; helpers--) MERINO_JOIN(mrn_scan_helper);
}

/* ---- the entry ----------------------------------------------------------------------------------------- */

__attribute__((cold, noinline)) static void bad_scan(const merino_scanner *s, const void *total,
                                                     const merino_scan_opts *opts) {
    if (s == NULL || total == NULL || s->body == NULL || s->combine == NULL)
        mrn_fatal("merino_scan: %s is NULL: pass a result, and a merino_scanner with a body, a combine and an "
                  "identity (or init)",
                  s == NULL ? "the scanner" : total == NULL ? "total" : s->body == NULL ? "body" : "combine");
    if (s->size == 0 || s->size > MERINO_SCAN_MAX_SIZE)
        mrn_fatal("merino_scan: merino_scanner.size = %zu is out of range: sums take 1 to %d bytes "
                  "(MERINO_SCAN_MAX_SIZE); scan into a pointer for more",
                  s->size, MERINO_SCAN_MAX_SIZE);
    if (s->identity == NULL && s->init == NULL)
        mrn_fatal("merino_scan: merino_scanner has neither identity nor init: give one of them");
    if (opts && opts->chunk < 0)
        mrn_fatal("merino_scan: merino_scan_opts.chunk = %lld is negative: give a number of indices per chunk "
                  "(0: the default)",
                  (long long)opts->chunk);
}

void merino_scan(int64_t begin, int64_t end, void *total, const merino_scanner *s, void *ctx,
                 const merino_scan_opts *opts) {
    if (MRN_UNLIKELY(s == NULL || total == NULL || s->body == NULL || s->combine == NULL || s->size == 0 ||
                     s->size > MERINO_SCAN_MAX_SIZE || (s->identity == NULL && s->init == NULL) ||
                     (opts && opts->chunk < 0)))
        bad_scan(s, total, opts);
    mrn_scan S = {.begin = begin, .s = s, .ctx = ctx, .stop = opts ? opts->stop : NULL};
    sum_init(&S, total);
    if (end <= begin) return;
    S.n = (uint64_t)end - (uint64_t)begin;
    S.chunk = opts && opts->chunk > 0 ? (uint64_t)opts->chunk : MRN_SCAN_CHUNK;
    S.chunks = S.n / S.chunk + (S.n % S.chunk != 0);
    S.workers = merino_workers();
    if (S.chunks == 1 || S.workers == 1) { /* one pass, one call: nothing to share */
        if (!stopped(&S)) s->body(begin, end, total, 1, ctx);
        return;
    }
    sum_init(&S, S.slot[0].value);
    sum_init(&S, S.slot[1].value);
    MERINO_RUN(mrn_scan_root, &S);
    if (!stopped(&S)) s->combine(total, S.slot[(S.chunks - 1) & 1].value, ctx);
    sum_destroy(&S, S.slot[0].value);
    sum_destroy(&S, S.slot[1].value);
}
