/* test_loop_idws.c — the idws and idws-poll schedules (src/loop/idws.c): heavy signal traffic for
 * about two seconds with every index counted (no iteration lost or run twice), nested idws loops,
 * a victim that cannot answer (the signal blocked, or a long body under idws-poll) whose range a
 * thief takes itself, bodies that make system calls while signals arrive (a read that blocks is
 * restarted: SA_RESTART; nanosleep's EINTR is the body's to handle), no signal at one worker, no
 * signal outside idws loops (task groups sleeping beside another thread's idws loops see no EINTR),
 * and in child processes: a program that blocks every signal gets none sent or left pending (its
 * victims poll); a program's own handler on the signal is refused with a message, an ignored
 * signal too, SIG_DFL put back during a loop is reported before a signal would kill the program,
 * another signal can be chosen with MERINO_IDWS_SIGNAL, a malformed MERINO_IDWS_SIGNAL is reported. */
#include "check.h"

#include "loop/loop.h" /* the counts mrn_idws_sent, _given, _fallbacks */

#include <merino_graph.h>
#include <merino_loop.h>

#include <dirent.h>
#include <limits.h>
#include <pthread.h>
#include <unistd.h>

static uint64_t count(uint64_t *c) { return __atomic_load_n(c, __ATOMIC_RELAXED); } /* relaxed: a statistic */

static merino_for_opts idws(int poll) {
    merino_for_opts o = {.schedule = poll ? MERINO_SCHEDULE_IDWS_POLL : MERINO_SCHEDULE_IDWS};
    return o;
}

/* Work that varies along the range: heavy at the start, a hot spot, light elsewhere. */
static uint64_t spin_work(int64_t i, int64_t n) {
    int64_t reps = i < n / 8 ? 400 : (i % 97 == 0 ? 2000 : 20);
    uint64_t x = (uint64_t)i;
    for (int64_t k = 0; k < reps; k++) x = x * 6364136223846793005ull + 1442695040888963407ull;
    return x;
}

typedef struct counted {
    int64_t n;
    unsigned char *hits; /* atomic */
    uint64_t sink;       /* atomic */
    const merino_for_opts *inner; /* nested loops, or NULL */
} counted;

static void count_body(int64_t lo, int64_t hi, void *ctx);

static void inner_body(int64_t lo, int64_t hi, void *ctx) {
    counted *c = ctx;
    for (int64_t i = lo; i < hi; i++) {
        /* relaxed: counts and a sink, read after the loop */
        __atomic_fetch_add(&c->hits[i], 1, __ATOMIC_RELAXED);
        __atomic_fetch_add(&c->sink, spin_work(i, c->n), __ATOMIC_RELAXED);
    }
}

static void count_body(int64_t lo, int64_t hi, void *ctx) {
    counted *c = ctx;
    if (c->inner == NULL) {
        inner_body(lo, hi, ctx);
        return;
    }
    for (int64_t i = lo; i < hi; i++) { /* each outer index: an inner idws loop over its 64 cells */
        counted in = {c->n, c->hits + i * 64, 0, NULL};
        merino_for(0, 64, inner_body, &in, c->inner);
        __atomic_fetch_add(&c->sink, in.sink, __ATOMIC_RELAXED); /* relaxed: as above */
    }
}

static void check_traffic(double seconds) {
    static const unsigned workers[] = {2, 3, 4};
    double t0 = check_now();
    unsigned rounds = 0;
    uint64_t sent0 = count(&mrn_idws_sent), given0 = count(&mrn_idws_given);
    while (check_now() - t0 < seconds) {
        unsigned w = workers[rounds % 3];
        merino_config cfg = {.workers = w};
        CHECK(merino_start(&cfg) == 0);
        for (int k = 0; k < 4; k++, rounds++) {
            int poll = k % 2, nested = k >= 2;
            merino_for_opts o = idws(poll);
            int64_t n = nested ? 600 : 30000;
            counted c = {n, calloc((size_t)n * (nested ? 64 : 1), 1), 0, nested ? &o : NULL};
            CHECK(c.hits != NULL);
            check_set_context("workers %u, %s, %s", w, poll ? "idws-poll" : "idws", nested ? "nested" : "flat");
            merino_for(0, n, count_body, &c, &o);
            for (int64_t i = 0; i < n * (nested ? 64 : 1); i++)
                CHECK_MSG(c.hits[i] == 1, "cell %lld ran %d times", (long long)i, c.hits[i]);
            free(c.hits);
        }
        merino_stop();
    }
    check_set_context(NULL);
    printf("traffic: %u loops, %llu signals, %llu donations\n", rounds,
           (unsigned long long)(count(&mrn_idws_sent) - sent0), (unsigned long long)(count(&mrn_idws_given) - given0));
    CHECK(count(&mrn_idws_sent) > sent0);
    CHECK(count(&mrn_idws_given) > given0);
}

