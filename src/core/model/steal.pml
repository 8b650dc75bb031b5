/* steal.pml — a Promela model of merino's work-stealing protocol, for the spin model checker.
 *
 * The protocol is Wool's direct task stack with private tasks (Faxén, ICPP 2010, section III):
 * per-worker arrays of task descriptors synchronized on each descriptor's state word, a private
 * `top`, a shared `bot`, a shared `split` below which descriptors are public, requests for
 * publication from thieves, publish-half on request, privatize after K public inlines, and
 * leapfrogging at a join whose task was stolen. README.md beside this file maps every step to the
 * C code and lists what is abstracted; check.sh runs the checks.
 *
 * Build knobs (spin -D...):
 *   WORKERS=2|3         number of workers (worker 0 runs the root task, the others start idle)
 *   N=4                 task descriptors per worker (overflow is an assertion)
 *   K=2                 public tasks inlined before the owner privatizes
 *   INIT_SPLIT=0..N     initial split of every worker (0: all private, N: all public)
 *   PROG=0|1            the task tree (see setup_prog below)
 *   BUG_NO_RECHECK, BUG_PRIVATE_STEAL, BUG_NO_PRIVATIZE_CAS, BUG_PUBLISH_ALL_SPLIT_MID
 *                       injected protocol bugs (README.md says which ones spin catches)
 *   CHECK_LOST_REQUEST  also assert that the owner never overwrites a pending request
 *   CHECK_TERMINATION   add the LTL property  <> finished  (run pan with -a -f)
 *
 * Granularity: every access to shared memory (state, split, bot, the payload) is its own step;
 * a step is an atomic{} block holding exactly one shared access (plus the owner's private
 * bookkeeping and ghost updates). spin interleaves the steps sequentially consistently.
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

#define NS (N + 1)        /* descriptors per worker: N usable plus a sentinel a thief may read when bot == N */
#define D 6               /* frames per worker: nesting of running tasks (inline runs and leapfrog steals) */
#define IDX(w, t) ((w) * NS + (t))
#define REQUEST 255       /* larger than any descriptor index, like UINTPTR_MAX in C */

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
#define FN(x) ((x) & 15)

/* ghost status of a descriptor (not part of the protocol; used by the assertions only) */
#define G_FREE 0          /* not holding a task that is still to be acquired */
#define G_LIVE 1          /* spawned, not yet acquired by its owner or a thief */
#define G_STOLEN 2        /* acquired by a thief (running or done, not yet joined back) */

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
byte split[WORKERS];        /* per worker: descriptors below are public; REQUEST = thieves want more */
byte bot[WORKERS];          /* per worker: lowest descriptor not yet stolen / joined back */
bool finished;              /* the root task has returned: idle workers exit */

/* ---- ghosts ------------------------------------------------------------------------------------ */

byte gst[WORKERS * NS];     /* G_* per descriptor */

/* ---- the task program (constant after init) -------------------------------------------------- */

#if PROG == 0
/* root: spawn 1, spawn 2, join, join;  1 and 2 each spawn one leaf and join it. */
#define NT 5
#define NCODE 11
#elif PROG == 1
/* root: spawn 1, spawn 2, join 2, join 1, spawn 3, spawn 4, join 4, join 3
 *   1 = ONE(5): spawn a leaf, join it
 *   2 = TWO(6, 7): spawn two leaves, join both
 *   3..7 leaves
 * Two rounds on the same slots give the thief's ABA case (a leaf at d1 in both rounds, d0 stolen in
 * the first); TWO gives a publish with three live descriptors (mid strictly inside [lo, t)). */
#define NT 8
#define NCODE 18
#else
#error "PROG must be 0 or 1"
#endif

byte ran[NT];               /* ghost: times each task body started (must end up 1 each) */
bool fin[NT];               /* ghost: task body returned */
hidden byte code[NCODE];    /* ops of all task bodies */
hidden byte entry[NT];      /* first op of each task */
hidden byte fnof[NT];       /* wrapper (task function) of each task */

inline setup_prog() {
#if PROG == 0
    /* functions: 0 root, 1 ONE, 2 LEAF */
    code[0] = 1; code[1] = 2; code[2] = OP_JOIN; code[3] = OP_JOIN; code[4] = OP_END;
    code[5] = 3; code[6] = OP_JOIN; code[7] = OP_END;
    code[8] = 4; code[9] = OP_JOIN; code[10] = OP_END;
    entry[0] = 0; entry[1] = 5; entry[2] = 8; entry[3] = 10; entry[4] = 10;
    fnof[0] = 0; fnof[1] = 1; fnof[2] = 1; fnof[3] = 2; fnof[4] = 2;
#else
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
#endif
}

