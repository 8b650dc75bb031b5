/* loop.h — internal declarations of merino's loop layer (src/loop). Never included by users.
 *
 * Files and the direction of their calls (a file calls only files below it in this list):
 *   team.c      merino__team_*: a loop shared by the threads of a team the program made (an OpenMP
 *               parallel region: merino_for_omp), each thread running one participant
 *   run.c       merino_for, merino_reduce and the sums: options, entering the pool, one worker,
 *               the deterministic leaves' fixed combining tree
 *   adaptive.c  lazy binary splitting (adaptive, auto)
 *   shares.c    the schedules with one share per worker: static, static,k, dynamic, guided, steal,
 *               and the participants of idws
 *   idws.c      interrupt-driven work sharing (idws, idws-poll): ranges, donations, the signal
 *   units.c     running a sub-range: the body on indices, or whole deterministic leaves
 *   schedule.c  schedules as text: merino_schedule_parse, MERINO_SCHEDULE, names
 * All of them may call src/core (only through merino.h's tasks and core.h) and src/sys.
 *
 * Every schedule is built from plain merino tasks: a loop entered from outside the pool runs as a
 * MERINO_RUN root task, and the work is shared by spawning tasks that idle workers steal. Indices
 * are handled as unsigned offsets from begin ([0, n) with n = end - begin < 2^64), so that no
 * range, however large or negative, overflows; a sub-range of offsets becomes int64_t indices only
 * when the body is called. */
#ifndef MERINO_LOOP_INTERNAL_H
#define MERINO_LOOP_INTERNAL_H

#include "core/core.h"

#include "merino_loop.h"
#include "loop/prof_hooks.h" /* the profiler's hooks: nothing in the default build */

#include <stddef.h>
#include <string.h>

/* ---- tuning: each value with why ---------------------------------------------------------------- */

/* Adaptive: a chunk grows (doubling) while it takes less than half of this and shrinks when it
 * takes more than twice this. A thief's request waits for the chunk in progress, so this bounds
 * the latency of a split; long next to a clock read, so that reading the clock per chunk costs
 * nothing measurable. */
#define MRN_LOOP_CHUNK_NS 20000
/* Steal: the default chunk is a worker's share divided by this (one CAS on the owner's own cache
 * line per chunk). */
#define MRN_STEAL_CHUNKS_PER_SHARE 64

/* ---- one loop ------------------------------------------------------------------------------------ */

typedef struct mrn_loop_slot {
    _Alignas(MRN_CACHE_LINE) uint64_t range; /* atomic: steal: [lo, hi) in units, lo << 32 | hi */
} mrn_loop_slot;

typedef struct mrn_loop {
    /* The indices: begin + [0, n). */
    int64_t begin;
    uint64_t n;
    merino_for_fn *body;     /* merino_for */
    const merino_reducer *r; /* merino_reduce, else NULL */
    void *ctx;
    merino_schedule schedule; /* resolved: never DEFAULT or AUTO */
    uint64_t chunk;           /* as given (0: the schedule's default), resolved in mrn_loop_exec */
    const int *stop;          /* merino_for_opts.stop, or NULL */
    const int64_t *stop_at;   /* merino_for_opts.stop_at, or NULL */
    int64_t origin;           /* the index *stop_at is counted from: begin (merino_for_step: 0) */
    bool watch;               /* stop or stop_at given: the schedules check them (out of line) */
    unsigned max_workers;     /* merino_for_opts.max_workers (0: no limit) */
    unsigned busy;            /* atomic: adaptive under max_workers: workers in the loop, with the
                                 halves given away and not yet begun */

    /* Deterministic: the schedule runs over `units` leaves, not over the n indices. */
    uint64_t leaves;        /* 0: not deterministic; else the leaf count, units = leaves */
    unsigned char *partials; /* reductions: one partial of `stride` bytes per leaf */
    size_t stride;

    /* What the schedules share out: units [0, units) (indices, or leaves). */
    uint64_t units;
    unsigned parts;       /* participants: one share per worker, at most units */
    bool fold;            /* reductions that are not deterministic: the schedules carry partials */
    size_t partial_words; /* max_align_t words of one partial (1 when there is none) */
    uint64_t unit_scale;  /* steal: units per chunk index (packed 32-bit ranges) */

    _Alignas(MRN_CACHE_LINE) uint64_t next; /* atomic: dynamic, guided: first unit not handed out */
    uint64_t *counter; /* the counter dynamic and guided use: &next, or a team's (team.c) */
    _Alignas(MRN_CACHE_LINE) mrn_loop_slot *slots; /* steal: one per participant */
    struct mrn_idws_rec *idws;                     /* idws: one per participant */
} mrn_loop;

