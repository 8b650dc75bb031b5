/* Memory of task objects, counted where it comes from. This executable links merino statically,
 * so its mrn_mem_alloc and mrn_mem_calloc (src/alloc/mem.h: the runtime's allocations from
 * merino's allocator) and its malloc, calloc, realloc, aligned_alloc, posix_memalign and memalign
 * replace the library's and the C library's:
 *  - task objects come from merino's allocator: no call to the C library's malloc in steady state;
 *  - steady state: after warm-up runs, fib by task objects (all four variants of the TBB paper)
 *    and by task groups allocates at most a few times (a chunk of 8 KB carves 63 task objects)
 *    for hundreds of thousands of tasks;
 *  - a task group over a list of 10^6 elements at 8 workers (4 times this machine's cores) runs
 *    each element once, and allocates at most 8 MiB meanwhile: each worker queues at most
 *    MERINO_TASK_DEQUE (4096) tasks of 128 bytes before run() calls the closure at once. Unbounded,
 *    the queue would hold 10^6 tasks: 128 MB.
 * Skipped under the sanitizers, which replace malloc themselves. */
#define _GNU_SOURCE 1
#include "check.h"

#include <malloc.h>
#include <merino.h>
#include <merino_alloc.h>
#include <merino_graph.h>

#include "../bench/workloads/taskobj/fib-taskobj.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define NO_INTERPOSE 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define NO_INTERPOSE 1
#endif
#endif

static unsigned long long calls, bytes; /* atomic: the C library's allocations since the last reset */
static unsigned long long mcalls, mbytes; /* atomic: the runtime's from merino's allocator */

#ifndef NO_INTERPOSE
#include "alloc/mem.h"

static void mcount(size_t n) {
    __atomic_fetch_add(&mcalls, 1, __ATOMIC_RELAXED); /* relaxed: read after the pool is idle */
    __atomic_fetch_add(&mbytes, n, __ATOMIC_RELAXED);
}

void *mrn_mem_alloc(size_t align, size_t n) {
    mcount(n);
    return merino_aligned_alloc(align, n);
}
void *mrn_mem_calloc(size_t k, size_t n) {
    mcount(k * n);
    return merino_calloc(k, n);
}
void mrn_mem_free(void *p) { merino_free(p); }

extern void *__libc_malloc(size_t);
extern void __libc_free(void *);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static void count(size_t n) {
    __atomic_fetch_add(&calls, 1, __ATOMIC_RELAXED); /* relaxed: read after the pool is idle */
    __atomic_fetch_add(&bytes, n, __ATOMIC_RELAXED);
}

void *malloc(size_t n) {
    count(n);
    return __libc_malloc(n);
}
/* free too: under LD_PRELOAD=libmerino_malloc.so (test_suite_preload) it would otherwise be the
 * preload's, handed the C library's blocks */
void free(void *p) { __libc_free(p); }
void *calloc(size_t k, size_t n) {
    count(k * n);
    return __libc_calloc(k, n);
}
void *realloc(void *p, size_t n) {
    count(n);
    return __libc_realloc(p, n);
}
void *aligned_alloc(size_t a, size_t n) {
    count(n);
    return __libc_memalign(a, n);
}
void *memalign(size_t a, size_t n) {
    count(n);
    return __libc_memalign(a, n);
}
int posix_memalign(void **out, size_t a, size_t n) {
    count(n);
    void *p = __libc_memalign(a, n);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}
#endif

__attribute__((unused)) static void reset(void) {
    __atomic_store_n(&calls, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&bytes, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&mcalls, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&mbytes, 0, __ATOMIC_RELAXED);
}

/* ---- a list, one task per element ---- */

typedef struct node {
    struct node *next;
    uint64_t value;
    uint32_t visits; /* atomic */
} node;

static void visit(void *p) {
    node *e = p;
    __atomic_fetch_add(&e->visits, 1, __ATOMIC_RELAXED); /* relaxed: read after the wait */
}

static void traverse(void *list) {
    merino_task_group g;
    merino_task_group_init(&g);
    for (node *p = list; p; p = p->next) merino_task_group_run(&g, visit, p);
    CHECK_EQ_INT(merino_task_group_wait(&g), MERINO_COMPLETE);
}

MERINO_VOID_TASK_1(traverse_task, node *, list) { traverse(list); }

/* ---- fib by a task group, for the steady-state count ---- */

typedef struct gfib {
    long n, *out;
} gfib;

