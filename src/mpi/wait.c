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

/* The wait on a worker for the left pending requests of reqs: statuses NULL for
 * MPI_STATUSES_IGNORE. Returns MPI_SUCCESS, MPI_ERR_IN_STATUS, or the error of a failed
 * MPI_Testsome. */
static int mrn_help_until_done(int count, MPI_Request reqs[], MPI_Status *statuses, uint32_t left) {
    mrn_mpi_wait w = {.reqs = reqs, .statuses = statuses, .count = count, .left = left};
    mrn_mpi_register(&w);
    merino__backoff b = {0};
    unsigned nap_us = 1;
    bool napped = false; /* idle workers may have gone to sleep meanwhile (merino__help_nap) */
    /* acquire: pairs with the poller's release decrement: our requests and statuses */
    while (__atomic_load_n(&w.left, __ATOMIC_ACQUIRE) != 0) {
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
    mrn_mpi_unregister(&w);
    if (w.err != MPI_SUCCESS) return w.err;
    return w.failed ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
}

/* Under MPI_THREAD_SERIALIZED, outside the pool: MPI_Wait would hold the lock for the whole wait
 * and stop the workers' MPI calls; test under the lock instead, backing off between tests. */
static int mrn_serialized_test_loop(int count, MPI_Request reqs[], MPI_Status *statuses) {
    merino__backoff b = {0};
    for (;;) {
        int flag = 0;
        mrn_mpi_call_begin();
        int rc = MPI_Testall(count, reqs, &flag, statuses);
        mrn_mpi_call_end();
        if (flag || (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS)) return rc;
        if (merino__backoff_wait(&b) == MERINO__BACKOFF_SLEEP) mrn_sleep_us(mrn_mpi.poll_us);
    }
}

/* Status of a request that was null from the start: empty, as MPI_Waitall gives. */
static void mrn_empty_status(MPI_Status *st) {
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
    st->MPI_ERROR = MPI_SUCCESS;
    MPI_Status_set_elements(st, MPI_BYTE, 0);
}

int merino_mpi_waitall(int count, MPI_Request reqs[], MPI_Status *statuses) {
    mrn_mpi_require();
    if (merino__self == NULL) { /* not a worker: nothing else to run here */
        if (mrn_mpi.serialized) return mrn_serialized_test_loop(count, reqs, statuses);
        return MPI_Waitall(count, reqs, statuses);
    }
    MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? NULL : statuses;
    /* Test each request first (most are done already): what is left is active and pending. A
     * persistent request that is inactive (done, or never started) tests complete at once, as
     * MPI_Waitall would return for it. */
    uint32_t left = 0;
    bool failed = false;
    mrn_mpi_call_begin();
    for (int i = 0; i < count; i++) {
        if (reqs[i] == MPI_REQUEST_NULL) {
            if (st) mrn_empty_status(&st[i]);
            continue;
        }
        int flag = 0;
        int rc = MPI_Test(&reqs[i], &flag, st ? &st[i] : MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) { /* only with an error handler that returns */
            if (st) st[i].MPI_ERROR = rc;
            failed = true;
        } else if (!flag) {
            left++;
        }
    }
    mrn_mpi_call_end();
    if (left == 0) return failed ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
    int rc = mrn_help_until_done(count, reqs, st, left);
    return rc == MPI_SUCCESS && failed ? MPI_ERR_IN_STATUS : rc;
}

int merino_mpi_wait(MPI_Request *req, MPI_Status *status) {
    mrn_mpi_require();
    if (merino__self == NULL) {
        if (mrn_mpi.serialized)
            return mrn_serialized_test_loop(1, req, status == MPI_STATUS_IGNORE ? MPI_STATUSES_IGNORE : status);
        return MPI_Wait(req, status);
    }
    int flag = 0;
    mrn_mpi_call_begin();
    int rc = MPI_Test(req, &flag, status); /* null or inactive: complete at once */
    mrn_mpi_call_end();
    if (flag || rc != MPI_SUCCESS) return rc;
    MPI_Status own; /* the request's error code is in its status, even when the caller ignores it */
    rc = mrn_help_until_done(1, req, &own, 1);
    if (status != MPI_STATUS_IGNORE) *status = own;
    return rc == MPI_ERR_IN_STATUS ? own.MPI_ERROR : rc;
}
