/* pool.c — starting and stopping the pool: merino_start, start on first use, merino_stop, stop at
 * exit, and what a fork leaves behind. */
#include "core/core.h"
#include "alloc/mem.h"
#include "merino/internal/layer.h"

#include "core/backoff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Serializes starting and stopping; never taken on a task path, nor by anything a task waits for. */
static pthread_mutex_t mrn_lifecycle = PTHREAD_MUTEX_INITIALIZER;

/* The workers the calling thread can share work with. On a worker, those of the pool it runs on:
 * merino_stop clears mrn_running before it waits for the runs in flight, and those runs must go on
 * seeing the pool they run on (a loop sizes its shares by it), which stays until they end; in the
 * child of a fork made from a task only the forking thread is left. Elsewhere, those of the running
 * pool, 0 when none runs or it is stopping. */
unsigned merino_workers(void) {
    /* relaxed: counts for display and sizing; start and stop store them atomically, and on a
     * worker they cannot change until the run ends */
    if (merino__self)
        return __atomic_load_n(&mrn_fork_orphan, __ATOMIC_RELAXED) ? 1 : __atomic_load_n(&mrn_the_pool.count, __ATOMIC_RELAXED);
    return __atomic_load_n(&mrn_running, __ATOMIC_RELAXED) ? __atomic_load_n(&mrn_the_pool.count, __ATOMIC_RELAXED) : 0;
}

unsigned merino_workers_active(void) {
    unsigned n = merino_workers();
    if (n <= 1) return n;
    /* relaxed: a count for display, as merino_workers */
    unsigned parked = __atomic_load_n(&mrn_the_pool.parked, __ATOMIC_RELAXED);
    return parked < n ? n - parked : 1;
}

int merino_worker_index(void) {
    mrn_worker *w = mrn_self();
    return w ? (int)w->index : -1;
}

int merino_version(void) { return MERINO_VERSION; }

/* CORE SEAM (omp, include/merino/internal/layer.h): the CPUs the process may use now (its
 * affinity mask capped by its cgroup's quota), with or without a pool: omp_get_num_procs. */
unsigned merino__cpu_budget(void) {
    mrn_cpu_budget b;
    mrn_read_cpu_budget(&b);
    return mrn_cpu_budget_count(&b);
}

/* ---- fork ----------------------------------------------------------------------------------------- */

/* In the child of a fork only the forking thread exists: the workers are gone. Forget the pool
 * (its memory is leaked: the forking thread may be running on a worker's stack) so that the child
 * can start one again. If the fork was made from a task, the child goes on in that task with no
 * other worker: any wait for a stolen task would never end, so those waits report it instead. */
static void mrn_after_fork_in_child(void) {
    pthread_mutex_t unlocked = PTHREAD_MUTEX_INITIALIZER;
    mrn_lifecycle = unlocked; /* another thread may have held it at the fork */
    if (!__atomic_load_n(&mrn_running, __ATOMIC_RELAXED)) return;
    __atomic_store_n(&mrn_running, 0, __ATOMIC_RELAXED); /* only this thread exists: no ordering */
    if (merino__self) {
        __atomic_store_n(&mrn_fork_orphan, 1, __ATOMIC_RELAXED);
    } else {
        memset(&mrn_the_pool, 0, sizeof mrn_the_pool);
        __atomic_store_n(&mrn_slot_taken, 0, __ATOMIC_RELAXED); /* another thread held it */
    }
}

/* A pool nobody stopped is stopped at exit, unless exit was called from a task or while a run is in
 * flight (say, from another thread outside the pool): the program ends with its tasks running, and
 * merino_stop would wait for that run for ever. */
static void mrn_stop_at_exit(void) {
    if (merino__self || !__atomic_load_n(&mrn_running, __ATOMIC_ACQUIRE)) return;
    /* relaxed: a snapshot; a run that starts after it is one merino_stop waits for, as always */
    if (__atomic_load_n(&mrn_the_pool.active, __ATOMIC_RELAXED) != 0 ||
        __atomic_load_n(&mrn_slot_taken, __ATOMIC_RELAXED) != 0)
        return;
    bool quiet = mrn_error_quiet(true);
    (void)merino_stop();
    mrn_error_quiet(quiet);
}

static pthread_once_t mrn_process_once = PTHREAD_ONCE_INIT;
static void mrn_process_init(void) {
    pthread_atfork(NULL, NULL, mrn_after_fork_in_child);
    atexit(mrn_stop_at_exit);
    mrn_sources_init();
}

/* ---- worker records ------------------------------------------------------------------------------- */

static void mrn_delete_worker(mrn_worker *w) {
    MRN_PROF_WORKER_DELETE(w);
    munmap(w->pub.base, w->map_bytes);
    mrn_mem_free(w);
}

static void mrn_free_workers(mrn_pool *p, unsigned n) {
    if (!p->workers) return;
    for (unsigned i = 0; i < n; i++)
        if (p->workers[i]) mrn_delete_worker(p->workers[i]);
    mrn_mem_free(p->workers);
    p->workers = NULL;
}

