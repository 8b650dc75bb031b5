/* Task objects (merino_graph.h) against serial evaluation at 1, 2, 3, 4 and 8 workers (8 is more
 * than this machine's cores on purpose): fib in the four variants of the TBB paper's Figure 6
 * (plain waits, continuation passing, bypass, recycling as a child) at two cut-offs, a random
 * k-ary tree summed by tasks recycled as their own continuations, roots run from outside the
 * pool, from a direct-stack task and from inside a task object; and misuse is reported (in child
 * processes): the spawn of a running task or of a root or from a thread outside the pool, a count
 * that reaches zero while its task runs, a count one too low (the wait would end with a child
 * still queued), a spawned task freed, a task freed twice, a negative count, a root run twice or
 * after it was freed (also when a child reused its block); cancelled groups keep cancelling their
 * tasks while another is reset. */
#define _GNU_SOURCE 1
#include "check.h"

#include "graph_mix.h"

#include <merino.h>
#include <merino_graph.h>

#include "../bench/workloads/taskobj/fib-taskobj.h"

/* ---- a random tree, each node summing its subtree as its own continuation ---- */

typedef struct tree_args {
    uint64_t seed; /* the node: its value and its children follow from it */
    int depth;
    int phase;     /* 0: first run, spawn the children; 1: they are done, add them up */
    int nkids;
    uint64_t kid_sum[5];
    uint64_t *out;
} tree_args;

static int tree_kids(uint64_t seed, int depth) { return depth >= 9 ? 0 : (int)(mix(seed) % 5); }

static uint64_t tree_serial(uint64_t seed, int depth) {
    uint64_t s = seed & 0xFFFF;
    int k = tree_kids(seed, depth);
    for (int i = 0; i < k; i++) s += tree_serial(mix(seed + (uint64_t)i + 1), depth + 1);
    return s;
}

static merino_task *tree_node(merino_task *self) {
    tree_args *a = merino_task_data(self);
    if (a->phase == 1) { /* run again: the children are done */
        uint64_t s = a->seed & 0xFFFF;
        for (int i = 0; i < a->nkids; i++) s += a->kid_sum[i];
        *a->out = s;
        return NULL;
    }
    a->nkids = tree_kids(a->seed, a->depth);
    if (a->nkids == 0) {
        *a->out = a->seed & 0xFFFF;
        return NULL;
    }
    a->phase = 1;
    merino_task_set_ref_count(self, a->nkids + 1); /* one more: dropped when this run returns */
    merino_task_recycle_as_continuation(self);
    for (int i = 0; i < a->nkids; i++) {
        merino_task *k = merino_task_alloc_child(self, tree_node, sizeof(tree_args));
        tree_args *ka = merino_task_data(k);
        *ka = (tree_args){.seed = mix(a->seed + (uint64_t)i + 1), .depth = a->depth + 1, .out = &a->kid_sum[i]};
        merino_task_spawn(k);
    }
    return NULL;
}

static uint64_t tree_run(uint64_t seed) {
    uint64_t out = 0;
    merino_task *root = merino_task_alloc_root(tree_node, sizeof(tree_args));
    *(tree_args *)merino_task_data(root) = (tree_args){.seed = seed, .out = &out};
    CHECK_EQ_INT(merino_task_spawn_root_and_wait(root), MERINO_COMPLETE);
    return out;
}

/* ---- roots from other places ---- */

static long fib_expected[40];

MERINO_TASK_1(long, fib_in_stack_task, long, n) { return fibt_run(fibt_cbr, n); }

/* A task object whose execute runs another root (nested roots) and checks it. */
static long nested_out;
static merino_task *nested_root(merino_task *self) {
    (void)self;
    nested_out = fibt_run(fibt_cb, 20) + fibt_run(fibt_plain, 18);
    return NULL;
}

/* ---- misuse, in a child process ---- */

static merino_task *spawn_self(merino_task *self) {
    merino_task_spawn(self); /* it is running: it must return itself instead */
    return NULL;
}

static merino_task *leaf(merino_task *self) {
    (void)self;
    return NULL;
}

/* The count says 1 child; with one worker, the deque fills after MERINO_TASK_DEQUE spawns and the
 * next child runs at once, bringing the count to zero while this task still runs. */
static merino_task *count_too_low(merino_task *self) {
    merino_task_set_ref_count(self, 1);
    for (int i = 0; i <= MERINO_TASK_DEQUE; i++) merino_task_spawn(merino_task_alloc_child(self, leaf, 0));
    merino_task_wait_for_all(self);
    return NULL;
}

/* Two children and a wait, but a count of 2 (it must be 3): the first child, run at once by the
 * wait, finds the second still queued here, private; the count would say the wait is over while
 * the second has not run (and it would run later against a freed parent). */
