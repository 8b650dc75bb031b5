/* Building dependency graphs (merino_graph_node_new, merino_graph_edge):
 *  - the cost grows near-linearly with the graph whatever order its nodes and edges come in: the
 *    construction's own count of steps (nodes and edges its cycle searches visit, nodes it
 *    relabels, and the whole check before a run when the searches ran out of credit:
 *    mrn_graph_steps) at most 32 per node and edge; and chains and a grid made in reverse
 *    dependency order are checked edge by edge, taking at most 2.5 times the steps for twice the
 *    size. The search of the whole part between the two nodes of an edge took 2,500 steps per
 *    node for a chain of 2,500 nodes made in reverse (0.55 s for 5,000 nodes, 2.3 s for 10,000,
 *    9.9 s for 20,000). Counted, not timed: the times are bench/micro/graphbuild's;
 *  - cycles: random edges, many closing cycles, against a brute-force closure: checked edge by
 *    edge, each edge that closes a cycle is refused (the message naming a real path back) and the
 *    others added; unchecked (no search credit), the edges are added and a run refuses a graph
 *    with a cycle, naming one, running no node. Every run of an acyclic graph (at 2 workers)
 *    respects every edge added;
 *  - out of memory at any allocation of node_new or edge: the call fails with its message, and the
 *    graph runs every node once, in order, as if the call had not been made (not under the
 *    sanitizers, which replace malloc themselves). */
#define _GNU_SOURCE 1
#include "check.h"

#include "graph_mix.h"

#include <merino.h>
#include <stdbool.h>
#include <merino_alloc.h>
#include <merino_graph.h>

/* The construction's steps so far (src/graph/flow.c): nodes visited by cycle searches, and nodes
 * given a new label in the topological order. */
unsigned long long mrn_graph_steps(const merino_graph *g);
/* Whether g's edges are checked as they come (else its next run checks it whole). */
bool mrn_graph_checked(const merino_graph *g);
/* Steps of search each node and edge added gives its graph. */
extern unsigned mrn_graph_search_credit;

static void quiet(const char *msg, void *arg) {
    (void)msg;
    (void)arg;
}

/* ---- the order nodes run in ---- */

#define MAXN 20000
static unsigned started[MAXN]; /* atomic elements: the order each node started in, from 1 */
static unsigned clock_;        /* atomic */

static void note_start(void *arg) {
    unsigned i = (unsigned)(uintptr_t)arg;
    /* relaxed: the graph's run orders a node after its predecessors; read after the run */
    unsigned t = __atomic_add_fetch(&clock_, 1, __ATOMIC_RELAXED);
    CHECK_MSG(__atomic_exchange_n(&started[i], t, __ATOMIC_RELAXED) == 0, "node %u ran twice in one run", i);
}

typedef struct edge {
    unsigned from, to;
} edge;

/* Runs g (nodes 0..n-1 made with note_start) and checks that every node ran once, after its
 * predecessors by the edges given. */
static void run_and_check(merino_graph *g, unsigned n, const edge *edges, unsigned nedges, const char *when) {
    memset(started, 0, n * sizeof started[0]);
    clock_ = 0;
    CHECK_MSG(merino_graph_run(g) == MERINO_COMPLETE, "a run %s did not complete", when);
    for (unsigned i = 0; i < n; i++) CHECK_MSG(started[i] != 0, "node %u did not run %s", i, when);
    for (unsigned k = 0; k < nedges; k++)
        CHECK_MSG(started[edges[k].from] < started[edges[k].to], "node %u ran before its predecessor %u %s",
                  edges[k].to, edges[k].from, when);
}

static merino_graph_node *nodes[MAXN];
static edge edges[4 * MAXN];

static merino_graph *make_nodes(unsigned n) {
    merino_graph *g = merino_graph_new();
    CHECK(g != NULL);
    for (unsigned i = 0; i < n; i++) {
        char name[16];
        snprintf(name, sizeof name, "n%u", i);
        nodes[i] = merino_graph_node_new(g, name, note_start, (void *)(uintptr_t)i);
        CHECK(nodes[i] != NULL);
    }
    return g;
}

/* ---- the cost of building ---- */

enum shape { CHAIN_FROM_FAR_END, CHAIN_FROM_NEAR_END, WAVEFRONT_BACKWARDS, RANDOM_DAG, SHAPES };
static const char *const shape_names[] = {"chain made in reverse, edges from the far end",
                                          "chain made in reverse, edges from the near end",
                                          "wavefront made in reverse, edges from the last node back",
                                          "random DAG made in random order, edges in random order"};

