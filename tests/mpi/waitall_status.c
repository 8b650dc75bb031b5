/* waitall_status.c — merino_mpi_waitall and merino_mpi_wait inside a task give what MPI_Waitall and
 * MPI_Wait give: the same return code, and in every status the same source, tag, count and
 * MPI_ERROR (issue 27, item 3). Run on 2 ranks (tests/mpi/CMakeLists.txt): rank 0 checks, rank 1
 * sends and receives its messages.
 *
 * Rank 0 makes one set of requests of every kind, twice per scenario: once waited with
 * MPI_Waitall from main (the reference), once with merino_mpi_waitall in a task. The statuses start
 * with values no MPI writes (source 888, tag 999, MPI_ERROR 777), so a field left alone shows.
 *   0 a persistent receive never started (inactive)     1 MPI_REQUEST_NULL
 *   2 a receive complete before the wait                3 a persistent receive, started, complete
 *   4 a send complete before the wait                   5 a receive still pending at the wait
 *   6 a receive pending at the wait: in the "error" scenario its buffer is too small
 *     (MPI_ERR_TRUNCATE, so both waits return MPI_ERR_IN_STATUS and set every MPI_ERROR)
 * The messages of requests 5 and 6 are sent by rank 1 only once a task of rank 0 says "go": at one
 * worker the waiting worker must run that task itself, then poll them until they complete.
 * Then merino_mpi_wait against MPI_Wait, one request at a time, for the same kinds.
 *
 *   MERINO_WORKERS=1 mpirun -np 2 ./test_mpi_waitall_status */
#include <merino.h>
#include <merino_mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { NREQ = 7, TAGS = 8 };

typedef struct round {
    int base;                  /* this round's first tag */
    int error;                 /* request 6 truncates */
    MPI_Request r[NREQ];
    MPI_Status st[NREQ];
    int in2[2], in3[2], in5[2], in6[2], out4[2];
    int rc[NREQ];              /* request by request: the code of each single wait */
} round;

/* What a wait left: its code, and each status and request as the checks compare them. */
typedef struct result {
    int rc;
    int source[NREQ], tag[NREQ], error[NREQ], count[NREQ];
    int null_after[NREQ]; /* the request is MPI_REQUEST_NULL after the wait */
    int each_rc[NREQ];    /* single waits: each request's code */
} result;

static int failures;

static void fail(const char *what) {
    fprintf(stderr, "waitall_status: FAILED: %s\n", what);
    failures++;
}

static void sleep_ms(int ms) {
    struct timespec ts = {0, (long)ms * 1000000};
    nanosleep(&ts, NULL);
}

static void prefill(MPI_Status *st) {
    memset(st, 0x55, sizeof *st);
    st->MPI_SOURCE = 888;
    st->MPI_TAG = 999;
    st->MPI_ERROR = 777;
}

/* Rank 0: the requests, all in their state for the wait but request 5 (pending until "go"). */
static void post(round *R) {
    int b = R->base;
    MPI_Recv_init(R->in2, 2, MPI_INT, 1, b + 7, MPI_COMM_WORLD, &R->r[0]); /* never started */
    R->r[1] = MPI_REQUEST_NULL;
    MPI_Irecv(R->in2, 2, MPI_INT, 1, b + 2, MPI_COMM_WORLD, &R->r[2]);
    MPI_Recv_init(R->in3, 2, MPI_INT, 1, b + 3, MPI_COMM_WORLD, &R->r[3]);
    MPI_Start(&R->r[3]);
    R->out4[0] = 4, R->out4[1] = b;
    MPI_Isend(R->out4, 2, MPI_INT, 1, b + 4, MPI_COMM_WORLD, &R->r[4]);
    MPI_Irecv(R->in5, 2, MPI_INT, 1, b + 5, MPI_COMM_WORLD, &R->r[5]);
    MPI_Irecv(R->in6, R->error ? 1 : 2, MPI_INT, 1, b + 6, MPI_COMM_WORLD, &R->r[6]);
    /* Rank 1 sent 2 and 3 and received 4 before this barrier, which this rank's MPI passes only
     * after the messages sent to it before (in order, between two ranks). Request 6 fails only
     * after "go", inside the wait: Open MPI 4.1.4's MPI_Waitall hangs on a request that failed
     * during an earlier MPI call (and this checks the waits, not that). */
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < NREQ; i++) prefill(&R->st[i]);
}

