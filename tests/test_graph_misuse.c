/* Dependency graphs misused, each in a child process (check_run_child: a hang is a timeout, a crash
 * is seen). Each misuse gets its own message naming it and the fix, and nothing is lost: the run in
 * flight runs every node once, and the graph is as it was after it.
 *
 *   concurrent_run   a thread runs a graph that another thread is running: -1, "already running";
 *                    the first run completes (they ended with "a task's reference count reached
 *                    zero", the task-object message)
 *   run_in_own_node  a node runs its own graph: -1, "inside a node of the same graph" (the same
 *                    task-object message before); a node of another graph may run it
 *   edit_in_node     a node adds an edge and a node to its running graph: -1 / NULL, "the graph is
 *                    running" (accepted silently before); the graph unchanged after the run
 *   edit_from_thread another thread adds a node and an edge while the graph runs: NULL / -1, the
 *                    same message
 *   delete_in_node   a node deletes its running graph: the program stops, "merino_graph_delete of a
 *                    graph that is running"
 *
 * Each runs at 1 and 2 workers. */
#define _GNU_SOURCE 1
#include "check.h"

#include <pthread.h>
#include <stdbool.h>

#include <merino.h>
#include <merino_graph.h>

/* ---- a graph of three nodes: a -> b, a -> c; b does the scenario's act ---- */

static merino_graph *g;
static merino_graph_node *na, *nb, *nc;
static int ran[3];                  /* atomic elements: runs of a, b and c */
static void (*act)(void);           /* what b does, or NULL */
static int act_result;              /* what it returned */
static char act_error[512];         /* and its message */

static void node(void *arg) {
    int i = (int)(intptr_t)arg;
    __atomic_fetch_add(&ran[i], 1, __ATOMIC_RELAXED); /* relaxed: read after the run */
    if (i == 1 && act) act();
}

static void make_graph(void) {
    g = merino_graph_new();
    na = merino_graph_node_new(g, "a", node, (void *)0);
    nb = merino_graph_node_new(g, "b", node, (void *)1);
    nc = merino_graph_node_new(g, "c", node, (void *)2);
    CHECK(na && nb && nc);
    CHECK_EQ_INT(merino_graph_edge(na, nb), 0);
    CHECK_EQ_INT(merino_graph_edge(na, nc), 0);
}

/* Runs g and checks that each node ran once. */
static void run_once(const char *when) {
    memset(ran, 0, sizeof ran);
    CHECK_MSG(merino_graph_run(g) == MERINO_COMPLETE, "the run %s did not complete", when);
    for (int i = 0; i < 3; i++) CHECK_MSG(ran[i] == 1, "node %d ran %d times in the run %s", i, ran[i], when);
}

static void note(int result) {
    act_result = result;
    snprintf(act_error, sizeof act_error, "%s", merino_last_error());
}

/* ---- another thread, started by b and joined by b ---- */

static void *run_from_thread(void *arg) {
    (void)arg;
    note(merino_graph_run(g));
    return NULL;
}

static void *edit_from_thread(void *arg) {
    (void)arg;
    merino_graph_node *x = merino_graph_node_new(g, "late", node, (void *)0);
    CHECK(x == NULL);
    CHECK_STR_CONTAINS(merino_last_error(), "merino_graph_node_new(\"late\"): the graph is running");
    note(merino_graph_edge(nb, nc));
    return NULL;
}

static void in_thread(void *(*fn)(void *)) {
    pthread_t t;
    CHECK_EQ_INT(pthread_create(&t, NULL, fn, NULL), 0);
    CHECK_EQ_INT(pthread_join(t, NULL), 0); /* b waits: the run is in flight all along */
}

