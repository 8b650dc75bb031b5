/* Random task trees, evaluated on the pool and by plain serial recursion; the checksums must agree.
 *
 * A tree is a function of its seed. Each node is one of 14 task kinds (MERINO_TASK_0..6 and
 * MERINO_VOID_TASK_0..6) with arguments and results of many types: a struct with padding, double,
 * float, int64, small integers, pointers. Each node mixes its arguments into a hash, evaluates its
 * 0..6 children in a random order of SPAWN / CALL / JOIN (joins always LIFO), and mixes the
 * children's results in child order into its own. Void tasks report through an out pointer into
 * their parent's frame, or through a global sum. Trees are bounded by a node budget split at random
 * among children, so depth and shape vary.
 *
 * Runs at 1..8 workers over many seeds. MERINO_TEST_SEED=n replays tree n alone. */
#define _GNU_SOURCE 1
#include "check.h"

#include <merino.h>

struct pt {
    int32_t a;
    double b;
    uint16_t c;
};

/* ---- the generator (shared by both evaluations: it is the definition of a tree) ---------------- */

static uint64_t mix(uint64_t h, uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebull;
    return h ^ (h >> 31);
}

static uint64_t next(uint64_t *s) {
    *s += 0x9e3779b97f4a7c15ull;
    return mix(*s, 0x2545f4914f6cdd1dull);
}

