/* config.c — the pool's settings from merino_config and the environment, and merino's error
 * reporting. Every rejected setting gives one line naming the setting, the accepted range and how
 * to fix it. */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char mrn_last_error_text[512];

const char *merino_last_error(void) { return mrn_last_error_text; }

static void mrn_verror(const char *fmt, va_list ap) {
    int n = snprintf(mrn_last_error_text, sizeof mrn_last_error_text, "merino: ");
    vsnprintf(mrn_last_error_text + n, sizeof mrn_last_error_text - (size_t)n, fmt, ap);
    fprintf(stderr, "%s\n", mrn_last_error_text);
    fflush(stderr);
}

void mrn_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    mrn_verror(fmt, ap);
    va_end(ap);
}

void mrn_fatal(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    mrn_verror(fmt, ap);
    va_end(ap);
    abort();
}

/* A whole decimal number in [lo, hi]; anything else (empty, signs, trailing text) is rejected. */
static bool mrn_parse_count(const char *text, unsigned long long lo, unsigned long long hi,
                            unsigned long long *out) {
    if (text[0] < '0' || text[0] > '9') return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || *end != '\0' || v < lo || v > hi) return false;
    *out = v;
    return true;
}

static unsigned mrn_affinity_cpus(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
    int n = CPU_COUNT(&set);
    if (n < 1) return 1;
    return n > MERINO_MAX_WORKERS ? MERINO_MAX_WORKERS : (unsigned)n;
}

int mrn_resolve_config(const merino_config *cfg, unsigned *workers, size_t *stack_tasks) {
    unsigned long long v;
    const char *env;

    if (cfg && cfg->workers) {
        if (cfg->workers > MERINO_MAX_WORKERS) {
            mrn_error("merino_config.workers = %u is out of range: use 1 to %d workers, or 0 for "
                      "the default",
                      cfg->workers, MERINO_MAX_WORKERS);
            return -1;
        }
        *workers = cfg->workers;
    } else if ((env = getenv("MERINO_WORKERS")) != NULL) {
        if (!mrn_parse_count(env, 1, MERINO_MAX_WORKERS, &v)) {
            mrn_error("MERINO_WORKERS='%.40s' is not a valid worker count: set it to a whole "
                      "number from 1 to %d, or unset it to use the %u CPUs this process may run on",
                      env, MERINO_MAX_WORKERS, mrn_affinity_cpus());
            return -1;
        }
        *workers = (unsigned)v;
    } else {
        *workers = mrn_affinity_cpus();
    }

    if (cfg && cfg->stack_tasks) {
        if (cfg->stack_tasks < MERINO_MIN_TASK_STACK || cfg->stack_tasks > MERINO_MAX_TASK_STACK) {
            mrn_error("merino_config.stack_tasks = %zu is out of range: use %zu to %zu task "
                      "descriptors per worker, or 0 for the default (%zu)",
                      cfg->stack_tasks, MERINO_MIN_TASK_STACK, MERINO_MAX_TASK_STACK,
                      MERINO_DEFAULT_TASK_STACK);
            return -1;
        }
        *stack_tasks = cfg->stack_tasks;
    } else if ((env = getenv("MERINO_TASK_STACK")) != NULL) {
        if (!mrn_parse_count(env, MERINO_MIN_TASK_STACK, MERINO_MAX_TASK_STACK, &v)) {
            mrn_error("MERINO_TASK_STACK='%.40s' is not a valid task stack size: set it to a whole "
                      "number of task descriptors per worker from %zu to %zu, or unset it for the "
                      "default (%zu)",
                      env, MERINO_MIN_TASK_STACK, MERINO_MAX_TASK_STACK, MERINO_DEFAULT_TASK_STACK);
            return -1;
        }
        *stack_tasks = (size_t)v;
    } else {
        *stack_tasks = MERINO_DEFAULT_TASK_STACK;
    }

    return 0;
}
