/* sleep.c — idle workers sleeping on the pool's epoch, and waking them when work appears.
 *
 * Wake-up is a Dekker pair: a sleeper counts itself in `sleepers`, then asks every work source
 * whether work is pending; whoever makes work available publishes it, then reads `sleepers` (all
 * seq_cst), so one of the two sees the other. The futex word is an epoch read before counting:
 * a wake between the check and the wait makes the wait return at once. */
#include "core/core.h"

#include "core/backoff.h"
#include "merino/internal/layer.h"

#include <limits.h>
#include <time.h>

/* Wakes one sleeping worker, or all of them. Costs a load when nobody sleeps. A worker parked by
 * the CPU budget among the sleepers takes no work and would not pass a wake on: then all. */
static void mrn_wake(bool one) {
    mrn_pool *p = &mrn_the_pool;
    /* seq_cst: the other half of mrn_sleep's pair (see above) */
    if (__atomic_load_n(&p->sleepers, __ATOMIC_SEQ_CST) == 0) return;
    __atomic_fetch_add(&p->epoch, 1, __ATOMIC_SEQ_CST); /* a sleeper's futex_wait fails if late */
    /* relaxed: after the seq_cst load above, which saw each counted sleeper's parked increment */
    one = one && __atomic_load_n(&p->parked, __ATOMIC_RELAXED) == 0;
    mrn_futex_wake(&p->epoch, one ? 1 : INT_MAX);
    MRN_PROF_WAKE();
}

/* Work was made available to all (a handed-over task), or the pool is stopping. */
void mrn_wake_all(void) { mrn_wake(false); }

/* A region's first work: one sleeper; each worker that then finds work wakes the next (a thief
 * before it runs the task it took, thief.c; other work in the idle loop), so that a region over
 * before its first thief arrives wakes one worker, not the pool, while a region with work for all
 * reaches every sleeper, one wake-up apart. */
void mrn_wake_one(void) { mrn_wake(true); }

static __thread bool mrn_counted; /* this thread is counted in sleepers (mrn_all_asleep) */

/* Sleeps until woken (mrn_wake_all, mrn_wake_one), unless pending() says there is work, or the pool stops. */
void mrn_sleep(bool (*pending)(void)) {
    mrn_pool *p = &mrn_the_pool;
    uint32_t epoch = __atomic_load_n(&p->epoch, __ATOMIC_SEQ_CST);
    __atomic_fetch_add(&p->sleepers, 1, __ATOMIC_SEQ_CST);
    mrn_counted = true;
    /* seq_cst (inside pending too): pairs with mrn_wake */
    if (!pending() && !__atomic_load_n(&p->stopping, __ATOMIC_SEQ_CST)) {
        MRN_PROF_SLEEP();
        mrn_futex_wait(&p->epoch, epoch);
    }
    mrn_counted = false;
    /* seq_cst: mrn_all_asleep reads sleepers as workers that cannot spawn; a stale count there
     * would put a worker to sleep beside one that spawns again */
    __atomic_fetch_sub(&p->sleepers, 1, __ATOMIC_SEQ_CST);
}

/* ---- the live CPU budget ---------------------------------------------------------------------- */

/* How often the budget is re-read, by whichever worker idles when it is due: a cgroup's quota is
 * enforced over periods of 100 ms by default, and a re-read (two or three system calls a file)
 * every 4 ms costs an idle worker well under 1% of its time. */
#define MRN_BUDGET_POLL_NS (4 * 1000000ull)

/* Workers that may compete on `cpus` usable CPUs: a pool of one worker per CPU (or fewer) keeps
 * min(workers, cpus); an oversubscribed one keeps its ratio of workers to CPUs. */
static unsigned mrn_allowed_for(const mrn_pool *p, unsigned cpus) {
    unsigned n = __atomic_load_n(&p->count, __ATOMIC_RELAXED); /* relaxed: fixed while threads run */
    unsigned long long start = p->budget_start, base = n > start ? n : start;
    unsigned long long a = (cpus * base + start - 1) / start;
    return a < 1 ? 1 : a > n ? n : (unsigned)a;
}

void mrn_budget_init(mrn_pool *p, const mrn_cpu_budget *budget) {
    p->budget = *budget;
    p->budget_start = mrn_cpu_budget_count(budget); /* at least 1 */
    /* relaxed: no pool thread exists yet; thread creation orders these before their reads */
    __atomic_store_n(&p->allowed, MERINO_MAX_WORKERS, __ATOMIC_RELAXED);
    __atomic_store_n(&p->parked, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&p->budget_due, mrn_clock_ns() + MRN_BUDGET_POLL_NS, __ATOMIC_RELAXED);
}

/* Set when a layer binds the main thread to CPUs of its choice (OpenMP's thread 0 bound to a
 * place): the budget then no longer follows the main thread's mask, which says nothing about the
 * process's CPUs any more (its quota still counts). */
static bool mrn_main_mask_bound;

void merino__budget_main_bound(void) { __atomic_store_n(&mrn_main_mask_bound, true, __ATOMIC_RELAXED); } /* relaxed: a setting */

/* Called by idle workers with the time: re-reads the budget when it is due (one worker at a time),
 * and wakes the parked workers when it grew. */
