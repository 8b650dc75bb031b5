/* pool.c — starting and stopping the workers, and MERINO_RUN from threads that are not workers. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

__thread merino_worker *merino__self __attribute__((tls_model("initial-exec")));
__thread uintptr_t merino__limit __attribute__((tls_model("initial-exec")));
__thread uintptr_t merino__split __attribute__((tls_model("initial-exec")));

mrn_pool mrn_the_pool;
uint32_t mrn_running;

/* Serializes merino_start, merino_stop and the counters' readers; never taken on a task path. */
static pthread_mutex_t mrn_lifecycle = PTHREAD_MUTEX_INITIALIZER;


unsigned merino_workers(void) {
    /* acquire: pairs with merino_start's release store of mrn_running: count is set */
    return __atomic_load_n(&mrn_running, __ATOMIC_ACQUIRE) ? mrn_the_pool.count : 0;
}

int merino_worker_index(void) {
    return merino__self ? (int)mrn_full(merino__self)->index : -1;
}

/* ---- fork -------------------------------------------------------------------------------------- */

uint32_t mrn_fork_orphan;

/* In the child of a fork only the forking thread exists: the workers are gone. Forget the pool
 * (its memory is leaked: the forking thread may be running on a worker's stack) so that the child
 * can call merino_start again, or gets a clear error from MERINO_RUN. If the fork was made from a
 * task, the child goes on in that task with no other worker: any wait for a stolen task would
 * never end, so those waits report it instead (mrn_fork_orphan). */
static void mrn_after_fork_in_child(void) {
    pthread_mutex_t unlocked = PTHREAD_MUTEX_INITIALIZER;
    mrn_lifecycle = unlocked; /* another thread may have held it at the fork */
    if (!__atomic_load_n(&mrn_running, __ATOMIC_RELAXED)) return;
    __atomic_store_n(&mrn_running, 0, __ATOMIC_RELAXED); /* only this thread exists: no ordering */
    if (merino__self)
        __atomic_store_n(&mrn_fork_orphan, 1, __ATOMIC_RELAXED);
    else
        memset(&mrn_the_pool, 0, sizeof mrn_the_pool);
}

static pthread_once_t mrn_atfork_once = PTHREAD_ONCE_INIT;
static void mrn_register_atfork(void) { pthread_atfork(NULL, NULL, mrn_after_fork_in_child); }

__attribute__((noreturn, cold)) void mrn_orphan_wait(void) {
    mrn_fatal("a task waits for a task stolen by a worker that does not exist in this process: "
              "fork() was called from a task, and the child has only the forking thread; in such a "
              "child, call only exec or _exit, or fork from outside merino's tasks");
}

/* ---- counters ------------------------------------------------------------------------------------- */

void merino_stats_get(merino_stats *out) {
    merino_stats sum = {0};
    pthread_mutex_lock(&mrn_lifecycle); /* the workers stay while we read */
    if (__atomic_load_n(&mrn_running, __ATOMIC_ACQUIRE)) {
        for (unsigned i = 0; i < mrn_the_pool.count; i++) {
            mrn_worker *w = mrn_the_pool.workers[i];
            /* relaxed: each counter has one writer; no data hangs on them */
            sum.spawns += __atomic_load_n(&w->pub.spawns, __ATOMIC_RELAXED);
            sum.steals += __atomic_load_n(&w->steals, __ATOMIC_RELAXED);
            sum.leapfrogs += __atomic_load_n(&w->leapfrogs, __ATOMIC_RELAXED);
            sum.publishes += __atomic_load_n(&w->publishes, __ATOMIC_RELAXED);
            sum.privatizations += __atomic_load_n(&w->privatizations, __ATOMIC_RELAXED);
        }
    }
    pthread_mutex_unlock(&mrn_lifecycle);
    *out = sum;
}

void merino_stats_reset(void) {
    pthread_mutex_lock(&mrn_lifecycle);
    if (__atomic_load_n(&mrn_running, __ATOMIC_ACQUIRE)) {
        for (unsigned i = 0; i < mrn_the_pool.count; i++) {
            mrn_worker *w = mrn_the_pool.workers[i];
            /* relaxed: called while no task runs, so nobody else writes them */
            __atomic_store_n(&w->pub.spawns, 0, __ATOMIC_RELAXED);
            __atomic_store_n(&w->steals, 0, __ATOMIC_RELAXED);
            __atomic_store_n(&w->leapfrogs, 0, __ATOMIC_RELAXED);
            __atomic_store_n(&w->publishes, 0, __ATOMIC_RELAXED);
            __atomic_store_n(&w->privatizations, 0, __ATOMIC_RELAXED);
        }
    }
    pthread_mutex_unlock(&mrn_lifecycle);
}

/* ---- MERINO_RUN from outside the pool ------------------------------------------------------------- */

