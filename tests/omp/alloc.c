/* alloc.c — memory allocators: omp_alloc, omp_aligned_alloc, omp_calloc, omp_aligned_calloc,
 * omp_realloc and omp_free on the predefined allocators; allocators made with omp_init_allocator
 * (alignment, a pool size with each fallback: null_fb returns NULL, default_mem_fb falls back,
 * abort_fb aborts — in a child process) and omp_destroy_allocator; invalid traits give
 * omp_null_allocator; the default allocator (omp_set/get_default_allocator, OMP_ALLOCATOR);
 * memory freed by another thread than the one that allocated it; the allocate clause on
 * parallel, task and for (GOMP_alloc and GOMP_free) with an aligned allocator.
 * omp-run:
 * omp-run: OMP_ALLOCATOR=omp_large_cap_mem_alloc
 */
#include "omp_test.h"

#include <stdint.h>

static int aligned(const void *p, size_t a) { return ((uintptr_t)p % a) == 0; }

static void fill_check(unsigned char *p, size_t n, unsigned char v) {
    memset(p, v, n);
    for (size_t i = 0; i < n; i += 97) CHECK(p[i] == v);
}

static void predefined(void) {
    static const struct {
        const char *name;
        omp_allocator_handle_t a;
    } all[] = {
        {"omp_default_mem_alloc", omp_default_mem_alloc}, {"omp_large_cap_mem_alloc", omp_large_cap_mem_alloc},
        {"omp_const_mem_alloc", omp_const_mem_alloc},     {"omp_high_bw_mem_alloc", omp_high_bw_mem_alloc},
        {"omp_low_lat_mem_alloc", omp_low_lat_mem_alloc}, {"omp_cgroup_mem_alloc", omp_cgroup_mem_alloc},
        {"omp_pteam_mem_alloc", omp_pteam_mem_alloc},     {"omp_thread_mem_alloc", omp_thread_mem_alloc},
    };
    for (unsigned k = 0; k < sizeof all / sizeof all[0]; k++) {
        omp_allocator_handle_t a = all[k].a;
        unsigned char *p = omp_alloc(1000, a);
        CHECK_MSG(p != NULL, "%s gave no memory", all[k].name);
        fill_check(p, 1000, (unsigned char)k);
        omp_free(p, a);
        p = omp_aligned_alloc(256, 3000, a);
        CHECK(p && aligned(p, 256));
        fill_check(p, 3000, 1);
        omp_free(p, a);
        int *z = omp_calloc(100, sizeof(int), a);
        CHECK(z != NULL);
        for (int i = 0; i < 100; i++) CHECK_EQ_INT(z[i], 0);
        for (int i = 0; i < 100; i++) z[i] = i;
        z = omp_realloc(z, 100000 * sizeof(int), a, a);
        CHECK(z != NULL);
        for (int i = 0; i < 100; i++) CHECK_EQ_INT(z[i], i);
        z = omp_realloc(z, 10 * sizeof(int), a, a);
        CHECK(z != NULL);
        for (int i = 0; i < 10; i++) CHECK_EQ_INT(z[i], i);
        omp_free(z, a);
        double *d = omp_aligned_calloc(128, 50, sizeof(double), a);
        CHECK(d && aligned(d, 128));
        for (int i = 0; i < 50; i++) CHECK(d[i] == 0);
        omp_free(d, omp_null_allocator); /* the allocator is found from the memory */
    }
    CHECK(omp_alloc(0, omp_default_mem_alloc) == NULL);
    omp_free(NULL, omp_default_mem_alloc);
    OT_SAY("8 predefined allocators: alloc, aligned_alloc, calloc, realloc, aligned_calloc, free");
}

static void made_allocators(void) {
    omp_alloctrait_t align[] = {{omp_atk_alignment, 4096}};
    omp_allocator_handle_t a = omp_init_allocator(omp_default_mem_space, 1, align);
    CHECK(a != omp_null_allocator);
    for (int k = 0; k < 20; k++) {
        void *p = omp_alloc((size_t)(k * 37 + 1), a);
        CHECK(p && aligned(p, 4096));
        omp_free(p, a);
    }
    omp_destroy_allocator(a);

    omp_alloctrait_t pool_null[] = {{omp_atk_pool_size, 64 * 1024}, {omp_atk_fallback, omp_atv_null_fb}};
    a = omp_init_allocator(omp_default_mem_space, 2, pool_null);
    CHECK(a != omp_null_allocator);
    void *p = omp_alloc(40 * 1024, a);
    CHECK(p != NULL);
    CHECK(omp_alloc(40 * 1024, a) == NULL); /* past the pool: null_fb */
    omp_free(p, a);
    p = omp_alloc(40 * 1024, a); /* the pool has room again */
    CHECK(p != NULL);
    omp_free(p, a);
    omp_destroy_allocator(a);

    omp_alloctrait_t pool_default[] = {{omp_atk_pool_size, 4096}, {omp_atk_fallback, omp_atv_default_mem_fb}};
    a = omp_init_allocator(omp_default_mem_space, 2, pool_default);
    p = omp_alloc(100000, a); /* falls back to the default allocator */
    CHECK(p != NULL);
    fill_check(p, 100000, 7);
    omp_free(p, a);
    omp_destroy_allocator(a);

    omp_alloctrait_t bad[] = {{omp_atk_alignment, 3}};
    CHECK(omp_init_allocator(omp_default_mem_space, 1, bad) == omp_null_allocator);
    OT_SAY("made allocators: 4096-byte alignment, a pool with null_fb and default_mem_fb, invalid traits refused");
}

