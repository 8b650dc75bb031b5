/* reducer: list append in serial order, the "Reducers" benchmark. Params: shape n variant
 *   shape    loop: append i for each index i of [0, n) (a parallel loop of n iterations);
 *            fib: a fork_join fib(n) tree, each leaf appending a value of its own (its depth
 *            times 2 plus its n), in the serial recursion's order (fib(n-1), then fib(n-2))
 *   variant  reducer (merino::reducer_list_append; C: merino_hyper): the serial program's list;
 *            combinable (merino::combinable of lists, spliced after): every value, in no order;
 *            mutex (one std::vector behind a std::mutex): every value, in no order
 * The serial version appends to one list. Checked: the reducer's list is the serial one value for
 * value (an order-sensitive hash and the count); the others' multiset (a sum and the count). */
#ifndef BENCH_REDUCER_H
#define BENCH_REDUCER_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { REDUCER_LOOP, REDUCER_FIB };
enum { VARIANT_REDUCER, VARIANT_COMBINABLE, VARIANT_MUTEX };

static inline int reducer_shape(const char *s) {
    return strcmp(s, "fib") == 0 ? REDUCER_FIB : strcmp(s, "loop") == 0 ? REDUCER_LOOP : -1;
}
static inline int reducer_variant(const char *s) {
    return strcmp(s, "reducer") == 0      ? VARIANT_REDUCER
           : strcmp(s, "combinable") == 0 ? VARIANT_COMBINABLE
           : strcmp(s, "mutex") == 0      ? VARIANT_MUTEX
                                          : -1;
}

/* The C versions' list: singly linked, appended at the tail, one malloc per value. */
typedef struct reducer_item {
    struct reducer_item *next;
    uint64_t v;
} reducer_item;

typedef struct reducer_list {
    reducer_item *head, **tail;
} reducer_list;

static inline void reducer_list_push(reducer_list *l, uint64_t v) {
    reducer_item *it = (reducer_item *)malloc(sizeof *it);
    if (!it) abort();
    it->next = NULL;
    it->v = v;
    *l->tail = it;
    l->tail = &it->next;
}

/* What a list is checked by: in order (hash), and as a multiset (sum), with its length. */
typedef struct reducer_digest {
    uint64_t hash, sum, count;
} reducer_digest;

static inline void reducer_digest_add(reducer_digest *d, uint64_t v) {
    d->hash = (d->hash ^ v) * 1099511628211ull;
    d->sum += v;
    d->count++;
}
static inline reducer_digest reducer_digest_new(void) {
    reducer_digest d = {14695981039346656037ull, 0, 0};
    return d;
}

/* The serial program's digest, computed without a list (for the check). */
static inline void reducer_fib_digest(reducer_digest *d, int n, uint64_t depth) {
    if (n < 2) {
        reducer_digest_add(d, depth * 2 + (uint64_t)n);
        return;
    }
    reducer_fib_digest(d, n - 1, depth + 1);
    reducer_fib_digest(d, n - 2, depth + 1);
}
static inline reducer_digest reducer_expected(int shape, long n) {
    reducer_digest d = reducer_digest_new();
    if (shape == REDUCER_LOOP)
        for (long i = 0; i < n; i++) reducer_digest_add(&d, (uint64_t)i);
    else
        reducer_fib_digest(&d, (int)n, 0);
    return d;
}

/* Digests the list and frees it (not timed). */
static inline reducer_digest reducer_list_digest(reducer_list *l) {
    reducer_digest d = reducer_digest_new();
    for (reducer_item *it = l->head, *next; it; it = next) {
        next = it->next;
        reducer_digest_add(&d, it->v);
        free(it);
    }
    l->head = NULL;
    l->tail = &l->head;
    return d;
}

/* The check of a variant's digest against the serial program's. */
static inline int reducer_ok(int variant, const reducer_digest *got, const reducer_digest *want) {
    if (got->count != want->count || got->sum != want->sum) return 0;
    return variant != VARIANT_REDUCER || got->hash == want->hash;
}

#endif
