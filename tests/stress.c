/* stress.c — merino's randomized stress harness.
 *
 *   merino_stress [--duration S] [--seed S] [--round R] [--rounds N] [--log FILE]
 *                 [--pause-while FILE] [--max-workers N] [--scale X] [--verbose]
 *
 * Runs rounds until --duration seconds (default 20) have passed, or --rounds N rounds. A round is
 * a function of (seed, round number) alone: it starts merino with a random worker count (1..16 by
 * default: more workers than this machine has cores, on purpose), runs a random list of
 * generators, checks every result against a serial evaluation, reads the counters and stops merino;
 * some rounds stop and start again midway with another worker count. Before each round its seed
 * and parameters go to the log (--log FILE; stdout with --verbose), and every failure prints them
 * with the command that replays the round:
 *
 *     merino_stress --seed S --round R
 *
 * A round that runs longer than the watchdog allows (120 s, scaled up under sanitizers) is a hang:
 * the watchdog prints the round and aborts. --pause-while FILE waits before each round while FILE
 * exists (for machines shared with timing runs; the pause does not count towards --duration).
 *
 * Generators. Everything merino offers is exercised by one entry of the table `generators`
 * below; a new capability (parallel loops, task groups, the allocator) adds its own generator
 * functions next to the others and its entries to that table, and nothing else changes. An entry
 * that is `external_ok` may also run on threads that are not workers, concurrently with others.
 *
 * Today's entries:
 *   tree        a random task tree: every arity 0..6, MERINO_TASK_n and MERINO_VOID_TASK_n, with
 *               int, double, float, struct and pointer arguments and results; children evaluated
 *               by a random mix of SPAWN / CALL / JOIN (LIFO), spawn-all-then-join-in-reverse,
 *               MERINO_RUN inside a task body and MERINO_RUN inside a plain function on a worker
 *               (both on a private stack: merino.h)
 *   wide        one task spawns hundreds to thousands of children, then joins them in reverse
 *   external    1..4 threads that are not workers run trees and C++ trees with MERINO_RUN while
 *               the main thread does too
 *   cxx         merino::fork_join / merino::run trees (tests/stress_cxx.cpp): results of several
 *               types, void branches, nested fork_joins, exceptions from either or both branches
 *   cxx_in_task C++ fork_join trees run from inside a C task, next to C spawns (there fork_join
 *               runs its branches one after the other: merino.hpp)
 *   tree_in_task trees run with MERINO_RUN from a plain function called by a C task (on a private
 *               stack)
 *   idle        pause long enough for the workers to go to sleep, then submit work again
 *   restart     merino_stop and merino_start with another worker count, within the round
 *   graph       task objects (fib in the TBB paper's four variants) and a task group over up to
 *               5,000 closures (src/graph), from workers and from threads outside the pool
 *   flow        a random dependency graph of up to 300 nodes, edges added in random order, run
 *               twice (src/graph/flow.c)
 *
 * Exit status: 0 when every round passed; 1 with a message on the first failure.
 */
#define _GNU_SOURCE 1
#include "check.h"

#include <pthread.h>
#include <sys/stat.h>

#include <merino.h>
#include <merino_graph.h>

/* ---- the round being run (for messages), counters ------------------------------------------------ */

static unsigned long long g_base_seed;
static int g_round = -1;
static unsigned g_round_workers;
static char g_round_desc[512]; /* the round's parameters, printed with any failure */

/* Counters over the whole run, by worker count (index 1..MAX_W). */
#define MAX_W 64
typedef struct wstats {
    uint64_t phases, tasks, steals, leapfrogs, publishes;
    double seconds;
} wstats;
static wstats g_by_workers[MAX_W + 1];

/* Tasks run: counted by the serial evaluations (the parallel ones pay nothing for it). */
static uint64_t g_tasks; /* atomic */

static void add_tasks(uint64_t n) { __atomic_fetch_add(&g_tasks, n, __ATOMIC_RELAXED); }

/* Any failure: where, what, and how to replay. Safe from any thread; exits the process. */
__attribute__((noreturn, format(printf, 1, 2))) static void fail(const char *fmt, ...) {
    fflush(stdout);
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "stress: FAILED: %s\n", msg);
    int round = __atomic_load_n(&g_round, __ATOMIC_RELAXED);
    fprintf(stderr, "stress: round %d: %s\n", round, g_round_desc);
    fprintf(stderr, "stress: replay with: merino_stress --seed %llu --round %d\n", g_base_seed, round);
    fflush(stderr);
    _exit(1);
}

#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) fail(__VA_ARGS__);                                                            \
    } while (0)

/* ---- random task trees (tests/trees.h) ---------------------------------------------------------- */

#define TREES_FAIL fail
#include "trees.h"

#include "../bench/workloads/taskobj/fib-taskobj.h"

static unsigned below(uint64_t *s, unsigned n) { return n ? (unsigned)(next(s) % n) : 0; }

/* The hash a node of kind k starts from; its children's results are mixed into it. */
static uint64_t start_hash(int kind, uint64_t node) {
    args a = args_of(node);
    uint64_t h = mix(mix(node, 0x70u + (unsigned)kind), hash_pt(a.p));
    h = mix(h, dbits(a.x) ^ dbits(a.d) ^ fbits(a.f));
    h = mix(h, (uint32_t)a.small ^ ((uint64_t)(uint32_t)a.a32 << 32));
    return mix(h, (uint64_t)a.q ^ (uint64_t)a.g ^ a.y);
}

/* ---- the serial evaluation: the definition of a tree's results ------------------------------------- */

typedef struct sresult {
    uint64_t acc;   /* sum of what the void tasks V1, V5, V6 add */
    uint64_t v0;    /* V0 tasks run */
    uint64_t nodes; /* tasks */
} sresult;