/* ---- program counters of a worker's innermost activity ---------------------------------------- */

#define P_IDLE 1     /* no task: pick a victim */
#define P_SP1 2      /* spawn: write the payload, load split */
#define P_SP2 3      /* spawn: store the state (PRIVATE or TASK) */
#define P_J1 4       /* join: pop, load split; private fast path */
#define P_J2 5       /* join: exchange(state, EMPTY) */
#define P_ACQ 6      /* join slow path, task acquired: reload split */
#define P_PUB1 7     /* publish-half: load state(d) */
#define P_PUB2 8     /* publish-half: store TASK into state(d) */
#define P_PUB3 9     /* publish-half: store split */
#define P_PRIV 10    /* privatize: CAS split */
#define P_WAIT 11    /* join slow path: s == EMPTY, load state until it changes */
#define P_WXCHG 12   /* join slow path: state is TASK again (a thief backed off): exchange */
#define P_LEAP 13    /* leapfrog: load state, DONE? */
#define P_BOT 14     /* stolen task done: bot := t */
#define P_END 15     /* task body returns */
#define S_BOT 20     /* steal: load victim bot */
#define S_ST 21      /* steal: load state(bot) */
#define S_REQ1 22    /* steal: PRIVATE at bot: load split */
#define S_REQ2 23    /* steal: store REQUEST */
#define S_CAS 24     /* steal: CAS(state, s, EMPTY) */
#define S_RECHK 25   /* steal: reload bot */
#define S_RESTORE 26 /* steal: back off, state := s */
#define S_STOLE 27   /* steal: state := STOLEN(self) */
#define S_BOTUP 28   /* steal: bot := t+1 */
#define S_TRIP 29    /* steal: load state(t+1) (trip-wire) */
#define S_TREQ1 30   /* steal: trip-wire request: load split */
#define S_TREQ2 31   /* steal: trip-wire request: store REQUEST */
#define P_EXIT 40

#define R_IDLE 0     /* a steal attempt returns to the idle loop */
#define R_LEAP 1     /* ... or to the leapfrog loop of the innermost frame */

#define MIN(a, b) ((a) < (b) -> (a) : (b))

#if WORKERS == 2
#define CHOOSE_VICTIM(w, v) if :: w != 0 -> v = 0 :: w != 1 -> v = 1 fi
#elif WORKERS == 3
#define CHOOSE_VICTIM(w, v) if :: w != 0 -> v = 0 :: w != 1 -> v = 1 :: w != 2 -> v = 2 fi
#else
#error "WORKERS must be 2 or 3"
#endif

/* inside Worker: the innermost frame, and w->top */
#define CUR (dep - 1)
#define TOPV (dep == 0 -> 0 : f_base[CUR] + f_n[CUR])

/* every descriptor of worker vw below nb must be held by a thief: bot never passes an unstolen task */
inline assert_below_stolen(vw, nb) {
    d = 0;
    do
    :: d < nb -> assert(gst[IDX(vw, d)] == G_STOLEN); d++
    :: else -> break
    od;
    d = 0
}

/* every live descriptor below private_lo is public (or taken): a request can always be served */
inline assert_private_lo() {
    d = 0;
    do
    :: d < plo && d < TOPV -> assert(!IS_PRIV(state[IDX(w, d)])); d++
    :: else -> break
    od;
    d = 0
}