typedef struct built {
    unsigned nodes, edges;
    unsigned long long steps; /* building, and checking whole before the first run if it was not checked */
    bool checked;             /* every edge was checked as it came */
} built;

/* Builds the shape with about n nodes and runs it once. */
static built build(enum shape s, unsigned n) {
    unsigned ne = 0;
    if (s == WAVEFRONT_BACKWARDS) {
        unsigned side = 1;
        while ((side + 1) * (side + 1) <= n) side++;
        n = side * side;
        for (unsigned k = n; k-- > 0;) { /* cell k (row k / side, column k % side) is node n - 1 - k */
            if (k % side) edges[ne++] = (edge){n - k, n - 1 - k};
            if (k >= side) edges[ne++] = (edge){n - 1 - (k - side), n - 1 - k};
        }
    } else if (s == RANDOM_DAG) {
        /* node i is place perm[i] of a hidden order; up to 4 edges from earlier places each */
        static unsigned at[MAXN]; /* at[p]: the node in place p */
        for (unsigned i = 0; i < n; i++) at[i] = i;
        for (unsigned i = n; i-- > 1;) {
            unsigned j = (unsigned)(mix(n + i) % (i + 1)), t = at[i];
            at[i] = at[j];
            at[j] = t;
        }
        for (unsigned p = 1; p < n; p++)
            for (unsigned e = 0; e < 4 && e < p; e++) {
                unsigned q = p - 1 - (unsigned)(mix((uint64_t)p * 8 + e) % (p < 64 ? p : 64));
                if (e == 0 || q != p - 1) edges[ne++] = (edge){at[q], at[p]};
            }
        for (unsigned k = ne; k-- > 1;) {
            unsigned j = (unsigned)(mix(ne + k) % (k + 1));
            edge t = edges[k];
            edges[k] = edges[j];
            edges[j] = t;
        }
    } else {
        /* node i runs after node i + 1: the nodes are made in reverse dependency order */
        for (unsigned i = 0; i + 1 < n; i++) edges[ne++] = (edge){i + 1, i};
        if (s == CHAIN_FROM_NEAR_END)
            for (unsigned a = 0, b = ne - 1; a < b; a++, b--) {
                edge t = edges[a];
                edges[a] = edges[b];
                edges[b] = t;
            }
    }
    merino_graph *g = make_nodes(n);
    for (unsigned k = 0; k < ne; k++) CHECK_EQ_INT(merino_graph_edge(nodes[edges[k].from], nodes[edges[k].to]), 0);
    built b = {n, ne, 0, mrn_graph_checked(g)};
    run_and_check(g, n, edges, ne, "after building");
    b.steps = mrn_graph_steps(g);
    merino_graph_delete(g);
    return b;
}

/* Steps per node and edge at most 32 (the searches' credit, 8, the relabelling's O(log n) per node
 * moved, the whole check when the credit ran out); the chains and the wavefront checked edge by
 * edge, at most 2.5 times the steps for twice the size. */
static void growth(void) {
    for (int s = 0; s < SHAPES; s++) {
        check_set_context("growth: %s", shape_names[s]);
        unsigned long long prev = 0;
        for (unsigned n = 2500; n <= MAXN; n *= 2) {
            built b = build((enum shape)s, n);
            printf("%s: %u nodes, %u edges, %llu steps, %s\n", shape_names[s], b.nodes, b.edges, b.steps,
                   b.checked ? "checked edge by edge" : "checked whole before its run");
            CHECK_MSG(b.steps <= 32ull * (b.nodes + b.edges), "%llu steps for %u nodes and %u edges", b.steps,
                      b.nodes, b.edges);
            if (s == RANDOM_DAG) continue;
            CHECK_MSG(b.checked, "the edges of a %s were not checked as they came", shape_names[s]);
            if (prev > 1000)
                CHECK_MSG(b.steps <= prev * 5 / 2, "%llu steps for %u nodes, %llu for half as many: not near-linear",
                          b.steps, n, prev);
            prev = b.steps;
        }
    }
}

/* ---- cycles against a brute-force closure ---- */

