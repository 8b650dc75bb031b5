/* test_loop_inject.c — the idws donation protocol with the signal delivered at each of its steps,
 * deterministically. This file compiles src/loop/idws.c again with MRN_IDWS_TEST_HOOKS (in place of
 * the library's copy, which is then not linked), so that every step of the protocol (enum
 * mrn_idws_step in src/loop/loop.h) calls mrn_idws_test_step below. Thieves send no signal of their
 * own here; for each step in turn, the test:
 *   - owner steps, "signal": when a thief's request is pending on the range, raises the signal on
 *     the owner's thread at that step (pthread_kill of the thread itself: the handler runs before
 *     it returns), so the handler answers exactly there;
 *   - owner steps, "stall": holds the owner at that step, as if it were descheduled, until the thief
 *     has withdrawn its request and taken the half itself (or 5 ms), under idws and idws-poll;
 *   - thief steps: signals the victim while the thief is at that step, and waits for the handler.
 * Every loop counts each index (no iteration lost or run twice), and what each step allows is
 * checked: a handler that interrupts the owner outside its lock donates, one that interrupts it
 * inside does not (its try-lock fails, the thief falls back); a stalled owner loses half its range
 * to the thief unless it holds its lock; a request withdrawn is not answered by the handler.
 * Then the thieves send their own signals while the test holds a thread at each step of a signal's
 * sending and of a participant's leaving: no signal may land on a thread outside its participant. */
#include <stdint.h>

#define MRN_IDWS_TEST_HOOKS 1
static uint64_t patience_ns = 200000; /* atomic: the thieves' patience, set between loops */
#define MRN_IDWS_PATIENCE_NS __atomic_load_n(&patience_ns, __ATOMIC_RELAXED) /* relaxed: as above */
#include "loop/idws.c"

#include "check.h"

#include <merino_loop.h>

enum { KIND_SIGNAL, KIND_STALL, KINDS, KIND_HOLD = KINDS /* the second part (see main) */ };
static const char *const kind_names[] = {"signal", "stall", "hold"};
static const char *const step_names[MRN_IDWS_STEPS] = {
    "claim-begin", "claim-stored", "claim-fenced", "claim-locked", "claim-settled", "chunk-done",
    "state-locked", "state-stored", "new-range", "leaving", "asked", "withdrawn", "split-lowered",
    "split-fenced", "kick-counted", "kick-checked"};
/* The steps of a thief's signal and of a participant's leaving, which only the second part of the
 * test visits (see main); it holds threads there and at MRN_IDWS_STEP_ASKED. */
static bool kick_step(int step) {
    return step == MRN_IDWS_STEP_KICK_COUNTED || step == MRN_IDWS_STEP_KICK_CHECKED || step == MRN_IDWS_STEP_LEAVING;
}
static bool held_step(int step) { return kick_step(step) || step == MRN_IDWS_STEP_ASKED; }
static uint64_t held[MRN_IDWS_STEPS]; /* atomic: the second part held a thread at the step */

static int mode_step = -1, mode_kind; /* atomic: where the test acts now */
static uint64_t hits[KINDS][MRN_IDWS_STEPS];    /* atomic: the test acted at the step */
static uint64_t effects[KINDS][MRN_IDWS_STEPS]; /* atomic: ... and a donation (signal) or a fallback
                                                   (stall) was made there */
static uint64_t asked_at[MRN_IDWS_STEPS]; /* atomic: signals at an owner step with a request pending */

static uint64_t load(uint64_t *c) { return __atomic_load_n(c, __ATOMIC_ACQUIRE); } /* acquire: the counts' writers */
static void bump(uint64_t *c) { __atomic_fetch_add(c, 1, __ATOMIC_RELAXED); } /* relaxed: a count */

