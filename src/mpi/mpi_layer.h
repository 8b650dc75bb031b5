/* mpi_layer.h — internal declarations of merino_mpi, the library that lets tasks wait for MPI
 * requests without blocking a worker. Never included by users.
 *
 * Files, each calling only files further down this list (and libmerino's exported internals,
 * merino/internal/layer.h — this library is linked against libmerino, so it cannot call mrn_*):
 *   wait.c      merino_mpi_wait / merino_mpi_waitall: the helping wait
 *   requests.c  the requests being waited for: testing them, and polling them (the work source)
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
 * else to do. 500 us: a wake-up costs far more CPU than the test it makes, so a waiting rank uses a
 * few percent of a CPU, while a message that arrives during a long wait is seen at most 0.5 ms late
 * (short waits spin, then yield, then sleep 1, 2, 4, ... us first). */
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

/* A task's wait: its requests, and how far they are known to be complete. Each request is completed
 * by MPI_Test into its own status, so that a status holds what MPI writes there, as after
 * MPI_Waitall or MPI_Wait; a waitall's MPI_ERROR fields are then set as MPI_Waitall sets them
 * (mrn_mpi_test). Only one thread tests w's requests at a time: the waiter before it registers w,
 * the holder of the registry's lock while w is registered. */
typedef struct mrn_mpi_wait {
    MPI_Request *reqs;
    MPI_Status *statuses; /* NULL: ignored */
    int count;
    bool all;             /* merino_mpi_waitall (MPI_ERROR set in every status), else merino_mpi_wait */
    int next;             /* requests [0, next) are complete */
    int rc;               /* merino_mpi_wait: the request's code; waitall: MPI_ERR_IN_STATUS once one failed */
    uint32_t done;        /* atomic: every request is complete */
    struct mrn_mpi_wait *prev, *later;
} mrn_mpi_wait;

/* Tests w's requests from w->next on, completing each one that is done, up to the first that is
 * pending: whether all are complete. Under the MPI lock (mrn_mpi_call_begin). */
bool mrn_mpi_test(mrn_mpi_wait *w);
/* Adds w to the waits being polled (some request of w was pending). */
void mrn_mpi_register(mrn_mpi_wait *w);
/* Removes w (after done was set): no thread tests its requests afterwards. */
void mrn_mpi_unregister(mrn_mpi_wait *w);
/* Tests the registered waits' requests, if no other thread is at it: nonzero when a request
 * completed. The work source's poll. */
int mrn_mpi_poll(void);
/* Registers the work source (once). */
void mrn_mpi_add_source(void);

#endif
