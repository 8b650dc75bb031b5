/* stack_guard.c — a pool thread whose C stack overflows stops the program with a message that says
 * so, as Rust's "thread has overflowed its stack" does, instead of dying silently by SIGSEGV.
 *
 * Each pool thread records the bounds of its C stack (pthread_getattr_np) in thread-local words
 * and gets an alternate signal stack, since the handler cannot run on the stack that overflowed.
 * One handler for SIGSEGV and SIGBUS, installed once, reads the faulting thread's words: a fault
 * in the guard region below its stack (or with the stack pointer there) is an overflow, told with
 * write(2) and ended with abort(). Any other fault goes to the handler that was there before us,
 * or, if that was the default action, the default action is put back and the fault happens again:
 * other crashes stay crashes. */
#include "sys/sys.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

/* The bytes below the lowest usable stack address, and the page above it, that count as the
 * guard: glibc puts its guard page(s) right below the address pthread_getattr_np reports, but
 * which side of it a fault lands on depends on how the overflowing frame is laid out. */
#define MRN_GUARD_SLACK ((uintptr_t)64 << 10)

/* The calling pool thread's C stack (lo == 0: not a pool thread, or its bounds are unknown). The
 * handler reads it on the thread that faulted, where it was written: no sharing, no table. */
typedef struct mrn_guarded_stack {
    uintptr_t lo;    /* the lowest usable address of the stack */
    uintptr_t guard; /* bytes of guard below lo */
    size_t bytes;    /* the size asked for (merino_config.c_stack_bytes or its default) */
    unsigned index;  /* the worker's index */
} mrn_guarded_stack;

static __thread mrn_guarded_stack mrn_my_stack;
static __thread void *mrn_my_altstack; /* the alternate signal stack we made for this thread */
static __thread size_t mrn_my_altstack_bytes;
/* The handlers before ours: written once (pthread_once), before any pool thread runs a task. */
static struct sigaction mrn_old_segv, mrn_old_bus;

/* ---- async-signal-safe writing ------------------------------------------------------------------ */

static size_t mrn_put_str(char *buf, size_t at, size_t cap, const char *s) {
    while (*s && at + 1 < cap) buf[at++] = *s++;
    return at;
}

static size_t mrn_put_num(char *buf, size_t at, size_t cap, uint64_t v) {
    char digits[24];
    int n = 0;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n && at + 1 < cap) buf[at++] = digits[--n];
    return at;
}

/* ---- the handler -------------------------------------------------------------------------------- */

static uintptr_t mrn_fault_sp(void *ucontext) {
#if defined(__x86_64__)
    return (uintptr_t)((ucontext_t *)ucontext)->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
    return (uintptr_t)((ucontext_t *)ucontext)->uc_mcontext.sp;
#else
    (void)ucontext;
    return 0;
#endif
}

/* The entry of the faulting thread, if the fault is its stack overflowing; else NULL. */
static const mrn_guarded_stack *mrn_overflowed(const siginfo_t *si, void *ucontext) {
    const mrn_guarded_stack *s = &mrn_my_stack;
    if (s->lo == 0 || si->si_code <= 0) return NULL; /* not a pool thread, or sent by kill() */
    uintptr_t lo = s->lo, addr = (uintptr_t)si->si_addr, sp = mrn_fault_sp(ucontext);
    uintptr_t below = s->guard + MRN_GUARD_SLACK, page = 4096;
    if (addr >= lo - below && addr < lo + page) return s;
    if (sp != 0 && sp >= lo - below && sp < lo + page) return s; /* a frame jumped past the guard */
    return NULL;
}

static void mrn_report_overflow(const mrn_guarded_stack *s) {
    char buf[256];
    size_t n = 0;
    n = mrn_put_str(buf, n, sizeof buf, "merino: worker ");
    n = mrn_put_num(buf, n, sizeof buf, s->index);
    n = mrn_put_str(buf, n, sizeof buf, " overflowed its C stack (");
    n = mrn_put_num(buf, n, sizeof buf, s->bytes);
    n = mrn_put_str(buf, n, sizeof buf, " bytes): raise merino_config.c_stack_bytes or "
                                        "MERINO_C_STACK, or nest C frames less deeply in tasks\n");
    for (size_t done = 0; done < n;) {
        ssize_t w = write(2, buf + done, n - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) break;
        done += (size_t)w;
    }
}

static void mrn_fault(int sig, siginfo_t *si, void *ucontext) {
    int saved_errno = errno;
    const mrn_guarded_stack *s = mrn_overflowed(si, ucontext);
    if (s) {
        mrn_report_overflow(s);
        abort();
    }
    /* Not ours: what was there before handles it. */
    const struct sigaction *old = sig == SIGBUS ? &mrn_old_bus : &mrn_old_segv;
    if (old->sa_flags & SA_SIGINFO) {
        old->sa_sigaction(sig, si, ucontext);
    } else if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
        old->sa_handler(sig);
    } else {
        /* The default action (or ignoring, which the kernel turns into the default for a fault):
         * put it back and return; the faulting instruction runs again and the fault kills the
         * process as if we had never been there. A signal sent by kill() is raised again. */
        signal(sig, SIG_DFL);
        if (si->si_code <= 0) raise(sig);
    }
    errno = saved_errno;
}

static void mrn_install(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = mrn_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &mrn_old_segv);
    sigaction(SIGBUS, &sa, &mrn_old_bus);
}

/* ---- pool threads ------------------------------------------------------------------------------- */

void mrn_stack_guard_enter(unsigned index, size_t bytes) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_attr_t attr;
    void *addr;
    size_t size, guard = 0;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return; /* no bounds: no message, still a crash */
    int ok = pthread_attr_getstack(&attr, &addr, &size) == 0;
    pthread_attr_getguardsize(&attr, &guard);
    pthread_attr_destroy(&attr);
    if (!ok) return;

    /* An alternate signal stack, unless the thread has one (a sanitizer's, say). */
    stack_t cur;
    if (sigaltstack(NULL, &cur) == 0 && (cur.ss_flags & SS_DISABLE)) {
        long min = sysconf(_SC_SIGSTKSZ);
        size_t alt = (size_t)64 << 10;
        if (min > 0 && (size_t)min * 4 > alt) alt = (size_t)min * 4;
        void *mem = mmap(NULL, alt, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (mem == MAP_FAILED) return;
        stack_t ss = {.ss_sp = mem, .ss_size = alt, .ss_flags = 0};
        if (sigaltstack(&ss, NULL) != 0) {
            munmap(mem, alt);
            return;
        }
        mrn_my_altstack = mem;
        mrn_my_altstack_bytes = alt;
    }

    mrn_my_stack.guard = guard;
    mrn_my_stack.bytes = bytes;
    mrn_my_stack.index = index;
    mrn_my_stack.lo = (uintptr_t)addr;
    pthread_once(&once, mrn_install);
}

void mrn_stack_guard_leave(void) {
    mrn_my_stack.lo = 0;
    if (mrn_my_altstack) {
        stack_t off = {.ss_sp = NULL, .ss_size = 0, .ss_flags = SS_DISABLE};
        sigaltstack(&off, NULL);
        munmap(mrn_my_altstack, mrn_my_altstack_bytes);
        mrn_my_altstack = NULL;
    }
}