static long one_too_low_sum;
static merino_task *add_one(merino_task *self) {
    (void)self;
    __atomic_fetch_add(&one_too_low_sum, 1, __ATOMIC_RELAXED); /* relaxed: read after the root */
    return NULL;
}
static merino_task *count_one_too_low(merino_task *self) {
    merino_task *c1 = merino_task_alloc_child(self, add_one, 0);
    merino_task *c2 = merino_task_alloc_child(self, add_one, 0);
    merino_task_set_ref_count(self, 2); /* two children, and no one for the wait */
    merino_task_spawn(c2);
    merino_task_spawn_and_wait_for_all(self, c1);
    return NULL;
}

/* A child spawned, then freed (the parent would wait for it for ever, or run a freed block). */
static merino_task *free_spawned(merino_task *self) {
    merino_task *c = merino_task_alloc_child(self, leaf, 0);
    merino_task_set_ref_count(self, 2);
    merino_task_spawn(c);
    merino_task_free(c);
    merino_task_wait_for_all(self);
    return NULL;
}

/* A task freed twice. */
static merino_task *free_twice(merino_task *self) {
    merino_task *c = merino_task_alloc_child(self, leaf, 0);
    merino_task_free(c);
    merino_task_free(c);
    return NULL;
}

/* A negative count, then a wait (it would never see 1). */
static merino_task *negative_count(merino_task *self) {
    merino_task_set_ref_count(self, -1);
    merino_task_spawn(merino_task_alloc_child(self, leaf, 0));
    merino_task_wait_for_all(self);
    return NULL;
}

/* A root run twice, and a root run after it was freed: its block is back on this worker's free
 * list (it would run as whatever task reuses it). */
static merino_task *root_twice(merino_task *self) {
    (void)self;
    merino_task *r = merino_task_alloc_root(leaf, 0);
    CHECK_EQ_INT(merino_task_spawn_root_and_wait(r), MERINO_COMPLETE);
    merino_task_spawn_root_and_wait(r);
    return NULL;
}
static merino_task *root_freed(merino_task *self) {
    (void)self;
    merino_task *r = merino_task_alloc_root(leaf, 0);
    merino_task_free(r);
    merino_task_spawn_root_and_wait(r);
    return NULL;
}
/* A root freed, its block reused by a child of this task (the free list gives back the block freed
 * last), then run as the root: it would run the child, with the child's parent replaced. */
static merino_task *root_reused(merino_task *self) {
    merino_task *r = merino_task_alloc_root(leaf, 0);
    merino_task_free(r);
    merino_task *c = merino_task_alloc_child(self, leaf, 0);
    CHECK_MSG(c == r, "the freed root's block was not reused by the next task of its size");
    merino_task_spawn_root_and_wait(r);
    return NULL;
}

static merino_task *spawn_root(merino_task *self) {
    (void)self;
    merino_task_spawn(merino_task_alloc_root(leaf, 0)); /* a root: nothing would wait for it */
    return NULL;
}

static int run_child(const char *name) {
    if (strcmp(name, "spawn_root") == 0) {
        merino_task_spawn_root_and_wait(merino_task_alloc_root(spawn_root, 0));
        return 0;
    }
    if (strcmp(name, "count_too_low") == 0) {
        merino_task_spawn_root_and_wait(merino_task_alloc_root(count_too_low, 0));
        return 0;
    }
    if (strcmp(name, "count_one_too_low") == 0) {
        for (int i = 0; i < 1000; i++) {
            one_too_low_sum = 0;
            merino_task_spawn_root_and_wait(merino_task_alloc_root(count_one_too_low, 0));
        }
        return 0; /* not reported: the test fails */
    }
    static const struct {
        const char *name;
        merino_task_fn *fn;
    } misuse[] = {{"free_spawned", free_spawned}, {"free_twice", free_twice}, {"negative_count", negative_count},
                  {"root_twice", root_twice},     {"root_freed", root_freed},
                  {"root_reused", root_reused}};
    for (size_t i = 0; i < sizeof misuse / sizeof misuse[0]; i++)
        if (strcmp(name, misuse[i].name) == 0) {
            merino_task_spawn_root_and_wait(merino_task_alloc_root(misuse[i].fn, 0));
            return 0; /* not reported: the test fails */
        }
    if (strcmp(name, "spawn_outside") == 0) {
        /* Not a worker: the inline paths (merino__gcur's state for no task object) fall back to the
         * library, which allocates from malloc and reports the spawn. */
        merino_task *parent = merino_task_alloc_root(leaf, 0);
        merino_task_set_ref_count(parent, 1);
        merino_task_spawn(merino_task_alloc_child(parent, leaf, 0));
        return 0;
    }
    if (strcmp(name, "spawn_self") == 0) {
        merino_task_spawn_root_and_wait(merino_task_alloc_root(spawn_self, 0));
        return 0;
    }
    return 2;
}