proctype Worker(byte w) {
    /* owner-private fields of merino_worker */
    byte plo = INIT_SPLIT;   /* private_lo */
    byte pleft = K;          /* public_left */
    /* frames of the tasks this worker is running, innermost last */
    byte dep;
    byte f_id[D];    /* task id */
    byte f_kind[D];  /* F_ROOT, F_INLINE, F_STOLEN */
    byte f_base[D];  /* top when the task started: its children go to f_base, f_base+1, ... */
    byte f_n[D];     /* spawned, not yet joined children */
    byte f_op[D];    /* next op */
    byte f_v[D];     /* F_STOLEN: victim */
    byte f_vd[D];    /* F_STOLEN: descriptor index at the victim */
    byte f_lf[D];    /* thief to leapfrog on, while joining a stolen child */
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

#define PUSH(kind, id, base, vv, vd)                                             \
    assert(dep < D);                                                             \
    f_id[dep] = id; f_kind[dep] = kind; f_base[dep] = base; f_n[dep] = 0;        \
    f_op[dep] = 0; f_v[dep] = vv; f_vd[dep] = vd; f_lf[dep] = 0;                 \
    dep++;                                                                       \
    ran[id]++;                                                                   \
    assert(ran[id] == 1); /* every task runs once */                            \
    t = 0; s = 0; sp = 0; c = 0; lo = 0; mid = 0; v = 0; st = 0; ss = 0; ret = 0; \
    NEXT()

#define POP()                                                                    \
    dep--;                                                                       \
    f_id[dep] = 0; f_kind[dep] = 0; f_base[dep] = 0; f_n[dep] = 0;               \
    f_op[dep] = 0; f_v[dep] = 0; f_vd[dep] = 0; f_lf[dep] = 0

    /* the current join's child task is done: continue the frame (local only) */
#define JOINED()                                                                 \
    f_op[CUR]++;                                                                 \
    t = 0; s = 0; sp = 0; c = 0; lo = 0; mid = 0; v = 0; st = 0; ss = 0; ret = 0; \
    NEXT()

    /* a steal attempt failed: back to the idle loop or the leapfrog loop */
#define STEAL_FAIL()                                                             \
    v = 0; st = 0; ss = 0;                                                       \
    if                                                                           \
    :: ret == R_IDLE -> pc = P_IDLE                                              \
    :: else -> t = f_base[CUR] + f_n[CUR]; pc = P_LEAP                           \
    fi;                                                                          \
    ret = 0

    /* start a steal attempt from victim vv */
#define STEAL_FROM(vv, r) v = vv; ret = r; pc = S_BOT

    /* the join of t acquired its task in the slow path: the owner's bookkeeping comes next */
#define OWNER_ACQUIRED()                                                         \
    assert(gst[IDX(w, t)] == G_LIVE); gst[IDX(w, t)] = G_FREE;                   \
    pc = P_ACQ

    atomic {
        if
        :: w == 0 -> PUSH(F_ROOT, 0, 0, 0, 0)
        :: else -> pc = P_IDLE
        fi
    }

    do
    /* ---------------- idle: a steal attempt from a random victim ---------------- */
    :: atomic { pc == P_IDLE ->
        if
        :: finished -> assert(bot[w] == 0); pc = P_EXIT
        :: else -> CHOOSE_VICTIM(w, v); STEAL_FROM(v, R_IDLE)
        fi }
    :: pc == P_EXIT -> break

    /* ---------------- spawn (merino__spawn_publish) ---------------- */
    :: atomic { pc == P_SP1 ->
        t = f_base[CUR] + f_n[CUR];
        c = code[entry[f_id[CUR]] + f_op[CUR]];
        assert(t < N);                       /* stack overflow: never, for these programs */
        arg[IDX(w, t)] = c;                  /* the payload */
        gst[IDX(w, t)] = G_LIVE;
        sp = split[w];                       /* relaxed load (w->top = t+1 is private) */
        pc = P_SP2 }
    :: atomic { pc == P_SP2 ->
        if
        :: t >= sp -> state[IDX(w, t)] = PRIV(fnof[c])   /* relaxed */
        :: else -> state[IDX(w, t)] = TASK(fnof[c])      /* release */
        fi;
        f_n[CUR]++; f_op[CUR]++;
        t = 0; sp = 0; c = 0;
        NEXT() }

    /* ---------------- join (merino__join_acquire) ---------------- */
    :: atomic { pc == P_J1 ->
        f_n[CUR]--;
        t = f_base[CUR] + f_n[CUR];          /* w->top = t */
        c = arg[IDX(w, t)];                  /* the owner's own payload: the task it spawned there */
        sp = split[w];                       /* relaxed load */
        if
        :: t >= sp ->
            /* private fast path: no atomic. Safe only if no thief can take t: */
            assert(!IS_TASK(state[IDX(w, t)]));
            assert(gst[IDX(w, t)] == G_LIVE); gst[IDX(w, t)] = G_FREE;
            PUSH(F_INLINE, c, t, 0, 0)
        :: else -> pc = P_J2
        fi }
    :: atomic { pc == P_J2 ->
        s = state[IDX(w, t)]; state[IDX(w, t)] = EMPTY;   /* exchange, acquire */
        assert(pleft >= 1);                  /* so --public_left != 0 is pleft > 1 */
        if
        :: s == TASK(fnof[c]) && sp != REQUEST && pleft > 1 ->
            pleft--;                         /* public fast path */
            assert(gst[IDX(w, t)] == G_LIVE); gst[IDX(w, t)] = G_FREE;
            PUSH(F_INLINE, c, t, 0, 0)
        :: else ->
            /* merino__join_slow(w, t, s) */
            if
            :: s == TASK(fnof[c]) && sp != REQUEST -> pleft--   /* reached 0 */
            :: else
            fi;
            if
            :: IS_TASK(s) || IS_PRIV(s) -> OWNER_ACQUIRED()
            :: IS_STOLEN(s) -> f_lf[CUR] = THIEF(s); pc = P_LEAP
            :: s == DONE -> pc = P_BOT
            :: s == EMPTY -> pc = P_WAIT
            fi
        fi }

    /* ---------------- join slow path (merino__join_slow) ---------------- */
    :: atomic { pc == P_ACQ ->
        if
        :: split[w] == REQUEST ->            /* publish on request: the lower half of the private ones */
            lo = MIN(plo, t);
            mid = lo + (t - lo + 1) / 2;
            assert_private_lo();
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
    :: atomic { pc == P_PUB1 ->
        ss = state[IDX(w, d)];
        if
        :: IS_PRIV(ss) -> pc = P_PUB2
        :: else ->
            d++;
            if
            :: d < mid -> pc = P_PUB1
            :: else -> pc = P_PUB3
            fi
        fi }
    :: atomic { pc == P_PUB2 ->
        state[IDX(w, d)] = TASK(FN(ss));     /* release: publishes the payload */
        ss = 0; d++;
        if
        :: d < mid -> pc = P_PUB1
        :: else -> pc = P_PUB3
        fi }
    :: atomic { pc == P_PUB3 ->
        d = 0;
        plo = mid;
#ifdef CHECK_LOST_REQUEST
        assert(split[w] == REQUEST);
#endif
#ifdef BUG_PUBLISH_ALL_SPLIT_MID
        split[w] = mid;
#else
        split[w] = t + 1;
#endif
        pleft = K;
        PUSH(F_INLINE, c, t, 0, 0) }
    :: atomic { pc == P_PRIV ->              /* privatize: descriptors from t up become private */
#ifdef BUG_NO_PRIVATIZE_CAS
#ifdef CHECK_LOST_REQUEST
        assert(split[w] != REQUEST);         /* a pending request would be lost */
#endif
        split[w] = t;
#else
        if
        :: split[w] == sp -> split[w] = t   /* CAS; fails only if a request arrived */
        :: else
        fi;
#endif
        plo = MIN(plo, t);
        pleft = K;
        PUSH(F_INLINE, c, t, 0, 0) }
    :: atomic { pc == P_WAIT ->              /* a thief is between its CAS and STOLEN / back-off */
        s = state[IDX(w, t)];
        assert(!IS_PRIV(s));
        if
        :: s == EMPTY -> skip
        :: IS_TASK(s) -> pc = P_WXCHG
        :: IS_STOLEN(s) -> f_lf[CUR] = THIEF(s); pc = P_LEAP
        :: s == DONE -> pc = P_BOT
        fi }
    :: atomic { pc == P_WXCHG ->
        s = state[IDX(w, t)]; state[IDX(w, t)] = EMPTY;   /* exchange */
        if
        :: IS_TASK(s) -> OWNER_ACQUIRED()
        :: IS_STOLEN(s) -> f_lf[CUR] = THIEF(s); pc = P_LEAP
        :: s == DONE -> pc = P_BOT
        :: s == EMPTY -> pc = P_WAIT
        fi }
    :: atomic { pc == P_LEAP ->              /* leapfrog: until DONE, steal from the thief only */
        if
        :: state[IDX(w, t)] == DONE -> pc = P_BOT    /* acquire */
        :: else -> STEAL_FROM(f_lf[CUR], R_LEAP)
        fi }
    :: atomic { pc == P_BOT ->
        c = arg[IDX(w, t)];                  /* the owner's own payload (a thief writes only the result) */
        assert(gst[IDX(w, t)] == G_STOLEN);
        assert_below_stolen(w, t);
        gst[IDX(w, t)] = G_FREE;
        bot[w] = t;
        assert(fin[c]);                      /* the join returns after its task ran */
        f_lf[CUR] = 0;
        JOINED() }

    /* ---------------- a task body returns ---------------- */
    :: atomic { pc == P_END ->
        c = f_id[CUR];
        fin[c] = 1;
        if
        :: f_kind[CUR] == F_ROOT ->
            POP();
            assert(dep == 0 && bot[w] == 0);
            d = 0;
            do
            :: d < NT -> assert(ran[d] == 1 && fin[d]); d++
            :: else -> break
            od;
            d = 0;
            finished = 1;
            c = 0;
            NEXT()
        :: f_kind[CUR] == F_INLINE ->
            POP();
            assert(fin[c]);                  /* the join returns after its task ran */
            JOINED()
        :: f_kind[CUR] == F_STOLEN ->
            state[IDX(f_v[CUR], f_vd[CUR])] = DONE;     /* release: publishes the result */
            POP();
            c = 0;
            if
            :: dep == 0 -> pc = P_IDLE
            :: else -> t = f_base[CUR] + f_n[CUR]; pc = P_LEAP
            fi
        fi }

    /* ---------------- steal (merino__steal) ---------------- */
    :: atomic { pc == S_BOT -> st = bot[v]; pc = S_ST }
    :: atomic { pc == S_ST ->
        ss = state[IDX(v, st)];
        if
#ifdef BUG_PRIVATE_STEAL
        :: IS_TASK(ss) || IS_PRIV(ss) -> pc = S_CAS
#else
        :: IS_PRIV(ss) -> pc = S_REQ1        /* ask the owner to publish */
        :: IS_TASK(ss) -> pc = S_CAS
#endif
        :: else -> STEAL_FAIL()
        fi }
    :: atomic { pc == S_REQ1 ->
        if
        :: split[v] != REQUEST -> pc = S_REQ2
        :: else -> STEAL_FAIL()
        fi }
    :: atomic { pc == S_REQ2 -> split[v] = REQUEST; STEAL_FAIL() }
    :: atomic { pc == S_CAS ->
        if
        :: state[IDX(v, st)] == ss ->
            state[IDX(v, st)] = EMPTY;
#ifdef BUG_NO_RECHECK
            pc = S_STOLE
#else
            pc = S_RECHK
#endif
        :: else -> STEAL_FAIL()
        fi }
    :: atomic { pc == S_RECHK ->
        if
        :: bot[v] != st -> pc = S_RESTORE
        :: else -> pc = S_STOLE
        fi }
    :: atomic { pc == S_RESTORE -> state[IDX(v, st)] = ss; STEAL_FAIL() }   /* release */
    :: atomic { pc == S_STOLE ->
        assert(gst[IDX(v, st)] == G_LIVE);  /* a thief takes only a spawned, unacquired task */
        gst[IDX(v, st)] = G_STOLEN;
        state[IDX(v, st)] = STOLEN(w);
        pc = S_BOTUP }
    :: atomic { pc == S_BOTUP ->
        assert_below_stolen(v, st + 1);      /* bot never passes an unstolen task */
        bot[v] = st + 1;
        pc = S_TRIP }
    :: atomic { pc == S_TRIP ->
        if
        :: IS_PRIV(state[IDX(v, st + 1)]) -> pc = S_TREQ1   /* trip-wire */
        :: else -> pc = S_TREQ2 + 100
        fi }
    :: atomic { pc == S_TREQ1 ->
        if
        :: split[v] != REQUEST -> pc = S_TREQ2
        :: else -> pc = S_TREQ2 + 100
        fi }
    :: atomic { pc == S_TREQ2 -> split[v] = REQUEST; pc = S_TREQ2 + 100 }
    :: atomic { pc == S_TREQ2 + 100 ->       /* run the task on this worker's stack */
        c = arg[IDX(v, st)];
        PUSH(F_STOLEN, c, TOPV + (dep == 0 -> 0 : 1), v, st) }
    od
}

#ifdef CHECK_TERMINATION
ltl terminates { <> finished }
#endif

init {
    byte i;
    atomic {
        setup_prog();
        for (i : 0 .. WORKERS - 1) {
            split[i] = INIT_SPLIT
        }
        i = 0;
        for (i : 0 .. WORKERS - 1) {
            run Worker(i)
        }
        i = 0
    }
}
