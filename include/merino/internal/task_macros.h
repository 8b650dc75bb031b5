/* merino/internal/task_macros.h — the one generator behind MERINO_TASK_n, MERINO_VOID_TASK_n and
 * their _DECL_n / _IMPL_n halves, and the helpers of MERINO_SPAWN, MERINO_CALL and MERINO_RUN.
 * INTERNAL: included by <merino.h>, never directly.
 *
 * For a task NAME, the declaration half (MERINO__DECLARE) makes:
 *   NAME_merino_args   the arguments, as a struct stored in the descriptor's payload;
 *   NAME_merino_frame  a union of the arguments and the result;
 *   NAME_merino_body   the body's prototype: merino__top (the next free descriptor when the body
 *                      was called; MERINO_SPAWN, CALL and JOIN check it is in scope, so that they
 *                      are used in task bodies only), then the user's parameters;
 *   NAME_merino_wrap   the prototype of the wrapper a thief calls;
 *   NAME_merino_spawn, _join, _call, _run   the inline code the public macros expand to.
 * The definition half (MERINO__DEFINE) defines the wrapper, then opens the body's definition: the
 * user's { ... } follows. A one-file task (MERINO_TASK_n) is both halves with internal linkage; a
 * task declared in a header (MERINO_TASK_DECL_n) is the first half there and the second in one .c
 * file (MERINO_TASK_IMPL_n), with external linkage.
 *
 * The argument lists come from one recursion over the (type, name) pairs, MERINO__P<n>, or over
 * the types alone, MERINO__Q<n>: each applies a piece macro M(i, T, A) to every pair, numbering
 * them n, n-1, ..., 1 from the first (the numbers only name the stored fields, a<i>, so that they
 * never clash with the user's names, and both recursions number alike). */
#ifndef MERINO_INTERNAL_TASK_MACROS_H
#define MERINO_INTERNAL_TASK_MACROS_H

#ifndef MERINO_H
#error "include <merino.h>, not merino/internal/task_macros.h"
#endif

#ifdef __cplusplus
#define MERINO__STATIC_ASSERT static_assert
#define MERINO__ALIGNOF alignof
#else
#define MERINO__STATIC_ASSERT _Static_assert
#define MERINO__ALIGNOF _Alignof
#endif

#define MERINO__CAT(a, b) MERINO__CAT_I(a, b)
#define MERINO__CAT_I(a, b) a##b
#define MERINO__APPLY(F, ARGS) F ARGS
#define MERINO__X(...) __VA_ARGS__

/* ---- one recursion over the argument list ------------------------------------------------------- */

/* MERINO__EACH(n, M, (T1, A1, ..., Tn, An)): M applied to each pair; M##_NONE for none. */
#define MERINO__EACH(n, M, PAIRS) MERINO__APPLY(MERINO__P##n, (M, MERINO__X PAIRS))
/* MERINO__EACH_TYPE(n, M, (T1, ..., Tn)): the same over types alone (A is ~). */
#define MERINO__EACH_TYPE(n, M, TYPES) MERINO__APPLY(MERINO__Q##n, (M, MERINO__X TYPES))

#define MERINO__P0(M, none) M##_NONE
#define MERINO__P1(M, T, A) M(1, T, A)
#define MERINO__P2(M, T, A, ...) M(2, T, A) MERINO__P1(M, __VA_ARGS__)
#define MERINO__P3(M, T, A, ...) M(3, T, A) MERINO__P2(M, __VA_ARGS__)
#define MERINO__P4(M, T, A, ...) M(4, T, A) MERINO__P3(M, __VA_ARGS__)
#define MERINO__P5(M, T, A, ...) M(5, T, A) MERINO__P4(M, __VA_ARGS__)
#define MERINO__P6(M, T, A, ...) M(6, T, A) MERINO__P5(M, __VA_ARGS__)
#define MERINO__P7(M, T, A, ...) M(7, T, A) MERINO__P6(M, __VA_ARGS__)
#define MERINO__P8(M, T, A, ...) M(8, T, A) MERINO__P7(M, __VA_ARGS__)
#define MERINO__P9(M, T, A, ...) M(9, T, A) MERINO__P8(M, __VA_ARGS__)
#define MERINO__P10(M, T, A, ...) M(10, T, A) MERINO__P9(M, __VA_ARGS__)
#define MERINO__P11(M, T, A, ...) M(11, T, A) MERINO__P10(M, __VA_ARGS__)
#define MERINO__P12(M, T, A, ...) M(12, T, A) MERINO__P11(M, __VA_ARGS__)
#define MERINO__P13(M, T, A, ...) M(13, T, A) MERINO__P12(M, __VA_ARGS__)
#define MERINO__P14(M, T, A, ...) M(14, T, A) MERINO__P13(M, __VA_ARGS__)