static uint64_t s_children(uint64_t node, uint64_t h, sresult *sr);

/* The hash of the result of child `kind` at `node`, as the parallel parent computes it. */
static uint64_t s_child(int kind, uint64_t node, sresult *sr) {
    sr->nodes++;
    if (kind == T0) return hash_pt(pt_of(0x70));
    if (kind == V0) {
        sr->v0++;
        return 0xf0;
    }
    uint64_t v = s_children(node, start_hash(kind, node), sr);
    switch (kind) {
    case T1: return v;
    case T2: return dbits(dbl_of(v));
    case T3: return hash_pt(pt_of(v));
    case T4: return ptr_hash(&g_table[v % TABLE]);
    case T5: return v;
    case T6: return (uint32_t)v;
    case V1: sr->acc += v; return 0xf1;
    case V2: return v;
    case V3: return dbits(dbl_of(v));
    case V4: return hash_pt(pt_of(v));
    case V5: sr->acc += v; return 0xf5;
    case V6: sr->acc += v; return 0xf6;
    }
    fail("bad kind %d", kind);
}

static uint64_t s_children(uint64_t node, uint64_t h, sresult *sr) {
    plan pl;
    make_plan(node, &pl, 1);
    for (int i = 0; i < pl.k; i++) h = mix(h, s_child(pl.kind[i], pl.node[i], sr));
    return h;
}

/* ---- the parallel evaluation ----------------------------------------------------------------------- */

static uint64_t g_acc; /* atomic: what the void tasks add, over every tree of a phase */
static uint64_t g_v0;  /* atomic: V0 tasks run */
static uint64_t g_sink; /* atomic: keeps the busy work from being optimized away */

/* Busy work per node, chosen per phase (0, 32 or 512 rounds): with some, thieves find trees still
 * growing; with none, the runtime's own paths dominate. Set while no task runs. */
static unsigned g_busy;

static void busy(uint64_t node) {
    unsigned rounds = g_busy;
    if (!rounds) return;
    uint64_t x = node;
    for (unsigned r = 0; r < rounds; r++) x = mix(x, r);
    __atomic_store_n(&g_sink, x, __ATOMIC_RELAXED);
}

/* A wrong argument is reported with the task, the argument and the node. */
#define ARG(cond, task, what, node)                                                                \
    do {                                                                                           \
        if (!(cond))                                                                               \
            fail("task %s received a wrong argument %s (node %#llx) on worker %d", task, what,     \
                 (unsigned long long)(node), merino_worker_index());                               \
    } while (0)

/* Children are evaluated by the task `children`, which spawns the kind tasks below, which call
 * `children`: mutual recursion, through a declaration (defined below with MERINO_TASK_IMPL_2). */
MERINO_TASK_DECL_2(uint64_t, children, uint64_t, uint64_t);
#define children_of(node, h) MERINO_CALL(children, node, h)

MERINO_TASK_0(struct pt, t0) { return pt_of(0x70); }
MERINO_TASK_1(int64_t, t1, uint64_t, node) {
    busy(node);
    return (int64_t)children_of(node, start_hash(T1, node));
}
MERINO_TASK_2(double, t2, uint64_t, node, double, x) {
    busy(node);
    ARG(dbits(x) == dbits(args_of(node).x), "t2", "x", node);
    return dbl_of(children_of(node, start_hash(T2, node)));
}
MERINO_TASK_3(struct pt, t3, struct pt, p, uint64_t, node, int32_t, small) {
    busy(node);
    args a = args_of(node);
    ARG(hash_pt(p) == hash_pt(a.p), "t3", "p", node);
    ARG(small == a.small, "t3", "small", node);
    return pt_of(children_of(node, start_hash(T3, node)));
}
MERINO_TASK_4(uint64_t *, t4, uint64_t, node, uint64_t *, base, int16_t, s, char, c) {
    busy(node);
    args a = args_of(node);
    ARG(base == base_of(&a), "t4", "base", node);
    ARG(s == a.s && c == a.c, "t4", "s or c", node);
    return &g_table[children_of(node, start_hash(T4, node)) % TABLE];
}
/* 48 bytes of arguments, padding included: a full descriptor payload. */
MERINO_TASK_5(int64_t, t5, uint8_t, u8, int16_t, s, uint64_t, node, float, f, struct pt, p) {
    busy(node);
    args a = args_of(node);
    ARG(u8 == a.u8a && s == a.s, "t5", "u8 or s", node);
    ARG(fbits(f) == fbits(a.f) && hash_pt(p) == hash_pt(a.p), "t5", "f or p", node);
    return (int64_t)children_of(node, start_hash(T5, node));
}
MERINO_TASK_6(uint32_t, t6, uint64_t, node, int32_t, a32, int32_t, b32, double, d, uint16_t, e, int64_t, g) {
    busy(node);
    args a = args_of(node);
    ARG(a32 == a.a32 && b32 == a.b32, "t6", "a32 or b32", node);
    ARG(dbits(d) == dbits(a.d) && e == a.e && g == a.g, "t6", "d, e or g", node);
    return (uint32_t)children_of(node, start_hash(T6, node));
}
MERINO_VOID_TASK_0(v0) { __atomic_fetch_add(&g_v0, 1, __ATOMIC_RELAXED); }
MERINO_VOID_TASK_1(v1, uint64_t, node) {
    busy(node);
    __atomic_fetch_add(&g_acc, children_of(node, start_hash(V1, node)), __ATOMIC_RELAXED);
}
MERINO_VOID_TASK_2(v2, uint64_t, node, uint64_t *, out) {
    busy(node);
    *out = children_of(node, start_hash(V2, node));
}
MERINO_VOID_TASK_3(v3, struct pt, p, uint64_t, node, double *, out) {
    busy(node);
    ARG(hash_pt(p) == hash_pt(args_of(node).p), "v3", "p", node);
    *out = dbl_of(children_of(node, start_hash(V3, node)));
}
MERINO_VOID_TASK_4(v4, uint64_t, node, int8_t, i8, struct pt *, out, uint32_t, y) {
    busy(node);
    args a = args_of(node);
    ARG(i8 == a.i8 && y == a.y, "v4", "i8 or y", node);
    *out = pt_of(children_of(node, start_hash(V4, node)));
}
MERINO_VOID_TASK_5(v5, uint64_t, node, int32_t, a32, int64_t, q, uint16_t, e, double, d) {
    busy(node);
    args a = args_of(node);
    ARG(a32 == a.a32 && q == a.q && e == a.e && dbits(d) == dbits(a.d), "v5", "a32, q, e or d", node);
    __atomic_fetch_add(&g_acc, children_of(node, start_hash(V5, node)), __ATOMIC_RELAXED);
}
MERINO_VOID_TASK_6(v6, uint64_t, node, struct pt, p, uint8_t, u8a, uint8_t, u8b, int16_t, s, int64_t, g) {
    busy(node);
    args a = args_of(node);
    ARG(hash_pt(p) == hash_pt(a.p) && u8a == a.u8a && u8b == a.u8b, "v6", "p, u8a or u8b", node);
    ARG(s == a.s && g == a.g, "v6", "s or g", node);
    __atomic_fetch_add(&g_acc, children_of(node, start_hash(V6, node)), __ATOMIC_RELAXED);
}

