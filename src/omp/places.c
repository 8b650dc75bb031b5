/* places.c — OpenMP's places and thread binding.
 *
 * The places are OMP_PLACES's (threads, cores, ll_caches, numa_domains, sockets, each with an
 * optional count, or an explicit list: {0,1},{2:2},{4:2:2}, and place intervals {0:2}:4:2), kept
 * to the CPUs of the process's mask; without OMP_PLACES, one place per CPU of the mask. A
 * thread's place is the one whose CPUs hold all of the thread's: a pool thread that merino bound
 * to a CPU has that CPU's place, an unbound thread none (-1).
 *
 * With OMP_PROC_BIND (or a proc_bind clause) other than false, the threads of a team are bound
 * to places as OpenMP says: primary (all on thread 0's place), close (consecutive places from
 * thread 0's), spread (spread over the places), true (as close). Thread 0 is bound first if it
 * is not yet on a place (to the first); a pool thread is bound for its role and gets merino's
 * placement back after it. */
#include "omp/omp_layer.h"

#include <ctype.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MO_MAX_PLACES 1024

static cpu_set_t mo_mask;                  /* the process's CPUs at load */
static cpu_set_t mo_place[MO_MAX_PLACES];
static int mo_nplaces;
static pthread_once_t mo_places_once = PTHREAD_ONCE_INIT;

/* ---- reading OMP_PLACES -------------------------------------------------------------------------------- */

static void mo_add_place(const cpu_set_t *s) {
    cpu_set_t in;
    CPU_AND(&in, s, &mo_mask);
    if (CPU_COUNT(&in) == 0 || mo_nplaces == MO_MAX_PLACES) return;
    mo_place[mo_nplaces++] = in;
}

/* A number read from a sysfs file of cpu's, or -1. */
static long mo_topology(int cpu, const char *file) {
    char path[128];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/%s", cpu, file);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    long v = -1;
    if (fscanf(f, "%ld", &v) != 1) v = -1;
    fclose(f);
    return v;
}

/* Places grouping the mask's CPUs by a key (core, package, ...): CPUs with the same key together. */
static void mo_group_places(long (*key)(int cpu)) {
    bool done[CPU_SETSIZE] = {false};
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, &mo_mask) || done[c]) continue;
        long k = key(c);
        cpu_set_t s;
        CPU_ZERO(&s);
        for (int d = c; d < CPU_SETSIZE; d++)
            if (CPU_ISSET(d, &mo_mask) && !done[d] && (k < 0 ? d == c : key(d) == k)) CPU_SET(d, &s), done[d] = true;
        mo_add_place(&s);
    }
}

static long mo_key_cpu(int cpu) { return -1 - cpu; }
static long mo_key_core(int cpu) {
    long core = mo_topology(cpu, "topology/core_id"), pkg = mo_topology(cpu, "topology/physical_package_id");
    return core < 0 ? -1 : pkg * 65536 + core;
}
static long mo_key_socket(int cpu) { return mo_topology(cpu, "topology/physical_package_id"); }
static long mo_key_llc(int cpu) { /* the first CPU sharing the last-level cache (index3, else index2) */
    char path[128];
    for (int i = 3; i >= 2; i--) {
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list", cpu, i);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        long first = -1;
        if (fscanf(f, "%ld", &first) != 1) first = -1;
        fclose(f);
        if (first >= 0) return first;
    }
    return mo_key_socket(cpu);
}
static long mo_key_numa(int cpu) {
    for (int n = 0; n < 1024; n++) {
        char path[128];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/node%d", cpu, n);
        FILE *f = fopen(path, "r"); /* a directory: fopen for reading succeeds on Linux */
        if (f) {
            fclose(f);
            return n;
        }
    }
    return mo_key_socket(cpu);
}

static const char *mo_sp(const char *s) {
    while (isspace((unsigned char)*s)) s++;
    return s;
}

static bool mo_num(const char **s, long *v) {
    const char *p = mo_sp(*s);
    char *e;
    if (!isdigit((unsigned char)*p)) return false;
    *v = strtol(p, &e, 10);
    *s = mo_sp(e);
    return true;
}

/* An optional ":len[:stride]" (stride may be negative); false if malformed. */
static bool mo_len_stride(const char **s, long *len, long *stride) {
    const char *p = *s;
    if (*p == ':') {
        p++;
        if (!mo_num(&p, len)) return false;
        if (*p == ':') {
            p++;
            bool neg = *mo_sp(p) == '-';
            if (neg) p = mo_sp(p) + 1;
            if (!mo_num(&p, stride)) return false;
            if (neg) *stride = -*stride;
        }
    }
    *s = p;
    return true;
}

/* "{res[:len[:stride]],...}" into s; false if malformed. */
static bool mo_parse_place(const char **t, cpu_set_t *s) {
    const char *p = mo_sp(*t);
    if (*p++ != '{') return false;
    CPU_ZERO(s);
    for (;;) {
        long first, len = 1, stride = 1;
        if (!mo_num(&p, &first) || !mo_len_stride(&p, &len, &stride)) return false;
        for (long i = 0; i < len; i++) {
            long c = first + i * stride;
            if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, s);
        }
        if (*p == '}') break;
        if (*p++ != ',') return false;
    }
    *t = mo_sp(p + 1);
    return true;
}

