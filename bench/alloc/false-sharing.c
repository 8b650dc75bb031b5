/* false-sharing.c — does the allocator put different threads' objects in one cache line?
 * Mode "active" (Hoard's cache-thrash): each thread allocates small objects (8 bytes) of its own and
 * writes each one many times before freeing it; objects of two threads in one line make the line
 * bounce between cores. Mode "passive": the main thread allocates one small object per thread,
 * consecutively (so an allocator packs them together), and each thread writes its object many
 * times, then frees it and goes on with objects it allocates itself — which the allocator must not
 * carve from the line it just got back from another thread. Ops: object writes per second. */
#include "alloc-bench.h"

enum { OBJ = 8, WRITES = 1000 };

typedef struct worker {
    int id;
    long iters;
    unsigned char *given; /* passive: the object the main thread allocated for this thread */
} worker;

static void write_many(unsigned char *p, int id) {
    for (int w = 0; w < WRITES; w++) {
        for (int i = 0; i < OBJ; i++) p[i] = (unsigned char)(p[i] + 1);
        __asm__ __volatile__("" ::"r"(p) : "memory"); /* each write reaches memory */
    }
    for (int i = 0; i < OBJ; i++)
        if (p[i] != (unsigned char)(id + WRITES)) {
            fprintf(stderr, "false-sharing: VERIFY FAILED: object %p byte %d\n", (void *)p, i);
            abort();
        }
}

static void *run(void *arg) {
    worker *w = (worker *)arg;
    if (w->given) {
        write_many(w->given, w->id);
        free(w->given);
    }
    for (long it = 0; it < w->iters; it++) {
        unsigned char *p = (unsigned char *)malloc(OBJ);
        memset(p, w->id, OBJ);
        write_many(p, w->id);
        free(p);
    }
    return NULL;
}

int main(int argc, char **argv) {
    ab_args a = ab_parse(argc, argv, "active|passive");
    int passive = strcmp(a.mode, "passive") == 0;
    long iters = (long)(20000 * a.scale) / a.threads + 1;
    worker *w = (worker *)calloc((size_t)a.threads, sizeof *w);
    for (int i = 0; i < a.threads; i++) {
        w[i] = (worker){i, iters, NULL};
        if (passive) {
            w[i].given = (unsigned char *)malloc(OBJ);
            memset(w[i].given, i, OBJ);
        }
    }
    double t = ab_run_threads(a.threads, run, w, sizeof *w);
    free(w);
    ab_report(passive ? "false-sharing-passive" : "false-sharing-active", &a,
              (double)(iters + passive) * a.threads * WRITES, t, ab_rss_kb());
    return 0;
}