/* A plain C function that runs child i with MERINO_RUN (a call on this worker); its result hash. */
static uint64_t run_in_helper(int kind, uint64_t cn, outs *o, int i) {
    args a = args_of(cn);
    uint64_t res;
    TREES_EVAL(MERINO_RUN, kind, cn, a, *o, i, res);
    return res;
}

/* Evaluates the children of node in the plan's order of operations; mixes their results into h in
 * child order. */
MERINO_TASK_IMPL_2(uint64_t, children, uint64_t, node, uint64_t, h) {
    plan pl;
    make_plan(node, &pl, 1);
    uint64_t res[6];
    outs o;
    int stack[6], sp = 0;
    for (int n = 0; n < pl.nops; n++) {
        int op = pl.op[n] >> 4, i = pl.op[n] & 15;
        uint64_t cn = pl.node[i];
        args a = args_of(cn);
        if (op == OP_CALL) {
            TREES_EVAL(MERINO_CALL, pl.kind[i], cn, a, o, i, res[i]);
        } else if (op == OP_RUN) {
            TREES_EVAL(MERINO_RUN, pl.kind[i], cn, a, o, i, res[i]);
        } else if (op == OP_HELPER) {
            res[i] = run_in_helper(pl.kind[i], cn, &o, i);
        } else if (op == OP_SPAWN) {
            TREES_SPAWN(pl.kind[i], cn, a, o, i);
            stack[sp++] = i;
        } else {
            if (!(sp > 0 && stack[sp - 1] == i)) fail("the plan of node %#llx is not LIFO", (unsigned long long)node);
            sp--;
            TREES_JOIN(pl.kind[i], o, i, res[i]);
        }
    }
    if (sp != 0) fail("node %#llx left %d spawns unjoined", (unsigned long long)node, sp);
    for (int i = 0; i < pl.k; i++) h = mix(h, res[i]);
    return h;
}


/* ---- the context generators get ------------------------------------------------------------------ */

typedef struct gen_ctx {
    uint64_t seed;     /* this generator instance's own seed */
    double scale;      /* size factor: 1 normally, lower under sanitizers */
    unsigned workers;  /* the pool's size */
    int on_worker;     /* called from a task (on a worker) rather than from a plain thread */
    /* what the phase expects of the shared accumulators (added to atomically) */
    uint64_t *expect_acc, *expect_v0;
} gen_ctx;

/* A tree's root node, from the seed. */
static uint64_t tree_root(uint64_t *s, unsigned max_budget) { return node_of(next(s), 8 + below(s, max_budget)); }

/* Runs one tree from the calling thread (a worker or not) and checks it against the serial one. */
static void one_tree(gen_ctx *c, uint64_t *s, unsigned max_budget) {
    uint64_t root = tree_root(s, max_budget);
    uint64_t h0 = next(s);
    sresult sr = {0, 0, 1};
    uint64_t want = s_children(root, h0, &sr);
    __atomic_fetch_add(c->expect_acc, sr.acc, __ATOMIC_RELAXED);
    __atomic_fetch_add(c->expect_v0, sr.v0, __ATOMIC_RELAXED);
    uint64_t got = MERINO_RUN(children, root, h0);
    EXPECT(got == want, "tree root %#llx (budget %u, %llu tasks) from %s: result %#llx, serial %#llx",
           (unsigned long long)root, budget_of(root), (unsigned long long)sr.nodes,
           c->on_worker ? "a task" : "a thread", (unsigned long long)got, (unsigned long long)want);
    add_tasks(sr.nodes);
}

/* ---- generators ---------------------------------------------------------------------------------- */

static unsigned scaled(double scale, unsigned n) {
    unsigned v = (unsigned)(n * scale);
    return v < 8 ? 8 : v;
}

static void gen_tree(gen_ctx *c) {
    uint64_t s = c->seed;
    int n = 1 + (int)below(&s, 4);
    for (int i = 0; i < n; i++) one_tree(c, &s, scaled(c->scale, below(&s, 4) == 0 ? 20000 : 2000));
}

