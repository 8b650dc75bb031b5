/* c_task.h — shared by tests/test_spawn_anywhere_cxx.cpp and spawn_anywhere/c_task.c: a task
 * defined in C whose body calls a plain C++ function that uses merino::fork_join. */
#ifndef MERINO_TESTS_SPAWN_ANYWHERE_C_TASK_H
#define MERINO_TESTS_SPAWN_ANYWHERE_C_TASK_H

#include <merino.h>

#ifdef __cplusplus
extern "C" {
#endif
/* fib(n) with merino::fork_join, in test_spawn_anywhere_cxx.cpp: a plain function, not a task. */
long cxx_fib(int n);
#ifdef __cplusplus
}
#endif

/* c_outer(n) = fib(n): its body (c_task.c) calls cxx_fib, with a spawn of its own live around the
 * call when live_spawn is nonzero. */
MERINO_TASK_DECL_2(long, c_outer, int, int);

#endif
