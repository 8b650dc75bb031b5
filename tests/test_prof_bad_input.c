/* test_prof_bad_input.c — a malformed MERINO_REPORT is refused at start with a message that names
 * the variable and the forms it takes; merino_prof_write refuses the same specs, and a CSV file it
 * cannot write, with a message naming the file. */
#include "check.h"

#include <merino.h>
#include <merino_prof.h>

int main(int argc, char **argv) {
    const char *child = check_child_name(argc, argv);
    if (child) { /* MERINO_REPORT is malformed: merino_start fails and says why */
        merino_config cfg = {0};
        cfg.quiet = 1;
        if (merino_start(&cfg) == 0) return 3;
        fprintf(stderr, "error: %s\n", merino_last_error());
        return 0;
    }
    const char *bad[] = {"yes", "csv", "csv:", "CSV:out.csv", "2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char env[64];
        snprintf(env, sizeof env, "MERINO_REPORT=%s", bad[i]);
        const char *e[] = {env, NULL};
        check_child c = check_run_child("start", e, 60);
        CHECK_CHILD(c, c.exited && c.code == 0);
        CHECK_STR_CONTAINS(c.err, "MERINO_REPORT");
        CHECK_STR_CONTAINS(c.err, bad[i]);
        CHECK_STR_CONTAINS(c.err, "MERINO_REPORT=csv:FILE");
        check_child_free(&c);

        CHECK_EQ_INT(merino_prof_write(bad[i]), -1);
        CHECK_STR_CONTAINS(merino_last_error(), "MERINO_REPORT");
    }
    /* Accepted: unset, empty, 0 (no report), 1, csv:FILE. */
    const char *good[] = {"MERINO_REPORT=", "MERINO_REPORT=0"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        const char *e[] = {good[i], NULL};
        check_child c = check_run_child("start", e, 60);
        CHECK_CHILD(c, c.exited && c.code == 3); /* merino_start succeeded */
        check_child_free(&c);
    }
    CHECK_EQ_INT(merino_prof_write("0"), 0);
    CHECK_EQ_INT(merino_prof_write("csv:/nonexistent-merino-dir/report.csv"), -1);
    CHECK_STR_CONTAINS(merino_last_error(), "/nonexistent-merino-dir/report.csv");
    CHECK_STR_CONTAINS(merino_last_error(), "cannot write");
    printf("test_prof_bad_input: ok\n");
    return 0;
}
