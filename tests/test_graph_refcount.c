/* An exhaustive model of the reference-count protocol of task objects (src/graph/task.c): every
 * interleaving of the atomic steps of a parent and its 1..3 children, each step one atomic action
 * (sequential consistency: the memory orders are argued in task.c, and ThreadSanitizer runs the
 * real code in `make tsan`). Checked in every interleaving:
 *  - wait:         the count is set to children + 1, the children spawned, and the wait (enabled
 *                  once the count is 1) sees every child's result; the count never reaches 0;
 *  - continuation: the continuation's count is the number of children; it runs exactly once, run
 *                  by whoever brings the count to 0, after every child's result;
 *  - recycled as its own continuation: the count is children + 1, the scheduler drops the one
 *                  after execute returns; the task runs again exactly once, after all its
 *                  children and after its first run returned.
 * Dropping a reference is three steps, as in mrn_release_ref: a load of the count; a decision,
 * which may read the parent's state (WAITING: the wait's one is inert) and the dropper's own
 * deque (whether its newest private task is the parent's other child); then one write — a plain
 * store (0 when the count was 1, the last reference; count - 1 when every reference that can
 * move is ours or held by our private child) or an atomic decrement whose result 0 makes the
 * task ready. Each scenario runs with every child public, and (2 or 3 children) with the last
 * child pushed private on child 1's worker: it starts only once that worker publishes it (at any
 * point before child 1 loads the count) or child 1 has finished (the worker pops it).
 * And the model catches the bugs it guards against: recycling with the count set to the children
 * only; the shortcut at a count of 2 with no condition; the private rule taken after the child was
 * published; and the recycled task's scheduler-dropped one treated as a wait's (inert). Some
 * interleaving fails in each. */
#include "check.h"

enum scenario { WAIT, WAIT_EARLY, CONTINUATION, RECYCLE, RECYCLE_BUG, SHORTCUT_BUG, PRIVATE_BUG, INERT_BUG, NSCENARIOS };

#define MAXK 3
#define PUBLISHER (MAXK + 1) /* the pseudo-thread that publishes child 1's worker's deque */

typedef signed char i8; /* small fields: the memo below keys on the whole state */
typedef struct state {
    i8 count;
    i8 waiting;          /* the parent's state is WAITING */
    i8 published;        /* powner's worker has published the private child */
    i8 result[MAXK + 1]; /* child i wrote its result */
    i8 spawned[MAXK + 1];
    i8 pc[MAXK + 1];     /* thread 0: the parent; 1..k: the children; -1: finished */
    i8 seen[MAXK + 1];   /* the count thread t loaded for its drop */
    i8 act[MAXK + 1];    /* the write it decided on: -1 the atomic decrement, else the value to store */
    i8 cont_runs;        /* times the continuation (or the recycled task) ran */
    i8 returned;         /* the parent's (first) execute has returned */
    i8 failed;           /* a check failed on this path */
} state;

static enum scenario sc;
static int k;
static int powner; /* child k is private on the worker of thread powner (1, or 0: the recycled
                      * parent's runner), or -1: every child public */
static long paths, failing;

static int waits(void) { return sc == WAIT || sc == WAIT_EARLY; }
static int recycles(void) { return sc == RECYCLE || sc == RECYCLE_BUG || sc == INERT_BUG; }

/* The continuation runs: it must see every result and (recycled) the first run's return. */
static void run_continuation(state *s) {
    s->cont_runs++;
    for (int i = 1; i <= k; i++)
        if (!s->result[i]) s->failed = 1;
    if (recycles() && !s->returned) s->failed = 1;
}

/* Whether thread t's newest private task is the parent's other child (mrn_other_ref_private):
 * only powner's worker holds one, until it publishes it (the bug forgets the publish). */
static int private_other(const state *s, int t) { return t == powner && (sc == PRIVATE_BUG || !s->published); }

/* The pc of thread t's load of the count: its worker may publish until then, not between that load
 * and its write (no publish in mrn_release_ref). */
static int load_pc(int t) { return t > 0 ? 1 : k + 2; }

