/* prof_hooks.h — where the graph layer tells the profiler (src/prof/tasks.c) what its task objects
 * do, in the profiled variant only (libmerino_prof, MERINO_PROFILE=1; docs/profiler.md). As the
 * core's (src/core/prof_hooks.h), every hook is a macro that expands to nothing in the default
 * build. What they measure: a task object's path begins where it was spawned (or, run without a
 * spawn, where the code before it ended); when it finishes, its work and the end of its path go to
 * its parent (its group's anchor when it has none), which adds them when it runs as a continuation
 * or when its wait ends; a graph node's path begins at the end of its longest predecessor. */
#ifndef MERINO_GRAPH_PROF_HOOKS_H
#define MERINO_GRAPH_PROF_HOOKS_H

#if MERINO__PROFILE

/* src/prof/tasks.c */
void mrn_prof_tobj_spawn(merino_task *t);             /* t is made ready (before its push) */
mrn_prof_saved mrn_prof_chain_begin(void);            /* mrn_execute_in: a chain of task objects */
void mrn_prof_chain_end(const mrn_prof_saved *sv);
void mrn_prof_tobj_begin(merino_task *t);             /* t starts (not again after a recycle as child) */
void mrn_prof_tobj_end(merino_task *t, uint32_t state); /* t's execute returned, leaving state */
unsigned mrn_prof_tobj_wait_begin(void);              /* a wait for task objects */
void mrn_prof_tobj_wait_end(merino_task *waited, unsigned cat); /* waited: its children's figures */
void mrn_prof_node_pred(uint64_t rec[2]);             /* a predecessor of the node with rec finished */
void mrn_prof_node_begin(uint64_t rec[2]);            /* the node starts: its path from rec */

#define MRN_PROF_TOBJ_SPAWN(t) mrn_prof_tobj_spawn(t)
#define MRN_PROF_CHAIN_BEGIN(sv) mrn_prof_saved sv = mrn_prof_chain_begin()
#define MRN_PROF_CHAIN_END(sv) mrn_prof_chain_end(&sv)
#define MRN_PROF_TOBJ_BEGIN(t) mrn_prof_tobj_begin(t)
#define MRN_PROF_TOBJ_END(t, state) mrn_prof_tobj_end(t, state)
#define MRN_PROF_TOBJ_WAIT_BEGIN(c) unsigned c = mrn_prof_tobj_wait_begin()
#define MRN_PROF_TOBJ_WAIT_END(c, waited) mrn_prof_tobj_wait_end(waited, c)
#define MRN_PROF_NODE_PRED(x) mrn_prof_node_pred((x)->prof_path)
#define MRN_PROF_NODE_BEGIN(x) mrn_prof_node_begin((x)->prof_path)
#define MRN_PROF_NODE_RESET(x) ((x)->prof_path[0] = (x)->prof_path[1] = 0)

#else

#define MRN_PROF_TOBJ_SPAWN(t) ((void)0)
#define MRN_PROF_CHAIN_BEGIN(sv) ((void)0)
#define MRN_PROF_CHAIN_END(sv) ((void)0)
#define MRN_PROF_TOBJ_BEGIN(t) ((void)0)
#define MRN_PROF_TOBJ_END(t, state) ((void)0)
#define MRN_PROF_TOBJ_WAIT_BEGIN(c) ((void)0)
#define MRN_PROF_TOBJ_WAIT_END(c, waited) ((void)0)
#define MRN_PROF_NODE_PRED(x) ((void)0)
#define MRN_PROF_NODE_BEGIN(x) ((void)0)
#define MRN_PROF_NODE_RESET(x) ((void)0)

#endif

#endif
