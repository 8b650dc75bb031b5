/* steal.pml — a Promela model of merino's work-stealing protocol, for the spin model checker.
 *
 * The protocol is Wool's direct task stack with private tasks (Faxén, ICPP 2010, section III):
 * per-worker arrays of task descriptors synchronized on each descriptor's state word, a private
 * `top`, a shared `bot`, a boundary `split` between public and private descriptors, requests for
 * publication from thieves, publishing on request, privatization, and leapfrogging at a join
 * whose task was stolen. Two designs are modelled (README.md beside this file maps every step to
 * the C code, lists what is abstracted and gives the results; check.sh runs the checks):
 *
 *   default   the design of the model's brief ("spec"): `split` is shared, a thief asks by storing
 *             REQUEST (above every index) into it, a spawn below split is public, the owner serves
 *             a request at its next join that takes the exchange, and privatizes with a CAS on
 *             split after K public tasks inlined in a row.
 *   -DIMPL    the design in src/core (owner.c, thief.c, task_stack.h): a spawn is private
 *             unless the owner is in public mode; a thief that finds no public task at bot asks by storing all ones into the owner's
 *             `split` and 0 into its spawn `limit`; the owner's next spawn (t >= limit) or join
 *             (t < split) enters public mode: public_left = K, limit = 0, every private task
 *             below t is published; while in public mode every spawn takes the slow path and
 *             publishes itself (private_from = split = t + 1); a join that takes the exchange
 *             brings `private_from` (and with it `split`) down to t, and each public task it
 *             inlines counts public_left down: at 0 the owner leaves public mode (limit = end),
 *             unless the last one was long (a time the model abstracts into a choice), which
 *             renews public_left; so does a pending request seen at a public spawn or join;
 *             leapfrogging runs with split at t + 1.
 *             -DIMPL -DALL_PUBLIC: MERINO_ALL_PUBLIC (every spawn public, every join exchanges).
 *
 * Build knobs (spin -D...):
 *   WORKERS=2|3         number of workers
 *   PROG=0..6           the task program (see setup_prog); PROG=2 has two root tasks, on workers 0
 *                       and 1 (two MERINO_RUNs at once); otherwise worker 0 runs the only root
 *   ONE_WRAPPER         every task has the same wrapper (as in fib): the ABA case is likeliest
 *   N=4                 task descriptors per worker (overflow is an assertion)
 *   K=2                 public tasks inlined in a row before the owner privatizes (spec), or
 *                       leaves public mode (IMPL: MRN_PUBLIC_RUN, 8 in the C code)
 *   INIT_SPLIT=0..N     spec: initial split of every worker (0: all private, N: all public)
 *   SAFETY_ONLY         leave out the efficiency invariants (which say that requests can be
 *                       served), to tell safety bugs from efficiency bugs
 *   CHECK_LOST_REQUEST  spec: assert that the owner never overwrites a pending request
 *   CHECK_TERMINATION   add the LTL property <> finished (run pan with -a -f)
 *   REACH=n             reachability probe n (see HIT below)
 *   BUG_*               injected bugs; README.md says which ones spin catches:
 *     BUG_NO_RECHECK            the thief skips the re-check of bot after its CAS
 *     BUG_PRIVATE_STEAL         thieves CAS a PRIVATE state too
 *     BUG_NO_PRIVATIZE_CAS      spec: privatize stores split instead of CAS (loses requests)
 *     BUG_PUBLISH_ALL_SPLIT_MID spec: a publish sets split = mid instead of t + 1
 *     BUG_PUBLISH_NO_SPLIT      IMPL: the join of a private task (a request) publishes the
 *                               older ones but leaves split and private_from where they were
 *     BUG_LOST_DONE             the thief forgets its DONE store: the owner waits forever (to
 *                               show that the termination check catches a livelock)
 *     BUG_SELF_PUBLISH_NO_SPLIT IMPL: the spawn slow path publishes t but leaves split below it
 *     BUG_PUBLISH_ONLY_SELF     IMPL: the spawn slow path publishes only t, not the older private
 *                               ones, and still sets split = t + 1 (they are private below split)
 *     BUG_NO_SPLIT_DOWN         IMPL: the public join does not lower split (the bug fixed in
 *                               f72ff82: tasks spawned below split are never published)
 *
 * Granularity: every access to shared memory (state, bot, split or limit, the payload) is its own
 * step: an atomic{} block holding one shared access plus the worker's private bookkeeping and
 * ghost updates. spin interleaves the steps of the workers sequentially consistently.
 */

#ifndef WORKERS
#define WORKERS 2
#endif
#ifndef N
#define N 4
#endif
#ifndef K
#define K 2
#endif
#ifndef INIT_SPLIT
#define INIT_SPLIT 0
#endif
#ifndef PROG
#define PROG 1
#endif
#if defined(ALL_PUBLIC) && !defined(IMPL)
#error "ALL_PUBLIC is a variant of IMPL"
#endif

/* reachability probes: with -DREACH=n, reaching probe n is an assertion violation, which shows
 * that the model really exercises that part of the protocol (check.sh --reach runs them); without
 * REACH, a probe is a printf that pan lists in its report of unreached code if no run reached it
 * (check.sh reads those reports) */
#ifdef REACH
#define HIT(n) assert(REACH != n)
#else
#define HIT(n) printf("probe %d\n", n)   /* pan's report of unreached code lists the probes missed */
#endif

#define NS (N + 1)        /* descriptors per worker: N usable and a sentinel that stays EMPTY */
#define D 6               /* frames per worker: nesting of running tasks (inline runs, steals) */
#define IDX(w, t) ((w) * NS + (t))
#define REQUEST 255       /* spec: larger than any descriptor index, like UINTPTR_MAX in C */

/* state word encoding; f is the wrapper (task function) index, 0..15 */
#define EMPTY 0
#define DONE 1
#define STOLEN(i) (2 + (i))
#define IS_STOLEN(x) ((x) >= 2 && (x) < 16)
#define THIEF(x) ((x) - 2)
#define TASK(f) (16 + (f))
#define PRIV(f) (32 + (f))
#define IS_TASK(x) ((x) >= 16 && (x) < 32)
#define IS_PRIV(x) ((x) >= 32)
#define IS_WRAP(x) ((x) >= 16)  /* TASK or PRIVATE: s >= MERINO__TASK_MIN in C */
#define FN(x) ((x) & 15)

/* ghost status of a descriptor (not part of the protocol; for the assertions only) */
#define G_FREE 0          /* holds no task still to be acquired */
#define G_LIVE 1          /* spawned, not yet acquired by its owner or a thief */
#define G_STOLEN 2        /* acquired by a thief (running or done), not yet joined back */

