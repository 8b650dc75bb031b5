// ssend_recv_cxx.cpp — the pattern of ssend_recv.c (mpi-forum/mpi-issues #75: two tasks that send
// to each other) in merino's C++ interface: the two tasks are the branches of merino::fork_join,
// then members of a merino::task_group. It completes with one worker per rank because
// merino_mpi_wait runs the other branch while it waits. (Not so two iterations of one loop: a
// loop on one worker runs its range as one piece, so the other iteration is not a task yet that a
// wait could run — docs/mpi.md, "What a wait may run".)
//
//   MERINO_WORKERS=1 mpirun -np 2 ./example_mpi_ssend_recv_cxx [ROUNDS]
#include <merino.hpp>
#include <merino_graph.hpp>
#include <merino_mpi.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

static int rank_, partner_;
static std::atomic<int> wrong{0};

static void send_one(int tag) {
    int msg[2] = {rank_, tag};
    MPI_Request r;
    MPI_Issend(msg, 2, MPI_INT, partner_, tag, MPI_COMM_WORLD, &r);
    if (merino_mpi_wait(&r, MPI_STATUS_IGNORE) != MPI_SUCCESS) wrong++;
}

static void recv_one(int tag) {
    int msg[2] = {-1, -1};
    MPI_Request r;
    MPI_Irecv(msg, 2, MPI_INT, partner_, tag, MPI_COMM_WORLD, &r);
    if (merino_mpi_wait(&r, MPI_STATUS_IGNORE) != MPI_SUCCESS || msg[0] != partner_ || msg[1] != tag) wrong++;
}

int main(int argc, char **argv) {
    int provided, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    partner_ = (rank_ ^ 1) < size ? rank_ ^ 1 : rank_;
    if (merino_mpi_init() != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 1);
    int rounds = argc > 1 ? std::atoi(argv[1]) : 50;

    merino::run([&] {
        for (int i = 0; i < rounds; i++) { // fork_join: the send first on even rounds
            if (i % 2 == 0)
                merino::fork_join([&] { send_one(i); }, [&] { recv_one(i); });
            else
                merino::fork_join([&] { recv_one(i); }, [&] { send_one(i); });
        }
        for (int i = rounds; i < 2 * rounds; i++) { // a task group: run the send first
            merino::task_group g;
            g.run([&] { recv_one(i); });
            g.run([&] { send_one(i); });
            g.wait();
        }
    });

    unsigned workers = merino_workers();
    merino_stop();
    if (wrong.load() != 0) {
        std::fprintf(stderr, "ssend_recv_cxx: rank %d: %d messages wrong\n", rank_, wrong.load());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank_ == 0)
        std::printf("ssend_recv_cxx: fork_join and task_group pairs on %d ranks x %u workers: done\n",
                    size, workers);
    MPI_Finalize();
    return 0;
}
