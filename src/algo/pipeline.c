/* pipeline.c — merino_pipeline: items made by a first stage flow through the stages after it, at
 * most max_tokens of them at once, on the tasks of one task group (src/graph).
 *
 * An item is carried by a task through as many stages as it can go: a parallel stage is a call; a
 * serial stage (a gate) is entered when it is free — and, in order, when the item is the next one —
 * else the item waits in the gate and its task ends, and whoever leaves the gate hands the stage to
 * the next waiting item, which goes on in a new task. So no task ever waits for another.
 *
 * The first stage is driven by tokens: a call takes a free token (a free item record). A serial first
 * stage reads ahead: while a token is free its task calls it again, spawning a task for each item it
 * made before (so the reading task spawns often, and merino publishes tasks to idle workers at
 * spawns); it carries the last item itself. With no token free, the input pauses; the task that
 * releases a token at the end of the last stage resumes it itself. So a pipeline with one token is a
 * loop on one thread, with no task spawned at all.
 *
 * Order: items are numbered by the first stage's calls (a serial first stage is called one call at a
 * time, so in order). The NULL that ends the input is an item too, dropped: like any dropped item it
 * passes the in-order gates (their turn moves on) and skips every other stage.
 *
 * Memory orders: every shared field is under a lock (the tokens', or a gate's); an item's data,
 * written by a stage, reaches the next stage's thread through the gate's lock or the spawn of the
 * task that continues it. */
#include "algo/algo.h"

#include "merino_graph.h"

#include <sched.h>
#include <stdlib.h>

/* Pauses a lock spins before it yields: the locks are held for a few instructions. */
#define MRN_PIPE_SPINS 64

typedef struct mrn_pipe mrn_pipe;

typedef struct mrn_item {
    mrn_pipe *P;
    void *data;            /* the user's item; NULL once dropped (or the end of the input) */
    uint64_t seq;          /* its order among the first stage's calls */
    size_t stage;          /* the stage it is at */
    bool entered;          /* it was let into the serial stage `stage` (handed over by a gate) */
    struct mrn_item *next; /* in the free list, or in an out-of-order gate's queue */
} mrn_item;

/* A serial stage. */
typedef struct mrn_gate {
    _Alignas(MRN_CACHE_LINE) uint32_t lock; /* atomic */
    bool busy;                              /* an item is in the stage */
    uint64_t next_seq;                      /* in order: the item whose turn it is */
    mrn_item **ring;                        /* in order: waiting items, at seq % tokens */
    mrn_item *head, *tail;                  /* out of order: waiting items, first come first */
} mrn_gate;

struct mrn_pipe {
    const merino_stage *stages;
    size_t count, tokens;
    mrn_gate *gates;
    mrn_item *items;
    merino_task_group group;
    _Alignas(MRN_CACHE_LINE) uint32_t lock; /* atomic: guards the fields below */
    mrn_item *free;                          /* the free tokens */
    uint64_t next_seq;                       /* the order of the first stage's next call */
    bool input_busy;                         /* a serial first stage is being called */
    bool input_paused;                       /* no token was free: a release resumes the input */
    bool input_done;                         /* the first stage returned NULL */
};

static void lock(uint32_t *l) {
    /* acquire: what the previous holder wrote under the lock */
    for (unsigned spins = 0; __atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE); spins++) {
        if (spins < MRN_PIPE_SPINS)
            mrn_cpu_relax();
        else
            sched_yield();
    }
}

static void unlock(uint32_t *l) { __atomic_store_n(l, 0, __ATOMIC_RELEASE); /* release: the fields */ }

static void input_task(void *arg);
static void item_task(void *arg);

/* ---- serial stages --------------------------------------------------------------------------------- */