/* ---- a victim that does not answer ---------------------------------------------------------------
 * The worker that runs index 0 blocks the signal (idws) or stays in that one body (idws-poll, which
 * answers only between chunks) until an index of its half has run on another worker: only the
 * thief's fallback can take the range from it. On a loaded machine the scene can play out
 * otherwise — the victim descheduled before it starts its range (a thief then takes a range nobody
 * runs yet directly), or a thief's signal landing before the victim blocks it (a donation) — so
 * the scene is played up to MAX_SCENES times, and the test fails only if no scene ended with a
 * fallback; every scene must still run every index exactly once and give part of the victim's
 * half to another worker. */

enum { STUCK_N = 20000, MAX_SCENES = 8, NOT_RUN = INT_MIN };

typedef struct stuck {
    int block_signal;
    int first;           /* atomic: the worker that runs index 0, or -2 before it does */
    unsigned char *hits; /* atomic: runs of each index */
    int *runner;         /* atomic: the worker that ran each index (merino_worker_index), NOT_RUN before */
} stuck;

/* Whether an index of the first half (other than 0) ran on a worker other than index 0's. */
static bool ran_elsewhere(stuck *s) {
    int first = __atomic_load_n(&s->first, __ATOMIC_RELAXED); /* relaxed: hints, rechecked after the loop */
    for (int64_t i = 1; i < STUCK_N / 2; i++) {
        int w = __atomic_load_n(&s->runner[i], __ATOMIC_RELAXED);
        if (w != NOT_RUN && w != first) return true;
    }
    return false;
}

static void stuck_body(int64_t lo, int64_t hi, void *ctx) {
    stuck *s = ctx;
    for (int64_t i = lo; i < hi; i++) {
        __atomic_fetch_add(&s->hits[i], 1, __ATOMIC_RELAXED); /* relaxed: counts, read after */
        __atomic_store_n(&s->runner[i], merino_worker_index(), __ATOMIC_RELAXED); /* relaxed: as above */
        if (i == 0) {
            sigset_t set, old;
            sigemptyset(&set);
            sigaddset(&set, SIGRTMIN + 3);
            if (s->block_signal) pthread_sigmask(SIG_BLOCK, &set, &old);
            __atomic_store_n(&s->first, merino_worker_index(), __ATOMIC_RELAXED); /* relaxed: a hint */
            double t0 = check_now(); /* until a thief took part of our half (3 s: never, if broken) */
            while (!ran_elsewhere(s) && check_now() - t0 < 3) sched_yield();
            if (s->block_signal) pthread_sigmask(SIG_SETMASK, &old, NULL); /* a pending signal lands */
        }
    }
}

static void check_fallback(int poll) {
    const char *name = poll ? "idws-poll" : "idws";
    merino_config cfg = {.workers = 2};
    CHECK(merino_start(&cfg) == 0);
    int scenes = 0, fell_back = 0;
    while (!fell_back && scenes < MAX_SCENES) {
        scenes++;
        uint64_t fb0 = count(&mrn_idws_fallbacks);
        stuck s = {!poll, -2, calloc(STUCK_N, 1), malloc(STUCK_N * sizeof(int))};
        CHECK(s.hits && s.runner);
        for (int64_t i = 0; i < STUCK_N; i++) s.runner[i] = NOT_RUN;
        merino_for_opts o = idws(poll);
        merino_for(0, STUCK_N, stuck_body, &s, &o);
        CHECK_MSG(ran_elsewhere(&s), "%s, scene %d: no index of the stuck victim's half ran on another worker",
                  name, scenes);
        for (int64_t i = 0; i < STUCK_N; i++)
            CHECK_MSG(s.hits[i] == 1, "%s, scene %d: index %lld ran %d times", name, scenes, (long long)i, s.hits[i]);
        fell_back = count(&mrn_idws_fallbacks) > fb0;
        free(s.hits);
        free(s.runner);
    }
    CHECK_MSG(fell_back, "%s: in %d scenes, no thief took the range of a victim that could not answer", name, scenes);
    if (scenes > 1) printf("%s: the fallback came in scene %d\n", name, scenes);
    merino_stop();
}