/* Spawn many, then join them all in reverse: the task stack deep, publication by halves. */
MERINO_TASK_3(uint64_t, wide, uint64_t, seed, int, n, unsigned, budget) {
    uint64_t *nodes = malloc((size_t)n * sizeof *nodes);
    uint64_t *outs_ = malloc((size_t)n * sizeof *outs_);
    if (!nodes || !outs_) fail("out of memory in wide");
    uint64_t s = seed;
    for (int i = 0; i < n; i++) {
        nodes[i] = tree_root(&s, budget);
        switch (i % 4) {
        case 0: MERINO_SPAWN(t1, nodes[i]); break;
        case 1: MERINO_SPAWN(t2, nodes[i], args_of(nodes[i]).x); break;
        case 2: MERINO_SPAWN(v2, nodes[i], &outs_[i]); break;
        default: {
            args a = args_of(nodes[i]);
            MERINO_SPAWN(t6, nodes[i], a.a32, a.b32, a.d, a.e, a.g);
        }
        }
    }
    uint64_t h = seed;
    for (int i = n - 1; i >= 0; i--) {
        switch (i % 4) {
        case 0: h = mix(h, (uint64_t)MERINO_JOIN(t1)); break;
        case 1: h = mix(h, dbits(MERINO_JOIN(t2))); break;
        case 2: MERINO_JOIN(v2); h = mix(h, outs_[i]); break;
        default: h = mix(h, MERINO_JOIN(t6)); break;
        }
    }
    free(nodes);
    free(outs_);
    return h;
}

static void gen_wide(gen_ctx *c) {
    uint64_t s = c->seed;
    int n = (int)scaled(c->scale, 100 + below(&s, 3000));
    unsigned budget = 1 + below(&s, 40);
    uint64_t seed = next(&s);
    /* serially: the same children */
    uint64_t s2 = seed, h = seed;
    uint64_t *hs = malloc((size_t)n * sizeof *hs);
    if (!hs) fail("out of memory");
    sresult sr = {0, 0, 1};
    for (int i = 0; i < n; i++) {
        uint64_t node = tree_root(&s2, budget);
        static const int kinds[4] = {T1, T2, V2, T6};
        sr.nodes++;
        int kind = kinds[i % 4];
        uint64_t v = s_children(node, start_hash(kind, node), &sr);
        hs[i] = kind == T2 ? dbits(dbl_of(v)) : kind == T6 ? (uint32_t)v : v;
    }
    for (int i = n - 1; i >= 0; i--) h = mix(h, hs[i]);
    free(hs);
    __atomic_fetch_add(c->expect_acc, sr.acc, __ATOMIC_RELAXED);
    __atomic_fetch_add(c->expect_v0, sr.v0, __ATOMIC_RELAXED);
    uint64_t got = MERINO_RUN(wide, seed, n, budget);
    EXPECT(got == h, "wide: %d spawns of budget %u from seed %#llx: %#llx, serial %#llx", n, budget,
           (unsigned long long)seed, (unsigned long long)got, (unsigned long long)h);
    add_tasks(sr.nodes);
}

/* Task objects and a task group (src/graph): fib in one of the TBB paper's four variants (plain,
 * continuation, bypass, recycling), then a group over up to 5,000 closures, from whatever thread
 * runs the generator (a thread outside the pool enters it at each run and at the wait). */
typedef struct graph_item {
    uint64_t in, out;
} graph_item;

static void graph_visit(void *p) {
    graph_item *x = p;
    x->out = mix(x->in, 0x5BD1E995);
}

static void gen_graph(gen_ctx *c) {
    static merino_task_fn *const variants[] = {fibt_plain, fibt_c, fibt_cb, fibt_cbr};
    uint64_t s = c->seed;
    int v = (int)below(&s, 4);
    long n = (long)below(&s, 25);
    long got = fibt_run(variants[v], n), want = fibt_serial(n);
    EXPECT(got == want, "graph: fib(%ld) by task objects, variant %d: %ld, serial %ld", n, v, got, want);
    unsigned k = scaled(c->scale, 1 + below(&s, 5000));
    graph_item *items = malloc(k * sizeof *items);
    if (!items) fail("out of memory");
    merino_task_group g;
    merino_task_group_init(&g);
    for (unsigned i = 0; i < k; i++) {
        items[i] = (graph_item){next(&s), 0};
        merino_task_group_run(&g, graph_visit, &items[i]);
    }
    int status = merino_task_group_wait(&g);
    EXPECT(status == MERINO_COMPLETE, "graph: a task group of %u closures ended with status %d", k, status);
    for (unsigned i = 0; i < k; i++)
        EXPECT(items[i].out == mix(items[i].in, 0x5BD1E995), "graph: closure %u of %u did not run", i, k);
    free(items);
    add_tasks(k);
}

/* A dependency graph (src/graph/flow.c): a random DAG of up to 300 nodes, edges added in random
 * order (so that the topological order is repaired as they come), run twice, each node's value
 * checked against a serial evaluation. */
typedef struct flow_node {
    uint64_t *value;
    int self, npred, pred[4];
} flow_node;

static void flow_visit(void *p) {
    flow_node *x = p;
    uint64_t h = (uint64_t)x->self;
    for (int i = 0; i < x->npred; i++) h = mix(h, x->value[x->pred[i]]);
    x->value[x->self] = h;
}