static void go(const round *R) {
    int x = 1;
    MPI_Send(&x, 1, MPI_INT, 1, R->base + 1, MPI_COMM_WORLD);
}

static void record(round *R, int rc, result *out) {
    out->rc = rc;
    memcpy(out->each_rc, R->rc, sizeof out->each_rc);
    for (int i = 0; i < NREQ; i++) {
        MPI_Status *s = &R->st[i];
        out->source[i] = s->MPI_SOURCE;
        /* the tag relative to the round's first (the two waits of a scenario use different tags) */
        out->tag[i] = s->MPI_TAG >= R->base && s->MPI_TAG < R->base + TAGS ? s->MPI_TAG - R->base : s->MPI_TAG;
        out->error[i] = s->MPI_ERROR;
        out->count[i] = -7;
        if (s->MPI_SOURCE != 888) MPI_Get_count(s, MPI_INT, &out->count[i]);
        out->null_after[i] = R->r[i] == MPI_REQUEST_NULL;
    }
    MPI_Request_free(&R->r[0]);
    MPI_Request_free(&R->r[3]);
}

/* Error codes are compared by class: an MPI may make a new code for each error (MPICH does). */
static int same_error(int a, int b) {
    if (a == b) return 1;
    if (a == 777 || b == 777 || a == MPI_SUCCESS || b == MPI_SUCCESS) return 0;
    int ca = -1, cb = -2;
    MPI_Error_class(a, &ca);
    MPI_Error_class(b, &cb);
    return ca == cb;
}

/* Whether a status's MPI_ERROR is what the reference's wait leaves. The one exception: after a
 * multiple completion (all = 1) the status of a null or inactive request (0 and 1) is the MPI
 * standard's empty status, whose MPI_ERROR is MPI_SUCCESS, where an MPI_Waitall may leave the field
 * as it was (MPICH does, for a null request). */
static int same_status_error(int all, int i, int ref, int got) {
    if (all && (i == 0 || i == 1)) return got == MPI_SUCCESS && (ref == MPI_SUCCESS || ref == 777);
    return same_error(ref, got);
}

static void compare(const char *what, int all, const result *ref, const result *got) {
    char msg[256];
    if (!same_error(ref->rc, got->rc)) {
        snprintf(msg, sizeof msg, "%s: returned %d, MPI's own wait %d", what, got->rc, ref->rc);
        fail(msg);
    }
    for (int i = 0; i < NREQ; i++) {
        if (ref->source[i] != got->source[i] || ref->tag[i] != got->tag[i] ||
            !same_status_error(all, i, ref->error[i], got->error[i]) || ref->count[i] != got->count[i] ||
            ref->null_after[i] != got->null_after[i]) {
            snprintf(msg, sizeof msg,
                     "%s: request %d: source %d tag %d MPI_ERROR %d count %d null %d, where MPI's own wait "
                     "gives source %d tag %d MPI_ERROR %d count %d null %d",
                     what, i, got->source[i], got->tag[i], got->error[i], got->count[i], got->null_after[i],
                     ref->source[i], ref->tag[i], ref->error[i], ref->count[i], ref->null_after[i]);
            fail(msg);
        }
    }
}

MERINO_VOID_TASK_1(send_go, const round *, R) {
    sleep_ms(20); /* the wait has tested request 5 and found it pending by now, most likely */
    go(R);
}

MERINO_TASK_1(int, waitall_in_task, round *, R) {
    MERINO_SPAWN(send_go, R);
    int rc = merino_mpi_waitall(NREQ, R->r, R->st);
    MERINO_JOIN(send_go);
    return rc;
}

/* merino_mpi_wait on request i of R, in a task; for request 5, a task sends "go" meanwhile. */
MERINO_TASK_2(int, wait_in_task, round *, R, int, i) {
    if (i != 5) return merino_mpi_wait(&R->r[i], &R->st[i]);
    MERINO_SPAWN(send_go, R);
    int rc = merino_mpi_wait(&R->r[i], &R->st[i]);
    MERINO_JOIN(send_go);
    return rc;
}

/* Rank 1's side of one round (either kind of wait): the same messages in an order rank 0's
 * requests allow. */
