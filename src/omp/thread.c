/* thread.c — the threads of the OpenMP layer: each thread's initial task, the pool (started
 * sized from the OpenMP environment), the mailboxes through which pool threads are given team
 * roles (polled by the layer's work source from their idle loop), the spare threads that play
 * roles no worker can take, and the small OS helpers (futex, clock, errors). */
#include "omp/omp_layer.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

__thread mo_task *mo_cur __attribute__((tls_model("initial-exec")));

/* ---- OS helpers -------------------------------------------------------------------------------------- */

uint64_t mo_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void mo_futex_wait(uint32_t *word, uint32_t expected) {
    syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

void mo_futex_wait_ns(uint32_t *word, uint32_t expected, uint64_t ns) {
    struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, expected, &ts, NULL, 0);
}

void mo_futex_wake(uint32_t *word, int count) { syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, count, NULL, NULL, 0); }

#define MO_FORMAT(line, fmt)                                                                      \
    char line[512];                                                                               \
    va_list ap;                                                                                   \
    va_start(ap, fmt);                                                                            \
    vsnprintf(line, sizeof line, fmt, ap);                                                        \
    va_end(ap)

void mo_error(const char *fmt, ...) {
    MO_FORMAT(line, fmt);
    merino__error(line);
}

void mo_fatal(const char *fmt, ...) {
    MO_FORMAT(line, fmt);
    merino__fatal(line);
}

void mo_unsupported(const char *name, const char *why) {
    mo_fatal("%s is not supported by merino's OpenMP runtime (%s): run the program with libgomp "
             "(without LD_PRELOAD of libmerino_omp.so), or see docs/openmp.md for what is supported",
             name, why);
}

/* ---- each thread's initial task ------------------------------------------------------------------------ */

typedef struct mo_thread_state {
    mo_task initial;
    mo_icv icv;
    mo_home *homes; /* roles 1..home_count-1 of its top-level regions (team.c) */
    unsigned home_count;
} mo_thread_state;

static __thread mo_thread_state *mo_state __attribute__((tls_model("initial-exec")));
static pthread_key_t mo_state_key;
static pthread_once_t mo_state_once = PTHREAD_ONCE_INIT;

static void mo_state_free(void *p) {
    if (mo_cur == &((mo_thread_state *)p)->initial) mo_cur = NULL;
    mo_state = NULL;
    free(((mo_thread_state *)p)->homes);
    free(p);
}
static void mo_make_state_key(void) {
    mo_env_init();
    (void)pthread_key_create(&mo_state_key, mo_state_free);
}

/* The thread's initial task: no team, the initial ICVs. On a worker it is returned but not made
 * current: a worker's mo_cur is set only while an OpenMP region or task runs on it, which is how
 * its idle loop knows it may take a role (mo_poll). */
mo_task *mo_current_slow(void) {
    mo_thread_state *s = mo_state;
    if (MO_UNLIKELY(s == NULL)) {
        pthread_once(&mo_state_once, mo_make_state_key);
        s = calloc(1, sizeof *s);
        if (!s) mo_fatal("out of memory making the OpenMP state of a thread");
        s->icv = mo_g.icv;
        s->initial.icv = &s->icv;
        s->initial.flags = MO_T_IMPLICIT;
        mo_state = s;
        (void)pthread_setspecific(mo_state_key, s);
    }
    if (!mo_on_worker()) mo_cur = &s->initial;
    return &s->initial;
}

mo_home *mo_thread_homes(unsigned n) {
    if (MO_UNLIKELY(mo_state == NULL)) mo_current_slow(); /* makes the state */
    mo_thread_state *s = mo_state;
    if (MO_UNLIKELY(n > s->home_count)) {
        mo_home *h = realloc(s->homes, n * sizeof *h);
        if (!h) mo_fatal("out of memory making an OpenMP team of %u threads", n);
        memset(h + s->home_count, 0, (n - s->home_count) * sizeof *h);
        s->homes = h;
        s->home_count = n;
    }
    return s->homes;
}

/* ---- the pool ------------------------------------------------------------------------------------------ */

static pthread_mutex_t mo_pool_lock = PTHREAD_MUTEX_INITIALIZER;

unsigned mo_pool_threads(void) { return merino_workers(); }

static bool mo_env_set(const char *name) {
    const char *v = getenv(name);
    return v != NULL && v[0] != '\0';
}

