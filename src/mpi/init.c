/* init.c — merino_mpi's start: the check of the thread level MPI granted, and the settings. */
#include "mpi/mpi_layer.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_once_t mrn_mpi_once = PTHREAD_ONCE_INIT;
static int mrn_mpi_init_rc = MPI_SUCCESS; /* written in the once routine, read after it */
static char mrn_mpi_init_msg[640];

static const char *mrn_level_name(int level) {
    switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE: return "MPI_THREAD_MULTIPLE";
    default: return "an unknown thread level";
    }
}

static void mrn_mpi_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void mrn_mpi_fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(mrn_mpi_init_msg, sizeof mrn_mpi_init_msg, fmt, ap);
    va_end(ap);
    mrn_mpi_init_rc = MPI_ERR_OTHER;
}

static bool mrn_poll_setting(unsigned *out) {
    const char *s = getenv("MERINO_MPI_POLL_US");
    if (!s || !*s) return true;
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (*end != '\0' || v < 1 || v > MRN_MPI_POLL_US_MAX || s[0] == '-') {
        mrn_mpi_fail("MERINO_MPI_POLL_US='%s' is not a number of microseconds from 1 to %d: unset it "
                     "(default %d) or give one, e.g. MERINO_MPI_POLL_US=100",
                     s, MRN_MPI_POLL_US_MAX, MRN_MPI_POLL_US_DEFAULT);
        return false;
    }
    *out = (unsigned)v;
    return true;
}

static void mrn_mpi_init_once(void) {
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized); /* both may be called from any thread, at any time */
    MPI_Finalized(&finalized);
    if (!initialized || finalized) {
        mrn_mpi_fail("MPI is %s: call MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) "
                     "before the first merino_mpi call, and MPI_Finalize only after merino_stop",
                     finalized ? "already finalized" : "not initialized");
        return;
    }
    int provided = MPI_THREAD_SINGLE;
    MPI_Query_thread(&provided);
    if (provided < MPI_THREAD_SERIALIZED) {
        mrn_mpi_fail("merino_mpi needs MPI_THREAD_MULTIPLE (or MPI_THREAD_SERIALIZED, with every MPI "
                     "call of the program between merino_mpi_lock() and merino_mpi_unlock()), but the "
                     "MPI library granted %s: merino's workers are threads of their own, and they "
                     "call MPI; initialize MPI with MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, "
                     "&provided) and check provided",
                     mrn_level_name(provided));
        return;
    }
    unsigned poll_us = MRN_MPI_POLL_US_DEFAULT;
    if (!mrn_poll_setting(&poll_us)) return;
    mrn_mpi.poll_us = poll_us;
    mrn_mpi.serialized = provided < MPI_THREAD_MULTIPLE;
    mrn_mpi.level = mrn_mpi.serialized ? MPI_THREAD_SERIALIZED : MPI_THREAD_MULTIPLE;
    mrn_mpi_add_source(); /* publishes the settings to the workers that poll (its release) */
}

int merino_mpi_init(void) {
    pthread_once(&mrn_mpi_once, mrn_mpi_init_once);
    if (mrn_mpi_init_rc != MPI_SUCCESS) fprintf(stderr, "merino_mpi: %s\n", mrn_mpi_init_msg);
    return mrn_mpi_init_rc;
}

int merino_mpi_thread_level(void) {
    pthread_once(&mrn_mpi_once, mrn_mpi_init_once);
    return mrn_mpi_init_rc == MPI_SUCCESS ? mrn_mpi.level : -1;
}

void mrn_mpi_require(void) {
    pthread_once(&mrn_mpi_once, mrn_mpi_init_once);
    if (MRN_MPI_LIKELY(mrn_mpi_init_rc == MPI_SUCCESS)) return;
    mrn_mpi_fatal("%s", mrn_mpi_init_msg);
}
