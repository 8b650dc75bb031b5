/* Where start errors go (src/sys/error.c):
 *  - merino_config.quiet: merino_start fails without printing (a child's stderr stays empty), and
 *    merino_last_error() still has the message; quiet applies to that call only;
 *  - merino_set_error_handler: the handler receives each message (with its arg) instead of stderr,
 *    and nothing when the call is quiet; set back to NULL, errors are printed again;
 *  - by default the message is printed on stderr, one line, the same as merino_last_error();
 *  - merino_last_error() is per thread: threads failing at the same time each see their own
 *    message, and a thread that did not fail sees "". */
#include "check.h"

#include <merino.h>

#include <pthread.h>

static const char *const bad_workers[] = {"MERINO_WORKERS=lots", NULL};

/* ---- children: what a process prints ------------------------------------------------------- */

static int child_quiet(void) {
    merino_config cfg = {0};
    cfg.quiet = 1;
    CHECK_EQ_INT(merino_start(&cfg), -1);
    CHECK_STR_CONTAINS(merino_last_error(), "merino: MERINO_WORKERS='lots'");
    /* A running pool: a second, quiet start fails silently too. */
    cfg.workers = 2;
    unsetenv("MERINO_WORKERS");
    CHECK_EQ_INT(merino_start(&cfg), 0);
    CHECK_EQ_INT(merino_start(&cfg), -1);
    CHECK_STR_CONTAINS(merino_last_error(), "already running");
    CHECK_EQ_INT(merino_stop(), 0);
    return 0;
}

static char g_handled[1024];
static int g_handled_count;

static void handler(const char *message, void *arg) {
    CHECK(arg == (void *)g_handled);
    snprintf(g_handled, sizeof g_handled, "%s", message);
    g_handled_count++;
}

static int child_handler(void) {
    merino_set_error_handler(handler, g_handled);
    CHECK_EQ_INT(merino_start(NULL), -1);
    CHECK_EQ_INT(g_handled_count, 1);
    CHECK_STR_CONTAINS(g_handled, "merino: MERINO_WORKERS='lots'");
    CHECK_STR_EQ(g_handled, merino_last_error());
    /* Quiet: the handler is not called either. */
    merino_config cfg = {0};
    cfg.quiet = 1;
    cfg.workers = 1; /* past MERINO_WORKERS, to the next error */
    cfg.stack_tasks = 3;
    CHECK_EQ_INT(merino_start(&cfg), -1);
    CHECK_EQ_INT(g_handled_count, 1);
    CHECK_STR_CONTAINS(merino_last_error(), "stack_tasks = 3");
    return 0;
}

/* Default printing, after a handler was set and removed: one line on stderr per error. */
static int child_loud(void) {
    merino_set_error_handler(handler, g_handled);
    merino_set_error_handler(NULL, NULL);
    merino_config cfg = {0};
    cfg.quiet = 1; /* quiet for this call only */
    CHECK_EQ_INT(merino_start(&cfg), -1);
    CHECK_EQ_INT(merino_start(NULL), -1);
    CHECK_EQ_INT(g_handled_count, 0);
    return 0;
}

static int run_child(const char *name) {
    if (strcmp(name, "quiet") == 0) return child_quiet();
    if (strcmp(name, "handler") == 0) return child_handler();
    if (strcmp(name, "loud") == 0) return child_loud();
    fprintf(stderr, "unknown child %s\n", name);
    return 2;
}

/* ---- per-thread last error ------------------------------------------------------------------ */

#define ROUNDS 200
static pthread_barrier_t g_barrier;

typedef struct failer {
    merino_config cfg;
    const char *want;  /* in this thread's message */
    const char *other; /* in the other thread's message, never in this one's */
} failer;

static void *fail_repeatedly(void *p) {
    const failer *f = p;
    CHECK_STR_EQ(merino_last_error(), ""); /* a new thread has no error yet */
    for (int i = 0; i < ROUNDS; i++) {
        pthread_barrier_wait(&g_barrier);
        CHECK_EQ_INT(merino_start(&f->cfg), -1);
        pthread_barrier_wait(&g_barrier); /* both have failed: each reads its own */
        /* (no check_set_context: its buffer is shared by the threads) */
        CHECK_MSG(strstr(merino_last_error(), f->want) != NULL, "round %d: \"%s\" lacks \"%s\"", i,
                  merino_last_error(), f->want);
        CHECK_MSG(strstr(merino_last_error(), f->other) == NULL,
                  "round %d: \"%s\" has the other thread's text", i, merino_last_error());
    }
    return NULL;
}

static void test_per_thread(void) {
    failer a = {{0}, "workers = 5000", "stack_tasks"}, b = {{0}, "stack_tasks = 3", "workers = 5000"};
    a.cfg.workers = 5000;
    a.cfg.quiet = 1;
    b.cfg.stack_tasks = 3;
    b.cfg.quiet = 1;
    CHECK_EQ_INT(pthread_barrier_init(&g_barrier, NULL, 2), 0);
    pthread_t ta, tb;
    CHECK_EQ_INT(pthread_create(&ta, NULL, fail_repeatedly, &a), 0);
    CHECK_EQ_INT(pthread_create(&tb, NULL, fail_repeatedly, &b), 0);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    pthread_barrier_destroy(&g_barrier);
    CHECK_STR_EQ(merino_last_error(), ""); /* main failed nothing */
}

int main(int argc, char **argv) {
    const char *child = check_child_name(argc, argv);
    if (child) return run_child(child);

    check_child c = check_run_child("quiet", bad_workers, 30);
    CHECK_CHILD(c, c.exited && c.code == 0);
    CHECK_CHILD(c, c.err[0] == 0); /* nothing printed */
    check_child_free(&c);

    c = check_run_child("handler", bad_workers, 30);
    CHECK_CHILD(c, c.exited && c.code == 0);
    CHECK_CHILD(c, c.err[0] == 0);
    check_child_free(&c);

    c = check_run_child("loud", bad_workers, 30);
    CHECK_CHILD(c, c.exited && c.code == 0);
    CHECK_CHILD(c, check_count_lines(c.err) == 1); /* the second start only */
    CHECK_STR_CONTAINS(c.err, "merino: MERINO_WORKERS='lots'");
    check_child_free(&c);

    test_per_thread();
    printf("test_errors: ok\n");
    return 0;
}