/* Starts merino's pool unless one runs: with MERINO_* settings as they are, else the OpenMP
 * environment's: the workers from nthreads-var when the program set it (OMP_NUM_THREADS, or
 * omp_set_num_threads before the first region), the C stack from OMP_STACKSIZE, the idle policy
 * from OMP_WAIT_POLICY, binding from OMP_PROC_BIND. */
void mo_pool_ensure(void) {
    if (MO_LIKELY(merino_workers() != 0)) return;
    pthread_mutex_lock(&mo_pool_lock);
    if (merino_workers() == 0 && !mo_on_worker()) {
        merino_config cfg = {0};
        const mo_task *c = mo_current();
        if (!mo_env_set("MERINO_WORKERS") && (mo_g.nthreads_set || c->icv->nthreads != mo_g.icv.nthreads)) {
            unsigned n = c->icv->nthreads;
            if (n > c->icv->thread_limit) n = c->icv->thread_limit;
            cfg.workers = n < 1 ? 1 : n > MERINO_MAX_WORKERS ? MERINO_MAX_WORKERS : n;
        }
        if (!mo_env_set("MERINO_C_STACK") && mo_g.stacksize) {
            size_t b = mo_g.stacksize < ((size_t)128 << 10) ? (size_t)128 << 10 : mo_g.stacksize;
            cfg.c_stack_bytes = b;
        }
        if (mo_g.wait_policy == 0) { /* passive: sleep right after the spins */
            if (!mo_env_set("MERINO_IDLE_SPINS")) cfg.idle_spins = 1;
            if (!mo_env_set("MERINO_IDLE_US")) cfg.idle_us = 1;
        } else if (mo_g.wait_policy == 1 && !mo_env_set("MERINO_IDLE_US")) {
            cfg.idle_us = MERINO_MAX_IDLE_US; /* active: keep looking (yielding) for 10 s */
        }
        if (!mo_env_set("MERINO_PIN") && getenv("OMP_PROC_BIND"))
            cfg.pin = mo_g.icv.bind == 0 ? MERINO_PIN_OFF : MERINO_PIN_ON;
        if (merino_ensure_started(&cfg) != 0)
            mo_fatal("the OpenMP runtime could not start merino's pool of workers (see the message "
                     "above): fix the setting it names");
    }
    pthread_mutex_unlock(&mo_pool_lock);
}

/* ---- mailboxes: roles for pool threads --------------------------------------------------------------- */

/* A pool thread's mailbox: NULL (free), MO_MAIL_BUSY (thread 0 of a region: no offers), a role r
 * offered to it, or r | 1 while the worker examines or runs r. The worker marks r before it
 * touches the role, and whoever revokes an offer (a waiting thread of the team, wait.c) waits
 * until the mark is gone before the role goes to a spare: so the team, which ends only after
 * that spare's role, outlives every access of a worker to the role. */
#define MO_MAIL_BUSY ((uintptr_t)2)
#define MO_MAIL_MARK ((uintptr_t)1)

typedef struct mo_mail {
    _Alignas(MO_LINE) uintptr_t slot; /* atomic: as above */
    uint64_t heartbeat;               /* atomic: when its idle loop last polled the layer (ns) */
    uint64_t dozed;                   /* atomic: when its idle loop last got ready to sleep (ns) */
    uint32_t polls;                   /* the owner's: polls since the last heartbeat */
    int32_t cpu_clock;                /* atomic: the worker's CPU-time clock (0: not known yet) */
    int32_t tid;                      /* atomic: the worker's thread id (0: not known yet) */
} mo_mail;

static mo_mail mo_mailboxes[MERINO_MAX_WORKERS];

bool mo_offer(unsigned w, mo_role *r) {
    uintptr_t none = 0;
    /* seq_cst: releases the role's set-up to the worker that acquires it, and is the offerer's
     * store in the Dekker pair with a sleeping worker (mo_pending's load, then merino__help_wake's
     * load of the sleepers): neither may miss the other */
    return __atomic_compare_exchange_n(&mo_mailboxes[w].slot, &none, (uintptr_t)r, false, __ATOMIC_SEQ_CST,
                                       __ATOMIC_RELAXED);
}