/* frame kinds */
#define F_ROOT 0
#define F_INLINE 1
#define F_STOLEN 2

/* task program ops: a child task id to spawn, or */
#define OP_JOIN 254
#define OP_END 255

/* ---- shared memory ------------------------------------------------------------------------- */

byte state[WORKERS * NS];   /* descriptor state words */
byte arg[WORKERS * NS];     /* descriptor payload: the id of the task stored there */
byte bot[WORKERS];          /* lowest descriptor not taken by a thief */
byte split[WORKERS];        /* joins below it take the exchange; thieves store REQUEST */
#ifdef IMPL
byte limit[WORKERS];        /* IMPL: spawns at or above it take the slow path; thieves store 0 */
#endif
byte roots_done;            /* root tasks returned: idle workers exit when all have */

/* ---- the task program (constant after init) -------------------------------------------------- */

#if PROG == 0
/* 0 root: spawn 1, spawn 2, join, join;  1, 2 = ONE: spawn a leaf (3, 4), join it */
#define NT 5
#define NCODE 11
#define ROOTS 1
#elif PROG == 1
/* 0 root: spawn 1, spawn 2, join 2, join 1, spawn 3, spawn 4, join 4, join 3
 *   1 = ONE(5): spawn a leaf, join it;  2 = TWO(6, 7): spawn two leaves, join both;  3..7 leaves
 * Two rounds on the same slots give the thief's ABA case (a leaf at d1 in both rounds, d0 stolen
 * in the first); TWO gives a publish with three live descriptors (mid strictly inside). */
#define NT 8
#define NCODE 18
#define ROOTS 1
#elif PROG == 2
/* two roots at once: 0 on worker 0: spawn 2, spawn 3, join, join; 1 on worker 1: the same with
 * 4, 5;  2, 4 = ONE(6), ONE(7);  3, 5, 6, 7 leaves. Owners that are thieves of each other. */
#define NT 8
#define NCODE 17
#define ROOTS 2
#elif PROG == 3
/* PROG 1 with 4 = TWO(8, 9): in the second round the owner spawns three deep again, so that
 * with IMPL (publish at spawns) a descriptor can be published, joined, and published again */
#define NT 10
#define NCODE 23
#define ROOTS 1
#elif PROG == 4
/* 0 root: spawn 1, spawn 2, spawn 3, join, join, join;  1, 2 = TWO(4, 5), TWO(6, 7); 3..7 leaves.
 * Three deep, and stolen tasks that spawn twice: with IMPL (publish at spawns) a leapfrogging
 * owner can get work only from a thief that spawns after the owner's request. */
#define NT 8
#define NCODE 17
#define ROOTS 1
#elif PROG == 5
/* 0 root: spawn 1, join;  1 = ONE(2): the smallest program with a stolen task that spawns */
#define NT 3
#define NCODE 6
#define ROOTS 1
#elif PROG == 6
/* 0 root: spawn 1, spawn 2, join, join, spawn 3, spawn 4, join, join; all leaves: the thief's
 * ABA case (with ONE_WRAPPER) in the fewest steps */
#define NT 5
#define NCODE 10
#define ROOTS 1
#else
#error "PROG must be 0..6"
#endif
#if ROOTS > WORKERS
#error "more roots than workers"
#endif

hidden byte code[NCODE];    /* ops of all task bodies */
hidden byte entry[NT];      /* first op of each task */
hidden byte fnof[NT];       /* wrapper (task function) of each task */

/* ---- ghosts ------------------------------------------------------------------------------------ */

byte gst[WORKERS * NS];     /* G_* per descriptor */
byte ran[NT];               /* times each task body started (must end up 1 each) */
bool fin[NT];               /* task body returned */

/* Names of the properties, so that pan's report of a violated assertion says which one failed:
 * each assertion is assert(name && condition), and these are always 1. */
hidden byte runs_once = 1;             /* every task body starts at most once */
hidden byte all_ran_once = 1;          /* at the end, every task ran exactly once and returned */
hidden byte join_after_run = 1;        /* a join returns only after its task's body returned */
hidden byte bot_only_over_stolen = 1;  /* bot never passes a task that no thief took */
hidden byte thief_takes_live = 1;      /* a thief takes only a spawned task nobody took */
hidden byte owner_takes_live = 1;      /* so does the owner when it joins */
hidden byte private_join_safe = 1;     /* a join without an atomic is never on a stealable task */
hidden byte stack_empty_when_idle = 1; /* an idle worker's bot is back at its base */
hidden byte no_overflow = 1;           /* the programs fit the N descriptors */
hidden byte model_sane = 1;            /* the model's own bookkeeping */
hidden byte efficiency = 1;            /* the efficiency invariants (requests can be served) */
hidden byte request_not_lost = 1;      /* CHECK_LOST_REQUEST */