/* Whether the sub-ranges that begin at offset a (and, the stops only ever growing, every later one)
 * are to be skipped: merino_for_opts.stop is set, or a is at or past *stop_at. Out of line: loops
 * without a stop pay one test of L->watch per sub-range, as for the stop flag alone. */
bool mrn_loop_past_slow(const mrn_loop *L, uint64_t a);
static inline bool mrn_loop_past(const mrn_loop *L, uint64_t a) {
    return MRN_UNLIKELY(L->watch) && mrn_loop_past_slow(L, a);
}

/* The offset of the first index of unit u (an index, or a deterministic leaf's first). */
static inline uint64_t mrn_unit_offset(const mrn_loop *L, uint64_t u) {
    return L->leaves ? (uint64_t)((unsigned __int128)L->n * u / L->leaves) : u;
}

/* Whether a schedule may leave the units from u on: they are past a stop, and no leaves' partials
 * must all be made (deterministic loops visit every leaf, and mrn_loop_units skips the bodies). */
static inline bool mrn_loop_cut(const mrn_loop *L, uint64_t u) { return L->leaves == 0 && mrn_loop_past(L, u); }

/* Runs the units [a, b) (a < b): indices, or whole leaves, each into its own partial. acc is the
 * partial to fold into when L->fold, else NULL. Once the loop is asked to stop it runs no body
 * (but still makes each leaf's partial: the combining tree reads them all). */
void mrn_loop_units(const mrn_loop *L, uint64_t a, uint64_t b, void *acc);

/* A partial: init (a copy of the identity, or r->init) and fold (acc = acc (+) right, then right is
 * destroyed). */
static inline void mrn_partial_init(const mrn_loop *L, void *acc) {
    if (L->r->init)
        L->r->init(acc, L->ctx);
    else if (L->r->size == 8) /* the sums: a move, not a call of memcpy (once per deterministic leaf) */
        memcpy(acc, L->r->identity, 8);
    else
        memcpy(acc, L->r->identity, L->r->size);
}
static inline void mrn_partial_fold(const mrn_loop *L, void *acc, void *right) {
    L->r->combine(acc, right, L->ctx);
    if (L->r->destroy) L->r->destroy(right, L->ctx);
}

/* A partial named NAME for L (a NULL pointer when L carries none), on the C stack, initialized. */
#define MRN_PARTIAL(NAME, L)                                                                       \
    max_align_t NAME##_buf[(L)->partial_words];                                                    \
    void *NAME = (L)->fold ? (void *)NAME##_buf : NULL;                                            \
    if (NAME) mrn_partial_init(L, NAME)

/* Folds right into acc when L carries partials. */
static inline void mrn_partial_fold_if(const mrn_loop *L, void *acc, void *right) {
    if (right) mrn_partial_fold(L, acc, right);
}

/* The next chunk after one that took `took` ns: doubled while chunks take less than half of
 * MRN_LOOP_CHUNK_NS, halved (not below grain) when one takes more than twice that. */
static inline uint64_t mrn_chunk_next(uint64_t chunk, uint64_t took, uint64_t grain) {
    if (took < MRN_LOOP_CHUNK_NS / 2 && chunk <= UINT64_MAX / 2) return chunk * 2;
    if (took > 2 * MRN_LOOP_CHUNK_NS && chunk / 2 >= grain) return chunk / 2;
    return chunk;
}

/* Whether other workers want part of the range this worker runs: a thief's request is pending
 * (split all ones: src/core/thief.c), or the worker is in public mode (limit 0: src/core/owner.c),
 * where thieves do not ask, and none of its public tasks is left for them (bot has reached top).
 * limit 0 alone is not enough: public mode lasts while the worker's tasks are long, and a loop that
 * split at every chunk of it would cut its range into grains. */