static void gen_flow(gen_ctx *c) {
    uint64_t s = c->seed;
    int n = 1 + (int)below(&s, scaled(c->scale, 300));
    flow_node *nodes = calloc((size_t)n, sizeof *nodes);
    uint64_t *value = calloc((size_t)n, sizeof *value), *want = calloc((size_t)n, sizeof *want);
    int *perm = malloc((size_t)n * sizeof *perm);
    merino_graph *g = merino_graph_new();
    merino_graph_node **gn = malloc((size_t)n * sizeof *gn);
    if (!nodes || !value || !want || !perm || !g || !gn) fail("out of memory");
    for (int i = 0; i < n; i++) perm[i] = i;
    for (int i = n - 1; i > 0; i--) { /* a hidden topological order: perm */
        int j = (int)below(&s, (unsigned)i + 1), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (int k = 0; k < n; k++) { /* node perm[k] follows up to 4 of the nodes before it */
        flow_node *x = &nodes[perm[k]];
        *x = (flow_node){value, perm[k], 0, {0}};
        int m = k ? (int)below(&s, 5) : 0;
        for (int i = 0; i < m; i++) x->pred[x->npred++] = perm[below(&s, (unsigned)k)];
    }
    for (int i = 0; i < n; i++)
        if (!(gn[i] = merino_graph_node_new(g, NULL, flow_visit, &nodes[i]))) fail("out of memory");
    for (int i = n - 1; i >= 0; i--) /* edges node by node from the last made: many reorderings */
        for (int j = 0; j < nodes[i].npred; j++)
            EXPECT(merino_graph_edge(gn[nodes[i].pred[j]], gn[i]) == 0, "flow: an acyclic edge refused: %s",
                   merino_last_error());
    for (int k = 0; k < n; k++) { /* serially, in the hidden order */
        nodes[perm[k]].value = want;
        flow_visit(&nodes[perm[k]]);
        nodes[perm[k]].value = value;
    }
    for (int run = 0; run < 2; run++) {
        memset(value, 0, (size_t)n * sizeof *value);
        int status = merino_graph_run(g);
        EXPECT(status == MERINO_COMPLETE, "flow: a graph of %d nodes ended with status %d", n, status);
        for (int i = 0; i < n; i++)
            EXPECT(value[i] == want[i], "flow: node %d of %d: %#llx, serial %#llx", i, n,
                   (unsigned long long)value[i], (unsigned long long)want[i]);
    }
    merino_graph_delete(g);
    free(gn);
    free(perm);
    free(want);
    free(value);
    free(nodes);
    add_tasks(2 * (uint64_t)n);
}

/* C++ (tests/stress_cxx.cpp). */
int stress_cxx_run(uint64_t seed, unsigned budget, uint64_t *tasks, char *err, size_t errlen);

static void gen_cxx(gen_ctx *c) {
    uint64_t s = c->seed;
    int n = 1 + (int)below(&s, 3);
    for (int i = 0; i < n; i++) {
        char err[512] = "";
        uint64_t tasks = 0;
        uint64_t seed = next(&s);
        unsigned budget = scaled(c->scale, 50 + below(&s, 3000));
        if (stress_cxx_run(seed, budget, &tasks, err, sizeof err) != 0)
            fail("C++ fork_join tree (seed %#llx, budget %u) from %s: %s", (unsigned long long)seed, budget,
                 c->on_worker ? "a task" : "a thread", err);
        add_tasks(tasks);
    }
}

/* C++ trees from inside a C task, with a C spawn around them. */
MERINO_TASK_1(int, cxx_in_task, gen_ctx *, c) {
    gen_ctx inner = *c;
    inner.on_worker = 1;
    uint64_t s = c->seed;
    uint64_t root = tree_root(&s, 200);
    MERINO_SPAWN(t1, root);
    inner.seed = next(&s);
    gen_cxx(&inner);
    int64_t r = MERINO_JOIN(t1);
    sresult sr = {0, 0, 1};
    uint64_t want = s_children(root, start_hash(T1, root), &sr);
    __atomic_fetch_add(c->expect_acc, sr.acc, __ATOMIC_RELAXED);
    __atomic_fetch_add(c->expect_v0, sr.v0, __ATOMIC_RELAXED);
    add_tasks(sr.nodes);
    EXPECT((uint64_t)r == want, "t1 spawned around C++ trees: %#llx, serial %#llx", (unsigned long long)r,
           (unsigned long long)want);
    return 1;
}

static void gen_cxx_in_task(gen_ctx *c) { EXPECT(MERINO_RUN(cxx_in_task, c) == 1, "cxx_in_task"); }

/* Trees from a task too (MERINO_RUN on a worker, from a plain C function called by a task). */
MERINO_TASK_1(int, tree_in_task, gen_ctx *, c) {
    gen_ctx inner = *c;
    inner.on_worker = 1;
    gen_tree(&inner);
    return merino_worker_index() >= 0;
}

static void gen_tree_in_task(gen_ctx *c) { EXPECT(MERINO_RUN(tree_in_task, c) == 1, "tree_in_task"); }

/* Let the workers fall asleep, then give them work. */
static void gen_idle(gen_ctx *c) {
    uint64_t s = c->seed;
    check_sleep(0.002 + below(&s, 30) * 0.001);
    c->seed = next(&s);
    gen_tree(c);
}

/* The generators that may also run on threads that are not workers, concurrently (below). */
static void run_external_ok(gen_ctx *c);

typedef struct ext_thread {
    pthread_t thread;
    gen_ctx ctx;
    int n;
} ext_thread;

static void *ext_main(void *arg) {
    ext_thread *t = (ext_thread *)arg;
    EXPECT(merino_worker_index() == -1, "an external thread is a worker (%d)", merino_worker_index());
    uint64_t s = t->ctx.seed;
    for (int i = 0; i < t->n; i++) {
        t->ctx.seed = next(&s);
        run_external_ok(&t->ctx);
    }
    return NULL;
}

static void gen_external(gen_ctx *c) {
    uint64_t s = c->seed;
    int k = 1 + (int)below(&s, 4);
    ext_thread th[4];
    for (int i = 0; i < k; i++) {
        th[i].ctx = *c;
        th[i].ctx.seed = next(&s);
        th[i].n = 1 + (int)below(&s, 3);
        EXPECT(pthread_create(&th[i].thread, NULL, ext_main, &th[i]) == 0, "pthread_create");
    }
    c->seed = next(&s);
    run_external_ok(c); /* and this thread too */
    for (int i = 0; i < k; i++) EXPECT(pthread_join(th[i].thread, NULL) == 0, "pthread_join");
}

/* restart is handled by the round itself (it owns the pool); the entry only marks the point. */
static void gen_restart(gen_ctx *c) { (void)c; }

/* ---- the table of generators ------------------------------------------------------------------------
 * One line per generator: later capabilities add theirs here (and their functions above). */
typedef struct generator {
    const char *name;
    const char *capability; /* which part of merino it exercises */
    unsigned weight;        /* relative frequency in a round */
    int external_ok;        /* may also run on threads that are not workers, concurrently */
    void (*run)(gen_ctx *c);
} generator;

static const generator generators[] = {
    {"tree", "core", 6, 1, gen_tree},
    {"tree_in_task", "core", 2, 1, gen_tree_in_task},
    {"wide", "core", 2, 1, gen_wide},
    {"external", "core", 2, 0, gen_external},
    {"idle", "core", 1, 0, gen_idle},
    {"cxx", "c++", 2, 1, gen_cxx},
    {"cxx_in_task", "c++", 1, 1, gen_cxx_in_task},
    {"restart", "core", 1, 0, gen_restart},
    {"graph", "graph", 2, 1, gen_graph},
    {"flow", "graph", 1, 1, gen_flow},
};
#define N_GENERATORS (sizeof generators / sizeof generators[0])

static int pick(uint64_t *s, int external_only) {
    unsigned total = 0;
    for (size_t i = 0; i < N_GENERATORS; i++)
        if (!external_only || generators[i].external_ok) total += generators[i].weight;
    unsigned r = below(s, total);
    for (size_t i = 0; i < N_GENERATORS; i++) {
        if (external_only && !generators[i].external_ok) continue;
        if (r < generators[i].weight) return (int)i;
        r -= generators[i].weight;
    }
    return 0;
}

static void run_external_ok(gen_ctx *c) {
    uint64_t s = c->seed;
    int g = pick(&s, 1);
    c->seed = next(&s);
    generators[g].run(c);
}

/* Generator uses per generator, over the run. */
static uint64_t g_uses[N_GENERATORS];

/* ---- rounds --------------------------------------------------------------------------------------- */

typedef struct options {
    double duration;
    long long rounds;     /* -1: until the duration is over */
    int round;            /* -1: all rounds; else replay this one */
    unsigned max_workers;
    double scale;
    const char *log;
    const char *pause_while;
    int verbose;
} options;

static FILE *g_log;
static void set_crash_line(void);

/* The phase's pool: start with `workers`, or fail with merino's message. */
static void start_pool(unsigned workers, size_t stack_tasks, int pin) {
    merino_config cfg = {0};
    cfg.workers = workers;
    cfg.stack_tasks = stack_tasks;
    cfg.pin = pin;
    EXPECT(merino_start(&cfg) == 0, "merino_start(workers=%u, stack_tasks=%zu) failed: %s", workers, stack_tasks,
           merino_last_error());
    EXPECT(merino_workers() == workers, "merino_workers() = %u, want %u", merino_workers(), workers);
}

/* Ends a phase: checks the accumulators, reads the counters, stops the pool. */
static void end_phase(unsigned workers, uint64_t expect_acc, uint64_t expect_v0, uint64_t tasks_before,
                      double t0) {
    uint64_t acc = __atomic_load_n(&g_acc, __ATOMIC_RELAXED), v0 = __atomic_load_n(&g_v0, __ATOMIC_RELAXED);
    EXPECT(acc == expect_acc, "void tasks added %#llx, serially %#llx", (unsigned long long)acc,
           (unsigned long long)expect_acc);
    EXPECT(v0 == expect_v0, "%llu v0 tasks ran, serially %llu", (unsigned long long)v0, (unsigned long long)expect_v0);
    merino_stats st;
    merino_stats_get(&st);
    EXPECT(merino_stop() == 0, "merino_stop failed: %s", merino_last_error());
    EXPECT(merino_workers() == 0, "merino_workers() = %u after stop", merino_workers());
    if (workers == 1) EXPECT(st.steals == 0, "%llu steals with one worker", (unsigned long long)st.steals);
    wstats *w = &g_by_workers[workers <= MAX_W ? workers : MAX_W];
    w->phases++;
    w->tasks += __atomic_load_n(&g_tasks, __ATOMIC_RELAXED) - tasks_before;
    w->steals += st.steals;
    w->leapfrogs += st.leapfrogs;
    w->publishes += st.publishes;
    w->seconds += check_now() - t0;
}

static void run_round(const options *o, int round) {
    uint64_t s = mix(g_base_seed, (uint64_t)round + 1);
    unsigned workers = 1 + below(&s, o->max_workers);
    size_t stack_tasks = below(&s, 4) == 0 ? 4096 + below(&s, 60000) : 0;
    /* Worker binding (auto, on, off), from its own hash: the rest of the round stays as it was
     * for the same seed before binding existed. */
    static const char *const pin_names[4] = {"", "auto", "on", "off"};
    int pin = MERINO_PIN_AUTO + (int)(mix(g_base_seed ^ 0x70696eULL, (uint64_t)round + 1) % 3);
    int n_items = 1 + (int)below(&s, 8);
    int items[8];
    for (int i = 0; i < n_items; i++) items[i] = pick(&s, 0);

    /* The round's description: enough to see what it did; the seed and number replay it. */
    int len = snprintf(g_round_desc, sizeof g_round_desc, "seed %llu workers %u stack_tasks %zu pin %s scale %.2g:",
                       g_base_seed, workers, stack_tasks, pin_names[pin], o->scale);
    for (int i = 0; i < n_items && len < (int)sizeof g_round_desc - 20; i++)
        len += snprintf(g_round_desc + len, sizeof g_round_desc - (size_t)len, " %s", generators[items[i]].name);
    __atomic_store_n(&g_round, round, __ATOMIC_RELAXED);
    __atomic_store_n(&g_round_workers, workers, __ATOMIC_RELAXED);
    check_set_context("round %d, %s (replay: merino_stress --seed %llu --round %d)", round, g_round_desc,
                      g_base_seed, round);
    if (g_log) {
        fprintf(g_log, "round %d %s\n", round, g_round_desc);
        fflush(g_log);
    }
    set_crash_line();

    uint64_t expect_acc = 0, expect_v0 = 0;
    __atomic_store_n(&g_acc, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&g_v0, 0, __ATOMIC_RELAXED);
    static const unsigned busy_choices[4] = {0, 0, 32, 512};
    g_busy = busy_choices[below(&s, 4)];
    uint64_t tasks_before = __atomic_load_n(&g_tasks, __ATOMIC_RELAXED);
    double t0 = check_now();
    start_pool(workers, stack_tasks, pin);
    for (int i = 0; i < n_items; i++) {
        const generator *g = &generators[items[i]];
        g_uses[items[i]]++;
        if (g->run == gen_restart) {
            end_phase(workers, expect_acc, expect_v0, tasks_before, t0);
            workers = 1 + below(&s, o->max_workers);
            __atomic_store_n(&g_round_workers, workers, __ATOMIC_RELAXED);
            if (g_log) {
                fprintf(g_log, "round %d restart workers %u\n", round, workers);
                fflush(g_log);
            }
            expect_acc = expect_v0 = 0;
            __atomic_store_n(&g_acc, 0, __ATOMIC_RELAXED);
            __atomic_store_n(&g_v0, 0, __ATOMIC_RELAXED);
            g_busy = busy_choices[below(&s, 4)];
            tasks_before = __atomic_load_n(&g_tasks, __ATOMIC_RELAXED);
            t0 = check_now();
            start_pool(workers, stack_tasks, pin);
            continue;
        }
        gen_ctx c = {next(&s), o->scale, workers, 0, &expect_acc, &expect_v0};
        g->run(&c);
    }
    end_phase(workers, expect_acc, expect_v0, tasks_before, t0);
}

/* ---- a crash (SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL) says which round, too ------------------- */

static char g_crash_line[768]; /* written before each round; read only by the handler */

static void set_crash_line(void) {
    snprintf(g_crash_line, sizeof g_crash_line,
             "stress: CRASHED in round %d: %s\nstress: replay with: merino_stress --seed %llu --round %d\n",
             __atomic_load_n(&g_round, __ATOMIC_RELAXED), g_round_desc, g_base_seed,
             __atomic_load_n(&g_round, __ATOMIC_RELAXED));
}

static void on_crash(int sig) {
    /* async-signal-safe: write(2) of a prepared line, then die by the same signal */
    ssize_t n = write(2, g_crash_line, strlen(g_crash_line));
    (void)n;
    signal(sig, SIG_DFL);
    raise(sig);
}

static void catch_crashes(void) {
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_crash;
        sa.sa_flags = (int)SA_RESETHAND;
        sigaction(sigs[i], &sa, NULL);
    }
}

