/* calls.c — how merino_mpi calls MPI: the settings it calls with, the lock that serializes MPI
 * calls under MPI_THREAD_SERIALIZED, and the fatal error that aborts the job. The other files of
 * merino_mpi call this one; it calls none of them. */
#include "mpi/mpi_layer.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

mrn_mpi_settings mrn_mpi = {-1, false, MRN_MPI_POLL_US_DEFAULT};

static pthread_mutex_t mrn_mpi_mutex = PTHREAD_MUTEX_INITIALIZER;

void mrn_mpi_fatal(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("merino_mpi: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    fflush(stderr);
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized) MPI_Abort(MPI_COMM_WORLD, 1); /* the whole job, not one rank */
    abort();
}

/* ---- the MPI lock ---------------------------------------------------------------------------------- */

void merino_mpi_lock(void) { pthread_mutex_lock(&mrn_mpi_mutex); }
void merino_mpi_unlock(void) { pthread_mutex_unlock(&mrn_mpi_mutex); }

void mrn_mpi_call_begin(void) {
    if (mrn_mpi.serialized) pthread_mutex_lock(&mrn_mpi_mutex);
}
void mrn_mpi_call_end(void) {
    if (mrn_mpi.serialized) pthread_mutex_unlock(&mrn_mpi_mutex);
}
bool mrn_mpi_call_try(void) { return !mrn_mpi.serialized || pthread_mutex_trylock(&mrn_mpi_mutex) == 0; }