static mrn_worker *mrn_new_worker(unsigned index, size_t stack_tasks) {
    mrn_worker *w = mrn_mem_alloc(MRN_CACHE_LINE, sizeof *w);
    if (!w) return NULL;
    memset(w, 0, sizeof *w);
    /* One descriptor more than usable: a sentinel past the end that stays EMPTY, so a thief may
     * read the state at bot == end, and the one above the task it stole, without a bounds check. */
    size_t bytes = (stack_tasks + 1) * sizeof(merino__task) + mrn_view_slots_bytes(stack_tasks);
    void *mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mem == MAP_FAILED) {
        mrn_mem_free(w);
        return NULL;
    }
    w->map_bytes = bytes;
    merino__task *base = mem;
    w->pub.base = base;
    w->pub.end = base + stack_tasks;
    w->view_slots = (void **)(base + stack_tasks + 1); /* after the sentinel; untouched until used */
    w->private_from = w->floor = base; /* everything private until a thief asks */
    w->bot = base;
    w->index = index;
    w->cpu = -1;
    w->rng = 0x9E3779B97F4A7C15ull * (index + 1) | 1;
    if (MRN_PROF_WORKER_NEW(w, stack_tasks) != 0) {
        munmap(mem, bytes);
        mrn_mem_free(w);
        return NULL;
    }
    return w;
}

/* ---- start ---------------------------------------------------------------------------------------- */

/* Starts the pool; the lifecycle lock is held. */
static int mrn_start_locked(const merino_config *cfg) {
    mrn_settings set;
    if (mrn_resolve_config(cfg, &set) != 0) return -1;
    if (MRN_PROF_START() != 0) return -1; /* the profiled variant's settings (MERINO_REPORT) */
    unsigned n = set.workers;
    mrn_pool *p = &mrn_the_pool;
    /* Not a memset: `active` is counted up and down by runs and stats calls that find no pool
     * running, at any time, so it is left as it is (always balanced), and merino_workers reads
     * count meanwhile. relaxed: no thread of this pool exists yet; mrn_running's release below
     * publishes them. */
    p->workers = NULL;
    __atomic_store_n(&p->count, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&p->jobs, NULL, __ATOMIC_RELAXED);
    __atomic_store_n(&p->epoch, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&p->sleepers, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&p->napping, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&p->stopping, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&p->left, 0, __ATOMIC_RELAXED);
    p->stack_tasks = set.stack_tasks;
    p->c_stack_bytes = set.c_stack_bytes;
    /* relaxed: settings read by waits at any time (backoff.h); the threads come after */
    __atomic_store_n(&mrn_idle_spins, set.idle_spins, __ATOMIC_RELAXED);
    __atomic_store_n(&mrn_idle_ns, set.idle_ns, __ATOMIC_RELAXED);
    mrn_budget_init(p, &set.budget);
    p->fence_requests = !mrn_have_barrier_all(); /* registers for the barrier before any thread */
    p->workers = mrn_mem_calloc(n, sizeof *p->workers);
    if (!p->workers) goto out_of_memory;
    for (unsigned i = 0; i < n; i++) {
        if (!(p->workers[i] = mrn_new_worker(i, set.stack_tasks))) goto out_of_memory;
        p->workers[i]->cpu = mrn_worker_cpu(&set, i);
    }
    p->workers[0]->caller_slot = true; /* record 0: threads that call in (enter.c) */
    __atomic_store_n(&p->count, n, __ATOMIC_RELAXED); /* published by mrn_running's release */
    __atomic_store_n(&p->allowed, n, __ATOMIC_RELAXED); /* the same; the budget moves it later */

    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, set.c_stack_bytes);
    /* A guard larger than glibc's one page, so that a large frame cannot step over it into other
     * memory: the overflow then faults, and stack_guard.c reports it. Added to the stack's size. */
    pthread_attr_setguardsize(&attr, (size_t)64 << 10);
    for (unsigned i = 1; i < n; i++) {
        if (pthread_create(&p->workers[i]->thread, &attr, mrn_worker_main, p->workers[i]) != 0) {
            /* release: the threads made so far wait for i records, not n, at start and at exit */
            __atomic_store_n(&p->count, i, __ATOMIC_RELEASE);
            __atomic_store_n(&p->stopping, 1, __ATOMIC_RELEASE);
            mrn_wake_all();
            for (unsigned j = 1; j < i; j++) pthread_join(p->workers[j]->thread, NULL);
            pthread_attr_destroy(&attr);
            mrn_free_workers(p, n);
            __atomic_store_n(&p->count, 0, __ATOMIC_RELAXED);
            mrn_error("could not create pool thread %u of %u (for %u workers): the system limits "
                      "threads or memory; lower MERINO_WORKERS, or the C stack of each worker "
                      "(MERINO_C_STACK, now %zu MiB), or raise the limits (ulimit -u, ulimit -v)",
                      i, n - 1, n, set.c_stack_bytes >> 20);
            return -1;
        }
    }
    pthread_attr_destroy(&attr);
    /* Thieves reach a victim's thread-local words through pointers the victim sets up itself. */
    for (unsigned i = 1; i < n; i++)
        while (!__atomic_load_n(&p->workers[i]->ready, __ATOMIC_ACQUIRE)) sched_yield(); /* acquire: its pointers */
    /* release: the pool is built before anyone sees merino running */
    __atomic_store_n(&mrn_running, 1, __ATOMIC_RELEASE);
    return 0;

