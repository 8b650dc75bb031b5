/* Task groups and task-object roots used by several threads outside the pool at once (each run,
 * wait and root enters the pool: the caller slot, or a hand-over to a pool thread), at 1, 2 and 4
 * workers: every thread's sums are the serial ones. With one worker, threads wait for the caller
 * slot in turn. */
#define _GNU_SOURCE 1
#include "check.h"

#include <merino.h>
#include <merino_graph.h>
#include <pthread.h>

#include "../bench/workloads/taskobj/fib-taskobj.h"

#define THREADS 4
#define ITEMS 300

typedef struct item {
    long in, out;
} item;

typedef struct job {
    item items[ITEMS];
    long fib;
    int id;
} job;

static void square(void *p) {
    item *x = p;
    x->out = x->in * x->in;
}

static void *thread_main(void *arg) {
    job *j = arg;
    for (int round = 0; round < 5; round++) {
        merino_task_group g;
        merino_task_group_init(&g);
        for (int i = 0; i < ITEMS; i++) {
            j->items[i] = (item){j->id * 1000 + i + round, -1};
            merino_task_group_run(&g, square, &j->items[i]);
        }
        CHECK_EQ_INT(merino_task_group_wait(&g), MERINO_COMPLETE);
        for (int i = 0; i < ITEMS; i++) CHECK_EQ_INT(j->items[i].out, j->items[i].in * j->items[i].in);
        j->fib = fibt_run(round % 2 ? fibt_cbr : fibt_plain, 20 + j->id);
        CHECK_EQ_INT(j->fib, fibt_serial(20 + j->id));
    }
    return NULL;
}

int main(void) {
    static const unsigned counts[] = {1, 2, 4};
    fibt_cutoff = 8;
    for (size_t c = 0; c < 3; c++) {
        merino_config cfg = {0};
        cfg.workers = counts[c];
        check_set_context("workers=%u", counts[c]);
        CHECK_EQ_INT(merino_start(&cfg), 0);
        static job jobs[THREADS];
        pthread_t th[THREADS];
        for (int t = 0; t < THREADS; t++) {
            jobs[t].id = t;
            CHECK_EQ_INT(pthread_create(&th[t], NULL, thread_main, &jobs[t]), 0);
        }
        thread_main(&(job){.id = THREADS}); /* the main thread too */
        for (int t = 0; t < THREADS; t++) CHECK_EQ_INT(pthread_join(th[t], NULL), 0);
        CHECK_EQ_INT(merino_stop(), 0);
        printf("%d threads outside the pool correct at %u workers\n", THREADS + 1, counts[c]);
    }
    return 0;
}