/* Lets it into its stage's gate, or queues it there (false): whoever leaves the stage hands it on. */
static bool gate_enter(mrn_pipe *P, mrn_item *it) {
    mrn_gate *g = &P->gates[it->stage];
    bool in_order = P->stages[it->stage].mode == MERINO_FILTER_SERIAL_IN_ORDER;
    lock(&g->lock);
    bool in = !g->busy && (!in_order || it->seq == g->next_seq);
    if (in) {
        g->busy = true;
    } else if (in_order) {
        g->ring[it->seq % P->tokens] = it; /* the waiting items' orders lie in [next_seq, next_seq + tokens) */
    } else {
        it->next = NULL;
        if (g->tail)
            g->tail->next = it;
        else
            g->head = it;
        g->tail = it;
    }
    unlock(&g->lock);
    return in;
}

/* Leaves stage s: returns the waiting item that may enter now (already let in), or NULL. */
static mrn_item *gate_leave(mrn_pipe *P, size_t s) {
    mrn_gate *g = &P->gates[s];
    mrn_item *next;
    lock(&g->lock);
    if (P->stages[s].mode == MERINO_FILTER_SERIAL_IN_ORDER) {
        g->next_seq++;
        mrn_item **slot = &g->ring[g->next_seq % P->tokens];
        next = *slot && (*slot)->seq == g->next_seq ? *slot : NULL;
        if (next) *slot = NULL;
    } else {
        next = g->head;
        if (next && (g->head = next->next) == NULL) g->tail = NULL;
    }
    g->busy = next != NULL;
    unlock(&g->lock);
    return next;
}

/* ---- tokens and the first stage ----------------------------------------------------------------------- */

/* A token for the first stage's next call, numbered; NULL when the input is over, a serial first stage
 * is being called, or no token is free (then the input pauses until a release). */
static mrn_item *input_begin(mrn_pipe *P) {
    bool serial = P->stages[0].mode != MERINO_FILTER_PARALLEL;
    mrn_item *it = NULL;
    lock(&P->lock);
    if (!P->input_done && !(serial && P->input_busy)) {
        if (P->free) {
            it = P->free;
            P->free = it->next;
            it->seq = P->next_seq++;
            P->input_busy = true;
        } else {
            P->input_paused = true;
        }
    }
    unlock(&P->lock);
    return it;
}

/* After a call of the first stage: whether the next call may start now (a token is free). */
static bool input_end(mrn_pipe *P, const mrn_item *it) {
    bool more = false;
    lock(&P->lock);
    P->input_busy = false;
    if (it->data == NULL)
        P->input_done = true;
    else if (P->free)
        more = !P->input_done;
    else
        P->input_paused = !P->input_done;
    unlock(&P->lock);
    return more;
}

/* Calls the first stage while this task is the one to: a serial first stage is called again at once
 * while a token is free, and each item it made before goes on in a task of its own (spawned right after
 * the call: a spawn is where merino shares tasks with idle workers, so the input keeps the others fed);
 * a parallel first stage offers another call to other workers before each of its own. Returns the item
 * this task carries on (the last one made), or NULL when no call could start. */
static mrn_item *input_steps(mrn_pipe *P) {
    bool serial = P->stages[0].mode != MERINO_FILTER_PARALLEL;
    for (;;) {
        mrn_item *it = input_begin(P);
        if (it == NULL) return NULL;
        if (!serial) merino_task_group_run(&P->group, input_task, P);
        it->data = P->stages[0].fn(NULL, P->stages[0].ctx);
        it->stage = 1;
        it->entered = false;
        if (!(input_end(P, it) && serial)) return it;
        merino_task_group_run(&P->group, item_task, it); /* a token is free: read on */
    }
}

/* Gives the item's token back; true when the input was paused and the caller should resume it. */
static bool release(mrn_pipe *P, mrn_item *it) {
    lock(&P->lock);
    it->next = P->free;
    P->free = it;
    bool resume = P->input_paused && !P->input_done;
    P->input_paused = false;
    unlock(&P->lock);
    return resume;
}

/* ---- carrying an item ----------------------------------------------------------------------------------- */

/* Runs the item through its stages as far as it goes: false when it waits in a gate; else it has left
 * the pipeline, and the result says whether this task should resume the input. */