static void mrn_idws_test_step(enum mrn_idws_step step, mrn_idws_rec *r) {
    if ((int)step != __atomic_load_n(&mode_step, __ATOMIC_RELAXED)) return; /* relaxed: set between loops */
    int kind = __atomic_load_n(&mode_kind, __ATOMIC_RELAXED);
    if (kind == KIND_HOLD) { /* a thief until its victim has stopped running (or 5 ms), an owner 2 ms */
        bump(&held[step]);
        double t0 = check_now();
        if (step == MRN_IDWS_STEP_LEAVING)
            while (check_now() - t0 < 0.002) sched_yield();
        else /* acquire: as the thief's own read of the state */
            while (__atomic_load_n(&r->state, __ATOMIC_ACQUIRE) == MRN_IDWS_RUNNING && check_now() - t0 < 0.005)
                sched_yield();
        if (step == MRN_IDWS_STEP_ASKED) check_sleep(0.001); /* not yet counted: the victim may leave */
        return;
    }
    if (step < MRN_IDWS_STEP_ASKED) { /* on r's owner */
        bool asked = __atomic_load_n(&r->req, __ATOMIC_RELAXED) != 0; /* relaxed: a peek, as the handler's */
        if (kind == KIND_SIGNAL) { /* every time: with a request pending or not */
            bump(&hits[kind][step]);
            if (asked) bump(&asked_at[step]);
            uint64_t g = load(&mrn_idws_given);
            pthread_kill(pthread_self(), mrn_idws_signal); /* delivered before it returns */
            if (load(&mrn_idws_given) > g) bump(&effects[kind][step]);
        } else if (asked) { /* stalled, as if descheduled: until the thief took the half itself, or 5 ms */
            bump(&hits[kind][step]);
            uint64_t f = load(&mrn_idws_fallbacks);
            double t0 = check_now();
            while (load(&mrn_idws_fallbacks) == f && check_now() - t0 < 0.05) sched_yield();
            if (load(&mrn_idws_fallbacks) > f) bump(&effects[kind][step]);
        }
        return;
    }
    /* on a thief; r is the victim's record (only a running one has a thread to signal) */
    if (__atomic_load_n(&r->state, __ATOMIC_ACQUIRE) != MRN_IDWS_RUNNING) return; /* acquire: the thread */
    bump(&hits[kind][step]);
    uint64_t h = load(&mrn_idws_test_handled), g = load(&mrn_idws_given);
    pthread_kill(r->thread, mrn_idws_signal);
    double t0 = check_now();
    while (load(&mrn_idws_test_handled) == h && check_now() - t0 < 0.005) sched_yield();
    if (load(&mrn_idws_given) > g) bump(&effects[kind][step]);
}

/* ---- the loops ------------------------------------------------------------------------------------ */

typedef struct counted {
    int64_t n;
    unsigned char *hits; /* atomic: per index */
    uint64_t sink;       /* atomic */
} counted;

/* The first half heavy (about a microsecond an index), the second light: the participant with the
 * second half asks the other at once, and asks again as the halves it is given run out. */
static void body(int64_t lo, int64_t hi, void *ctx) {
    counted *c = ctx;
    for (int64_t i = lo; i < hi; i++) {
        uint64_t x = (uint64_t)i;
        for (int k = i < c->n / 2 ? 300 : 3; k > 0; k--) x = x * 6364136223846793005ull + 1442695040888963407ull;
        __atomic_fetch_add(&c->sink, x, __ATOMIC_RELAXED);    /* relaxed: read after the loop */
        __atomic_fetch_add(&c->hits[i], 1, __ATOMIC_RELAXED); /* relaxed: as above */
    }
}

/* Whether the loops of a mode have shown what its step is there to show (see main): a donation, or
 * a fallback, made at the step. Steps that hold the lock, and the thief's steps after it withdrew,
 * have nothing to wait for. */
static bool shown(int step, int kind) {
    if (kind == KIND_HOLD) return load(&held[step]) >= 30; /* a few dozen windows held open */
    bool outside = step <= MRN_IDWS_STEP_CLAIM_FENCED || step == MRN_IDWS_STEP_CHUNK_DONE;
    if (outside || (step == MRN_IDWS_STEP_ASKED && kind == KIND_SIGNAL)) return load(&effects[kind][step]) > 0;
    return kind == KIND_STALL || load(&hits[kind][step]) > 0;
}