inline setup_prog() {
#if PROG == 0
    /* functions: 0 root, 1 ONE, 2 LEAF */
    code[0] = 1; code[1] = 2; code[2] = OP_JOIN; code[3] = OP_JOIN; code[4] = OP_END;
    code[5] = 3; code[6] = OP_JOIN; code[7] = OP_END;
    code[8] = 4; code[9] = OP_JOIN; code[10] = OP_END;
    entry[0] = 0; entry[1] = 5; entry[2] = 8; entry[3] = 10; entry[4] = 10;
    fnof[0] = 0; fnof[1] = 1; fnof[2] = 1; fnof[3] = 2; fnof[4] = 2;
#elif PROG == 1
    /* functions: 0 root, 1 ONE, 2 TWO, 3 LEAF */
    code[0] = 1; code[1] = 2; code[2] = OP_JOIN; code[3] = OP_JOIN;
    code[4] = 3; code[5] = 4; code[6] = OP_JOIN; code[7] = OP_JOIN; code[8] = OP_END;
    code[9] = 5; code[10] = OP_JOIN; code[11] = OP_END;
    code[12] = 6; code[13] = 7; code[14] = OP_JOIN; code[15] = OP_JOIN; code[16] = OP_END;
    code[17] = OP_END;
    entry[0] = 0; entry[1] = 9; entry[2] = 12;
    entry[3] = 17; entry[4] = 17; entry[5] = 17; entry[6] = 17; entry[7] = 17;
    fnof[0] = 0; fnof[1] = 1; fnof[2] = 2;
    fnof[3] = 3; fnof[4] = 3; fnof[5] = 3; fnof[6] = 3; fnof[7] = 3;
#elif PROG == 3
    /* functions: 0 root, 1 ONE, 2 TWO, 3 LEAF */
    code[0] = 1; code[1] = 2; code[2] = OP_JOIN; code[3] = OP_JOIN;
    code[4] = 3; code[5] = 4; code[6] = OP_JOIN; code[7] = OP_JOIN; code[8] = OP_END;
    code[9] = 5; code[10] = OP_JOIN; code[11] = OP_END;
    code[12] = 6; code[13] = 7; code[14] = OP_JOIN; code[15] = OP_JOIN; code[16] = OP_END;
    code[17] = OP_END;
    code[18] = 8; code[19] = 9; code[20] = OP_JOIN; code[21] = OP_JOIN; code[22] = OP_END;
    entry[0] = 0; entry[1] = 9; entry[2] = 12;
    entry[3] = 17; entry[4] = 18; entry[5] = 17; entry[6] = 17; entry[7] = 17;
    entry[8] = 17; entry[9] = 17;
    fnof[0] = 0; fnof[1] = 1; fnof[2] = 2;
    fnof[3] = 3; fnof[4] = 2; fnof[5] = 3; fnof[6] = 3; fnof[7] = 3;
    fnof[8] = 3; fnof[9] = 3;
#elif PROG == 4
    /* functions: 0 root, 1 TWO, 2 LEAF */
    code[0] = 1; code[1] = 2; code[2] = 3; code[3] = OP_JOIN; code[4] = OP_JOIN; code[5] = OP_JOIN;
    code[6] = OP_END;
    code[7] = 4; code[8] = 5; code[9] = OP_JOIN; code[10] = OP_JOIN; code[11] = OP_END;
    code[12] = 6; code[13] = 7; code[14] = OP_JOIN; code[15] = OP_JOIN; code[16] = OP_END;
    entry[0] = 0; entry[1] = 7; entry[2] = 12;
    entry[3] = 6; entry[4] = 6; entry[5] = 6; entry[6] = 6; entry[7] = 6;
    fnof[0] = 0; fnof[1] = 1; fnof[2] = 1;
    fnof[3] = 2; fnof[4] = 2; fnof[5] = 2; fnof[6] = 2; fnof[7] = 2;
#elif PROG == 5
    /* functions: 0 root, 1 ONE, 2 LEAF */
    code[0] = 1; code[1] = OP_JOIN; code[2] = OP_END;
    code[3] = 2; code[4] = OP_JOIN; code[5] = OP_END;
    entry[0] = 0; entry[1] = 3; entry[2] = 2;
    fnof[0] = 0; fnof[1] = 1; fnof[2] = 2;
#elif PROG == 6
    /* functions: 0 root, 1 LEAF */
    code[0] = 1; code[1] = 2; code[2] = OP_JOIN; code[3] = OP_JOIN;
    code[4] = 3; code[5] = 4; code[6] = OP_JOIN; code[7] = OP_JOIN; code[8] = OP_END;
    code[9] = OP_END;
    entry[0] = 0; entry[1] = 9; entry[2] = 9; entry[3] = 9; entry[4] = 9;
    fnof[0] = 0; fnof[1] = 1; fnof[2] = 1; fnof[3] = 1; fnof[4] = 1;
#else
    /* functions: 0 root, 1 ONE, 2 LEAF */
    code[0] = 2; code[1] = 3; code[2] = OP_JOIN; code[3] = OP_JOIN; code[4] = OP_END;
    code[5] = 4; code[6] = 5; code[7] = OP_JOIN; code[8] = OP_JOIN; code[9] = OP_END;
    code[10] = 6; code[11] = OP_JOIN; code[12] = OP_END;
    code[13] = 7; code[14] = OP_JOIN; code[15] = OP_END;
    code[16] = OP_END;
    entry[0] = 0; entry[1] = 5; entry[2] = 10; entry[3] = 16;
    entry[4] = 13; entry[5] = 16; entry[6] = 16; entry[7] = 16;
    fnof[0] = 0; fnof[1] = 0; fnof[2] = 1; fnof[3] = 2;
    fnof[4] = 1; fnof[5] = 2; fnof[6] = 2; fnof[7] = 2;
#endif
}

/* ONE_WRAPPER: every task has the same wrapper (as in fib), so any task spawned into a descriptor
 * has the state value of any earlier one there: the thief's ABA case is as likely as it gets */
#ifdef ONE_WRAPPER
#define WRAP(id) 0
#else
#define WRAP(id) fnof[id]
#endif

/* ---- program counters of a worker's innermost activity ---------------------------------------- */

#define P_IDLE 1     /* no task: pick a victim */
#define P_SP1 2      /* spawn: payload; spec: load split / IMPL: load limit */
#define P_SP2 3      /* spawn: store the state */
#define P_J1 4       /* join: pop; private fast path (spec: load split) */
#define P_J2 5       /* join: exchange(state, EMPTY) */
#define P_ACQ 6      /* spec: join slow path, task acquired: reload split */
#define P_PUB1 7     /* publish (spec: the lower half; IMPL: all below t): load state(d) */
#define P_PUB2 8     /* publish: store TASK into state(d) */
#define P_PUB3 9     /* publish: store split */
#define P_PRIV 10    /* spec: privatize: CAS split */
#define P_WAIT 11    /* join: s == EMPTY: load state until it changes */
#define P_WXCHG 12   /* join: state is a task again (a thief backed off): exchange */
#define P_LEAP 13    /* leapfrog: load state, DONE? */
#define P_BOT 14     /* stolen task done: bot := t */
#define P_END 15     /* a task body returns */
#define S_BOT 20     /* steal: load victim bot */
#define S_ST 21      /* steal: load state(bot) */
#define S_REQ1 22    /* steal: PRIVATE at bot: load split / limit */
#define S_REQ2 23    /* steal: store REQUEST / 0 */
#define S_CAS 24     /* steal: CAS(state, s, EMPTY) */
#define S_RECHK 25   /* steal: reload bot */
#define S_RESTORE 26 /* steal: back off, state := s */
#define S_STOLE 27   /* steal: state := STOLEN(self) */
#define S_BOTUP 28   /* steal: bot := t + 1 */
#define S_TRIP 29    /* steal: load state(t + 1) (trip-wire) */
#define S_TREQ1 30   /* steal: trip-wire request: load split / limit */
#define S_TREQ2 31   /* steal: trip-wire request: store REQUEST / 0 */
#define S_RUN 32     /* steal: read the payload, run the task */
#define S_REQ3 33    /* IMPL steal: store limit = 0 (after split = all ones) */
#define S_TREQ3 34   /* IMPL steal: trip-wire: store limit = 0 */
#define P_ASKED 41   /* IMPL mrn_asked: load own split: a request pending? */
#define P_ENTER 42   /* IMPL mrn_enter_public: public_left = K, store limit = 0 */
#define P_SSELF 43   /* IMPL spawn slow path: state = TASK: the spawn publishes itself */
#define P_JPUB 45    /* IMPL merino__join_slow: load the state: PRIVATE (a request)? */
#define P_PRIVZ 46   /* IMPL join: public_left reached 0: store limit = end (leave public mode) */
#define P_J2S 47     /* IMPL join: after the exchange, split = t */
#define P_LEAPSET 48 /* IMPL leapfrog: split = t + 1 */
#define P_LEAPEND 49 /* IMPL leapfrog done: split = t */

