/* team.c — a loop shared by the threads of a team the program made itself (the threads of an
 * OpenMP parallel region: merino_for_omp in merino_loop.h), as the IDWS paper runs its loops.
 *
 * One thread of the team makes the loop (merino__team_new), every thread then runs one participant
 * of it (merino__team_run: participant = the thread's number) with its own body and context, and
 * the last thread to finish frees it. The schedules are those with one share per participant
 * (shares.c): idws, idws-poll, static, static,K, dynamic, guided and steal; auto, adaptive and the
 * default become idws (lazy splitting needs merino's task stacks, which the team's threads do not
 * have). No merino worker takes part: the loop runs on the team's threads only.
 *
 * Each thread runs its participant on a copy of the team's mrn_loop (its own body and ctx) that
 * shares the team's ranges, counter and signal records; the team's loop stays in place until the
 * last participant has returned, so no thread reads a freed record. A participant returns only once
 * the signals sent to it have been delivered (idws.c), so none lands in the code a thread runs after
 * the loop. */
#include "loop.h"

#include "../alloc/mem.h"

#include <stdlib.h>

struct merino_team {
    mrn_loop L;       /* the team's loop: ranges and records; copied by every participant */
    unsigned threads; /* the team's size */
    unsigned left;    /* atomic: participants not yet returned; the last frees the team */
    /* atomic: dynamic, guided: the first unit not handed out (L.counter points here, outside L,
     * so that the participants' copies of L read no word that changes under them) */
    _Alignas(MRN_CACHE_LINE) uint64_t next;
};

merino_team *merino__team_new(int64_t begin, int64_t end, unsigned threads, const merino_for_opts *opts) {
    if (threads == 0)
        mrn_fatal("merino_for_omp: a team of 0 threads: call it from inside the parallel region, where "
                  "every thread of the team calls it");
    merino_team *t = mrn_mem_alloc(MRN_CACHE_LINE, (sizeof *t + MRN_CACHE_LINE - 1) / MRN_CACHE_LINE * MRN_CACHE_LINE);
    if (t == NULL) mrn_fatal("merino_for_omp: out of memory for a loop of %u threads", threads);
    mrn_loop_setup(&t->L, begin, end, opts, "merino_for_omp");
    mrn_loop *L = &t->L;
    t->next = 0;
    L->counter = &t->next;
    if (L->schedule == MERINO_SCHEDULE_ADAPTIVE) L->schedule = MERINO_SCHEDULE_IDWS; /* auto too */
    t->threads = threads;
    t->left = threads;
    if (L->n != 0 && (threads > 1 || L->leaves != 0)) {
        mrn_loop_prepare(L, threads);
        mrn_loop_shares_setup(L);
    }
    return t;
}

void merino__team_run(merino_team *t, unsigned thread, merino_for_fn *body, void *ctx) {
    mrn_loop *T = &t->L;
    if (thread >= t->threads)
        mrn_fatal("merino_for_omp: thread %u of a team of %u: every thread of the parallel region, and "
                  "only they, must call it (omp_get_thread_num() < omp_get_num_threads())",
                  thread, t->threads);
    if (body == NULL) mrn_fatal("merino_for_omp: the body is NULL: pass the function to run on each sub-range");
    if (T->n == 0) {
    } else if (t->threads == 1 && T->leaves == 0) { /* one thread: one call, as the serial loop */
        mrn_loop one = *T;
        one.body = body, one.ctx = ctx;
        mrn_loop_units(&one, 0, T->n, NULL);
    } else if (thread < T->parts) {
        mrn_loop mine = *T; /* our body and ctx over the team's shared ranges */
        mine.body = body, mine.ctx = ctx;
        mrn_loop_share(&mine, thread, NULL);
    }
    /* acq_rel: our reads of the team's records before the last thread's free (release), and the
     * others' before ours when we are the last (acquire) */
    if (__atomic_sub_fetch(&t->left, 1, __ATOMIC_ACQ_REL) == 0) {
        mrn_loop_shares_teardown(T);
        mrn_mem_free(t);
    }
}
