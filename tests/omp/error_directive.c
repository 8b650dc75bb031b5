/* error_directive.c — the error directive at execution (OpenMP 5.1; GOMP_warning and GOMP_error):
 * severity(warning) prints its message and the program goes on; severity(fatal) prints it and
 * ends the program (in a child process), also from inside a parallel region.
 */
#include "omp_test.h"

static int run_child(const char *name) {
    if (!strcmp(name, "fatal")) {
#pragma omp error at(execution) severity(fatal) message("suite fatal message")
        return 0; /* not reached */
    }
    if (!strcmp(name, "fatal_in_region")) {
#pragma omp parallel
        if (omp_get_thread_num() == omp_get_num_threads() - 1) {
#pragma omp error at(execution) severity(fatal) message("suite fatal in a region")
        }
        return 0;
    }
    if (!strcmp(name, "warning")) {
        int after = 0;
#pragma omp error at(execution) severity(warning) message("suite warning message")
        after = 1;
        fprintf(stderr, "after the warning: %d\n", after);
        return 0;
    }
    return 2;
}

int main(int argc, char **argv) {
    const char *child = check_child_name(argc, argv);
    if (child) return run_child(child);
    check_child c = check_run_child("warning", NULL, 60);
    CHECK_CHILD(c, c.exited && c.code == 0);
    CHECK_CHILD(c, strstr(c.err, "suite warning message") != NULL);
    CHECK_CHILD(c, strstr(c.err, "after the warning: 1") != NULL);
    check_child_free(&c);
    OT_SAY("error severity(warning): the message, then the program went on");
    c = check_run_child("fatal", NULL, 60);
    CHECK_CHILD(c, !c.timed_out && !(c.exited && c.code == 0));
    CHECK_CHILD(c, strstr(c.err, "suite fatal message") != NULL);
    check_child_free(&c);
    c = check_run_child("fatal_in_region", NULL, 60);
    CHECK_CHILD(c, !c.timed_out && !(c.exited && c.code == 0));
    CHECK_CHILD(c, strstr(c.err, "suite fatal in a region") != NULL);
    check_child_free(&c);
    OT_SAY("error severity(fatal): the message, and the program ended (also from a region)");
    return 0;
}
