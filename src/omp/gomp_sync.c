/* gomp_sync.c — mutual exclusion: `critical` (unnamed and named), the `atomic` fallback, and the
 * OpenMP locks (simple and nested, with hints; the OMP_3.0 layout as default versions and
 * OpenMP 2.5's under OMP_1.0, as libgomp exports them).
 *
 * A lock is a 32-bit futex word: 0 free, 1 held, 2 held with waiters. Waiting spins briefly,
 * yields, then sleeps on the word (merino's idle policy, backoff through the core). A critical
 * section or a lock is not a task scheduling point: a waiting thread runs no task. A nested lock
 * is owned by a task (OpenMP 3.0): its owner is the task's context. */
#include "omp/omp_layer.h"

#include <limits.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>

/* ---- the futex lock ------------------------------------------------------------------------------------- */

static inline bool mo_lock_try(uint32_t *w) {
    uint32_t free_ = 0;
    /* acquire: what the previous holder did inside */
    return __atomic_compare_exchange_n(w, &free_, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static __attribute__((noinline)) void mo_lock_slow(uint32_t *w) {
    merino__backoff b = {0};
    for (;;) {
        if (mo_lock_try(w)) return;
        if (merino__backoff_wait(&b) != MERINO__BACKOFF_SLEEP) continue;
        /* acquire: as above; 2 says someone sleeps, so the holder's release wakes */
        while (__atomic_exchange_n(w, 2, __ATOMIC_ACQUIRE) != 0) mo_futex_wait(w, 2);
        return;
    }
}

static inline void mo_lock(uint32_t *w) {
    if (MO_UNLIKELY(!mo_lock_try(w))) mo_lock_slow(w);
}

static inline void mo_unlock(uint32_t *w) {
    /* release: our section's writes, for the next holder */
    if (MO_UNLIKELY(__atomic_exchange_n(w, 0, __ATOMIC_RELEASE) == 2)) mo_futex_wake(w, 1);
}

/* ---- critical and atomic ------------------------------------------------------------------------------------ */

static uint32_t mo_critical_lock;
static uint32_t mo_atomic_lock;

MO_ABI void GOMP_critical_start(void) { mo_lock(&mo_critical_lock); }
MO_ABI void GOMP_critical_end(void) { mo_unlock(&mo_critical_lock); }

/* A named critical section: *pptr is the name's own pointer-sized word (zero at start), whose
 * first 32 bits are its lock. */
MO_ABI void GOMP_critical_name_start(void **pptr) { mo_lock((uint32_t *)(void *)pptr); }
MO_ABI void GOMP_critical_name_end(void **pptr) { mo_unlock((uint32_t *)(void *)pptr); }

MO_ABI void GOMP_atomic_start(void) { mo_lock(&mo_atomic_lock); }
MO_ABI void GOMP_atomic_end(void) { mo_unlock(&mo_atomic_lock); }

/* ---- OpenMP 3.0 locks (the default versions) ---------------------------------------------------------------- */

typedef struct mo_nest_lock {
    uint32_t lock;
    int32_t count;
    void *owner; /* the owning task's context */
} mo_nest_lock;
_Static_assert(sizeof(mo_nest_lock) == 16, "omp_nest_lock_t is 16 bytes (omp.h)");

/* Which task holds a nested lock: the context of the running task (made on first use). */
static inline void *mo_lock_owner(void) { return mo_current(); }

#define MO_SYMVER(impl, name, ver) __asm__(".symver " #impl "," #name ver)

/* owner: relaxed atomics — a task compares it with itself, and only a holder stores its own
 * context there, so a stale value never equals the reader's (the lock orders the rest). */
static inline bool mo_nest_mine(mo_nest_lock *l, void *me) { return __atomic_load_n(&l->owner, __ATOMIC_RELAXED) == me; }
static inline void mo_nest_own(mo_nest_lock *l, void *me) { __atomic_store_n(&l->owner, me, __ATOMIC_RELAXED); }

MO_ABI void mo_init_lock_30(uint32_t *l) { *l = 0; }
MO_ABI void mo_destroy_lock_30(uint32_t *l) { (void)l; }
MO_ABI void mo_set_lock_30(uint32_t *l) { mo_lock(l); }
MO_ABI void mo_unset_lock_30(uint32_t *l) { mo_unlock(l); }
MO_ABI int mo_test_lock_30(uint32_t *l) { return mo_lock_try(l); }

MO_ABI void mo_init_nest_lock_30(mo_nest_lock *l) {
    l->lock = 0;
    l->count = 0;
    mo_nest_own(l, NULL);
}
MO_ABI void mo_destroy_nest_lock_30(mo_nest_lock *l) { (void)l; }

MO_ABI void mo_set_nest_lock_30(mo_nest_lock *l) {
    void *me = mo_lock_owner();
    if (!mo_nest_mine(l, me)) {
        mo_lock(&l->lock);
        mo_nest_own(l, me);
    }
    l->count++;
}

MO_ABI void mo_unset_nest_lock_30(mo_nest_lock *l) {
    if (--l->count == 0) {
        mo_nest_own(l, NULL);
        mo_unlock(&l->lock);
    }
}

MO_ABI int mo_test_nest_lock_30(mo_nest_lock *l) {
    void *me = mo_lock_owner();
    if (!mo_nest_mine(l, me)) {
        if (!mo_lock_try(&l->lock)) return 0;
        mo_nest_own(l, me);
    }
    return ++l->count;
}

MO_SYMVER(mo_init_lock_30, omp_init_lock, "@@OMP_3.0");
MO_SYMVER(mo_destroy_lock_30, omp_destroy_lock, "@@OMP_3.0");
MO_SYMVER(mo_set_lock_30, omp_set_lock, "@@OMP_3.0");
MO_SYMVER(mo_unset_lock_30, omp_unset_lock, "@@OMP_3.0");
MO_SYMVER(mo_test_lock_30, omp_test_lock, "@@OMP_3.0");
MO_SYMVER(mo_init_nest_lock_30, omp_init_nest_lock, "@@OMP_3.0");
MO_SYMVER(mo_destroy_nest_lock_30, omp_destroy_nest_lock, "@@OMP_3.0");
MO_SYMVER(mo_set_nest_lock_30, omp_set_nest_lock, "@@OMP_3.0");
MO_SYMVER(mo_unset_nest_lock_30, omp_unset_nest_lock, "@@OMP_3.0");
MO_SYMVER(mo_test_nest_lock_30, omp_test_nest_lock, "@@OMP_3.0");

/* Hints (uncontended, contended, speculative, ...) change nothing: one lock serves them all. */
MO_ABI void omp_init_lock_with_hint(uint32_t *l, int hint) {
    (void)hint;
    mo_init_lock_30(l);
}
MO_ABI void omp_init_nest_lock_with_hint(mo_nest_lock *l, int hint) {
    (void)hint;
    mo_init_nest_lock_30(l);
}

/* ---- OpenMP 2.5 locks (OMP_1.0): a nested lock is owned by a thread, in 8 bytes ------------------------------- */

typedef struct mo_nest_lock_25 {
    int32_t owner; /* atomic futex word: the owning thread's id, 0 free */
    int32_t count;
} mo_nest_lock_25;

static inline int32_t mo_tid(void) { return (int32_t)syscall(SYS_gettid); }

MO_ABI void mo_init_lock_25(uint32_t *l) { *l = 0; }
MO_ABI void mo_destroy_lock_25(uint32_t *l) { (void)l; }
MO_ABI void mo_set_lock_25(uint32_t *l) { mo_lock(l); }
MO_ABI void mo_unset_lock_25(uint32_t *l) { mo_unlock(l); }
MO_ABI int mo_test_lock_25(uint32_t *l) { return mo_lock_try(l); }

MO_ABI void mo_init_nest_lock_25(mo_nest_lock_25 *l) {
    l->owner = 0;
    l->count = 0;
}
MO_ABI void mo_destroy_nest_lock_25(mo_nest_lock_25 *l) { (void)l; }

MO_ABI void mo_set_nest_lock_25(mo_nest_lock_25 *l) {
    int32_t me = mo_tid(), free_ = 0;
    if (__atomic_load_n(&l->owner, __ATOMIC_RELAXED) == me) { /* relaxed: only we store our id */
        l->count++;
        return;
    }
    merino__backoff b = {0};
    /* acquire: the previous owner's section */
    while (!__atomic_compare_exchange_n(&l->owner, &free_, me, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
        if (merino__backoff_wait(&b) == MERINO__BACKOFF_SLEEP) mo_futex_wait((uint32_t *)&l->owner, (uint32_t)free_);
        free_ = 0;
    }
    l->count = 1;
}

MO_ABI void mo_unset_nest_lock_25(mo_nest_lock_25 *l) {
    if (--l->count == 0) {
        __atomic_store_n(&l->owner, 0, __ATOMIC_RELEASE); /* release: our section */
        mo_futex_wake((uint32_t *)&l->owner, 1);
    }
}

MO_ABI int mo_test_nest_lock_25(mo_nest_lock_25 *l) {
    int32_t me = mo_tid(), free_ = 0;
    if (__atomic_load_n(&l->owner, __ATOMIC_RELAXED) == me) return ++l->count;
    /* acquire: as above */
    if (!__atomic_compare_exchange_n(&l->owner, &free_, me, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) return 0;
    return l->count = 1;
}

MO_SYMVER(mo_init_lock_25, omp_init_lock, "@OMP_1.0");
MO_SYMVER(mo_destroy_lock_25, omp_destroy_lock, "@OMP_1.0");
MO_SYMVER(mo_set_lock_25, omp_set_lock, "@OMP_1.0");
MO_SYMVER(mo_unset_lock_25, omp_unset_lock, "@OMP_1.0");
MO_SYMVER(mo_test_lock_25, omp_test_lock, "@OMP_1.0");
MO_SYMVER(mo_init_nest_lock_25, omp_init_nest_lock, "@OMP_1.0");
MO_SYMVER(mo_destroy_nest_lock_25, omp_destroy_nest_lock, "@OMP_1.0");
MO_SYMVER(mo_set_nest_lock_25, omp_set_nest_lock, "@OMP_1.0");
MO_SYMVER(mo_unset_nest_lock_25, omp_unset_nest_lock, "@OMP_1.0");
MO_SYMVER(mo_test_nest_lock_25, omp_test_nest_lock, "@OMP_1.0");

/* ---- Fortran (the lock is the Fortran variable itself, except the 3.0 nested lock, whose 8-byte
 * variable holds a pointer to one: omp_lib.h's omp_nest_lock_kind is 8) ------------------------------------------ */

MO_ABI void mo_init_lock__30(uint32_t *l) { mo_init_lock_30(l); }
MO_ABI void mo_destroy_lock__30(uint32_t *l) { mo_destroy_lock_30(l); }
MO_ABI void mo_set_lock__30(uint32_t *l) { mo_set_lock_30(l); }
MO_ABI void mo_unset_lock__30(uint32_t *l) { mo_unset_lock_30(l); }
MO_ABI int32_t mo_test_lock__30(uint32_t *l) { return mo_test_lock_30(l); }

MO_ABI void mo_init_nest_lock__30(mo_nest_lock **l) {
    *l = malloc(sizeof **l);
    if (!*l) mo_fatal("out of memory making an OpenMP nested lock");
    mo_init_nest_lock_30(*l);
}
MO_ABI void mo_destroy_nest_lock__30(mo_nest_lock **l) {
    free(*l);
    *l = NULL;
}
MO_ABI void mo_set_nest_lock__30(mo_nest_lock **l) { mo_set_nest_lock_30(*l); }
MO_ABI void mo_unset_nest_lock__30(mo_nest_lock **l) { mo_unset_nest_lock_30(*l); }
MO_ABI int32_t mo_test_nest_lock__30(mo_nest_lock **l) { return mo_test_nest_lock_30(*l); }

MO_ABI void mo_init_lock__25(uint32_t *l) { mo_init_lock_25(l); }
MO_ABI void mo_destroy_lock__25(uint32_t *l) { mo_destroy_lock_25(l); }
MO_ABI void mo_set_lock__25(uint32_t *l) { mo_set_lock_25(l); }
MO_ABI void mo_unset_lock__25(uint32_t *l) { mo_unset_lock_25(l); }
MO_ABI int32_t mo_test_lock__25(uint32_t *l) { return mo_test_lock_25(l); }
MO_ABI void mo_init_nest_lock__25(mo_nest_lock_25 *l) { mo_init_nest_lock_25(l); }
MO_ABI void mo_destroy_nest_lock__25(mo_nest_lock_25 *l) { mo_destroy_nest_lock_25(l); }
MO_ABI void mo_set_nest_lock__25(mo_nest_lock_25 *l) { mo_set_nest_lock_25(l); }
MO_ABI void mo_unset_nest_lock__25(mo_nest_lock_25 *l) { mo_unset_nest_lock_25(l); }
MO_ABI int32_t mo_test_nest_lock__25(mo_nest_lock_25 *l) { return mo_test_nest_lock_25(l); }

MO_SYMVER(mo_init_lock__30, omp_init_lock_, "@@OMP_3.0");
MO_SYMVER(mo_destroy_lock__30, omp_destroy_lock_, "@@OMP_3.0");
MO_SYMVER(mo_set_lock__30, omp_set_lock_, "@@OMP_3.0");
MO_SYMVER(mo_unset_lock__30, omp_unset_lock_, "@@OMP_3.0");
MO_SYMVER(mo_test_lock__30, omp_test_lock_, "@@OMP_3.0");
MO_SYMVER(mo_init_nest_lock__30, omp_init_nest_lock_, "@@OMP_3.0");
MO_SYMVER(mo_destroy_nest_lock__30, omp_destroy_nest_lock_, "@@OMP_3.0");
MO_SYMVER(mo_set_nest_lock__30, omp_set_nest_lock_, "@@OMP_3.0");
MO_SYMVER(mo_unset_nest_lock__30, omp_unset_nest_lock_, "@@OMP_3.0");
MO_SYMVER(mo_test_nest_lock__30, omp_test_nest_lock_, "@@OMP_3.0");
MO_SYMVER(mo_init_lock__25, omp_init_lock_, "@OMP_1.0");
MO_SYMVER(mo_destroy_lock__25, omp_destroy_lock_, "@OMP_1.0");
MO_SYMVER(mo_set_lock__25, omp_set_lock_, "@OMP_1.0");
MO_SYMVER(mo_unset_lock__25, omp_unset_lock_, "@OMP_1.0");
MO_SYMVER(mo_test_lock__25, omp_test_lock_, "@OMP_1.0");
MO_SYMVER(mo_init_nest_lock__25, omp_init_nest_lock_, "@OMP_1.0");
MO_SYMVER(mo_destroy_nest_lock__25, omp_destroy_nest_lock_, "@OMP_1.0");
MO_SYMVER(mo_set_nest_lock__25, omp_set_nest_lock_, "@OMP_1.0");
MO_SYMVER(mo_unset_nest_lock__25, omp_unset_nest_lock_, "@OMP_1.0");
MO_SYMVER(mo_test_nest_lock__25, omp_test_nest_lock_, "@OMP_1.0");
