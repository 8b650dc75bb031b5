/* idws.c — interrupt-driven work sharing (Rokos, Gorman & Kelly; the idws and idws-poll schedules).
 *
 * Each participant owns a range [claimed, end) of units and runs it in chunks (timed as adaptive's).
 * An idle participant (a thief) picks the one with the most units left and asks it for work: it
 * posts its number in the victim's `req` and, under idws, sends the victim's thread a real-time
 * signal. The victim gives away the back half of what lies beyond its chunk in progress — in the
 * signal handler (idws), or at its next chunk boundary (idws-poll) — by lowering its `end` and
 * writing the half into the thief's mailbox. A victim that does not answer within
 * MRN_IDWS_PATIENCE_NS (descheduled, busy in a long chunk under idws-poll, or with the signal
 * blocked) has the half taken from it by the thief itself (mrn_idws_split).
 *
 * The owner's claim of a chunk and a thief's taking of a half meet as a Dekker pair: the owner
 * stores `claimed`, fences, reads `end`; the thief stores a lower `end`, fences, reads `claimed`,
 * and gives the half back when the owner's claim went past it. A conflict seen by the owner is
 * settled under the range's lock, which every change of `end` holds. The signal handler, which
 * runs on the owner's own thread, sees the owner's stores in program order and only try-locks (the
 * code it interrupted may hold the lock): a failed try leaves the request to the thief's fallback.
 * The handler touches lock-free atomics and the mailbox only: it is async-signal-safe.
 *
 * The signal reaches a thread only while it runs a participant (a body, or this file's code between
 * chunks), never the tasks or the program code it runs before or after: a thief signals a
 * participant only while its state is RUNNING, and counts itself in the participant's `senders`
 * around the check and the pthread_kill; a participant that leaves stores IDLE, waits until no
 * thief is counted (a Dekker pair on state and senders), and then, if it was ever signalled, makes
 * one system call, on whose return the kernel delivers what is queued for the thread. A thread that
 * blocks the signal when its participant starts (a program that blocks every signal, say, for
 * sigwait) is never signalled: its participant answers requests by polling, as under idws-poll,
 * and nothing piles up in the thread's signal queue. */
#include "loop/loop.h"

#include "alloc/mem.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How long a thief waits for a victim's answer before it takes the half itself. Long enough for a
 * running victim to take the signal (a few microseconds) or finish a chunk (MRN_LOOP_CHUNK_NS);
 * short next to a scheduler's time slice, which is what a descheduled victim costs otherwise. */
#ifndef MRN_IDWS_PATIENCE_NS
#define MRN_IDWS_PATIENCE_NS 200000
#endif
/* The signal, as an offset from SIGRTMIN, unless MERINO_IDWS_SIGNAL says otherwise. */
#define MRN_IDWS_SIGNAL_OFFSET 3

enum { MRN_IDWS_PENDING, MRN_IDWS_RUNNING, MRN_IDWS_IDLE }; /* state */
enum { MRN_IDWS_WAITING, MRN_IDWS_GIVEN, MRN_IDWS_REFUSED }; /* answer */

typedef struct mrn_idws_rec {
    _Alignas(MRN_CACHE_LINE) uint64_t claimed; /* atomic: units below are the owner's (its chunk
                                                  in progress included, tentatively) */
    uint64_t end;       /* atomic: the range ends here; lowered by donations, under `lock` */
    uint32_t state;     /* atomic: PENDING (a range, not yet run), RUNNING, IDLE */
    uint32_t lock;      /* atomic: 1 while `end` changes or the owner settles a conflict */
    uint32_t req;       /* atomic: 0, or the number + 1 of the participant asking for work */
    uint32_t answer;    /* atomic: this participant as a thief: WAITING, GIVEN, REFUSED */
    uint32_t senders;   /* atomic: thieves between their check of state and their pthread_kill */
    uint32_t kicked;    /* atomic: a thief has signalled this participant */
    uint64_t got_lo, got_hi;  /* the range given to this participant (before answer = GIVEN) */
    pthread_t thread;         /* the thread running it (before state = RUNNING) */
    bool by_signal;           /* thieves signal it (idws, and the thread takes the signal); else it
                                 polls for requests between chunks (before state = RUNNING) */
    struct mrn_idws_rec *all; /* the loop's records, for the handler */
    uint64_t min;             /* a range is split only when it has 2 * min units left */
} mrn_idws_rec;