/* The decision of a drop by thread t (mrn_release_ref), from the count it loaded. */
static void drop_decide(state *s, int t) {
    int c = s->seen[t];
    if (c == 1) s->act[t] = 0;
    else if (c == 2 && (sc == SHORTCUT_BUG || private_other(s, t))) s->act[t] = 1;
    else {
        int moving = c - s->waiting;
        if (moving == 1) s->act[t] = 1;
        else if (moving == 2 && c == 3 && private_other(s, t)) s->act[t] = 2;
        else s->act[t] = -1;
    }
}

/* The write of the drop; the one that brings the count to 0 runs the continuation. */
static void drop_write(state *s, int t) {
    int zero;
    if (s->act[t] >= 0) {
        s->count = s->act[t];
        zero = s->act[t] == 0;
    } else {
        zero = --s->count == 0;
    }
    if (!zero) return;
    if (waits())
        s->failed = 1; /* a waiting task's count must stop at 1 */
    else
        run_continuation(s);
}

static int enabled(const state *s, int t) {
    if (t == PUBLISHER) return powner >= 0 && !s->published && s->pc[powner] >= 0 && s->pc[powner] <= load_pc(powner);
    if (t > k || s->pc[t] < 0) return 0;
    if (t == k && powner >= 0 && !s->published && s->pc[powner] >= 0) return 0; /* private: not startable yet */
    if (t > 0) return s->spawned[t];
    if (waits() && s->pc[0] == k + 2) return s->count == 1; /* the wait */
    return 1;
}

/* One atomic step of thread t. */
static void step(state *s, int t) {
    if (t == PUBLISHER) {
        s->published = 1;
        return;
    }
    int pc = s->pc[t]++;
    if (t > 0) { /* a child: write the result, then drop its reference */
        if (pc == 0) s->result[t] = 1;
        else if (pc == 1) s->seen[t] = s->count;
        else if (pc == 2) drop_decide(s, t);
        else { drop_write(s, t); s->pc[t] = -1; }
        return;
    }
    /* the parent: set the count, (WAIT_EARLY: mark itself waiting), spawn the children, then wait
     * (WAIT: marking itself first) or return */
    if (pc == 0) {
        s->count = k + (waits() || sc == RECYCLE || sc == INERT_BUG ? 1 : 0); /* the bug: no +1 */
        if (sc == WAIT_EARLY || sc == INERT_BUG) s->waiting = 1; /* the bug: the recycle's one as inert */
        return;
    }
    if (pc <= k) {
        s->spawned[pc] = 1;
        return;
    }
    switch (sc) {
    case WAIT:
    case WAIT_EARLY:
        if (pc == k + 1) {
            s->waiting = 1;
            return;
        }
        for (int i = 1; i <= k; i++) /* enabled at count 1: all results must be there */
            if (!s->result[i]) s->failed = 1;
        s->waiting = 0;
        break;
    case RECYCLE:
    case INERT_BUG: /* execute returns, then the scheduler drops the extra reference */
        if (pc == k + 1) {
            s->returned = 1;
            return;
        }
        if (pc == k + 2) {
            s->seen[0] = s->count;
            return;
        }
        if (pc == k + 3) {
            drop_decide(s, 0);
            return;
        }
        drop_write(s, 0);
        break;
    default: /* CONTINUATION, RECYCLE_BUG (no extra one), SHORTCUT_BUG, PRIVATE_BUG: execute returns */
        s->returned = 1;
        break;
    }
    s->pc[0] = -1;
}

/* Interleavings from a state and how many of them fail, memoized per state (a state's future
 * depends on the state alone): the count of interleavings is exact, the work is per state. */
typedef struct tally {
    long paths, failing;
} tally;

#define MEMO_BITS 21
typedef struct memo_entry {
    state s;
    i8 used;
    tally t;
} memo_entry;
static memo_entry *memo;
static long memo_used;

static memo_entry *memo_slot(const state *s) {
    uint64_t h = 1469598103934665603u;
    const unsigned char *b = (const unsigned char *)s;
    for (size_t i = 0; i < sizeof *s; i++) h = (h ^ b[i]) * 1099511628211u;
    for (size_t i = h >> (64 - MEMO_BITS);; i = (i + 1) & ((1u << MEMO_BITS) - 1)) {
        memo_entry *e = &memo[i];
        if (!e->used || memcmp(&e->s, s, sizeof *s) == 0) return e;
    }
}

