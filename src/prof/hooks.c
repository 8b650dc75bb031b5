/* hooks.c — the profiler's side of the core's hooks (src/core/prof_hooks.h): the strands of work
 * and span (the inline half is include/merino/internal/prof.h), the CPU-time categories of each
 * worker, the counters the core does not keep, and the root tasks that make up the program. */
#include "prof.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

MERINO_API __thread merino__prof_ctx merino__prof_here __attribute__((tls_model("initial-exec")));

mrn_prof_state mrn_prof = {.lock = PTHREAD_MUTEX_INITIALIZER};

#if !(defined(__x86_64__) || defined(__i386__))
uint64_t merino__prof_ticks_slow(void) { return mrn_clock_ns(); }
#endif

/* ---- ticks to seconds ---------------------------------------------------------------------------- */

/* The TSC against the monotonic clock, from the library's load to the first conversion (at least
 * 10 ms: a wait only for a figure asked for at once), then fixed, so that the differences of two
 * figures (regions) are exact. */
static uint64_t mrn_tsc0, mrn_ns0;
static double mrn_ticks_per_ns; /* atomic: 0 until calibrated; any thread's result is as good */

__attribute__((constructor)) static void mrn_prof_calibrate_start(void) {
    mrn_ns0 = mrn_clock_ns();
    mrn_tsc0 = merino__prof_ticks();
}

