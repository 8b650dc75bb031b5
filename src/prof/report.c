/* report.c — what the profiler tells: merino_prof_get, and the report MERINO_REPORT asks for at exit
 * (or merino_prof_write now): "1" a readable report on stderr, "csv:FILE" Cilkscale's CSV columns
 * with the processors the program got (P_A) and the model's T_P beside the measured one. */
#include "prof/prof.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the figures --------------------------------------------------------------------------------- */

int merino_prof_get(merino_prof_report *out) {
    merino_prof_report r;
    memset(&r, 0, sizeof r);
    mrn_prof_collect(&r, -1);
    *out = r;
    return 0;
}

int merino_prof_get_worker(unsigned index, merino_prof_report *out) {
    merino_prof_report r;
    memset(&r, 0, sizeof r);
    pthread_mutex_lock(&mrn_prof.lock);
    unsigned seen = mrn_prof.seen;
    pthread_mutex_unlock(&mrn_prof.lock);
    if (index >= seen) {
        mrn_error("merino_prof_get_worker(%u): no pool has had a worker %u (the workers seen are "
                  "0..%d): ask for an index below merino_prof_report.workers",
                  index, index, (int)seen - 1);
        *out = r;
        return -1;
    }
    mrn_prof_collect(&r, (int)index);
    *out = r;
    return 0;
}

/* ---- MERINO_REPORT -------------------------------------------------------------------------------- */

/* "" and "0": no report; "1": readable on stderr; "csv:FILE" with a non-empty FILE. */
static int mrn_prof_check_spec(const char *spec) {
    if (!*spec || !strcmp(spec, "0") || !strcmp(spec, "1")) return 0;
    if (!strncmp(spec, "csv:", 4) && spec[4]) return 0;
    mrn_error("MERINO_REPORT='%s' is not understood: use MERINO_REPORT=1 for a readable report on "
              "stderr at exit, MERINO_REPORT=csv:FILE for a CSV file (Cilkscale's columns), or unset it",
              spec);
    return -1;
}

static const char *const mrn_time_names[MERINO_PROF_TIMES] = {
    "start-up/teardown (TR)", "application (NA)", "application, leapfrog (LA)",
    "stealing (ST)",          "leapfrogging (LF)", "idle"};

static double mrn_ratio(double a, double b) { return b > 0 ? a / b : 0; }

static void mrn_print_counters(FILE *f, const char *who, const merino_prof_report *r) {
    fprintf(f, "  %-7s %12llu %12llu %9llu %11llu %9llu %8llu %8llu %7llu %7llu\n", who,
            (unsigned long long)r->spawns, (unsigned long long)r->inlined, (unsigned long long)r->steals,
            (unsigned long long)r->failed_steals, (unsigned long long)r->leapfrogs,
            (unsigned long long)r->publishes, (unsigned long long)r->privatizations,
            (unsigned long long)r->sleeps, (unsigned long long)r->wakes);
}

static void mrn_write_text(FILE *f) {
    merino_prof_report all;
    merino_prof_get(&all);
    fprintf(f, "merino profile: %u workers (P)\n", all.workers);
    fprintf(f, "  work T_1 %.6f s, span T_inf %.6f s, parallelism %.2f\n", all.total.work,
            all.total.span, all.parallelism);
    fprintf(f, "  burdened span %.6f s, burdened parallelism %.2f\n", all.total.burdened_span,
            all.burdened_parallelism);
    fprintf(f, "  T_P measured %.6f s on P_A %.2f processors (%.6f CPU s); model T_1/P_A + T_inf*P/P_A "
               "= %.6f s (measured/model %.2f)\n",
            all.elapsed, all.processors, all.cpu, all.predicted, mrn_ratio(all.elapsed, all.predicted));
    fprintf(f, "  %-7s %12s %12s %9s %11s %9s %8s %8s %7s %7s\n", "worker", "spawns", "inlined",
            "steals", "failed", "leapfrogs", "publish", "private", "sleeps", "wakes");
    for (unsigned i = 0; i < all.workers; i++) {
        merino_prof_report w;
        if (merino_prof_get_worker(i, &w) != 0) break;
        char who[16];
        snprintf(who, sizeof who, "%u", i);
        mrn_print_counters(f, who, &w);
    }
    mrn_print_counters(f, "all", &all);
    fprintf(f, "  time by state (s, wall clock per worker; Wool's breakdown):\n  %-7s", "worker");
    for (unsigned k = 0; k < MERINO_PROF_TIMES; k++) fprintf(f, " %s", mrn_time_names[k]);
    fprintf(f, "\n");
    for (unsigned i = 0; i <= all.workers; i++) {
        merino_prof_report w = all;
        char who[16] = "all";
        if (i < all.workers) {
            if (merino_prof_get_worker(i, &w) != 0) continue;
            snprintf(who, sizeof who, "%u", i);
        }
        fprintf(f, "  %-7s", who);
        for (unsigned k = 0; k < MERINO_PROF_TIMES; k++)
            fprintf(f, " %*.6f", (int)strlen(mrn_time_names[k]), w.time[k]);
        fprintf(f, "\n");
    }
    pthread_mutex_lock(&mrn_prof.lock);
    if (mrn_prof.nrows) fprintf(f, "  regions: %-20s %12s %12s %11s\n", "tag", "work (s)", "span (s)", "parallelism");
    for (size_t i = 0; i < mrn_prof.nrows; i++) {
        const mrn_prof_row *r = &mrn_prof.rows[i];
        fprintf(f, "           %-20s %12.6f %12.6f %11.2f\n", r->tag, r->wsp.work, r->wsp.span,
                mrn_ratio(r->wsp.work, r->wsp.span));
    }
    pthread_mutex_unlock(&mrn_prof.lock);
}