/* ---- watchdog: a round that never ends is a failure too ------------------------------------------ */

static double g_round_started; /* atomic (as bits): check_now() at the round's start, 0 between rounds */
static double g_watchdog_limit;

static void *watchdog(void *arg) {
    (void)arg;
    for (;;) {
        check_sleep(1.0);
        double started;
        __atomic_load(&g_round_started, &started, __ATOMIC_RELAXED);
        if (started > 0 && check_now() - started > g_watchdog_limit) {
            /* the main thread may be stuck anywhere: report without its help */
            fail("round %d did not finish in %.0f s: a hang (workers %u)", __atomic_load_n(&g_round, __ATOMIC_RELAXED),
                 g_watchdog_limit, __atomic_load_n(&g_round_workers, __ATOMIC_RELAXED));
        }
    }
    return NULL;
}

static void set_round_started(double t) { __atomic_store(&g_round_started, &t, __ATOMIC_RELAXED); }

/* ---- main ------------------------------------------------------------------------------------------ */

static void usage(void) {
    fprintf(stderr,
            "usage: merino_stress [--duration SECONDS] [--rounds N] [--seed S] [--round R]\n"
            "                     [--max-workers N] [--scale X] [--log FILE] [--pause-while FILE] [--verbose]\n"
            "  --duration S      run rounds for S seconds (default 20; pauses do not count)\n"
            "  --rounds N        run N rounds (instead of a duration)\n"
            "  --seed S          the base seed (default: from the clock; printed)\n"
            "  --round R         run round R of seed S only (replays a failure)\n"
            "  --max-workers N   worker counts 1..N (default 16)\n"
            "  --scale X         size factor (default 1; 0.3 under TSan, 0.5 under ASan)\n"
            "  --log FILE        write each round's seed and parameters to FILE before it runs\n"
            "  --pause-while F   before each round, wait while the file F exists\n"
            "  --verbose         print each round's parameters on stdout\n");
    exit(2);
}

