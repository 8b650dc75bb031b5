/* barrier.c — the process-wide memory barrier of asymmetric protocols: the rare side calls
 * mrn_barrier_all(), which makes every other running thread of the process execute a full memory
 * barrier, so that the frequent side needs only a compiler barrier (membarrier(2),
 * MEMBARRIER_CMD_PRIVATE_EXPEDITED). Where the kernel refuses it, mrn_have_barrier_all() says so
 * and the frequent side fences itself. */
#include "sys/sys.h"

#include <linux/membarrier.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

static bool mrn_barrier_ok;
static pthread_once_t mrn_barrier_once = PTHREAD_ONCE_INIT;

static void mrn_barrier_register(void) {
    mrn_barrier_ok = syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
}

bool mrn_have_barrier_all(void) {
    pthread_once(&mrn_barrier_once, mrn_barrier_register);
    return mrn_barrier_ok;
}

void mrn_barrier_all(void) {
    if (mrn_have_barrier_all()) syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
    else __atomic_thread_fence(__ATOMIC_SEQ_CST); /* the other side fences too (see above) */
}
