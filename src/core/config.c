/* config.c — the pool's settings from merino_config and the environment, and merino's error
 * reporting. Every rejected setting gives one line naming the setting, the accepted range and how
 * to fix it. */
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

/* The calling thread's affinity mask and the number of CPUs in it. If it cannot be read, the
 * CPU this thread runs on stands for it (one CPU: the default is then one worker). */
static void mrn_read_affinity(mrn_settings *out) {
    CPU_ZERO(&out->cpus);
    if (sched_getaffinity(0, sizeof out->cpus, &out->cpus) != 0 || CPU_COUNT(&out->cpus) < 1) {
        int c = sched_getcpu();
        CPU_ZERO(&out->cpus);
        CPU_SET(c >= 0 && c < CPU_SETSIZE ? c : 0, &out->cpus);
    }
    out->ncpus = (unsigned)CPU_COUNT(&out->cpus);
}

/* merino_config.pin, else MERINO_PIN, else auto; -1 on a bad value (reported). */
static int mrn_resolve_pin(const merino_config *cfg) {
    if (cfg && cfg->pin != MERINO_PIN_DEFAULT) {
        if (cfg->pin == MERINO_PIN_AUTO || cfg->pin == MERINO_PIN_ON || cfg->pin == MERINO_PIN_OFF)
            return cfg->pin;
        mrn_error("merino_config.pin = %d is not valid: use MERINO_PIN_AUTO, MERINO_PIN_ON or "
                  "MERINO_PIN_OFF, or 0 for the MERINO_PIN environment variable (default auto)",
                  cfg->pin);
        return -1;
    }
    const char *env = getenv("MERINO_PIN");
    if (env == NULL || strcmp(env, "auto") == 0) return MERINO_PIN_AUTO;
    if (strcmp(env, "on") == 0 || strcmp(env, "1") == 0) return MERINO_PIN_ON;
    if (strcmp(env, "off") == 0 || strcmp(env, "0") == 0) return MERINO_PIN_OFF;
    mrn_error("MERINO_PIN='%.40s' is not valid: set it to auto (bind each worker to a CPU when "
              "there are 2 or more workers and no more than CPUs), on (always bind) or off "
              "(never), or unset it for auto",
              env);
    return -1;
}

int mrn_resolve_config(const merino_config *cfg, mrn_settings *out) {
    unsigned long long v;
    const char *env;
    unsigned *workers = &out->workers;
    size_t *stack_tasks = &out->stack_tasks;

    mrn_read_affinity(out);
    unsigned cpus = out->ncpus > MERINO_MAX_WORKERS ? MERINO_MAX_WORKERS : out->ncpus;

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
                      env, MERINO_MAX_WORKERS, cpus);
            return -1;
        }
        *workers = (unsigned)v;
    } else {
        *workers = cpus;
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

    int pin = mrn_resolve_pin(cfg);
    if (pin < 0) return -1;
    /* auto: binding keeps workers from stacking on one CPU (place.c); a single worker has no other
     * worker to stack with, and more workers than CPUs must share them anyway */
    out->pin = pin == MERINO_PIN_ON ||
               (pin == MERINO_PIN_AUTO && *workers >= 2 && *workers <= out->ncpus);
    return 0;
}