#ifdef ALL_PUBLIC
#define SPAWN_STATE TASK(WRAP(c))
#else
#define SPAWN_STATE PRIV(WRAP(c))
#endif
#define K_SPAWN 0    /* IMPL: what P_ASKED / P_ENTER / the publish continue: the spawn slow path */
#define K_JOIN 1     /* ... the join of a private task (a request: publish, then run it) */
#define K_JXCHG 2    /* ... the join of a public task (then the exchange) */
#define P_EXIT 40

#define R_IDLE 0     /* a steal attempt returns to the idle loop */
#define R_LEAP 1     /* ... or to the leapfrog loop of the innermost frame */

#define MIN(a, b) ((a) < (b) -> (a) : (b))

/* the end of a publish loop: spec publishes [lo, mid), IMPL all of [private_from, t) */
#ifdef IMPL
#define PUB_END t
#else
#define PUB_END mid
#endif

#if WORKERS == 2
#define CHOOSE_VICTIM(w, v) if :: w != 0 -> v = 0 :: w != 1 -> v = 1 fi
#elif WORKERS == 3
#define CHOOSE_VICTIM(w, v) if :: w != 0 -> v = 0 :: w != 1 -> v = 1 :: w != 2 -> v = 2 fi
#else
#error "WORKERS must be 2 or 3"
#endif

/* spec: a thief's request for public tasks (IMPL: split = all ones, then limit = 0) */
#define REQ_PENDING(v) (split[v] == REQUEST)
#define REQ_MAKE(v) split[v] = REQUEST

/* inside Worker: the innermost frame, and w->top */
#define CUR (dep - 1)
#define TOPV (dep == 0 -> 0 : f_base[CUR] + f_n[CUR])

/* every descriptor of worker vw below nb is held by a thief: bot never passes an unstolen task */
inline assert_below_stolen(vw, nb) {
    d = 0;
    do
    :: d < nb -> assert(bot_only_over_stolen && gst[IDX(vw, d)] == G_STOLEN); d++
    :: else -> break
    od;
    d = 0
}

/* Efficiency invariants: they say that a request can always be served (a thief that finds a
 * private task at bot and asks will eventually get it published). Not needed for safety. */
#ifdef SAFETY_ONLY
#define assert_efficiency() skip
#elif defined(IMPL)
/* IMPL (owner.c): private_from <= top; the live descriptors in [private_from, top) are exactly
 * the PRIVATE ones, those below are public or stolen; split is private_from or a request.
 * Public mode (public_left > 0): limit is 0, so that every spawn takes the slow path, and nothing
 * live is private: private_from == top. Checked where the owner spawns or joins. */
inline assert_efficiency() {
    assert(efficiency && plo <= TOPV && (split[w] == plo || split[w] == REQUEST));
    assert(efficiency && pleft <= K && (pleft == 0 || limit[w] == 0 && plo == TOPV));
    d = 0;
    do
    :: d < TOPV ->
#ifdef ALL_PUBLIC
        assert(efficiency && !IS_PRIV(state[IDX(w, d)]));
#else
        assert(efficiency && (d < plo && !IS_PRIV(state[IDX(w, d)]) ||
                              d >= plo && IS_PRIV(state[IDX(w, d)])));
#endif
        d++
    :: else -> break
    od;
    d = 0
}
#else
/* spec: every live descriptor below private_lo is public (or taken), and private_lo <= split
 * unless a request is pending */
inline assert_efficiency() {
    assert(efficiency && (split[w] == REQUEST || plo <= split[w]));
    d = 0;
    do
    :: d < plo && d < TOPV -> assert(efficiency && !IS_PRIV(state[IDX(w, d)])); d++
    :: else -> break
    od;
    d = 0
}
#endif