/* Loops with the test acting at `step`: three, and more (up to 3 s) until the step has shown its
 * effect. The machine is shared: a thread may be descheduled at any time, so the owner is not
 * bound to reach the step while a thief waits; the thieves' patience is long (50 ms) where the
 * owner must answer, short (200 us, as in the library) where it is stalled, or the thief must take
 * the half itself. */
static void run_loops(int step, int kind, merino_schedule schedule) {
    __atomic_store_n(&mode_step, step, __ATOMIC_RELAXED); /* relaxed: no loop runs now */
    __atomic_store_n(&mode_kind, kind, __ATOMIC_RELAXED);
    bool answer = kind == KIND_SIGNAL && (step <= MRN_IDWS_STEP_CLAIM_FENCED || step == MRN_IDWS_STEP_CHUNK_DONE ||
                                          step == MRN_IDWS_STEP_ASKED); /* the owner must answer there */
    __atomic_store_n(&patience_ns, answer ? 50000000 : 200000, __ATOMIC_RELAXED);
    check_set_context("%s at %s, %s", kind_names[kind], step_names[step], merino_schedule_name(schedule));
    double t0 = check_now(); /* until the step is seen: seconds on a loaded machine */
    for (int rep = 0; rep < 3 || (!shown(step, kind) && check_now() - t0 < 20); rep++) {
        int64_t n = 3000;
        counted c = {n, calloc((size_t)n, 1), 0};
        CHECK(c.hits != NULL);
        merino_for_opts o = {.schedule = schedule};
        merino_for(0, n, body, &c, &o);
        for (int64_t i = 0; i < n; i++) CHECK_MSG(c.hits[i] == 1, "index %lld ran %d times", (long long)i, c.hits[i]);
        free(c.hits);
    }
    __atomic_store_n(&mode_step, -1, __ATOMIC_RELAXED);
}

static bool holds_lock(int step) {
    return step == MRN_IDWS_STEP_CLAIM_LOCKED || step == MRN_IDWS_STEP_CLAIM_SETTLED ||
           step == MRN_IDWS_STEP_STATE_LOCKED || step == MRN_IDWS_STEP_STATE_STORED ||
           step == MRN_IDWS_STEP_NEW_RANGE;
}