static tally explore(state s) {
    const state key = s;
    memo_entry *e = memo_slot(&key);
    if (e->used) return e->t;
    tally r = {0, 0};
    int any = 0;
    for (int t = 0; t <= PUBLISHER; t++) {
        if (!enabled(&s, t)) continue;
        any = 1;
        state n = s;
        step(&n, t);
        tally sub = explore(n);
        r.paths += sub.paths;
        r.failing += sub.failing;
    }
    if (!any) {
        int done = 1;
        for (int t = 0; t <= k; t++) done &= s.pc[t] < 0;
        if (!done) s.failed = 1; /* stuck */
        if (!waits() && s.cont_runs != 1) s.failed = 1;
        r.paths = 1;
        r.failing = s.failed;
    }
    e = memo_slot(&key); /* again: the recursion may have taken the free slot found above */
    if (!e->used) {
        CHECK_MSG(++memo_used < (3l << MEMO_BITS) / 4, "the model's memo is full: raise MEMO_BITS");
        e->s = key;
        e->used = 1;
        e->t = r;
    }
    return r;
}

static long check_scenario(enum scenario which, int children, int private_owner) {
    sc = which;
    k = children;
    powner = private_owner;
    if (!memo) memo = malloc(sizeof *memo << MEMO_BITS);
    CHECK_MSG(memo != NULL, "out of memory for the model's memo");
    memset(memo, 0, sizeof *memo << MEMO_BITS);
    memo_used = 0;
    state s;
    memset(&s, 0, sizeof s);
    tally r = explore(s);
    paths = r.paths;
    failing = r.failing;
    return failing;
}

int main(void) {
    static const char *names[NSCENARIOS] = {"wait", "wait, marked early", "continuation", "recycled as continuation",
                                            "recycled, count without +1", "shortcut at a count of 2",
                                            "private rule after publish", "recycle's one as inert"};
    for (int children = 1; children <= MAXK; children++) {
        for (int p = -1; p <= (children >= 2 ? 1 : -1); p++) {
            static const char *const hows[] = {"all public", "last private (runner)", "last private (child 1)"};
            const char *how = hows[p + 1];
            for (int which = WAIT; which <= RECYCLE; which++) {
                if (p == 0 && which != RECYCLE) continue; /* the parent drops a reference only when recycled */
                long bad = check_scenario((enum scenario)which, children, p);
                check_set_context("%s, %d children, %s", names[which], children, how);
                CHECK_MSG(bad == 0, "%ld of %ld interleavings fail", bad, paths);
                printf("%-28s %d children, %-22s: %ld interleavings, all correct\n", names[which], children, how,
                       paths);
            }
        }
        long bad = check_scenario(RECYCLE_BUG, children, -1);
        check_set_context("%s, %d children", names[RECYCLE_BUG], children);
        CHECK_MSG(bad > 0, "the model did not catch the missing +1 (%ld interleavings)", paths);
        printf("%-28s %d children: %ld of %ld interleavings fail, as they must\n", names[RECYCLE_BUG], children,
               bad, paths);
        bad = check_scenario(INERT_BUG, children, -1);
        check_set_context("%s, %d children", names[INERT_BUG], children);
        CHECK_MSG(bad > 0, "the model did not catch the recycle's one taken as inert (%ld interleavings)", paths);
        printf("%-28s %d children: %ld of %ld interleavings fail, as they must\n", names[INERT_BUG], children, bad,
               paths);
        if (children < 2) continue; /* one child: a count of 2 is never seen, and no other child */
        bad = check_scenario(SHORTCUT_BUG, children, -1);
        check_set_context("%s, %d children", names[SHORTCUT_BUG], children);
        CHECK_MSG(bad > 0, "the model did not catch the shortcut at 2 (%ld interleavings)", paths);
        printf("%-28s %d children: %ld of %ld interleavings fail, as they must\n", names[SHORTCUT_BUG], children,
               bad, paths);
        bad = check_scenario(PRIVATE_BUG, children, 1);
        check_set_context("%s, %d children", names[PRIVATE_BUG], children);
        CHECK_MSG(bad > 0, "the model did not catch the private rule after a publish (%ld interleavings)", paths);
        printf("%-28s %d children: %ld of %ld interleavings fail, as they must\n", names[PRIVATE_BUG], children,
               bad, paths);
    }
    return 0;
}