out_of_memory:
    mrn_free_workers(p, n);
    mrn_error("out of memory starting %u workers with %zu task descriptors each: lower "
              "MERINO_WORKERS or MERINO_TASK_STACK",
              n, set.stack_tasks);
    return -1;
}

static int mrn_start(const merino_config *cfg, bool if_needed) {
    if (merino__self) {
        mrn_error("merino_start called from a task: start merino once, from a thread that is not "
                  "one of its workers");
        return -1;
    }
    pthread_once(&mrn_process_once, mrn_process_init);
    bool quiet = mrn_error_quiet(cfg && cfg->quiet);
    pthread_mutex_lock(&mrn_lifecycle);
    int r;
    if (__atomic_load_n(&mrn_running, __ATOMIC_RELAXED)) {
        r = if_needed ? 0 : -1;
        if (r) mrn_error("merino_start called while merino is already running (started by "
                         "merino_start or by a first MERINO_RUN): call merino_stop() first, or "
                         "merino_ensure_started() to use the running pool");
    } else {
        r = mrn_start_locked(cfg);
    }
    pthread_mutex_unlock(&mrn_lifecycle);
    mrn_error_quiet(quiet);
    return r;
}

int merino_start(const merino_config *cfg) { return mrn_start(cfg, false); }

/* Calls fn on the pool's records, if there are any, while no start or stop can change them. */
void mrn_with_pool_locked(void (*fn)(mrn_pool *p)) {
    pthread_mutex_lock(&mrn_lifecycle);
    if (mrn_the_pool.workers) fn(&mrn_the_pool);
    pthread_mutex_unlock(&mrn_lifecycle);
}
int merino_ensure_started(const merino_config *cfg) { return mrn_start(cfg, true); }
/* Quiet: its caller says why in the one line it prints (enter.c). */
int mrn_start_default(void) {
    merino_config cfg = {0}; /* zero: every setting from the environment or its default */
    cfg.quiet = 1;
    return mrn_start(&cfg, true);
}

/* ---- stop ----------------------------------------------------------------------------------------- */

int merino_stop(void) {
    if (merino__self) {
        mrn_error("merino_stop called from a task: stop merino from a thread outside the pool, "
                  "after its last MERINO_RUN has returned");
        return -1;
    }
    pthread_mutex_lock(&mrn_lifecycle);
    if (!__atomic_load_n(&mrn_running, __ATOMIC_RELAXED)) {
        pthread_mutex_unlock(&mrn_lifecycle);
        mrn_error("merino_stop called while merino is not running: call merino_start() first, "
                  "and merino_stop() once per start");
        return -1;
    }
    mrn_pool *p = &mrn_the_pool;
    /* seq_cst: with merino__run_external's increment of active and load of mrn_running (enter.c):
     * a run either sees the pool stopping (and waits for us to start a new one) or is counted */
    __atomic_store_n(&mrn_running, 0, __ATOMIC_SEQ_CST);
    /* seq_cst: the other half of the pairs in merino__run_external (enter.c): runs in flight end */
    while (__atomic_load_n(&p->active, __ATOMIC_SEQ_CST) != 0 || __atomic_load_n(&mrn_slot_taken, __ATOMIC_SEQ_CST) != 0)
        sched_yield();
    /* release: pairs with the workers' acquire load; seq_cst via the wake: a sleeper that checked
     * stopping before this store is woken by the epoch bump */
    __atomic_store_n(&p->stopping, 1, __ATOMIC_SEQ_CST);
    __atomic_fetch_add(&p->epoch, 1, __ATOMIC_SEQ_CST);
    mrn_futex_wake(&p->epoch, INT32_MAX);
    /* Workers parked over the CPU budget (sleep.c): a new value makes the futex wait of one that
     * checked stopping just before the store above return at once, instead of at its time-out.
     * relaxed: a futex word; the workers re-read stopping (seq_cst above) after waking. */
    __atomic_store_n(&p->allowed, MERINO_MAX_WORKERS, __ATOMIC_RELAXED);
    mrn_futex_wake(&p->allowed, INT32_MAX);
    unsigned n = __atomic_load_n(&p->count, __ATOMIC_RELAXED);
    for (unsigned i = 1; i < n; i++) pthread_join(p->workers[i]->thread, NULL);
    MRN_PROF_POOL_STOP(p);
    mrn_free_workers(p, n);
    __atomic_store_n(&p->count, 0, __ATOMIC_RELAXED); /* relaxed: merino_workers reads it as a count */
    pthread_mutex_unlock(&mrn_lifecycle);
    return 0;
}