int main(void) {
    unsetenv("MERINO_IDWS_SIGNAL");
    merino_config cfg = {.workers = 2}; /* one victim, one thief at a time */
    CHECK(merino_start(&cfg) == 0);
    __atomic_store_n(&mrn_idws_test_quiet, true, __ATOMIC_RELAXED); /* relaxed: before the loops */
    for (int step = 0; step < MRN_IDWS_STEPS; step++) {
        if (kick_step(step)) continue;
        run_loops(step, KIND_SIGNAL, MERINO_SCHEDULE_IDWS);
        if (step < MRN_IDWS_STEP_ASKED) {
            run_loops(step, KIND_STALL, MERINO_SCHEDULE_IDWS);
            run_loops(step, KIND_STALL, MERINO_SCHEDULE_IDWS_POLL);
        }
    }
    /* The second part: the thieves' own signals, with a thread held at each step of a signal's
     * sending (after the thief counted itself in the victim's senders; after it saw the victim
     * RUNNING, until the victim has stopped running) and of a participant's leaving (IDLE stored,
     * before it reads senders). No signal may land on a thread that runs no participant. */
    __atomic_store_n(&mrn_idws_test_quiet, false, __ATOMIC_RELAXED); /* relaxed: no loop runs now */
    __atomic_store_n(&mrn_idws_test_outside, 0, __ATOMIC_RELAXED);   /* the test's own signals may have */
    uint64_t sent0 = load(&mrn_idws_sent);
    for (int step = 0; step < MRN_IDWS_STEPS; step++)
        if (held_step(step)) run_loops(step, KIND_HOLD, MERINO_SCHEDULE_IDWS);
    check_set_context(NULL);
    merino_stop();

    printf("thieves' own signals: %llu, %llu of them landed outside a participant\n",
           (unsigned long long)(load(&mrn_idws_sent) - sent0), (unsigned long long)load(&mrn_idws_test_outside));
    CHECK(load(&mrn_idws_sent) > sent0);
    CHECK_EQ_UINT(load(&mrn_idws_test_outside), 0);
    for (int step = 0; step < MRN_IDWS_STEPS; step++)
        if (held_step(step)) {
            printf("held at %-13s: %4llu times\n", step_names[step], (unsigned long long)held[step]);
            CHECK_MSG(held[step] > 0, "no thread reached %s", step_names[step]);
        }
    for (int step = 0; step < MRN_IDWS_STEPS; step++)
        for (int kind = 0; kind < (kick_step(step) ? 0 : step < MRN_IDWS_STEP_ASKED ? KINDS : 1); kind++)
            printf("%-6s at %-13s: %4llu times (%llu with a request pending), %4llu %s there\n",
                   kind_names[kind], step_names[step], (unsigned long long)hits[kind][step],
                   (unsigned long long)(kind == KIND_SIGNAL && step < MRN_IDWS_STEP_ASKED ? asked_at[step] : hits[kind][step]),
                   (unsigned long long)effects[kind][step], kind == KIND_STALL ? "fallbacks" : "donations");
    for (int step = 0; step < MRN_IDWS_STEPS; step++) {
        if (kick_step(step)) continue;
        const char *name = step_names[step];
        uint64_t sig = hits[KIND_SIGNAL][step], sig_eff = effects[KIND_SIGNAL][step];
        uint64_t stall = hits[KIND_STALL][step], stall_eff = effects[KIND_STALL][step];
        switch (step) {
        case MRN_IDWS_STEP_CLAIM_BEGIN: /* outside the lock, every chunk: the signal donates, a
                                           stalled owner loses half to the thief */
        case MRN_IDWS_STEP_CLAIM_STORED:
        case MRN_IDWS_STEP_CLAIM_FENCED:
        case MRN_IDWS_STEP_CHUNK_DONE:
            CHECK_MSG(sig > 0 && sig_eff > 0, "signal at %s: %llu times, %llu donations", name,
                      (unsigned long long)sig, (unsigned long long)sig_eff);
            CHECK_MSG(stall > 0 && stall_eff > 0, "stall at %s: %llu times, %llu fallbacks", name,
                      (unsigned long long)stall, (unsigned long long)stall_eff);
            break;
        case MRN_IDWS_STEP_ASKED: /* the request is pending: the handler answers it */
            CHECK_MSG(sig > 0 && sig_eff > 0, "signal at %s: %llu times, %llu donations", name,
                      (unsigned long long)sig, (unsigned long long)sig_eff);
            break;
        case MRN_IDWS_STEP_WITHDRAWN: /* withdrawn: the handler must not answer it */
        case MRN_IDWS_STEP_SPLIT_LOWERED:
        case MRN_IDWS_STEP_SPLIT_FENCED:
            CHECK_MSG(sig > 0, "the thief never reached %s", name);
            CHECK_MSG(sig_eff == 0, "a handler donated on a withdrawn request (%s)", name);
            break;
        default: /* the owner holds its lock: no donation and no fallback can happen there */
            CHECK(holds_lock(step));
            /* the signal lands there (the conflict's steps only happen when a thief took a half
             * the owner had begun to claim: not every run has one) */
            if (step != MRN_IDWS_STEP_CLAIM_LOCKED && step != MRN_IDWS_STEP_CLAIM_SETTLED)
                CHECK_MSG(sig > 0, "the owner never reached %s", name);
            CHECK_MSG(sig_eff == 0, "a handler donated while its owner held the lock (%s)", name);
            CHECK_MSG(stall_eff == 0, "a thief took a range while its owner held the lock (%s)", name);
            break;
        }
    }
    puts("test_loop_inject: ok");
    return 0;
}