static bool run_item(mrn_pipe *P, mrn_item *it) {
    for (; it->stage < P->count; it->stage++, it->entered = false) {
        const merino_stage *st = &P->stages[it->stage];
        if (st->mode == MERINO_FILTER_PARALLEL) {
            if (it->data) it->data = st->fn(it->data, st->ctx);
            continue;
        }
        if (it->data == NULL && st->mode != MERINO_FILTER_SERIAL_IN_ORDER) continue;
        if (!it->entered && !gate_enter(P, it)) return false;
        if (it->data) it->data = st->fn(it->data, st->ctx);
        mrn_item *next = gate_leave(P, it->stage);
        if (next) {
            next->entered = true;
            merino_task_group_run(&P->group, item_task, next);
        }
    }
    return release(P, it);
}

/* A task's work: an item to carry (or none), then the first stage's calls as long as this task is the
 * one to make them. */
static void pipe_loop(mrn_pipe *P, mrn_item *it) {
    for (;;) {
        if (it && !run_item(P, it)) return;
        if ((it = input_steps(P)) == NULL) return;
    }
}

static void input_task(void *arg) { pipe_loop(arg, NULL); }

static void item_task(void *arg) {
    mrn_item *it = arg;
    pipe_loop(it->P, it);
}

/* ---- the entry ------------------------------------------------------------------------------------------ */

__attribute__((cold, noinline)) static void bad_pipeline(size_t tokens, const merino_stage *stages, size_t count) {
    if (tokens == 0) mrn_fatal("merino_pipeline: max_tokens is 0: allow at least one item in flight");
    if (stages == NULL || count == 0) mrn_fatal("merino_pipeline: no stage: pass an array of at least one merino_stage");
    for (size_t i = 0; i < count; i++) {
        if (stages[i].fn == NULL) mrn_fatal("merino_pipeline: stage %zu has no fn: give each stage its function", i);
        if ((unsigned)stages[i].mode > MERINO_FILTER_SERIAL_OUT_OF_ORDER)
            mrn_fatal("merino_pipeline: stage %zu has mode %d, not a merino_filter_mode: use "
                      "MERINO_FILTER_PARALLEL, MERINO_FILTER_SERIAL_IN_ORDER or MERINO_FILTER_SERIAL_OUT_OF_ORDER",
                      i, (int)stages[i].mode);
    }
    mrn_fatal("merino_pipeline: %zu tokens and %zu stages need more memory than there is: allow fewer tokens",
              tokens, count);
}

void merino_pipeline(size_t max_tokens, const merino_stage *stages, size_t count) {
    bool ok = max_tokens > 0 && stages != NULL && count > 0 && max_tokens < SIZE_MAX / 64;
    for (size_t i = 0; ok && i < count; i++)
        ok = stages[i].fn != NULL && (unsigned)stages[i].mode <= MERINO_FILTER_SERIAL_OUT_OF_ORDER;
    if (MRN_UNLIKELY(!ok)) bad_pipeline(max_tokens, stages, count);

    mrn_pipe P = {.stages = stages, .count = count, .tokens = max_tokens};
    P.items = calloc(max_tokens, sizeof(mrn_item));
    P.gates = aligned_alloc(MRN_CACHE_LINE, count * sizeof(mrn_gate));
    if (MRN_UNLIKELY(P.items == NULL || P.gates == NULL)) bad_pipeline(max_tokens, stages, count);
    memset(P.gates, 0, count * sizeof(mrn_gate));
    for (size_t s = 0; s < count; s++) {
        if (stages[s].mode != MERINO_FILTER_SERIAL_IN_ORDER || s == 0) continue;
        P.gates[s].ring = calloc(max_tokens, sizeof(mrn_item *));
        if (MRN_UNLIKELY(P.gates[s].ring == NULL)) bad_pipeline(max_tokens, stages, count);
    }
    for (size_t i = 0; i < max_tokens; i++) {
        P.items[i].P = &P;
        P.items[i].next = i + 1 < max_tokens ? &P.items[i + 1] : NULL;
    }
    P.free = P.items;

    merino_task_group_init(&P.group);
    merino_task_group_run(&P.group, input_task, &P);
    merino_task_group_wait(&P.group);

    for (size_t s = 0; s < count; s++) free(P.gates[s].ring);
    free(P.gates);
    free(P.items);
}
