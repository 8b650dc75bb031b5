/* check.h — the assertions and helpers of merino's tests (C11 and C++).
 *
 * Include it first, before any system header: it asks for POSIX/GNU declarations.
 *
 *   CHECK(cond)                    CHECK_MSG(cond, fmt, ...)
 *   CHECK_EQ_INT(a, b)             CHECK_EQ_UINT(a, b)          CHECK_EQ_DBL(a, b) (bitwise)
 *   CHECK_CMP_DBL(a, op, b)        CHECK_STR_EQ(a, b)           CHECK_STR_CONTAINS(hay, needle)
 *
 * A failed check prints file:line, the expression, the values, the seed set with check_set_seed()
 * and the context set with check_set_context(), then exits with status 1 (without running exit
 * handlers: other threads may still be running).
 *
 * Child processes, for tests of bad input and fatal errors: check_run_child("name", env, timeout)
 * runs this same binary (/proc/self/exe) as `--child name`, with env applied on top of the current
 * environment ("NAME=VALUE" sets, "-NAME" removes), and returns how it ended and its stderr. The
 * test's main starts with
 *     const char *child = check_child_name(argc, argv);
 *     if (child) return run_child(child);
 *
 * Sizes: check_scale() is MERINO_TEST_SCALE (default 1; lower under sanitizers), a factor on the
 * amount of work a test does.
 *
 * A test that cannot run here calls check_skip("why"): it prints the reason and exits with
 * CHECK_SKIP_CODE (77), which tests/CMakeLists.txt sets as every test's SKIP_RETURN_CODE, so ctest
 * reports the test as skipped ("Not Run"), never as passed.
 */
#ifndef MERINO_TEST_CHECK_H
#define MERINO_TEST_CHECK_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef __cplusplus
#define CHECK__UNUSED [[maybe_unused]] static
#else
#define CHECK__UNUSED static __attribute__((unused))
#endif

extern char **environ;

/* CHECK_SANITIZER: 1 in a ThreadSanitizer or AddressSanitizer build (GCC or Clang), else 0. */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define CHECK_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define CHECK_SANITIZER 1
#endif
#endif
#ifndef CHECK_SANITIZER
#define CHECK_SANITIZER 0
#endif
/* CHECK_TSAN: 1 in a ThreadSanitizer build, else 0. */
#if defined(__SANITIZE_THREAD__)
#define CHECK_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CHECK_TSAN 1
#endif
#endif
#ifndef CHECK_TSAN
#define CHECK_TSAN 0
#endif

/* ---- failure reporting --------------------------------------------------------------------------- */

static unsigned long long check__seed;
static int check__seed_set;
static char check__context[256];

/** The seed printed with any failure from now on (replay it with MERINO_TEST_SEED). */
CHECK__UNUSED void check_set_seed(unsigned long long seed) {
    check__seed = seed;
    check__seed_set = 1;
}

CHECK__UNUSED void check_clear_seed(void) { check__seed_set = 0; }

/** Free text printed with any failure from now on ("workers=4", say); NULL clears it. */
CHECK__UNUSED __attribute__((format(printf, 1, 2))) void check_set_context(const char *fmt, ...) {
    if (!fmt) {
        check__context[0] = 0;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(check__context, sizeof check__context, fmt, ap);
    va_end(ap);
}

CHECK__UNUSED __attribute__((noreturn, format(printf, 4, 5))) void
check__fail(const char *file, int line, const char *expr, const char *fmt, ...) {
    fflush(stdout);
    fprintf(stderr, "%s:%d: CHECK failed: %s\n", file, line, expr);
    if (fmt && *fmt) {
        va_list ap;
        va_start(ap, fmt);
        fputs("    ", stderr);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
    }
    if (check__seed_set)
        fprintf(stderr, "    seed: %llu (replay with MERINO_TEST_SEED=%llu)\n", check__seed, check__seed);
    if (check__context[0]) fprintf(stderr, "    context: %s\n", check__context);
    fflush(stderr);
    _exit(1);
}

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) check__fail(__FILE__, __LINE__, #cond, NULL);                                 \
    } while (0)

