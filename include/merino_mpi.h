/* merino_mpi.h — waiting for MPI requests inside merino's tasks without blocking a worker.
 *
 * A library of its own (libmerino_mpi, pkg-config merino-mpi, CMake merino::mpi), built when an
 * MPI is found. In a task (a C task body, a C++ fork_join branch, a task-group member, a loop
 * body), merino_mpi_wait and merino_mpi_waitall have MPI_Wait's and MPI_Waitall's signatures and
 * return codes, but the worker runs other work while the requests are pending: the oldest task
 * of its own stack (so that two tasks that send to each other complete on one worker), tasks of
 * other workers, task objects. Pending requests are tested (MPI_Test) by the waiting worker and by
 * idle workers, from the core's idle loop. Outside the pool they call MPI_Wait and MPI_Waitall.
 *
 *     MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
 *     ...in a task:
 *     MPI_Request r[2];
 *     MPI_Irecv(in, n, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, &r[0]);
 *     MPI_Isend(out, n, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, &r[1]);
 *     merino_mpi_waitall(2, r, MPI_STATUSES_IGNORE);  // runs other tasks meanwhile
 *
 * Thread levels (docs/mpi.md): MPI_THREAD_MULTIPLE works as is. MPI_THREAD_SERIALIZED works if
 * every MPI call the program makes while merino's workers may run MPI calls (between the first
 * merino_mpi call and merino_stop) is made between merino_mpi_lock() and merino_mpi_unlock(),
 * which merino_mpi's own calls take too. MPI_THREAD_FUNNELED and MPI_THREAD_SINGLE do not work
 * (the workers are other threads): the first wait says so and aborts the job.
 *
 * A helping wait nests: what the worker runs meanwhile may wait in turn, and the outer wait
 * returns only after the inner one. Do not make a waiting task depend on code that runs after
 * another task's wait on the same worker (docs/mpi.md, "What a wait may run"). */
#ifndef MERINO_MPI_H
#define MERINO_MPI_H

/* MPI's C++ bindings (removed from the standard in MPI-3) are not needed here and would need
 * -lmpi_cxx: skip them, unless the program included <mpi.h> first. */
#if defined(__cplusplus) && !defined(OMPI_SKIP_MPICXX)
#define OMPI_SKIP_MPICXX 1
#endif
#if defined(__cplusplus) && !defined(MPICH_SKIP_MPICXX)
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(MERINO_MPI_BUILDING)
#define MERINO_MPI_API __attribute__((visibility("default")))
#else
#define MERINO_MPI_API
#endif

/* Checks that MPI is initialized with a thread level merino_mpi supports and registers the work
 * source that polls pending requests. Optional: the first wait calls it. MPI_SUCCESS, or
 * MPI_ERR_OTHER after printing one line on stderr saying what is missing and how to fix it.
 * Environment: MERINO_MPI_POLL_US, the longest sleep between two tests of a waiting worker's
 * requests when it has nothing else to run (microseconds, 1..100000, default 500). */
MERINO_MPI_API int merino_mpi_init(void);

/* MPI_Wait(req, status), running other work on this worker until *req completes; *req is then
 * MPI_REQUEST_NULL (or inactive, for a persistent request). status may be MPI_STATUS_IGNORE; its
 * MPI_ERROR is left as it was, as MPI_Wait leaves it. Returns MPI_SUCCESS or the request's error
 * code. */
MERINO_MPI_API int merino_mpi_wait(MPI_Request *req, MPI_Status *status);

/* MPI_Waitall(count, reqs, statuses), the same way. statuses may be MPI_STATUSES_IGNORE. Every
 * request is complete on return (in a task; outside the pool this is MPI_Waitall, with its MPI's
 * rules). Returns MPI_SUCCESS, or MPI_ERR_IN_STATUS when a request failed;
 * either way every status's MPI_ERROR is set: MPI_SUCCESS, or the request's error (a null or
 * inactive request's status is empty: source MPI_ANY_SOURCE, tag MPI_ANY_TAG, MPI_SUCCESS).
 * statuses is declared as a pointer (the same type as MPI_Status[]): with MPICH, whose
 * MPI_STATUSES_IGNORE is (MPI_Status *)1, gcc warns about an array parameter passed it. */
MERINO_MPI_API int merino_mpi_waitall(int count, MPI_Request reqs[], MPI_Status *statuses);

/* Under MPI_THREAD_SERIALIZED: bracket every MPI call of the program (made while merino's
 * workers run) with these. Under MPI_THREAD_MULTIPLE they are not needed (and cost a mutex). */
MERINO_MPI_API void merino_mpi_lock(void);
MERINO_MPI_API void merino_mpi_unlock(void);

/* The thread level merino_mpi runs at (MPI_THREAD_MULTIPLE or MPI_THREAD_SERIALIZED), or -1
 * before a successful merino_mpi_init. */
MERINO_MPI_API int merino_mpi_thread_level(void);

#ifdef __cplusplus
}
#endif

#endif