/* ---- the count of flagged groups: a check skips the walk of groups only while none is flagged ---- */

static int flag_ran;
static void flag_bump(void *arg) {
    (void)arg;
    __atomic_fetch_add(&flag_ran, 1, __ATOMIC_RELAXED); /* relaxed: read after the waits */
}

/* Two groups cancelled (one twice), one reset by its wait: the other must still cancel its tasks
 * (an uncount too many would let them run); then the reset one runs its tasks again. */
static void flagged_groups(void) {
    merino_task_group a, b;
    merino_task_group_init(&a);
    merino_task_group_init(&b);
    flag_ran = 0;
    merino_task_group_cancel(&a);
    merino_task_group_cancel(&a);
    merino_task_group_cancel(&b);
    merino_task_group_run(&a, flag_bump, NULL);
    CHECK_EQ_INT(merino_task_group_wait(&a), MERINO_CANCELED);
    merino_task_group_run(&b, flag_bump, NULL);
    CHECK_EQ_INT(merino_task_group_wait(&b), MERINO_CANCELED);
    CHECK_EQ_INT(flag_ran, 0);
    merino_task_group_run(&a, flag_bump, NULL);
    merino_task_group_run(&b, flag_bump, NULL);
    CHECK_EQ_INT(merino_task_group_wait(&a), MERINO_COMPLETE);
    CHECK_EQ_INT(merino_task_group_wait(&b), MERINO_COMPLETE);
    CHECK_EQ_INT(flag_ran, 2);
}

/* ---- destroy functions: called once for each task that has one when it is freed, never for a
 * block reused by a task without one (the free's fast path tests a bit of the class for it) ---- */

static long destroyed;
static void count_destroy(merino_task *t) {
    (void)t;
    __atomic_fetch_add(&destroyed, 1, __ATOMIC_RELAXED); /* relaxed: read after the root's wait */
}

typedef struct destroy_args {
    long n;
    int with; /* 1: children i % 3 == 0 keep a destroy function, i % 3 == 1 have theirs cleared */
} destroy_args;

static merino_task *destroy_parent(merino_task *self) {
    destroy_args a = *(destroy_args *)merino_task_data(self);
    merino_task_set_ref_count(self, (int)a.n + 1);
    for (long i = 0; i < a.n; i++) {
        merino_task *c = merino_task_alloc_child(self, leaf, 0);
        if (a.with && i % 3 != 2) merino_task_set_destroy(c, count_destroy);
        if (a.with && i % 3 == 1) merino_task_set_destroy(c, NULL);
        merino_task_spawn(c);
    }
    merino_task_wait_for_all(self);
    return NULL;
}

static long destroy_run(long n, int with) {
    destroyed = 0;
    merino_task *root = merino_task_alloc_root(destroy_parent, sizeof(destroy_args));
    *(destroy_args *)merino_task_data(root) = (destroy_args){n, with};
    CHECK_EQ_INT(merino_task_spawn_root_and_wait(root), MERINO_COMPLETE);
    return __atomic_load_n(&destroyed, __ATOMIC_RELAXED); /* relaxed: the wait ordered the frees */
}

static void destroy_functions(void) {
    CHECK_EQ_INT(destroy_run(300, 1), 100); /* i % 3 == 0 of 0..299 */
    CHECK_EQ_INT(destroy_run(300, 0), 0);   /* the same blocks again, no destroy function */
    merino_task *t = merino_task_alloc_root(leaf, 0);
    merino_task_set_destroy(t, count_destroy);
    destroyed = 0;
    merino_task_free(t); /* never spawned: freed with its destroy function called */
    CHECK_EQ_INT(destroyed, 1);
}