#define CHECK_MSG(cond, ...)                                                                       \
    do {                                                                                           \
        if (!(cond)) check__fail(__FILE__, __LINE__, #cond, __VA_ARGS__);                          \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                                         \
    do {                                                                                           \
        long long check__a = (long long)(a), check__b = (long long)(b);                            \
        if (check__a != check__b)                                                                  \
            check__fail(__FILE__, __LINE__, #a " == " #b, "%lld != %lld", check__a, check__b);     \
    } while (0)

#define CHECK_EQ_UINT(a, b)                                                                        \
    do {                                                                                           \
        unsigned long long check__a = (unsigned long long)(a), check__b = (unsigned long long)(b); \
        if (check__a != check__b)                                                                  \
            check__fail(__FILE__, __LINE__, #a " == " #b, "%llu (0x%llx) != %llu (0x%llx)",         \
                        check__a, check__a, check__b, check__b);                                   \
    } while (0)

/* Bitwise equality: results computed the same way must agree exactly. */
#define CHECK_EQ_DBL(a, b)                                                                         \
    do {                                                                                           \
        double check__a = (a), check__b = (b);                                                     \
        if (memcmp(&check__a, &check__b, sizeof(double)) != 0)                                     \
            check__fail(__FILE__, __LINE__, #a " == " #b, "%.17g != %.17g", check__a, check__b);   \
    } while (0)

#define CHECK_CMP_DBL(a, op, b)                                                                    \
    do {                                                                                           \
        double check__a = (a), check__b = (b);                                                     \
        if (!(check__a op check__b))                                                               \
            check__fail(__FILE__, __LINE__, #a " " #op " " #b, "%.6g " #op " %.6g is false",       \
                        check__a, check__b);                                                       \
    } while (0)

#define CHECK_STR_EQ(a, b)                                                                         \
    do {                                                                                           \
        const char *check__a = (a), *check__b = (b);                                               \
        if (!check__a || !check__b || strcmp(check__a, check__b) != 0)                             \
            check__fail(__FILE__, __LINE__, #a " == " #b, "\"%s\" != \"%s\"",                      \
                        check__a ? check__a : "(null)", check__b ? check__b : "(null)");           \
    } while (0)

#define CHECK_STR_CONTAINS(hay, needle)                                                            \
    do {                                                                                           \
        const char *check__h = (hay), *check__n = (needle);                                        \
        if (!check__h || !strstr(check__h, check__n))                                              \
            check__fail(__FILE__, __LINE__, #hay " contains " #needle,                             \
                        "\"%s\" not found in:\n----\n%s----", check__n,                            \
                        check__h ? check__h : "(null)");                                           \
    } while (0)

/* ---- skipping ---------------------------------------------------------------------------------- */

/* ctest's SKIP_RETURN_CODE for every test of tests/CMakeLists.txt (77, as automake's). */
#define CHECK_SKIP_CODE 77

/** This test cannot run here: print "<program>: skipped: <why>" and exit with CHECK_SKIP_CODE.
 *  Call it before the test starts threads or a pool (it runs the exit handlers). */
CHECK__UNUSED __attribute__((noreturn, format(printf, 1, 2))) void check_skip(const char *fmt, ...) {
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    const char *name = strrchr(exe, '/');
    va_list ap;
    va_start(ap, fmt);
    printf("%s: skipped: ", name ? name + 1 : "test");
    vprintf(fmt, ap);
    putchar('\n');
    va_end(ap);
    fflush(stdout);
    exit(CHECK_SKIP_CODE);
}

/* ---- environment knobs --------------------------------------------------------------------------- */

/** MERINO_TEST_SCALE, a factor on the work a test does (default 1; 0.3 under TSan and 0.5 under ASan,
 *  which are slower). */
CHECK__UNUSED double check_scale(void) {
    const char *s = getenv("MERINO_TEST_SCALE");
    if (s && *s) {
        char *end;
        double v = strtod(s, &end);
        if (*end == 0 && v > 0) return v;
        fprintf(stderr, "check.h: ignoring MERINO_TEST_SCALE=\"%s\" (want a positive number)\n", s);
    }
#if defined(__SANITIZE_THREAD__)
    return 0.3;
#elif defined(__SANITIZE_ADDRESS__)
    return 0.5;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
    return 0.3;
#elif __has_feature(address_sanitizer)
    return 0.5;
#endif
#endif
    return 1.0;
}

/** MERINO_TEST_SEED as a number into *seed; returns 0 when it is not set. */
CHECK__UNUSED int check_env_seed(unsigned long long *seed) {
    const char *s = getenv("MERINO_TEST_SEED");
    if (!s || !*s) return 0;
    char *end;
    *seed = strtoull(s, &end, 0);
    if (*end != 0) {
        fprintf(stderr, "check.h: MERINO_TEST_SEED=\"%s\" is not a number\n", s);
        _exit(2);
    }
    return 1;
}

/** Seconds on a monotonic clock. */
CHECK__UNUSED double check_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/** CPU seconds used by the whole process (all threads). */
CHECK__UNUSED double check_cpu_time(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

CHECK__UNUSED void check_sleep(double seconds) {
    struct timespec ts;
    ts.tv_sec = (time_t)seconds;
    ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* ---- child processes ----------------------------------------------------------------------------- */

typedef struct check_child {
    int exited;    /* it exited normally, with status `code` */
    int code;
    int signaled;  /* it was killed by signal `sig` */
    int sig;
    int timed_out; /* it ran past the timeout and was killed (SIGKILL) */
    char *err;     /* its stderr, NUL-terminated (never NULL) */
} check_child;

/** The name after `--child`, or NULL when this process is not a child. */
CHECK__UNUSED const char *check_child_name(int argc, char **argv) {
    if (argc >= 3 && strcmp(argv[1], "--child") == 0) return argv[2];
    return NULL;
}

static int check__env_matches(const char *entry, const char *name, size_t len) {
    return strncmp(entry, name, len) == 0 && entry[len] == '=';
}

/** Runs this binary as `--child name` with env (NULL-terminated list of "NAME=VALUE" to set and
 *  "-NAME" to remove) on top of the current environment; kills it after timeout_s seconds. */
CHECK__UNUSED check_child check_run_child(const char *name, const char *const *env, double timeout_s) {
    check_child r;
    memset(&r, 0, sizeof r);

    /* Build the environment before fork: after fork only async-signal-safe calls. */
    size_t n_env = 0, n_new = 0;
    while (environ[n_env]) n_env++;
    if (env)
        while (env[n_new]) n_new++;
    char **envp = (char **)calloc(n_env + n_new + 1, sizeof(char *));
    CHECK(envp != NULL);
    size_t k = 0;
    for (size_t i = 0; i < n_env; i++) {
        int drop = 0;
        for (size_t j = 0; j < n_new && !drop; j++) {
            const char *e = env[j][0] == '-' ? env[j] + 1 : env[j];
            const char *eq = strchr(e, '=');
            size_t len = eq ? (size_t)(eq - e) : strlen(e);
            drop = check__env_matches(environ[i], e, len);
        }
        if (!drop) envp[k++] = environ[i];
    }
    for (size_t j = 0; j < n_new; j++)
        if (env[j][0] != '-') envp[k++] = (char *)env[j];
    envp[k] = NULL;

    char *argv[] = {(char *)"merino-test-child", (char *)"--child", (char *)name, NULL};
    int fds[2];
    CHECK(pipe(fds) == 0);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], 2);
        close(fds[1]);
        execve("/proc/self/exe", argv, envp);
        _exit(127);
    }
    close(fds[1]);
    free(envp);

    size_t cap = 4096, len = 0;
    r.err = (char *)malloc(cap);
    CHECK(r.err != NULL);
    double deadline = check_now() + timeout_s;
    for (;;) {
        double left = deadline - check_now();
        if (left <= 0) {
            kill(pid, SIGKILL);
            r.timed_out = 1;
            break;
        }
        struct pollfd p = {fds[0], POLLIN, 0};
        int pr = poll(&p, 1, (int)(left * 1000) + 1);
        if (pr < 0 && errno == EINTR) continue;
        if (pr <= 0) continue;
        if (len + 1024 > cap) {
            cap *= 2;
            r.err = (char *)realloc(r.err, cap);
            CHECK(r.err != NULL);
        }
        ssize_t got = read(fds[0], r.err + len, cap - len - 1);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break; /* EOF: the child (and anything it started) closed stderr */
        len += (size_t)got;
    }
    r.err[len] = 0;
    close(fds[0]);

    int status = 0;
    for (;;) {
        /* Past the deadline, stderr may have closed while the child still runs: kill it then. */
        pid_t w = waitpid(pid, &status, r.timed_out ? 0 : WNOHANG);
        if (w == pid) break;
        if (w < 0 && errno != EINTR) break;
        if (w == 0) {
            if (check_now() > deadline) {
                kill(pid, SIGKILL);
                r.timed_out = 1;
            } else {
                check_sleep(0.005);
            }
        }
    }
    if (WIFEXITED(status)) {
        r.exited = 1;
        r.code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        r.signaled = 1;
        r.sig = WTERMSIG(status);
    }
    return r;
}

/** Waits (bounded) for a process this one forked (a grandchild of the test, say); prints how it
 *  ended on stderr ("grandchild: exit 0", "grandchild: signal 6") and returns its wait status, or
 *  -1 if it ran past timeout_s (it is killed: "grandchild: hung, killed"). */
CHECK__UNUSED int check_wait_pid(pid_t pid, double timeout_s) {
    double until = check_now() + timeout_s;
    int status = 0;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid) break;
        if (w < 0 && errno != EINTR) return -1;
        if (check_now() > until) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            fprintf(stderr, "grandchild: hung, killed\n");
            return -1;
        }
        check_sleep(0.01);
    }
    if (WIFEXITED(status)) fprintf(stderr, "grandchild: exit %d\n", WEXITSTATUS(status));
    else if (WIFSIGNALED(status)) fprintf(stderr, "grandchild: signal %d\n", WTERMSIG(status));
    return status;
}

