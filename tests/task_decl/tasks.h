/* tasks.h — tasks declared in a header (MERINO_TASK_DECL_n, MERINO_VOID_TASK_DECL_n), defined in
 * one file each (tasks.c, or tests/test_task_decl.c) and spawned from both files. The second source
 * of the test test_task_decl (tests/CMakeLists.txt adds it). */
#ifndef MERINO_TESTS_TASK_DECL_TASKS_H
#define MERINO_TESTS_TASK_DECL_TASKS_H

#include <merino.h>

/* A mutually recursive pair split over two files: fib_even (tasks.c) spawns and calls fib_odd,
 * fib_odd (test_task_decl.c) spawns and calls fib_even. Both return fib(n). */
MERINO_TASK_DECL_1(long, fib_even, int);
MERINO_TASK_DECL_1(long, fib_odd, int);

/* Fourteen arguments of mixed types (pointers, integers of several widths, floating point, a
 * small struct twice): record14 (tasks.c) copies each into *out, with the worker that ran it. */
typedef struct small {
    short tag;
    char c;
    float f;
} small;

typedef struct record14 {
    struct record14 *self;
    int i;
    double d;
    small s;
    const char *str;
    char c;
    long long ll;
    float f;
    unsigned short us;
    void *vp;
    small s2;
    double d2;
    unsigned u;
    signed char sc;
    int ran_on; /* merino_worker_index() of the worker that ran the task */
} record14;

MERINO_TASK_DECL_14(int, record14_task, record14 *, int, double, small, const char *, char,
                    long long, float, unsigned short, void *, small, double, unsigned, signed char);

/* Every arity, 0 to 14: weigh<n>(a1, ..., an) = 1000 n + 1 a1 + 2 a2 + ... + n an. */
MERINO_TASK_DECL_0(long, weigh0);
MERINO_TASK_DECL_1(long, weigh1, long);
MERINO_TASK_DECL_2(long, weigh2, long, long);
MERINO_TASK_DECL_3(long, weigh3, long, long, long);
MERINO_TASK_DECL_4(long, weigh4, long, long, long, long);
MERINO_TASK_DECL_5(long, weigh5, long, long, long, long, long);
MERINO_TASK_DECL_6(long, weigh6, long, long, long, long, long, long);
MERINO_TASK_DECL_7(long, weigh7, long, long, long, long, long, long, long);
MERINO_TASK_DECL_8(long, weigh8, long, long, long, long, long, long, long, long);
MERINO_TASK_DECL_9(long, weigh9, long, long, long, long, long, long, long, long, long);
MERINO_TASK_DECL_10(long, weigh10, long, long, long, long, long, long, long, long, long, long);
MERINO_TASK_DECL_11(long, weigh11, long, long, long, long, long, long, long, long, long, long, long);
MERINO_TASK_DECL_12(long, weigh12, long, long, long, long, long, long, long, long, long, long, long,
                    long);
MERINO_TASK_DECL_13(long, weigh13, long, long, long, long, long, long, long, long, long, long, long,
                    long, long);
MERINO_TASK_DECL_14(long, weigh14, long, long, long, long, long, long, long, long, long, long, long,
                    long, long, long);

/* Void tasks: bump0 adds 1 to a counter (weigh_bumps); add_into adds v to *to; weigh_into stores
 * weigh13(a1, ..., a13) into *out (14 arguments, no result). */
extern long weigh_bumps; /* atomic */
MERINO_VOID_TASK_DECL_0(bump0);
MERINO_VOID_TASK_DECL_2(add_into, long *, long);
MERINO_VOID_TASK_DECL_14(weigh_into, long *, long, long, long, long, long, long, long, long, long,
                         long, long, long, long);

#endif
