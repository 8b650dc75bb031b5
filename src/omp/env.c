/* env.c — the OpenMP environment: OMP_NUM_THREADS, OMP_SCHEDULE, OMP_DYNAMIC, OMP_NESTED,
 * OMP_MAX_ACTIVE_LEVELS, OMP_THREAD_LIMIT, OMP_STACKSIZE (and GOMP_STACKSIZE), OMP_WAIT_POLICY,
 * OMP_PROC_BIND, OMP_PLACES, OMP_CANCELLATION, OMP_DISPLAY_ENV, OMP_MAX_TASK_PRIORITY,
 * OMP_DEFAULT_DEVICE, OMP_NUM_TEAMS, OMP_TEAMS_THREAD_LIMIT, OMP_AFFINITY_FORMAT,
 * OMP_DISPLAY_AFFINITY, OMP_ALLOCATOR — read once, into the initial task's ICVs. A malformed
 * value gets one line naming the variable, what it accepts and the value used instead (the
 * default), as libgomp ignores it; MERINO_* settings keep their meaning (the pool, thread.c). */
#include "omp/omp_layer.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

mo_env mo_g;
bool mo_cancel_on;

static const char *mo_getenv(const char *name) {
    const char *v = getenv(name);
    return v && v[0] ? v : NULL;
}

static const char *mo_skip_space(const char *s) {
    while (isspace((unsigned char)*s)) s++;
    return s;
}

/* A decimal number in [lo, hi] ending at *end (spaces skipped around it). */
static bool mo_parse_ulong(const char *s, unsigned long lo, unsigned long hi, unsigned long *out, const char **end) {
    s = mo_skip_space(s);
    if (!isdigit((unsigned char)*s)) return false;
    errno = 0;
    char *e;
    unsigned long v = strtoul(s, &e, 10);
    if (errno || v < lo || v > hi) return false;
    *out = v;
    *end = mo_skip_space(e);
    return true;
}

static bool mo_parse_bool(const char *s, bool *out) {
    s = mo_skip_space(s);
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1])) n--;
    if (n == 4 && strncasecmp(s, "true", 4) == 0) return *out = true, true;
    if (n == 5 && strncasecmp(s, "false", 5) == 0) return *out = false, true;
    return false;
}

/* A comma-separated list of positive numbers (OMP_NUM_THREADS). */
static bool mo_parse_ulong_list(const char *s, uint32_t *list, uint32_t max, uint32_t *len) {
    uint32_t n = 0;
    for (;;) {
        unsigned long v;
        if (n == max || !mo_parse_ulong(s, 1, INT_MAX, &v, &s)) return false;
        list[n++] = (uint32_t)v;
        if (*s == '\0') break;
        if (*s++ != ',') return false;
    }
    *len = n;
    return true;
}

static void mo_bad(const char *name, const char *value, const char *accepts, const char *instead) {
    mo_error("%s='%.60s' is not valid: set it to %s, or unset it; using %s", name, value, accepts, instead);
}

/* NAME as a whole number in [lo, hi] into *out, or as true/false; a malformed value is named
 * (what it accepts, and the value kept instead) and *out is left as it is. */
static void mo_env_number(const char *name, unsigned long lo, unsigned long hi, const char *accepts,
                          const char *instead, uint32_t *out) {
    const char *v = mo_getenv(name), *e;
    unsigned long n;
    if (v == NULL) return;
    if (mo_parse_ulong(v, lo, hi, &n, &e) && *e == '\0')
        *out = (uint32_t)n;
    else
        mo_bad(name, v, accepts, instead);
}

static void mo_env_bool(const char *name, const char *instead, bool *out) {
    const char *v = mo_getenv(name);
    if (v != NULL && !mo_parse_bool(v, out)) mo_bad(name, v, "true or false", instead);
}

/* ---- schedules ------------------------------------------------------------------------------------------- */