proctype Worker(byte w) {
#ifndef IMPL
    /* spec: owner-private fields */
    byte plo = INIT_SPLIT;   /* private_lo */
    byte pleft = K;          /* public_left */
#else
    byte plo;                /* IMPL: private_from (owner only) */
    byte pleft;              /* IMPL: public_left (owner only): 0 = not in public mode */
    byte cont;               /* IMPL: what the slow path continues: K_SPAWN, K_JOIN, K_JXCHG */
#endif
    /* frames of the tasks this worker is running, innermost last */
    byte dep;
    byte f_id[D];    /* task id */
    byte f_kind[D];  /* F_ROOT, F_INLINE, F_STOLEN */
    byte f_base[D];  /* top when the task started: its children go to f_base, f_base + 1, ... */
    byte f_n[D];     /* spawned, not yet joined children */
    byte f_op[D];    /* next op */
    byte f_v[D];     /* F_STOLEN: victim */
    byte f_vd[D];    /* F_STOLEN: descriptor index at the victim */
    byte f_lf[D];    /* the thief to leapfrog on, while joining a stolen child */
    /* the innermost activity */
    byte pc, t, s, sp, c, lo, mid, d, v, st, ss, ret;

    /* choose the next pc from the innermost frame's next op (local only) */
#define NEXT()                                                                   \
    if                                                                           \
    :: dep == 0 -> pc = P_IDLE                                                   \
    :: else ->                                                                   \
        if                                                                       \
        :: code[entry[f_id[CUR]] + f_op[CUR]] == OP_JOIN -> pc = P_J1            \
        :: code[entry[f_id[CUR]] + f_op[CUR]] == OP_END -> pc = P_END            \
        :: else -> pc = P_SP1                                                    \
        fi                                                                       \
    fi

#define CLEAR() t = 0; s = 0; sp = 0; c = 0; lo = 0; mid = 0; v = 0; st = 0; ss = 0; ret = 0

    /* start running task id in a new frame */
#define PUSH(kind, id, base, vv, vd)                                             \
    assert(model_sane && dep < D);                                               \
    f_id[dep] = id; f_kind[dep] = kind; f_base[dep] = base; f_n[dep] = 0;        \
    f_op[dep] = 0; f_v[dep] = vv; f_vd[dep] = vd; f_lf[dep] = 0;                 \
    dep++;                                                                       \
    ran[id]++;                                                                   \
    printf("W%d: runs task %d\n", w, id);                                        \
    assert(runs_once && ran[id] == 1);                                           \
    CLEAR();                                                                     \
    NEXT()

#define POP()                                                                    \
    dep--;                                                                       \
    f_id[dep] = 0; f_kind[dep] = 0; f_base[dep] = 0; f_n[dep] = 0;               \
    f_op[dep] = 0; f_v[dep] = 0; f_vd[dep] = 0; f_lf[dep] = 0

    /* the join of the innermost frame has its task's result: go on (local only) */
#define JOINED() f_op[CUR]++; CLEAR(); NEXT()

    /* a steal attempt failed: back to the idle loop or to the leapfrog loop */
#define STEAL_FAIL()                                                             \
    v = 0; st = 0; ss = 0;                                                       \
    if                                                                           \
    :: ret == R_IDLE -> pc = P_IDLE                                              \
    :: else -> t = f_base[CUR] + f_n[CUR]; pc = P_LEAP                           \
    fi;                                                                          \
    ret = 0

#define STEAL_FROM(vv, r) v = vv; ret = r; pc = S_BOT

    /* the owner took its task back at t (ghost bookkeeping; the payload, read already, is dead:
     * clearing it keeps states that differ only in dead payloads apart from multiplying) */
#define OWNER_TOOK()                                                             \
    assert(owner_takes_live && gst[IDX(w, t)] == G_LIVE);                        \
    gst[IDX(w, t)] = G_FREE;                                                     \
    arg[IDX(w, t)] = 0

    /* the join found its task stolen by thief x: leapfrog (IMPL: with split = t + 1) */
#ifdef IMPL
#define LEAPFROG(x) f_lf[CUR] = THIEF(x); pc = P_LEAPSET
    /* mrn_set_split: private_from = split = x (the store may overwrite a thief's request) */
#define SET_SPLIT(x) plo = x; split[w] = x
    /* mrn_publish_below(t): every PRIVATE task in [private_from, t) becomes public (from the spawn
     * slow path or the join of a private task), then P_PUB3 sets split */
#ifdef BUG_PUBLISH_ONLY_SELF
#define PUBLISH_BELOW()                                                          \
    d = plo;                                                                     \
    if                                                                           \
    :: d < t && cont != K_SPAWN -> pc = P_PUB1   /* bug: the spawn skips it */  \
    :: else -> d = 0; pc = P_PUB3                                                \
    fi
#else
#define PUBLISH_BELOW()                                                          \
    d = plo;                                                                     \
    if                                                                           \
    :: d < t -> pc = P_PUB1                                                      \
    :: else -> d = 0; pc = P_PUB3                                                \
    fi
#endif
    /* after mrn_enter_public, or instead of it: the join of a public task goes on to the
     * exchange; the spawn slow path and the join of a private task publish */
#define AFTER_ENTER()                                                            \
    if                                                                           \
    :: cont == K_JXCHG -> cont = 0; pc = P_J2                                    \
    :: else -> PUBLISH_BELOW()                                                   \
    fi
    /* the join holds its task (not stolen): if in public mode, count it; at 0 leave it -- or,
     * if the last public task was long (mrn_public_inlined: time, which the model does not
     * have), renew the run instead: either may happen at the last count */
#define JOIN_INLINE()                                                            \
    if                                                                           \
    :: pleft > 1 -> pleft--; PUSH(F_INLINE, c, t, 0, 0)                          \
    :: pleft == 1 -> pleft = 0; pc = P_PRIVZ                                     \
    :: pleft == 1 -> HIT(24); pleft = K; PUSH(F_INLINE, c, t, 0, 0)              \
    :: pleft == 0 -> PUSH(F_INLINE, c, t, 0, 0)                                  \
    fi
#else
#define LEAPFROG(x) f_lf[CUR] = THIEF(x); pc = P_LEAP
#endif

    atomic {
        if
        :: w < ROOTS -> PUSH(F_ROOT, w, 0, 0, 0)
        :: else -> pc = P_IDLE
        fi
    }

    do
    /* ---------------- idle (worker.c: mrn_worker_main): one steal attempt ---------------- */
    :: atomic { pc == P_IDLE ->
        assert(stack_empty_when_idle && bot[w] == 0);
        if
        :: roots_done == ROOTS -> pc = P_EXIT
        :: else -> CHOOSE_VICTIM(w, v); STEAL_FROM(v, R_IDLE)
        fi }
    :: pc == P_EXIT -> break

    /* ---------------- spawn (NAME_merino_spawn) ---------------- */
#ifndef IMPL
    :: atomic { pc == P_SP1 ->               /* payload; w->top = t + 1; load split (relaxed) */
        t = f_base[CUR] + f_n[CUR];
        c = code[entry[f_id[CUR]] + f_op[CUR]];
        assert(no_overflow && t < N);
        arg[IDX(w, t)] = c;
        gst[IDX(w, t)] = G_LIVE;
        sp = split[w];
        pc = P_SP2 }
    :: atomic { pc == P_SP2 ->
        if
        :: t >= sp ->
            state[IDX(w, t)] = PRIV(WRAP(c));       /* relaxed */
            printf("W%d: spawn task %d at d%d PRIVATE (split %d)\n", w, c, t, sp)
        :: else ->
            state[IDX(w, t)] = TASK(WRAP(c));       /* release */
            printf("W%d: spawn task %d at d%d TASK (split %d)\n", w, c, t, sp);
            if
            :: sp == REQUEST -> HIT(13)      /* public because a request is pending */
            :: else
            fi
        fi;
        if
        :: f_kind[CUR] == F_STOLEN -> HIT(5) /* a stolen task spawns */
        :: else
        fi;
        f_n[CUR]++; f_op[CUR]++;
        CLEAR();
        NEXT() }
#else
    :: atomic { pc == P_SP1 ->               /* payload; load limit (relaxed) */
        assert_efficiency();
        t = f_base[CUR] + f_n[CUR];
        c = code[entry[f_id[CUR]] + f_op[CUR]];
        assert(no_overflow && t < N);        /* (limit <= end: an overflow takes the slow path) */
        arg[IDX(w, t)] = c;
        gst[IDX(w, t)] = G_LIVE;
        if
        :: t >= limit[w] ->                  /* merino__spawn_slow */
            cont = K_SPAWN;
            if
            :: pleft == 0 -> pc = P_ENTER    /* limit 0 outside public mode: a thief asked */
            :: else -> pc = P_ASKED          /* public mode: a request as well? (mrn_asked) */
            fi
        :: else -> pc = P_SP2
        fi }
    :: atomic { pc == P_SP2 ->               /* store the state */
        state[IDX(w, t)] = SPAWN_STATE;      /* PRIVATE: relaxed; ALL_PUBLIC: TASK, release */
        printf("W%d: spawn task %d at d%d (state %d)\n", w, c, t, SPAWN_STATE);
        if
        :: f_kind[CUR] == F_STOLEN -> HIT(5) /* a stolen task spawns */
        :: else
        fi;
        f_n[CUR]++; f_op[CUR]++;
        CLEAR();
        NEXT() }
    /* the spawn slow path, after publish_below(t) and set_split(t + 1) (P_PUB3): the spawn
     * publishes itself */
    :: atomic { pc == P_SSELF ->
        state[IDX(w, t)] = TASK(WRAP(c));    /* release (state & ~1): the arguments */
        printf("W%d: spawn task %d at d%d TASK (slow path: publishes itself)\n", w, c, t);
        HIT(15);
        if
        :: f_kind[CUR] == F_STOLEN -> HIT(5)
        :: else
        fi;
        f_n[CUR]++; f_op[CUR]++;
        cont = 0;
        CLEAR();
        NEXT() }
    /* mrn_asked (spawn slow path in public mode, or the join of a public task): load own split */
    :: atomic { pc == P_ASKED ->
        if
        :: split[w] == REQUEST -> pc = P_ENTER   /* relaxed: a hint */
        :: else -> AFTER_ENTER()
        fi }
    /* mrn_enter_public: enter public mode, or stay in it for K more public tasks inlined */
    :: atomic { pc == P_ENTER ->
        if
        :: cont == K_SPAWN && pleft == 0 -> HIT(18)  /* a spawn enters (limit 0: a request) */
        :: cont == K_SPAWN && pleft != 0 -> HIT(19)  /* a public spawn sees a request: renew */
        :: cont == K_JOIN -> HIT(20)                 /* the join of a private task (a request) */
        :: cont == K_JXCHG && pleft == 0 -> HIT(21)  /* the join of a public task, a request */
        :: cont == K_JXCHG && pleft != 0 -> HIT(23)  /* ... in public mode: renew */
        :: else
        fi;
        pleft = K;
        limit[w] = 0;                        /* relaxed: every spawn takes the slow path now */
        printf("W%d: public mode: public_left %d, limit 0\n", w, pleft);
        AFTER_ENTER() }
#endif

    /* ---------------- join (NAME_merino_join, merino__join) ---------------- */
#ifndef IMPL
    :: atomic { pc == P_J1 ->
        f_n[CUR]--;
        t = f_base[CUR] + f_n[CUR];          /* w->top = t */
        c = arg[IDX(w, t)];                  /* our own payload: the task we spawned there */
        sp = split[w];                       /* relaxed */
        if
        :: t >= sp ->                        /* private: no atomic */
            printf("W%d: join d%d (task %d): split %d, private fast path\n", w, t, c, sp);
            assert(private_join_safe && !IS_TASK(state[IDX(w, t)]));
            OWNER_TOOK();
            PUSH(F_INLINE, c, t, 0, 0)
        :: else -> pc = P_J2
        fi }
    :: atomic { pc == P_J2 ->
        s = state[IDX(w, t)]; state[IDX(w, t)] = EMPTY;   /* exchange (acquire) */
        printf("W%d: join d%d (task %d): split %d, exchange got %d\n", w, t, c, sp, s);
        assert(model_sane && pleft >= 1);    /* so --public_left != 0 is pleft > 1 */
        if
        :: s == TASK(WRAP(c)) && sp != REQUEST && pleft > 1 ->
            pleft--;                         /* public, not stolen: inline */
            HIT(1);
            OWNER_TOOK();
            PUSH(F_INLINE, c, t, 0, 0)
        :: else ->                           /* merino__join_slow(w, t, s) */
            if
            :: s == TASK(WRAP(c)) && sp != REQUEST -> pleft--   /* now 0 */
            :: else
            fi;
            if
            :: IS_WRAP(s) -> OWNER_TOOK(); pc = P_ACQ
            :: IS_STOLEN(s) -> LEAPFROG(s)
            :: s == DONE -> HIT(11); pc = P_BOT
            :: s == EMPTY -> pc = P_WAIT
            fi
        fi }
    /* the slow path acquired the task: serve a request, or privatize, then run it */
    :: atomic { pc == P_ACQ ->
        if
        :: split[w] == REQUEST ->            /* publish the lower half of the private ones */
            assert_efficiency();
            lo = MIN(plo, t);
            mid = lo + (t - lo + 1) / 2;
            d = lo;
            if
            :: d < mid -> pc = P_PUB1
            :: else -> pc = P_PUB3
            fi
        :: else ->
            if
            :: pleft == 0 -> pc = P_PRIV
            :: else -> PUSH(F_INLINE, c, t, 0, 0)
            fi
        fi }
    :: atomic { pc == P_PRIV ->              /* privatize: from t up, spawns are private again */
#ifdef BUG_NO_PRIVATIZE_CAS
#ifdef CHECK_LOST_REQUEST
        assert(request_not_lost && split[w] != REQUEST);
#endif
        split[w] = t;
#else
        if
        :: split[w] == sp -> split[w] = t; HIT(3)   /* CAS; fails only if a request arrived */
        :: else -> HIT(4)
        fi;
#endif
        plo = MIN(plo, t);
        pleft = K;
        printf("W%d: privatize: split %d, private_lo %d\n", w, split[w], plo);
        PUSH(F_INLINE, c, t, 0, 0) }
#else
    :: atomic { pc == P_J1 ->
        assert_efficiency();
        f_n[CUR]--;
        t = f_base[CUR] + f_n[CUR];          /* w->top = t */
        c = arg[IDX(w, t)];                  /* our own payload: the task we spawned there */
        sp = split[w];                       /* relaxed: owner's, but for a thief's request */
#ifndef ALL_PUBLIC
        if
        :: t >= sp ->                        /* private: no atomic */
            printf("W%d: join d%d (task %d): split %d, private fast path\n", w, t, c, sp);
            assert(private_join_safe && !IS_TASK(state[IDX(w, t)]));
            OWNER_TOOK();
            PUSH(F_INLINE, c, t, 0, 0)
        :: else -> pc = P_JPUB
        fi
#else
        pc = P_JPUB
#endif
        }
    :: atomic { pc == P_JPUB ->              /* merino__join_slow */
        ss = state[IDX(w, t)];               /* relaxed: PRIVATE is written by the owner only */
        if
        :: IS_PRIV(ss) ->                    /* below split because a thief asked: serve it */
            printf("W%d: join d%d (task %d): private, request pending\n", w, t, c);
            ss = 0;
            OWNER_TOOK();
            cont = K_JOIN;
            pc = P_ENTER                     /* enter public mode, publish below t, run t */
        :: else -> ss = 0; cont = K_JXCHG; pc = P_ASKED   /* a request? then enter, exchange */
        fi }
    :: atomic { pc == P_J2 ->
        s = state[IDX(w, t)]; state[IDX(w, t)] = EMPTY;   /* exchange (acquire) */
        printf("W%d: join d%d (task %d): split %d, exchange got %d\n", w, t, c, split[w], s);
        pc = P_J2S }
    :: atomic { pc == P_J2S ->
#ifndef BUG_NO_SPLIT_DOWN
        SET_SPLIT(t);                        /* nothing above t is live: private_from = t */
#endif
        if
        :: IS_WRAP(s) -> HIT(1); OWNER_TOOK(); JOIN_INLINE()
        :: IS_STOLEN(s) -> LEAPFROG(s)
        :: s == DONE -> HIT(11); pc = P_BOT
        :: s == EMPTY -> pc = P_WAIT
        fi }
    :: atomic { pc == P_PRIVZ ->             /* K public tasks inlined: spawn private again */
        limit[w] = N;                        /* relaxed: may overwrite (lose) a request's 0 */
        printf("W%d: leaves public mode: limit %d\n", w, N);
        HIT(22);
        PUSH(F_INLINE, c, t, 0, 0) }
#endif

    /* ------- publish (spec: the lower half, in the slow join; IMPL: mrn_publish_below) ------- */
    :: atomic { pc == P_PUB1 ->
        ss = state[IDX(w, d)];               /* relaxed */
        if
        :: IS_PRIV(ss) -> pc = P_PUB2
        :: else ->
            d++;
            if
            :: d < PUB_END -> pc = P_PUB1
            :: else -> pc = P_PUB3
            fi
        fi }
    :: atomic { pc == P_PUB2 ->
        state[IDX(w, d)] = TASK(FN(ss));     /* release: publishes the payload */
        printf("W%d: publish d%d\n", w, d);
        HIT(2);
        ss = 0; d++;
        if
        :: d < PUB_END -> pc = P_PUB1
        :: else -> pc = P_PUB3
        fi }
#ifndef IMPL
    :: atomic { pc == P_PUB3 ->
        d = 0;
        plo = mid;
#ifdef CHECK_LOST_REQUEST
        assert(request_not_lost && split[w] == REQUEST);
#endif
#ifdef BUG_PUBLISH_ALL_SPLIT_MID
        split[w] = mid;
#else
        split[w] = t + 1;
#endif
        pleft = K;
        printf("W%d: request served: private_lo %d, split %d\n", w, plo, split[w]);
        PUSH(F_INLINE, c, t, 0, 0) }
#else
    :: atomic { pc == P_PUB3 ->              /* mrn_set_split (relaxed: may overwrite a request) */
        d = 0;
        if
        :: cont == K_SPAWN ->
#ifndef BUG_SELF_PUBLISH_NO_SPLIT
            SET_SPLIT(t + 1);                /* t's join takes the exchange */
#endif
            pc = P_SSELF
        :: else ->
#ifndef BUG_PUBLISH_NO_SPLIT
            SET_SPLIT(t);                    /* t is ours: run it */
#endif
            printf("W%d: request served at the join of d%d: private_from %d\n", w, t, plo);
            cont = 0;
            PUSH(F_INLINE, c, t, 0, 0)
        fi }
#endif

    /* ---------------- the wait for a thief (spec: merino__join_slow; IMPL: join_slow) ------ */
    :: atomic { pc == P_WAIT ->              /* a thief is between its CAS and its next store */
        s = state[IDX(w, t)];                /* acquire */
        if
        :: s == EMPTY -> HIT(8)
        :: IS_WRAP(s) -> pc = P_WXCHG        /* a thief backed off */
        :: IS_STOLEN(s) -> LEAPFROG(s)
        :: s == DONE -> pc = P_BOT
        fi }
    :: atomic { pc == P_WXCHG ->
        s = state[IDX(w, t)]; state[IDX(w, t)] = EMPTY;   /* exchange (acquire) */
        if
        :: IS_WRAP(s) -> HIT(9); OWNER_TOOK();
#ifdef IMPL
            JOIN_INLINE()                    /* the loop's first test again: count it */
#else
            pc = P_ACQ
#endif
        :: IS_STOLEN(s) -> LEAPFROG(s)
        :: s == DONE -> pc = P_BOT
        :: s == EMPTY -> pc = P_WAIT
        fi }
#ifdef IMPL
    :: atomic { pc == P_LEAPSET -> SET_SPLIT(t + 1); pc = P_LEAP }   /* we spawn above t */
    :: atomic { pc == P_LEAPEND -> SET_SPLIT(t); pc = P_BOT }
#endif
    :: atomic { pc == P_LEAP ->              /* leapfrog: until DONE, steal from the thief only */
        if
        :: state[IDX(w, t)] == DONE ->       /* acquire: the result, the thief's bot store */
#ifdef IMPL
            pc = P_LEAPEND
#else
            pc = P_BOT
#endif
        :: else -> STEAL_FROM(f_lf[CUR], R_LEAP)
        fi }
    :: atomic { pc == P_BOT ->
        c = arg[IDX(w, t)];                  /* our payload (a thief writes only the result) */
        assert(model_sane && gst[IDX(w, t)] == G_STOLEN);
        assert_below_stolen(w, t);
        gst[IDX(w, t)] = G_FREE;
        arg[IDX(w, t)] = 0;                  /* dead (see OWNER_TOOK) */
        bot[w] = t;                          /* relaxed */
        printf("W%d: join d%d (task %d) has the thief's result, bot := %d\n", w, t, c, t);
        HIT(14);
        assert(join_after_run && fin[c]);
        f_lf[CUR] = 0;
        JOINED() }

    /* ---------------- a task body returns ---------------- */
    :: atomic { pc == P_END ->
        c = f_id[CUR];
        fin[c] = 1;
        if
        :: f_kind[CUR] == F_ROOT ->
            POP();
            assert(stack_empty_when_idle && dep == 0 && bot[w] == 0);
            roots_done++;
            CLEAR();
            NEXT()
        :: f_kind[CUR] == F_INLINE ->
            POP();
            assert(join_after_run && fin[c]);
            JOINED()
        :: f_kind[CUR] == F_STOLEN ->
#ifndef BUG_LOST_DONE
            state[IDX(f_v[CUR], f_vd[CUR])] = DONE;     /* release: the result */
#endif
            printf("W%d: stolen task %d done: W%d.d%d := DONE\n", w, c, f_v[CUR], f_vd[CUR]);
            POP();
            c = 0;
            if
            :: dep == 0 -> pc = P_IDLE
            :: else -> t = f_base[CUR] + f_n[CUR]; pc = P_LEAP
            fi
        fi }

    /* ---------------- steal (mrn_steal) ---------------- */
    :: atomic { pc == S_BOT ->
        st = bot[v];                         /* relaxed: validated after the CAS */
        printf("W%d: steal from W%d: bot = %d\n", w, v, st);
        pc = S_ST }
    :: atomic { pc == S_ST ->
        ss = state[IDX(v, st)];              /* relaxed: a peek */
        printf("W%d: steal from W%d: state(d%d) = %d\n", w, v, st, ss);
        if
#ifdef BUG_PRIVATE_STEAL
        :: IS_WRAP(ss) -> pc = S_CAS
#else
        :: IS_TASK(ss) -> pc = S_CAS
#ifndef IMPL
        :: IS_PRIV(ss) -> pc = S_REQ1        /* ask the owner to publish */
#endif
#endif
#ifdef IMPL
        :: else -> pc = S_REQ1               /* nothing public at bot: ask */
#else
        :: else -> STEAL_FAIL()
#endif
        fi }
#ifndef IMPL
    :: atomic { pc == S_REQ1 ->
        if
        :: !REQ_PENDING(v) -> pc = S_REQ2
        :: else -> STEAL_FAIL()
        fi }
    :: atomic { pc == S_REQ2 ->
        REQ_MAKE(v);                         /* relaxed */
        printf("W%d: asks W%d for public tasks\n", w, v);
        HIT(12);
        STEAL_FAIL() }
#else
    /* mrn_request_public: if limit != 0: split = all ones, limit = 0 (relaxed, hints) */
    :: atomic { pc == S_REQ1 ->
        if
        :: limit[v] != 0 -> pc = S_REQ2
        :: else -> STEAL_FAIL()
        fi }
    :: atomic { pc == S_REQ2 -> split[v] = REQUEST; pc = S_REQ3 }
    :: atomic { pc == S_REQ3 ->
        limit[v] = 0;
        printf("W%d: asks W%d for public tasks\n", w, v);
        HIT(12);
        STEAL_FAIL() }
#endif
    :: atomic { pc == S_CAS ->
        if
        :: state[IDX(v, st)] == ss ->        /* CAS (acquire) */
            state[IDX(v, st)] = EMPTY;
            printf("W%d: CAS W%d.d%d %d -> EMPTY\n", w, v, st, ss);
#ifdef BUG_NO_RECHECK
            pc = S_STOLE
#else
            pc = S_RECHK
#endif
        :: else -> STEAL_FAIL()
        fi }
    :: atomic { pc == S_RECHK ->
        if
        :: bot[v] != st -> pc = S_RESTORE    /* relaxed, after the CAS's acquire */
        :: else -> pc = S_STOLE
        fi }
    :: atomic { pc == S_RESTORE ->
        state[IDX(v, st)] = ss;              /* release: back off */
        printf("W%d: back off: W%d.d%d := %d\n", w, v, st, ss);
        HIT(7);
        STEAL_FAIL() }
    :: atomic { pc == S_STOLE ->
        assert(thief_takes_live && gst[IDX(v, st)] == G_LIVE);
        gst[IDX(v, st)] = G_STOLEN;
        state[IDX(v, st)] = STOLEN(w);       /* relaxed */
        pc = S_BOTUP }
    :: atomic { pc == S_BOTUP ->
        assert_below_stolen(v, st + 1);      /* bot never passes an unstolen task */
        bot[v] = st + 1;                     /* relaxed */
        printf("W%d: took W%d.d%d, W%d.bot := %d\n", w, v, st, v, st + 1);
        pc = S_TRIP }
    :: atomic { pc == S_TRIP ->
        if
        :: IS_PRIV(state[IDX(v, st + 1)]) -> pc = S_TREQ1   /* trip-wire */
        :: else -> pc = S_RUN
        fi }
#ifndef IMPL
    :: atomic { pc == S_TREQ1 ->
        if
        :: !REQ_PENDING(v) -> pc = S_TREQ2
        :: else -> pc = S_RUN
        fi }
    :: atomic { pc == S_TREQ2 ->
        REQ_MAKE(v);
        printf("W%d: trip-wire: asks W%d for public tasks\n", w, v);
        HIT(10);
        pc = S_RUN }
#else
    :: atomic { pc == S_TREQ1 ->
        if
        :: limit[v] != 0 -> pc = S_TREQ2
        :: else -> pc = S_RUN
        fi }
    :: atomic { pc == S_TREQ2 -> split[v] = REQUEST; pc = S_TREQ3 }
    :: atomic { pc == S_TREQ3 ->
        limit[v] = 0;
        printf("W%d: trip-wire: asks W%d for public tasks\n", w, v);
        HIT(10);
        pc = S_RUN }
#endif
    :: atomic { pc == S_RUN ->               /* run the wrapper on our stack, at our top */
        c = arg[IDX(v, st)];
        if
        :: ret == R_LEAP -> HIT(6)           /* a leapfrog steal */
        :: else
        fi;
        PUSH(F_STOLEN, c, TOPV + (dep == 0 -> 0 : 1), v, st) }
    od
}

#ifdef CHECK_TERMINATION
ltl terminates { <> (roots_done == ROOTS) }
#endif

init {
    byte i;
    atomic {
        setup_prog();
        for (i : 0 .. WORKERS - 1) {
#ifdef IMPL
            split[i] = 0;
            limit[i] = N;
#else
            split[i] = INIT_SPLIT;
#endif
        }
        i = 0;
        for (i : 0 .. WORKERS - 1) {
            run Worker(i)
        }
        i = 0
    }
    /* all workers have exited: every task ran exactly once and returned */
    _nr_pr == 1 ->
    atomic {
        for (i : 0 .. NT - 1) {
            assert(all_ran_once && ran[i] == 1 && fin[i])
        }
        i = 0;
        for (i : 0 .. WORKERS * NS - 1) {
            assert(all_ran_once && gst[i] == G_FREE)
        }
        i = 0
    }
}
