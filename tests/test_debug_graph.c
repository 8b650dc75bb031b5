/* Debug build (MERINO_DEBUG=1): the check the task objects' inline code adds to the release
 * build's, in a child process that must die with the message, never hang or return.
 *
 *   negative_count  merino_task_set_ref_count(self, -1) inside a task: "merino_task_set_ref_count(t,
 *                   -1): ... never negative", at the call (a release build reports it when the count
 *                   is used: a wait, or a child finishing; tests/test_graph_tasks.c) */
#define _GNU_SOURCE 1
#include "check.h"

#include <merino.h>
#include <merino_graph.h>

#if !MERINO__CHECKS
#error "test_debug_graph.c must be compiled with MERINO_DEBUG=1"
#endif

enum { SURVIVED = 45 };

static merino_task *negative_count(merino_task *self) {
    merino_task_set_ref_count(self, -1); /* the inline fast path: reported here, at once */
    _exit(SURVIVED);
}

static int run_child(const char *name) {
    if (strcmp(name, "negative_count") == 0) {
        merino_task_spawn_root_and_wait(merino_task_alloc_root(negative_count, 0));
        return SURVIVED;
    }
    return 2;
}

int main(int argc, char **argv) {
    const char *child = check_child_name(argc, argv);
    if (child) return run_child(child);
    const char *const env[] = {"MERINO_WORKERS=2", NULL};
    check_child res = check_run_child("negative_count", env, 60);
    CHECK_MSG(!res.timed_out && !(res.exited && res.code == SURVIVED) && (res.signaled || res.code != 0),
              "a negative count was not reported at the call");
    CHECK_STR_CONTAINS(res.err, "merino_task_set_ref_count(t, -1)");
    free(res.err);
    printf("a negative count is reported at the call in a debug build\n");
    return 0;
}