/* ---- test hooks ----------------------------------------------------------------------------------
 * tests/test_loop_inject.c compiles this file again, with MRN_IDWS_TEST_HOOKS defined, into its own
 * executable (in place of the library's copy): MRN_IDWS_STEP(step, r) then calls the test at every
 * step of the protocol listed in loop.h (enum mrn_idws_step), where it delivers the signal, or
 * stalls the thread, at exactly that step; thieves send no signal of their own while
 * mrn_idws_test_quiet is set, so that the test's are the only ones; the handler counts the signals
 * that land on a thread with no participant current. The library compiles none of it. */
#ifdef MRN_IDWS_TEST_HOOKS
struct mrn_idws_rec;
static void mrn_idws_test_step(enum mrn_idws_step step, struct mrn_idws_rec *r);
static bool mrn_idws_test_quiet;          /* atomic: thieves send no signal */
static uint64_t mrn_idws_test_handled;    /* atomic: handler runs */
static uint64_t mrn_idws_test_outside;    /* atomic: handler runs with no participant current */
#define MRN_IDWS_STEP(step, r) mrn_idws_test_step(step, r)
#define MRN_IDWS_SEND() (!__atomic_load_n(&mrn_idws_test_quiet, __ATOMIC_RELAXED)) /* relaxed: a test's switch */
static inline void mrn_idws_test_handled_by(const struct mrn_idws_rec *r) {
    if (r == NULL) __atomic_fetch_add(&mrn_idws_test_outside, 1, __ATOMIC_RELAXED); /* relaxed: a count */
    __atomic_fetch_add(&mrn_idws_test_handled, 1, __ATOMIC_RELEASE); /* release: the handler's stores, for the test's acquire load */
}
#define MRN_IDWS_HANDLED(r) mrn_idws_test_handled_by(r)
#else
#define MRN_IDWS_STEP(step, r) ((void)0)
#define MRN_IDWS_SEND() true
#define MRN_IDWS_HANDLED(r) ((void)0)
#endif

/* Counts for the tests (tests/test_loop_idws.c), summed over the process. */
uint64_t mrn_idws_sent;      /* atomic: signals sent */
uint64_t mrn_idws_given;     /* atomic: donations made by victims (handler or poll) */
uint64_t mrn_idws_fallbacks; /* atomic: halves a thief took itself after waiting */

static inline void mrn_idws_count(uint64_t *c) {
    __atomic_fetch_add(c, 1, __ATOMIC_RELAXED); /* relaxed: a statistic; lock-free, signal-safe */
}

/* The record the thread runs now, for the signal handler; the previous one is restored when a
 * (nested) participant ends. */
static __thread mrn_idws_rec *mrn_idws_current __attribute__((tls_model("initial-exec")));

/* ---- the lock and the ranges --------------------------------------------------------------------- */

static inline bool mrn_idws_trylock(mrn_idws_rec *r) {
    /* acquire: the holder's stores of end and the mailbox before its release */
    return __atomic_exchange_n(&r->lock, 1, __ATOMIC_ACQUIRE) == 0;
}
static inline void mrn_idws_lock(mrn_idws_rec *r) {
    while (!mrn_idws_trylock(r))
        while (__atomic_load_n(&r->lock, __ATOMIC_RELAXED)) sched_yield(); /* relaxed: a hint */
}
static inline void mrn_idws_unlock(mrn_idws_rec *r) {
    __atomic_store_n(&r->lock, 0, __ATOMIC_RELEASE); /* release: our stores, for the next holder */
}

/* Units r has left beyond its claim (a snapshot). */
static inline uint64_t mrn_idws_left(mrn_idws_rec *r) {
    /* relaxed: a snapshot to choose a victim by; what is taken is decided under the lock */
    uint64_t k = __atomic_load_n(&r->claimed, __ATOMIC_RELAXED), e = __atomic_load_n(&r->end, __ATOMIC_RELAXED);
    return e > k ? e - k : 0;
}