#define MERINO__Q0(M, none) M##_NONE
#define MERINO__Q1(M, T) M(1, T, ~)
#define MERINO__Q2(M, T, ...) M(2, T, ~) MERINO__Q1(M, __VA_ARGS__)
#define MERINO__Q3(M, T, ...) M(3, T, ~) MERINO__Q2(M, __VA_ARGS__)
#define MERINO__Q4(M, T, ...) M(4, T, ~) MERINO__Q3(M, __VA_ARGS__)
#define MERINO__Q5(M, T, ...) M(5, T, ~) MERINO__Q4(M, __VA_ARGS__)
#define MERINO__Q6(M, T, ...) M(6, T, ~) MERINO__Q5(M, __VA_ARGS__)
#define MERINO__Q7(M, T, ...) M(7, T, ~) MERINO__Q6(M, __VA_ARGS__)
#define MERINO__Q8(M, T, ...) M(8, T, ~) MERINO__Q7(M, __VA_ARGS__)
#define MERINO__Q9(M, T, ...) M(9, T, ~) MERINO__Q8(M, __VA_ARGS__)
#define MERINO__Q10(M, T, ...) M(10, T, ~) MERINO__Q9(M, __VA_ARGS__)
#define MERINO__Q11(M, T, ...) M(11, T, ~) MERINO__Q10(M, __VA_ARGS__)
#define MERINO__Q12(M, T, ...) M(12, T, ~) MERINO__Q11(M, __VA_ARGS__)
#define MERINO__Q13(M, T, ...) M(13, T, ~) MERINO__Q12(M, __VA_ARGS__)
#define MERINO__Q14(M, T, ...) M(14, T, ~) MERINO__Q13(M, __VA_ARGS__)

/* The pieces: a field of the argument struct; a parameter of spawn and run (stored names); a
 * parameter of the body (the user's names); a parameter type (declarations); a store into the
 * payload; an argument loaded from it; a stored name passed on. */
#define MERINO__FIELD(i, T, A) T a##i;
#define MERINO__FIELD_NONE char merino__none; /* C has no empty struct */
#define MERINO__PARAM(i, T, A) , T a##i
#define MERINO__PARAM_NONE
#define MERINO__UPARAM(i, T, A) , T A
#define MERINO__UPARAM_NONE
#define MERINO__TYPE(i, T, A) , T
#define MERINO__TYPE_NONE
#define MERINO__STORE(i, T, A) f->args.a##i = a##i;
#define MERINO__STORE_NONE (void)f;
#define MERINO__LOAD(i, T, A) , merino__a.a##i
#define MERINO__LOAD_NONE
#define MERINO__NAME(i, T, A) , a##i
#define MERINO__NAME_NONE

/* ---- what differs between a task with a result and a void task ---------------------------------- */

#define MERINO__RESULT_FIELD(R) R result;
#define MERINO__VOID_FIELD(R)
#define MERINO__RESULT_KEEP(f, call) (f)->result = call;   /* wrapper: leave the result in t */
#define MERINO__VOID_KEEP(f, call) call;
#define MERINO__RESULT_RETURN(call) return call;
#define MERINO__VOID_RETURN(call) { call; return; }
#define MERINO__RESULT_STOLEN(f) return (f)->result;     /* join: a thief left the result */
#define MERINO__VOID_STOLEN(f) (void)(f);
/* A call of a body that returns its value after the check that the body joined its spawns. */
#define MERINO__RESULT_CHECKED(R, call, top, name)                                                 \
    R merino__r = call;                                                                          \
    MERINO__CHECK_BALANCED(top, name);                                                           \
    return merino__r;
