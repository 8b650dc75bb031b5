/* trees.h — random task trees, shared by tests/test_random_trees.c and the stress harness
 * (tests/stress.c).
 *
 * A tree is a function of its root node. Each node is one of 14 task kinds (MERINO_TASK_0..6 and
 * MERINO_VOID_TASK_0..6, named t0..t6 and v0..v6) with arguments and results of many types: a
 * struct with padding, double, float, int64, small integers, pointers. make_plan() chooses a
 * node's 0..6 children, their kinds and budgets, and the order of operations on them (SPAWN /
 * CALL / JOIN, joins always LIFO; with run_ops also MERINO_RUN in the body or in a plain function
 * it calls). Trees are bounded by a node budget split at random among children, so depth and shape
 * vary.
 *
 * What a node computes is each includer's own (its task bodies and its serial evaluation); this
 * header has what defines the trees and the call sites of the 14 tasks, which every includer
 * declares with the signatures TREES_EVAL, TREES_SPAWN and TREES_JOIN use below.
 *
 * Before including it, define TREES_FAIL(fmt, ...): how a failure found here is reported. */
#ifndef MERINO_TESTS_TREES_H
#define MERINO_TESTS_TREES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifndef TREES_FAIL
#error "define TREES_FAIL(fmt, ...) before including trees.h"
#endif

/* ---- hashing and random numbers ------------------------------------------------------------------ */

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

/* ---- values ---------------------------------------------------------------------------------------- */

struct pt {
    int32_t a;
    double b;
    uint16_t c;
};

static uint64_t hash_pt(struct pt p) { return mix(mix(mix(0x51, (uint32_t)p.a), dbits(p.b)), p.c); }

/* Results made from a hash by exact conversions only, so both evaluations agree bit for bit. */
static struct pt pt_of(uint64_t h) {
    struct pt p = {(int32_t)h, (double)(int32_t)(h >> 32) / 4.0, (uint16_t)(h >> 16)};
    return p;
}
static double dbl_of(uint64_t h) { return (double)(h >> 11) / 1024.0; }

/* Pointer arguments and results point into this table; a pointer hashes as its index and value. */
#define TABLE 1024
static uint64_t g_table[TABLE];

static void trees_fill_table(void) {
    for (size_t i = 0; i < TABLE; i++) g_table[i] = mix(i, 0x7ab1e);
}

static uint64_t ptr_hash(const uint64_t *p) {
    ptrdiff_t i = p - g_table;
    if (i < 0 || i >= TABLE) TREES_FAIL("a pointer result %p is not in the table", (const void *)p);
    return mix((uint64_t)i, g_table[i]);
}

/* ---- nodes and their arguments ------------------------------------------------------------------- */

/* A node is (key << 20) | budget: the key chooses everything, the budget bounds the subtree. */
#define BUDGET_BITS 20
#define KEY_MASK ((1ull << (64 - BUDGET_BITS)) - 1)
static uint64_t node_of(uint64_t key, unsigned budget) { return ((key & KEY_MASK) << BUDGET_BITS) | budget; }
static unsigned budget_of(uint64_t node) { return (unsigned)(node & ((1u << BUDGET_BITS) - 1)); }

enum kind { T0, T1, T2, T3, T4, T5, T6, V0, V1, V2, V3, V4, V5, V6, N_KINDS };

/* Every argument value a child may be passed, made from its node. */
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

/* The pointer argument of a node (t4's base). */
static uint64_t *base_of(const args *a) { return &g_table[a->y % TABLE]; }

/* ---- the plan of a node: its children and the order of operations on them ------------------------ */

/* SPAWN and JOIN (LIFO), CALL, MERINO_RUN in the body, MERINO_RUN in a plain function called from
 * the body. */
enum { OP_CALL, OP_SPAWN, OP_JOIN, OP_RUN, OP_HELPER };