/* The owner claims [at, at + want), or what is left of it: returns the end of its chunk (at when
 * nothing is left). */
static uint64_t mrn_idws_claim(mrn_idws_rec *r, uint64_t at, uint64_t want) {
    uint64_t t = want < UINT64_MAX - at ? at + want : UINT64_MAX;
    MRN_IDWS_STEP(MRN_IDWS_STEP_CLAIM_BEGIN, r);
    __atomic_store_n(&r->claimed, t, __ATOMIC_RELAXED); /* relaxed: ordered by the fence below */
    MRN_IDWS_STEP(MRN_IDWS_STEP_CLAIM_STORED, r);
    /* seq_cst fence: our claim before our read of end, against a thief's store of end before its
     * read of claimed (mrn_idws_split): one of us sees the other's store */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    MRN_IDWS_STEP(MRN_IDWS_STEP_CLAIM_FENCED, r);
    uint64_t e = __atomic_load_n(&r->end, __ATOMIC_RELAXED); /* relaxed: see the fence */
    if (MRN_LIKELY(t <= e)) return t;
    mrn_idws_lock(r); /* end was lowered, maybe below our claim: settle it with the lock held */
    MRN_IDWS_STEP(MRN_IDWS_STEP_CLAIM_LOCKED, r);
    e = __atomic_load_n(&r->end, __ATOMIC_RELAXED); /* relaxed: the lock orders it */
    t = t < e ? t : e;
    if (t < at) t = at;
    __atomic_store_n(&r->claimed, t, __ATOMIC_RELAXED); /* relaxed: the lock orders it */
    MRN_IDWS_STEP(MRN_IDWS_STEP_CLAIM_SETTLED, r);
    mrn_idws_unlock(r);
    return t;
}

/* With r's lock held: takes the back half of what r has left, [*lo, *hi); false when there is too
 * little or the owner's claim got there first. from_owner: called on r's own thread (its handler,
 * or its owner at a chunk boundary), which sees its own claim in program order. */
static bool mrn_idws_split(mrn_idws_rec *r, bool from_owner, uint64_t *lo, uint64_t *hi) {
    /* relaxed: the lock orders end; claimed is the owner's, checked below */
    uint64_t k = __atomic_load_n(&r->claimed, __ATOMIC_RELAXED), e = __atomic_load_n(&r->end, __ATOMIC_RELAXED);
    if (e <= k || e - k < 2 * r->min) return false;
    uint64_t mid = k + (e - k) / 2;
    __atomic_store_n(&r->end, mid, __ATOMIC_RELAXED); /* relaxed: ordered by the fence below */
    if (!from_owner) {
        MRN_IDWS_STEP(MRN_IDWS_STEP_SPLIT_LOWERED, r);
        /* seq_cst fence: the other half of the Dekker pair of mrn_idws_claim */
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        MRN_IDWS_STEP(MRN_IDWS_STEP_SPLIT_FENCED, r);
        if (__atomic_load_n(&r->claimed, __ATOMIC_RELAXED) > mid) { /* relaxed: see the fence */
            __atomic_store_n(&r->end, e, __ATOMIC_RELAXED); /* the owner got there: give it back */
            return false;
        }
    }
    *lo = mid;
    *hi = e;
    return true;
}

/* ---- donations ------------------------------------------------------------------------------------ */

/* Answers the request pending on r, if any (on r's own thread: the handler, or the owner between
 * chunks). Async-signal-safe: lock-free atomics and plain stores to the thief's mailbox. */