static inline bool mrn_loop_wanted(void) {
    /* relaxed: the owner's words and a thief's hints; no data attached */
    if (__atomic_load_n(&merino__split, __ATOMIC_RELAXED) == UINTPTR_MAX) return true;
    if (__atomic_load_n(&merino__limit, __ATOMIC_RELAXED) != 0) return false;
    /* relaxed: bot moves up as thieves take our public tasks; a hint */
    return __atomic_load_n(&mrn_self()->bot, __ATOMIC_RELAXED) >= merino__next;
}

/* run.c: fills L from the arguments and options (stops the program on bad ones, naming fn); then,
 * for a loop shared by `workers` participants, its units, chunk and participants. */
void mrn_loop_setup(mrn_loop *L, int64_t begin, int64_t end, const merino_for_opts *opts, const char *fn);
void mrn_loop_prepare(mrn_loop *L, unsigned workers);
/* run.c: a participant count limited by opts.max_workers. */
static inline unsigned mrn_loop_limit(const mrn_loop *L, unsigned workers) {
    return L->max_workers && L->max_workers < workers ? L->max_workers : workers;
}
/* adaptive.c: the units [a, b) with lazy splitting, folded into acc. */
void mrn_loop_adaptive(mrn_loop *L, uint64_t a, uint64_t b, void *acc);
/* shares.c: the units with one share per participant (L->parts), folded into acc; or its parts:
 * the set-up (the schedule's ranges, counter and signal), participant p, the clean-up. */
void mrn_loop_shares(mrn_loop *L, void *acc);
void mrn_loop_shares_setup(mrn_loop *L);
void mrn_loop_share(mrn_loop *L, unsigned p, void *acc);
void mrn_loop_shares_teardown(mrn_loop *L);
/* idws.c: the participants' ranges and the signal (set up once per loop, before the participants
 * run; stops the program when the signal cannot be had), participant p, and the clean-up. */
void mrn_idws_setup(mrn_loop *L);
void mrn_idws_share(mrn_loop *L, unsigned p, void *acc);
void mrn_idws_teardown(mrn_loop *L);
extern uint64_t mrn_idws_sent, mrn_idws_given, mrn_idws_fallbacks; /* counts, for the tests */
/* The steps of the donation protocol (idws.c) where tests/test_loop_inject.c delivers the signal,
 * or stalls the thread, in a build of idws.c with MRN_IDWS_TEST_HOOKS (never in the library). */
enum mrn_idws_step {
    /* on the owner of the range (the victim): */
    MRN_IDWS_STEP_CLAIM_BEGIN,   /* about to store its claim of the next chunk */
    MRN_IDWS_STEP_CLAIM_STORED,  /* claim stored, before the fence */
    MRN_IDWS_STEP_CLAIM_FENCED,  /* after the fence, before reading the end */
    MRN_IDWS_STEP_CLAIM_LOCKED,  /* the end was lowered past the claim: settling it, lock held */
    MRN_IDWS_STEP_CLAIM_SETTLED, /* claim settled, lock still held */
    MRN_IDWS_STEP_CHUNK_DONE,    /* a chunk's bodies returned, before the next claim */
    MRN_IDWS_STEP_STATE_LOCKED,  /* changing its state (running, idle), lock held */
    MRN_IDWS_STEP_STATE_STORED,  /* state stored and requests refused, lock still held */
    MRN_IDWS_STEP_NEW_RANGE,     /* a range it got as a thief installed, lock held */
    MRN_IDWS_STEP_LEAVING,       /* leaving its participant: IDLE stored, before the fence */
    /* on a thief, about the victim's record: */
    MRN_IDWS_STEP_ASKED,         /* request posted, signal not yet sent */
    MRN_IDWS_STEP_WITHDRAWN,     /* no answer in time: request withdrawn, victim not yet locked */
    MRN_IDWS_STEP_SPLIT_LOWERED, /* taking the half itself: victim's end lowered, before the fence */
    MRN_IDWS_STEP_SPLIT_FENCED,  /* after the fence, before reading the victim's claim */
    MRN_IDWS_STEP_KICK_COUNTED,  /* about to signal: counted in the victim's senders, before the fence */
    MRN_IDWS_STEP_KICK_CHECKED,  /* the victim's state read RUNNING, before the pthread_kill */
    MRN_IDWS_STEPS
};
/* schedule.c: MERINO_SCHEDULE, parsed once; stops the program when it is malformed. */
void mrn_loop_env(merino_for_opts *out);

#endif