typedef struct plan {
    int k; /* children */
    int kind[6];
    uint64_t node[6];
    int nops;
    unsigned char op[12]; /* OP_* << 4 | child; a JOIN names the child it must find on top */
} plan;

static int is_leaf_kind(int kind) { return kind == T0 || kind == V0; }

/* The plan of node. Without run_ops it has only CALL, SPAWN and JOIN; with run_ops the random
 * interleavings also run children with MERINO_RUN (OP_RUN, OP_HELPER). The random draws are the
 * same up to that choice, so a tree's shape does not depend on it. */
static void make_plan(uint64_t node, plan *pl, int run_ops) {
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
    /* 0: spawn all, join all in reverse; 1: the same but CALL the last; 2, 3: random interleaving
     * of spawns, calls (runs) and LIFO joins. */
    int pattern = (int)(next(&s) % 4), n = 0, sp = 0, stack[6];
    for (int i = 0; i < k; i++) {
        int op;
        if (pattern == 0) op = OP_SPAWN;
        else if (pattern == 1) op = i == k - 1 ? OP_CALL : OP_SPAWN;
        else if (!run_ops) op = next(&s) % 3 == 0 ? OP_CALL : OP_SPAWN;
        else {
            /* MERINO_RUN in a C task body (or a function it calls) runs on a private stack of its
             * own: exercised, but rarer, so that trees stay parallel */
            unsigned r = (unsigned)(next(&s) % 16);
            op = r < 9 ? OP_SPAWN : r < 14 ? OP_CALL : r == 14 ? OP_RUN : OP_HELPER;
        }
        pl->op[n++] = (unsigned char)(op << 4 | i);
        if (op == OP_SPAWN) stack[sp++] = i;
        if (pattern >= 2 && sp > 0 && next(&s) % 2 == 0)
            for (int pops = 1 + (int)(next(&s) % (uint64_t)sp); pops > 0; pops--)
                pl->op[n++] = (unsigned char)(OP_JOIN << 4 | stack[--sp]);
    }
    while (sp > 0) pl->op[n++] = (unsigned char)(OP_JOIN << 4 | stack[--sp]);
    pl->nops = n;
}

/* ---- the call sites of the 14 tasks -------------------------------------------------------------- */

/* Where a void child leaves its result: slots in the parent's frame. */
typedef struct outs {
    uint64_t u[6];
    double d[6];
    struct pt p[6];
} outs;

/* Runs child i (kind, node cn, arguments a: args_of(cn)) with OP, MERINO_CALL or MERINO_RUN, and
 * sets res to the hash of its result; a void child with a result leaves it in o (an outs). */
#define TREES_EVAL(OP, kind, cn, a, o, i, res)                                                      \
    do {                                                                                           \
        uint64_t *base_ = base_of(&(a));                                                           \
        switch (kind) {                                                                            \
        case T0: (res) = hash_pt(OP(t0)); break;                                                   \
        case T1: (res) = (uint64_t)OP(t1, cn); break;                                              \
        case T2: (res) = dbits(OP(t2, cn, (a).x)); break;                                          \
        case T3: (res) = hash_pt(OP(t3, (a).p, cn, (a).small)); break;                             \
        case T4: (res) = ptr_hash(OP(t4, cn, base_, (a).s, (a).c)); break;                         \
        case T5: (res) = (uint64_t)OP(t5, (a).u8a, (a).s, cn, (a).f, (a).p); break;                \
        case T6: (res) = OP(t6, cn, (a).a32, (a).b32, (a).d, (a).e, (a).g); break;                 \
        case V0: OP(v0); (res) = 0xf0; break;                                                      \
        case V1: OP(v1, cn); (res) = 0xf1; break;                                                  \
        case V2: OP(v2, cn, &(o).u[i]); (res) = (o).u[i]; break;                                   \
        case V3: OP(v3, (a).p, cn, &(o).d[i]); (res) = dbits((o).d[i]); break;                     \
        case V4: OP(v4, cn, (a).i8, &(o).p[i], (a).y); (res) = hash_pt((o).p[i]); break;           \
        case V5: OP(v5, cn, (a).a32, (a).q, (a).e, (a).d); (res) = 0xf5; break;                    \
        case V6: OP(v6, cn, (a).p, (a).u8a, (a).u8b, (a).s, (a).g); (res) = 0xf6; break;           \
        default: TREES_FAIL("bad kind %d", (int)(kind));                                           \
        }                                                                                          \
    } while (0)