int mo_parse_schedule(const char *text, int32_t *kind, int64_t *chunk) {
    const char *s = mo_skip_space(text);
    int32_t monotonic = 0;
    bool nonmonotonic = false;
    if (strncasecmp(s, "monotonic:", 10) == 0) {
        monotonic = MO_SCHED_MONOTONIC;
        s = mo_skip_space(s + 10);
    } else if (strncasecmp(s, "nonmonotonic:", 13) == 0) {
        nonmonotonic = true;
        s = mo_skip_space(s + 13);
    }
    static const struct {
        const char *name;
        int32_t kind;
    } names[] = {{"static", MO_SCHED_STATIC}, {"dynamic", MO_SCHED_DYNAMIC}, {"guided", MO_SCHED_GUIDED},
                 {"auto", MO_SCHED_AUTO},     {"adaptive", MO_SCHED_AUTO},   {"steal", MO_SCHED_STEAL}};
    int32_t k = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t n = strlen(names[i].name);
        if (strncasecmp(s, names[i].name, n) == 0 && !isalpha((unsigned char)s[n])) {
            k = names[i].kind;
            s = mo_skip_space(s + n);
            break;
        }
    }
    if (k == 0) return -1;
    int64_t ch = 0;
    if (*s == ',') {
        unsigned long v;
        if (!mo_parse_ulong(s + 1, 1, INT_MAX, &v, &s)) return -1;
        ch = (int64_t)v;
    }
    if (*s != '\0') return -1;
    if (ch == 0 && (k == MO_SCHED_DYNAMIC || k == MO_SCHED_GUIDED)) ch = 1; /* their default, as omp_set_schedule */
    if (k == MO_SCHED_STATIC && !nonmonotonic) monotonic = MO_SCHED_MONOTONIC; /* static is monotonic (libgomp) */
    *kind = k | monotonic;
    *chunk = ch;
    return 0;
}

/* ---- OMP_STACKSIZE: a number with an optional B, K, M or G suffix (K by default) -------------------------- */

static bool mo_parse_size(const char *s, size_t *out) {
    unsigned long v;
    const char *e;
    if (!mo_parse_ulong(s, 1, ULONG_MAX, &v, &e)) return false;
    int shift = 10;
    switch (toupper((unsigned char)*e)) {
    case '\0': break;
    case 'B': shift = 0; break;
    case 'K': shift = 10; break;
    case 'M': shift = 20; break;
    case 'G': shift = 30; break;
    default: return false;
    }
    if (*e) e = mo_skip_space(e + 1);
    if (*e || v > (SIZE_MAX >> shift)) return false;
    *out = (size_t)v << shift;
    return true;
}

/* ---- OMP_PROC_BIND: false | true | a list of primary/master, close, spread -------------------------------- */

static bool mo_parse_bind(const char *text, uint32_t *list, uint32_t *len) {
    bool b;
    if (mo_parse_bool(text, &b)) {
        list[0] = b ? 1 : 0; /* omp_proc_bind_true / _false */
        *len = 1;
        return true;
    }
    uint32_t n = 0;
    const char *s = text;
    for (;;) {
        s = mo_skip_space(s);
        static const struct {
            const char *name;
            uint32_t v;
        } kinds[] = {{"primary", 2}, {"master", 2}, {"close", 3}, {"spread", 4}};
        bool found = false;
        for (size_t i = 0; i < 4 && !found; i++) {
            size_t l = strlen(kinds[i].name);
            if (strncasecmp(s, kinds[i].name, l) == 0 && !isalpha((unsigned char)s[l])) {
                if (n == 16) return false;
                list[n++] = kinds[i].v;
                s = mo_skip_space(s + l);
                found = true;
            }
        }
        if (!found) return false;
        if (*s == '\0') break;
        if (*s++ != ',') return false;
    }
    *len = n;
    return true;
}

/* OMP_PLACES: an abstract name (threads, cores, ll_caches, numa_domains, sockets, with an optional
 * (count)) or an explicit list of {..} places. Accepted and checked; merino places its workers
 * itself (docs/openmp.md, "Places"). */
static bool mo_check_places(const char *text) {
    const char *s = mo_skip_space(text);
    static const char *names[] = {"threads", "cores", "ll_caches", "numa_domains", "sockets"};
    for (size_t i = 0; i < 5; i++) {
        size_t l = strlen(names[i]);
        if (strncasecmp(s, names[i], l) == 0) {
            s = mo_skip_space(s + l);
            if (*s == '(') {
                unsigned long v;
                if (!mo_parse_ulong(s + 1, 1, INT_MAX, &v, &s) || *s != ')') return false;
                s = mo_skip_space(s + 1);
            }
            return *s == '\0';
        }
    }
    int depth = 0;
    for (; *s; s++) {
        if (*s == '{') depth++;
        else if (*s == '}' && --depth < 0) return false;
        else if (!isdigit((unsigned char)*s) && !strchr(",:!- \t", *s)) return false;
    }
    return depth == 0 && strchr(text, '{') != NULL;
}