/** How the child ended, for messages ("exit 3", "signal 6 (Aborted)", "timeout"). */
CHECK__UNUSED const char *check_child_status(const check_child *c, char *buf, size_t n) {
    if (c->timed_out)
        snprintf(buf, n, "timed out (killed)");
    else if (c->exited)
        snprintf(buf, n, "exit %d", c->code);
    else if (c->signaled)
        snprintf(buf, n, "signal %d (%s)", c->sig, strsignal(c->sig));
    else
        snprintf(buf, n, "unknown end");
    return buf;
}

/** CHECK about a child: on failure also prints how it ended and its stderr. */
#define CHECK_CHILD(child, cond)                                                                   \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            char check__buf[64];                                                                   \
            check__fail(__FILE__, __LINE__, #cond, "child ended with %s; its stderr:\n----\n%s----", \
                        check_child_status(&(child), check__buf, sizeof check__buf), (child).err);  \
        }                                                                                          \
    } while (0)

CHECK__UNUSED void check_child_free(check_child *c) {
    free(c->err);
    c->err = NULL;
}

/** The number of lines of s (a last line without '\n' counts too). */
CHECK__UNUSED int check_count_lines(const char *s) {
    int n = 0;
    for (; *s; s++)
        if (*s == '\n' || s[1] == 0) n++;
    return n;
}

/** Whether s contains the decimal number v as a whole number (not part of a longer one). */
CHECK__UNUSED int check_has_number(const char *s, long long v) {
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9' || (p > s && p[-1] >= '0' && p[-1] <= '9')) continue;
        char *end;
        long long x = strtoll(p, &end, 10);
        if (x == v) return 1;
    }
    return 0;
}

#endif /* MERINO_TEST_CHECK_H */
