/* dag-common.c — the graphs, the work of a node and the check, shared by every version of dag. */
#include "dag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "chain.h"

static uint64_t dag_mix(uint64_t x) {
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

void dag_node(const dag *d, int x) {
    uint64_t s = (uint64_t)x;
    for (int i = 0; i < d->npred[x]; i++) s += d->value[d->pred[x][i]];
    d->value[x] = dag_mix(bench_chain(s, d->iters));
}

void dag_serial(const dag *d) {
    for (int x = 0; x < d->n; x++) dag_node(d, x);
}

uint64_t dag_checksum(const dag *d) {
    uint64_t h = 0;
    for (int x = 0; x < d->n; x++) h = dag_mix(h + d->value[x]);
    return h;
}

static void dag_edge(dag *d, int from, int to) { d->pred[to][d->npred[to]++] = from; }

void dag_setup(int argc, char **argv, dag *d, int *workers, int *reps) {
    const char *p[3];
    static const char usage[] = "shape size block_us (shape: chain, tree, wavefront or random)";
    if (bench_args(argc, argv, workers, reps, p, 3) < 3) bench_usage_exit(argv[0], usage);
    long size = bench_param_long(p, 3, 1, 10);
    long us = bench_param_long(p, 3, 2, 10);
    if (size < 1 || size > (strcmp(p[0], "tree") == 0 ? 24 : 1 << 24) || us < 0) bench_usage_exit(argv[0], usage);
    int n = strcmp(p[0], "tree") == 0        ? (1 << size) - 1
            : strcmp(p[0], "wavefront") == 0 ? (int)(size * size)
                                             : (int)size;
    memset(d, 0, sizeof *d);
    d->n = n;
    d->pred = calloc((size_t)n, sizeof *d->pred);
    d->npred = calloc((size_t)n, sizeof *d->npred);
    d->value = calloc((size_t)n, sizeof *d->value);
    if (!d->pred || !d->npred || !d->value) {
        fprintf(stderr, "dag: out of memory for %d nodes\n", n);
        exit(2);
    }
    if (strcmp(p[0], "chain") == 0) {
        for (int x = 1; x < n; x++) dag_edge(d, x - 1, x);
    } else if (strcmp(p[0], "tree") == 0) {
        for (int x = 1; x < n; x++) dag_edge(d, (x - 1) / 2, x);
    } else if (strcmp(p[0], "wavefront") == 0) {
        for (int i = 0; i < size; i++)
            for (int j = 0; j < size; j++) {
                if (i) dag_edge(d, (int)((i - 1) * size + j), (int)(i * size + j));
                if (j) dag_edge(d, (int)(i * size + j - 1), (int)(i * size + j));
            }
    } else if (strcmp(p[0], "random") == 0) {
        uint64_t s = 42;
        for (int x = 1; x < n; x++) {
            int k = (int)((s = dag_mix(s + 1)) % (DAG_MAX_PRED + 1));
            for (int i = 0; i < k; i++) {
                int from = x - 1 - (int)((s = dag_mix(s + 1)) % (x < 64 ? (unsigned)x : 64u));
                int dup = 0;
                for (int j = 0; j < d->npred[x]; j++) dup |= d->pred[x][j] == from;
                if (!dup) dag_edge(d, from, x);
            }
        }
    } else {
        bench_usage_exit(argv[0], usage);
    }
    d->iters = (uint64_t)((double)us * bench_chain_per_us());
}

int dag_check(dag *d, int64_t *result) {
    uint64_t got = dag_checksum(d);
    *result = (int64_t)(got >> 1);
    memset(d->value, 0, (size_t)d->n * sizeof *d->value);
    dag_serial(d);
    return got == dag_checksum(d);
}