#define MERINO__VOID_CHECKED(R, call, top, name)                                                   \
    call;                                                                                        \
    MERINO__CHECK_BALANCED(top, name);

/* ---- checks of debug builds (MERINO__CHECKS) ---------------------------------------------------- */

#if MERINO__CHECKS
#define MERINO__CHECK_JOIN(t, wrap, name)                                                          \
    do {                                                                                         \
        if ((t) < merino__self->base ||                                                          \
            __atomic_load_n(&(t)->check, __ATOMIC_RELAXED) != MERINO__ADDR(wrap))                \
            merino__join_mismatch((t), name);                                                    \
    } while (0)
/* After a body returns: it joined every task it spawned, so the next free descriptor is back. */
#define MERINO__CHECK_BALANCED(top, name)                                                          \
    do {                                                                                         \
        if (merino__next != (top)) merino__unjoined((top), name);                                \
    } while (0)
#else
#define MERINO__CHECK_JOIN(t, wrap, name) ((void)0)
#define MERINO__CHECK_BALANCED(top, name) ((void)0)
#endif

/* ---- the generator ------------------------------------------------------------------------------ */

/* The declaration half. KIND: MERINO__RESULT or MERINO__VOID; LINK: the linkage of the body and
 * the wrapper (static inline / static, or extern); n and LIST: the arity and the (type, name)
 * pairs (EACH = MERINO__EACH) or the types alone (EACH = MERINO__EACH_TYPE). */
