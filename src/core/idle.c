/* idle.c — what a worker does when it has no task of its own: take a submitted root task, steal,
 * and back off — spin briefly, then yield, then sleep until work is submitted again. */
#include "internal.h"

#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

void mrn_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Monotonic nanoseconds (a vDSO call, about 20 ns): read twice per public-mode run (steal.c). */
uint64_t mrn_clock_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void mrn_futex_wait(uint32_t *word, uint32_t expected) {
    /* returns at once if *word != expected; spurious wake-ups are handled by the callers' loops */
    syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

void mrn_futex_wake(uint32_t *word, int count) {
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, count, NULL, NULL, 0);
}

/* Wakes every sleeping worker: work was submitted, or the pool is stopping. */
void mrn_wake_all(void) {
    mrn_pool *p = &mrn_the_pool;
    /* seq_cst: with the sleeper's sleepers increment and active load (mrn_sleep), one of the two
     * sides sees the other: either the sleeper sees the work, or we see the sleeper */
    if (__atomic_load_n(&p->sleepers, __ATOMIC_SEQ_CST) == 0) return;
    __atomic_fetch_add(&p->epoch, 1, __ATOMIC_SEQ_CST); /* a sleeper's futex_wait fails if late */
    mrn_futex_wake(&p->epoch, INT_MAX);
}

/* ---- taking submitted root tasks ---------------------------------------------------------------- */

/* Takes one submitted root task, or NULL. The whole stack is taken with one exchange (no ABA) and
 * the rest pushed back. */
