/* An exhaustive check of the remote-free protocol (src/alloc/malloc.c: mrn_foreign_free; remote.c:
 * mrn_batch_flush, mrn_remote_push, mrn_heap_collect, mrn_buf_get, mrn_buf_return), every
 * interleaving of its shared steps enumerated:
 *
 *   pusher (a freeing thread; its batches are buffers of object addresses, or small ones chains
 *   through the objects):
 *       G: takes a buffer: its private spares, else exchange(spare_in, NIL), else a new one; fills it
 *          (a small batch instead: its objects chained through their first words, low bit set)
 *       P: old = load(remote); link (buffer's next, or the chain's last object's first word) = old
 *       C: CAS(remote, old -> entry), else back to P
 *   owner (collecting):
 *       X: list = exchange(remote, NIL)
 *       W: an entry: its link, then its objects (a buffer's array, or the one object) collected
 *       R: a buffer walked goes back to its pusher: old = load(spare_in); buffer's next = old
 *       S: CAS(spare_in, old -> buffer), else back to R
 *
 * Pusher 0 flushes two batches of buffers, pusher 1 a buffer, a chain of two objects (a small
 * batch; a chain of one is the exiting thread's free), and a buffer; each has two buffers at
 * most, so a second buffer batch may reuse one the owner gave back. The owner collects twice at
 * any moment and once at the end, each collection a sequence of steps interleaved with the
 * pushers'. In every interleaving each object must be collected exactly
 * once, every walk must end (no cycle), and every buffer must be back with its pusher at the end.
 * Private steps are merged into the shared step next to them (they commute with everything the
 * others do), and states already explored are not explored again: the count of interleavings is
 * counted over the paths, not enumerated one by one.
 *
 * The same enumeration run on two broken variants must find a failure: a push that stores in place
 * of its CAS (a lost free), and an owner that gives a buffer back before it has read it (a pusher
 * refills it under the owner). The checker can see the bugs it is for.
 *
 * This checks the protocol's logic under sequential consistency; the memory orders (release CAS
 * and acquire exchange on both lists) are argued in remote.c, and exercised by
 * test_alloc_cross_thread and the ThreadSanitizer build. */
#include "check.h"

#include <stdbool.h>

/* An entry of a list: a buffer b (0..NBUF-1), or ONE + o: object o of a chain (through obj_next). */
enum { NOBJ = 7, NIL = -1, PUSHERS = 2, MAXB = 3, NBUF = 4, ONE = 8 };
enum { BROKEN_NONE, BROKEN_PUSH_STORE, BROKEN_EARLY_RETURN };

typedef struct batch {
    int8_t lone; /* a chain of objects linked through their first words (no buffer) */
    int8_t n;
    int8_t obj[2];
} batch;

/* The pushers' batches; pusher p owns buffers 2p and 2p + 1. */
static const int g_nbatches[PUSHERS] = {2, 3};
static const batch g_batches[PUSHERS][MAXB] = {
    {{0, 2, {0, 1}}, {0, 1, {2}}},
    {{0, 1, {3}}, {1, 2, {4, 5}}, {0, 1, {6}}},
};

typedef struct state {
    int8_t remote;           /* entry: a buffer, ONE + object, or NIL */
    int8_t spare_in[PUSHERS];/* pusher's returned buffers (a stack through buf_next) */
    int8_t buf_next[NBUF];
    int8_t buf_n[NBUF];
    int8_t buf_obj[NBUF][2];
    int8_t obj_next[NOBJ];   /* a chained object's link */
    int8_t collected[NOBJ];
    /* pushers */
    int8_t pc[PUSHERS];      /* 0: G (or P for a chain), 1: P, 2: C */
    int8_t batch[PUSHERS];
    int8_t cur[PUSHERS];     /* the batch's entry */
    int8_t old[PUSHERS];
    int8_t priv[PUSHERS];    /* private spare buffers (through buf_next) */
    int8_t fresh[PUSHERS];   /* buffers made so far */
    /* owner */
    int8_t opc;              /* 0: idle, 1: W, 2: R, 3: S, 4: W of a buffer given back early */
    int8_t list;             /* the rest of the list it took */
    int8_t ret;              /* the buffer being given back */
    int8_t ret_old;
    int8_t collects_left;
    int8_t steps;            /* entries walked in this collection (a cycle check) */
    int8_t bad;              /* a spare list held an entry that is not a buffer (broken variants) */
} state;