/* Checks that the message names, after marker, a whole cycle "a" -> "b" -> ... -> "a" of edges in
 * adj — but for its last edge when the message is an edge's refusal (from -> to, not in adj). */
static void check_path(const char *msg, const char *marker, const uint64_t *adj, int from, int to) {
    const char *p = strstr(msg, marker);
    CHECK_MSG(p != NULL, "no \"%s\" in: %s", marker, msg);
    if (strstr(p, "...")) return; /* a long path, shortened */
    p += strlen(marker);
    unsigned path[70], len = 0;
    while (*p == '"' && len < 70) {
        unsigned k;
        CHECK_MSG(sscanf(p, "\"n%u\"", &k) == 1, "cannot read the path in: %s", msg);
        path[len++] = k;
        p = strchr(p + 1, '"') + 1;
        if (strncmp(p, " -> ", 4) != 0) break;
        p += 4;
    }
    CHECK_MSG(len >= 2 && path[0] == path[len - 1], "not a cycle in: %s", msg);
    unsigned last = len - 1;
    if (from >= 0) {
        CHECK_MSG(path[0] == (unsigned)to && path[len - 2] == (unsigned)from, "the path of %s does not close %d -> %d",
                  msg, from, to);
        last--;
    }
    for (unsigned i = 0; i < last; i++)
        CHECK_MSG(adj[path[i]] >> path[i + 1] & 1, "%u -> %u in the path of %s is not an edge", path[i], path[i + 1], msg);
}

/* Random edges, many closing cycles, against a transitive closure. checked: every search may take
 * as long as it needs, so each edge that closes a cycle is refused and the others added. Else no
 * search may take a step: every edge that goes back in the order is added unchecked (only a node
 * after itself is refused), and the runs refuse a graph with a cycle, naming one. */
static void random_cycles(unsigned seed_base, int graphs, bool checked) {
    unsigned credit = mrn_graph_search_credit;
    mrn_graph_search_credit = checked ? 1u << 30 : 0;
    for (int r = 0; r < graphs; r++) {
        unsigned long long seed = mix(seed_base + (uint64_t)r);
        check_set_seed(seed);
        check_set_context("random edges, %s", checked ? "checked" : "unchecked");
        unsigned n = 2 + (unsigned)(mix(seed) % 63);
        merino_graph *g = make_nodes(n);
        uint64_t reach[64] = {0}, adj[64] = {0}; /* reach[i]: the nodes i reaches (a closure) */
        bool cyclic = false;
        unsigned ne = 0, tries = n * 4;
        for (unsigned t = 0; t < tries && !cyclic; t++) {
            unsigned a = (unsigned)(mix(seed + 2 * t + 1) % n), b = (unsigned)(mix(seed + 2 * t + 2) % n);
            bool cycle = a == b || (reach[b] >> a & 1);
            if (adj[a] >> b & 1) continue; /* a second identical edge is allowed; not this test's subject */
            int rc = merino_graph_edge(nodes[a], nodes[b]);
            bool refused = a == b || (checked && cycle);
            CHECK_MSG(rc == (refused ? -1 : 0), "edge %u -> %u: %d (a cycle: %d)", a, b, rc, cycle);
            if (refused) {
                if (a != b) check_path(merino_last_error(), "would close a cycle: ", adj, (int)a, (int)b);
                continue;
            }
            adj[a] |= 1ull << b;
            edges[ne++] = (edge){a, b};
            for (unsigned x = 0; x < n; x++)
                if (x == a || (reach[x] >> a & 1)) reach[x] |= 1ull << b | reach[b];
            for (unsigned x = 0; x < n; x++) cyclic |= reach[x] >> x & 1;
            if (t % 16 == 15 && !cyclic) run_and_check(g, n, edges, ne, "between the edges");
        }
        if (cyclic) {
            memset(started, 0, n * sizeof started[0]);
            CHECK_EQ_INT(merino_graph_run(g), -1);
            check_path(merino_last_error(), "the graph has a cycle: ", adj, -1, -1);
            for (unsigned i = 0; i < n; i++) CHECK_MSG(started[i] == 0, "node %u of a graph with a cycle ran", i);
            CHECK_EQ_INT(merino_graph_run(g), -1); /* and again */
        } else {
            run_and_check(g, n, edges, ne, "after the edges");
        }
        merino_graph_delete(g);
    }
    check_clear_seed();
    mrn_graph_search_credit = credit;
}

/* ---- out of memory ---- */

