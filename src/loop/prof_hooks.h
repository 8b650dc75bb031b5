/* prof_hooks.h — where the loop layer tells the profiler (src/prof/tasks.c) about its chunks, in
 * the profiled variant only (libmerino_prof, MERINO_PROFILE=1; docs/profiler.md); macros that
 * expand to nothing in the default build. A chunk (one call of the body, on a sub-range) is a
 * parallel strand: it adds its time to the work, and the loop's span is its longest chunk (plus the
 * loop's own code on the path), whichever worker ran which chunk one after the other. */
#ifndef MERINO_LOOP_PROF_HOOKS_H
#define MERINO_LOOP_PROF_HOOKS_H

#if MERINO__PROFILE

/* src/prof/tasks.c */
merino__prof_ctx mrn_prof_chunk_begin(void);
void mrn_prof_chunk_end(const merino__prof_ctx *before);
void mrn_prof_for_end(void); /* a parallel loop ends: its chunks join its path */

#define MRN_PROF_CHUNK_BEGIN(sv) merino__prof_ctx sv = mrn_prof_chunk_begin()
#define MRN_PROF_CHUNK_END(sv) mrn_prof_chunk_end(&sv)
#define MRN_PROF_FOR_END() mrn_prof_for_end()
/* At one worker a loop is one call of the body over the whole range, which the profiler would see
 * as one strand: the profiled build runs it in chunks, as at several workers. */
#define MRN_PROF_LOOP_ONE_CALL 0

#else

#define MRN_PROF_CHUNK_BEGIN(sv) ((void)0)
#define MRN_PROF_CHUNK_END(sv) ((void)0)
#define MRN_PROF_FOR_END() ((void)0)
#define MRN_PROF_LOOP_ONE_CALL 1

#endif

#endif