static uint64_t dbits(double d) {
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static uint64_t fbits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static uint64_t hash_pt(struct pt p) { return mix(mix(mix(0x51, (uint32_t)p.a), dbits(p.b)), p.c); }

/* Results made from a hash: exact conversions only, so both evaluations agree bit for bit. */
static struct pt pt_of(uint64_t h) {
    struct pt p = {(int32_t)h, (double)(int32_t)(h >> 32) / 4.0, (uint16_t)(h >> 16)};
    return p;
}
static double dbl_of(uint64_t h) { return (double)(h >> 11) / 1024.0; }

/* A node is (key << 20) | budget: the key chooses everything, the budget bounds the subtree. */
#define BUDGET_BITS 20
#define KEY_MASK ((1ull << (64 - BUDGET_BITS)) - 1)
static uint64_t node_of(uint64_t key, unsigned budget) { return ((key & KEY_MASK) << BUDGET_BITS) | budget; }
static unsigned budget_of(uint64_t node) { return (unsigned)(node & ((1u << BUDGET_BITS) - 1)); }

enum kind { T0, T1, T2, T3, T4, T5, T6, V0, V1, V2, V3, V4, V5, V6, N_KINDS };

/* Every argument value a child may need, made from its node. */
typedef struct args {
    struct pt p;
    double x, d;
    float f;
    int32_t small, a32, b32;
    int16_t s;
    char c;
    int8_t i8;
    uint8_t u8a, u8b;
    uint16_t e;
    uint32_t y;
    int64_t q, g;
} args;

static args args_of(uint64_t node) {
    uint64_t s = node ^ 0xa5a5a5a5a5a5a5a5ull;
    args a;
    uint64_t r = next(&s);
    a.p.a = (int32_t)r;
    a.p.b = (double)(int32_t)(r >> 32) / 64.0;
    a.p.c = (uint16_t)next(&s);
    a.x = (double)(int32_t)next(&s) / 8.0;
    a.d = (double)(int64_t)(next(&s) >> 12) * 0.25;
    a.f = (float)(int16_t)next(&s) / 8.0f;
    a.small = (int32_t)next(&s);
    a.a32 = (int32_t)next(&s);
    a.b32 = (int32_t)next(&s);
    a.s = (int16_t)next(&s);
    a.c = (char)(next(&s) & 0x7f);
    a.i8 = (int8_t)next(&s);
    a.u8a = (uint8_t)next(&s);
    a.u8b = (uint8_t)next(&s);
    a.e = (uint16_t)next(&s);
    a.y = (uint32_t)next(&s);
    a.q = (int64_t)next(&s);
    a.g = (int64_t)next(&s);
    return a;
}

enum { OP_CALL, OP_SPAWN, OP_JOIN };

typedef struct plan {
    int k;                /* children */
    int kind[6];
    uint64_t node[6];
    int nops;
    unsigned char op[12]; /* OP_* << 4 | child; a JOIN names the child it must find on top */
} plan;

static int is_leaf_kind(int kind) { return kind == T0 || kind == V0; }

static void make_plan(uint64_t node, plan *pl) {
    uint64_t s = node;
    unsigned avail = budget_of(node) - 1;
    int k = (int)(next(&s) % 7);
    if (avail >= 64 && k < 2) k = 2 + (int)(next(&s) % 5); /* do not waste a large budget */
    if ((unsigned)k > avail) k = (int)avail;
    pl->k = k;
    unsigned left = avail;
    for (int i = 0; i < k; i++) {
        int kind = (int)(next(&s) % N_KINDS);
        unsigned most = left - (unsigned)(k - 1 - i); /* leave one for each later child */
        unsigned b = i == k - 1 ? most : 1 + (unsigned)(next(&s) % most);
        if (is_leaf_kind(kind)) b = 1;
        left -= b;
        pl->kind[i] = kind;
        pl->node[i] = node_of(mix(node >> BUDGET_BITS, (uint64_t)i + 1), b);
    }
    /* The order of operations: random interleaving, or spawn all (but maybe CALL the last) and
     * join them in reverse order. */
    int pattern = (int)(next(&s) % 4), n = 0, sp = 0, stack[6];
    for (int i = 0; i < k; i++) {
        int call = pattern == 0 ? 0 : pattern == 1 ? i == k - 1 : next(&s) % 3 == 0;
        if (call) {
            pl->op[n++] = (unsigned char)(OP_CALL << 4 | i);
        } else {
            pl->op[n++] = (unsigned char)(OP_SPAWN << 4 | i);
            stack[sp++] = i;
        }
        if (pattern >= 2 && sp > 0 && next(&s) % 2 == 0)
            for (int pops = 1 + (int)(next(&s) % (uint64_t)sp); pops > 0; pops--)
                pl->op[n++] = (unsigned char)(OP_JOIN << 4 | stack[--sp]);
    }
    while (sp > 0) pl->op[n++] = (unsigned char)(OP_JOIN << 4 | stack[--sp]);
    pl->nops = n;
}

/* Pointer arguments and results point into this table; a pointer hashes as its index and value. */
#define TABLE 1024
static uint64_t g_table[TABLE];
static uint64_t g_run_seed; /* read by the argument-less tasks */

static uint64_t ptr_hash(const uint64_t *p) {
    size_t i = (size_t)(p - g_table);
    return mix(i, g_table[i]);
}

/* ---- the parallel evaluation ----------------------------------------------------------------------- */

static uint64_t g_acc;     /* atomic: sum of the void tasks' hashes */
static uint64_t g_seen;    /* atomic: bit i set when worker i ran a node */
static unsigned g_workers; /* the pool's size in this round */
static uint64_t g_bad_index;

static uint64_t g_sink; /* atomic: keeps the work below from being optimized away */
static int g_node_work;  /* rounds of busy work per node in this tree */

static void note_worker(void) {
    /* A little work per node, so that thieves find the tree still growing. */
    uint64_t x = g_workers;
    for (int r = 0; r < g_node_work; r++) x = mix(x, (uint64_t)r);
    __atomic_store_n(&g_sink, x, __ATOMIC_RELAXED);
    int i = merino_worker_index();
    if (i < 0 || (unsigned)i >= g_workers) {
        __atomic_store_n(&g_bad_index, (uint64_t)(i + 1000000), __ATOMIC_RELAXED);
        return;
    }
    uint64_t bit = 1ull << (i & 63);
    if (!(__atomic_load_n(&g_seen, __ATOMIC_RELAXED) & bit)) __atomic_fetch_or(&g_seen, bit, __ATOMIC_RELAXED);
}

static void acc_add(uint64_t h) { __atomic_fetch_add(&g_acc, h, __ATOMIC_RELAXED); }

/* Every node evaluates its children through children_of(), a plain C function that runs the task
 * `children` with MERINO_RUN: on a worker that is a call, which spawns on the caller's stack. (It
 * also breaks the cycle of declarations: `children` spawns the node tasks.) */
static uint64_t children_of(uint64_t node, uint64_t h);

MERINO_TASK_0(struct pt, t0) {
    note_worker();
    return pt_of(mix(g_run_seed, 0x70));
}
MERINO_TASK_1(int64_t, t1, uint64_t, node) {
    note_worker();
    return (int64_t)children_of(node, mix(node, 0x71));
}
MERINO_TASK_2(double, t2, uint64_t, node, double, x) {
    note_worker();
    return dbl_of(children_of(node, mix(mix(node, 0x72), dbits(x))));
}
MERINO_TASK_3(struct pt, t3, struct pt, p, uint64_t, node, int32_t, small) {
    note_worker();
    return pt_of(children_of(node, mix(mix(mix(node, 0x73), hash_pt(p)), (uint32_t)small)));
}
MERINO_TASK_4(uint64_t *, t4, uint64_t, node, uint64_t *, base, int16_t, s, char, c) {
    note_worker();
    uint64_t h = mix(mix(mix(mix(node, 0x74), ptr_hash(base)), (uint16_t)s), (unsigned char)c);
    return &g_table[children_of(node, h) % TABLE];
}
/* 48 bytes of arguments, padding included: a full descriptor payload. */
MERINO_TASK_5(int64_t, t5, uint8_t, a, int16_t, q, uint64_t, node, float, f, struct pt, p) {
    note_worker();
    uint64_t h = mix(mix(mix(mix(mix(node, 0x75), a), fbits(f)), hash_pt(p)), (uint16_t)q);
    return (int64_t)children_of(node, h);
}
MERINO_TASK_6(uint32_t, t6, uint64_t, node, int32_t, a, int32_t, b, double, d, uint16_t, e, int64_t, g) {
    note_worker();
    uint64_t h = mix(mix(mix(mix(mix(mix(node, 0x76), (uint32_t)a), (uint32_t)b), dbits(d)), e), (uint64_t)g);
    return (uint32_t)children_of(node, h);
}
MERINO_VOID_TASK_0(v0) {
    note_worker();
    acc_add(mix(g_run_seed, 0x80));
}
MERINO_VOID_TASK_1(v1, uint64_t, node) {
    note_worker();
    acc_add(children_of(node, mix(node, 0x81)));
}
MERINO_VOID_TASK_2(v2, uint64_t, node, uint64_t *, out) {
    note_worker();
    *out = children_of(node, mix(node, 0x82));
}
MERINO_VOID_TASK_3(v3, struct pt, p, uint64_t, node, double *, out) {
    note_worker();
    *out = dbl_of(children_of(node, mix(mix(node, 0x83), hash_pt(p))));
}
MERINO_VOID_TASK_4(v4, uint64_t, node, int8_t, x, struct pt *, out, uint32_t, y) {
    note_worker();
    *out = pt_of(children_of(node, mix(mix(mix(node, 0x84), (uint8_t)x), y)));
}
MERINO_VOID_TASK_5(v5, uint64_t, node, int32_t, a, int64_t, b, uint16_t, c, double, d) {
    note_worker();
    uint64_t h = mix(mix(mix(mix(mix(node, 0x85), (uint32_t)a), (uint64_t)b), c), dbits(d));
    acc_add(children_of(node, h));
}
MERINO_VOID_TASK_6(v6, uint64_t, node, struct pt, p, uint8_t, a, uint8_t, b, int16_t, c, int64_t, d) {
    note_worker();
    uint64_t h = mix(mix(mix(mix(mix(mix(node, 0x86), hash_pt(p)), a), b), (uint16_t)c), (uint64_t)d);
    acc_add(children_of(node, h));
}

/* Evaluates the children of node in the plan's order of operations; mixes their results into h in
 * child order. Void children write to the slots below or to g_acc. */
MERINO_TASK_2(uint64_t, children, uint64_t, node, uint64_t, h) {
    plan pl;
    make_plan(node, &pl);
    uint64_t res[6], out_u[6];
    double out_d[6];
    struct pt out_p[6];
    int stack[6], sp = 0;
    for (int o = 0; o < pl.nops; o++) {
        int op = pl.op[o] >> 4, i = pl.op[o] & 15;
        args a = args_of(pl.node[i]);
        uint64_t cn = pl.node[i];
        uint64_t *base = &g_table[a.y % TABLE];
        if (op == OP_CALL) {
            switch (pl.kind[i]) {
            case T0: res[i] = hash_pt(MERINO_CALL(t0)); break;
            case T1: res[i] = (uint64_t)MERINO_CALL(t1, cn); break;
            case T2: res[i] = dbits(MERINO_CALL(t2, cn, a.x)); break;
            case T3: res[i] = hash_pt(MERINO_CALL(t3, a.p, cn, a.small)); break;
            case T4: res[i] = ptr_hash(MERINO_CALL(t4, cn, base, a.s, a.c)); break;
            case T5: res[i] = (uint64_t)MERINO_CALL(t5, a.u8a, a.s, cn, a.f, a.p); break;
            case T6: res[i] = MERINO_CALL(t6, cn, a.a32, a.b32, a.d, a.e, a.g); break;
            case V0: MERINO_CALL(v0); res[i] = 0xf0; break;
            case V1: MERINO_CALL(v1, cn); res[i] = 0xf1; break;
            case V2: MERINO_CALL(v2, cn, &out_u[i]); res[i] = out_u[i]; break;
            case V3: MERINO_CALL(v3, a.p, cn, &out_d[i]); res[i] = dbits(out_d[i]); break;
            case V4: MERINO_CALL(v4, cn, a.i8, &out_p[i], a.y); res[i] = hash_pt(out_p[i]); break;
            case V5: MERINO_CALL(v5, cn, a.a32, a.q, a.e, a.d); res[i] = 0xf5; break;
            case V6: MERINO_CALL(v6, cn, a.p, a.u8a, a.u8b, a.s, a.g); res[i] = 0xf6; break;
            }
        } else if (op == OP_SPAWN) {
            switch (pl.kind[i]) {
            case T0: MERINO_SPAWN(t0); break;
            case T1: MERINO_SPAWN(t1, cn); break;
            case T2: MERINO_SPAWN(t2, cn, a.x); break;
            case T3: MERINO_SPAWN(t3, a.p, cn, a.small); break;
            case T4: MERINO_SPAWN(t4, cn, base, a.s, a.c); break;
            case T5: MERINO_SPAWN(t5, a.u8a, a.s, cn, a.f, a.p); break;
            case T6: MERINO_SPAWN(t6, cn, a.a32, a.b32, a.d, a.e, a.g); break;
            case V0: MERINO_SPAWN(v0); break;
            case V1: MERINO_SPAWN(v1, cn); break;
            case V2: MERINO_SPAWN(v2, cn, &out_u[i]); break;
            case V3: MERINO_SPAWN(v3, a.p, cn, &out_d[i]); break;
            case V4: MERINO_SPAWN(v4, cn, a.i8, &out_p[i], a.y); break;
            case V5: MERINO_SPAWN(v5, cn, a.a32, a.q, a.e, a.d); break;
            case V6: MERINO_SPAWN(v6, cn, a.p, a.u8a, a.u8b, a.s, a.g); break;
            }
            stack[sp++] = i;
        } else {
            CHECK(sp > 0 && stack[sp - 1] == i); /* the generator's own LIFO discipline */
            sp--;
            switch (pl.kind[i]) {
            case T0: res[i] = hash_pt(MERINO_JOIN(t0)); break;
            case T1: res[i] = (uint64_t)MERINO_JOIN(t1); break;
            case T2: res[i] = dbits(MERINO_JOIN(t2)); break;
            case T3: res[i] = hash_pt(MERINO_JOIN(t3)); break;
            case T4: res[i] = ptr_hash(MERINO_JOIN(t4)); break;
            case T5: res[i] = (uint64_t)MERINO_JOIN(t5); break;
            case T6: res[i] = MERINO_JOIN(t6); break;
            case V0: MERINO_JOIN(v0); res[i] = 0xf0; break;
            case V1: MERINO_JOIN(v1); res[i] = 0xf1; break;
            case V2: MERINO_JOIN(v2); res[i] = out_u[i]; break;
            case V3: MERINO_JOIN(v3); res[i] = dbits(out_d[i]); break;
            case V4: MERINO_JOIN(v4); res[i] = hash_pt(out_p[i]); break;
            case V5: MERINO_JOIN(v5); res[i] = 0xf5; break;
            case V6: MERINO_JOIN(v6); res[i] = 0xf6; break;
            }
        }
    }
    CHECK_EQ_INT(sp, 0);
    for (int i = 0; i < pl.k; i++) h = mix(h, res[i]);
    return h;
}

static uint64_t children_of(uint64_t node, uint64_t h) {
    CHECK(merino_worker_index() >= 0);
    return MERINO_RUN(children, node, h);
}

/* ---- the serial evaluation: plain recursion over the same tree ------------------------------------ */

static uint64_t s_acc;
static uint64_t s_nodes;

static uint64_t s_children(uint64_t node, uint64_t h);

static uint64_t s_child(int kind, uint64_t cn) {
    args a = args_of(cn);
    uint64_t *base = &g_table[a.y % TABLE];
    s_nodes++;
    switch (kind) {
    case T0: return hash_pt(pt_of(mix(g_run_seed, 0x70)));
    case T1: return (uint64_t)(int64_t)s_children(cn, mix(cn, 0x71));
    case T2: return dbits(dbl_of(s_children(cn, mix(mix(cn, 0x72), dbits(a.x)))));
    case T3: return hash_pt(pt_of(s_children(cn, mix(mix(mix(cn, 0x73), hash_pt(a.p)), (uint32_t)a.small))));
    case T4: {
        uint64_t h = mix(mix(mix(mix(cn, 0x74), ptr_hash(base)), (uint16_t)a.s), (unsigned char)a.c);
        return ptr_hash(&g_table[s_children(cn, h) % TABLE]);
    }
    case T5: {
        uint64_t h = mix(mix(mix(mix(mix(cn, 0x75), a.u8a), fbits(a.f)), hash_pt(a.p)), (uint16_t)a.s);
        return (uint64_t)(int64_t)s_children(cn, h);
    }
    case T6: {
        uint64_t h = mix(mix(mix(mix(mix(mix(cn, 0x76), (uint32_t)a.a32), (uint32_t)a.b32), dbits(a.d)), a.e),
                         (uint64_t)a.g);
        return (uint32_t)s_children(cn, h);
    }
    case V0: s_acc += mix(g_run_seed, 0x80); return 0xf0;
    case V1: s_acc += s_children(cn, mix(cn, 0x81)); return 0xf1;
    case V2: return s_children(cn, mix(cn, 0x82));
    case V3: return dbits(dbl_of(s_children(cn, mix(mix(cn, 0x83), hash_pt(a.p)))));
    case V4: return hash_pt(pt_of(s_children(cn, mix(mix(mix(cn, 0x84), (uint8_t)a.i8), a.y))));
    case V5: {
        uint64_t h = mix(mix(mix(mix(mix(cn, 0x85), (uint32_t)a.a32), (uint64_t)a.q), a.e), dbits(a.d));
        s_acc += s_children(cn, h);
        return 0xf5;
    }
    case V6: {
        uint64_t h = mix(mix(mix(mix(mix(mix(cn, 0x86), hash_pt(a.p)), a.u8a), a.u8b), (uint16_t)a.s), (uint64_t)a.g);
        s_acc += s_children(cn, h);
        return 0xf6;
    }
    }
    CHECK(0);
    return 0;
}

static uint64_t s_children(uint64_t node, uint64_t h) {
    plan pl;
    make_plan(node, &pl);
    for (int i = 0; i < pl.k; i++) h = mix(h, s_child(pl.kind[i], pl.node[i]));
    return h;
}

/* ---- a struct-argument task that gets stolen -------------------------------------------------------- */

static int g_pt_started; /* atomic */
static int g_pt_ran_on;

MERINO_TASK_2(struct pt, pt_task, struct pt, p, int32_t, n) {
    g_pt_ran_on = merino_worker_index();
    __atomic_store_n(&g_pt_started, 1, __ATOMIC_RELEASE);
    struct pt r = {p.a * 3 + n, p.b * 0.5 + n, (uint16_t)(p.c ^ (uint16_t)n)};
    return r;
}

MERINO_TASK_1(int, busy, int, n) {
    if (n < 2) return n;
    MERINO_SPAWN(busy, n - 2);
    int a = MERINO_CALL(busy, n - 1);
    return a + MERINO_JOIN(busy);
}

/* Spawns pt_task, keeps busy (spawning) until a thief starts it or `patience` seconds have passed,
 * joins it. Returns 1 if it ran on another worker, 0 if here, -1 if its result was wrong. */
MERINO_TASK_2(int, steal_pt, int32_t, iter, double, patience) {
    struct pt p = {iter * 7 - 100, iter / 4.0 - 3, (uint16_t)(iter * 13 + 1)};
    __atomic_store_n(&g_pt_started, 0, __ATOMIC_RELAXED);
    int me = merino_worker_index();
    MERINO_SPAWN(pt_task, p, iter);
    /* Spawning keeps the trip-wire live: a thief's request publishes pt_task, the oldest task. An
     * idle thief must get it: the bound is only there to end the test if it never does. */
    double until = check_now() + patience;
    while (!__atomic_load_n(&g_pt_started, __ATOMIC_ACQUIRE) && check_now() < until)
        if (MERINO_CALL(busy, 12) != 144) return -1;
    struct pt r = MERINO_JOIN(pt_task);
    if (r.a != p.a * 3 + iter || r.b != p.b * 0.5 + iter || r.c != (uint16_t)(p.c ^ (uint16_t)iter)) return -1;
    return g_pt_ran_on != me;
}

/* ---- the driver ----------------------------------------------------------------------------------------- */

typedef struct expect {
    uint64_t seed, root, h, acc, nodes;
} expect;

static expect serial_tree(uint64_t seed, unsigned max_budget) {
    expect e;
    e.seed = seed;
    uint64_t s = seed;
    unsigned budget = 16 + (unsigned)(next(&s) % max_budget);
    e.root = node_of(next(&s), budget);
    g_run_seed = seed;
    s_acc = 0;
    s_nodes = 0;
    e.h = s_children(e.root, seed);
    e.acc = s_acc;
    e.nodes = s_nodes;
    return e;
}

int main(void) {
    for (size_t i = 0; i < TABLE; i++) g_table[i] = mix(i, 0x7ab1e);

    double scale = check_scale();
    unsigned long long replay;
    int replaying = check_env_seed(&replay);
    /* Fewer and smaller trees at lower scales, but not so small that thieves never get a chance. */
    int n_seeds = replaying ? 1 : (int)(40 * scale) < 10 ? 10 : (int)(40 * scale);
    unsigned max_budget = (unsigned)(4000 * sqrt(scale < 1 ? scale : 1)) + 100;

    /* Base seed: varies between runs to explore; every failure prints the tree's own seed. */
    unsigned long long base = replaying ? replay : (unsigned long long)time(NULL) * 1000003ull;
    printf("random trees: %d seeds from %llu, budget < %u nodes (replay one with MERINO_TEST_SEED)\n",
           n_seeds, base, max_budget + 16);

    expect *ex = (expect *)calloc((size_t)n_seeds, sizeof *ex);
    CHECK(ex != NULL);
    uint64_t total_nodes = 0;
    for (int i = 0; i < n_seeds; i++) {
        ex[i] = serial_tree(base + (unsigned long long)i, max_budget);
        total_nodes += ex[i].nodes;
    }

    int stolen_anywhere = 0;
    for (unsigned workers = 1; workers <= 8; workers++) {
        merino_config cfg = {0};
        cfg.workers = workers;
        check_set_context("workers=%u", workers);
        CHECK_EQ_INT(merino_start(&cfg), 0);
        CHECK_EQ_INT(merino_workers(), workers);
        g_workers = workers;
        int spread = 0;
        for (int i = 0; i < n_seeds; i++) {
            check_set_seed(ex[i].seed);
            g_run_seed = ex[i].seed;
            /* Most trees take ~1 ms; every 8th takes ~20 ms, longer than a thief's wake-up and
             * scheduling latency on a loaded machine. */
            g_node_work = i % 8 == 7 ? 2048 : 64;
            __atomic_store_n(&g_acc, 0, __ATOMIC_RELAXED);
            __atomic_store_n(&g_seen, 0, __ATOMIC_RELAXED);
            uint64_t h = MERINO_RUN(children, ex[i].root, ex[i].seed);
            CHECK_EQ_UINT(__atomic_load_n(&g_bad_index, __ATOMIC_RELAXED), 0);
            CHECK_EQ_UINT(h, ex[i].h);
            CHECK_EQ_UINT(__atomic_load_n(&g_acc, __ATOMIC_RELAXED), ex[i].acc);
            uint64_t seen = __atomic_load_n(&g_seen, __ATOMIC_RELAXED);
            CHECK(seen != 0 || ex[i].nodes == 0); /* a root without children runs no node */
            /* Nodes ran on more than one worker: so some task ran on a worker other than the one
             * that spawned it (everything descends from the root, and CALL stays on a worker). */
            if (seen & (seen - 1)) spread++;
            if (workers == 1) CHECK_EQ_UINT(seen & ~1ull, 0); /* only worker 0 */
        }
        check_clear_seed();

        /* A task with a struct argument and result, taken by a thief: with other workers idle,
         * every time. */
        for (int iter = 0; iter < 10; iter++) {
            int r = MERINO_RUN(steal_pt, iter, workers == 1 ? 0.0 : 2.0);
            CHECK_MSG(r >= 0, "pt_task returned a wrong struct (iteration %d)", iter);
            if (workers == 1) CHECK_EQ_INT(r, 0);
            else
                CHECK_MSG(r == 1, "iteration %d: pt_task, spawned while %u workers were idle, was not "
                                  "stolen in 2 s while its owner kept spawning", iter, workers - 1);
        }
        if (workers >= 2) stolen_anywhere += spread;
        CHECK_EQ_INT(merino_stop(), 0);
        printf("workers=%u: %d trees correct (%d spread over workers)%s\n", workers, n_seeds, spread,
               workers > 1 ? "; struct task stolen every time" : "");
    }
    check_set_context(NULL);
    printf("%llu nodes per round\n", (unsigned long long)total_nodes);
    /* Over many trees (a replayed one may be too small to spread). */
    if (!replaying) CHECK_MSG(stolen_anywhere > 0, "at 2..8 workers no tree ever ran on more than one worker");
    free(ex);
    return 0;
}
