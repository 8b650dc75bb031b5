/* cache-scratch.c — Hoard's passive false-sharing test: the main thread allocates one small object
 * per thread, all at once (an allocator puts them side by side), and hands them out; each thread
 * frees its object at once, then again and again allocates an object of the same size, writes it
 * many times and frees it. An allocator that gives a thread back the memory it just freed — a line
 * shared with the other threads' objects — makes those writes bounce the line between cores.
 * Ops: object writes per second. */
#include "alloc-bench.h"

enum { OBJ = 8, WRITES = 1000 };

typedef struct worker {
    unsigned char *given;
    long iters;
    int id;
} worker;

static void *run(void *arg) {
    worker *w = (worker *)arg;
    ab_verify(w->given, OBJ, (uint64_t)w->id, "cache-scratch");
    free(w->given);
    for (long it = 0; it < w->iters; it++) {
        unsigned char *p = (unsigned char *)malloc(OBJ);
        for (int r = 0; r < WRITES; r++) {
            for (int i = 0; i < OBJ; i++) p[i] = (unsigned char)(r + i);
            __asm__ __volatile__("" ::"r"(p) : "memory"); /* each write reaches memory */
        }
        ab_stamp(p, OBJ, (uint64_t)it);
        ab_verify(p, OBJ, (uint64_t)it, "cache-scratch");
        free(p);
    }
    return NULL;
}

int main(int argc, char **argv) {
    ab_args a = ab_parse(argc, argv, "");
    long iters = (long)(20000 * a.scale) / a.threads + 1;
    worker *w = (worker *)calloc((size_t)a.threads, sizeof *w);
    for (int i = 0; i < a.threads; i++) {
        w[i] = (worker){(unsigned char *)malloc(OBJ), iters, i};
        ab_stamp(w[i].given, OBJ, (uint64_t)i);
    }
    double t = ab_run_threads(a.threads, run, w, sizeof *w);
    free(w);
    ab_report("cache-scratch", &a, (double)iters * a.threads * WRITES, t, ab_rss_kb());
    return 0;
}
