/* An exhaustive model of the split deque of task objects (src/graph/deque.c and graph.h): every
 * interleaving of the atomic steps of an owner and two thieves, with states already seen not
 * explored twice (sequential consistency: the memory orders are argued in deque.c, and
 * ThreadSanitizer runs the real code in `make tsan`).
 *
 * The owner runs a fixed program of pushes and pops (a push polls the thieves' request and then
 * publishes; a pop takes a private task with plain steps, or races for a public one); each thief
 * makes a few steal attempts (one that finds nothing public asks, by setting `want`). Checked at
 * the end of every interleaving: no task is taken twice, every task taken is one that was pushed,
 * and every task pushed is taken or still in the deque; and the owner's last pop, on a deque it
 * has emptied, finds nothing. The model also catches two injected bugs (some interleaving fails in
 * each): a pop that takes a public task as if it were private, and a public pop that reads top
 * before lowering split (no Dekker pair). */
#include "check.h"

#include <stdint.h>

enum bug { NONE, PUBLIC_AS_PRIVATE, TOP_BEFORE_SPLIT };

#define NSLOT 8
#define NTHIEF 2
#define ATTEMPTS 2
#define NTASK 5 /* task ids 1..4 */

/* The owner's program: push id (> 0) or pop (0). */
static const int8_t program[] = {1, 2, 0, 3, 0, 0, 4, 0, 0, 0};
#define NOPS ((int)sizeof program)

typedef struct state {
    int8_t top, split, bottom, want;
    int8_t slot[NSLOT];
    /* the owner: op index, step in the op, locals (b, t, x, own_split) */
    int8_t op, step, b, t, x, own_split;
    /* the thieves: attempts made, step, locals */
    int8_t th_att[NTHIEF], th_step[NTHIEF], th_t[NTHIEF], th_s[NTHIEF], th_x[NTHIEF];
    int8_t taken[NTASK];
    int8_t failed; /* a check failed on this path */
    int8_t pad[3];
} state;

static enum bug bug;
static long finals, failing;

/* ---- a set of states seen (open addressing, grows) ---- */

static state *seen;
static size_t seen_cap, seen_n;

static uint64_t hash_state(const state *s) {
    const unsigned char *p = (const unsigned char *)s;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < sizeof *s; i++) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static int state_empty(const state *s) { return s->op == -1; }

static void seen_insert_raw(state *tab, size_t cap, const state *s) {
    size_t i = hash_state(s) & (cap - 1);
    while (!state_empty(&tab[i])) i = (i + 1) & (cap - 1);
    tab[i] = *s;
}

/* Adds s; returns 0 when it was already there. */
static int seen_add(const state *s) {
    if (2 * (seen_n + 1) > seen_cap) {
        size_t cap = seen_cap ? 2 * seen_cap : 1 << 16;
        state *tab = malloc(cap * sizeof *tab);
        CHECK(tab != NULL);
        for (size_t i = 0; i < cap; i++) tab[i].op = -1;
        for (size_t i = 0; i < seen_cap; i++)
            if (!state_empty(&seen[i])) seen_insert_raw(tab, cap, &seen[i]);
        free(seen);
        seen = tab;
        seen_cap = cap;
    }
    size_t i = hash_state(s) & (seen_cap - 1);
    while (!state_empty(&seen[i])) {
        if (memcmp(&seen[i], s, sizeof *s) == 0) return 0;
        i = (i + 1) & (seen_cap - 1);
    }
    seen[i] = *s;
    seen_n++;
    return 1;
}

/* ---- the owner ---- */

static void take(state *s, int x) {
    if (x <= 0 || x >= NTASK || s->taken[x]) s->failed = 1; /* garbage, or taken twice */
    else s->taken[x] = 1;
}

static void next_op(state *s) {
    s->op++;
    s->step = 0;
}

