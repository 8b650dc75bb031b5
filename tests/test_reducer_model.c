/* An exhaustive check of the reducer protocol (include/merino_reducer.h: its argument;
 * src/core/views.c, src/graph/views.c, src/algo/reducer.c: the code), over every small program and
 * every way its work may be stolen:
 *
 *   programs   every body of at most MAXLEN symbols in the grammar
 *                  body := item* END      item := U | S body body | G body body
 *              U: the strand appends a fresh token to a string reducer (concatenation does not
 *              commute: any reordering shows); S child cont: MERINO_SPAWN(child); cont;
 *              MERINO_JOIN — in serial order cont, then child; G t0 t1: a task group: run(t0),
 *              the strand's own token, run(t1), its own token, wait — in serial order t0, token,
 *              t1, token. The root runs with a token of the code outside the pool before and after.
 *   schedules  each S: not stolen (the child runs inline at the join, in the owner's map), stolen
 *              and run by a thief before the continuation, after it, or halfway through it (a
 *              helping wait's owner taking its own oldest task); each G: its tasks run in either
 *              order, the first at its run or at the wait.
 *   the steps  as the runtime takes them: a thief (or a root task, or a task object) runs with an
 *              empty map (mrn_views_enter), leaves its map in the descriptor's slot when it has a
 *              view (mrn_views_leave), the joiner folds the slot into its own map (fold(left =
 *              ours, right = the thief's): mrn_views_joined), a group's run cuts the strand's map
 *              ahead of the task (key 2 seq), its tasks' maps are keyed 2 seq + 1, the wait folds
 *              them in key order and then the strand's map (src/graph/views.c); a root's map is
 *              folded into the reducer's own view at its end (mrn_views_root_end).
 * In every program and schedule the reducer's result must be the serial program's, and no map
 * may be left in a slot. The same enumeration on three broken variants must find a failure: a
 * join that folds the thief's map before its own (Cilk's order, where the thief has the
 * continuation: wrong for Wool's direct task stack, where the thief has the child), a thief that
 * runs in its victim's map, and a group whose runs do not cut the strand's map.
 *
 * This checks the protocol's logic; it is sequential because each map belongs to one strand at a
 * time — a thread's steps on its own map commute with everyone else's — and the one hand-over
 * between threads (the slot) is ordered by the descriptor's DONE (release store, acquire load),
 * as argued in src/core/views.c. The runtime's code runs under test_reducer, with ThreadSanitizer
 * in the tsan build. */
#include "check.h"

#include <stdbool.h>

enum { U, S, G, END, NSYM };
enum { MAXLEN = 11, MAXS = 8, MAXG = 4, MAXTOK = 64 };
enum { OK, BROKEN_CILK_ORDER, BROKEN_SHARED_MAP, BROKEN_NO_CUT };

/* A map: the view of the one reducer (a string), or none (NULL: the identity). */
typedef struct map {
    char s[MAXTOK * 3 + 1];
} map;

static map g_pool[64];
static int g_free[64], g_nfree;
static int g_variant;

static map *map_new(void) {
    CHECK(g_nfree > 0);
    map *m = &g_pool[g_free[--g_nfree]];
    m->s[0] = 0;
    return m;
}
static void map_delete(map *m) { g_free[g_nfree++] = (int)(m - g_pool); }
/* left (+)= right, right consumed (src/algo/reducer.c, mrn_vmap_fold). */
static map *fold(map *left, map *right) {
    if (!right) return left;
    if (!left) return right;
    strcat(left->s, right->s);
    map_delete(right);
    return left;
}

/* ---- the program ------------------------------------------------------------------------------------ */

static int g_prog[MAXLEN], g_len;
static int g_choice[MAXS + MAXG]; /* per S (0..3), then per G (0..3) */
static int g_ns, g_ng;

/* Parses a body at *pos; returns false if it does not parse. Counts S and G. */
static bool parse(int *pos, int *ns, int *ng) {
    while (*pos < g_len) {
        int c = g_prog[(*pos)++];
        if (c == END) return true;
        if (c == S || c == G) {
            if (c == S) ++*ns; else ++*ng;
            if (!parse(pos, ns, ng) || !parse(pos, ns, ng)) return false;
        }
    }
    return false;
}

