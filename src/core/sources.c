/* sources.c — the ordered list of work sources an idle worker asks, and the core's two: the tasks
 * handed over by threads outside the pool, then the other workers' task stacks. Later layers
 * (task objects, loop donations, MPI requests) append theirs with mrn_source_add. */
#include "core.h"

static const mrn_source *mrn_sources[MRN_MAX_SOURCES];
static unsigned mrn_nsources; /* atomic: entries of mrn_sources filled in */
static pthread_mutex_t mrn_sources_lock = PTHREAD_MUTEX_INITIALIZER;

int mrn_source_add(const mrn_source *s) {
    pthread_mutex_lock(&mrn_sources_lock);
    unsigned n = __atomic_load_n(&mrn_nsources, __ATOMIC_RELAXED);
    if (n == MRN_MAX_SOURCES) {
        pthread_mutex_unlock(&mrn_sources_lock);
        return -1;
    }
    mrn_sources[n] = s;
    __atomic_store_n(&mrn_nsources, n + 1, __ATOMIC_RELEASE); /* release: the entry is filled in */
    pthread_mutex_unlock(&mrn_sources_lock);
    return 0;
}

bool mrn_find_work(mrn_worker *w) {
    unsigned n = __atomic_load_n(&mrn_nsources, __ATOMIC_ACQUIRE); /* acquire: the entries */
    for (unsigned i = 0; i < n; i++)
        if (mrn_sources[i]->run_one(w)) return true;
    return false;
}

bool mrn_work_pending(void) {
    unsigned n = __atomic_load_n(&mrn_nsources, __ATOMIC_ACQUIRE); /* acquire: the entries */
    for (unsigned i = 0; i < n; i++)
        if (mrn_sources[i]->pending && mrn_sources[i]->pending()) return true;
    return false;
}

/* ---- the core's sources ------------------------------------------------------------------------- */

static bool mrn_jobs_run_one(mrn_worker *w) {
    mrn_job *job = mrn_take_job();
    if (!job) return false;
    mrn_run_job(w, job);
    return true;
}

static bool mrn_jobs_pending(void) {
    return __atomic_load_n(&mrn_the_pool.jobs, __ATOMIC_SEQ_CST) != NULL; /* seq_cst: sleep.c */
}

static bool mrn_stacks_run_one(mrn_worker *w) {
    if (mrn_the_pool.count < 2) return false;
    if (mrn_steal(w, mrn_pick_victim(w), w->pub.base)) return true;
    MRN_PROF_STEAL_FAILED();
    return false;
}

/* While a task run from outside the pool is in flight (in the caller slot, or handed over), tasks
 * may appear on any stack at any time, and only thieves that look find them (their owners do not
 * wake anyone): stay awake. */
static bool mrn_stacks_pending(void) {
    /* seq_cst: the sleeper's half of the pair in sleep.c; the slot's taker calls mrn_wake_all */
    return __atomic_load_n(&mrn_slot_taken, __ATOMIC_SEQ_CST) != 0 ||
           __atomic_load_n(&mrn_the_pool.active, __ATOMIC_SEQ_CST) != 0;
}

static const mrn_source mrn_jobs_source = {"handed-over tasks", mrn_jobs_run_one, mrn_jobs_pending};
static const mrn_source mrn_stacks_source = {"task stacks", mrn_stacks_run_one, mrn_stacks_pending};

static pthread_once_t mrn_sources_once = PTHREAD_ONCE_INIT;
static void mrn_add_core_sources(void) {
    mrn_source_add(&mrn_jobs_source);
    mrn_source_add(&mrn_stacks_source);
}

void mrn_sources_init(void) { pthread_once(&mrn_sources_once, mrn_add_core_sources); }