void mo_withdraw_offer(unsigned w, mo_role *r) {
    mo_mail *m = &mo_mailboxes[w];
    for (;;) {
        uintptr_t v = (uintptr_t)r;
        /* acquire (on failure; success may not be weaker): a mark cleared meanwhile was the
         * worker's last look at r (its release store), which must precede the team's end */
        if (__atomic_compare_exchange_n(&m->slot, &v, 0, false, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)) return;
        if (v != ((uintptr_t)r | MO_MAIL_MARK)) return; /* taken by something else already */
        mo_relax(); /* the worker is looking at r: a few instructions, then it clears the mark */
    }
}

bool mo_worker_idle(unsigned w, uint64_t now) {
    mo_mail *m = &mo_mailboxes[w];
    /* relaxed: hints; an idle worker that turns busy meanwhile is covered by the role's patience */
    if (__atomic_load_n(&m->slot, __ATOMIC_RELAXED) != 0) return false;
    uint64_t beat = __atomic_load_n(&m->heartbeat, __ATOMIC_RELAXED);
    return beat != 0 && now - beat < MO_IDLE_FRESH_NS;
}

uint64_t mo_worker_patience(unsigned w) {
    mo_mail *m = &mo_mailboxes[w];
    /* relaxed: hints (the patience only decides when a spare takes over) */
    bool asleep = __atomic_load_n(&m->dozed, __ATOMIC_RELAXED) >= __atomic_load_n(&m->heartbeat, __ATOMIC_RELAXED);
    return asleep ? MO_ROLE_PATIENCE_ASLEEP_NS : MO_ROLE_PATIENCE_NS;
}

uint64_t mo_worker_cpu_ns(unsigned w) {
    /* relaxed: set once by the worker; a clock of a pool thread that ended reads as unknown */
    clockid_t c = (clockid_t)__atomic_load_n(&mo_mailboxes[w].cpu_clock, __ATOMIC_RELAXED);
    struct timespec ts;
    if (c == 0 || clock_gettime(c, &ts) != 0) return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec + 1;
}

bool mo_worker_runnable(unsigned w) {
    int32_t tid = __atomic_load_n(&mo_mailboxes[w].tid, __ATOMIC_RELAXED); /* relaxed: a hint */
    char path[64], stat[512];
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
    FILE *f = tid ? fopen(path, "r") : NULL;
    if (!f) return tid == 0; /* not known yet: runnable; gone: not */
    size_t n = fread(stat, 1, sizeof stat - 1, f);
    fclose(f);
    stat[n] = '\0';
    const char *state = strrchr(stat, ')'); /* "tid (name) S ...": the name may hold anything */
    return state == NULL || state[1] == '\0' || state[2] == 'R';
}

/* The calling worker's CPU-time clock and thread id in its mailbox, once per thread (a restarted
 * pool's threads are new threads). */
static __attribute__((noinline, cold)) void mo_publish_cpu_clock(mo_mail *m) {
    static __thread bool published;
    if (published) return;
    published = true;
    clockid_t c;
    if (pthread_getcpuclockid(pthread_self(), &c) == 0)
        __atomic_store_n(&m->cpu_clock, (int32_t)c, __ATOMIC_RELAXED); /* relaxed: a hint */
    __atomic_store_n(&m->tid, (int32_t)syscall(SYS_gettid), __ATOMIC_RELAXED); /* relaxed: a hint */
}

void mo_wake_workers(void) { merino__help_wake(); }

/* A role offered to this worker that it cannot take (it is busy as thread 0): a spare plays it. */
static void mo_role_to_spare(mo_role *r) {
    uint32_t offered = MO_ROLE_OFFERED;
    /* acq_rel: the winner of this CAS or the revoker's decides who runs the role */
    if (__atomic_compare_exchange_n(&r->state, &offered, MO_ROLE_SPARE, false, __ATOMIC_ACQ_REL,
                                    __ATOMIC_RELAXED)) {
        __atomic_fetch_sub(&r->team->roles_pending, 1, __ATOMIC_RELAXED); /* relaxed: a hint */
        mo_give_to_spare(r);
    }
}

