/* test_prof_report.c — the profiler's reports (docs/profiler.md): merino_prof_write("csv:FILE")
 * and MERINO_REPORT=csv:FILE at exit write Cilkscale's columns (then P, P_A and the measured and
 * predicted T_P), one row per merino_wsp_dump region in order, then the whole program (empty tag);
 * MERINO_REPORT=1 prints the readable report on stderr at exit. */
#include "check.h"

#include <merino.h>
#include <merino_prof.h>

#include "fib.h"

static const char *const columns[] = {
    "tag", "work (seconds)", "span (seconds)", "parallelism", "burdened_span (seconds)",
    "burdened_parallelism", "workers (P)", "processors (P_A)", "measured T_P (seconds)",
    "predicted T_P (seconds)"};
#define NCOL (sizeof columns / sizeof columns[0])

/* Splits a CSV line (fields may be quoted, "" inside quotes) into at most n fields; returns the
 * count. The line is modified. */
static size_t split_csv(char *line, char **fields, size_t n) {
    size_t k = 0;
    char *r = line, *w = line;
    while (k < n) {
        fields[k++] = w;
        if (*r == '"') {
            r++;
            for (;;) {
                if (*r == '"' && r[1] == '"') {
                    *w++ = '"';
                    r += 2;
                } else if (*r == '"') {
                    r++;
                    break;
                } else {
                    CHECK_MSG(*r != 0, "unterminated quote");
                    *w++ = *r++;
                }
            }
        }
        while (*r && *r != ',' && *r != '\n') *w++ = *r++;
        int more = *r == ',';
        *w++ = 0;
        if (!more) break;
        r++;
    }
    return k;
}

static double number(const char *s) {
    char *end;
    double v = strtod(s, &end);
    CHECK_MSG(end != s && *end == 0, "not a number: '%s'", s);
    return v;
}

/* Checks a CSV report: the header, `nregions` region rows tagged tags[i], the program's row. */
static void check_csv(const char *path, const char *const *tags, size_t nregions) {
    FILE *f = fopen(path, "r");
    CHECK_MSG(f != NULL, "no report file %s", path);
    char line[4096];
    char *fields[NCOL + 2];
    CHECK(fgets(line, sizeof line, f) != NULL);
    CHECK_EQ_UINT(split_csv(line, fields, NCOL + 2), NCOL);
    for (size_t i = 0; i < NCOL; i++) CHECK_STR_EQ(fields[i], columns[i]);
    for (size_t r = 0; r <= nregions; r++) {
        CHECK_MSG(fgets(line, sizeof line, f) != NULL, "row %zu missing", r);
        CHECK_EQ_UINT(split_csv(line, fields, NCOL + 2), NCOL);
        double work = number(fields[1]), span = number(fields[2]), par = number(fields[3]);
        double bspan = number(fields[4]);
        CHECK_CMP_DBL(work, >=, span);
        CHECK_CMP_DBL(span, >, 0);
        CHECK_CMP_DBL(bspan, >=, span);
        CHECK_CMP_DBL(par, >=, 1);
        if (r < nregions) {
            CHECK_STR_EQ(fields[0], tags[r]);
            CHECK_STR_EQ(fields[6], ""); /* the model's columns are the whole program's */
        } else {
            CHECK_STR_EQ(fields[0], "");
            CHECK_CMP_DBL(number(fields[6]), >=, 1);
            CHECK_CMP_DBL(number(fields[7]), >, 0);
            CHECK_CMP_DBL(number(fields[8]), >, 0);
            CHECK_CMP_DBL(number(fields[9]), >, 0);
        }
    }
    CHECK(fgets(line, sizeof line, f) == NULL);
    fclose(f);
}

static const char *const tags[] = {"fib 18", "two, \"quoted\"", ""};

/* Three regions around runs of fib, dumped with the tags above. */
static void regions(void) {
    merino_wsp a = merino_wsp_now();
    CHECK(MERINO_RUN(fib, 18) == serial_fib(18));
    merino_wsp b = merino_wsp_now();
    merino_wsp_dump(merino_wsp_sub(b, a), tags[0]);
    CHECK(MERINO_RUN(fib, 17) == serial_fib(17));
    merino_wsp c = merino_wsp_now();
    merino_wsp_dump(merino_wsp_sub(c, b), tags[1]);
    merino_wsp_dump(merino_wsp_sub(c, a), NULL);
}

int main(int argc, char **argv) {
    const char *child = check_child_name(argc, argv);
    if (child) { /* MERINO_REPORT is set: the report is written at exit, with the pool running */
        regions();
        return 0;
    }
    char path[256], spec[300];
    snprintf(path, sizeof path, "/tmp/merino-test-prof-%d.csv", (int)getpid());
    snprintf(spec, sizeof spec, "csv:%s", path);

    /* Now, through the API. */
    regions();
    CHECK_EQ_INT(merino_prof_write(spec), 0);
    check_csv(path, tags, 3);
    remove(path);

    /* At exit, through MERINO_REPORT (the pool is still running then: the report stops it). */
    char env[300];
    snprintf(env, sizeof env, "MERINO_REPORT=csv:%s", path);
    const char *e1[] = {env, "MERINO_WORKERS=2", NULL};
    check_child c = check_run_child("regions", e1, 120);
    CHECK_CHILD(c, c.exited && c.code == 0);
    check_csv(path, tags, 3);
    remove(path);
    check_child_free(&c);

    /* The readable report on stderr. */
    const char *e2[] = {"MERINO_REPORT=1", "MERINO_WORKERS=2", NULL};
    c = check_run_child("regions", e2, 120);
    CHECK_CHILD(c, c.exited && c.code == 0);
    CHECK_STR_CONTAINS(c.err, "merino profile: 2 workers");
    CHECK_STR_CONTAINS(c.err, "parallelism");
    CHECK_STR_CONTAINS(c.err, "P_A");
    CHECK_STR_CONTAINS(c.err, "application (NA)");
    CHECK_STR_CONTAINS(c.err, "fib 18");
    check_child_free(&c);

    /* No report unless asked for. */
    const char *e3[] = {"-MERINO_REPORT", NULL};
    c = check_run_child("regions", e3, 120);
    CHECK_CHILD(c, c.exited && c.code == 0 && strstr(c.err, "merino profile") == NULL);
    check_child_free(&c);
    printf("test_prof_report: ok\n");
    return 0;
}
