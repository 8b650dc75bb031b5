/* MERINO_RUN from several threads that are not workers at once; and MERINO_RUN on a worker — from a
 * task body and from a plain C function a task calls — which must be a plain call on that worker
 * (same thread, same worker index), spawning on top of the caller's unjoined spawns. */
#define _GNU_SOURCE 1
#include "check.h"

#include <pthread.h>

#include <merino.h>

#include "fib.h"

/* ---- several external threads at once ----------------------------------------------------------- */

typedef struct submitter {
    pthread_t thread;
    int id, rounds, max_n;
    int errors;
    int64_t last_bad_n, last_bad_got;
} submitter;

static void *submit_loop(void *arg) {
    submitter *s = (submitter *)arg;
    for (int r = 0; r < s->rounds; r++) {
        int n = 5 + (r * 7 + s->id * 3) % (s->max_n - 4);
        if (merino_worker_index() != -1) s->errors++;
        int64_t got = MERINO_RUN(fib, n);
        if (got != serial_fib(n)) {
            s->errors++;
            s->last_bad_n = n;
            s->last_bad_got = got;
        }
    }
    return NULL;
}

/* ---- MERINO_RUN on a worker ----------------------------------------------------------------------- */

static __thread uint64_t tls_marker; /* set by a caller, read by what it runs: the same thread? */

typedef struct nested_result {
    int64_t value;
    int worker; /* merino_worker_index() in the nested task */
    uint64_t marker;
} nested_result;

MERINO_TASK_1(nested_result, inner, int, n) {
    nested_result r;
    /* Read the marker first: while fib waits at a join, this thread may run other tasks that set it. */
    r.marker = tls_marker;
    r.worker = merino_worker_index();
    r.value = MERINO_CALL(fib, n);
    return r;
}

/* A task body that runs another task with MERINO_RUN, while it holds an unjoined spawn. */
MERINO_TASK_2(int64_t, outer_in_body, int, n, uint64_t, marker) {
    int me = merino_worker_index();
    CHECK(me >= 0 && (unsigned)me < merino_workers());
    MERINO_SPAWN(fib, n);
    tls_marker = marker;
    nested_result r = MERINO_RUN(inner, n + 1);
    CHECK_EQ_INT(r.worker, me);       /* a call: same worker ... */
    CHECK_EQ_UINT(r.marker, marker);  /* ... and same thread */
    CHECK_EQ_INT(r.value, serial_fib(n + 1));
    int64_t a = MERINO_JOIN(fib);     /* the spawn below the nested run survived it */
    CHECK_EQ_INT(a, serial_fib(n));
    return a + r.value;
}

/* A plain C function, called from a task. */
static int64_t plain_helper(int n, uint64_t marker) {
    int me = merino_worker_index();
    CHECK(me >= 0); /* called from a task: on a worker */
    tls_marker = marker;
    nested_result r = MERINO_RUN(inner, n);
    CHECK_EQ_INT(r.worker, me);
    CHECK_EQ_UINT(r.marker, marker);
    CHECK_EQ_INT(r.value, serial_fib(n));
    return r.value;
}

/* Spawns two tasks, calls the helper (which runs a spawning task) between them, joins both. */
MERINO_TASK_2(int64_t, outer_via_helper, int, n, uint64_t, marker) {
    MERINO_SPAWN(fib, n);
    MERINO_SPAWN(outer_in_body, n - 1, marker + 1);
    int64_t h = plain_helper(n + 2, marker);
    int64_t b = MERINO_JOIN(outer_in_body);
    int64_t a = MERINO_JOIN(fib);
    CHECK_EQ_INT(a, serial_fib(n));
    CHECK_EQ_INT(b, serial_fib(n - 1) + serial_fib(n));
    return a + b + h;
}

/* Many of the above in a tree, so that some run in stolen tasks. */
MERINO_TASK_2(int64_t, nest_tree, int, depth, uint64_t, marker) {
    if (depth == 0) return MERINO_CALL(outer_via_helper, 12, marker);
    MERINO_SPAWN(nest_tree, depth - 1, marker * 3 + 1);
    int64_t a = MERINO_CALL(nest_tree, depth - 1, marker * 3 + 2);
    int64_t b = MERINO_JOIN(nest_tree);
    return a + b;
}

static int64_t expect_outer_via_helper(int n) {
    return serial_fib(n) + (serial_fib(n - 1) + serial_fib(n)) + serial_fib(n + 2);
}

int main(void) {
    double scale = check_scale();
    int rounds = (int)(60 * scale) < 8 ? 8 : (int)(60 * scale);
    int max_n = scale >= 1 ? 22 : 18;

    static const unsigned counts[] = {1, 2, 4};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        merino_config cfg = {0};
        cfg.workers = counts[c];
        check_set_context("workers=%u", counts[c]);
        CHECK_EQ_INT(merino_start(&cfg), 0);
        CHECK_EQ_INT(merino_worker_index(), -1);

        /* Four external threads and the main thread, all submitting at once. */
        submitter subs[4];
        memset(subs, 0, sizeof subs);
        for (int i = 0; i < 4; i++) {
            subs[i].id = i;
            subs[i].rounds = rounds;
            subs[i].max_n = max_n;
            CHECK_EQ_INT(pthread_create(&subs[i].thread, NULL, submit_loop, &subs[i]), 0);
        }
        submitter self = {0};
        self.id = 4;
        self.rounds = rounds;
        self.max_n = max_n;
        submit_loop(&self);
        for (int i = 0; i < 4; i++) CHECK_EQ_INT(pthread_join(subs[i].thread, NULL), 0);
        for (int i = 0; i < 4; i++)
            CHECK_MSG(subs[i].errors == 0, "thread %d: %d wrong results (fib(%lld) gave %lld)", i,
                      subs[i].errors, (long long)subs[i].last_bad_n, (long long)subs[i].last_bad_got);
        CHECK_MSG(self.errors == 0, "main thread: %d wrong results", self.errors);

        /* Nested MERINO_RUN from a body and from a helper, at the root and deep in a tree. */
        for (int r = 0; r < 10; r++) {
            CHECK_EQ_INT(MERINO_RUN(outer_in_body, 10 + r, 1000 + (uint64_t)r), serial_fib(10 + r) + serial_fib(11 + r));
            CHECK_EQ_INT(MERINO_RUN(outer_via_helper, 8 + r, 2000 + (uint64_t)r), expect_outer_via_helper(8 + r));
        }
        int depth = scale >= 1 ? 6 : 4;
        CHECK_EQ_INT(MERINO_RUN(nest_tree, depth, 7), (int64_t)(1 << depth) * expect_outer_via_helper(12));

        /* The external submitters again, while the main thread runs nested trees. */
        for (int i = 0; i < 4; i++) {
            subs[i].errors = 0;
            CHECK_EQ_INT(pthread_create(&subs[i].thread, NULL, submit_loop, &subs[i]), 0);
        }
        for (int r = 0; r < 3; r++)
            CHECK_EQ_INT(MERINO_RUN(nest_tree, depth - 1, 11 + (uint64_t)r),
                         (int64_t)(1 << (depth - 1)) * expect_outer_via_helper(12));
        for (int i = 0; i < 4; i++) CHECK_EQ_INT(pthread_join(subs[i].thread, NULL), 0);
        for (int i = 0; i < 4; i++) CHECK_MSG(subs[i].errors == 0, "thread %d: %d wrong results", i, subs[i].errors);

        CHECK_EQ_INT(merino_stop(), 0);
        printf("workers=%u: external and nested MERINO_RUN correct\n", counts[c]);
    }
    return 0;
}
