/* Randomized allocate / write / check / free across threads: each thread keeps a table of live
 * objects of random sizes (1 byte to 200 KB: small, medium and large), fills each with a pattern
 * of its own, and checks the whole pattern and merino_usable_size before it frees, reallocates or
 * hands the object to the next thread (which frees it). Any overlap between live objects, any
 * write by the allocator into a live object, shows as a wrong byte. The seed is printed;
 * MERINO_TEST_SEED replays it (the thread interleaving aside). */
#include "check.h"

#include "alloc_test.h"

enum { THREADS = 4, SLOTS = 512 };

typedef struct obj {
    unsigned char *p;
    size_t n;
    uint64_t tag;
} obj;

typedef struct worker {
    pthread_t thread;
    uint64_t seed;
    long ops;
    obj slot[SLOTS];
    /* objects handed to the next worker, which checks and frees them */
    pthread_mutex_t lock;
    obj inbox[64];
    int ninbox;
} worker;

static worker g_w[THREADS];

static void check_obj(const obj *o, const char *when) {
    long bad = at_check(o->p, o->n, o->tag);
    CHECK_MSG(bad < 0, "%s: object %p of %zu bytes has a wrong byte at %ld", when, (void *)o->p, o->n, bad);
    CHECK_MSG(merino_usable_size(o->p) >= o->n, "usable size %zu < %zu", merino_usable_size(o->p), o->n);
}

static void *run(void *arg) {
    worker *w = (worker *)arg;
    worker *next = &g_w[(w - g_w + 1) % THREADS];
    uint64_t s = w->seed;
    for (long op = 0; op < w->ops; op++) {
        obj *o = &w->slot[at_next(&s) % SLOTS];
        uint64_t r = at_next(&s) % 16;
        if (o->p) {
            check_obj(o, "before free");
            if (r < 2) { /* realloc: contents kept up to the smaller size */
                size_t n = at_size(&s, 200000);
                unsigned char *q = (unsigned char *)merino_realloc(o->p, n);
                CHECK(q != NULL);
                size_t keep = n < o->n ? n : o->n;
                long bad = at_check(q, keep, o->tag);
                CHECK_MSG(bad < 0, "realloc %zu -> %zu lost byte %ld", o->n, n, bad);
                o->p = q;
                o->n = n;
                at_fill(q, n, o->tag);
                continue;
            }
            if (r < 4) { /* to the next thread, which frees it */
                pthread_mutex_lock(&next->lock);
                if (next->ninbox < 64) {
                    next->inbox[next->ninbox++] = *o;
                    o->p = NULL;
                }
                pthread_mutex_unlock(&next->lock);
                if (!o->p) continue;
            }
            merino_free(o->p);
            o->p = NULL;
            continue;
        }
        o->n = at_size(&s, r == 0 ? 200000 : 4096);
        o->tag = at_next(&s);
        if (r == 1) {
            size_t align = (size_t)1 << (at_next(&s) % 13);
            o->p = (unsigned char *)merino_aligned_alloc(align, o->n);
            CHECK_MSG(o->p && ((uintptr_t)o->p & (align - 1)) == 0, "aligned_alloc(%zu, %zu) = %p", align,
                      o->n, (void *)o->p);
        } else if (r == 2) {
            o->p = (unsigned char *)merino_calloc(1, o->n);
            CHECK(o->p != NULL);
            for (size_t i = 0; i < o->n; i++) CHECK_MSG(o->p[i] == 0, "calloc byte %zu is %d", i, o->p[i]);
        } else {
            o->p = (unsigned char *)merino_malloc(o->n);
            CHECK(o->p != NULL);
        }
        at_fill(o->p, o->n, o->tag);
        if ((op & 63) == 0) { /* empty the inbox */
            obj in[64];
            pthread_mutex_lock(&w->lock);
            int n = w->ninbox;
            memcpy(in, w->inbox, (size_t)n * sizeof *in);
            w->ninbox = 0;
            pthread_mutex_unlock(&w->lock);
            for (int i = 0; i < n; i++) {
                check_obj(&in[i], "handed over");
                merino_free(in[i].p);
            }
        }
    }
    return NULL;
}

int main(void) {
    uint64_t seed = at_seed("test_alloc_random");
    long ops = (long)(400000 * check_scale());
    for (int round = 0; round < 3; round++) {
        for (int t = 0; t < THREADS; t++) {
            g_w[t].seed = seed + (uint64_t)round * 1000 + (uint64_t)t;
            g_w[t].ops = ops;
            pthread_mutex_init(&g_w[t].lock, NULL);
        }
        for (int t = 0; t < THREADS; t++) CHECK(pthread_create(&g_w[t].thread, NULL, run, &g_w[t]) == 0);
        for (int t = 0; t < THREADS; t++) pthread_join(g_w[t].thread, NULL);
        /* The threads have exited: check and free what they left, from this thread. */
        for (int t = 0; t < THREADS; t++) {
            for (int i = 0; i < SLOTS; i++)
                if (g_w[t].slot[i].p) {
                    check_obj(&g_w[t].slot[i], "left by an exited thread");
                    merino_free(g_w[t].slot[i].p);
                    g_w[t].slot[i].p = NULL;
                }
            for (int i = 0; i < g_w[t].ninbox; i++) {
                check_obj(&g_w[t].inbox[i], "in an inbox");
                merino_free(g_w[t].inbox[i].p);
            }
            g_w[t].ninbox = 0;
        }
    }
    printf("test_alloc_random: %d threads x %ld operations x 3 rounds, every object checked\n", THREADS, ops);
    return 0;
}
