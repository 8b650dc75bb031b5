/* pipe-common.c — the stages every version of the pipeline workload runs (pipe.h). */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "pipe.h"

#include <stdio.h>
#include <stdlib.h>

int pipe_parse(int argc, char **argv, pipe_args *a) {
    const char *p[4];
    int np = bench_args(argc, argv, &a->workers, &a->reps, p, 4);
    if (np != 4) {
        fprintf(stderr, "usage: %s --workers N [--reps R] blocks len work tokens\n", argv[0]);
        return 2;
    }
    a->blocks = bench_param_long(p, np, 0, 0);
    a->len = bench_param_long(p, np, 1, 0);
    a->work = bench_param_long(p, np, 2, 0);
    a->tokens = bench_param_long(p, np, 3, 0);
    if (a->blocks < 1 || a->len < 1 || a->work < 1 || a->tokens < 1) {
        fprintf(stderr, "%s: blocks, len, work and tokens must be positive\n", argv[0]);
        return 2;
    }
    return 0;
}

static inline uint64_t mix(uint64_t x) {
    x ^= x >> 31;
    x *= 0x7fb5d329728ea185ULL;
    x ^= x >> 27;
    x *= 0x81dadef4bc2dd44dULL;
    return x ^ (x >> 33);
}

pipe_block *pipe_read(const pipe_args *a, long index) {
    pipe_block *b = malloc(sizeof(pipe_block) + (size_t)a->len * sizeof(uint64_t));
    if (b == NULL) {
        fprintf(stderr, "pipe: out of memory\n");
        exit(1);
    }
    b->index = index;
    uint64_t base = (uint64_t)index * (uint64_t)a->len;
    for (long j = 0; j < a->len; j++) b->words[j] = base + (uint64_t)j;
    return b;
}

void pipe_transform(const pipe_args *a, pipe_block *b) {
    for (long j = 0; j < a->len; j++) {
        uint64_t x = b->words[j];
        for (long k = 0; k < a->work; k++) x = mix(x + (uint64_t)k);
        b->words[j] = x;
    }
}

void pipe_write(const pipe_args *a, uint64_t *sum, pipe_block *b) {
    uint64_t s = *sum;
    for (long j = 0; j < a->len; j++) s = (s ^ b->words[j]) * 0x100000001b3ULL; /* FNV-1a over words */
    *sum = s ^ (uint64_t)b->index;
    free(b);
}

uint64_t pipe_expected(const pipe_args *a) {
    uint64_t sum = 0xcbf29ce484222325ULL;
    for (long i = 0; i < a->blocks; i++) {
        pipe_block *b = pipe_read(a, i);
        pipe_transform(a, b);
        pipe_write(a, &sum, b);
    }
    return sum;
}