static int g_broken;

/* Explored states: open addressing over the whole state, with the paths counted below it. */
typedef struct memo {
    state s;
    bool used;
    long paths, failures;
} memo;
enum { MEMO_BITS = 19 };
static memo *g_memo;
static long g_states;

static uint64_t state_hash(const state *s) {
    const unsigned char *b = (const unsigned char *)s;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < sizeof *s; i++) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static bool pusher_done(const state *s, int p) { return s->batch[p] == g_nbatches[p]; }

static void step_pusher(state *s, int p) {
    const batch *b = &g_batches[p][s->batch[p]];
    switch (s->pc[p]) {
    case 0: /* G */
        if (b->lone) { /* a small batch's chain: linked privately, the last link set at P */
            for (int i = 0; i + 1 < b->n; i++) s->obj_next[b->obj[i]] = (int8_t)(ONE + b->obj[i + 1]);
            s->cur[p] = (int8_t)(ONE + b->obj[0]);
        } else {
            if (s->priv[p] == NIL) { /* exchange(spare_in, NIL) */
                s->priv[p] = s->spare_in[p];
                s->spare_in[p] = NIL;
            }
            int buf;
            if (s->priv[p] != NIL) {
                buf = s->priv[p];
                if (buf < 0 || buf >= NBUF) { /* a corrupt spare list (only a broken variant) */
                    s->bad = 1;
                    return;
                }
                s->priv[p] = s->buf_next[buf];
            } else {
                CHECK_MSG(s->fresh[p] < 2, "model: pusher %d needs a third buffer", p);
                buf = 2 * p + s->fresh[p]++;
            }
            s->buf_n[buf] = b->n;
            for (int i = 0; i < b->n; i++) s->buf_obj[buf][i] = b->obj[i];
            s->cur[p] = (int8_t)buf;
        }
        s->pc[p] = 1;
        break;
    case 1: /* P */
        s->old[p] = s->remote;
        if (s->cur[p] >= ONE) /* the chain's last object */
            s->obj_next[g_batches[p][s->batch[p]].obj[g_batches[p][s->batch[p]].n - 1]] = s->old[p];
        else
            s->buf_next[s->cur[p]] = s->old[p];
        s->pc[p] = 2;
        break;
    case 2: /* C */
        if (g_broken == BROKEN_PUSH_STORE || s->remote == s->old[p]) {
            s->remote = s->cur[p];
            s->batch[p]++;
            s->pc[p] = 0;
        } else {
            s->pc[p] = 1;
        }
        break;
    }
}

/* Collects buffer buf's objects (the owner's read of its array). */
static void collect_buf(state *s, int buf) {
    for (int i = 0; i < s->buf_n[buf]; i++) s->collected[s->buf_obj[buf][i]]++;
}

/* One owner step; false: a walk that does not end. */
static bool step_owner(state *s) {
    switch (s->opc) {
    case 0: /* X */
        s->list = s->remote;
        s->remote = NIL;
        s->collects_left--;
        s->steps = 0;
        s->opc = 1;
        break;
    case 1: { /* W */
        int e = s->list;
        if (e == NIL) {
            s->opc = 0;
            break;
        }
        if (++s->steps > NOBJ + NBUF) return false;
        if (e >= ONE) {
            s->list = s->obj_next[e - ONE];
            s->collected[e - ONE]++;
            break;
        }
        s->list = s->buf_next[e];
        if (g_broken != BROKEN_EARLY_RETURN) collect_buf(s, e);
        s->ret = (int8_t)e;
        s->opc = 2;
        break;
    }
    case 2: { /* R */
        int p = s->ret / 2;
        s->ret_old = s->spare_in[p];
        s->buf_next[s->ret] = s->ret_old;
        s->opc = 3;
        break;
    }
    case 3: { /* S */
        int p = s->ret / 2;
        if (s->spare_in[p] == s->ret_old) {
            s->spare_in[p] = s->ret;
            s->opc = g_broken == BROKEN_EARLY_RETURN ? 4 : 1;
        } else {
            s->opc = 2;
        }
        break;
    }
    case 4: /* the broken owner reads the buffer it has already given back */
        collect_buf(s, s->ret);
        s->opc = 1;
        break;
    }
    return true;
}