void mo_mailbox_busy(bool busy) {
    int w = merino_worker_index();
    if (w <= 0) return; /* the caller slot takes no roles */
    mo_mail *m = &mo_mailboxes[w];
    /* relaxed: our own mailbox; a mark is set and cleared by this thread only. Marked: we run a
     * role of a team and are thread 0 of a region nested in it; the mark keeps offers out, and
     * stays until mo_poll clears it when the role is over. */
    if (__atomic_load_n(&m->slot, __ATOMIC_RELAXED) & MO_MAIL_MARK) return;
    if (!busy) {
        __atomic_store_n(&m->slot, 0, __ATOMIC_RELEASE); /* release: pairs with the offers' CAS */
        return;
    }
    /* acquire: a role offered meanwhile is set up. Our own mailbox: no mark needed, since a
     * revoker that finds BUSY instead of the role leaves it alone. */
    uintptr_t v = __atomic_exchange_n(&m->slot, MO_MAIL_BUSY, __ATOMIC_ACQUIRE);
    if (v != 0 && v != MO_MAIL_BUSY) mo_role_to_spare((mo_role *)v);
}

/* The layer's work source, asked by every worker on each round of its idle loop (after tasks and
 * task objects): a worker with nothing of its own on its stack and no OpenMP context runs the
 * role offered to it. Never from inside a wait: a role must not run nested in another one. */