static void peer(int base) {
    int m[2] = {1, base}, in[2], x;
    MPI_Send(m, 2, MPI_INT, 0, base + 2, MPI_COMM_WORLD);
    MPI_Send(m, 2, MPI_INT, 0, base + 3, MPI_COMM_WORLD);
    MPI_Recv(in, 2, MPI_INT, 0, base + 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD); /* post()'s */
    MPI_Recv(&x, 1, MPI_INT, 0, base + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* go */
    MPI_Send(m, 2, MPI_INT, 0, base + 5, MPI_COMM_WORLD);
    MPI_Send(m, 2, MPI_INT, 0, base + 6, MPI_COMM_WORLD); /* 2 ints: truncated by a 1-int receive */
}

/* One round on both ranks: rank 0 posts the requests, waits for them with wait(R, mode), records
 * the result in *out; rank 1 plays its part. */
typedef int wait_fn(round *R, int mode);

static void one_round(int rank, int error, int *base, int mode, wait_fn *wait, result *out) {
    round R = {0};
    R.base = *base;
    *base += TAGS;
    R.error = error;
    if (rank == 1) {
        peer(R.base);
    } else {
        post(&R);
        int rc = wait(&R, mode);
        record(&R, rc, out);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* MPI_Waitall (mode 0) or merino_mpi_waitall in a task (mode 1) on every request. */
static int wait_all(round *R, int mode) {
    if (mode == 1) return MERINO_RUN(waitall_in_task, R);
    go(R);
    return MPI_Waitall(NREQ, R->r, R->st);
}

/* MPI_Wait (mode 0) or merino_mpi_wait in a task (mode 1), request by request: 0 (inactive),
 * 1 (null), 2 (complete), 5 (pending) and 6 (truncated in the error scenario), their codes kept in
 * R->rc; MPI_Waitall completes 3 and 4, the same way in both modes. */
static const int single[] = {0, 1, 2, 5, 6};
#define NSINGLE (int)(sizeof single / sizeof single[0])

static int wait_each(round *R, int mode) {
    for (int k = 0; k < NSINGLE; k++) {
        int i = single[k];
        if (mode == 1) {
            R->rc[i] = MERINO_RUN(wait_in_task, R, i); /* a task sends "go" meanwhile */
        } else {
            if (i == 5) go(R);
            R->rc[i] = MPI_Wait(&R->r[i], &R->st[i]);
        }
    }
    MPI_Waitall(2, &R->r[3], &R->st[3]);
    return MPI_SUCCESS;
}

static void check_waitall(int rank, int error, int *base) {
    result ref, got;
    one_round(rank, error, base, 0, wait_all, &ref);
    one_round(rank, error, base, 1, wait_all, &got);
    if (rank != 0) return;
    if ((ref.rc == MPI_ERR_IN_STATUS) != error) fail("the reference MPI_Waitall did not fail as the scenario wants");
    compare(error ? "merino_mpi_waitall, a request failing" : "merino_mpi_waitall", 1, &ref, &got);
}

static void check_wait(int rank, int error, int *base) {
    result ref, got;
    one_round(rank, error, base, 0, wait_each, &ref);
    one_round(rank, error, base, 1, wait_each, &got);
    if (rank != 0) return;
    const char *name = error ? "merino_mpi_wait, a request failing" : "merino_mpi_wait";
    for (int k = 0; k < NSINGLE; k++) {
        int i = single[k];
        if (!same_error(ref.each_rc[i], got.each_rc[i])) {
            char msg[160];
            snprintf(msg, sizeof msg, "%s: request %d: returned %d, MPI_Wait %d", name, i, got.each_rc[i],
                     ref.each_rc[i]);
            fail(msg);
        }
    }
    compare(name, 0, &ref, &got);
}

int main(int argc, char **argv) {
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "waitall_status: run it on 2 ranks (mpirun -np 2)\n");
        MPI_Finalize();
        return 2;
    }
    /* The failing request must be reported, not abort the job (MPICH raises Waitall's errors on
     * MPI_COMM_WORLD's handler). */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (merino_mpi_init() != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 1);
    int base = 100;
    for (int error = 0; error < 2; error++) {
        check_waitall(rank, error, &base);
        check_wait(rank, error, &base);
    }
    if (rank == 0) merino_stop(); /* rank 1 never started a pool */
    int total = 0;
    MPI_Reduce(&failures, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    if (rank == 0) {
        if (total) return 1;
        printf("waitall_status: ok (merino_mpi_waitall and merino_mpi_wait in a task match MPI_Waitall and MPI_Wait)\n");
    }
    return 0;
}
