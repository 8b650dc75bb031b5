/* Debug build of the allocator (MERINO_DEBUG): a double free (also of an object the owner's cache
 * holds), a free of a pointer it never returned
 * (stack, static, another allocator's, the middle of an object — a small one, or deep inside a
 * medium run or a large mapping), a double free of a large object, each in a child process, must be reported with the address — never corrupt the heap silently.
 *
 * The library is built without MERINO_DEBUG in a release build, so this test compiles the
 * allocator's sources into itself with MERINO_DEBUG=1 (as test_debug_* files are compiled); their
 * symbols take the place of libmerino.a's allocator, which is then not linked. */
#include "check.h"

#if defined(NDEBUG) && !defined(MERINO_DEBUG)
#error "test_debug_alloc.c must be compiled with -UNDEBUG -DMERINO_DEBUG=1"
#endif

#include "alloc/api.c"
#include "alloc/block.c"
#include "alloc/chunks.c"
#include "alloc/debug.c"
#include "alloc/decay.c"
#include "alloc/heap.c"
#include "alloc/large.c"
#include "alloc/malloc.c"
#include "alloc/mapcache.c"
#include "alloc/medium.c"
#include "alloc/os.c"
#include "alloc/remote.c"
#include "alloc/trim.c"

static int g_static_object;

static int run_child(const char *name) {
    char *p = (char *)merino_malloc(40);
    fprintf(stderr, "object at %p\n", (void *)p);
    if (strcmp(name, "double_free") == 0) {
        merino_free(p);
        merino_free(p);
    } else if (strcmp(name, "double_free_reused") == 0) {
        merino_free(p);
        merino_free(merino_malloc(40)); /* the same object again, freed again */
        merino_free(p);
    } else if (strcmp(name, "own_double") == 0) { /* a class whose owner's frees are cached */
        char *q = (char *)merino_malloc(4000);
        fprintf(stderr, "object at %p\n", (void *)q);
        merino_free(q);
        merino_free(q);
    } else if (strcmp(name, "own_double_reused") == 0) {
        char *q = (char *)merino_malloc(4000);
        fprintf(stderr, "object at %p\n", (void *)q);
        merino_free(q);
        merino_free(merino_malloc(4000)); /* the same object, out of the cache and back */
        merino_free(q);
    } else if (strcmp(name, "stack") == 0) {
        int x;
        fprintf(stderr, "object at %p\n", (void *)&x);
        merino_free(&x);
    } else if (strcmp(name, "static") == 0) {
        fprintf(stderr, "object at %p\n", (void *)&g_static_object);
        merino_free(&g_static_object);
    } else if (strcmp(name, "libc") == 0) {
        void *m = malloc(100);
        fprintf(stderr, "object at %p\n", m);
        merino_free(m);
    } else if (strcmp(name, "interior") == 0) {
        fprintf(stderr, "object at %p\n", (void *)(p + 8));
        merino_free(p + 8);
    } else if (strcmp(name, "large_double") == 0) {
        void *l = merino_malloc(4 << 20); /* large: unmapped when freed */
        fprintf(stderr, "object at %p\n", l);
        merino_free(l);
        merino_free(l);
    } else if (strcmp(name, "medium_double") == 0) {
        void *l = merino_malloc(20000);
        fprintf(stderr, "object at %p\n", l);
        merino_free(l);
        merino_free(l);
    } else if (strcmp(name, "chunk_header") == 0) {
        /* inside the header block of p's chunk, where the chunk's own record sits */
        char *h = (char *)((uintptr_t)p & ~(uintptr_t)(MRN_CHUNK_SIZE - 1)) + 200;
        fprintf(stderr, "object at %p\n", (void *)h);
        merino_free(h);
    } else if (strncmp(name, "deep_", 5) == 0) {
        /* A pointer a block or more into a medium run, or a megabyte or more into a mapping of its
         * own (one aligned to 2 MB among them), or into a medium run already freed: its block's
         * header is not the object's (the object's is at its start). */
        bool freed = strcmp(name, "deep_medium_freed") == 0;
        size_t size = strstr(name, "medium") ? 200000 : (size_t)4 << 20;
        size_t off = strstr(name, "medium") ? 100000 : (size_t)3 << 20;
        char *l = strstr(name, "aligned") ? (char *)merino_aligned_alloc((size_t)2 << 20, size)
                                          : (char *)merino_malloc(size);
        if (!l) return 78;
        /* bytes that read, where a header would be, as a cached large object's tag */
        memset(l, 0x5c, size);
        if (freed) merino_free(l);
        fprintf(stderr, "object at %p\n", (void *)(l + off));
        merino_free(l + off);
    } else if (strcmp(name, "fine") == 0) {
        merino_free(p);
        void *a = merino_aligned_alloc(256, 100);
        merino_free(a);
        /* Medium and large objects at large alignments, whose headers the debug checks find: a
         * run aligned to 16 KB, mappings aligned to 64 KB and to 2 MB (its header in the megabyte
         * below the object), each written over its usable size. */
        static const size_t align[] = {16384, 65536, (size_t)2 << 20}, size[] = {20000, 3 << 20, 100};
        for (int i = 0; i < 3; i++) {
            char *q = (char *)merino_aligned_alloc(align[i], size[i]);
            if (!q || ((uintptr_t)q & (align[i] - 1))) return 78;
            memset(q, 0x5a, merino_usable_size(q));
            merino_free(q);
        }
        return 0;
    }
    return 77; /* survived: the misuse went unnoticed */
}

/* The last "object at 0x..." line of the child's stderr: the address the report must name. */
static const char *last_address(const char *err, char *buf, size_t n) {
    const char *at = NULL;
    for (const char *s = strstr(err, "object at "); s; s = strstr(s + 1, "object at ")) at = s + 10;
    CHECK(at != NULL);
    size_t len = strcspn(at, "\n");
    if (len >= n) len = n - 1;
    memcpy(buf, at, len);
    buf[len] = 0;
    return buf;
}

int main(int argc, char **argv) {
    const char *child = check_child_name(argc, argv);
    if (child) return run_child(child);
    static const struct {
        const char *name, *says;
    } cases[] = {
        {"double_free", "double free"},   {"double_free_reused", "double free"},
        {"own_double", "double free"},    {"own_double_reused", "double free"},
        {"stack", "not a pointer"},       {"static", "not a pointer"},
        {"libc", "not a pointer"},        {"interior", "not the start of an object"},
        {"large_double", "not a pointer"}, {"medium_double", "double free"},
        {"deep_medium", "into a large object"}, {"deep_large", "into a large object"},
        {"deep_large_aligned", "into a large object"}, {"deep_medium_freed", "double free"},
        {"chunk_header", "never returned"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        check_child c = check_run_child(cases[i].name, NULL, 30);
        check_set_context("child %s", cases[i].name);
        CHECK_CHILD(c, c.signaled && c.sig == SIGABRT);
        CHECK_STR_CONTAINS(c.err, cases[i].says);
        char addr[64];
        CHECK_STR_CONTAINS(c.err, last_address(c.err, addr, sizeof addr));
        check_child_free(&c);
    }
    check_set_context(NULL);
    check_child c = check_run_child("fine", NULL, 30);
    CHECK_CHILD(c, c.exited && c.code == 0);
    check_child_free(&c);
    printf("test_debug_alloc: %zu kinds of misuse reported with their address\n", sizeof cases / sizeof cases[0]);
    return 0;
}