/* ---- reading the environment --------------------------------------------------------------------------------- */

static unsigned mo_default_threads(void) {
    const char *w = mo_getenv("MERINO_WORKERS");
    unsigned long v;
    const char *e;
    if (w && mo_parse_ulong(w, 1, MERINO_MAX_WORKERS, &v, &e) && *e == '\0') return (unsigned)v;
    return merino__cpu_budget();
}

static void mo_read_env(void) {
    mo_env *g = &mo_g;
    mo_icv *icv = &g->icv;
    const char *v;
    char def[64];

    icv->nthreads = mo_default_threads();
    icv->nthreads_pos = UINT32_MAX;
    icv->thread_limit = INT_MAX; /* no limit: omp_get_thread_limit says INT_MAX */
    icv->max_active_levels = 1;
    icv->run_sched = MO_SCHED_DYNAMIC;
    icv->run_chunk = 1;
    icv->bind = 0;
    icv->bind_pos = UINT32_MAX;
    icv->def_allocator = 1; /* omp_default_mem_alloc */
    g->wait_policy = -1;
    g->max_task_priority = 0;
    snprintf(g->affinity_format, sizeof g->affinity_format, "level %%L thread %%i affinity %%A");

    if ((v = mo_getenv("OMP_NUM_THREADS")) != NULL) {
        if (mo_parse_ulong_list(v, g->nthreads_list, 16, &g->nthreads_len)) {
            icv->nthreads = g->nthreads_list[0];
            icv->nthreads_pos = g->nthreads_len > 1 ? 0 : UINT32_MAX;
            g->nthreads_set = true;
        } else {
            snprintf(def, sizeof def, "the default (%u)", icv->nthreads);
            mo_bad("OMP_NUM_THREADS", v, "a positive number of threads, or a comma-separated list of them per level (4 or 4,2)", def);
        }
    }
    mo_env_number("OMP_THREAD_LIMIT", 1, INT_MAX, "a positive number of threads", "no limit", &icv->thread_limit);
    bool dyn = false;
    mo_env_bool("OMP_DYNAMIC", "false", &dyn);
    icv->dyn = dyn;
    bool nested = false;
    mo_env_bool("OMP_NESTED", "false", &nested);
    if (nested) icv->max_active_levels = 255;
    mo_env_number("OMP_MAX_ACTIVE_LEVELS", 0, INT_MAX, "a number of levels, 0 or more", "1", &icv->max_active_levels);
    if (icv->max_active_levels > 255) icv->max_active_levels = 255; /* the levels supported */
    bool levels_set = mo_getenv("OMP_NESTED") || mo_getenv("OMP_MAX_ACTIVE_LEVELS");
    if ((v = mo_getenv("OMP_SCHEDULE")) != NULL) {
        int32_t k;
        int64_t ch;
        if (mo_parse_schedule(v, &k, &ch) == 0)
            icv->run_sched = k, icv->run_chunk = ch;
        else
            mo_bad("OMP_SCHEDULE", v,
                   "[monotonic:|nonmonotonic:]static, dynamic, guided, auto (merino's adaptive schedule), "
                   "adaptive or steal, with an optional ,CHUNK (dynamic,4)",
                   "dynamic,1");
    }
    if ((v = mo_getenv("OMP_PROC_BIND")) != NULL) {
        if (mo_parse_bind(v, g->bind_list, &g->bind_len)) {
            icv->bind = g->bind_list[0];
            icv->bind_pos = g->bind_len > 1 ? 0 : UINT32_MAX;
        } else {
            mo_bad("OMP_PROC_BIND", v, "true, false, or a comma-separated list of primary, close and spread", "false");
        }
    }
    /* As libgomp: a list of several levels of threads or binding asks for nested parallelism. */
    if (!levels_set && (g->nthreads_len > 1 || g->bind_len > 1))
        icv->max_active_levels = g->nthreads_len > g->bind_len ? g->nthreads_len : g->bind_len;
    if ((v = mo_getenv("OMP_PLACES")) != NULL && !mo_check_places(v))
        mo_bad("OMP_PLACES", v, "threads, cores, ll_caches, numa_domains or sockets (with an optional (N)), or a list of {..} places", "one place per CPU");
    else if (v != NULL && g->bind_len == 0)
        icv->bind = 1; /* places given without OMP_PROC_BIND: bind-var true (libgomp) */
    g->binding = icv->bind != 0;
    if ((v = mo_getenv("OMP_STACKSIZE")) != NULL || (v = mo_getenv("GOMP_STACKSIZE")) != NULL) {
        if (!mo_parse_size(v, &g->stacksize))
            mo_bad(getenv("OMP_STACKSIZE") ? "OMP_STACKSIZE" : "GOMP_STACKSIZE", v,
                   "a size with an optional B, K, M or G suffix (K when none: 512K, 8M)", "the default");
    }
    if ((v = mo_getenv("OMP_WAIT_POLICY")) != NULL) {
        const char *s = mo_skip_space(v);
        if (strncasecmp(s, "active", 6) == 0 && *mo_skip_space(s + 6) == '\0')
            g->wait_policy = 1;
        else if (strncasecmp(s, "passive", 7) == 0 && *mo_skip_space(s + 7) == '\0')
            g->wait_policy = 0;
        else
            mo_bad("OMP_WAIT_POLICY", v, "active or passive", "merino's idle policy (docs/idle.md)");
    }
    mo_env_bool("OMP_CANCELLATION", "false", &g->cancellation);
    uint32_t priority = 0, device = 0;
    mo_env_number("OMP_MAX_TASK_PRIORITY", 0, INT_MAX, "a priority, 0 or more", "0", &priority);
    g->max_task_priority = (int32_t)priority;
    mo_env_number("OMP_DEFAULT_DEVICE", 0, INT_MAX, "a device number, 0 or more", "0", &device);
    icv->default_device = (int32_t)device;
    mo_env_number("OMP_NUM_TEAMS", 1, INT_MAX, "a positive number of teams", "the default", &icv->nteams);
    mo_env_number("OMP_TEAMS_THREAD_LIMIT", 1, INT_MAX, "a positive number of threads", "the default",
                  &icv->teams_thread_limit);
    if ((v = mo_getenv("OMP_AFFINITY_FORMAT")) != NULL)
        snprintf(g->affinity_format, sizeof g->affinity_format, "%s", v);
    mo_env_bool("OMP_DISPLAY_AFFINITY", "false", &g->display_affinity);
    if ((v = mo_getenv("OMP_ALLOCATOR")) != NULL) {
        static const char *names[] = {"omp_default_mem_alloc", "omp_large_cap_mem_alloc", "omp_const_mem_alloc",
                                      "omp_high_bw_mem_alloc", "omp_low_lat_mem_alloc",  "omp_cgroup_mem_alloc",
                                      "omp_pteam_mem_alloc",   "omp_thread_mem_alloc"};
        const char *s = mo_skip_space(v);
        bool found = false;
        for (size_t i = 0; i < 8 && !found; i++) {
            size_t l = strlen(names[i]);
            if (strncmp(s, names[i], l) == 0 && *mo_skip_space(s + l) == '\0') icv->def_allocator = i + 1, found = true;
        }
        if (!found) mo_bad("OMP_ALLOCATOR", v, "a predefined allocator (omp_default_mem_alloc, omp_high_bw_mem_alloc, ...)", "omp_default_mem_alloc");
    }
    if ((v = mo_getenv("OMP_DISPLAY_ENV")) != NULL) {
        bool b;
        if (strncasecmp(mo_skip_space(v), "verbose", 7) == 0)
            g->display_env = g->display_verbose = true;
        else if (mo_parse_bool(v, &b))
            g->display_env = b;
        else
            mo_bad("OMP_DISPLAY_ENV", v, "true, false or verbose", "false");
    }
    mo_cancel_on = g->cancellation;
}