static mrn_job *mrn_take_job(void) {
    mrn_pool *p = &mrn_the_pool;
    if (__atomic_load_n(&p->jobs, __ATOMIC_RELAXED) == NULL) return NULL; /* a peek */
    /* acquire: pairs with the submitter's release push: the job's task and arguments */
    mrn_job *head = __atomic_exchange_n(&p->jobs, NULL, __ATOMIC_ACQUIRE);
    if (head == NULL || head->next == NULL) return head;
    mrn_job *rest = head->next, *last = rest;
    while (last->next) last = last->next;
    mrn_job *old = __atomic_load_n(&p->jobs, __ATOMIC_RELAXED);
    do last->next = old; /* release below: the pushed jobs stay published to the next taker */
    while (!__atomic_compare_exchange_n(&p->jobs, &old, rest, true, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
    mrn_wake_all(); /* the rest may find a sleeping worker */
    return head;
}

static void mrn_run_job(mrn_worker *w, mrn_job *job) {
    w->pub.top = w->pub.base;
    job->wrap(&w->pub, w->pub.base, job->task);
    /* relaxed: the counter only steers sleeping; the result is published by the exchange below */
    __atomic_fetch_sub(&mrn_the_pool.active, 1, __ATOMIC_RELAXED);
    /* release: publishes the result; after this the job (on the submitter's stack) may be gone,
     * so the only access left is the futex wake on its address, harmless if it is stale */
    uint32_t old = __atomic_exchange_n(&job->done, 1, __ATOMIC_RELEASE);
    if (old == 2) mrn_futex_wake(&job->done, 1);
}

/* ---- the idle loop -------------------------------------------------------------------------------- */

static mrn_worker *mrn_pick_victim(mrn_worker *w) {
    unsigned n = mrn_the_pool.count;
    uint64_t x = w->rng; /* xorshift64 */
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    w->rng = x;
    unsigned v = (unsigned)(((x >> 32) * (n - 1)) >> 32); /* 0..n-2, then skip ourselves */
    if (v >= w->index) v++;
    return mrn_the_pool.workers[v];
}

/* Sleeps until work is submitted or the pool stops, unless there is work already. */
static void mrn_sleep(void) {
    mrn_pool *p = &mrn_the_pool;
    uint32_t epoch = __atomic_load_n(&p->epoch, __ATOMIC_SEQ_CST);
    __atomic_fetch_add(&p->sleepers, 1, __ATOMIC_SEQ_CST);
    /* seq_cst: pairs with mrn_wake_all (see there) */
    if (__atomic_load_n(&p->active, __ATOMIC_SEQ_CST) == 0 &&
        __atomic_load_n(&p->jobs, __ATOMIC_SEQ_CST) == NULL &&
        !__atomic_load_n(&p->stopping, __ATOMIC_SEQ_CST))
        mrn_futex_wait(&p->epoch, epoch);
    __atomic_fetch_sub(&p->sleepers, 1, __ATOMIC_RELAXED); /* relaxed: only makes wakers skip */
}

static void mrn_backoff(unsigned *fails) {
    unsigned f = ++*fails;
    if (f < MRN_IDLE_SPINS) {
        mrn_cpu_relax();
    } else if (f < MRN_IDLE_SPINS + MRN_IDLE_YIELDS ||
               /* relaxed: a hint; mrn_sleep re-checks with the ordering that matters */
               __atomic_load_n(&mrn_the_pool.active, __ATOMIC_RELAXED) != 0) {
        sched_yield(); /* a root task is running: others may find work for us soon */
        if (f > MRN_IDLE_SPINS + MRN_IDLE_YIELDS) *fails = MRN_IDLE_SPINS + MRN_IDLE_YIELDS;
    } else {
        mrn_sleep(); /* nothing submitted: free the processor until there is */
        *fails = 0;
    }
}

void *mrn_worker_main(void *arg) {
    mrn_worker *w = arg;
    mrn_place_worker(w); /* first, so that its task stack's pages are first touched on its CPU */
    merino__self = &w->pub;
    /* relaxed: no thief reads them before the release store of ready below */
    __atomic_store_n(&merino__limit, (uintptr_t)w->pub.end, __ATOMIC_RELAXED);
    __atomic_store_n(&merino__split, (uintptr_t)w->pub.base, __ATOMIC_RELAXED); /* all private */
    w->limit_p = &merino__limit;
    w->split_p = &merino__split;
    __atomic_store_n(&w->ready, 1, __ATOMIC_RELEASE); /* release: the pointers above */
    /* No stealing from a worker not yet set up. (count is lowered if a thread cannot be made.) */
    for (unsigned i = 0; i < __atomic_load_n(&mrn_the_pool.count, __ATOMIC_ACQUIRE); i++)
        while (i < __atomic_load_n(&mrn_the_pool.count, __ATOMIC_ACQUIRE) &&
               !__atomic_load_n(&mrn_the_pool.workers[i]->ready, __ATOMIC_ACQUIRE))
            sched_yield();
    unsigned fails = 0;
    /* acquire: pairs with merino_stop's release store; nothing to read after it but our exit */
    while (!__atomic_load_n(&mrn_the_pool.stopping, __ATOMIC_ACQUIRE)) {
        /* relaxed: set in the child of a fork made from a task, by this very thread */
        if (MERINO__UNLIKELY(__atomic_load_n(&mrn_fork_orphan, __ATOMIC_RELAXED)))
            mrn_fatal("fork() was called from a task, and in the child process the task returned to "
                      "merino's idle loop, where nothing would ever end the process (the child has "
                      "only the forking thread): in such a child, call _exit or exec before the task "
                      "returns, or fork from outside merino's tasks");
        mrn_job *job = mrn_take_job();
        if (job) {
            mrn_run_job(w, job);
            fails = 0;
        } else if (mrn_the_pool.count > 1 && mrn_steal(w, mrn_pick_victim(w), w->pub.base)) {
            fails = 0;
        } else {
            mrn_backoff(&fails);
        }
    }
    /* Thieves reach this thread's hot words through pointers into its thread-local storage,
     * which goes away with the thread: leave only when every worker has left its loop. */
    __atomic_fetch_add(&mrn_the_pool.left, 1, __ATOMIC_ACQ_REL); /* acq_rel: our last steal is over */
    while (__atomic_load_n(&mrn_the_pool.left, __ATOMIC_ACQUIRE) <
           __atomic_load_n(&mrn_the_pool.count, __ATOMIC_ACQUIRE))
        sched_yield();
    merino__self = NULL;
    return NULL;
}
