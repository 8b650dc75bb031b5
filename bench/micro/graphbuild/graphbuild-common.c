/* graphbuild: the shapes, their edges in the order they are added, and the check of a run. */
#include "graphbuild.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static uint64_t gb_mix(uint64_t x) {
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 31;
    return x;
}

static void gb_usage(void) {
    fprintf(stderr, "usage: graphbuild-<system> --workers N [--reps R] rchain|rwave|random n\n");
    exit(2);
}

void gb_setup(int argc, char **argv, gb_graph *g, int *workers, int *reps) {
    const char *params[4];
    int np = bench_args(argc, argv, workers, reps, params, 4);
    if (np != 2) gb_usage();
    long n = bench_param_long(params, np, 1, 0);
    if (n < 2 || n > 50000000) gb_usage();
    g->n = (int)n;
    g->nedges = 0;
    g->edges = malloc(sizeof *g->edges * (size_t)n * 4);
    g->ticket = calloc((size_t)n, sizeof *g->ticket);
    g->next = 0;
    if (!g->edges || !g->ticket) exit(2);
    if (strcmp(params[0], "rchain") == 0) {
        for (int i = 0; i + 1 < g->n; i++) g->edges[g->nedges++] = (gb_edge){i + 1, i};
    } else if (strcmp(params[0], "rwave") == 0) {
        int side = 1;
        while ((long)(side + 1) * (side + 1) <= n) side++;
        g->n = side * side; /* cell k (row k / side, column k % side) is node n - 1 - k */
        for (int k = g->n; k-- > 0;) {
            if (k % side) g->edges[g->nedges++] = (gb_edge){g->n - k, g->n - 1 - k};
            if (k >= side) g->edges[g->nedges++] = (gb_edge){g->n - 1 - (k - side), g->n - 1 - k};
        }
    } else if (strcmp(params[0], "random") == 0) {
        int *at = malloc(sizeof *at * (size_t)n); /* at[p]: the node in place p of the hidden order */
        if (!at) exit(2);
        for (int i = 0; i < g->n; i++) at[i] = i;
        for (int i = g->n; i-- > 1;) {
            int j = (int)(gb_mix((uint64_t)i) % (uint64_t)(i + 1)), t = at[i];
            at[i] = at[j];
            at[j] = t;
        }
        for (int p = 1; p < g->n; p++)
            for (int e = 0; e < 4 && e < p; e++) {
                int q = p - 1 - (int)(gb_mix((uint64_t)p * 8 + (uint64_t)e) % (uint64_t)(p < 64 ? p : 64));
                if (e == 0 || q != p - 1) g->edges[g->nedges++] = (gb_edge){at[q], at[p]};
            }
        for (int k = g->nedges; k-- > 1;) {
            int j = (int)(gb_mix((uint64_t)g->nedges + (uint64_t)k) % (uint64_t)(k + 1));
            gb_edge t = g->edges[k];
            g->edges[k] = g->edges[j];
            g->edges[j] = t;
        }
        free(at);
    } else {
        gb_usage();
    }
}

void gb_ran(gb_graph *g, int x) {
    /* relaxed: the run orders a node after its predecessors; the tickets are read after it */
    g->ticket[x] = __atomic_add_fetch(&g->next, 1, __ATOMIC_RELAXED);
}

int gb_check(gb_graph *g) {
    int ok = 1;
    for (int x = 0; x < g->n; x++) ok &= g->ticket[x] != 0;
    for (int k = 0; k < g->nedges; k++) ok &= g->ticket[g->edges[k].from] < g->ticket[g->edges[k].to];
    memset(g->ticket, 0, sizeof *g->ticket * (size_t)g->n);
    g->next = 0;
    return ok;
}
