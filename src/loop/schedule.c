/* schedule.c — schedules as text: merino_schedule_parse, the MERINO_SCHEDULE environment variable
 * (read once, at the first loop that uses the default schedule) and the schedules' names. */
#include "loop/loop.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static const char *const mrn_schedule_names[] = {
    [MERINO_SCHEDULE_DEFAULT] = "default", [MERINO_SCHEDULE_AUTO] = "auto",
    [MERINO_SCHEDULE_STATIC] = "static",   [MERINO_SCHEDULE_DYNAMIC] = "dynamic",
    [MERINO_SCHEDULE_GUIDED] = "guided",   [MERINO_SCHEDULE_STEAL] = "steal",
    [MERINO_SCHEDULE_ADAPTIVE] = "adaptive", [MERINO_SCHEDULE_IDWS] = "idws",
    [MERINO_SCHEDULE_IDWS_POLL] = "idws-poll",
};
#define MRN_NSCHEDULES (sizeof mrn_schedule_names / sizeof mrn_schedule_names[0])

#define MRN_SCHEDULE_FORMS                                                                         \
    "auto, adaptive[,K], static[,K], dynamic[,K], guided[,K], steal[,K], idws[,K] or idws-poll[,K], " \
    "K a positive number of iterations per chunk"

const char *merino_schedule_name(merino_schedule s) {
    return (unsigned)s < MRN_NSCHEDULES ? mrn_schedule_names[s] : "unknown";
}

/* The schedule in text (the part before any comma) into *out; false when it is none of them. */
static bool mrn_schedule_word(const char *text, size_t len, merino_schedule *out) {
    for (unsigned s = MERINO_SCHEDULE_AUTO; s < MRN_NSCHEDULES; s++)
        if (strlen(mrn_schedule_names[s]) == len && strncmp(text, mrn_schedule_names[s], len) == 0) {
            *out = (merino_schedule)s;
            return true;
        }
    return false;
}

/* A chunk: decimal digits only, 1 .. INT64_MAX. */
static bool mrn_chunk_number(const char *text, int64_t *out) {
    if (text[0] < '0' || text[0] > '9') return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || *end != '\0' || v == 0 || v > (unsigned long long)INT64_MAX) return false;
    *out = (int64_t)v;
    return true;
}

/* Parses text for `what` (the variable's name, or "merino_schedule_parse"); reports a bad value. */
static int mrn_schedule_parse_as(const char *text, const char *what, merino_for_opts *out) {
    if (text == NULL) {
        mrn_error("%s: the schedule is NULL: give one of " MRN_SCHEDULE_FORMS, what);
        return -1;
    }
    const char *comma = strchr(text, ',');
    size_t len = comma ? (size_t)(comma - text) : strlen(text);
    merino_schedule s;
    int64_t chunk = 0;
    if (!mrn_schedule_word(text, len, &s)) {
        mrn_error("%s='%.40s' is not a schedule: use " MRN_SCHEDULE_FORMS, what, text);
        return -1;
    }
    if (comma && (s == MERINO_SCHEDULE_AUTO || !mrn_chunk_number(comma + 1, &chunk))) {
        mrn_error("%s='%.40s' has a bad chunk (%s): use " MRN_SCHEDULE_FORMS, what, text,
                  s == MERINO_SCHEDULE_AUTO ? "auto takes none" : "not a positive decimal number");
        return -1;
    }
    out->schedule = s;
    out->chunk = chunk;
    return 0;
}

int merino_schedule_parse(const char *text, merino_for_opts *out) {
    bool quiet = mrn_error_quiet(true);
    int rc = mrn_schedule_parse_as(text, "merino_schedule_parse", out);
    mrn_error_quiet(quiet);
    return rc;
}

/* ---- MERINO_SCHEDULE --------------------------------------------------------------------------- */

static merino_for_opts mrn_env_opts; /* written once under pthread_once, read after it */
static bool mrn_env_bad;
static char mrn_env_error[512]; /* the message, for whichever thread runs a loop */
static pthread_once_t mrn_env_once = PTHREAD_ONCE_INIT;

static void mrn_read_env(void) {
    const char *env = getenv("MERINO_SCHEDULE");
    mrn_env_opts.schedule = MERINO_SCHEDULE_AUTO;
    if (env == NULL || env[0] == '\0') return;
    bool quiet = mrn_error_quiet(true);
    mrn_env_bad = mrn_schedule_parse_as(env, "MERINO_SCHEDULE", &mrn_env_opts) != 0;
    mrn_error_quiet(quiet);
    if (mrn_env_bad) snprintf(mrn_env_error, sizeof mrn_env_error, "%s", merino_last_error());
}

void mrn_loop_env(merino_for_opts *out) {
    pthread_once(&mrn_env_once, mrn_read_env);
    if (MRN_UNLIKELY(mrn_env_bad))
        mrn_fatal("%s; or unset it for the default (auto)", mrn_env_error + strlen("merino: "));
    *out = mrn_env_opts;
}