double mrn_prof_seconds(uint64_t ticks) {
    double rate;
    __atomic_load(&mrn_ticks_per_ns, &rate, __ATOMIC_RELAXED); /* relaxed: the value alone */
    if (rate == 0) {
        uint64_t ns, tsc;
        do {
            ns = mrn_clock_ns();
            tsc = merino__prof_ticks();
        } while (ns - mrn_ns0 < 10000000);
        double r = (double)(tsc - mrn_tsc0) / (double)(ns - mrn_ns0);
        double zero = 0;
        /* relaxed: the first rate stored wins, so that every figure uses the same one */
        if (!__atomic_compare_exchange(&mrn_ticks_per_ns, &zero, &r, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            r = zero;
        rate = r;
    }
    return (double)ticks / rate * 1e-9;
}

/* ---- preemption: the thread's run delay ---------------------------------------------------------- */

/* The run delay (ns spent runnable but not running: the second field of schedstat) of this thread,
 * read through a descriptor kept open; the value at the last correction or sync. */
static __thread int mrn_delay_fd; /* 0: not opened yet; -1: unavailable; else fd + 1 */
static __thread uint64_t mrn_delay_seen;
static pthread_key_t mrn_delay_key;
static pthread_once_t mrn_delay_once = PTHREAD_ONCE_INIT;

static void mrn_delay_close(void *fd1) { close((int)(intptr_t)fd1 - 1); }
static void mrn_delay_make_key(void) { (void)pthread_key_create(&mrn_delay_key, mrn_delay_close); }

static bool mrn_delay_read(uint64_t *ns) {
    if (mrn_delay_fd == 0) {
        int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
        mrn_delay_fd = fd < 0 ? -1 : fd + 1;
        if (fd >= 0) { /* closed at the thread's exit */
            pthread_once(&mrn_delay_once, mrn_delay_make_key);
            (void)pthread_setspecific(mrn_delay_key, (void *)(intptr_t)mrn_delay_fd);
        }
    }
    if (mrn_delay_fd < 0) return false;
    char buf[128];
    ssize_t n = pread(mrn_delay_fd - 1, buf, sizeof buf - 1, 0);
    if (n <= 0) return false;
    buf[n] = '\0';
    char *end;
    (void)strtoull(buf, &end, 10); /* time on a CPU */
    *ns = strtoull(end, NULL, 10);
    return true;
}

/* A fresh strand starts here (a task acquired, a root task): delay so far is not the strand's. */
void mrn_delay_sync(void) {
    uint64_t ns;
    if (mrn_delay_read(&ns)) mrn_delay_seen = ns;
}

/* The TSC rate for the correction: the calibrated one, else the best estimate so far. */
static double mrn_rough_rate(void) {
    double rate;
    __atomic_load(&mrn_ticks_per_ns, &rate, __ATOMIC_RELAXED); /* relaxed: the value alone */
    if (rate > 0) return rate;
    uint64_t ns = mrn_clock_ns() - mrn_ns0;
    return ns > 1000000 ? (double)(merino__prof_ticks() - mrn_tsc0) / (double)ns : 1.0;
}

/* A long strand: less the time this thread waited for a processor since the last look (any
 * earlier wait of a few microseconds or more made its own strand long, and was taken out then). */
uint64_t merino__prof_long(uint64_t ticks) {
    uint64_t ns;
    if (!mrn_delay_read(&ns)) return ticks;
    uint64_t waited = (uint64_t)((double)(ns - mrn_delay_seen) * mrn_rough_rate());
    mrn_delay_seen = ns;
    return ticks > waited ? ticks - waited : 0;
}

/* ---- P_A: CPU time of the process's threads ------------------------------------------------------ */

/* The CPU time of the process's threads: the sum of the first field of /proc/self/task/<tid>/schedstat
 * over the threads (and of those that have exited), as the kernel keeps it — except that it brings
 * the running threads' time up to date when asked this way, where their schedstat lags up to a
 * scheduler tick; and it is one system call, not a file per thread. */
uint64_t mrn_prof_cpu_ns(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- this thread: its category of time ------------------------------------------------------------ */

typedef struct mrn_prof_thread {
    unsigned cat;   /* what the time since `since` is charged to (MRN_CAT_NONE: nothing) */
    uint64_t since;
    unsigned la;    /* > 0: the running task was acquired by leapfrogging (or is inside one) */
    bool lf_try;    /* the next steal is a leapfrog */
    uint64_t root_work0;
} mrn_prof_thread;

static __thread mrn_prof_thread mrn_pt = {.cat = MRN_CAT_NONE};

static mrn_prof_rec *mrn_prof_rec_self(void) {
    mrn_worker *w = mrn_self();
    return w ? mrn_prof.recs[w->index] : NULL;
}

static void mrn_prof_add(uint64_t *c, uint64_t v) {
    __atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + v, __ATOMIC_RELAXED); /* one writer */
}

/* Charges the time since the last switch, and switches to cat. Returns the category left. */
static unsigned mrn_prof_switch_at(unsigned cat, uint64_t now) {
    unsigned old = mrn_pt.cat;
    if (old != MRN_CAT_NONE) {
        mrn_prof_rec *r = mrn_prof_rec_self();
        if (r) mrn_prof_add(&r->time[old], now - mrn_pt.since);
    }
    mrn_pt.cat = cat;
    mrn_pt.since = now;
    return old;
}

unsigned mrn_prof_switch(unsigned cat) { return mrn_prof_switch_at(cat, merino__prof_ticks()); }

unsigned mrn_prof_app(void) { return mrn_pt.la ? MERINO_PROF_APP_LEAPFROG : MERINO_PROF_APP; }

/* ---- pool start and stop, worker records --------------------------------------------------------- */

/* In the child of a fork only the forking thread exists (the core forgets its pool, pool.c): the
 * lock may have been held by a thread that is gone, and no root task runs. */
static void mrn_prof_after_fork_in_child(void) {
    pthread_mutex_t unlocked = PTHREAD_MUTEX_INITIALIZER;
    mrn_prof.lock = unlocked;
    mrn_prof.in_flight = 0;
    for (unsigned i = 0; i < MERINO_MAX_WORKERS; i++) mrn_prof.recs[i] = NULL; /* leaked with the pool */
}

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

int mrn_prof_worker_new(mrn_worker *w, size_t stack_tasks) {
    size_t bytes = (stack_tasks + 1) * sizeof(merino__prof_slot); /* the sentinel's too */
    void *slots = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (slots == MAP_FAILED) return -1;
    mrn_prof_rec *r = calloc(1, sizeof *r);
    if (!r) {
        munmap(slots, bytes);
        return -1;
    }
    r->w = w;
    w->pub.prof_slots = slots;
    pthread_mutex_lock(&mrn_prof.lock);
    mrn_prof.recs[w->index] = r;
    if (w->index >= mrn_prof.seen) mrn_prof.seen = w->index + 1;
    if (w->index + 1 > mrn_prof.workers || w->index == 0) mrn_prof.workers = w->index + 1;
    pthread_mutex_unlock(&mrn_prof.lock);
    return 0;
}

void mrn_prof_worker_delete(mrn_worker *w) {
    pthread_mutex_lock(&mrn_prof.lock);
    if (mrn_prof.recs[w->index] && mrn_prof.recs[w->index]->w == w) {
        free(mrn_prof.recs[w->index]);
        mrn_prof.recs[w->index] = NULL;
    }
    pthread_mutex_unlock(&mrn_prof.lock);
    munmap(w->pub.prof_slots, (w->map_bytes / sizeof(merino__task)) * sizeof(merino__prof_slot));
}

/* A live record's counters, in merino_prof_report's order (mrn_prof_totals.counts). */
static void mrn_prof_read(const mrn_prof_rec *r, uint64_t c[10]) {
    const mrn_worker *w = r->w;
    /* relaxed: each counter has one writer; no data hangs on them */
    c[0] = __atomic_load_n(&w->pub.spawns, __ATOMIC_RELAXED);
    c[1] = __atomic_load_n(&w->pub.prof_inlined, __ATOMIC_RELAXED);
    c[2] = __atomic_load_n(&w->steals, __ATOMIC_RELAXED);
    c[3] = __atomic_load_n(&r->failed_steals, __ATOMIC_RELAXED);
    c[4] = __atomic_load_n(&w->leapfrogs, __ATOMIC_RELAXED);
    c[5] = __atomic_load_n(&w->publishes, __ATOMIC_RELAXED);
    c[6] = __atomic_load_n(&w->privatizations, __ATOMIC_RELAXED);
    c[7] = __atomic_load_n(&r->sleeps, __ATOMIC_RELAXED);
    c[8] = __atomic_load_n(&r->wakes, __ATOMIC_RELAXED);
    c[9] = 0;
}

/* merino_stop, the threads joined: fold every record into the totals before the records go. */
void mrn_prof_pool_stop(mrn_pool *p) {
    pthread_mutex_lock(&mrn_prof.lock);
    for (unsigned i = 0; i < p->count; i++) {
        mrn_prof_rec *r = mrn_prof.recs[i];
        if (!r) continue;
        uint64_t c[10];
        mrn_prof_read(r, c);
        for (unsigned k = 0; k < 10; k++) mrn_prof.totals[i].counts[k] += c[k];
        for (unsigned k = 0; k < MERINO_PROF_TIMES; k++)
            mrn_prof.totals[i].time[k] += __atomic_load_n(&r->time[k], __ATOMIC_RELAXED);
        free(r);
        mrn_prof.recs[i] = NULL;
    }
    pthread_mutex_unlock(&mrn_prof.lock);
}

/* Sums the totals and the live records: all workers (only < 0) or worker `only`. */
void mrn_prof_collect(merino_prof_report *out, int only) {
    uint64_t c[10] = {0}, t[MERINO_PROF_TIMES] = {0};
    pthread_mutex_lock(&mrn_prof.lock);
    for (unsigned i = 0; i < mrn_prof.seen; i++) {
        if (only >= 0 && i != (unsigned)only) continue;
        for (unsigned k = 0; k < 10; k++) c[k] += mrn_prof.totals[i].counts[k];
        for (unsigned k = 0; k < MERINO_PROF_TIMES; k++) t[k] += mrn_prof.totals[i].time[k];
        mrn_prof_rec *r = mrn_prof.recs[i];
        if (!r) continue;
        uint64_t l[10];
        mrn_prof_read(r, l);
        for (unsigned k = 0; k < 10; k++) c[k] += l[k];
        for (unsigned k = 0; k < MERINO_PROF_TIMES; k++) t[k] += __atomic_load_n(&r->time[k], __ATOMIC_RELAXED);
    }
    if (only < 0) c[8] += __atomic_load_n(&mrn_prof.outside_wakes, __ATOMIC_RELAXED);
    out->workers = mrn_prof.workers;
    out->spawns = c[0];
    out->inlined = c[1];
    out->steals = c[2];
    out->failed_steals = c[3];
    out->leapfrogs = c[4];
    out->publishes = c[5];
    out->privatizations = c[6];
    out->sleeps = c[7];
    out->wakes = c[8];
    uint64_t work = mrn_prof.work, span = mrn_prof.span, bspan = mrn_prof.bspan;
    uint64_t elapsed = mrn_prof.elapsed_ns, cpu = mrn_prof.cpu_ns;
    pthread_mutex_unlock(&mrn_prof.lock);
    for (unsigned k = 0; k < MERINO_PROF_TIMES; k++) out->time[k] = mrn_prof_seconds(t[k]);
    if (only >= 0) return;
    out->total.work = mrn_prof_seconds(work);
    out->total.span = mrn_prof_seconds(span);
    out->total.burdened_span = mrn_prof_seconds(bspan);
    out->parallelism = span ? (double)work / (double)span : 0;
    out->burdened_parallelism = bspan ? (double)work / (double)bspan : 0;
    out->elapsed = (double)elapsed * 1e-9;
    out->cpu = (double)cpu * 1e-9;
    out->processors = elapsed ? (double)cpu / (double)elapsed : 0;
    out->predicted = out->processors > 0
                         ? (out->total.work + out->total.span * out->workers) / out->processors
                         : 0;
}

/* ---- a pool thread's life, the idle loop -------------------------------------------------------- */

void mrn_prof_thread_begin(void) {
    mrn_pt.la = 0;
    mrn_pt.lf_try = false;
    mrn_prof_switch(MERINO_PROF_STARTUP); /* charged once the record is bound (loop_begin) */
}
void mrn_prof_loop_begin(void) { mrn_prof_switch(MERINO_PROF_IDLE); }
void mrn_prof_loop_end(void) { mrn_prof_switch(MERINO_PROF_STARTUP); }
void mrn_prof_thread_end(void) { mrn_prof_switch(MRN_CAT_NONE); }
void mrn_prof_find_begin(void) { mrn_prof_switch(MERINO_PROF_STEAL); }
void mrn_prof_find_end(void) { mrn_prof_switch(MERINO_PROF_IDLE); }

void mrn_prof_steal_failed(void) {
    mrn_prof_rec *r = mrn_prof_rec_self();
    if (r) merino__count(&r->failed_steals);
}

void mrn_prof_sleep(void) {
    mrn_prof_rec *r = mrn_prof_rec_self();
    if (r) merino__count(&r->sleeps);
}

void mrn_prof_wake(void) {
    mrn_prof_rec *r = mrn_prof_rec_self();
    if (r)
        merino__count(&r->wakes);
    else
        __atomic_fetch_add(&mrn_prof.outside_wakes, 1, __ATOMIC_RELAXED); /* many writers; a count */
}

void mrn_prof_leapfrog_try(void) { mrn_pt.lf_try = true; }

/* ---- tasks acquired by a thief or a job, and the join of a stolen task -------------------------- */

/* A context starting at the spawn point (span, bspan) plus a steal's burden, with no work yet. */
static mrn_prof_saved mrn_prof_enter(uint64_t span, uint64_t bspan) {
    mrn_prof_saved sv = {.ctx = merino__prof_here, .cat = mrn_pt.cat, .la = mrn_pt.la};
    if (mrn_pt.lf_try) {
        mrn_pt.la++;
        mrn_pt.lf_try = false;
    }
    mrn_delay_sync(); /* a system call: before the strand's first tick, or it lands on the span */
    uint64_t now = merino__prof_ticks();
    merino__prof_ctx c = {.mark = now, .work = 0, .span = span, .bspan = bspan};
    merino__prof_here = c;
    mrn_prof_switch_at(mrn_prof_app(), now);
    return sv;
}

/* Ends the acquired task's last strand and goes back to what the thread was doing. */
static void mrn_prof_leave(const mrn_prof_saved *sv, uint64_t *work, uint64_t *span, uint64_t *bspan) {
    merino__prof_strand(&merino__prof_here);
    mrn_prof_join_chunks(&merino__prof_here); /* the loop chunks this task ran end with it */
    *work = merino__prof_here.work;
    *span = merino__prof_here.span;
    *bspan = merino__prof_here.bspan;
    uint64_t now = merino__prof_here.mark;
    merino__prof_here = sv->ctx;
    mrn_prof_switch_at(sv->cat, now);
    mrn_pt.la = sv->la;
}

mrn_prof_saved mrn_prof_task_begin(mrn_worker *victim, merino__task *t) {
    merino__prof_slot *s = merino__prof_slot_of(&victim->pub, t);
    return mrn_prof_enter(s->at_span, s->at_bspan + MERINO__PROF_BURDEN);
}

/* Before the thief's release store of DONE, which publishes the slot to the joining owner. */
void mrn_prof_task_end(mrn_worker *victim, merino__task *t, const mrn_prof_saved *sv) {
    merino__prof_slot *s = merino__prof_slot_of(&victim->pub, t);
    mrn_prof_leave(sv, &s->work, &s->span, &s->bspan);
}

mrn_prof_saved mrn_prof_job_begin(mrn_job *job) { return mrn_prof_enter(job->prof_span, job->prof_bspan); }

void mrn_prof_job_end(mrn_job *job, const mrn_prof_saved *sv) {
    mrn_prof_leave(sv, &job->prof_work, &job->prof_span, &job->prof_bspan);
}

void mrn_prof_join_slow_begin(void) { merino__prof_strand(&merino__prof_here); }

/* The slow join's own time is the runtime's, not the task's. */
void mrn_prof_join_slow_inline(void) { merino__prof_here.mark = merino__prof_ticks(); }

/* The thief's figures, published by its DONE store (the owner's acquire load saw DONE). */
void mrn_prof_joined_stolen(mrn_worker *w, merino__task *t) {
    const merino__prof_slot *s = merino__prof_slot_of(&w->pub, t);
    merino__prof_ctx *c = &merino__prof_here;
    c->work += s->work;
    if (c->span < s->span) c->span = s->span;
    if (c->bspan < s->bspan) c->bspan = s->bspan;
    mrn_delay_sync();
    c->mark = merino__prof_ticks(); /* the wait was not work */
}

unsigned mrn_prof_wait_begin(void) { return mrn_prof_switch(MERINO_PROF_LEAPFROG); }

void mrn_prof_wait_end(unsigned cat) {
    mrn_pt.lf_try = false;
    mrn_prof_switch(cat);
}

/* ---- root tasks: the program's work, span, T_P and P_A ------------------------------------------ */

static void mrn_prof_max(uint64_t *m, uint64_t v) {
    if (*m < v) *m = v;
}

/* A thread outside the pool starts a root task: in the caller slot (merino__self is set), or
 * handed over. The program's T_P is the time during which some root task runs. */
void mrn_prof_root_begin(void) {
    uint64_t now_ns = mrn_clock_ns();
    pthread_mutex_lock(&mrn_prof.lock);
    if (mrn_prof.in_flight++ == 0) {
        mrn_prof.flight_start_ns = now_ns;
        mrn_prof.cpu_start_ns = mrn_prof_cpu_ns();
    }
    pthread_mutex_unlock(&mrn_prof.lock);
    mrn_pt.root_work0 = merino__prof_here.work;
    mrn_delay_sync();
    uint64_t now = merino__prof_ticks();
    merino__prof_here.mark = now; /* the thread's own code between root tasks is not measured */
    if (merino__self) mrn_prof_switch_at(MERINO_PROF_APP, now);
}

void mrn_prof_root_end(void) {
    merino__prof_ctx *c = &merino__prof_here;
    merino__prof_strand(c);
    mrn_prof_join_chunks(c);
    if (merino__self) mrn_prof_switch_at(MRN_CAT_NONE, c->mark);
    pthread_mutex_lock(&mrn_prof.lock);
    mrn_prof.work += c->work - mrn_pt.root_work0;
    mrn_prof_max(&mrn_prof.span, c->span);
    mrn_prof_max(&mrn_prof.bspan, c->bspan);
    if (--mrn_prof.in_flight == 0) {
        mrn_prof.elapsed_ns += mrn_clock_ns() - mrn_prof.flight_start_ns;
        uint64_t cpu = mrn_prof_cpu_ns();
        if (cpu > mrn_prof.cpu_start_ns) mrn_prof.cpu_ns += cpu - mrn_prof.cpu_start_ns;
    }
    pthread_mutex_unlock(&mrn_prof.lock);
}

void mrn_prof_hand_over(mrn_job *job) {
    job->prof_span = merino__prof_here.span;
    job->prof_bspan = merino__prof_here.bspan;
}

/* The job's figures, published by the runner's release exchange of done (our acquire saw 1). */
void mrn_prof_handed_back(mrn_job *job) {
    merino__prof_ctx *c = &merino__prof_here;
    c->work += job->prof_work;
    c->span = job->prof_span;
    c->bspan = job->prof_bspan;
    c->mark = merino__prof_ticks();
}

/* ---- regions (the public API) -------------------------------------------------------------------- */

merino_wsp merino_wsp_now(void) {
    merino__prof_ctx *c = &merino__prof_here;
    /* In a task (on a worker) the running strand ends here; outside, between root tasks, the
     * thread's own code is not measured. */
    if (merino__self) merino__prof_strand(c);
    merino_wsp w = {mrn_prof_seconds(c->work), mrn_prof_seconds(c->span), mrn_prof_seconds(c->bspan)};
    /* The conversion is the profiler's time, not the next strand's: the first one in a process
     * waits up to 10 ms for the TSC's rate. */
    if (merino__self) c->mark = merino__prof_ticks();
    return w;
}

static void mrn_prof_add_row(merino_wsp w, const char *tag) {
    char *copy = strdup(tag ? tag : "");
    if (!copy) return;
    pthread_mutex_lock(&mrn_prof.lock);
    if (mrn_prof.nrows == mrn_prof.cap_rows) {
        size_t cap = mrn_prof.cap_rows ? 2 * mrn_prof.cap_rows : 16;
        mrn_prof_row *rows = realloc(mrn_prof.rows, cap * sizeof *rows);
        if (!rows) {
            pthread_mutex_unlock(&mrn_prof.lock);
            free(copy);
            return;
        }
        mrn_prof.rows = rows;
        mrn_prof.cap_rows = cap;
    }
    mrn_prof.rows[mrn_prof.nrows++] = (mrn_prof_row){copy, w};
    pthread_mutex_unlock(&mrn_prof.lock);
}

/* In a task, the running strand ends here and the next begins after the row is kept: the copy and
 * the lock are the profiler's time, not the program's. */
void merino_wsp_dump(merino_wsp w, const char *tag) {
    if (merino__self) merino__prof_strand(&merino__prof_here);
    mrn_prof_add_row(w, tag);
    if (merino__self) merino__prof_here.mark = merino__prof_ticks();
}
