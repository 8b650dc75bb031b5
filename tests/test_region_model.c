/* An exhaustive check of how a thief finds the isolated region of the descriptor it stole
 * (src/core/region.c: mrn_region_push, mrn_region_pop, mrn_region_of), every interleaving of the
 * shared steps enumerated:
 *
 *   owner (the victim), a script of operations on its stack of regions and its task stack:
 *       ENTER r: entry[n].pos = next; entry[n].region = r; n = n + 1   (three steps)
 *       LEAVE:   n = n - 1
 *       PUSH / POP: next moves up or down (a spawn or a join of another descriptor)
 *       SPAWN t: the stolen descriptor t is published at next (then the thief may take it)
 *   thief (after it took t):
 *       N: k = n;  then while k > 0: k = k - 1; P: read entry[k].pos, and if it is <= t,
 *       R: read entry[k].region: the answer (none when k reaches 0)
 *
 * Scripts: every prefix of up to four operations before the spawn of t (regions entered and left
 * there leave stale entries behind), then every suffix of up to four operations (regions entered
 * after the spawn begin above t; the owner never leaves a region t is in, nor joins t, while the
 * thief holds it). In every interleaving the answer must be the innermost region open when t was
 * spawned, or none.
 *
 * The same enumeration on three broken variants must find a wrong answer: an ENTER that counts the
 * entry before it fills it in, a thief that reads entries above n, and a thief that takes the
 * outermost entry at or below t instead of the innermost. The checker sees the bugs it is for.
 *
 * This checks the logic under sequential consistency; the memory orders (release stores of n,
 * acquire load in the thief, ordered after the acquire CAS that took t) are argued in region.c and
 * exercised by test_isolate and test_arena under ThreadSanitizer. */
#include "check.h"

#include <stdbool.h>
#include <string.h>

enum { OP_ENTER, OP_LEAVE, OP_PUSH, OP_POP, OP_SPAWN, NOPS };
enum { MAXLEN = 4, MAXE = 8, NONE = 0 };
enum { BROKEN_NONE, BROKEN_COUNT_FIRST, BROKEN_ABOVE_N, BROKEN_OUTERMOST, NBROKEN };

static int g_broken;
static long g_paths, g_scripts, g_wrong;

typedef struct state {
    /* shared */
    int n;
    int pos[MAXE], region[MAXE];
    int written; /* entries ever written (BROKEN_ABOVE_N reads up to it) */
    /* owner */
    int next;
    int ip, micro;     /* operation of the script, and step within an ENTER */
    int t;             /* t's position once spawned, else -1 */
    int truth;         /* t's region */
    int open_at_spawn; /* regions open when t was spawned: the owner never leaves those */
    int next_region;
    int depth_at_spawn; /* next when t was spawned (the owner never pops to or below it) */
    /* thief */
    int tpc; /* 0: not started, 1: N done (scanning), 2: answered */
    int k, answer, outer_found;
} state;

static int g_script[2 * MAXLEN + 1], g_len;

/* The innermost region open now (the owner's view), or NONE. */
static int open_region(const state *s) { return s->n > 0 ? s->region[s->n - 1] : NONE; }

/* Whether the owner's next operation may run (the script was built valid; this guards the
 * micro-steps only). */
static bool owner_done(const state *s) { return s->ip == g_len; }

static void owner_step(state *s) {
    int op = g_script[s->ip];
    switch (op) {
    case OP_ENTER:
        if (g_broken == BROKEN_COUNT_FIRST) {
            if (s->micro == 0) s->n++;
            else if (s->micro == 1) s->pos[s->n - 1] = s->next;
            else s->region[s->n - 1] = s->next_region;
        } else {
            if (s->micro == 0) s->pos[s->n] = s->next;
            else if (s->micro == 1) s->region[s->n] = s->next_region;
            else s->n++;
        }
        if (++s->micro == 3) {
            s->micro = 0;
            if (s->n > s->written) s->written = s->n;
            s->next_region++;
            s->ip++;
        }
        return;
    case OP_LEAVE: s->n--; break;
    case OP_PUSH: s->next++; break;
    case OP_POP: s->next--; break;
    case OP_SPAWN:
        s->t = s->next;
        s->truth = open_region(s);
        s->open_at_spawn = s->n;
        s->next++;
        s->depth_at_spawn = s->next;
        break;
    }
    s->ip++;
}

