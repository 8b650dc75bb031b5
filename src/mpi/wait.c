/* wait.c — merino_mpi_wait and merino_mpi_waitall. On a worker: a helping wait, which tests the
 * requests once, then registers them (requests.c) and, until they complete, polls them and runs
 * other work (merino__help_one: the oldest task of this worker's own stack, else the core's
 * sources); with nothing to run it backs off like every wait in merino (spin, yield), then sleeps
 * for growing intervals up to MERINO_MPI_POLL_US. Outside the pool: MPI_Wait / MPI_Waitall. */
#include "mpi_layer.h"

#include <time.h>

static void mrn_sleep_us(unsigned us) {
    struct timespec ts = {0, (long)us * 1000};
    nanosleep(&ts, NULL);
}

/* Until every request of w is complete (some was pending when the waiter tested them): registers
 * w, and polls the registered requests and runs other work meanwhile. */
static void mrn_help_until_done(mrn_mpi_wait *w) {
    mrn_mpi_register(w);
    merino__backoff b = {0};
    unsigned nap_us = 1;
    bool napped = false; /* idle workers may have gone to sleep meanwhile (merino__help_nap) */
    /* acquire: pairs with the poller's release store: our requests, statuses and code */
    while (!__atomic_load_n(&w->done, __ATOMIC_ACQUIRE)) {
        if (mrn_mpi_poll()) {
            b = (merino__backoff){0};
            nap_us = 1;
        } else if (merino__help_one()) {
            b = (merino__backoff){0};
            nap_us = 1;
            if (napped) merino__help_wake(); /* what ran may have spawned: wake the thieves */
            napped = false;
        } else if (merino__backoff_wait(&b) == MERINO__BACKOFF_SLEEP) {
            merino__help_nap(nap_us); /* nothing to run, nothing arrived: free the processor */
            napped = true;
            nap_us = nap_us * 2 < mrn_mpi.poll_us ? nap_us * 2 : mrn_mpi.poll_us;
        }
    }
    if (napped) merino__help_wake(); /* the task goes on and may spawn */
    mrn_mpi_unregister(w);
}

/* The wait on a worker: tests the requests (most are complete already), then helps until the
 * others are. Returns w's code. */
static int mrn_wait_on_worker(mrn_mpi_wait *w) {
    mrn_mpi_call_begin();
    bool done = mrn_mpi_test(w);
    mrn_mpi_call_end();
    if (!done) mrn_help_until_done(w);
    return w->rc;
}

/* Under MPI_THREAD_SERIALIZED, outside the pool: MPI_Wait would hold the lock for the whole wait
 * and stop the workers' MPI calls; test under the lock instead, backing off between tests. */
static int mrn_serialized_test_loop(mrn_mpi_wait *w) {
    merino__backoff b = {0};
    for (;;) {
        mrn_mpi_call_begin();
        bool done = mrn_mpi_test(w);
        mrn_mpi_call_end();
        if (done) return w->rc;
        if (merino__backoff_wait(&b) == MERINO__BACKOFF_SLEEP) mrn_sleep_us(mrn_mpi.poll_us);
    }
}

int merino_mpi_waitall(int count, MPI_Request reqs[], MPI_Status *statuses) {
    mrn_mpi_require();
    if (merino__self == NULL && !mrn_mpi.serialized) /* not a worker: nothing else to run here */
        return MPI_Waitall(count, reqs, statuses);
    mrn_mpi_wait w = {.reqs = reqs, .statuses = statuses == MPI_STATUSES_IGNORE ? NULL : statuses,
                      .count = count, .all = true, .rc = MPI_SUCCESS};
    return merino__self ? mrn_wait_on_worker(&w) : mrn_serialized_test_loop(&w);
}

int merino_mpi_wait(MPI_Request *req, MPI_Status *status) {
    mrn_mpi_require();
    if (merino__self == NULL && !mrn_mpi.serialized) return MPI_Wait(req, status);
    mrn_mpi_wait w = {.reqs = req, .statuses = status == MPI_STATUS_IGNORE ? NULL : status, .count = 1,
                      .all = false, .rc = MPI_SUCCESS};
    return merino__self ? mrn_wait_on_worker(&w) : mrn_serialized_test_loop(&w);
}
