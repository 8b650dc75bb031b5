/* jobs.c — tasks handed to the pool by threads outside it that found the caller slot taken: a
 * Treiber stack of jobs, each on its submitter's C stack, taken whole with one exchange (no ABA). */
#include "core/core.h"

void mrn_push_job(mrn_job *job) {
    mrn_pool *p = &mrn_the_pool;
    mrn_job *old = __atomic_load_n(&p->jobs, __ATOMIC_RELAXED); /* relaxed: the CAS checks it */
    /* seq_cst: publishes the job and the task's arguments to the taker (release), and is the
     * waker's half of sleep.c's pair with the sleepers read in mrn_wake_all */
    do job->next = old;
    while (!__atomic_compare_exchange_n(&p->jobs, &old, job, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
    mrn_wake_all();
}

/* Takes one job, or NULL; the rest is pushed back. */
mrn_job *mrn_take_job(void) {
    mrn_pool *p = &mrn_the_pool;
    if (__atomic_load_n(&p->jobs, __ATOMIC_RELAXED) == NULL) return NULL; /* a peek */
    /* acquire: pairs with the submitter's release push: the job's task and arguments */
    mrn_job *head = __atomic_exchange_n(&p->jobs, NULL, __ATOMIC_ACQUIRE);
    if (head == NULL || head->next == NULL) return head;
    mrn_job *rest = head->next, *last = rest;
    while (last->next) last = last->next;
    mrn_job *old = __atomic_load_n(&p->jobs, __ATOMIC_RELAXED); /* relaxed: the CAS checks it */
    /* seq_cst: the pushed jobs stay published to the next taker (release), and the pair with
     * mrn_wake_all's sleepers read below, as in mrn_push_job */
    do last->next = old;
    while (!__atomic_compare_exchange_n(&p->jobs, &old, rest, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
    mrn_wake_all(); /* the rest may find a sleeping worker */
    return head;
}

/* Runs a job on w's stack from top and tells its submitter. */
void mrn_run_job(mrn_worker *w, mrn_job *job, merino__task *top) {
    merino__task *floor = w->floor;
    w->floor = top;
    merino__next = top;
    void *views = mrn_views_enter();
    MRN_PROF_JOB_BEGIN(prof, job);
    job->wrap(top, job->task);
    MRN_PROF_JOB_END(prof, job);
    mrn_views_root_end(views); /* before done: the submitter reads the reducers after it */
    w->floor = floor;
    /* release: publishes the result; after this the job (on the submitter's stack) may be gone,
     * so the only access left is the futex wake on its address, harmless if it is stale */
    uint32_t old = __atomic_exchange_n(&job->done, 1, __ATOMIC_RELEASE);
    if (old == 2) mrn_futex_wake(&job->done, 1);
}