/* ---- system calls in bodies ---------------------------------------------------------------------- */

static int pipe_fds[2];

static void *late_writer(void *arg) {
    (void)arg;
    check_sleep(0.2);
    CHECK(write(pipe_fds[1], "x", 1) == 1);
    return NULL;
}

typedef struct syscalls {
    int read_result, read_errno; /* index 0's blocking read */
    unsigned char *hits;
} syscalls;

static void syscall_body(int64_t lo, int64_t hi, void *ctx) {
    syscalls *s = ctx;
    for (int64_t i = lo; i < hi; i++) {
        if (i == 0) { /* blocks ~0.2 s while thieves signal this thread: SA_RESTART restarts it */
            char ch;
            s->read_result = (int)read(pipe_fds[0], &ch, 1);
            s->read_errno = errno;
        } else if (i % 50 == 0) { /* nanosleep is never restarted: EINTR, with the time left */
            struct timespec ts = {0, 200000};
            while (nanosleep(&ts, &ts) != 0) CHECK(errno == EINTR);
        } else {
            spin_work(i, 1 << 20);
        }
        __atomic_fetch_add(&s->hits[i], 1, __ATOMIC_RELAXED); /* relaxed: counts, read after */
    }
}

static void check_syscalls(void) {
    merino_config cfg = {.workers = 2};
    CHECK(merino_start(&cfg) == 0);
    CHECK(pipe(pipe_fds) == 0);
    pthread_t w;
    CHECK(pthread_create(&w, NULL, late_writer, NULL) == 0);
    syscalls s = {0, 0, calloc(4000, 1)};
    merino_for_opts o = idws(0);
    merino_for(0, 4000, syscall_body, &s, &o);
    pthread_join(w, NULL);
    CHECK_MSG(s.read_result == 1, "a blocking read in a body returned %d (errno %d)", s.read_result, s.read_errno);
    for (int i = 0; i < 4000; i++) CHECK_MSG(s.hits[i] == 1, "index %d ran %d times", i, s.hits[i]);
    free(s.hits);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    merino_stop();
}

/* ---- the signal stays inside idws loops ----------------------------------------------------------
 * One thread runs idws loops of uneven work from outside the pool (thieves signal the workers that
 * run its participants), and sleeps between loops; another runs task groups whose tasks never use
 * idws and sleep in nanosleep, which a signal interrupts with EINTR (Linux never restarts it). The
 * signal must reach a thread only while it runs an idws participant: no EINTR in the groups' tasks,
 * none in the loop thread's own sleeps between its loops. */

static uint64_t eintr_in_tasks, eintr_outside, group_sleeps; /* atomic: counts */
static int quiet_done;                                        /* atomic: the loops have ended */

static void sleep_counting(uint64_t *eintr, long ns) {
    struct timespec ts = {0, ns};
    while (nanosleep(&ts, &ts) != 0) {
        CHECK(errno == EINTR);
        __atomic_fetch_add(eintr, 1, __ATOMIC_RELAXED); /* relaxed: a count, read after the joins */
    }
}

static void group_task(void *arg) {
    (void)arg;
    sleep_counting(&eintr_in_tasks, 50000);
    __atomic_fetch_add(&group_sleeps, 1, __ATOMIC_RELAXED); /* relaxed: as above */
}

static void *run_groups(void *arg) {
    (void)arg;
    while (!__atomic_load_n(&quiet_done, __ATOMIC_ACQUIRE)) { /* acquire: a flag */
        merino_task_group g;
        merino_task_group_init(&g);
        for (int k = 0; k < 8; k++) merino_task_group_run(&g, group_task, NULL);
        CHECK(merino_task_group_wait(&g) == 0);
    }
    return NULL;
}