/* The serial program: appends the tokens in serial order. Tokens are letters by position. */
static void token(char *out, int pos) {
    char t[4] = {(char)('A' + pos % 26), (char)('a' + pos / 26), ',', 0};
    strcat(out, t);
}

static int skip(int pos) { /* past the body at pos */
    while (g_prog[pos] != END) {
        int c = g_prog[pos++];
        if (c == S || c == G) pos = skip(skip(pos));
    }
    return pos + 1;
}

static void serial(int pos, char *out) {
    while (g_prog[pos] != END) {
        int at = pos, c = g_prog[pos++];
        if (c == U) {
            token(out, at);
        } else if (c == S) {
            int cont = skip(pos);
            serial(cont, out); /* the continuation, then the child at the join */
            serial(pos, out);
            pos = skip(cont);
        } else {
            int t1 = skip(pos);
            serial(pos, out);
            token(out, at);
            serial(t1, out);
            token(out, at + 100);
            pos = skip(t1);
        }
    }
}

/* ---- the protocol -------------------------------------------------------------------------------------- */

static map *cur;           /* the running thread's merino__views */
static map *slot[MAXLEN];  /* a descriptor's slot, per S (by position) */
static int g_si, g_gi;     /* the next S and G met, numbering the choices */

static void view_append(int pos) {
    if (!cur) cur = map_new(); /* a view made on first use: the identity */
    token(cur->s, pos);
}

static void exec(int pos, int stop_after); /* runs the body at pos; see below */

/* A thief runs the child at pos for descriptor d (thief.c, mrn_steal; views.c). */
static void thief_runs(int pos, int d) {
    map *saved = NULL;
    if (g_variant != BROKEN_SHARED_MAP) {
        saved = cur; /* mrn_views_enter */
        cur = NULL;
    }
    exec(pos, -1);
    if (g_variant != BROKEN_SHARED_MAP) { /* mrn_views_leave */
        if (cur) slot[d] = cur;
        cur = saved;
    }
}

/* The join of a stolen child (owner.c, after DONE: mrn_views_joined). */
static void joined(int d) {
    map *m = slot[d];
    if (!m) return;
    slot[d] = NULL;
    cur = g_variant == BROKEN_CILK_ORDER ? fold(m, cur) : fold(cur, m);
}

/* A group's maps (src/graph/views.c). */
typedef struct gviews {
    int n;
    int key[8];
    map *m[8];
} gviews;

static void gadd(gviews *g, int key, map *m) {
    CHECK(g->n < 8);
    g->key[g->n] = key;
    g->m[g->n++] = m;
}
static void grun(gviews *g, int seq) { /* mrn_group_views_run */
    if (g_variant == BROKEN_NO_CUT || !cur) return;
    gadd(g, 2 * seq, cur);
    cur = NULL;
}
static void gtask(gviews *g, int seq, int pos) { /* a task object runs: mrn_execute_in */
    map *saved = cur;
    cur = NULL;
    exec(pos, -1);
    map *m = cur;
    cur = saved;
    if (m) gadd(g, 2 * seq + 1, m);
}
static void gwait(gviews *g) { /* mrn_group_views_wait: key order, then the strand's own */
    map *acc = NULL;
    for (int k = 0; k < 8; k++)
        for (int i = 0; i < g->n; i++)
            if (g->key[i] == k) acc = fold(acc, g->m[i]);
    cur = fold(acc, cur);
}

/* Runs the body at pos; with stop_after >= 0, only its first stop_after items (for the halfway
 * point of a continuation), returning where it stopped through g_rest. */