static int mo_poll(void) {
    if (mo_cur != NULL) return 0;
    merino__worker *self = merino__self;
    if (self == NULL || merino__next != self->base) return 0;
    int w = merino_worker_index();
    if (w <= 0) return 0;
    mo_mail *m = &mo_mailboxes[w];
    if ((++m->polls & 15) == 1) {
        __atomic_store_n(&m->heartbeat, mo_now_ns(), __ATOMIC_RELAXED); /* relaxed: a hint */
        mo_publish_cpu_clock(m);
    }
    uintptr_t v = __atomic_load_n(&m->slot, __ATOMIC_RELAXED); /* relaxed: a peek; the CAS acquires */
    if (v == 0 || v == MO_MAIL_BUSY || (v & MO_MAIL_MARK)) return 0;
    /* acquire: the role's set-up, published by the offer's release CAS */
    if (!__atomic_compare_exchange_n(&m->slot, &v, v | MO_MAIL_MARK, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        return 0; /* withdrawn meanwhile */
    mo_role *r = (mo_role *)v;
    uint32_t offered = MO_ROLE_OFFERED;
    /* acq_rel: against the revoker's CAS: one of the two decides who runs the role */
    bool mine = __atomic_compare_exchange_n(&r->state, &offered, MO_ROLE_STARTED, false, __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE);
    mo_team *t = mine ? r->team : NULL; /* a revoked role's team may end once the mark is gone */
    if (mine) {
        __atomic_fetch_sub(&t->roles_pending, 1, __ATOMIC_RELAXED); /* relaxed: a hint */
        mo_implicit_run(t, r->tnum);
    }
    /* release: the role is over (or revoked, and its revoker waits for this); offers may come —
     * before thread 0 learns it is over, so that its next region finds this mailbox free */
    __atomic_store_n(&m->slot, 0, __ATOMIC_RELEASE);
    if (mine) mo_role_leave(t);
    return mine;
}

/* Whether a role waits in this worker's mailbox: then it must not sleep (seq_cst: the sleeper's
 * half of the core's pair with merino__help_wake, which the offering thread calls). */
static int mo_pending(void) {
    int w = merino_worker_index();
    if (w <= 0) return 0;
    mo_mail *m = &mo_mailboxes[w];
    uintptr_t v = __atomic_load_n(&m->slot, __ATOMIC_SEQ_CST);
    if (v != 0 && v != MO_MAIL_BUSY) return 1;
    /* the core asks before its idle loop sleeps: the patience of an offer made now is long */
    __atomic_store_n(&m->dozed, mo_now_ns(), __ATOMIC_RELAXED); /* relaxed: a hint */
    return 0;
}

static const merino__source mo_source = {"OpenMP team roles", mo_poll, mo_pending};

__attribute__((constructor)) static void mo_register_source(void) {
    if (merino__source_add(&mo_source) != 0)
        mo_fatal("the OpenMP runtime could not register its work source with merino's core (too "
                 "many layers loaded)");
}

/* ---- spare threads -------------------------------------------------------------------------------------- */

struct mo_spare {
    uint32_t go;        /* atomic futex word: 1 when a role is given */
    uint32_t last_tnum; /* the thread number of its last role (read under mo_spare_lock) */
    uint64_t last_given; /* when it got that role (mo_spares_given then; under mo_spare_lock) */
    uint64_t last_team;  /* that role's team's serial: no second role of a team (under the lock) */
    mo_role *role;
    struct mo_spare *next;
};

static pthread_mutex_t mo_spare_lock = PTHREAD_MUTEX_INITIALIZER;
static mo_spare *mo_spares_free;
static uint64_t mo_spares_given; /* roles given to spares so far (under mo_spare_lock) */

static void *mo_spare_main(void *arg) {
    mo_spare *s = arg;
    for (;;) {
        /* acquire: the role given with it */
        while (__atomic_load_n(&s->go, __ATOMIC_ACQUIRE) == 0) mo_futex_wait(&s->go, 0);
        mo_role *r = s->role;
        mo_team *t = r->team;
        __atomic_store_n(&s->go, 0, __ATOMIC_RELAXED); /* relaxed: ours until we are listed free */
        mo_implicit_run(t, r->tnum);
        pthread_mutex_lock(&mo_spare_lock); /* free again before thread 0 learns the role is over */
        s->next = mo_spares_free;
        mo_spares_free = s;
        pthread_mutex_unlock(&mo_spare_lock);
        mo_role_leave(t);
    }
    return NULL;
}

/* Whether free spare a is a better choice than b (NULL: none) for thread tnum of the team with
 * serial `team`: never one that played a role of this team already (a team's threads are distinct
 * threads, with distinct threadprivate copies), then the one that was thread tnum most recently
 * (so that the next region of the same size gives thread k the same OS thread, as threadprivate
 * data needs; other spares may have been thread k of older teams). */
static bool mo_spare_better(const mo_spare *a, const mo_spare *b, uint32_t tnum, uint64_t team) {
    if (a->last_team == team) return false;
    if (b == NULL) return true;
    bool a_was = a->last_tnum == tnum, b_was = b->last_tnum == tnum;
    return a_was && (!b_was || a->last_given > b->last_given);
}

/* Starts spare s (taken off the free list, or NULL: a new one) on role r, the given-th role given
 * to a spare. */
static void mo_spare_start(mo_spare *s, mo_role *r, uint64_t given) {
    uint64_t team = r->team->serial;
    if (!s) {
        s = calloc(1, sizeof *s);
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        if (mo_g.stacksize)
            pthread_attr_setstacksize(&attr, mo_g.stacksize < (size_t)PTHREAD_STACK_MIN ? (size_t)PTHREAD_STACK_MIN : mo_g.stacksize);
        pthread_t th;
        int e = s ? pthread_create(&th, &attr, mo_spare_main, s) : ENOMEM;
        pthread_attr_destroy(&attr);
        if (e != 0)
            mo_fatal("could not create a thread for thread %u of an OpenMP team of %u (%s): lower "
                     "num_threads or OMP_NUM_THREADS, or raise the system's limits",
                     r->tnum, r->team->nthreads, strerror(e));
    }
    s->role = r;
    r->spare = s; /* read by thread 0 after the region (ordered by the role's end) */
    s->last_tnum = r->tnum; /* not listed while it plays the role: read when it is again */
    s->last_given = given;
    s->last_team = team;
    __atomic_store_n(&s->go, 1, __ATOMIC_RELEASE); /* release: the role */
    mo_futex_wake(&s->go, 1);
}

void mo_give_to_spare(mo_role *r) {
    uint64_t team = r->team->serial;
    pthread_mutex_lock(&mo_spare_lock);
    mo_spare **at = NULL;
    for (mo_spare **p = &mo_spares_free; *p; p = &(*p)->next)
        if (mo_spare_better(*p, at ? *at : NULL, r->tnum, team)) at = p;
    mo_spare *s = at ? *at : NULL;
    if (s) *at = s->next;
    uint64_t given = ++mo_spares_given;
    pthread_mutex_unlock(&mo_spare_lock);
    mo_spare_start(s, r, given);
}

bool mo_give_to_spare_if_free(mo_role *r, mo_spare *s) {
    pthread_mutex_lock(&mo_spare_lock);
    mo_spare **p = &mo_spares_free;
    while (*p && *p != s) p = &(*p)->next;
    bool found = *p != NULL && s->last_team != r->team->serial;
    if (found) *p = s->next;
    uint64_t given = found ? ++mo_spares_given : 0;
    pthread_mutex_unlock(&mo_spare_lock);
    if (found) mo_spare_start(s, r, given);
    return found;
}