static void check_quiet_elsewhere(double seconds) {
    merino_config cfg = {.workers = 4}; /* oversubscribed: descheduled victims, late answers */
    CHECK(merino_start(&cfg) == 0);
    uint64_t sent0 = count(&mrn_idws_sent);
    pthread_t groups;
    CHECK(pthread_create(&groups, NULL, run_groups, NULL) == 0);
    double t0 = check_now();
    unsigned loops = 0;
    while (check_now() - t0 < seconds) {
        merino_for_opts o = idws(0);
        counted c = {20000, calloc(20000, 1), 0, NULL};
        CHECK(c.hits != NULL);
        merino_for(0, c.n, count_body, &c, &o);
        for (int64_t i = 0; i < c.n; i++) CHECK(c.hits[i] == 1);
        free(c.hits);
        loops++;
        sleep_counting(&eintr_outside, 20000); /* outside the pool, between loops */
    }
    __atomic_store_n(&quiet_done, 1, __ATOMIC_RELEASE); /* release: a flag */
    pthread_join(groups, NULL);
    merino_stop();
    printf("quiet elsewhere: %u idws loops, %llu signals; %llu sleeps in group tasks: %llu EINTR; "
           "%llu EINTR between loops\n",
           loops, (unsigned long long)(count(&mrn_idws_sent) - sent0), (unsigned long long)count(&group_sleeps),
           (unsigned long long)count(&eintr_in_tasks), (unsigned long long)count(&eintr_outside));
    CHECK(count(&mrn_idws_sent) > sent0); /* the scene had signal traffic */
    CHECK(count(&group_sleeps) > 0);
    CHECK_EQ_UINT(count(&eintr_in_tasks), 0);
    CHECK_EQ_UINT(count(&eintr_outside), 0);
}

/* ---- a program that blocks the signal ------------------------------------------------------------
 * The sigwait pattern: main blocks every signal before any thread starts, so every worker inherits
 * the mask. No signal may be sent to a thread that blocks it (each would stay queued, until the
 * process's queue is full); the victims answer by polling instead. In a child process: its mask
 * and its counts are its own. */

/* How many instances of sig are pending for this thread (taken off the queue), and whether any of
 * the process's other threads has one pending (/proc/self/task/<tid>/status, SigPnd). */
static unsigned take_pending(int sig) {
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    struct timespec zero = {0, 0};
    unsigned n = 0;
    while (sigtimedwait(&one, NULL, &zero) == sig) n++;
    return n;
}

static bool pending_elsewhere(int sig) {
    DIR *d = opendir("/proc/self/task");
    if (d == NULL) return false;
    bool any = false;
    for (struct dirent *e; (e = readdir(d)) != NULL && !any;) {
        if (e->d_name[0] == '.') continue;
        char path[300], line[256];
        snprintf(path, sizeof path, "/proc/self/task/%s/status", e->d_name);
        FILE *f = fopen(path, "r");
        if (f == NULL) continue;
        while (fgets(line, sizeof line, f))
            if (strncmp(line, "SigPnd:", 7) == 0) {
                unsigned long long mask = strtoull(line + 7, NULL, 16);
                any = (mask >> (sig - 1)) & 1;
            }
        fclose(f);
    }
    closedir(d);
    return any;
}

static int child_blocked(void) {
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    merino_config cfg = {.workers = 2};
    if (merino_start(&cfg) != 0) return 2;
    uint64_t given0 = count(&mrn_idws_given);
    for (int k = 0; k < 800; k++) {
        merino_for_opts o = idws(0);
        counted c = {4000, calloc(4000, 1), 0, NULL};
        merino_for(0, c.n, count_body, &c, &o);
        for (int64_t i = 0; i < c.n; i++)
            if (c.hits[i] != 1) return 3;
        free(c.hits);
    }
    bool elsewhere = pending_elsewhere(SIGRTMIN + 3);
    merino_stop();
    unsigned here = take_pending(SIGRTMIN + 3);
    fprintf(stderr, "signals sent %llu, pending here %u, pending on a worker %d, donations %llu\n",
            (unsigned long long)count(&mrn_idws_sent), here, elsewhere,
            (unsigned long long)(count(&mrn_idws_given) - given0));
    if (count(&mrn_idws_sent) != 0 || here != 0 || elsewhere) return 4;
    return count(&mrn_idws_given) > given0 ? 0 : 5; /* the victims gave by polling */
}