static void mrn_idws_donate(mrn_idws_rec *r) {
    /* relaxed: a peek; the CAS below decides */
    uint32_t q = __atomic_load_n(&r->req, __ATOMIC_RELAXED);
    if (q == 0 || !mrn_idws_trylock(r)) return; /* a held lock: the thief falls back */
    /* acquire: pairs with the thief's release CAS, so that its answer = WAITING comes before ours
     * (a thief that withdraws does the same CAS: one of us wins) */
    if (__atomic_compare_exchange_n(&r->req, &q, 0, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
        mrn_idws_rec *t = &r->all[q - 1];
        uint64_t lo, hi;
        bool given = mrn_idws_split(r, true, &lo, &hi);
        if (given) {
            t->got_lo = lo, t->got_hi = hi;
            mrn_idws_count(&mrn_idws_given);
        }
        /* release: the mailbox, for the thief's acquire load */
        __atomic_store_n(&t->answer, given ? MRN_IDWS_GIVEN : MRN_IDWS_REFUSED, __ATOMIC_RELEASE);
    }
    mrn_idws_unlock(r);
}

/* The handler is async-signal-safe: it calls no function but lock-free atomic operations on the
 * records (checked here), plain stores to the thief's mailbox and errno's save and restore; it
 * reads its record through an initial-exec thread-local (no lazy allocation), and only try-locks. */
_Static_assert(__atomic_always_lock_free(sizeof(uint64_t), 0) && __atomic_always_lock_free(sizeof(uint32_t), 0),
               "the idws signal handler needs lock-free 32- and 64-bit atomics");
static void mrn_idws_handler(int sig, siginfo_t *info, void *uc) {
    (void)sig, (void)info, (void)uc;
    int saved = errno;
    mrn_idws_rec *r = mrn_idws_current;
    if (r) mrn_idws_donate(r);
    MRN_IDWS_HANDLED(r);
    errno = saved;
}

/* ---- the signal -------------------------------------------------------------------------------------- */

static int mrn_idws_signal;           /* set once under mrn_idws_once */
static char mrn_idws_error[400];      /* why the signal cannot be had, or "" */
static pthread_once_t mrn_idws_once = PTHREAD_ONCE_INIT;

static void mrn_idws_install(void) {
    int sig = SIGRTMIN + MRN_IDWS_SIGNAL_OFFSET;
    const char *env = getenv("MERINO_IDWS_SIGNAL");
    if (env && *env) {
        char *end;
        errno = 0;
        long v = strtol(env, &end, 10);
        if (errno || *end || end == env || v < SIGRTMIN || v > SIGRTMAX) {
            snprintf(mrn_idws_error, sizeof mrn_idws_error,
                     "MERINO_IDWS_SIGNAL='%.40s' is not a real-time signal: set it to a number from %d to "
                     "%d (SIGRTMIN to SIGRTMAX), or unset it for %d",
                     env, SIGRTMIN, SIGRTMAX, SIGRTMIN + MRN_IDWS_SIGNAL_OFFSET);
            return;
        }
        sig = (int)v;
    }
    struct sigaction old;
    if (sigaction(sig, NULL, &old) != 0) {
        snprintf(mrn_idws_error, sizeof mrn_idws_error, "the idws schedule cannot use signal %d (%s)", sig,
                 strerror(errno));
        return;
    }
    bool ignored = !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_IGN;
    bool taken = (old.sa_flags & SA_SIGINFO) ? old.sa_sigaction != NULL : old.sa_handler != SIG_DFL;
    if (ignored) {
        snprintf(mrn_idws_error, sizeof mrn_idws_error,
                 "the idws schedule needs real-time signal %d for its handler, but the signal is ignored "
                 "(SIG_IGN) in this process — set by the program, or inherited from the process that "
                 "started it, since exec keeps ignored signals ignored: set MERINO_IDWS_SIGNAL to another "
                 "(%d to %d), put SIG_DFL back on it before the first idws loop, or use idws-poll (no signal)",
                 sig, SIGRTMIN, SIGRTMAX);
        return;
    }
    if (taken) {
        snprintf(mrn_idws_error, sizeof mrn_idws_error,
                 "the idws schedule needs real-time signal %d for its handler, but the program has "
                 "installed a handler of its own on it: set MERINO_IDWS_SIGNAL to a free one (%d to %d), "
                 "or use another schedule (idws-poll needs no signal)",
                 sig, SIGRTMIN, SIGRTMAX);
        return;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = mrn_idws_handler;
    sa.sa_flags = SA_SIGINFO | SA_RESTART; /* bodies' system calls restart (those that can) */
    sigemptyset(&sa.sa_mask);
    if (sigaction(sig, &sa, NULL) != 0) {
        snprintf(mrn_idws_error, sizeof mrn_idws_error, "the idws schedule cannot install its handler on "
                 "signal %d (%s)", sig, strerror(errno));
        return;
    }
    mrn_idws_signal = sig;
}

/* ---- a loop's participants --------------------------------------------------------------------- */

/* Stops the program unless our handler is still on the signal: checked at every idws loop, and by
 * a thief before each signal it sends (a program that put SIG_DFL back would be killed by it). */
static void mrn_idws_check_handler(void) {
    struct sigaction cur;
    memset(&cur, 0, sizeof cur);
    if (sigaction(mrn_idws_signal, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) &&
        cur.sa_sigaction == mrn_idws_handler)
        return;
    const char *now = (cur.sa_flags & SA_SIGINFO) ? "a handler of its own"
                      : cur.sa_handler == SIG_DFL ? "SIG_DFL, under which the signal would end the process"
                      : cur.sa_handler == SIG_IGN ? "SIG_IGN"
                                                  : "a handler of its own";
    mrn_fatal("the idws schedule's handler on real-time signal %d was replaced by the program (now %s): "
              "leave that signal to merino while idws loops run (or set MERINO_IDWS_SIGNAL to another), "
              "or use another schedule",
              mrn_idws_signal, now);
}

/* Stops the program unless our handler is on the signal (installed now, the first time). */
static void mrn_idws_check_signal(void) {
    pthread_once(&mrn_idws_once, mrn_idws_install);
    if (mrn_idws_signal == 0) mrn_fatal("%s", mrn_idws_error);
    mrn_idws_check_handler();
}

/* Whether the calling thread takes the signal (does not block it): one system call. */
static bool mrn_idws_unblocked(void) {
    sigset_t cur;
    return pthread_sigmask(SIG_BLOCK, NULL, &cur) == 0 && !sigismember(&cur, mrn_idws_signal);
}

/* As a thief: signals victim v if it still runs its participant (state RUNNING), counted in its
 * senders meanwhile so that a victim that leaves waits for the signal to be queued (mrn_idws_leave). */
static void mrn_idws_kick(mrn_idws_rec *v) {
    __atomic_fetch_add(&v->senders, 1, __ATOMIC_RELAXED); /* relaxed: ordered by the fence below */
    MRN_IDWS_STEP(MRN_IDWS_STEP_KICK_COUNTED, v);
    /* seq_cst fence: our count before our read of the state, against the victim's IDLE before its
     * read of the count (mrn_idws_leave): one of us sees the other's store */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (__atomic_load_n(&v->state, __ATOMIC_RELAXED) == MRN_IDWS_RUNNING) { /* relaxed: see the fence */
        MRN_IDWS_STEP(MRN_IDWS_STEP_KICK_CHECKED, v);
        mrn_idws_check_handler();
        __atomic_store_n(&v->kicked, 1, __ATOMIC_RELAXED); /* relaxed: published by the release below */
        mrn_idws_count(&mrn_idws_sent);
        pthread_kill(v->thread, mrn_idws_signal);
    }
    /* release: the signal is queued on the victim's thread, and kicked set, before the victim sees
     * the count drop */
    __atomic_fetch_sub(&v->senders, 1, __ATOMIC_RELEASE);
}

/* A participant that takes signals leaves (its state IDLE for good): waits until no thief is about
 * to signal it, then, if any did, makes a system call so that the kernel delivers the signals
 * queued for this thread on its return — here, not in whatever the thread runs next. */
static void mrn_idws_leave(mrn_idws_rec *me) {
    MRN_IDWS_STEP(MRN_IDWS_STEP_LEAVING, me);
    /* seq_cst fence: the other half of mrn_idws_kick's pair (our IDLE, stored by set_state, before
     * our read of senders) */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    /* acquire: a thief's signal and kicked, before it decremented senders */
    while (__atomic_load_n(&me->senders, __ATOMIC_ACQUIRE) != 0) sched_yield();
    if (__atomic_load_n(&me->kicked, __ATOMIC_RELAXED)) { /* relaxed: ordered by the acquire above */
        sigset_t cur;
        pthread_sigmask(SIG_BLOCK, NULL, &cur); /* pending unblocked signals are delivered before it returns */
    }
}

void mrn_idws_setup(mrn_loop *L) {
    if (L->schedule == MERINO_SCHEDULE_IDWS) mrn_idws_check_signal();
    L->idws = mrn_mem_alloc(MRN_CACHE_LINE, sizeof(mrn_idws_rec) * L->parts);
    if (L->idws == NULL) mrn_fatal("merino_for: out of memory for the ranges of %u workers (idws)", L->parts);
    for (unsigned p = 0; p < L->parts; p++) {
        mrn_idws_rec *r = &L->idws[p];
        memset(r, 0, sizeof *r);
        r->claimed = (uint64_t)((unsigned __int128)L->units * p / L->parts);
        r->end = (uint64_t)((unsigned __int128)L->units * (p + 1) / L->parts);
        r->state = MRN_IDWS_PENDING;
        r->all = L->idws;
        r->min = L->chunk;
    }
}

void mrn_idws_teardown(mrn_loop *L) {
    mrn_mem_free(L->idws);
    L->idws = NULL;
}

/* Sets r's state, answering a request that can no longer be served (leaving: REFUSED). */
static void mrn_idws_set_state(mrn_idws_rec *r, uint32_t state) {
    mrn_idws_lock(r);
    MRN_IDWS_STEP(MRN_IDWS_STEP_STATE_LOCKED, r);
    /* acquire: as in mrn_idws_donate (the thief's WAITING before our REFUSED) */
    uint32_t q = __atomic_exchange_n(&r->req, 0, __ATOMIC_ACQUIRE);
    if (q) __atomic_store_n(&r->all[q - 1].answer, MRN_IDWS_REFUSED, __ATOMIC_RELEASE); /* release: as there */
    /* release: the thread (and the range) before RUNNING, for a thief's acquire load */
    __atomic_store_n(&r->state, state, __ATOMIC_RELEASE);
    MRN_IDWS_STEP(MRN_IDWS_STEP_STATE_STORED, r);
    mrn_idws_unlock(r);
}

/* As a thief: waits for victim v's answer to our request, else withdraws it and takes the half
 * ourselves. Returns true with a range in [*lo, *hi). */
static bool mrn_idws_ask(mrn_idws_rec *me, mrn_idws_rec *v, uint64_t *lo, uint64_t *hi) {
    uint32_t none = 0, mine = (uint32_t)(me - me->all) + 1;
    __atomic_store_n(&me->answer, MRN_IDWS_WAITING, __ATOMIC_RELAXED); /* relaxed: before the release CAS */
    /* release: our answer = WAITING before any donor can overwrite it */
    if (!__atomic_compare_exchange_n(&v->req, &none, mine, false, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
        return false; /* another thief asks: choose again */
    MRN_IDWS_STEP(MRN_IDWS_STEP_ASKED, v);
    if (v->by_signal && MRN_IDWS_SEND()) mrn_idws_kick(v);
    uint64_t t0 = mrn_clock_ns();
    bool taken = false; /* a donor took our request: wait for its answer, however long */
    for (;;) {
        /* acquire: the donor's mailbox stores */
        uint32_t a = __atomic_load_n(&me->answer, __ATOMIC_ACQUIRE);
        if (a != MRN_IDWS_WAITING) {
            *lo = me->got_lo, *hi = me->got_hi;
            return a == MRN_IDWS_GIVEN;
        }
        if (!taken && mrn_clock_ns() - t0 > MRN_IDWS_PATIENCE_NS) {
            /* relaxed: withdrawn, nobody answers it now (a donor that took it first answers) */
            if (__atomic_compare_exchange_n(&v->req, &mine, 0, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
                MRN_IDWS_STEP(MRN_IDWS_STEP_WITHDRAWN, v);
                mrn_idws_lock(v);
                bool got = mrn_idws_split(v, false, lo, hi);
                mrn_idws_unlock(v);
                if (got) mrn_idws_count(&mrn_idws_fallbacks);
                return got;
            }
            taken = true;
        }
        sched_yield();
    }
}

/* As a thief: finds a range for me, true with [*lo, *hi), false when no participant has enough
 * left to split. */
static bool mrn_idws_find(const mrn_loop *L, mrn_idws_rec *me, uint64_t *lo, uint64_t *hi) {
    for (;;) {
        mrn_idws_rec *best = NULL;
        uint64_t best_left = 0;
        for (unsigned p = 0; p < L->parts; p++) {
            mrn_idws_rec *r = &me->all[p];
            uint64_t left = mrn_idws_left(r);
            /* relaxed: a snapshot to choose from; the victim's thread is read after the acquire below */
            if (r != me && left >= 2 * me->min && left > best_left &&
                __atomic_load_n(&r->state, __ATOMIC_RELAXED) != MRN_IDWS_IDLE &&
                !mrn_loop_cut(L, __atomic_load_n(&r->claimed, __ATOMIC_RELAXED))) { /* past a stop: nothing to run */
                best = r;
                best_left = left;
            }
        }
        if (best == NULL) return false;
        /* acquire: a RUNNING state publishes the thread to signal (mrn_idws_ask) */
        if (__atomic_load_n(&best->state, __ATOMIC_ACQUIRE) == MRN_IDWS_PENDING) {
            mrn_idws_lock(best); /* nobody runs it yet: take the half directly */
            bool got = __atomic_load_n(&best->state, __ATOMIC_RELAXED) == MRN_IDWS_PENDING && /* relaxed: locked */
                       mrn_idws_split(best, false, lo, hi);
            mrn_idws_unlock(best);
            if (got) return true;
        } else if (mrn_idws_ask(me, best, lo, hi)) {
            return true;
        }
        sched_yield(); /* refused or raced: look again */
    }
}

void mrn_idws_share(mrn_loop *L, unsigned p, void *acc) {
    mrn_idws_rec *me = &L->idws[p];
    me->thread = pthread_self();
    me->by_signal = L->schedule == MERINO_SCHEDULE_IDWS && mrn_idws_unblocked();
    mrn_idws_set_state(me, MRN_IDWS_RUNNING);
    mrn_idws_rec *outer = mrn_idws_current;
    mrn_idws_current = me;
    __atomic_signal_fence(__ATOMIC_SEQ_CST); /* the handler sees current only once it is set */
    bool poll = !me->by_signal;
    uint64_t chunk = L->chunk, at = __atomic_load_n(&me->claimed, __ATOMIC_RELAXED); /* relaxed: ours */
    for (;;) {
        uint64_t t0 = mrn_clock_ns();
        for (;;) { /* our range, chunk by chunk */
            /* relaxed: a peek at the request; mrn_idws_donate decides under the lock */
            if (poll && __atomic_load_n(&me->req, __ATOMIC_RELAXED)) mrn_idws_donate(me);
            uint64_t hi = mrn_idws_claim(me, at, chunk);
            if (hi <= at || mrn_loop_cut(L, at)) break;
            mrn_loop_units(L, at, hi, acc);
            MRN_IDWS_STEP(MRN_IDWS_STEP_CHUNK_DONE, me);
            at = hi;
            uint64_t t1 = mrn_clock_ns();
            chunk = mrn_chunk_next(chunk, t1 - t0, L->chunk);
            t0 = t1;
        }
        mrn_idws_set_state(me, MRN_IDWS_IDLE); /* no thief asks us now; refuse one that did */
        uint64_t lo, hi;
        if (!mrn_idws_find(L, me, &lo, &hi)) break;
        mrn_idws_lock(me);
        __atomic_store_n(&me->claimed, lo, __ATOMIC_RELAXED); /* relaxed: before RUNNING's release */
        __atomic_store_n(&me->end, hi, __ATOMIC_RELAXED); /* relaxed: the lock orders it for thieves */
        MRN_IDWS_STEP(MRN_IDWS_STEP_NEW_RANGE, me);
        mrn_idws_unlock(me);
        mrn_idws_set_state(me, MRN_IDWS_RUNNING);
        at = lo;
        chunk = L->chunk;
    }
    if (me->by_signal) mrn_idws_leave(me);
    __atomic_signal_fence(__ATOMIC_SEQ_CST); /* our last use of the record before current changes */
    mrn_idws_current = outer;
}