static void act_concurrent_run(void) { in_thread(run_from_thread); }
static void act_edit_from_thread(void) { in_thread(edit_from_thread); }
static void act_run_own(void) { note(merino_graph_run(g)); }
static void act_edit(void) {
    note(merino_graph_edge(nb, nc));
    CHECK_EQ_INT(act_result, -1);
    CHECK_STR_CONTAINS(act_error, "merino_graph_edge(\"b\", \"c\"): the graph is running");
    merino_graph_node *x = merino_graph_node_new(g, "late", node, (void *)0);
    CHECK(x == NULL);
    CHECK_STR_CONTAINS(merino_last_error(), "merino_graph_node_new(\"late\"): the graph is running");
}
static void act_delete(void) { merino_graph_delete(g); }

/* A graph whose one node runs g: not nested in g, so it runs. */
static void run_g(void *arg) {
    (void)arg;
    run_once("from a node of another graph");
}

/* Runs g with b doing the act, then checks the act's refusal (result and message) and that g runs
 * whole again, unchanged. */
static void scenario(void (*what)(void), int result, const char *message) {
    make_graph();
    act = what;
    run_once("with the misuse");
    act = NULL;
    if (message) {
        CHECK_EQ_INT(act_result, result);
        CHECK_STR_CONTAINS(act_error, message);
    }
    run_once("after the misuse");
    /* unchanged: still no edge b -> c, which may be added now */
    CHECK_EQ_INT(merino_graph_edge(nb, nc), 0);
    run_once("after an edge added between runs");
    merino_graph_delete(g);
}

static int run_child(const char *name) {
    if (strcmp(name, "concurrent_run") == 0) {
        scenario(act_concurrent_run, -1, "merino_graph_run of a graph that is already running");
    } else if (strcmp(name, "run_in_own_node") == 0) {
        scenario(act_run_own, -1, "merino_graph_run inside a node of the same graph");
        make_graph();
        merino_graph *outer = merino_graph_new();
        CHECK(merino_graph_node_new(outer, "runs g", run_g, NULL) != NULL);
        CHECK_EQ_INT(merino_graph_run(outer), MERINO_COMPLETE);
        merino_graph_delete(outer);
        merino_graph_delete(g);
    } else if (strcmp(name, "edit_in_node") == 0) {
        scenario(act_edit, -1, "merino_graph_edge(\"b\", \"c\"): the graph is running");
    } else if (strcmp(name, "edit_from_thread") == 0) {
        scenario(act_edit_from_thread, -1, "merino_graph_edge(\"b\", \"c\"): the graph is running");
    } else if (strcmp(name, "delete_in_node") == 0) {
        make_graph();
        act = act_delete;
        merino_graph_run(g);
        return 0; /* not reached */
    } else {
        return 2;
    }
    printf("%s: refused, and the graph ran whole after\n", name);
    return 0;
}

int main(int argc, char **argv) {
    const char *child = check_child_name(argc, argv);
    if (child) return run_child(child);

    static const char *const refused[] = {"concurrent_run", "run_in_own_node", "edit_in_node", "edit_from_thread"};
    static const char *const workers[][2] = {{"MERINO_WORKERS=1", NULL}, {"MERINO_WORKERS=2", NULL}};
    for (int w = 0; w < 2; w++) {
        for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
            check_set_context("%s, %s", refused[i], workers[w][0]);
            check_child res = check_run_child(refused[i], workers[w], 60);
            CHECK_MSG(res.exited && res.code == 0, "the child %s (exited %d, code %d, signal %d, timed out %d):\n%s",
                      refused[i], res.exited, res.code, res.sig, res.timed_out, res.err);
            CHECK_STR_CONTAINS(res.err, "merino: "); /* the refusal was printed, on one line */
            free(res.err);
        }
        check_set_context("delete_in_node, %s", workers[w][0]);
        check_child res = check_run_child("delete_in_node", workers[w], 60);
        CHECK_MSG(!res.timed_out && (res.signaled || (res.exited && res.code != 0)), "deleting a running graph went on");
        CHECK_STR_CONTAINS(res.err, "merino_graph_delete of a graph that is running");
        free(res.err);
    }
    printf("graph misuse refused with its own message, nothing lost\n");
    return 0;
}