static double num_arg(int argc, char **argv, int *i) {
    if (*i + 1 >= argc) usage();
    char *end;
    double v = strtod(argv[++*i], &end);
    if (*end || v < 0) usage();
    return v;
}

int main(int argc, char **argv) {
    trees_fill_table();
    options o = {20, -1, -1, 16, check_scale(), NULL, NULL, 0};
    int have_seed = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--duration") == 0) o.duration = num_arg(argc, argv, &i);
        else if (strcmp(argv[i], "--rounds") == 0) o.rounds = (long long)num_arg(argc, argv, &i);
        else if (strcmp(argv[i], "--round") == 0) o.round = (int)num_arg(argc, argv, &i);
        else if (strcmp(argv[i], "--max-workers") == 0) o.max_workers = (unsigned)num_arg(argc, argv, &i);
        else if (strcmp(argv[i], "--scale") == 0) o.scale = num_arg(argc, argv, &i);
        else if (strcmp(argv[i], "--seed") == 0) {
            if (i + 1 >= argc) usage();
            char *end;
            g_base_seed = strtoull(argv[++i], &end, 0);
            if (*end) usage();
            have_seed = 1;
        } else if (strcmp(argv[i], "--log") == 0 && i + 1 < argc) o.log = argv[++i];
        else if (strcmp(argv[i], "--pause-while") == 0 && i + 1 < argc) o.pause_while = argv[++i];
        else if (strcmp(argv[i], "--verbose") == 0) o.verbose = 1;
        else usage();
    }
    if (o.max_workers < 1 || o.max_workers > MERINO_MAX_WORKERS || o.scale <= 0) usage();
    if (o.round >= 0 && !have_seed) {
        fprintf(stderr, "merino_stress: --round needs --seed\n");
        return 2;
    }
    if (!have_seed) {
        unsigned long long env;
        g_base_seed = check_env_seed(&env) ? env : (unsigned long long)time(NULL) * 1000003ull + (unsigned)getpid();
    }
    /* The settings come from the rounds; an inherited MERINO_WORKERS must not change them. */
    unsetenv("MERINO_WORKERS");
    unsetenv("MERINO_TASK_STACK");
    for (size_t i = 0; i < TABLE; i++) g_table[i] = mix(i, 0x7ab1e);
    if (o.log) {
        g_log = fopen(o.log, "a");
        if (!g_log) {
            fprintf(stderr, "merino_stress: cannot open log %s: %s\n", o.log, strerror(errno));
            return 2;
        }
    } else if (o.verbose) {
        g_log = stdout;
    }
    catch_crashes();
    g_watchdog_limit = 120.0 / (o.scale < 1 ? o.scale : 1);
    pthread_t wd;
    if (pthread_create(&wd, NULL, watchdog, NULL) != 0) {
        fprintf(stderr, "merino_stress: cannot start the watchdog thread\n");
        return 2;
    }
    pthread_detach(wd);

    printf("merino_stress: seed %llu, %s, workers 1..%u, scale %.2g (replay a round with --seed %llu --round R)\n",
           g_base_seed, o.round >= 0 ? "one round" : o.rounds >= 0 ? "fixed rounds" : "timed",
           o.max_workers, o.scale, g_base_seed);
    fflush(stdout);
    if (g_log && g_log != stdout) {
        fprintf(g_log, "merino_stress: seed %llu max_workers %u scale %.2g\n", g_base_seed, o.max_workers, o.scale);
        fflush(g_log);
    }

    double start = check_now(), paused = 0, last_report = start;
    long long done = 0;
    int first = o.round >= 0 ? o.round : 0;
    for (int r = first;; r++) {
        if (o.round >= 0 && r > o.round) break;
        if (o.round < 0 && o.rounds >= 0 && done >= o.rounds) break;
        if (o.round < 0 && o.rounds < 0 && check_now() - start - paused >= o.duration) break;
        if (o.pause_while) {
            struct stat st;
            double p0 = check_now();
            int said = 0;
            while (stat(o.pause_while, &st) == 0) {
                if (!said && g_log) {
                    fprintf(g_log, "pausing while %s exists\n", o.pause_while);
                    fflush(g_log);
                }
                said = 1;
                check_sleep(5);
            }
            paused += check_now() - p0;
        }
        set_round_started(check_now());
        run_round(&o, r);
        set_round_started(0);
        done++;
        if (check_now() - last_report >= 60 && o.round < 0) {
            last_report = check_now();
            printf("merino_stress: %lld rounds, %llu tasks, %.0f s\n", done,
                   (unsigned long long)__atomic_load_n(&g_tasks, __ATOMIC_RELAXED), check_now() - start - paused);
            fflush(stdout);
        }
    }

    double secs = check_now() - start - paused;
    printf("merino_stress: %lld rounds, %llu tasks in %.1f s (%.0f s paused), 0 failures\n", done,
           (unsigned long long)__atomic_load_n(&g_tasks, __ATOMIC_RELAXED), secs, paused);
    printf("  workers  phases        tasks     steals  leapfrogs  publishes   seconds\n");
    for (unsigned w = 1; w <= MAX_W; w++) {
        wstats *x = &g_by_workers[w];
        if (!x->phases) continue;
        printf("  %7u %7llu %12llu %10llu %10llu %10llu %9.1f\n", w, (unsigned long long)x->phases,
               (unsigned long long)x->tasks, (unsigned long long)x->steals, (unsigned long long)x->leapfrogs,
               (unsigned long long)x->publishes, x->seconds);
    }
    printf("  generators:");
    for (size_t i = 0; i < N_GENERATORS; i++) printf(" %s=%llu", generators[i].name, (unsigned long long)g_uses[i]);
    printf("\n");
    if (g_log && g_log != stdout) {
        fprintf(g_log, "done: %lld rounds, %llu tasks in %.1f s, 0 failures\n", done,
                (unsigned long long)__atomic_load_n(&g_tasks, __ATOMIC_RELAXED), secs);
        fclose(g_log);
    }
    return 0;
}
