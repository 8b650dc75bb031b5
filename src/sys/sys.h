/* sys.h — what every layer of merino needs from the operating system, and nothing else: futex
 * wait and wake, a monotonic clock, the CPU's pause, error reporting, and the CPUs the process may
 * use (affinity mask and cgroup quota). Calls nothing in merino; every other layer may call it.
 * Internal: never included by users. */
#ifndef MERINO_SYS_H
#define MERINO_SYS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* cpu_set_t, sched_getcpu */
#endif

#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MRN_CACHE_LINE 64
#define MRN_LIKELY(x) __builtin_expect(!!(x), 1)
#define MRN_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* ---- waiting ------------------------------------------------------------------------------------ */

/* One pause of a spin loop: lets the sibling hyperthread run and saves power. */
static inline void mrn_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Sleeps while *word == expected (returns at once otherwise; may return spuriously). */
void mrn_futex_wait(uint32_t *word, uint32_t expected);
/* The same, returning after timeout_ns at the latest (for waits that must look around now and then). */
void mrn_futex_wait_ns(uint32_t *word, uint32_t expected, uint64_t timeout_ns);
/* Wakes up to count threads sleeping on word. */
void mrn_futex_wake(uint32_t *word, int count);

/* The rare side of an asymmetric barrier: every other running thread of the process executes a
 * full memory barrier (membarrier(2)) before this returns. mrn_have_barrier_all() is false where
 * the kernel refuses it: then this is only a fence, and the frequent side must fence too. */
void mrn_barrier_all(void);
bool mrn_have_barrier_all(void);

/* Monotonic nanoseconds (a vDSO call, about 20 ns). */
uint64_t mrn_clock_ns(void);
/* Monotonic milliseconds of a coarse clock: a timer tick's resolution (1-4 ms), a few ns a call. */
uint64_t mrn_clock_coarse_ms(void);

/* ---- errors ------------------------------------------------------------------------------------- */

/* Reports one line, "merino: <message>": kept for merino_last_error() (per thread), passed to the
 * handler set with merino_set_error_handler, else printed on stderr — unless the calling thread is
 * quiet (mrn_error_quiet). */
void mrn_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), cold));
/* Reports like mrn_error, always on stderr too, and aborts: for misuse the program cannot go on
 * from (a task stack overflow, a join with no spawn). */
__attribute__((noreturn, cold, format(printf, 1, 2))) void mrn_fatal(const char *fmt, ...);
/* While set, this thread's errors are kept for merino_last_error() but neither printed nor passed
 * to the handler: for callers that report them their own way (the C++ runtime throws). Returns
 * the previous setting. */
bool mrn_error_quiet(bool quiet);

/* One line "merino: <message>" on stderr, written with write(2): nothing allocated, no handler
 * called, nothing kept. For code that must not allocate while it reports (the allocator). */
void mrn_say(const char *fmt, ...) __attribute__((format(printf, 1, 2), cold));
/* mrn_say, then abort. */
__attribute__((noreturn, cold, format(printf, 1, 2))) void mrn_die(const char *fmt, ...);

/* ---- C stack overflow of pool threads ------------------------------------------------------------ */

/* Called by a pool thread first thing: records its C stack's bounds (asked for as `bytes`), gives
 * it an alternate signal stack, and installs (once per process) the SIGSEGV/SIGBUS handler that
 * turns a fault in the guard region below such a stack into "merino: worker <index> overflowed
 * its C stack ..." and abort(); other faults go to the previous handler or the default action. */
void mrn_stack_guard_enter(unsigned index, size_t bytes);
/* Called by the same thread last: forgets its stack, frees its alternate signal stack. */
void mrn_stack_guard_leave(void);

/* ---- the CPUs this process may use -------------------------------------------------------------- */

typedef struct mrn_cpu_budget {
    cpu_set_t cpus;  /* the process's affinity mask: the union of its threads' masks */
    unsigned ncpus;  /* CPUs in it, at least 1 */
    unsigned quota;  /* CPUs the cgroup quota allows (rounded up), or 0 when there is no quota */
    /* For mrn_reread_cpu_budget: the main thread's mask when this was read, and the quota's
     * file(s): v2 cpu.max in quota_file (period_file empty), v1 cfs_quota_us and cfs_period_us;
     * empty when the process's cgroup has no such file. */
    cpu_set_t main_mask;
    char quota_file[512], period_file[512];
} mrn_cpu_budget;

/* Reads the process's CPU budget. The cgroup file system is looked for under MERINO_CGROUP_ROOT
 * if set (for tests), else /sys/fs/cgroup; a missing or unreadable file means no quota. */
void mrn_read_cpu_budget(mrn_cpu_budget *out);
/* The usable CPUs now (see mrn_cpu_budget_count), cheaply, for a pool that follows its budget
 * while it runs: the quota file(s) found by mrn_read_cpu_budget read again (a file now missing,
 * unreadable or malformed: no quota), and the mask recounted from the main thread's when that
 * changed since (else the union read at start stands). Two or three system calls a file. */
unsigned mrn_reread_cpu_budget(const mrn_cpu_budget *start);
/* The usable CPUs: the mask's count, capped by the quota. */
static inline unsigned mrn_cpu_budget_count(const mrn_cpu_budget *b) {
    return b->quota && b->quota < b->ncpus ? b->quota : b->ncpus;
}

#endif
