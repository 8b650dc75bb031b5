/* requests.c — the requests that tasks wait for, and their polling: every registered request is
 * tested by one MPI_Testsome at a time, from the waiting worker and from idle workers (the work
 * source). MPI forbids two threads testing one request at once: only the thread holding the
 * registry's lock tests registered requests, and a waiter tests its own only before registering. */
#include "mpi_layer.h"

#include <pthread.h>
#include <stdlib.h>

static pthread_mutex_t mrn_registry_lock = PTHREAD_MUTEX_INITIALIZER; /* the list, and the poller */
static mrn_mpi_wait *mrn_waits;  /* registered waits (a list through prev/next) */
static uint32_t mrn_nwaits;      /* atomic: how many; a peek that spares idle workers the lock */

/* MPI_Testsome's arrays, with each entry's wait and index there. Under mrn_registry_lock. */
static struct {
    MPI_Request *reqs;
    MPI_Status *statuses;
    int *done;
    mrn_mpi_wait **wait;
    int *slot;
    int cap;
} mrn_scratch;

static void mrn_scratch_reserve(int n) {
    if (n <= mrn_scratch.cap) return;
    int cap = mrn_scratch.cap ? mrn_scratch.cap : 16;
    while (cap < n) cap *= 2;
    mrn_scratch.reqs = realloc(mrn_scratch.reqs, (size_t)cap * sizeof *mrn_scratch.reqs);
    mrn_scratch.statuses = realloc(mrn_scratch.statuses, (size_t)cap * sizeof *mrn_scratch.statuses);
    mrn_scratch.done = realloc(mrn_scratch.done, (size_t)cap * sizeof *mrn_scratch.done);
    mrn_scratch.wait = realloc(mrn_scratch.wait, (size_t)cap * sizeof *mrn_scratch.wait);
    mrn_scratch.slot = realloc(mrn_scratch.slot, (size_t)cap * sizeof *mrn_scratch.slot);
    if (!mrn_scratch.reqs || !mrn_scratch.statuses || !mrn_scratch.done || !mrn_scratch.wait ||
        !mrn_scratch.slot)
        mrn_mpi_fatal("out of memory for the arrays of %d pending MPI requests", cap);
    mrn_scratch.cap = cap;
}

/* ---- registering -------------------------------------------------------------------------------- */

void mrn_mpi_register(mrn_mpi_wait *w) {
    pthread_mutex_lock(&mrn_registry_lock);
    w->prev = NULL;
    w->next = mrn_waits;
    if (mrn_waits) mrn_waits->prev = w;
    mrn_waits = w;
    __atomic_store_n(&mrn_nwaits, mrn_nwaits + 1, __ATOMIC_RELAXED); /* relaxed: a hint; the lock orders */
    pthread_mutex_unlock(&mrn_registry_lock);
}

void mrn_mpi_unregister(mrn_mpi_wait *w) {
    pthread_mutex_lock(&mrn_registry_lock); /* a poller that completed w's last request is done with w */
    if (w->prev) w->prev->next = w->next;
    else mrn_waits = w->next;
    if (w->next) w->next->prev = w->prev;
    __atomic_store_n(&mrn_nwaits, mrn_nwaits - 1, __ATOMIC_RELAXED); /* relaxed: a hint */
    pthread_mutex_unlock(&mrn_registry_lock);
}

/* ---- polling ------------------------------------------------------------------------------------ */

/* Entry k of MPI_Testsome's answer: the request j of the scratch arrays completed. */
static void mrn_complete(int j, int k, int rc) {
    mrn_mpi_wait *w = mrn_scratch.wait[j];
    int slot = mrn_scratch.slot[j];
    w->reqs[slot] = mrn_scratch.reqs[j]; /* MPI_REQUEST_NULL, or inactive (persistent) */
    if (rc == MPI_ERR_IN_STATUS && mrn_scratch.statuses[k].MPI_ERROR != MPI_SUCCESS) w->failed = true;
    if (w->statuses) w->statuses[slot] = mrn_scratch.statuses[k];
    /* release: the request and status written above happen before the waiter sees its count drop */
    __atomic_fetch_sub(&w->left, 1, __ATOMIC_RELEASE);
}

int mrn_mpi_poll(void) {
    /* relaxed: a peek; the lock orders the list itself */
    if (__atomic_load_n(&mrn_nwaits, __ATOMIC_RELAXED) == 0) return 0;
    if (pthread_mutex_trylock(&mrn_registry_lock) != 0) return 0; /* another thread is polling */
    int n = 0;
    for (mrn_mpi_wait *w = mrn_waits; w; w = w->next) {
        mrn_scratch_reserve(n + w->count);
        for (int i = 0; i < w->count; i++) {
            /* null: done; an inactive persistent request (done, or never started) is passed
             * along, and MPI_Testsome ignores it */
            if (w->reqs[i] == MPI_REQUEST_NULL) continue;
            mrn_scratch.reqs[n] = w->reqs[i];
            mrn_scratch.wait[n] = w;
            mrn_scratch.slot[n] = i;
            n++;
        }
    }
    int outcount = 0;
    if (n > 0 && mrn_mpi_call_try()) {
        int rc = MPI_Testsome(n, mrn_scratch.reqs, &outcount, mrn_scratch.done, mrn_scratch.statuses);
        mrn_mpi_call_end();
        if (outcount == MPI_UNDEFINED) outcount = 0;
        for (int k = 0; k < outcount; k++) mrn_complete(mrn_scratch.done[k], k, rc);
        if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) {
            /* The call itself failed (only with an error handler that returns): end every wait. */
            for (mrn_mpi_wait *w = mrn_waits; w; w = w->next) {
                w->err = rc;
                __atomic_store_n(&w->left, 0, __ATOMIC_RELEASE); /* release: err */
            }
        }
    }
    pthread_mutex_unlock(&mrn_registry_lock);
    return outcount > 0;
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
