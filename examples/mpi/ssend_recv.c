/* ssend_recv.c — two tasks that send to each other (the pattern of mpi-forum/mpi-issues #75),
 * completing with one worker per rank.
 *
 * Each rank pairs with a partner (rank ^ 1, or itself when there is none) for ROUNDS rounds; in
 * each round one task sends a message to the partner with a synchronous send and another receives
 * the partner's. A synchronous send completes only once the matching receive is posted: with
 * blocking MPI_Ssend and MPI_Recv in the two tasks, a worker that runs the send first blocks for
 * ever — on every rank at once, since all run the same program. With MPI_Issend + merino_mpi_wait
 * the waiting worker runs the other task (spawned, so on its own task stack) meanwhile, and both
 * complete. Even rounds run the send first, odd rounds the receive. Then a few rounds with
 * persistent requests (one of them never started), and one more exchange from main, outside the
 * pool, where merino_mpi_waitall is MPI_Waitall.
 *
 *   MERINO_WORKERS=1 mpirun -np 2 ./example_mpi_ssend_recv [ROUNDS] [--serialized | --funneled]
 * --serialized: MPI_THREAD_SERIALIZED, with this program's MPI calls between merino_mpi_lock and
 * merino_mpi_unlock; --funneled: MPI_THREAD_FUNNELED, which merino_mpi must refuse with a message. */
#include <merino.h>
#include <merino_mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, partner;
static int wrong; /* atomic: messages that did not carry what was expected */

/* An MPI call of the program, bracketed under MPI_THREAD_SERIALIZED. */
#define CALL_MPI(call)                                                                            \
    do {                                                                                          \
        merino_mpi_lock();                                                                        \
        call;                                                                                     \
        merino_mpi_unlock();                                                                      \
    } while (0)

MERINO_VOID_TASK_1(send_one, int, round) {
    int msg[2] = {rank, round};
    MPI_Request r;
    CALL_MPI(MPI_Issend(msg, 2, MPI_INT, partner, round, MPI_COMM_WORLD, &r));
    if (merino_mpi_wait(&r, MPI_STATUS_IGNORE) != MPI_SUCCESS) __atomic_fetch_add(&wrong, 1, __ATOMIC_RELAXED);
}

MERINO_VOID_TASK_1(recv_one, int, round) {
    int msg[2] = {-1, -1};
    MPI_Request r;
    MPI_Status st;
    CALL_MPI(MPI_Irecv(msg, 2, MPI_INT, partner, round, MPI_COMM_WORLD, &r));
    int rc = merino_mpi_wait(&r, &st);
    /* relaxed: a count read after the tasks are joined */
    if (rc != MPI_SUCCESS || msg[0] != partner || msg[1] != round || st.MPI_SOURCE != partner || st.MPI_TAG != round)
        __atomic_fetch_add(&wrong, 1, __ATOMIC_RELAXED);
}

MERINO_VOID_TASK_1(exchange, int, rounds) {
    for (int round = 0; round < rounds; round++) {
        if (round % 2 == 0) {
            MERINO_SPAWN(recv_one, round);
            MERINO_CALL(send_one, round); /* waits until the partner's receive is posted */
            MERINO_JOIN(recv_one);
        } else {
            MERINO_SPAWN(send_one, round);
            MERINO_CALL(recv_one, round);
            MERINO_JOIN(send_one);
        }
    }
}

/* Persistent requests: a started receive and send, and a receive never started (inactive, which
 * MPI_Waitall treats as complete), in one merino_mpi_waitall. */
MERINO_VOID_TASK_0(persistent_rounds) {
    int out = 0, in = -1, never = -1;
    MPI_Request r[3];
    CALL_MPI(MPI_Recv_init(&in, 1, MPI_INT, partner, 5000, MPI_COMM_WORLD, &r[0]));
    CALL_MPI(MPI_Send_init(&out, 1, MPI_INT, partner, 5000, MPI_COMM_WORLD, &r[1]));
    CALL_MPI(MPI_Recv_init(&never, 1, MPI_INT, partner, 5001, MPI_COMM_WORLD, &r[2]));
    for (int k = 0; k < 5; k++) {
        out = rank * 10 + k;
        CALL_MPI(MPI_Startall(2, r));
        if (merino_mpi_waitall(3, r, MPI_STATUSES_IGNORE) != MPI_SUCCESS || in != partner * 10 + k)
            __atomic_fetch_add(&wrong, 1, __ATOMIC_RELAXED); /* relaxed: a count read after the run */
    }
    for (int i = 0; i < 3; i++) CALL_MPI(MPI_Request_free(&r[i]));
}

int main(int argc, char **argv) {
    int rounds = 100, level = MPI_THREAD_MULTIPLE;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--serialized") == 0) level = MPI_THREAD_SERIALIZED;
        else if (strcmp(argv[i], "--funneled") == 0) level = MPI_THREAD_FUNNELED;
        else rounds = atoi(argv[i]);
    }
    int provided, size;
    MPI_Init_thread(&argc, &argv, level, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    partner = (rank ^ 1) < size ? rank ^ 1 : rank;

    if (level == MPI_THREAD_FUNNELED) {
        /* merino's workers would call MPI from threads other than main's: refused, with a message */
        int rc = merino_mpi_init();
        int refused = provided <= MPI_THREAD_FUNNELED ? rc == MPI_ERR_OTHER && merino_mpi_thread_level() == -1
                                                      : rc == MPI_SUCCESS;
        if (!refused) {
            fprintf(stderr, "ssend_recv: rank %d: merino_mpi_init returned %d at thread level %d\n", rank, rc, provided);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (rank == 0) printf("ssend_recv: MPI_THREAD_FUNNELED refused, as it must be\n");
        MPI_Finalize();
        return 0;
    }
    if (merino_mpi_init() != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 1);

    MERINO_RUN(exchange, rounds);
    MERINO_RUN(persistent_rounds);
    unsigned workers = merino_workers();

    /* Outside the pool: MPI_Waitall's behaviour. */
    int out = rank, in = -1;
    MPI_Request r[2];
    CALL_MPI(MPI_Irecv(&in, 1, MPI_INT, partner, rounds, MPI_COMM_WORLD, &r[0]));
    CALL_MPI(MPI_Isend(&out, 1, MPI_INT, partner, rounds, MPI_COMM_WORLD, &r[1]));
    if (merino_mpi_waitall(2, r, MPI_STATUSES_IGNORE) != MPI_SUCCESS || in != partner || r[0] != MPI_REQUEST_NULL)
        wrong++;

    merino_stop();
    if (wrong) {
        fprintf(stderr, "ssend_recv: rank %d: %d messages wrong\n", rank, wrong);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0)
        printf("ssend_recv: %d rounds of send/receive task pairs on %d ranks x %u workers (thread level %d): done\n",
               rounds, size, workers, merino_mpi_thread_level());
    MPI_Finalize();
    return 0;
}
