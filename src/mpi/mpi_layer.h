/* mpi_layer.h — internal declarations of merino_mpi, the library that lets tasks wait for MPI
 * requests without blocking a worker. Never included by users.
 *
 * Files, each calling only files further down this list (and libmerino's exported internals,
 * merino/internal/layer.h — this library is linked against libmerino, so it cannot call mrn_*):
 *   wait.c      merino_mpi_wait / merino_mpi_waitall: the helping wait
 *   requests.c  the requests being waited for, polled with MPI_Testsome (the work source)
 *   init.c      the thread-level check, the settings, the MPI lock, messages */
#ifndef MERINO_MPI_LAYER_H
#define MERINO_MPI_LAYER_H

#define MERINO_MPI_BUILDING 1
#include "merino_mpi.h"

#include "merino.h"
#include "merino/internal/layer.h"

#include <stdbool.h>
#include <stdint.h>

#define MRN_MPI_LIKELY(x) __builtin_expect(!!(x), 1)
#define MRN_MPI_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* ---- init.c ---- */

/* Poll interval bounds (MERINO_MPI_POLL_US): the longest sleep of a waiting worker with nothing
 * else to do. 500 us: waking from a sleep costs about 17 us of CPU on the 2-core development VM
 * (measured: 6.3% of a CPU sleeping 200 us at a time, 1.6% at 1 ms), the test itself (MPI_Testsome,
 * a round over the work sources) well under 1 us, so a waiting rank stays near 3% of a CPU, while a
 * message that arrives during a long wait is seen at most 0.5 ms late (short waits spin, then
 * yield, then sleep 1, 2, 4, ... us first). */
#define MRN_MPI_POLL_US_DEFAULT 500
#define MRN_MPI_POLL_US_MAX 100000

typedef struct mrn_mpi_settings {
    int level;        /* MPI_THREAD_MULTIPLE or MPI_THREAD_SERIALIZED; -1 before init */
    bool serialized;  /* level is SERIALIZED: every MPI call takes the lock */
    unsigned poll_us; /* MERINO_MPI_POLL_US */
} mrn_mpi_settings;

extern mrn_mpi_settings mrn_mpi; /* written once by merino_mpi_init (pthread_once), then read */

/* merino_mpi_init, aborting the job with its message when it fails (the waits call this). */
void mrn_mpi_require(void);
/* The MPI lock: taken around MPI calls under SERIALIZED only (these do nothing under MULTIPLE). */
void mrn_mpi_call_begin(void);
void mrn_mpi_call_end(void);
bool mrn_mpi_call_try(void);
/* Prints "merino_mpi: <message>" on stderr and aborts every rank (MPI_Abort). */
__attribute__((noreturn, cold, format(printf, 1, 2))) void mrn_mpi_fatal(const char *fmt, ...);

/* ---- requests.c ---- */

/* A task's wait: the requests it waits for, and how many are still pending. */
typedef struct mrn_mpi_wait {
    MPI_Request *reqs;
    MPI_Status *statuses; /* or MPI_STATUSES_IGNORE */
    int count;
    uint32_t left;        /* atomic: requests not yet complete */
    int err;              /* an error other than a request's own (written before left drops) */
    bool failed;          /* a request completed with an error (MPI_ERR_IN_STATUS) */
    struct mrn_mpi_wait *prev, *next;
} mrn_mpi_wait;

/* Adds w to the requests being polled; w->left counts those still pending (active and not
 * complete when the wait tested them). */
void mrn_mpi_register(mrn_mpi_wait *w);
/* Removes w (after left reached 0). */
void mrn_mpi_unregister(mrn_mpi_wait *w);
/* One MPI_Testsome over every registered request, if no other thread is at it: nonzero when a
 * request completed. The work source's poll. */
int mrn_mpi_poll(void);
/* Registers the work source (once). */
void mrn_mpi_add_source(void);

#endif