/* A CSV field: quoted when it holds a comma, a quote or a line break. */
static void mrn_csv_field(FILE *f, const char *s) {
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void mrn_csv_row(FILE *f, const char *tag, merino_wsp w) {
    mrn_csv_field(f, tag);
    fprintf(f, ",%g,%g,%g,%g,%g", w.work, w.span, mrn_ratio(w.work, w.span), w.burdened_span,
            mrn_ratio(w.work, w.burdened_span));
}

static void mrn_write_csv(FILE *f) {
    merino_prof_report all;
    merino_prof_get(&all);
    /* Cilkscale's six columns, then ours (empty on region rows). */
    fprintf(f, "tag,work (seconds),span (seconds),parallelism,burdened_span (seconds),"
               "burdened_parallelism,workers (P),processors (P_A),measured T_P (seconds),"
               "predicted T_P (seconds)\n");
    pthread_mutex_lock(&mrn_prof.lock);
    for (size_t i = 0; i < mrn_prof.nrows; i++) {
        mrn_csv_row(f, mrn_prof.rows[i].tag, mrn_prof.rows[i].wsp);
        fprintf(f, ",,,,\n");
    }
    pthread_mutex_unlock(&mrn_prof.lock);
    mrn_csv_row(f, "", all.total);
    fprintf(f, ",%u,%g,%g,%g\n", all.workers, all.processors, all.elapsed, all.predicted);
}

int merino_prof_write(const char *spec) {
    if (!spec) spec = "1";
    if (mrn_prof_check_spec(spec) != 0) return -1;
    if (!*spec || !strcmp(spec, "0")) return 0;
    if (!strcmp(spec, "1")) {
        mrn_write_text(stderr);
        return 0;
    }
    const char *path = spec + 4;
    FILE *f = fopen(path, "w");
    if (!f) {
        mrn_error("MERINO_REPORT=csv:%s: cannot write the file (%s): give a path in a directory "
                  "that exists and is writable",
                  path, strerror(errno));
        return -1;
    }
    mrn_write_csv(f);
    if (fclose(f) != 0) {
        mrn_error("MERINO_REPORT=csv:%s: writing the file failed (%s)", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* At exit (registered after the core's stop at exit, so it runs first): stop a pool still running
 * — its figures are folded then — unless exit was called from a task; then report. */
static void mrn_prof_at_exit(void) {
    pthread_mutex_lock(&mrn_prof.lock);
    char *spec = mrn_prof.report;
    mrn_prof.report = NULL;
    pthread_mutex_unlock(&mrn_prof.lock);
    if (!spec) return;
    if (!merino__self && merino_workers() > 0) {
        bool quiet = mrn_error_quiet(true);
        (void)merino_stop();
        mrn_error_quiet(quiet);
    }
    (void)merino_prof_write(spec);
    free(spec);
}

/* ---- at pool start: the settings ------------------------------------------------------------------ */

int mrn_prof_start(void) {
    const char *spec = getenv("MERINO_REPORT");
    if (spec && mrn_prof_check_spec(spec) != 0) return -1;
    pthread_mutex_lock(&mrn_prof.lock);
    free(mrn_prof.report);
    mrn_prof.report = spec && *spec && strcmp(spec, "0") != 0 ? strdup(spec) : NULL;
    bool first = !mrn_prof.atexit_done;
    mrn_prof.atexit_done = true;
    pthread_mutex_unlock(&mrn_prof.lock);
    /* After the core's stop at exit was registered (pool.c, before this): runs before it. */
    if (first) {
        atexit(mrn_prof_at_exit);
        pthread_atfork(NULL, NULL, mrn_prof_after_fork_in_child);
    }
    return 0;
}