static void default_allocator(void) {
    const char *env = getenv("OMP_ALLOCATOR");
    omp_allocator_handle_t def = omp_get_default_allocator();
    CHECK(def == (env ? omp_large_cap_mem_alloc : omp_default_mem_alloc));
    OT_SAY("default allocator: %s", def == omp_large_cap_mem_alloc ? "omp_large_cap_mem_alloc" : "omp_default_mem_alloc");
    omp_alloctrait_t align[] = {{omp_atk_alignment, 1024}};
    omp_allocator_handle_t a = omp_init_allocator(omp_default_mem_space, 1, align);
    omp_set_default_allocator(a);
    CHECK(omp_get_default_allocator() == a);
    void *p = omp_alloc(10, omp_null_allocator); /* the default allocator */
    CHECK(p && aligned(p, 1024));
    omp_free(p, omp_null_allocator);
    /* the default allocator is a per-task setting: a thread's change stays its own */
    int bad = 0;
#pragma omp parallel reduction(+ : bad)
    {
        bad += omp_get_default_allocator() != a;
        if (omp_get_thread_num() == 1) omp_set_default_allocator(omp_default_mem_alloc);
    }
    CHECK_EQ_INT(bad, 0);
    CHECK(omp_get_default_allocator() == a);
    omp_set_default_allocator(def);
    omp_destroy_allocator(a);
}

static void across_threads(void) {
    enum { K = 64 };
    void *blocks[K];
    int bad = 0;
#pragma omp parallel reduction(+ : bad)
    {
#pragma omp for schedule(static, 1)
        for (int k = 0; k < K; k++) {
            blocks[k] = omp_alloc((size_t)(k + 1) * 64, omp_default_mem_alloc);
            if (blocks[k]) memset(blocks[k], k, (size_t)(k + 1) * 64);
            else bad++;
        }
        /* freed by a thread other than the allocating one when the team has two or more */
#pragma omp for schedule(static, 1)
        for (int k = 0; k < K; k++) {
            int j = K - 1 - k;
            bad += ((unsigned char *)blocks[j])[0] != (unsigned char)j;
            omp_free(blocks[j], omp_default_mem_alloc);
        }
    }
    CHECK_EQ_INT(bad, 0);
    OT_SAY("memory allocated on one thread and freed on another: right");
}

/* The allocate clause: private copies come from the allocator (GOMP_alloc / GOMP_free). */
static void allocate_clause(void) {
    omp_alloctrait_t align[] = {{omp_atk_alignment, 512}};
    omp_allocator_handle_t a = omp_init_allocator(omp_default_mem_space, 1, align);
    int bad = 0;
    atomic_int task_bad = 0; /* the tasks' own count: a thread's reduction copy is not theirs to touch */
    double x = 1.5;
    long arr[16], sum = 0;
    for (int i = 0; i < 16; i++) arr[i] = i;
#pragma omp parallel private(x) firstprivate(arr) allocate(a : x, arr) reduction(+ : bad)
    {
        x = omp_get_thread_num();
        bad += !aligned(&x, 512) || !aligned(arr, 512);
        for (int i = 0; i < 16; i++) bad += arr[i] != i;
#pragma omp task firstprivate(x) allocate(a : x) shared(task_bad)
        atomic_fetch_add(&task_bad, !aligned(&x, 512));
#pragma omp for reduction(+ : sum) allocate(a : sum) private(x) allocate(a : x)
        for (int i = 0; i < 100; i++) {
            x = i;
            sum += (long)x;
            if (!aligned(&sum, 512) || !aligned(&x, 512)) bad++;
        }
        bad += sum != 4950;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(atomic_load(&task_bad), 0);
    omp_destroy_allocator(a);
    OT_SAY("allocate clause on parallel, task and for: private copies 512-byte aligned");
}

/* abort_fb: past the pool the program ends (libgomp: a message and exit 1), in a child. */
static int child_abort_fb(void) {
    omp_alloctrait_t t[] = {{omp_atk_pool_size, 4096}, {omp_atk_fallback, omp_atv_abort_fb}};
    omp_allocator_handle_t a = omp_init_allocator(omp_default_mem_space, 2, t);
    if (a == omp_null_allocator) return 3;
    void *p = omp_alloc(100000, a);
    fprintf(stderr, "omp_alloc past an abort_fb pool returned %p\n", p);
    return 0;
}

static void abort_fallback(void) {
    check_child c = check_run_child("abort_fb", NULL, 60);
    CHECK_CHILD(c, !c.timed_out && !(c.exited && c.code == 0) && !(c.exited && c.code == 3));
    check_child_free(&c);
    OT_SAY("abort_fb: the program ended when the pool ran out");
}

int main(int argc, char **argv) {
    const char *child = check_child_name(argc, argv);
    if (child) return child_abort_fb();
    predefined();
    made_allocators();
    abort_fallback();
    default_allocator();
    across_threads();
    allocate_clause();
    return 0;
}