static pthread_once_t mo_env_once = PTHREAD_ONCE_INIT;

static void mo_print_env(bool verbose);

static void mo_env_once_init(void) {
    mo_read_env();
    if (mo_g.display_env) mo_print_env(mo_g.display_verbose);
}

void mo_env_init(void) { pthread_once(&mo_env_once, mo_env_once_init); }

/* Read at load, as libgomp does: OMP_DISPLAY_ENV prints before main, and the ICVs are ready. */
__attribute__((constructor)) static void mo_env_at_load(void) { mo_env_init(); }

/* ---- OMP_DISPLAY_ENV --------------------------------------------------------------------------------------------- */

static const char *mo_sched_name(int32_t k) {
    switch (k & ~MO_SCHED_MONOTONIC) {
    case MO_SCHED_STATIC: return "STATIC";
    case MO_SCHED_DYNAMIC: return "DYNAMIC";
    case MO_SCHED_GUIDED: return "GUIDED";
    case MO_SCHED_AUTO: return "AUTO";
    case MO_SCHED_STEAL: return "STEAL";
    default: return "?";
    }
}

static const char *mo_bind_name(uint32_t b) {
    static const char *names[] = {"FALSE", "TRUE", "PRIMARY", "CLOSE", "SPREAD"};
    return b < 5 ? names[b] : "?";
}

