/* requests.c — the requests that tasks wait for: testing them, and polling the registered ones from
 * the waiting worker and from idle workers (the work source). MPI forbids two threads testing one
 * request at once: only the thread holding the registry's lock tests registered requests, and a
 * waiter tests its own only before registering them and after removing them.
 *
 * Each request is completed by MPI_Test into its own status, never by a call that completes several
 * (MPI_Testsome writes statuses in the order of completion, and an MPI may leave fields of a status
 * as they were: a status copied from elsewhere would not be the one MPI_Waitall leaves). A wait's
 * requests are tested in order, up to the first one still pending: one MPI_Test, and so one turn of
 * the MPI's progress engine, per pending wait and poll. */
#include "mpi_layer.h"

#include <pthread.h>

/* ---- testing -------------------------------------------------------------------------------------- */

bool mrn_mpi_test(mrn_mpi_wait *w) {
    for (; w->next < w->count; w->next++) {
        int i = w->next, flag = 0;
        MPI_Status *st = w->statuses ? &w->statuses[i] : MPI_STATUS_IGNORE;
        /* A null or inactive request tests complete with an empty status; a request that failed
         * tests complete with its error as the code (only with an error handler that returns). A
         * test that fails without completing anything counts as complete too: MPI_Waitall would
         * return its error at once. */
        int rc = MPI_Test(&w->reqs[i], &flag, st);
        if (rc == MPI_SUCCESS && !flag) return false;
        if (!w->all) {
            w->rc = rc;
            continue;
        }
        /* MPI_Waitall sets the MPI_ERROR of each status (MPI_Test leaves it): MPI_SUCCESS, or the
         * request's error, which makes its code MPI_ERR_IN_STATUS. */
        if (w->statuses) st->MPI_ERROR = rc;
        if (rc != MPI_SUCCESS) w->rc = MPI_ERR_IN_STATUS;
    }
    return true;
}

/* ---- registering ---------------------------------------------------------------------------------- */

static pthread_mutex_t mrn_registry_lock = PTHREAD_MUTEX_INITIALIZER; /* the list, and the poller */
static mrn_mpi_wait *mrn_waits;  /* registered waits (a list through prev/later) */
static uint32_t mrn_nwaits;      /* atomic: how many; a peek that spares idle workers the lock */

void mrn_mpi_register(mrn_mpi_wait *w) {
    pthread_mutex_lock(&mrn_registry_lock);
    w->prev = NULL;
    w->later = mrn_waits;
    if (mrn_waits) mrn_waits->prev = w;
    mrn_waits = w;
    __atomic_store_n(&mrn_nwaits, mrn_nwaits + 1, __ATOMIC_RELAXED); /* relaxed: a hint; the lock orders */
    pthread_mutex_unlock(&mrn_registry_lock);
}

void mrn_mpi_unregister(mrn_mpi_wait *w) {
    pthread_mutex_lock(&mrn_registry_lock); /* a poller that completed w's last request is done with w */
    if (w->prev) w->prev->later = w->later;
    else mrn_waits = w->later;
    if (w->later) w->later->prev = w->prev;
    __atomic_store_n(&mrn_nwaits, mrn_nwaits - 1, __ATOMIC_RELAXED); /* relaxed: a hint */
    pthread_mutex_unlock(&mrn_registry_lock);
}

/* ---- polling -------------------------------------------------------------------------------------- */

int mrn_mpi_poll(void) {
    /* relaxed: a peek; the lock orders the list itself */
    if (__atomic_load_n(&mrn_nwaits, __ATOMIC_RELAXED) == 0) return 0;
    if (pthread_mutex_trylock(&mrn_registry_lock) != 0) return 0; /* another thread is polling */
    int progress = 0;
    if (mrn_mpi_call_try()) {
        for (mrn_mpi_wait *w = mrn_waits; w; w = w->later) {
            /* relaxed: only this poller (the lock's holder) sets it while w is registered */
            if (__atomic_load_n(&w->done, __ATOMIC_RELAXED)) continue;
            int before = w->next;
            bool done = mrn_mpi_test(w);
            progress |= w->next != before;
            /* release: the statuses and codes written above, before the waiter sees done */
            if (done) __atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
        }
        mrn_mpi_call_end();
    }
    pthread_mutex_unlock(&mrn_registry_lock);
    return progress;
}

/* ---- the work source ---------------------------------------------------------------------------- */

/* No pending(): a waiting worker tests its requests itself, on a timer when it has nothing else to
 * run, so idle workers may sleep; they test every request while they look for work. */
static const merino__source mrn_mpi_source = {"MPI requests", mrn_mpi_poll, NULL};

void mrn_mpi_add_source(void) {
    if (merino__source_add(&mrn_mpi_source) != 0)
        mrn_mpi_fatal("no room for merino_mpi's work source in merino's core (MRN_MAX_SOURCES and "
                      "MRN_MAX_LAYER_SOURCES in src/core)");
}