static void gfib_run(void *p) {
    gfib *a = p;
    if (a->n < 12) {
        *a->out = fibt_serial(a->n);
        return;
    }
    long x, y;
    gfib l = {a->n - 1, &x}, r = {a->n - 2, &y};
    merino_task_group g;
    merino_task_group_init(&g);
    merino_task_group_run(&g, gfib_run, &l);
    merino_task_group_run(&g, gfib_run, &r);
    merino_task_group_wait(&g);
    *a->out = x + y;
}

MERINO_TASK_1(long, gfib_task, long, n) {
    long out;
    gfib a = {n, &out};
    gfib_run(&a);
    return out;
}

int main(void) {
#ifdef NO_INTERPOSE
    check_skip("a sanitizer replaces malloc, so the C library's allocations cannot be counted");
#else
    const long fib_n = check_scale() < 1 ? 20 : 24;
    merino_task_fn *variants[] = {fibt_plain, fibt_c, fibt_cb, fibt_cbr};
    for (unsigned workers = 2; workers <= 8; workers += 6) {
        merino_config cfg = {0};
        cfg.workers = workers;
        CHECK_EQ_INT(merino_start(&cfg), 0);
        check_set_context("workers=%u steady state", workers);
        fibt_cutoff = 2; /* many small tasks: about 75,000 for fib(24) */
        for (int round = 0; round < 4; round++) {
            if (round == 1) /* the chunks of the first round came through the counted function */
                CHECK_MSG(__atomic_load_n(&mcalls, __ATOMIC_RELAXED) > 0, "no allocation counted");
            if (round == 3) reset(); /* warm-up: three rounds */
            for (int v = 0; v < 4; v++) CHECK_EQ_INT(fibt_run(variants[v], fib_n), fibt_serial(fib_n));
            CHECK_EQ_INT(MERINO_RUN(gfib_task, fib_n + 2), fibt_serial(fib_n + 2));
        }
        unsigned long long steady = __atomic_load_n(&mcalls, __ATOMIC_RELAXED);
        unsigned long long sys = __atomic_load_n(&calls, __ATOMIC_RELAXED);
        printf("%u workers: %llu allocations from merino's allocator (%llu bytes), %llu malloc calls "
               "(%llu bytes) in a round of about 400,000 task objects\n",
               workers, steady, __atomic_load_n(&mbytes, __ATOMIC_RELAXED), sys,
               __atomic_load_n(&bytes, __ATOMIC_RELAXED));
        /* The four roots, allocated by the main thread (outside the pool: one by one), and a few
         * chunks when stealing keeps more tasks alive at once than in the warm-up rounds. */
        CHECK_MSG(steady <= 16 * workers, "%llu allocations of task objects in steady state", steady);
        CHECK_MSG(sys == 0, "%llu calls to malloc in steady state: task objects come from merino's allocator", sys);
        CHECK_EQ_INT(merino_stop(), 0);
    }

    /* The list. */
    const size_t n = (size_t)(1000000 * (check_scale() < 1 ? check_scale() : 1));
    node *list = NULL;
    uint64_t sum = 0;
    node *nodes = malloc(n * sizeof *nodes);
    CHECK(nodes != NULL);
    for (size_t i = n; i-- > 0;) {
        nodes[i] = (node){list, i * 2654435761u, 0};
        list = &nodes[i];
        sum += nodes[i].value;
    }
    merino_config cfg = {0};
    cfg.workers = 8;
    CHECK_EQ_INT(merino_start(&cfg), 0);
    check_set_context("list of %zu at 8 workers", n);
    reset();
    MERINO_RUN(traverse_task, list); /* from a task */
    unsigned long long in_task = __atomic_load_n(&bytes, __ATOMIC_RELAXED) + __atomic_load_n(&mbytes, __ATOMIC_RELAXED);
    reset();
    traverse(list); /* from the main thread: each run enters the pool */
    unsigned long long outside = __atomic_load_n(&bytes, __ATOMIC_RELAXED) + __atomic_load_n(&mbytes, __ATOMIC_RELAXED);
    CHECK_EQ_INT(merino_stop(), 0);
    uint64_t seen = 0;
    for (size_t i = 0; i < n; i++) {
        CHECK_MSG(nodes[i].visits == 2, "element %zu visited %u times, not 2", i, nodes[i].visits);
        seen += nodes[i].value;
    }
    CHECK_EQ_UINT(seen, sum);
    printf("list of %zu: %llu bytes allocated from a task, %llu from the main thread\n", n, in_task, outside);
    const unsigned long long bound = 8u << 20;
    CHECK_MSG(in_task <= bound, "%llu bytes allocated for a list of %zu elements (bound %llu)", in_task, n, bound);
    CHECK_MSG(outside <= bound, "%llu bytes allocated for a list of %zu elements (bound %llu)", outside, n, bound);
    free(nodes);
    return 0;
#endif
}