void mrn_budget_poll(mrn_pool *p, uint64_t now) {
    uint64_t due = __atomic_load_n(&p->budget_due, __ATOMIC_RELAXED); /* relaxed: a time */
    if (now < due) return;
    /* relaxed: elects the one worker that re-reads; nothing else is published with it */
    if (!__atomic_compare_exchange_n(&p->budget_due, &due, now + MRN_BUDGET_POLL_NS, false,
                                     __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        return;
    /* relaxed: a setting, read once per period */
    bool follow_main = !__atomic_load_n(&mrn_main_mask_bound, __ATOMIC_RELAXED);
    unsigned a = mrn_allowed_for(p, mrn_reread_cpu_budget(&p->budget, follow_main));
    /* relaxed: a count; parked workers re-check it after the futex, which compares it itself */
    unsigned was = __atomic_exchange_n(&p->allowed, a, __ATOMIC_RELAXED);
    if (was < a) mrn_futex_wake(&p->allowed, INT_MAX);
    /* Shrank below the pool: the sleepers over it park (a region wakes one sleeper only, so they
     * would sleep on uncounted; merino_workers_active counts the parked). */
    else if (was > a && a < __atomic_load_n(&p->count, __ATOMIC_RELAXED)) /* relaxed: a bound */
        mrn_wake_all();
}

/* Worker w is over the budget: it sleeps until the budget lets it compete again, or the pool stops.
 * While a task run from outside is in flight, the workers that compete may all be busy, with none
 * idle to re-read the budget: a parked worker then wakes every other re-read period to do it.
 * Parked, it spawns nothing: in that timed wait it counts as napping (mrn_all_asleep), so that
 * idle workers may still sleep when every other worker naps; in mrn_sleep it counts as a sleeper.
 * Like a napper, it wakes the others when it leaves: it may steal a napper's task and spawn.
 * pending: the work sources' check (mrn_work_pending, passed in: sources.c calls this file). */
void mrn_park(mrn_pool *p, mrn_worker *w, bool (*pending)(void)) {
    __atomic_fetch_add(&p->parked, 1, __ATOMIC_RELAXED); /* relaxed: a count for display */
    for (;;) {
        uint32_t a = __atomic_load_n(&p->allowed, __ATOMIC_RELAXED); /* relaxed: see mrn_budget_poll */
        /* acquire: pairs with merino_stop's store; nothing to read after it but our exit */
        if (w->index < a || __atomic_load_n(&p->stopping, __ATOMIC_ACQUIRE)) break;
        if (pending()) {
            __atomic_fetch_add(&p->napping, 1, __ATOMIC_SEQ_CST); /* seq_cst: mrn_all_asleep */
            mrn_futex_wait_ns(&p->allowed, a, 2 * MRN_BUDGET_POLL_NS);
            __atomic_fetch_sub(&p->napping, 1, __ATOMIC_SEQ_CST); /* seq_cst: mrn_all_asleep */
            mrn_budget_poll(p, mrn_clock_ns());
        } else {
            mrn_sleep(pending); /* until a run starts: then look again */
        }
    }
    __atomic_fetch_sub(&p->parked, 1, __ATOMIC_RELAXED); /* relaxed: a count for display */
    mrn_wake_all(); /* others may have gone to sleep counting this worker as napping */
}

/* ---- sleeping in a helping wait ---------------------------------------------------------------- */

/* While a task run from outside the pool is in flight, idle workers do not sleep (sources.c: any
 * worker may spawn at any time, and a spawn wakes no one) — unless every worker that could spawn
 * sleeps too: in the idle loop (sleepers; the asking worker, which is about to, counts whether it
 * has counted itself yet or not), or in a helping wait that found nothing to do, or parked by the
 * CPU budget with a run in flight (napping). A napping worker wakes the others (merino__help_wake,
 * or mrn_park's exit) before it spawns again, i.e. when its wait ends or it finds work. The
 * napping count and the sleepers count are the two halves of the same Dekker pair as above. */
bool mrn_all_asleep(void) {
    mrn_pool *p = &mrn_the_pool;
    unsigned threads = __atomic_load_n(&p->count, __ATOMIC_RELAXED) - 1; /* relaxed: a bound (pool.c) */
    /* seq_cst: see above */
    unsigned could_spawn = threads + (__atomic_load_n(&mrn_slot_taken, __ATOMIC_SEQ_CST) != 0);
    unsigned asleep =
        __atomic_load_n(&p->sleepers, __ATOMIC_SEQ_CST) + __atomic_load_n(&p->napping, __ATOMIC_SEQ_CST);
    return asleep + !mrn_counted >= could_spawn; /* the asking idle worker is about to sleep */
}

void merino__help_nap(unsigned us) {
    mrn_pool *p = &mrn_the_pool;
    bool worker = merino__self != NULL;
    if (worker) __atomic_fetch_add(&p->napping, 1, __ATOMIC_SEQ_CST); /* seq_cst: mrn_all_asleep */
    struct timespec ts = {(time_t)(us / 1000000u), (long)(us % 1000000u) * 1000};
    nanosleep(&ts, NULL);
    if (worker) __atomic_fetch_sub(&p->napping, 1, __ATOMIC_SEQ_CST); /* seq_cst: mrn_all_asleep */
}

void merino__help_wake(void) { mrn_wake_all(); }

_Static_assert(MERINO__BACKOFF_SLEEP == MRN_SLEEP_NOW, "merino/internal/layer.h's step number");

int merino__backoff_wait(merino__backoff *b) {
    mrn_backoff m = {b->fails, b->yield_from, 0};
    mrn_backoff_step step = mrn_backoff_wait(&m);
    b->fails = m.fails;
    b->yield_from = m.yield_from;
    return (int)step;
}