#if !CHECK_SANITIZER
#include "alloc/mem.h"

/* While fail_in is above 0, the allocation that brings it to 0 fails (and the later ones succeed). */
static __thread int fail_in; /* this thread's only: armed around construction calls of the main thread */

static bool fail_now(void) { return fail_in > 0 && --fail_in == 0; }

void *mrn_mem_alloc(size_t align, size_t n) { return fail_now() ? NULL : merino_aligned_alloc(align, n); }
void *mrn_mem_calloc(size_t k, size_t n) { return fail_now() ? NULL : merino_calloc(k, n); }
void mrn_mem_free(void *p) { merino_free(p); }

extern void *__libc_malloc(size_t);
extern void __libc_free(void *);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

void *malloc(size_t n) { return fail_now() ? NULL : __libc_malloc(n); }
void free(void *p) { __libc_free(p); }
void *calloc(size_t k, size_t n) { return fail_now() ? NULL : __libc_calloc(k, n); }
void *realloc(void *p, size_t n) { return fail_now() ? NULL : __libc_realloc(p, n); }
void *aligned_alloc(size_t a, size_t n) { return fail_now() ? NULL : __libc_memalign(a, n); }
int posix_memalign(void **out, size_t a, size_t n) {
    void *p = fail_now() ? NULL : __libc_memalign(a, n);
    if (!p) return 12; /* ENOMEM */
    *out = p;
    return 0;
}
void *memalign(size_t a, size_t n) { return fail_now() ? NULL : __libc_memalign(a, n); }

/* For each k, the k-th allocation of a growing graph's construction fails: the call that made it
 * fails with a message, and the graph is what it was: every node runs once, after its
 * predecessors, in every run. Edges come in reverse (each one reorders), nodes and edges alternate,
 * and each call that failed is made again. */
static void out_of_memory(void) {
    for (int k = 1; k <= 40; k++) {
        check_set_context("out of memory at allocation %d of each call", k);
        merino_graph *g = merino_graph_new();
        CHECK(g != NULL);
        unsigned n = 0, ne = 0, failures = 0;
        for (unsigned i = 0; i < 40; i++) {
            char name[16];
            snprintf(name, sizeof name, "n%u", i);
            for (int again = 0;; again = 1) { /* made again, the allocations succeeding */
                fail_in = again ? 0 : k;
                nodes[n] = merino_graph_node_new(g, name, note_start, (void *)(uintptr_t)n);
                fail_in = 0;
                if (nodes[n]) break;
                CHECK(!again);
                CHECK_STR_CONTAINS(merino_last_error(), "out of memory");
                failures++;
                run_and_check(g, n, edges, ne, "after a node_new out of memory");
            }
            n++;
            if (i == 0) continue;
            for (int again = 0;; again = 1) { /* node i - 1 after node i: each edge goes back in the order */
                fail_in = again ? 0 : k;
                int rc = merino_graph_edge(nodes[i], nodes[i - 1]);
                fail_in = 0;
                if (rc == 0) break;
                CHECK(!again);
                CHECK_EQ_INT(rc, -1);
                CHECK_STR_CONTAINS(merino_last_error(), "out of memory");
                failures++;
                run_and_check(g, n, edges, ne, "after an edge out of memory");
            }
            edges[ne++] = (edge){i, i - 1};
            if (i % 8 == 0) run_and_check(g, n, edges, ne, "between the calls");
        }
        run_and_check(g, n, edges, ne, "at the end");
        merino_graph_delete(g);
        printf("out of memory at allocation %d of each call: %u calls failed, the graph unharmed\n", k, failures);
        if (failures == 0) break; /* k is past every call's allocations */
    }
}
#else
static void out_of_memory(void) { printf("out of memory: not checked under the sanitizers\n"); }
#endif

int main(void) {
    merino_config cfg = {0};
    cfg.workers = 2;
    CHECK_EQ_INT(merino_start(&cfg), 0);
    merino_set_error_handler(quiet, NULL);
    growth();
    random_cycles(12345, check_scale() < 1 ? 100 : 400, true);
    random_cycles(54321, check_scale() < 1 ? 100 : 400, false);
    out_of_memory();
    merino_set_error_handler(NULL, NULL);
    CHECK_EQ_INT(merino_stop(), 0);
    printf("graph construction: near-linear, cycles exact, out of memory harmless\n");
    return 0;
}
