/* lock.c — the futex lock of lock.h. */
#include "lock.h"

#include "sys.h"

void mrn_lock_acquire(mrn_lock *l) {
    uint32_t expect = 0;
    /* acquire: the holder's critical section comes after the previous holder's release */
    if (atomic_compare_exchange_strong_explicit(&l->word, &expect, 1, memory_order_acquire,
                                                memory_order_relaxed))
        return;
    for (int i = 0; i < 100; i++) {
        mrn_cpu_relax();
        expect = 0;
        /* relaxed peek, then acquire: as above */
        if (atomic_load_explicit(&l->word, memory_order_relaxed) == 0 &&
            atomic_compare_exchange_weak_explicit(&l->word, &expect, 1, memory_order_acquire,
                                                  memory_order_relaxed))
            return;
    }
    /* acquire: as above; 2 tells the releaser that someone may sleep */
    while (atomic_exchange_explicit(&l->word, 2, memory_order_acquire) != 0)
        mrn_futex_wait((uint32_t *)&l->word, 2);
}

void mrn_lock_release(mrn_lock *l) {
    /* release: the critical section's writes before the next holder's acquire */
    if (atomic_exchange_explicit(&l->word, 0, memory_order_release) == 2)
        mrn_futex_wake((uint32_t *)&l->word, 1);
}
