/* idle, merino: ./idle-merino --workers N period_us region_us seconds (idle.h). A region is a
 * MERINO_RUN of a task that spawns N - 1 tasks, calls one and joins them. */
#include <merino.h>

#include "idle.h"

MERINO_VOID_TASK_0(leaf) { idle_task(); }

MERINO_VOID_TASK_1(region_task, int, n) {
    for (int i = 0; i < n - 1; i++) MERINO_SPAWN(leaf);
    MERINO_CALL(leaf);
    for (int i = 0; i < n - 1; i++) MERINO_JOIN(leaf);
}

static void start(int workers) {
    merino_config cfg = {0};
    cfg.workers = (unsigned)workers;
    if (merino_start(&cfg) != 0) exit(2);
}

static void region(int n) { MERINO_RUN(region_task, n); }

int main(int argc, char **argv) { return idle_main(argc, argv, start, region); }