static void check_blocked(void) {
    check_child c = check_run_child("blocked", NULL, 120);
    CHECK_CHILD(c, c.exited && c.code == 0);
    printf("blocked everywhere: %s", c.err);
    check_child_free(&c);
}

/* ---- one worker ---------------------------------------------------------------------------------- */

static void check_one_worker(void) {
    merino_config cfg = {.workers = 1};
    CHECK(merino_start(&cfg) == 0);
    uint64_t sent0 = count(&mrn_idws_sent);
    for (int det = 0; det <= 1; det++) {
        counted c = {20000, calloc(20000, 1), 0, NULL};
        merino_for_opts o = idws(0);
        o.deterministic = det;
        merino_for(0, c.n, count_body, &c, &o);
        for (int64_t i = 0; i < c.n; i++) CHECK(c.hits[i] == 1);
        free(c.hits);
    }
    CHECK_EQ_UINT(count(&mrn_idws_sent), sent0);
    merino_stop();
}

/* ---- the signal's owner -------------------------------------------------------------------------- */

static void app_handler(int sig) { (void)sig; }

static void nothing(int64_t lo, int64_t hi, void *ctx) { (void)lo, (void)hi, (void)ctx; }

/* Index 0 waits until another thread has run an index (so both workers take part, however late the
 * second one woke), then puts SIG_DFL back on the signal and works for a second; every other index
 * takes about a microsecond, so that the other worker asks for part of this one's range soon after
 * the change. (A signal sent before the change and delivered after it would end the program, as
 * SIG_DFL says: docs/loops.md.) */
static unsigned long default_zero_thread; /* the thread that runs index 0, once it has started */
static int default_other_ran;             /* another thread ran an index after that */

static void default_body(int64_t lo, int64_t hi, void *ctx) {
    uint64_t x = 0;
    unsigned long self = (unsigned long)pthread_self();
    for (int64_t i = lo; i < hi; i++) {
        if (i == 0) {
            /* release/acquire: the other thread's flag is set only after it saw our id */
            __atomic_store_n(&default_zero_thread, self, __ATOMIC_RELEASE);
            double t0 = check_now();
            while (!__atomic_load_n(&default_other_ran, __ATOMIC_ACQUIRE) && check_now() - t0 < 5)
                x += spin_work(i, 1);
            if (!__atomic_load_n(&default_other_ran, __ATOMIC_ACQUIRE)) {
                fprintf(stderr, "the second worker ran no index within 5 s of the first\n");
                _exit(3);
            }
            signal(SIGRTMIN + 3, SIG_DFL);
            t0 = check_now();
            while (check_now() - t0 < 1) x += spin_work(i, 1);
        } else {
            unsigned long zero = __atomic_load_n(&default_zero_thread, __ATOMIC_ACQUIRE);
            if (zero && zero != self) __atomic_store_n(&default_other_ran, 1, __ATOMIC_RELEASE);
        }
        for (int k = 0; k < 25; k++) x += spin_work(i, 1);
    }
    __atomic_fetch_add((uint64_t *)ctx, x, __ATOMIC_RELAXED); /* relaxed: a sink */
}

static int run_child(const char *name) {
    merino_for_opts o = idws(0);
    if (strcmp(name, "app_handler") == 0) { /* the program handles the signal merino wants */
        signal(SIGRTMIN + 3, app_handler);
        merino_for(0, 100, nothing, NULL, &o);
        return 0;
    }
    if (strcmp(name, "replaced") == 0) { /* the program replaces merino's handler later */
        merino_for(0, 100, nothing, NULL, &o);
        signal(SIGRTMIN + 3, app_handler);
        merino_for(0, 100, nothing, NULL, &o);
        return 0;
    }
    if (strcmp(name, "ignored") == 0) { /* ignored, as a program inherits it across exec */
        signal(SIGRTMIN + 3, SIG_IGN);
        merino_for(0, 100, nothing, NULL, &o);
        return 0;
    }
    if (strcmp(name, "default_in_loop") == 0) { /* a body puts SIG_DFL back during the loop */
        merino_config cfg = {.workers = 2};
        if (merino_start(&cfg) != 0) return 2;
        uint64_t sink = 0;
        merino_for(0, 2000, default_body, &sink, &o);
        return 0;
    }
    if (strcmp(name, "blocked") == 0) return child_blocked();
    if (strcmp(name, "plain") == 0) {
        merino_for(0, 100, nothing, NULL, &o);
        return 0;
    }
    return 2;
}

