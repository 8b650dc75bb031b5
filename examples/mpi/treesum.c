/* treesum.c — the sum of an unbalanced tree (in the manner of UTS, the Unbalanced Tree Search
 * benchmark) over MPI ranks, with merino tasks inside each rank. A node's number of children and
 * its value come from a hash of its id, so any process can grow any part of the tree: the subtrees
 * below depth SPLIT are dealt to the ranks round robin, and each rank sums its share with tasks
 * (a task per child). Rank 0 collects the others' sums with Irecv + merino_mpi_waitall inside a
 * task, while its own share is still being summed by tasks it spawned: the wait runs them.
 *
 * Sums are 64-bit integers, so rank 0 checks the total against a serial walk of the whole tree
 * exactly.
 *
 *   mpirun -np 4 ./example_mpi_treesum [DEPTH [SPLIT]]        (default 16 4) */
#include <merino.h>
#include <merino_mpi.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t mix(uint64_t x) { /* splitmix64's finalizer */
    x += 0x9e3779b97f4a7c15u;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

/* Children of node id at depth d: 0..4 (2 on average), none at max_depth. Child k's id is
 * mix(id * 8 + k + 1). */
static int children(uint64_t id, int d, int max_depth) { return d >= max_depth ? 0 : (int)(mix(id) % 5); }
static uint64_t child(uint64_t id, int k) { return mix(id * 8 + (uint64_t)k + 1); }
static uint64_t value(uint64_t id) { return (id >> 40) & 0xffff; }

static uint64_t serial_sum(uint64_t id, int d, int max_depth) {
    uint64_t s = value(id);
    for (int k = 0, n = children(id, d, max_depth); k < n; k++) s += serial_sum(child(id, k), d + 1, max_depth);
    return s;
}

/* ---- merino: a task per child -------------------------------------------------------------------- */

MERINO_TASK_3(uint64_t, tree_sum, uint64_t, id, int, d, int, max_depth) {
    int n = children(id, d, max_depth);
    for (int k = 0; k < n; k++) MERINO_SPAWN(tree_sum, child(id, k), d + 1, max_depth);
    uint64_t s = value(id);
    for (int k = 0; k < n; k++) s += MERINO_JOIN(tree_sum);
    return s;
}

/* This rank's share: the nodes of depth split whose index there is rank (mod size), summed with
 * tasks; and the values of the nodes above split (rank 0 only: each counted once). */
typedef struct share {
    int rank, size, split, max_depth;
    uint64_t root;
    uint64_t index; /* nodes at depth split met so far (walk order) */
} share;

MERINO_TASK_3(uint64_t, share_sum, share *, sh, uint64_t, id, int, d) {
    if (d == sh->split) {
        uint64_t i = sh->index++;
        return i % (uint64_t)sh->size == (uint64_t)sh->rank ? MERINO_CALL(tree_sum, id, d, sh->max_depth) : 0;
    }
    uint64_t s = sh->rank == 0 ? value(id) : 0;
    for (int k = 0, n = children(id, d, sh->max_depth); k < n; k++) s += MERINO_CALL(share_sum, sh, child(id, k), d + 1);
    return s;
}

/* Rank 0: receive the other ranks' sums while its own share is summed (spawned first: the wait
 * below runs it if no other worker has taken it). */
MERINO_TASK_1(uint64_t, collect, share *, sh) {
    MERINO_SPAWN(share_sum, sh, sh->root, 0);
    uint64_t *theirs = calloc((size_t)sh->size, sizeof *theirs);
    MPI_Request *r = malloc((size_t)sh->size * sizeof *r);
    for (int i = 1; i < sh->size; i++) MPI_Irecv(&theirs[i], 1, MPI_UINT64_T, i, 7, MPI_COMM_WORLD, &r[i - 1]);
    merino_mpi_waitall(sh->size - 1, r, MPI_STATUSES_IGNORE);
    uint64_t total = MERINO_JOIN(share_sum);
    for (int i = 1; i < sh->size; i++) total += theirs[i];
    free(theirs), free(r);
    return total;
}

MERINO_VOID_TASK_1(contribute, share *, sh) {
    uint64_t mine = MERINO_CALL(share_sum, sh, sh->root, 0);
    MPI_Request r;
    MPI_Isend(&mine, 1, MPI_UINT64_T, 0, 7, MPI_COMM_WORLD, &r);
    merino_mpi_wait(&r, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv) {
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int max_depth = argc > 1 ? atoi(argv[1]) : 16, split = argc > 2 ? atoi(argv[2]) : 4;
    if (split < 0 || split > max_depth) {
        if (rank == 0) fprintf(stderr, "treesum: need 0 <= SPLIT <= DEPTH\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (merino_mpi_init() != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 1);
    share sh = {rank, size, split, max_depth, 42, 0};
    int ok = 1;
    unsigned workers = 0;
    if (rank == 0) {
        uint64_t total = MERINO_RUN(collect, &sh);
        workers = merino_workers();
        uint64_t want = serial_sum(sh.root, 0, max_depth);
        const char *fail = getenv("MERINO_EXAMPLE_FAIL_RANK");
        if (fail && atoi(fail) == 0) total++;
        ok = total == want;
        if (ok)
            printf("treesum: depth %d, split at %d, %d ranks x %u workers: %" PRIu64 ", as the serial walk\n",
                   max_depth, split, size, workers, total);
        else
            fprintf(stderr, "treesum: the sum is %" PRIu64 ", the serial walk gives %" PRIu64 " (%d ranks)\n",
                    total, want, size);
    } else {
        MERINO_RUN(contribute, &sh);
    }
    merino_stop();
    if (!ok) MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Finalize();
    return 0;
}
