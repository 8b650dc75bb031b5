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
 * Dropping a reference is two steps, as in mrn_release_ref: a load of the count, then — when it
 * was 1, the last reference — a plain store of 0 with no read-modify-write (nobody else holds a
 * reference to drop), else an atomic decrement whose result 0 makes the task ready.
 * And the model catches the bugs it guards against: recycling with the count set to the children
 * only lets the task run again while its first run has not returned, and taking the shortcut at a
 * count of 2 loses a reference (some interleaving fails in each). */
#include "check.h"

enum scenario { WAIT, CONTINUATION, RECYCLE, RECYCLE_BUG, SHORTCUT_BUG };

#define MAXK 3

typedef struct state {
    int count;
    int result[MAXK + 1]; /* child i wrote its result */
    int spawned[MAXK + 1];
    int pc[MAXK + 1];     /* thread 0: the parent; 1..k: the children; -1: finished */
    int seen[MAXK + 1];   /* the count thread t loaded before its drop */
    int cont_runs;        /* times the continuation (or the recycled task) ran */
    int returned;         /* the parent's (first) execute has returned */
    int failed;           /* a check failed on this path */
} state;

static enum scenario sc;
static int k;
static long paths, failing;

/* The continuation runs: it must see every result and (recycled) the first run's return. */
static void run_continuation(state *s) {
    s->cont_runs++;
    for (int i = 1; i <= k; i++)
        if (!s->result[i]) s->failed = 1;
    if ((sc == RECYCLE || sc == RECYCLE_BUG) && !s->returned) s->failed = 1;
}

/* The first step of a drop by thread t: load the count. */
static void drop_load(state *s, int t) { s->seen[t] = s->count; }

/* The second: with the count seen 1 (the last reference; 2 in the bug), a plain store of 0;
 * else the atomic decrement. The one that brings it to 0 runs the continuation. */
static void drop(state *s, int t) {
    int last = s->seen[t] == (sc == SHORTCUT_BUG ? 2 : 1);
    if (last) s->count = 0;
    if (last || --s->count == 0) {
        if (sc == WAIT)
            s->failed = 1; /* a waiting task's count must stop at 1 */
        else
            run_continuation(s);
    }
}

static int enabled(const state *s, int t) {
    if (s->pc[t] < 0) return 0;
    if (t > 0) return s->spawned[t];
    if (sc == WAIT && s->pc[0] == k + 1) return s->count == 1; /* the wait */
    return 1;
}

/* One atomic step of thread t. */
static void step(state *s, int t) {
    int pc = s->pc[t]++;
    if (t > 0) { /* a child: write the result, then drop its reference */
        if (pc == 0) s->result[t] = 1;
        else if (pc == 1) drop_load(s, t);
        else { drop(s, t); s->pc[t] = -1; }
        return;
    }
    /* the parent: set the count, spawn the children, then wait or return */
    if (pc == 0) {
        s->count = k + (sc == WAIT || sc == RECYCLE ? 1 : 0);
        return;
    }
    if (pc <= k) {
        s->spawned[pc] = 1;
        return;
    }
    switch (sc) {
    case WAIT: /* enabled at count 1: all results must be there */
        for (int i = 1; i <= k; i++)
            if (!s->result[i]) s->failed = 1;
        break;
    case CONTINUATION:
    case RECYCLE_BUG:
    case SHORTCUT_BUG:
        s->returned = 1; /* execute returns; nothing more */
        break;
    case RECYCLE: /* execute returns, then the scheduler drops the extra reference */
        if (pc == k + 1) {
            s->returned = 1;
            return;
        }
        if (pc == k + 2) {
            drop_load(s, 0);
            return;
        }
        drop(s, 0);
        break;
    }
    s->pc[0] = -1;
}

static void explore(state s) {
    int any = 0;
    for (int t = 0; t <= k; t++) {
        if (!enabled(&s, t)) continue;
        any = 1;
        state n = s;
        step(&n, t);
        explore(n);
    }
    if (any) return;
    int done = 1;
    for (int t = 0; t <= k; t++) done &= s.pc[t] < 0;
    if (!done) s.failed = 1; /* stuck */
    if (sc != WAIT && s.cont_runs != 1) s.failed = 1;
    paths++;
    failing += s.failed;
}

static long check_scenario(enum scenario which, int children) {
    sc = which;
    k = children;
    paths = failing = 0;
    state s;
    memset(&s, 0, sizeof s);
    explore(s);
    return failing;
}

int main(void) {
    static const char *names[] = {"wait", "continuation", "recycled as continuation", "recycled, count without +1",
                                  "shortcut at a count of 2"};
    for (int children = 1; children <= MAXK; children++) {
        for (int which = WAIT; which <= RECYCLE; which++) {
            long bad = check_scenario((enum scenario)which, children);
            check_set_context("%s, %d children", names[which], children);
            CHECK_MSG(bad == 0, "%ld of %ld interleavings fail", bad, paths);
            printf("%-28s %d children: %ld interleavings, all correct\n", names[which], children, paths);
        }
        long bad = check_scenario(RECYCLE_BUG, children);
        check_set_context("%s, %d children", names[RECYCLE_BUG], children);
        CHECK_MSG(bad > 0, "the model did not catch the missing +1 (%ld interleavings)", paths);
        printf("%-28s %d children: %ld of %ld interleavings fail, as they must\n", names[RECYCLE_BUG], children,
               bad, paths);
        if (children < 2) continue; /* one child: a count of 2 is never seen */
        bad = check_scenario(SHORTCUT_BUG, children);
        check_set_context("%s, %d children", names[SHORTCUT_BUG], children);
        CHECK_MSG(bad > 0, "the model did not catch the shortcut at 2 (%ld interleavings)", paths);
        printf("%-28s %d children: %ld of %ld interleavings fail, as they must\n", names[SHORTCUT_BUG], children,
               bad, paths);
    }
    return 0;
}