/* One atomic step of the owner. */
static void owner_step(state *s) {
    int8_t id = program[s->op];
    if (id > 0) { /* push: slot, bottom, then poll the request and publish */
        switch (s->step++) {
        case 0: s->b = s->bottom; s->slot[s->b] = id; return; /* private slot: not read by thieves */
        case 1: s->bottom = s->b + 1; return;
        case 2: if (!s->want) next_op(s); return;
        case 3: s->own_split = s->bottom; s->split = s->bottom; return; /* publish */
        default: s->want = 0; next_op(s); return;
        }
    }
    /* pop */
    switch (s->step) {
    case 0:
        s->b = s->bottom - 1;
        if (s->b >= s->own_split || bug == PUBLIC_AS_PRIVATE) {
            if (s->b < 0 || s->b < s->top) { /* (the bug's pop of an empty deque) */
                s->x = 0;
                s->step = 99;
                return;
            }
            s->bottom = s->b; /* private: a plain store, nothing raced */
            s->x = s->slot[s->b];
            s->step = 99;
            return;
        }
        s->step = 10;
        return;
    case 10: /* public: peek at top */
        if (s->b < s->top) { s->x = 0; s->step = 99; return; }
        s->step = bug == TOP_BEFORE_SPLIT ? 13 : 11;
        return;
    case 11: s->own_split = s->b; s->split = s->b; s->step = 12; return;
    case 12: s->bottom = s->b; s->step = bug == TOP_BEFORE_SPLIT ? 14 : 13; return;
    case 13:
        s->t = s->top;
        s->step = bug == TOP_BEFORE_SPLIT ? 11 : 14;
        return;
    case 14:
        s->x = s->slot[s->b];
        if (s->t < s->b) { s->step = 99; return; }
        if (s->t == s->b && s->top == s->b) s->top = s->b + 1; /* the CAS: one atomic step */
        else s->x = 0;
        s->step = 15;
        return;
    case 15: s->own_split = s->b + 1; s->split = s->b + 1; s->step = 16; return;
    case 16: s->bottom = s->b + 1; s->step = 99; return;
    case 99: /* the pop's result */
        if (s->x) take(s, s->x);
        if (s->op == NOPS - 1 && s->x) s->failed = 1; /* the last pop: the deque is empty by now */
        s->step = 100;
        return;
    case 100: /* then poll the request, as a push does */
        if (!s->want) next_op(s);
        else s->step = 101;
        return;
    case 101: s->own_split = s->bottom; s->split = s->bottom; s->step = 102; return; /* publish */
    default: s->want = 0; next_op(s); return;
    }
}

/* ---- the thieves ---- */

static int thief_enabled(const state *s, int i) { return s->th_att[i] < ATTEMPTS; }

static void thief_step(state *s, int i) {
    switch (s->th_step[i]++) {
    case 0: s->th_t[i] = s->top; return;
    case 1:
        s->th_s[i] = s->split;
        if (s->th_t[i] >= s->th_s[i]) s->th_step[i] = 10; /* nothing public: maybe ask */
        return;
    case 2: s->th_x[i] = s->slot[s->th_t[i]]; return;
    case 3: /* the CAS */
        if (s->top == s->th_t[i]) {
            s->top = s->th_t[i] + 1;
            take(s, s->th_x[i]);
        }
        break;
    case 10: /* nothing public: ask */
        if (!s->want) return;
        break;
    case 11: s->want = 1; break;
    }
    s->th_step[i] = 0;
    s->th_att[i]++;
}

/* ---- the exploration ---- */

static void finish(state *s) {
    int in_deque[NTASK] = {0};
    for (int i = s->top; i < s->bottom; i++)
        if (s->slot[i] > 0 && s->slot[i] < NTASK) in_deque[(int)s->slot[i]] = 1;
    for (int id = 1; id < NTASK; id++) {
        int pushed = 0;
        for (int k = 0; k < NOPS; k++) pushed |= program[k] == id;
        if (pushed && !s->taken[id] && !in_deque[id]) s->failed = 1; /* lost */
        if (s->taken[id] && in_deque[id]) s->failed = 1;                /* taken and still there */
    }
    finals++;
    failing += s->failed;
}

static void explore(const state *s) {
    if (!seen_add(s)) return;
    int any = 0;
    if (s->op < NOPS) {
        state n = *s;
        owner_step(&n);
        explore(&n);
        any = 1;
    }
    for (int i = 0; i < NTHIEF; i++) {
        if (!thief_enabled(s, i)) continue;
        state n = *s;
        thief_step(&n, i);
        explore(&n);
        any = 1;
    }
    if (!any) {
        state f = *s;
        finish(&f);
    }
}

static long check_bug(enum bug which) {
    bug = which;
    finals = failing = 0;
    free(seen);
    seen = NULL;
    seen_cap = seen_n = 0;
    state s;
    memset(&s, 0, sizeof s);
    explore(&s);
    return failing;
}

int main(void) {
    long bad = check_bug(NONE);
    CHECK_MSG(bad == 0, "%ld of %ld final states fail", bad, finals);
    CHECK(finals > 0);
    printf("split deque, %d owner operations against %d thieves x %d attempts: %zu states, %ld final, all "
           "correct\n",
           NOPS, NTHIEF, ATTEMPTS, seen_n, finals);
    static const char *names[] = {"", "a public task popped as private", "top read before split is lowered"};
    for (int b = PUBLIC_AS_PRIVATE; b <= TOP_BEFORE_SPLIT; b++) {
        bad = check_bug((enum bug)b);
        check_set_context("%s", names[b]);
        CHECK_MSG(bad > 0, "the model did not catch the bug (%ld final states)", finals);
        printf("bug: %-36s %ld of %ld final states fail, as they must\n", names[b], bad, finals);
    }
    free(seen);
    return 0;
}
