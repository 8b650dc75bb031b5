/* Random task trees, evaluated on the pool and by plain serial recursion; the checksums must agree.
 *
 * A tree is a function of its seed. Each node is one of 14 task kinds (MERINO_TASK_0..6 and
 * MERINO_VOID_TASK_0..6) with arguments and results of many types: a struct with padding, double,
 * float, int64, small integers, pointers. Each node mixes its arguments into a hash, evaluates its
 * 0..6 children in a random order of SPAWN / CALL / JOIN (joins always LIFO), and mixes the
 * children's results in child order into its own. Void tasks report through an out pointer into
 * their parent's frame, or through a global sum. Trees are bounded by a node budget split at random
 * among children, so depth and shape vary. The trees are those of tests/trees.h, shared with the
 * stress harness; what each node computes (from the arguments it is passed) is this file's.
 *
 * Runs at 1..8 workers over many seeds. MERINO_TEST_SEED=n replays tree n alone. */
#define _GNU_SOURCE 1
#include "check.h"

#include <merino.h>

#define TREES_FAIL(...) CHECK_MSG(0, __VA_ARGS__)
#include "trees.h"

static uint64_t g_run_seed; /* read by the argument-less tasks */

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
 * child order. Void children write to o or to g_acc. */
MERINO_TASK_2(uint64_t, children, uint64_t, node, uint64_t, h) {
    plan pl;
    make_plan(node, &pl, 0);
    uint64_t res[6];
    outs o;
    int stack[6], sp = 0;
    for (int n = 0; n < pl.nops; n++) {
        int op = pl.op[n] >> 4, i = pl.op[n] & 15;
        uint64_t cn = pl.node[i];
        args a = args_of(cn);
        if (op == OP_CALL) {
            TREES_EVAL(MERINO_CALL, pl.kind[i], cn, a, o, i, res[i]);
        } else if (op == OP_SPAWN) {
            TREES_SPAWN(pl.kind[i], cn, a, o, i);
            stack[sp++] = i;
        } else {
            CHECK(op == OP_JOIN && sp > 0 && stack[sp - 1] == i); /* the generator's own LIFO discipline */
            sp--;
            TREES_JOIN(pl.kind[i], o, i, res[i]);
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
    uint64_t *base = base_of(&a);
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
    make_plan(node, &pl, 0);
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
    trees_fill_table();

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