void mo_display_env(bool verbose) {
    mo_env_init();
    mo_print_env(verbose);
}

static void mo_print_env(bool verbose) {
    const mo_icv *icv = &mo_g.icv;
    FILE *f = stderr;
    fprintf(f, "\nOPENMP DISPLAY ENVIRONMENT BEGIN\n");
    fprintf(f, "  _OPENMP = '201511'\n");
    fprintf(f, "  OMP_DYNAMIC = '%s'\n", icv->dyn ? "TRUE" : "FALSE");
    fprintf(f, "  OMP_NESTED = '%s'\n", icv->max_active_levels > 1 ? "TRUE" : "FALSE");
    fprintf(f, "  OMP_NUM_THREADS = '");
    if (mo_g.nthreads_len > 1)
        for (uint32_t i = 0; i < mo_g.nthreads_len; i++) fprintf(f, "%s%u", i ? "," : "", mo_g.nthreads_list[i]);
    else
        fprintf(f, "%u", icv->nthreads);
    fprintf(f, "'\n");
    fprintf(f, "  OMP_SCHEDULE = '%s%s", icv->run_sched & MO_SCHED_MONOTONIC ? "MONOTONIC:" : "", mo_sched_name(icv->run_sched));
    if (icv->run_chunk) fprintf(f, ",%lld", (long long)icv->run_chunk);
    fprintf(f, "'\n");
    fprintf(f, "  OMP_PROC_BIND = '");
    if (mo_g.bind_len > 1)
        for (uint32_t i = 0; i < mo_g.bind_len; i++) fprintf(f, "%s%s", i ? "," : "", mo_bind_name(mo_g.bind_list[i]));
    else
        fprintf(f, "%s", mo_bind_name(icv->bind));
    fprintf(f, "'\n");
    fprintf(f, "  OMP_PLACES = '%s'\n", getenv("OMP_PLACES") ? getenv("OMP_PLACES") : "");
    fprintf(f, "  OMP_STACKSIZE = '%zu'\n", mo_g.stacksize);
    fprintf(f, "  OMP_WAIT_POLICY = '%s'\n", mo_g.wait_policy == 1 ? "ACTIVE" : "PASSIVE");
    fprintf(f, "  OMP_THREAD_LIMIT = '%u'\n", icv->thread_limit);
    fprintf(f, "  OMP_MAX_ACTIVE_LEVELS = '%u'\n", icv->max_active_levels);
    fprintf(f, "  OMP_NUM_TEAMS = '%u'\n", icv->nteams);
    fprintf(f, "  OMP_TEAMS_THREAD_LIMIT = '%u'\n", icv->teams_thread_limit);
    fprintf(f, "  OMP_CANCELLATION = '%s'\n", mo_g.cancellation ? "TRUE" : "FALSE");
    fprintf(f, "  OMP_DEFAULT_DEVICE = '%d'\n", icv->default_device);
    fprintf(f, "  OMP_MAX_TASK_PRIORITY = '%d'\n", mo_g.max_task_priority);
    fprintf(f, "  OMP_DISPLAY_AFFINITY = '%s'\n", mo_g.display_affinity ? "TRUE" : "FALSE");
    fprintf(f, "  OMP_AFFINITY_FORMAT = '%s'\n", mo_g.affinity_format);
    fprintf(f, "  OMP_ALLOCATOR = '%lu'\n", (unsigned long)icv->def_allocator);
    fprintf(f, "  OMP_TARGET_OFFLOAD = 'DEFAULT'\n");
    if (verbose) {
        fprintf(f, "  GOMP_CPU_AFFINITY = ''\n");
        fprintf(f, "  GOMP_STACKSIZE = '%zu'\n", mo_g.stacksize);
        fprintf(f, "  MERINO_WORKERS = '%u'\n", merino_workers());
    }
    fprintf(f, "OPENMP DISPLAY ENVIRONMENT END\n");
}