/* Spawns child i; a void child with a result will leave it in o. */
#define TREES_SPAWN(kind, cn, a, o, i)                                                             \
    do {                                                                                           \
        uint64_t *base_ = base_of(&(a));                                                           \
        switch (kind) {                                                                            \
        case T0: MERINO_SPAWN(t0); break;                                                          \
        case T1: MERINO_SPAWN(t1, cn); break;                                                      \
        case T2: MERINO_SPAWN(t2, cn, (a).x); break;                                               \
        case T3: MERINO_SPAWN(t3, (a).p, cn, (a).small); break;                                    \
        case T4: MERINO_SPAWN(t4, cn, base_, (a).s, (a).c); break;                                 \
        case T5: MERINO_SPAWN(t5, (a).u8a, (a).s, cn, (a).f, (a).p); break;                        \
        case T6: MERINO_SPAWN(t6, cn, (a).a32, (a).b32, (a).d, (a).e, (a).g); break;               \
        case V0: MERINO_SPAWN(v0); break;                                                          \
        case V1: MERINO_SPAWN(v1, cn); break;                                                      \
        case V2: MERINO_SPAWN(v2, cn, &(o).u[i]); break;                                           \
        case V3: MERINO_SPAWN(v3, (a).p, cn, &(o).d[i]); break;                                    \
        case V4: MERINO_SPAWN(v4, cn, (a).i8, &(o).p[i], (a).y); break;                            \
        case V5: MERINO_SPAWN(v5, cn, (a).a32, (a).q, (a).e, (a).d); break;                        \
        case V6: MERINO_SPAWN(v6, cn, (a).p, (a).u8a, (a).u8b, (a).s, (a).g); break;               \
        default: TREES_FAIL("bad kind %d", (int)(kind));                                           \
        }                                                                                          \
    } while (0)

/* Joins child i, the newest spawn not joined yet, and sets res to the hash of its result. */
#define TREES_JOIN(kind, o, i, res)                                                                \
    do {                                                                                           \
        switch (kind) {                                                                            \
        case T0: (res) = hash_pt(MERINO_JOIN(t0)); break;                                          \
        case T1: (res) = (uint64_t)MERINO_JOIN(t1); break;                                         \
        case T2: (res) = dbits(MERINO_JOIN(t2)); break;                                            \
        case T3: (res) = hash_pt(MERINO_JOIN(t3)); break;                                          \
        case T4: (res) = ptr_hash(MERINO_JOIN(t4)); break;                                         \
        case T5: (res) = (uint64_t)MERINO_JOIN(t5); break;                                         \
        case T6: (res) = MERINO_JOIN(t6); break;                                                   \
        case V0: MERINO_JOIN(v0); (res) = 0xf0; break;                                             \
        case V1: MERINO_JOIN(v1); (res) = 0xf1; break;                                             \
        case V2: MERINO_JOIN(v2); (res) = (o).u[i]; break;                                         \
        case V3: MERINO_JOIN(v3); (res) = dbits((o).d[i]); break;                                  \
        case V4: MERINO_JOIN(v4); (res) = hash_pt((o).p[i]); break;                                \
        case V5: MERINO_JOIN(v5); (res) = 0xf5; break;                                             \
        case V6: MERINO_JOIN(v6); (res) = 0xf6; break;                                             \
        default: TREES_FAIL("bad kind %d", (int)(kind));                                           \
        }                                                                                          \
    } while (0)

#endif