int main(int argc, char **argv) {
    const char *child = check_child_name(argc, argv);
    if (child) return run_child(child);

    fib_expected[0] = 0;
    fib_expected[1] = 1;
    for (int i = 2; i < 40; i++) fib_expected[i] = fib_expected[i - 1] + fib_expected[i - 2];
    int top_n = check_scale() < 1 ? 21 : 25;
    merino_task_fn *variants[] = {fibt_plain, fibt_c, fibt_cb, fibt_cbr};
    const char *names[] = {"plain", "+C", "+CB", "+CBR"};
    uint64_t tree_expected[4];
    for (int s = 0; s < 4; s++) tree_expected[s] = tree_serial(mix((uint64_t)s + 7), 0);

    static const unsigned counts[] = {1, 2, 3, 4, 8};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        merino_config cfg = {0};
        cfg.workers = counts[c];
        CHECK_EQ_INT(merino_start(&cfg), 0);
        for (int v = 0; v < 4; v++) {
            static const long cutoffs[] = {2, 12};
            for (int k = 0; k < 2; k++) {
                fibt_cutoff = cutoffs[k];
                check_set_context("workers=%u variant=%s cutoff=%ld", counts[c], names[v], fibt_cutoff);
                for (int n = 0; n <= top_n; n += (n < 10 ? 1 : 5))
                    CHECK_EQ_INT(fibt_run(variants[v], n), fib_expected[n]);
            }
        }
        fibt_cutoff = 2;
        check_set_context("workers=%u trees", counts[c]);
        for (int s = 0; s < 4; s++) CHECK_EQ_UINT(tree_run(mix((uint64_t)s + 7)), tree_expected[s]);
        check_set_context("workers=%u roots from a direct-stack task and a task object", counts[c]);
        CHECK_EQ_INT(MERINO_RUN(fib_in_stack_task, 22), fib_expected[22]);
        nested_out = 0;
        CHECK_EQ_INT(merino_task_spawn_root_and_wait(merino_task_alloc_root(nested_root, 0)), MERINO_COMPLETE);
        CHECK_EQ_INT(nested_out, fib_expected[20] + fib_expected[18]);
        check_set_context("workers=%u flagged groups", counts[c]);
        flagged_groups();
        check_set_context("workers=%u destroy functions", counts[c]);
        destroy_functions();
        CHECK_EQ_INT(merino_stop(), 0);
        printf("task objects correct at %u workers\n", counts[c]);
    }

    check_set_context(NULL);
    const char *const env[] = {"MERINO_WORKERS=2", NULL};
    check_child res = check_run_child("spawn_self", env, 20);
    CHECK_MSG(res.signaled || (res.exited && res.code != 0), "the spawn of a running task was not reported");
    CHECK_STR_CONTAINS(res.err, "merino_task_spawn of a task that is running");
    free(res.err);
    res = check_run_child("spawn_root", env, 20);
    CHECK_MSG(res.signaled || (res.exited && res.code != 0), "the spawn of a root was not reported");
    CHECK_STR_CONTAINS(res.err, "merino_task_spawn of a task with no parent");
    free(res.err);
    res = check_run_child("spawn_outside", env, 20);
    CHECK_MSG(res.signaled || (res.exited && res.code != 0), "a spawn outside any task was not reported");
    CHECK_STR_CONTAINS(res.err, "merino_task_spawn called on a thread that is not running a task");
    free(res.err);
    const char *const one[] = {"MERINO_WORKERS=1", NULL};
    res = check_run_child("count_too_low", one, 20);
    CHECK_MSG(res.signaled || (res.exited && res.code != 0), "the count reaching zero was not reported");
    CHECK_STR_CONTAINS(res.err, "reference count reached zero while the task was still running");
    free(res.err);
    /* A count one too low, the last child still queued: reported, at one worker and at two. */
    const char *const *const counts_env[] = {one, env};
    for (int k = 0; k < 2; k++) {
        res = check_run_child("count_one_too_low", counts_env[k], 60);
        CHECK_MSG(res.signaled || (res.exited && res.code != 0), "a count one too low was not reported (%s)",
                  counts_env[k][0]);
        CHECK_STR_CONTAINS(res.err, "before all its children finished");
        free(res.err);
    }
    static const struct {
        const char *name, *message;
    } misuse[] = {{"free_spawned", "merino_task_free of a task that was spawned"},
                  {"free_twice", "merino_task_free of a task that was spawned (queued, running or finished) or freed already"},
                  /* the wait sees -1, or (at 2 workers) a thief's child finds the count below zero */
                  {"negative_count", "reference count"},
                  {"root_twice", "merino_task_spawn_root_and_wait of a task that is not a root ready to run"},
                  {"root_freed", "merino_task_spawn_root_and_wait of a task that is not a root ready to run"},
                  {"root_reused", "merino_task_spawn_root_and_wait of a task that is not a root ready to run"}};
    for (size_t i = 0; i < sizeof misuse / sizeof misuse[0]; i++)
        for (int k = 0; k < 2; k++) {
            check_set_context("%s, %s", misuse[i].name, counts_env[k][0]);
            res = check_run_child(misuse[i].name, counts_env[k], 60);
            CHECK_MSG(!res.timed_out && (res.signaled || (res.exited && res.code != 0)), "%s was not reported (%s)",
                      misuse[i].name, counts_env[k][0]);
            CHECK_STR_CONTAINS(res.err, misuse[i].message);
            free(res.err);
        }
    return 0;
}
