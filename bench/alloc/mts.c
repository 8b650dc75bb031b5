/* mts.c — an MTS-style mix (the TBB allocator paper's multithreaded mixed-size test): each thread
 * keeps a working set of 2000 objects and applies random operations to random slots — malloc,
 * calloc (checked zero), realloc (the kept prefix checked) and free — with sizes from a skewed mix:
 * 70% of 8-128 bytes, 25% up to 4 KB, 4% up to 64 KB, 1% up to 512 KB. Ops per second. */
#include "alloc-bench.h"

enum { WS = 2000 };

typedef struct obj {
    unsigned char *p;
    size_t n;
    uint64_t key;
} obj;

typedef struct worker {
    long ops;
    uint64_t seed;
} worker;

static size_t pick_size(uint64_t *rng) {
    uint64_t r = ab_rand(rng) % 100, x = ab_rand(rng);
    if (r < 70) return 8 + x % 121;
    if (r < 95) return 129 + x % 3968;
    if (r < 99) return 4097 + x % 61440;
    return 65537 + x % 458752;
}

static void *run(void *arg) {
    worker *w = (worker *)arg;
    uint64_t rng = w->seed;
    obj *ws = (obj *)calloc(WS, sizeof *ws);
    for (long i = 0; i < w->ops; i++) {
        obj *o = &ws[ab_rand(&rng) % WS];
        uint64_t op = ab_rand(&rng) % 10;
        if (o->p && op < 4) { /* free */
            ab_verify(o->p, o->n, o->key, "mts");
            free(o->p);
            o->p = NULL;
        } else if (o->p && op < 6) { /* realloc: the first 8 bytes (the key) are kept */
            ab_verify(o->p, o->n, o->key, "mts");
            size_t n = pick_size(&rng);
            o->p = (unsigned char *)realloc(o->p, n);
            if (o->n >= 16 && n >= 8 && memcmp(o->p, &o->key, 8) != 0) {
                fprintf(stderr, "mts: VERIFY FAILED: realloc lost the contents of %p\n", (void *)o->p);
                abort();
            }
            o->n = n;
            o->key = ab_rand(&rng);
            ab_stamp(o->p, n, o->key);
        } else if (!o->p) {
            o->n = pick_size(&rng);
            o->key = ab_rand(&rng);
            if (op < 8) {
                o->p = (unsigned char *)malloc(o->n);
            } else {
                o->p = (unsigned char *)calloc(1, o->n);
                if (o->p[0] != 0 || o->p[o->n - 1] != 0 || o->p[o->n / 2] != 0) {
                    fprintf(stderr, "mts: VERIFY FAILED: calloc(%zu) not zero\n", o->n);
                    abort();
                }
            }
            ab_stamp(o->p, o->n, o->key);
        }
    }
    for (int i = 0; i < WS; i++)
        if (ws[i].p) {
            ab_verify(ws[i].p, ws[i].n, ws[i].key, "mts");
            free(ws[i].p);
        }
    free(ws);
    return NULL;
}

int main(int argc, char **argv) {
    ab_args a = ab_parse(argc, argv, "");
    long ops = (long)(2000000 * a.scale) / a.threads + 1;
    worker *w = (worker *)calloc((size_t)a.threads, sizeof *w);
    for (int i = 0; i < a.threads; i++) w[i] = (worker){ops, 0xabcdefull * (uint64_t)(i + 1)};
    double t = ab_run_threads(a.threads, run, w, sizeof *w);
    free(w);
    ab_report("mts", &a, (double)ops * a.threads, t, ab_rss_kb());
    return 0;
}
