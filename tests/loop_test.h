/* loop_test.h — what the loop tests share (include after check.h): options from a schedule's text. */
#ifndef MERINO_TEST_LOOP_TEST_H
#define MERINO_TEST_LOOP_TEST_H

#include <merino_loop.h>

/* The options of schedule `text` ("dynamic,7"), with the deterministic flag; the test fails when
 * merino_schedule_parse refuses the text. */
CHECK__UNUSED merino_for_opts opts_of(const char *text, int deterministic) {
    merino_for_opts o = {0};
    CHECK_MSG(merino_schedule_parse(text, &o) == 0, "%s: %s", text, merino_last_error());
    o.deterministic = deterministic;
    return o;
}

#endif