/* Whether the end state is right: each object collected once, every buffer back with its pusher. */
static bool end_ok(const state *s) {
    for (int o = 0; o < NOBJ; o++)
        if (s->collected[o] != 1) return false;
    for (int p = 0; p < PUSHERS; p++) {
        int n = 0;
        for (int b = s->spare_in[p]; b != NIL && n <= NBUF; b = s->buf_next[b], n++)
            if (b < 0 || b >= NBUF) return false; /* not a buffer: the list is corrupt */
        for (int b = s->priv[p]; b != NIL && n <= NBUF; b = s->buf_next[b], n++)
            if (b < 0 || b >= NBUF) return false;
        if (n != s->fresh[p]) return false;
    }
    return true;
}

/* Explores every interleaving from s; *paths and *failures count them (the complete ones, and
 * those that fail). */
static void explore(const state *s, long *paths, long *failures) {
    uint64_t h = state_hash(s);
    size_t mask = ((size_t)1 << MEMO_BITS) - 1, i = (size_t)h & mask;
    for (; g_memo[i].used; i = (i + 1) & mask)
        if (memcmp(&g_memo[i].s, s, sizeof *s) == 0) {
            *paths = g_memo[i].paths;
            *failures = g_memo[i].failures;
            return;
        }
    long np = 0, nf = 0;
    bool pushers_done = true;
    for (int p = 0; p < PUSHERS; p++) {
        if (pusher_done(s, p)) continue;
        pushers_done = false;
        state t = *s;
        step_pusher(&t, p);
        if (t.bad) { /* a failure, as a walk that does not end */
            np++;
            nf++;
            continue;
        }
        long a, b;
        explore(&t, &a, &b);
        np += a;
        nf += b;
    }
    /* The owner: inside a collection, or starting one (the last once the pushers are done). */
    if (s->opc != 0 || s->collects_left > (pushers_done ? 0 : 1)) {
        state t = *s;
        if (step_owner(&t)) {
            long a, b;
            explore(&t, &a, &b);
            np += a;
            nf += b;
        } else {
            np++;
            nf++;
        }
    } else if (pushers_done) {
        np = 1;
        nf = end_ok(s) ? 0 : 1;
    }
    CHECK_MSG(g_states < (long)(mask / 4 * 3), "model: more than %zu states: raise MEMO_BITS", mask / 4 * 3);
    g_states++;
    for (i = (size_t)h & mask; g_memo[i].used; i = (i + 1) & mask) {
    }
    g_memo[i] = (memo){*s, true, np, nf};
    *paths = np;
    *failures = nf;
}

static void run(int broken, long *paths, long *failures) {
    g_broken = broken;
    memset(g_memo, 0, sizeof(memo) << MEMO_BITS);
    g_states = 0;
    state s;
    memset(&s, 0, sizeof s);
    s.remote = NIL;
    s.opc = 0;
    s.collects_left = 3; /* two at any moment, one at the end */
    for (int p = 0; p < PUSHERS; p++) s.spare_in[p] = s.priv[p] = NIL;
    for (int b = 0; b < NBUF; b++) s.buf_next[b] = NIL;
    for (int o = 0; o < NOBJ; o++) s.obj_next[o] = NIL;
    explore(&s, paths, failures);
}

int main(void) {
    g_memo = calloc((size_t)1 << MEMO_BITS, sizeof(memo));
    CHECK(g_memo != NULL);
    long good, fails, states;
    run(BROKEN_NONE, &good, &fails);
    states = g_states;
    CHECK_MSG(fails == 0, "the remote-free protocol lost or duplicated an object, or a buffer, in %ld of %ld "
              "interleavings", fails, good);
    CHECK(good > 1000000);
    long store_paths, store_fails, early_paths, early_fails;
    run(BROKEN_PUSH_STORE, &store_paths, &store_fails);
    CHECK_MSG(store_fails > 0, "the broken push (store, no CAS) lost nothing in %ld interleavings: the "
              "checker cannot see a lost free", store_paths);
    run(BROKEN_EARLY_RETURN, &early_paths, &early_fails);
    CHECK_MSG(early_fails > 0, "a buffer given back before it is read went unnoticed in %ld interleavings: "
              "the checker cannot see a buffer reused too early", early_paths);
    printf("test_alloc_remote_model: %ld interleavings (%ld states), every free collected exactly once and "
           "every buffer back; the broken push fails in %ld of %ld, the early return in %ld of %ld\n",
           good, states, store_fails, store_paths, early_fails, early_paths);
    free(g_memo);
    return 0;
}
