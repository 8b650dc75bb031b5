/* lock.h — a lock for rare paths that must not allocate (the allocator's global paths): spins a
 * little, then sleeps on a futex. Never held across anything that can be preempted for long. */
#ifndef MERINO_SYS_LOCK_H
#define MERINO_SYS_LOCK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct mrn_lock {
    _Atomic uint32_t word; /* 0 free, 1 held, 2 held with sleepers */
} mrn_lock;
#define MRN_LOCK_INIT {0}

void mrn_lock_acquire(mrn_lock *l);
void mrn_lock_release(mrn_lock *l);

/* Acquires (hold) or releases l: for fork handlers, which take a lock before fork and release it
 * after, on both sides. */
static inline void mrn_lock_hold(mrn_lock *l, bool hold) {
    if (hold)
        mrn_lock_acquire(l);
    else
        mrn_lock_release(l);
}

#endif /* MERINO_SYS_LOCK_H */