static int g_rest;
static void exec(int pos, int stop_after) {
    int items = 0;
    while (g_prog[pos] != END) {
        if (stop_after >= 0 && items++ == stop_after) {
            g_rest = pos;
            return;
        }
        int at = pos, c = g_prog[pos++];
        if (c == U) {
            view_append(at);
        } else if (c == S) {
            int child = pos, cont = skip(pos), after = skip(cont);
            int d = at, how = g_choice[g_si++];
            switch (how) {
            case 0: /* not stolen: the continuation, then the child inline at the join */
                exec(cont, -1);
                exec(child, -1);
                break;
            case 1: /* stolen, run before the continuation */
                thief_runs(child, d);
                exec(cont, -1);
                joined(d);
                break;
            case 2: /* stolen, run after it (the owner leapfrogs meanwhile) */
                exec(cont, -1);
                thief_runs(child, d);
                joined(d);
                break;
            default: { /* the owner takes its own oldest task halfway through the continuation */
                g_rest = -1;
                exec(cont, 1);
                int rest = g_rest;
                thief_runs(child, d);
                if (rest >= 0) exec(rest, -1);
                joined(d);
                break;
            }
            }
            pos = after;
        } else {
            int t0 = pos, t1 = skip(pos), after = skip(t1);
            int how = g_choice[g_ns + g_gi++];
            gviews g = {0};
            grun(&g, 0);
            bool early = how & 1, swap = how & 2;
            if (early) gtask(&g, 0, t0);
            view_append(at);
            grun(&g, 1);
            if (swap) gtask(&g, 1, t1);
            view_append(at + 100);
            if (!early) gtask(&g, 0, t0);
            if (!swap) gtask(&g, 1, t1);
            gwait(&g);
            pos = after;
        }
    }
    g_rest = -1;
}

/* Runs the program under every schedule; returns the failures. */
static long check_program(long *schedules) {
    char want[sizeof(map)] = "<";
    serial(0, want);
    strcat(want, ">");
    long fails = 0;
    int nchoices = g_ns + g_ng;
    long total = 1;
    for (int i = 0; i < nchoices; i++) total *= 4;
    for (long k = 0; k < total; k++) {
        long x = k;
        for (int i = 0; i < nchoices; i++) {
            g_choice[i] = (int)(x % 4);
            x /= 4;
        }
        map own = {"<"}; /* the reducer's own view, with the outside code's token before the run */
        g_si = g_gi = 0;
        cur = NULL; /* the root's map: mrn_views_enter */
        exec(0, -1);
        map *m = cur; /* mrn_views_root_end */
        cur = NULL;
        if (m) {
            strcat(own.s, m->s);
            map_delete(m);
        }
        strcat(own.s, ">");
        bool leak = g_nfree != 64;
        for (int i = 0; i < MAXLEN; i++)
            if (slot[i]) {
                leak = true;
                slot[i] = NULL;
            }
        if (leak || strcmp(own.s, want) != 0) fails++;
        g_nfree = 64;
        for (int i = 0; i < 64; i++) g_free[i] = i;
        ++*schedules;
    }
    return fails;
}

/* Every program of up to MAXLEN symbols; returns the schedules that failed. */
static long enumerate(int variant, long *programs, long *schedules) {
    g_variant = variant;
    g_nfree = 64;
    for (int i = 0; i < 64; i++) g_free[i] = i;
    long fails = 0;
    for (int len = 1; len <= MAXLEN; len++) {
        long n = 1;
        for (int i = 0; i < len; i++) n *= NSYM;
        for (long code = 0; code < n; code++) {
            long x = code;
            for (int i = 0; i < len; i++) {
                g_prog[i] = (int)(x % NSYM);
                x /= NSYM;
            }
            g_len = len;
            int pos = 0, ns = 0, ng = 0;
            if (!parse(&pos, &ns, &ng) || pos != len) continue;
            if (ns > MAXS || ng > MAXG) continue;
            g_ns = ns;
            g_ng = ng;
            ++*programs;
            fails += check_program(schedules);
        }
    }
    return fails;
}

int main(void) {
    long programs = 0, schedules = 0;
    long fails = enumerate(OK, &programs, &schedules);
    printf("reducer protocol: %ld programs, %ld schedules, %ld failures\n", programs, schedules, fails);
    CHECK(programs > 1000);
    CHECK_EQ_INT(fails, 0);
    static const char *const names[] = {"", "join folds the thief's map first (Cilk's order)",
                                        "thief runs in its victim's map", "group runs do not cut the map"};
    for (int v = BROKEN_CILK_ORDER; v <= BROKEN_NO_CUT; v++) {
        long p = 0, s = 0;
        long f = enumerate(v, &p, &s);
        printf("broken variant (%s): %ld of %ld schedules fail\n", names[v], f, s);
        CHECK_MSG(f > 0, "the checker must find the bug of variant %d", v);
    }
    printf("ok\n");
    return 0;
}
