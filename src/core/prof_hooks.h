/* prof_hooks.h — where the core tells the profiler (src/prof) what happens, in the profiled variant
 * only (libmerino_prof, compiled with MERINO_PROFILE=1; docs/profiler.md). Every hook is a macro
 * that expands to nothing in the default build, as OpenCilk's sched_stats.h does: the default
 * library's code is what it was without them.
 *
 * This is the profiler's link-time seam (docs/architecture.md): the core declares these functions,
 * src/prof defines them, and only these (and those of src/graph/prof_hooks.h, src/loop/prof_hooks.h
 * and merino/internal/prof.h) may be called up from a layer before prof; tests/test_layers.py reads
 * the names from these headers. The core names the profiler's functions, never its data. */
#ifndef MERINO_CORE_PROF_HOOKS_H
#define MERINO_CORE_PROF_HOOKS_H

#if MERINO__PROFILE

struct mrn_worker;
struct mrn_pool;
struct mrn_job;

/* What a thread was doing before a task it acquired (restored after it). */
typedef struct mrn_prof_saved {
    merino__prof_ctx ctx;
    unsigned cat, la;
} mrn_prof_saved;

/* src/prof/hooks.c */
int mrn_prof_start(void);                          /* pool start: settings (MERINO_REPORT) */
int mrn_prof_worker_new(struct mrn_worker *w, size_t stack_tasks);
void mrn_prof_worker_delete(struct mrn_worker *w);
void mrn_prof_pool_stop(struct mrn_pool *p);       /* before the records are freed: keep totals */
void mrn_prof_thread_begin(void);                  /* a pool thread starts (start-up time) */
void mrn_prof_loop_begin(void);                    /* ... enters its idle loop */
void mrn_prof_loop_end(void);                      /* ... leaves it (teardown time) */
void mrn_prof_thread_end(void);
void mrn_prof_find_begin(void);                    /* the idle loop asks the work sources */
void mrn_prof_find_end(void);
void mrn_prof_steal_failed(void);
void mrn_prof_leapfrog_try(void);                  /* the next steal is a leapfrog */
mrn_prof_saved mrn_prof_task_begin(struct mrn_worker *victim, merino__task *t);
void mrn_prof_task_end(struct mrn_worker *victim, merino__task *t, const mrn_prof_saved *sv);
mrn_prof_saved mrn_prof_job_begin(struct mrn_job *job);
void mrn_prof_job_end(struct mrn_job *job, const mrn_prof_saved *sv);
void mrn_prof_root_begin(void);                    /* a root task starts on a thread outside */
void mrn_prof_root_end(void);
void mrn_prof_hand_over(struct mrn_job *job);      /* the root goes to a pool thread */
void mrn_prof_handed_back(struct mrn_job *job);
void mrn_prof_join_slow_begin(void);
void mrn_prof_join_slow_inline(void);              /* ... the owner runs the task */
void mrn_prof_joined_stolen(struct mrn_worker *w, merino__task *t);
unsigned mrn_prof_wait_begin(void);                /* a join waits for a thief (leapfrog time) */
void mrn_prof_wait_end(unsigned cat);
void mrn_prof_sleep(void);
void mrn_prof_wake(void);

#define MRN_PROF_START() mrn_prof_start()
#define MRN_PROF_WORKER_NEW(w, n) mrn_prof_worker_new(w, n)
#define MRN_PROF_WORKER_DELETE(w) mrn_prof_worker_delete(w)
#define MRN_PROF_POOL_STOP(p) mrn_prof_pool_stop(p)
#define MRN_PROF_THREAD_BEGIN() mrn_prof_thread_begin()
#define MRN_PROF_LOOP_BEGIN() mrn_prof_loop_begin()
#define MRN_PROF_LOOP_END() mrn_prof_loop_end()
#define MRN_PROF_THREAD_END() mrn_prof_thread_end()
#define MRN_PROF_FIND_BEGIN() mrn_prof_find_begin()
#define MRN_PROF_FIND_END() mrn_prof_find_end()
#define MRN_PROF_STEAL_FAILED() mrn_prof_steal_failed()
#define MRN_PROF_LEAPFROG_TRY() mrn_prof_leapfrog_try()
#define MRN_PROF_TASK_BEGIN(sv, victim, t) mrn_prof_saved sv = mrn_prof_task_begin(victim, t)
#define MRN_PROF_TASK_END(sv, victim, t) mrn_prof_task_end(victim, t, &sv)
#define MRN_PROF_JOB_BEGIN(sv, job) mrn_prof_saved sv = mrn_prof_job_begin(job)
#define MRN_PROF_JOB_END(sv, job) mrn_prof_job_end(job, &sv)
#define MRN_PROF_ROOT_BEGIN() mrn_prof_root_begin()
#define MRN_PROF_ROOT_END() mrn_prof_root_end()
#define MRN_PROF_HAND_OVER(job) mrn_prof_hand_over(job)
#define MRN_PROF_HANDED_BACK(job) mrn_prof_handed_back(job)
#define MRN_PROF_JOIN_SLOW_BEGIN() mrn_prof_join_slow_begin()
#define MRN_PROF_JOIN_SLOW_INLINE() mrn_prof_join_slow_inline()
#define MRN_PROF_JOINED_STOLEN(w, t) mrn_prof_joined_stolen(w, t)
#define MRN_PROF_WAIT_BEGIN(c) unsigned c = mrn_prof_wait_begin()
#define MRN_PROF_WAIT_END(c) mrn_prof_wait_end(c)
#define MRN_PROF_SLEEP() mrn_prof_sleep()
#define MRN_PROF_WAKE() mrn_prof_wake()

#else

#define MRN_PROF_START() 0
#define MRN_PROF_WORKER_NEW(w, n) 0
#define MRN_PROF_WORKER_DELETE(w) ((void)0)
#define MRN_PROF_POOL_STOP(p) ((void)0)
#define MRN_PROF_THREAD_BEGIN() ((void)0)
#define MRN_PROF_LOOP_BEGIN() ((void)0)
#define MRN_PROF_LOOP_END() ((void)0)
#define MRN_PROF_THREAD_END() ((void)0)
#define MRN_PROF_FIND_BEGIN() ((void)0)
#define MRN_PROF_FIND_END() ((void)0)
#define MRN_PROF_STEAL_FAILED() ((void)0)
#define MRN_PROF_LEAPFROG_TRY() ((void)0)
#define MRN_PROF_TASK_BEGIN(sv, victim, t) ((void)0)
#define MRN_PROF_TASK_END(sv, victim, t) ((void)0)
#define MRN_PROF_JOB_BEGIN(sv, job) ((void)0)
#define MRN_PROF_JOB_END(sv, job) ((void)0)
#define MRN_PROF_ROOT_BEGIN() ((void)0)
#define MRN_PROF_ROOT_END() ((void)0)
#define MRN_PROF_HAND_OVER(job) ((void)0)
#define MRN_PROF_HANDED_BACK(job) ((void)0)
#define MRN_PROF_JOIN_SLOW_BEGIN() ((void)0)
#define MRN_PROF_JOIN_SLOW_INLINE() ((void)0)
#define MRN_PROF_JOINED_STOLEN(w, t) ((void)0)
#define MRN_PROF_WAIT_BEGIN(c) ((void)0)
#define MRN_PROF_WAIT_END(c) ((void)0)
#define MRN_PROF_SLEEP() ((void)0)
#define MRN_PROF_WAKE() ((void)0)

#endif

#endif