static void thief_step(state *s) {
    if (s->tpc == 0) {
        s->k = g_broken == BROKEN_ABOVE_N ? s->written : s->n;
        s->answer = NONE;
        s->outer_found = 0;
        s->tpc = 1;
        return;
    }
    if (s->k == 0) { /* scanned all */
        if (g_broken == BROKEN_OUTERMOST && s->outer_found) s->answer = s->outer_found;
        s->tpc = 2;
        return;
    }
    s->k--;
    if (s->pos[s->k] <= s->t) {
        if (g_broken == BROKEN_OUTERMOST) {
            s->outer_found = s->region[s->k]; /* keeps the last (outermost) seen */
            return;
        }
        s->answer = s->region[s->k];
        s->tpc = 2;
    }
}

static void explore(state *s) {
    bool thief_can = s->t >= 0 && s->tpc < 2;
    bool owner_can = !owner_done(s);
    if (!thief_can && !owner_can) {
        g_paths++;
        if (s->tpc == 2 && s->answer != s->truth) g_wrong++;
        return;
    }
    if (owner_can) {
        state c = *s;
        owner_step(&c);
        explore(&c);
    }
    if (thief_can) {
        state c = *s;
        thief_step(&c);
        explore(&c);
    }
}

/* Whether the script (up to and including index len-1) is valid: no LEAVE of a region that is not
 * open or that t is in, no POP of t nor below where the innermost open region began (a region's
 * code joins what it spawns before it returns), entries fit. */
static bool valid(void) {
    int n = 0, next = 0, spawned = -1, open_at = 0, floor = 0, began[MAXE];
    for (int i = 0; i < g_len; i++) {
        switch (g_script[i]) {
        case OP_ENTER:
            if (n == MAXE) return false;
            began[n++] = next;
            break;
        case OP_LEAVE:
            if (n == 0 || (spawned >= 0 && n <= open_at)) return false;
            n--;
            break;
        case OP_PUSH: next++; break;
        case OP_POP:
            if (next <= floor || (n > 0 && next <= began[n - 1])) return false;
            next--;
            break;
        case OP_SPAWN:
            spawned = next;
            open_at = n;
            next++;
            floor = next;
            break;
        }
    }
    return true;
}

static void run_script(void) {
    state s;
    memset(&s, 0, sizeof s);
    s.t = -1;
    s.next_region = 1;
    g_scripts++;
    explore(&s);
}

/* Scripts: prefix ops (not SPAWN), SPAWN, suffix ops (not SPAWN). */
static void gen(int i, int prefix_len, int suffix_len) {
    if (i == prefix_len + 1 + suffix_len) {
        g_len = i;
        if (valid()) run_script();
        return;
    }
    if (i == prefix_len) {
        g_script[i] = OP_SPAWN;
        g_len = i + 1;
        if (valid()) gen(i + 1, prefix_len, suffix_len);
        return;
    }
    for (int op = 0; op < OP_SPAWN; op++) {
        g_script[i] = op;
        g_len = i + 1;
        if (valid()) gen(i + 1, prefix_len, suffix_len);
    }
}

static long check_all(int broken) {
    g_broken = broken;
    g_paths = g_scripts = g_wrong = 0;
    for (int p = 0; p <= MAXLEN; p++)
        for (int q = 0; q <= MAXLEN; q++) gen(0, p, q);
    return g_wrong;
}

int main(void) {
    long wrong = check_all(BROKEN_NONE);
    printf("test_region_model: %ld scripts, %ld interleavings, %ld wrong answers\n", g_scripts, g_paths, wrong);
    CHECK(g_paths > 100000);
    CHECK_EQ_INT(wrong, 0);
    static const char *names[NBROKEN] = {"", "count before fill", "entries above n", "outermost entry"};
    for (int b = BROKEN_COUNT_FIRST; b < NBROKEN; b++) {
        long w = check_all(b);
        printf("test_region_model: broken variant (%s): %ld wrong answers in %ld interleavings\n", names[b], w,
               g_paths);
        CHECK_MSG(w > 0, "the checker did not see the broken variant \"%s\"", names[b]);
    }
    printf("test_region_model: ok\n");
    return 0;
}
