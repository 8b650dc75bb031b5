/* config.c — the pool's settings from merino_config and the environment. Every rejected setting
 * gives one line naming the setting, the accepted range and how to fix it (src/sys/error.c). */
#include "core/core.h"

#include <sys/resource.h>

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A decimal number with an optional binary suffix (K, M or G: 2^10, 2^20, 2^30) where `suffixes`
 * allows one, in [lo, hi]; anything else (empty, signs, trailing text, overflow) is rejected. */
static bool mrn_parse_number(const char *text, bool suffixes, unsigned long long lo,
                             unsigned long long hi, unsigned long long *out) {
    if (text[0] < '0' || text[0] > '9') return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    int shift = 0;
    if (suffixes && *end != '\0') {
        const char *units = "KkMmGg", *u = strchr(units, *end);
        if (!u) return false;
        shift = 10 * (int)((u - units) / 2 + 1);
        end++;
    }
    if (errno || *end != '\0' || v > (hi >> shift)) return false;
    v <<= shift;
    if (v < lo) return false;
    *out = v;
    return true;
}

static bool mrn_parse_count(const char *text, unsigned long long lo, unsigned long long hi,
                            unsigned long long *out) {
    return mrn_parse_number(text, false, lo, hi, out);
}

static bool mrn_parse_bytes(const char *text, unsigned long long lo, unsigned long long hi,
                            unsigned long long *out) {
    return mrn_parse_number(text, true, lo, hi, out);
}

#define MRN_MIN_C_STACK ((size_t)128 << 10)
#define MRN_MAX_C_STACK ((size_t)64 << 30)

/* The C stack of each pool thread: merino_config.c_stack_bytes, else MERINO_C_STACK, else the
 * largest of 8 MiB, the process's stack limit (ulimit -s: a recursion that works on the main
 * thread works in a task) and 256 bytes per task descriptor (each nesting level of tasks also
 * nests C frames). */
static int mrn_resolve_c_stack(const merino_config *cfg, mrn_settings *out) {
    unsigned long long v;
    const char *env;
    if (cfg && cfg->c_stack_bytes) {
        if (cfg->c_stack_bytes < MRN_MIN_C_STACK || cfg->c_stack_bytes > MRN_MAX_C_STACK) {
            mrn_error("merino_config.c_stack_bytes = %zu is out of range: use %zu (128 KiB) to %zu "
                      "(64 GiB) bytes per worker, or 0 for the default",
                      cfg->c_stack_bytes, MRN_MIN_C_STACK, MRN_MAX_C_STACK);
            return -1;
        }
        out->c_stack_bytes = cfg->c_stack_bytes;
        return 0;
    }
    if ((env = getenv("MERINO_C_STACK")) != NULL) {
        if (!mrn_parse_bytes(env, MRN_MIN_C_STACK, MRN_MAX_C_STACK, &v)) {
            mrn_error("MERINO_C_STACK='%.40s' is not a valid C stack size: set it to a number of "
                      "bytes from 128K to 64G (suffixes K, M, G), or unset it for the default",
                      env);
            return -1;
        }
        out->c_stack_bytes = (size_t)v;
        return 0;
    }
    size_t bytes = (size_t)8 << 20;
    struct rlimit rl;
    if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur > bytes &&
        rl.rlim_cur <= MRN_MAX_C_STACK)
        bytes = (size_t)rl.rlim_cur;
    if (out->stack_tasks * 256 > bytes) bytes = out->stack_tasks * 256;
    out->c_stack_bytes = bytes;
    return 0;
}

/* One setting of the idle policy: the config field if nonzero, else the environment variable, else
 * the default; each in [1, max]. -1 on a bad value (reported). */
static int mrn_resolve_idle_one(unsigned field, const char *field_name, const char *var, unsigned dflt,
                                unsigned max, const char *unit, unsigned *out) {
    unsigned long long v;
    if (field) {
        if (field > max) {
            mrn_error("merino_config.%s = %u is out of range: use 1 to %u %s, or 0 for the default "
                      "(%u; docs/idle.md)",
                      field_name, field, max, unit, dflt);
            return -1;
        }
        *out = field;
        return 0;
    }
    const char *env = getenv(var);
    if (!env) {
        *out = dflt;
        return 0;
    }
    if (!mrn_parse_count(env, 1, max, &v)) {
        mrn_error("%s='%.40s' is not valid: set it to a whole number of %s from 1 to %u, or unset it "
                  "for the default (%u; docs/idle.md)",
                  var, env, unit, max, dflt);
        return -1;
    }
    *out = (unsigned)v;
    return 0;
}

/* The idle policy (backoff.h): spins before the first yield, then time before sleeping. */
static int mrn_resolve_idle(const merino_config *cfg, mrn_settings *out) {
    unsigned us;
    if (mrn_resolve_idle_one(cfg ? cfg->idle_spins : 0, "idle_spins", "MERINO_IDLE_SPINS",
                             MERINO_DEFAULT_IDLE_SPINS, MERINO_MAX_IDLE_SPINS, "failed attempts",
                             &out->idle_spins) != 0 ||
        mrn_resolve_idle_one(cfg ? cfg->idle_us : 0, "idle_us", "MERINO_IDLE_US", MERINO_DEFAULT_IDLE_US,
                             MERINO_MAX_IDLE_US, "microseconds", &us) != 0)
        return -1;
    out->idle_ns = (uint64_t)us * 1000;
    return 0;
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

    mrn_read_cpu_budget(&out->budget);
    out->first_cpu = sched_getcpu();
    unsigned cpus = mrn_cpu_budget_count(&out->budget);
    if (cpus > MERINO_MAX_WORKERS) cpus = MERINO_MAX_WORKERS;

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
               (pin == MERINO_PIN_AUTO && *workers >= 2 && *workers <= out->budget.ncpus);
    if (mrn_resolve_idle(cfg, out) != 0) return -1;
    return mrn_resolve_c_stack(cfg, out);
}