#define MERINO__DECLARE(KIND, BODY_LINK, WRAP_LINK, RTYPE, NAME, n, EACH, LIST)                    \
    typedef struct { EACH(n, MERINO__FIELD, LIST) } NAME##_merino_args;                           \
    typedef union { NAME##_merino_args args; KIND##_FIELD(RTYPE) } NAME##_merino_frame;           \
    MERINO__STATIC_ASSERT(sizeof(NAME##_merino_frame) <= MERINO_TASK_PAYLOAD,                     \
                          "merino: the arguments or the result of task '" #NAME "' do not fit a " \
                          "task descriptor (112 bytes, 14 pointers): pass a pointer to a struct "  \
                          "instead");                                                             \
    MERINO__STATIC_ASSERT(MERINO__ALIGNOF(NAME##_merino_frame) <= 16,                             \
                          "merino: an argument of task '" #NAME "' needs more than 16-byte "      \
                          "alignment: pass a pointer to it instead");                             \
    BODY_LINK RTYPE NAME##_merino_body(merino__task *merino__top EACH(n, MERINO__TYPE, LIST));    \
    WRAP_LINK MERINO__WRAP_ATTR void NAME##_merino_wrap(merino__task *top, merino__task *t);      \
    static inline __attribute__((always_inline, unused)) void NAME##_merino_spawn(                \
        merino__task *t EACH(n, MERINO__PARAM, LIST)) {                                           \
        NAME##_merino_frame *f = MERINO__PTR_CAST(NAME##_merino_frame *, t->payload);                       \
        EACH(n, MERINO__STORE, LIST)                                                              \
        merino__spawn(t, MERINO__ADDR(&NAME##_merino_wrap));                                         \
    }                                                                                             \
    static inline __attribute__((always_inline, unused)) RTYPE NAME##_merino_call(                \
        merino__task *top EACH(n, MERINO__PARAM, LIST)) {                                         \
        KIND##_CHECKED(RTYPE, NAME##_merino_body(top EACH(n, MERINO__NAME, LIST)), top, #NAME)    \
    }                                                                                             \
    static inline __attribute__((always_inline, unused)) RTYPE NAME##_merino_join(merino__task *t) { \
        NAME##_merino_frame *f = MERINO__PTR_CAST(NAME##_merino_frame *, t->payload);                       \
        MERINO__CHECK_JOIN(t, &NAME##_merino_wrap, #NAME);                                        \
        if (MERINO__LIKELY(merino__join(t, MERINO__ADDR(&NAME##_merino_wrap)))) {                 \
            NAME##_merino_args merino__a = f->args;                                               \
            (void)merino__a;                                                                      \
            MERINO__PROF_JOIN_RUN(KIND, RTYPE, t, NAME##_merino_call(t EACH(n, MERINO__LOAD, LIST))) \
        }                                                                                         \
        KIND##_STOLEN(f)                                                                          \
    }                                                                                             \
    static inline __attribute__((unused)) RTYPE NAME##_merino_run(int merino__unused             \
                                                                  EACH(n, MERINO__PARAM, LIST)) { \
        merino__task *merino__on = merino__next;                                                  \
        (void)merino__unused;                                                                     \
        if (MERINO__LIKELY(merino__on != 0)) /* on a worker: a call above its live descriptors */ \
            KIND##_RETURN(NAME##_merino_call(merino__on EACH(n, MERINO__NAME, LIST)))             \
        merino__task t;                                                                           \
        NAME##_merino_frame *f = MERINO__PTR_CAST(NAME##_merino_frame *, t.payload);                        \
        EACH(n, MERINO__STORE, LIST)                                                              \
        merino__run_external(&t, &NAME##_merino_wrap);                                            \
        KIND##_STOLEN(f)                                                                          \
    }                                                                                             \
    MERINO__STATIC_ASSERT(1, "a declaration that takes the semicolon after the macro")

/* The definition half: the wrapper, then the head of the body's definition. */
#define MERINO__DEFINE(KIND, BODY_LINK, WRAP_LINK, RTYPE, NAME, n, PAIRS)                          \
    WRAP_LINK MERINO__WRAP_ATTR void NAME##_merino_wrap(merino__task *top, merino__task *t) {     \
        NAME##_merino_frame *f = MERINO__PTR_CAST(NAME##_merino_frame *, t->payload);                       \
        NAME##_merino_args merino__a = f->args;                                                   \
        (void)merino__a;                                                                          \
        KIND##_KEEP(f, NAME##_merino_call(top MERINO__EACH(n, MERINO__LOAD, PAIRS)))              \
    }                                                                                             \
    BODY_LINK RTYPE NAME##_merino_body(merino__task *merino__top __attribute__((unused))          \
                                           MERINO__EACH(n, MERINO__UPARAM, PAIRS))

/* Task bodies of one-file tasks are declared inline: a hint, which lets the compiler inline a
 * recursive body into itself a few levels deep, as it does the plain recursive function it
 * replaces (docs/architecture.md, "Why task bodies are inline"). */
#define MERINO__ONE_FILE(KIND, RTYPE, NAME, n, PAIRS)                                              \
    MERINO__DECLARE(KIND, static inline, static, RTYPE, NAME, n, MERINO__EACH, PAIRS);            \
    MERINO__DEFINE(KIND, static inline, static, RTYPE, NAME, n, PAIRS)

/* A task declared in a header (MERINO_TASK_DECL_n, types only) and defined in one .c file
 * (MERINO_TASK_IMPL_n): the body and the wrapper have external linkage — C linkage in C++ too, so
 * that one header serves C and C++ files, whichever language defines the task. */
#ifdef __cplusplus
#define MERINO__EXTERN extern "C"
#else
#define MERINO__EXTERN extern
#endif
#define MERINO__DECL(KIND, RTYPE, NAME, n, TYPES)                                                  \
    MERINO__DECLARE(KIND, MERINO__EXTERN, MERINO__EXTERN, RTYPE, NAME, n, MERINO__EACH_TYPE, TYPES)
#define MERINO__IMPL(KIND, RTYPE, NAME, n, PAIRS) MERINO__DEFINE(KIND, , , RTYPE, NAME, n, PAIRS)

/* ---- splitting MERINO_SPAWN(NAME, args...) without GNU's , ##__VA_ARGS__ ------------------------- */

/* The first argument, and the rest with a leading comma (nothing when there is none). */
#define MERINO__HEAD(...) MERINO__HEAD_I(__VA_ARGS__, ~)
#define MERINO__HEAD_I(h, ...) h
#define MERINO__REST(...) MERINO__CAT(MERINO__REST_, MERINO__MANY(__VA_ARGS__))(__VA_ARGS__)
#define MERINO__REST_0(h)
#define MERINO__REST_1(h, ...) , __VA_ARGS__
/* 1 when given more than one argument (up to 15: a name and 14 arguments), else 0. */
#define MERINO__MANY(...) MERINO__PICK16(__VA_ARGS__, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, ~)
#define MERINO__PICK16(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, x, ...) x

#endif