/* An explicit list: places and place intervals ({0:2}:4:2: 4 places, each moved by 2). */
static bool mo_parse_list(const char *t) {
    for (;;) {
        cpu_set_t s;
        if (!mo_parse_place(&t, &s)) return false;
        long count = 1, stride = CPU_COUNT(&s); /* default stride: the place's size */
        if (!mo_len_stride(&t, &count, &stride)) return false;
        for (long i = 0; i < count; i++) {
            cpu_set_t m;
            CPU_ZERO(&m);
            for (int c = 0; c < CPU_SETSIZE; c++)
                if (CPU_ISSET(c, &s) && c + i * stride >= 0 && c + i * stride < CPU_SETSIZE) CPU_SET(c + i * stride, &m);
            mo_add_place(&m);
        }
        if (*t == '\0') return true;
        if (*t++ != ',') return false;
    }
}

static void mo_places_read(void) {
    mo_env_init();
    if (sched_getaffinity(0, sizeof mo_mask, &mo_mask) != 0) CPU_ZERO(&mo_mask);
    const char *v = getenv("OMP_PLACES");
    const char *s = v ? mo_sp(v) : "";
    static const struct {
        const char *name;
        long (*key)(int);
    } kinds[] = {{"threads", mo_key_cpu}, {"cores", mo_key_core}, {"ll_caches", mo_key_llc},
                 {"numa_domains", mo_key_numa}, {"sockets", mo_key_socket}};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0] && *s; i++) {
        size_t l = strlen(kinds[i].name);
        if (strncasecmp(s, kinds[i].name, l) != 0) continue;
        mo_group_places(kinds[i].key);
        const char *p = mo_sp(s + l);
        long n;
        if (*p == '(' && (p++, mo_num(&p, &n)) && n < mo_nplaces) mo_nplaces = (int)n;
        return;
    }
    if (*s == '{' && mo_parse_list(s) && mo_nplaces > 0) return;
    mo_nplaces = 0; /* unset, or rejected by env.c: one place per CPU */
    mo_group_places(mo_key_cpu);
}

static void mo_places_init(void) { pthread_once(&mo_places_once, mo_places_read); }

/* ---- queries -------------------------------------------------------------------------------------------------- */

int mo_place_count(void) {
    mo_places_init();
    return mo_nplaces;
}

/* The place holding all of the calling thread's CPUs, or -1. */
int mo_place_of_thread(void) {
    mo_places_init();
    cpu_set_t s, both;
    if (sched_getaffinity(0, sizeof s, &s) != 0) return -1;
    for (int p = 0; p < mo_nplaces; p++) {
        CPU_AND(&both, &s, &mo_place[p]);
        if (CPU_EQUAL(&both, &s)) return p;
    }
    return -1;
}

int mo_place_procs(int place, int *ids) {
    mo_places_init();
    if (place < 0 || place >= mo_nplaces) return 0;
    int n = 0;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &mo_place[place])) {
            if (ids) ids[n] = c;
            n++;
        }
    return n;
}

/* ---- binding -------------------------------------------------------------------------------------------------- */

/* The place of thread tnum of a team of n threads bound with `policy` (omp_proc_bind_t), thread
 * 0 being on place p0. */
static int mo_place_for(int policy, int p0, uint32_t tnum, uint32_t n) {
    int np = mo_nplaces;
    switch (policy) {
    case 2: return p0; /* primary */
    case 4: break; /* spread: n subpartitions, each thread on the first place of its own */
    default:       /* close, true: consecutive places while there are enough */
        if (n <= (uint32_t)np) return (int)((p0 + tnum) % (uint32_t)np);
        break;       /* more threads than places: consecutive threads share a place */
    }
    return (int)((p0 + (uint64_t)tnum * (uint64_t)np / n) % (uint64_t)np);
}

/* Thread 0 of a region bound with policy: on a place (the first, if it was on none); returns it. */
int mo_bind_thread0(void) {
    int p = mo_place_of_thread();
    if (p >= 0 || mo_place_count() == 0) return p < 0 ? 0 : p;
    merino__budget_main_bound(); /* this may be the main thread: merino's budget must not shrink to its place */
    sched_setaffinity(0, sizeof(cpu_set_t), &mo_place[0]); /* a thread the kernel refuses runs unbound */
    return 0;
}

static __thread cpu_set_t mo_own_mask;
static __thread bool mo_own_saved;

/* A role's thread is bound to its place for the role (and unbound from it by mo_unbind_role). */
void mo_bind_role(int policy, int p0, uint32_t tnum, uint32_t n) {
    if (mo_place_count() == 0) return;
    if (!mo_own_saved) mo_own_saved = sched_getaffinity(0, sizeof mo_own_mask, &mo_own_mask) == 0;
    sched_setaffinity(0, sizeof(cpu_set_t), &mo_place[mo_place_for(policy, p0, tnum, n)]);
}

void mo_unbind_role(void) {
    if (mo_own_saved) sched_setaffinity(0, sizeof mo_own_mask, &mo_own_mask);
}
