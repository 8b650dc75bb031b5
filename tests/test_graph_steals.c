/* test_graph_steals.c — a task object taken from another worker's deque counts as a steal in
 * merino_stats (issue 27, item 11: a task-object program that ran 1.9x faster at 2 workers reported
 * 0 steals). Made deterministic: at 2 workers a task runs a group task B and then blocks until B
 * has started, which only the other worker can make happen, by stealing B; meanwhile it keeps
 * queuing empty tasks of a second group, whose pushes publish B when the thief asks. Without a steal
 * within the time limit the test fails with a message (and B then runs here). At one worker, no
 * steal is counted. */
#include "check.h"

#include <merino.h>
#include <merino_graph.h>

static int b_started; /* atomic */
static int b_worker;

static void task_b(void *arg) {
    (void)arg;
    b_worker = merino_worker_index();
    __atomic_store_n(&b_started, 1, __ATOMIC_RELEASE); /* release: b_worker */
}

static void nothing(void *arg) { (void)arg; }

/* Runs B in a group and blocks until it has started (or the time limit): whether B started. */
MERINO_TASK_1(int, block_until_b, double, limit_s) {
    merino_task_group g, fillers;
    merino_task_group_init(&g);
    merino_task_group_init(&fillers);
    merino_task_group_run(&g, task_b, NULL);
    double deadline = check_now() + limit_s;
    int started;
    /* acquire: b_worker */
    while (!(started = __atomic_load_n(&b_started, __ATOMIC_ACQUIRE)) && check_now() < deadline)
        merino_task_group_run(&fillers, nothing, NULL); /* each push publishes if a thief asked */
    merino_task_group_wait(&fillers);
    merino_task_group_wait(&g);
    return started;
}

int main(void) {
    merino_config cfg = {0};
    cfg.workers = 2;
    CHECK_EQ_INT(merino_start(&cfg), 0);
    merino_stats_reset();
    int started = MERINO_RUN(block_until_b, 10.0);
    merino_stats st;
    merino_stats_get(&st);
    CHECK_EQ_INT(merino_stop(), 0);
    if (!started) {
        fprintf(stderr, "test_graph_steals: the other worker never stole the group task in 10 s\n");
        return 1;
    }
    printf("test_graph_steals: B ran on worker %d; merino_stats.steals %llu\n", b_worker,
           (unsigned long long)st.steals);
    CHECK(b_worker != 0); /* the task that blocked runs on worker 0 (the caller slot) */
    CHECK(st.steals >= 1);

    /* One worker: everything runs where it was queued. */
    cfg.workers = 1;
    CHECK_EQ_INT(merino_start(&cfg), 0);
    merino_stats_reset();
    __atomic_store_n(&b_started, 0, __ATOMIC_RELAXED); /* relaxed: no task runs */
    CHECK(MERINO_RUN(block_until_b, 0.05) == 0);       /* B runs at the wait, after the limit */
    CHECK(__atomic_load_n(&b_started, __ATOMIC_ACQUIRE));
    merino_stats_get(&st);
    CHECK_EQ_UINT(st.steals, 0);
    CHECK_EQ_INT(merino_stop(), 0);
    printf("test_graph_steals: ok\n");
    return 0;
}