void merino__run_root(merino_task *t, merino__wrap_fn wrap) {
    mrn_pool *p = &mrn_the_pool;
    /* acquire: pairs with merino_start's release: the pool is fully built */
    if (MERINO__UNLIKELY(!__atomic_load_n(&mrn_running, __ATOMIC_ACQUIRE)))
        mrn_fatal("MERINO_RUN called while merino is not running: call merino_start() first (and "
                  "merino_stop() only after the last MERINO_RUN)");
    mrn_job job = {.task = t, .wrap = wrap};
    /* relaxed: steers sleeping only; ordered before the wake-up check by mrn_wake_all's seq_cst */
    __atomic_fetch_add(&p->active, 1, __ATOMIC_SEQ_CST);
    mrn_job *old = __atomic_load_n(&p->jobs, __ATOMIC_RELAXED);
    do job.next = old; /* release: publishes the job and the task's arguments to the taker */
    while (!__atomic_compare_exchange_n(&p->jobs, &old, &job, true, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
    mrn_wake_all();

    /* Wait: spin briefly (short tasks), then sleep on the futex. done: 0 running, 2 we sleep, 1 done.
     * Briefly: with as many workers as CPUs, this thread spinning takes a CPU from a worker. */
    for (unsigned i = 0; i < MRN_SUBMIT_SPINS; i++) {
        /* acquire: pairs with the worker's release exchange: the result */
        if (__atomic_load_n(&job.done, __ATOMIC_ACQUIRE) == 1) return;
        mrn_cpu_relax();
    }
    uint32_t expected = 0;
    /* acquire on failure: the worker finished (done == 1) and its result is visible */
    if (!__atomic_compare_exchange_n(&job.done, &expected, 2, false, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE))
        return;
    while (__atomic_load_n(&job.done, __ATOMIC_ACQUIRE) != 1) mrn_futex_wait(&job.done, 2);
}

/* ---- start and stop ------------------------------------------------------------------------------- */

static void mrn_delete_worker(mrn_worker *w) {
    if (w->shadow) mrn_delete_worker(w->shadow);
    munmap(w->pub.base, w->map_bytes);
    free(w);
}

static void mrn_free_workers(mrn_pool *p, unsigned n) {
    for (unsigned i = 0; i < n; i++)
        if (p->workers[i]) mrn_delete_worker(p->workers[i]);
    free(p->workers);
    p->workers = NULL;
}

static mrn_worker *mrn_new_worker(unsigned index, size_t stack_tasks) {
    mrn_worker *w = aligned_alloc(MRN_CACHE_LINE, sizeof *w);
    if (!w) return NULL;
    memset(w, 0, sizeof *w);
    /* One descriptor more than usable: a sentinel past the end that stays EMPTY, so a thief may
     * read the state at bot == end, and the one above the task it stole, without a bounds check. */
    size_t bytes = (stack_tasks + 1) * sizeof(merino_task);
    void *mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mem == MAP_FAILED) {
        free(w);
        return NULL;
    }
    w->map_bytes = bytes;
    merino_task *base = mem;
    w->pub.base = base;
    w->pub.top = base;
    w->pub.end = base + stack_tasks;
    w->private_from = base; /* everything private until a thief asks */
    w->bot = base;
    w->index = index;
    w->cpu = -1; /* unbound unless merino_start says otherwise; private stacks are not threads */
    w->rng = 0x9E3779B97F4A7C15ull * (index + 1) | 1;
    return w;
}

/* ---- private stacks for MERINO_RUN inside a C task body's callees ------------------------------- */

/* MERINO_RUN: the task's arguments are in t; its wrapper runs it and leaves the result in t.
 * A C task body keeps its top in a register, so a plain function it calls cannot know where the
 * worker's next free descriptor is. A MERINO_RUN there runs on a stack of its own that no thief
 * sees: a worker record that is never published (its tasks stay private, its joins need no
 * atomic). One is kept per worker for reuse; nested ones are made and freed on demand. */
void merino__run_task(merino_task *t, merino__wrap_fn wrap) {
    mrn_worker *w = mrn_full(merino__self);
    if (!w) {
        merino__run_root(t, wrap); /* from outside the pool: hand it over and wait */
        return;
    }
    if (!w->pub.c_body) {
        wrap(&w->pub, w->pub.top, t); /* C++ code: top is the next free descriptor */
        return;
    }
    /* Under a C task body, whose top is unknown here: run on a private stack. The thread's hot
     * words are the private stack's meanwhile (relaxed: this thread's own; a thief's request that
     * lands meanwhile is lost, and made again). */
    mrn_worker *s = w->shadow;
    if (s)
        w->shadow = NULL;
    else if (!(s = mrn_new_worker(w->index, mrn_the_pool.stack_tasks)))
        mrn_fatal("out of memory for a private task stack of %zu descriptors (MERINO_RUN inside a "
                  "function called by a task): lower MERINO_TASK_STACK",
                  mrn_the_pool.stack_tasks);
    uintptr_t limit = __atomic_load_n(&merino__limit, __ATOMIC_RELAXED);
    uintptr_t split = __atomic_load_n(&merino__split, __ATOMIC_RELAXED);
    __atomic_store_n(&merino__limit, (uintptr_t)s->pub.end, __ATOMIC_RELAXED);
    __atomic_store_n(&merino__split, (uintptr_t)s->pub.base, __ATOMIC_RELAXED);
    s->private_from = s->pub.base;
    s->public_left = 0; /* not in public mode: limit is its end (a reused stack may have been) */
    merino__self = &s->pub;
    wrap(&s->pub, s->pub.base, t);
    merino__self = &w->pub;
    __atomic_store_n(&merino__limit, limit, __ATOMIC_RELAXED);
    __atomic_store_n(&merino__split, split, __ATOMIC_RELAXED);
    if (!w->shadow)
        w->shadow = s;
    else
        mrn_delete_worker(s);
}

int merino_start(const merino_config *cfg) {
    if (merino__self) {
        mrn_error("merino_start called from a task: start merino once, from a thread that is not "
                  "one of its workers");
        return -1;
    }
    mrn_settings set;
    pthread_once(&mrn_atfork_once, mrn_register_atfork);
    pthread_mutex_lock(&mrn_lifecycle);
    if (__atomic_load_n(&mrn_running, __ATOMIC_RELAXED)) {
        pthread_mutex_unlock(&mrn_lifecycle);
        mrn_error("merino_start called while merino is already running: call merino_stop() first");
        return -1;
    }
    if (mrn_resolve_config(cfg, &set) != 0) {
        pthread_mutex_unlock(&mrn_lifecycle);
        return -1;
    }
    unsigned n = set.workers;
    size_t stack_tasks = set.stack_tasks;
    mrn_pool *p = &mrn_the_pool;
    memset(p, 0, sizeof *p);
    p->count = n;
    p->stack_tasks = stack_tasks;
    p->workers = calloc(n, sizeof *p->workers);
    if (!p->workers) goto out_of_memory;
    for (unsigned i = 0; i < n; i++) {
        if (!(p->workers[i] = mrn_new_worker(i, stack_tasks))) goto out_of_memory;
        p->workers[i]->cpu = mrn_worker_cpu(&set, i);
    }

    /* Worker threads get a C stack to match the task stack: each nesting level of tasks also
     * nests C frames, and the task stack must be the one that overflows first, with a message. */
    size_t c_stack = stack_tasks * 256;
    if (c_stack < ((size_t)8 << 20)) c_stack = (size_t)8 << 20;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, c_stack);
    for (unsigned i = 0; i < n; i++) {
        if (pthread_create(&p->workers[i]->thread, &attr, mrn_worker_main, p->workers[i]) != 0) {
            /* release: the threads made so far wait for i workers, not n, at start and at exit */
            __atomic_store_n(&p->count, i, __ATOMIC_RELEASE);
            __atomic_store_n(&p->stopping, 1, __ATOMIC_RELEASE);
            mrn_wake_all();
            for (unsigned j = 0; j < i; j++) pthread_join(p->workers[j]->thread, NULL);
            pthread_attr_destroy(&attr);
            mrn_free_workers(p, n);
            pthread_mutex_unlock(&mrn_lifecycle);
            mrn_error("could not create worker thread %u of %u: lower MERINO_WORKERS or "
                      "MERINO_TASK_STACK (each worker's C stack is %zu MiB)",
                      i + 1, n, c_stack >> 20);
            return -1;
        }
    }
    pthread_attr_destroy(&attr);
    /* Thieves reach a victim's thread-local words through pointers the victim sets up itself. */
    for (unsigned i = 0; i < n; i++)
        while (!__atomic_load_n(&p->workers[i]->ready, __ATOMIC_ACQUIRE)) sched_yield(); /* acquire: its pointers */
    /* release: the pool is built before anyone sees merino running */
    __atomic_store_n(&mrn_running, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&mrn_lifecycle);
    return 0;

out_of_memory:
    mrn_free_workers(p, n);
    pthread_mutex_unlock(&mrn_lifecycle);
    mrn_error("out of memory starting %u workers with %zu task descriptors each: lower "
              "MERINO_WORKERS or MERINO_TASK_STACK",
              n, stack_tasks);
    return -1;
}

int merino_stop(void) {
    if (merino__self) {
        mrn_error("merino_stop called from a task: stop merino from the thread that started it, "
                  "after the last MERINO_RUN has returned");
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
    /* Root tasks still in flight (from other threads) finish first. */
    while (__atomic_load_n(&p->active, __ATOMIC_ACQUIRE) != 0) sched_yield();
    __atomic_store_n(&mrn_running, 0, __ATOMIC_RELAXED);
    /* release: pairs with the workers' acquire load; seq_cst via the wake: a sleeper that checked
     * stopping before this store is woken by the epoch bump */
    __atomic_store_n(&p->stopping, 1, __ATOMIC_SEQ_CST);
    __atomic_fetch_add(&p->epoch, 1, __ATOMIC_SEQ_CST);
    mrn_futex_wake(&p->epoch, INT32_MAX);
    for (unsigned i = 0; i < p->count; i++) pthread_join(p->workers[i]->thread, NULL);
    mrn_free_workers(p, p->count);
    p->count = 0;
    pthread_mutex_unlock(&mrn_lifecycle);
    return 0;
}