static void check_signal_owner(void) {
    check_child c = check_run_child("app_handler", NULL, 30);
    CHECK_MSG(c.signaled && c.sig == SIGABRT, "a program's handler must not be replaced: %s", c.err);
    CHECK_STR_CONTAINS(c.err, "MERINO_IDWS_SIGNAL");
    CHECK_STR_CONTAINS(c.err, "installed a handler");
    check_child_free(&c);

    char other[64];
    snprintf(other, sizeof other, "MERINO_IDWS_SIGNAL=%d", SIGRTMIN + 5);
    const char *const env_other[] = {other, NULL};
    c = check_run_child("app_handler", env_other, 30); /* another signal: fine */
    CHECK_MSG(c.exited && c.code == 0, "with %s: %s", other, c.err);
    check_child_free(&c);

    c = check_run_child("ignored", NULL, 30); /* SIG_IGN, as inherited: said so */
    CHECK_MSG(c.signaled && c.sig == SIGABRT, "an ignored signal must be reported: %s", c.err);
    CHECK_STR_CONTAINS(c.err, "SIG_IGN");
    CHECK_STR_CONTAINS(c.err, "MERINO_IDWS_SIGNAL");
    CHECK_MSG(strstr(c.err, "installed") == NULL, "an ignored signal is not an installed disposition: %s", c.err);
    check_child_free(&c);

    /* A thief sees SIG_DFL before it signals. Three scenes are played again, up to 4 times: a
     * signal sent just before the change and delivered after it ends the program by the signal, as
     * documented (rare: the victim must be descheduled at its change for a millisecond); a second
     * worker that took no part for 5 s (on a loaded machine) leaves no thief to check; and one that
     * holds every index left outside index 0's chunk never needs to steal (the loop ends). */
    for (int scene = 1;; scene++) {
        c = check_run_child("default_in_loop", NULL, 30);
        bool by_signal = c.signaled && c.sig == SIGRTMIN + 3;
        bool alone = c.exited && c.code == 3;
        bool no_steal = c.exited && c.code == 0;
        if (!(by_signal || alone || no_steal) || scene == 4) break;
        check_child_free(&c);
    }
    CHECK_MSG(c.signaled && c.sig == SIGABRT, "SIG_DFL put back during a loop must be reported, not kill "
              "the program silently (exited %d, code %d, signal %d): %s", c.exited, c.code, c.sig, c.err);
    CHECK_STR_CONTAINS(c.err, "SIG_DFL");
    check_child_free(&c);

    c = check_run_child("replaced", NULL, 30);
    CHECK_MSG(c.signaled && c.sig == SIGABRT, "a replaced handler must be reported: %s", c.err);
    CHECK_STR_CONTAINS(c.err, "was replaced");
    check_child_free(&c);

    static const char *const bad[] = {"MERINO_IDWS_SIGNAL=abc", "MERINO_IDWS_SIGNAL=10", NULL};
    for (int i = 0; bad[i]; i++) {
        const char *const env[] = {bad[i], NULL};
        c = check_run_child("plain", env, 30);
        CHECK_MSG(c.signaled && c.sig == SIGABRT, "%s: %s", bad[i], c.err);
        CHECK_STR_CONTAINS(c.err, "is not a real-time signal");
        check_child_free(&c);
    }
}

int main(int argc, char **argv) {
    const char *child = check_child_name(argc, argv);
    if (child) return run_child(child);
    unsetenv("MERINO_IDWS_SIGNAL");
    check_signal_owner();
    check_one_worker();
    check_blocked();
    check_quiet_elsewhere(1.5 * check_scale());
    check_fallback(0);
    check_fallback(1);
    check_syscalls();
    check_traffic(2.0 * check_scale());
    puts("test_loop_idws: ok");
    return 0;
}
