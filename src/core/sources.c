/* sources.c — the ordered list of work sources an idle worker asks, and the core's two: the tasks
 * handed over by threads outside the pool, then the other workers' task stacks. Later layers
 * (task objects, loop donations) append theirs with mrn_source_add; layers built as libraries of
 * their own (merino_mpi) with merino__source_add, through one source of the core that polls them.
 * Also the helping wait's step (mrn_help_one): one piece of work above a waiting task. */
#include "core/core.h"

#include "merino/internal/layer.h"

static const mrn_source *mrn_sources[MRN_MAX_SOURCES];
static unsigned mrn_nsources; /* atomic: entries of mrn_sources filled in */
static pthread_mutex_t mrn_sources_lock = PTHREAD_MUTEX_INITIALIZER;

int mrn_source_add(const mrn_source *s) {
    pthread_mutex_lock(&mrn_sources_lock);
    unsigned n = __atomic_load_n(&mrn_nsources, __ATOMIC_RELAXED); /* relaxed: writers hold the lock */
    if (n == MRN_MAX_SOURCES) {
        pthread_mutex_unlock(&mrn_sources_lock);
        return -1;
    }
    mrn_sources[n] = s;
    __atomic_store_n(&mrn_nsources, n + 1, __ATOMIC_RELEASE); /* release: the entry is filled in */
    pthread_mutex_unlock(&mrn_sources_lock);
    return 0;
}

bool mrn_find_work(mrn_worker *w, merino__task *top) {
    unsigned n = __atomic_load_n(&mrn_nsources, __ATOMIC_ACQUIRE); /* acquire: the entries */
    for (unsigned i = 0; i < n; i++)
        if (mrn_sources[i]->run_one(w, top)) return true;
    return false;
}

/* The task that waits has its live tasks below merino__next: what runs here starts above them,
 * and when it returns merino__next is back where the waiting task left it. */
bool mrn_help_one(mrn_worker *w) {
    merino__task *top = merino__next;
    bool ran = mrn_run_own_oldest(w, top) || mrn_find_work(w, top);
    merino__next = top;
    return ran;
}

int merino__help_one(void) {
    mrn_worker *w = mrn_self();
    return w != NULL && mrn_help_one(w);
}

bool mrn_work_pending(void) {
    unsigned n = __atomic_load_n(&mrn_nsources, __ATOMIC_ACQUIRE); /* acquire: the entries */
    for (unsigned i = 0; i < n; i++)
        if (mrn_sources[i]->pending && mrn_sources[i]->pending()) return true;
    return false;
}

/* ---- the core's sources ------------------------------------------------------------------------- */

static bool mrn_jobs_run_one(mrn_worker *w, merino__task *top) {
    if (MRN_UNLIKELY(w->region != NULL)) return false; /* waits in an isolated region: not its work */
    mrn_job *job = mrn_take_job();
    if (!job) return false;
    mrn_run_job(w, job, top);
    return true;
}

static bool mrn_jobs_pending(void) {
    return __atomic_load_n(&mrn_the_pool.jobs, __ATOMIC_SEQ_CST) != NULL; /* seq_cst: sleep.c */
}

static bool mrn_stacks_run_one(mrn_worker *w, merino__task *top) {
    if (__atomic_load_n(&mrn_the_pool.count, __ATOMIC_RELAXED) < 2) return false; /* relaxed: a bound */
    if (mrn_steal(w, mrn_pick_victim(w), top)) return true;
    MRN_PROF_STEAL_FAILED();
    return false;
}

/* While a task run from outside the pool is in flight (in the caller slot, or handed over), tasks
 * may appear on any stack at any time, and only thieves that look find them (their owners do not
 * wake anyone): stay awake — unless every worker that could spawn is asleep too, in the idle loop
 * or in a helping wait (sleep.c, mrn_all_asleep). */
static bool mrn_stacks_pending(void) {
    /* seq_cst: the sleeper's half of the pair in sleep.c; the slot's taker calls mrn_wake_all */
    return (__atomic_load_n(&mrn_slot_taken, __ATOMIC_SEQ_CST) != 0 ||
            __atomic_load_n(&mrn_the_pool.active, __ATOMIC_SEQ_CST) != 0) &&
           !mrn_all_asleep();
}

static const mrn_source mrn_jobs_source = {"handed-over tasks", mrn_jobs_run_one, mrn_jobs_pending};
static const mrn_source mrn_stacks_source = {"task stacks", mrn_stacks_run_one, mrn_stacks_pending};

/* ---- layers built as libraries of their own -------------------------------------------------------- */

/* Their sources only poll (they run no task of their own): they cannot see the worker record, so
 * one source of the core asks them all, after every other source. */
#define MRN_MAX_LAYER_SOURCES 4
static const merino__source *mrn_layer_sources[MRN_MAX_LAYER_SOURCES];
static unsigned mrn_nlayer_sources; /* atomic: entries of mrn_layer_sources filled in */

static bool mrn_layers_run_one(mrn_worker *w, merino__task *top) {
    (void)w, (void)top;
    unsigned n = __atomic_load_n(&mrn_nlayer_sources, __ATOMIC_ACQUIRE); /* acquire: the entries */
    bool any = false;
    for (unsigned i = 0; i < n; i++) any |= mrn_layer_sources[i]->poll() != 0;
    return any;
}

static bool mrn_layers_pending(void) {
    unsigned n = __atomic_load_n(&mrn_nlayer_sources, __ATOMIC_ACQUIRE); /* acquire: the entries */
    for (unsigned i = 0; i < n; i++)
        if (mrn_layer_sources[i]->pending && mrn_layer_sources[i]->pending()) return true;
    return false;
}

static const mrn_source mrn_layers_source = {"separately built layers", mrn_layers_run_one,
                                             mrn_layers_pending};

static pthread_once_t mrn_sources_once = PTHREAD_ONCE_INIT;
static void mrn_add_core_sources(void) {
    mrn_source_add(&mrn_jobs_source);
    mrn_source_add(&mrn_stacks_source);
}

void mrn_sources_init(void) { pthread_once(&mrn_sources_once, mrn_add_core_sources); }

int merino__source_add(const merino__source *s) {
    mrn_sources_init();
    pthread_mutex_lock(&mrn_sources_lock);
    unsigned n = __atomic_load_n(&mrn_nlayer_sources, __ATOMIC_RELAXED); /* relaxed: writers hold the lock */
    int rc = -1;
    if (n < MRN_MAX_LAYER_SOURCES) {
        mrn_layer_sources[n] = s;
        /* release: the entry is filled in */
        __atomic_store_n(&mrn_nlayer_sources, n + 1, __ATOMIC_RELEASE);
        rc = 0;
    }
    pthread_mutex_unlock(&mrn_sources_lock);
    if (rc == 0 && n == 0) rc = mrn_source_add(&mrn_layers_source); /* the first one: join the list */
    return rc;
}
