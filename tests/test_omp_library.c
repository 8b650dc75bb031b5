/* test_omp_library.c — libmerino_omp's omp_* routines (src/omp/icv.c, gomp_sync.c, alloc.c,
 * gomp_target.c, misc.c): ICVs set in one task and inherited by its children and by the implicit
 * tasks of a region, not by its parent; run-sched-var with merino's kinds; locks, simple and
 * nested (owned by a task), under contention; the wall clock; the CPU budget and the places; the
 * memory allocators (alignment, zeroing, realloc, a pool with each fallback, the allocate clause);
 * the host device (target regions, device memory, teams); the affinity format. */
#include "check.h"

#include <merino.h>
#include <omp.h>

#include <sched.h>

/* ---- ICVs ------------------------------------------------------------------------------------------------------- */

static void icvs(void) {
    check_set_context("ICVs");
    omp_set_num_threads(3);
    CHECK_EQ_INT(omp_get_max_threads(), 3);
    int inner_max = 0, task_max = 0, outer_after = 0;
#pragma omp parallel num_threads(2)
    {
#pragma omp single
        {
            omp_set_num_threads(5); /* this implicit task's own */
#pragma omp task shared(task_max)
            task_max = omp_get_max_threads(); /* inherited from its creator */
#pragma omp taskwait
            inner_max = omp_get_max_threads();
        }
    }
    outer_after = omp_get_max_threads();
    CHECK_EQ_INT(task_max, 5);
    CHECK_EQ_INT(inner_max, 5);
    CHECK_EQ_INT(outer_after, 3); /* the parent's is unchanged */
    omp_set_num_threads(omp_get_num_procs());

    omp_set_dynamic(1);
    CHECK_EQ_INT(omp_get_dynamic(), 1);
    omp_set_dynamic(0);
    CHECK_EQ_INT(omp_get_dynamic(), 0);

    omp_sched_t k;
    int chunk;
    omp_get_schedule(&k, &chunk);
    CHECK(k == omp_sched_dynamic && chunk == 1); /* libgomp's default */
    omp_set_schedule(omp_sched_guided, 0);
    omp_get_schedule(&k, &chunk);
    CHECK(k == omp_sched_guided && chunk == 1);
    omp_set_schedule((omp_sched_t)5, 8); /* merino's steal */
    omp_get_schedule(&k, &chunk);
    CHECK((int)k == 5 && chunk == 8);
    omp_set_schedule((omp_sched_t)77, 3); /* unknown: ignored */
    omp_get_schedule(&k, &chunk);
    CHECK((int)k == 5 && chunk == 8);
    omp_set_schedule(omp_sched_dynamic, 1);

    CHECK_EQ_INT(omp_get_max_active_levels(), 1);
    CHECK_EQ_INT(omp_get_supported_active_levels(), 255);
    omp_set_nested(1);
    CHECK(omp_get_max_active_levels() > 1 && omp_get_nested());
    omp_set_nested(0);
    CHECK_EQ_INT(omp_get_max_active_levels(), 1);
    CHECK_EQ_INT(omp_get_level(), 0);
    CHECK_EQ_INT(omp_get_thread_num(), 0);
    CHECK_EQ_INT(omp_get_num_threads(), 1);
    CHECK_EQ_INT(omp_in_parallel(), 0);
    CHECK_EQ_INT(omp_in_final(), 0);
    CHECK(omp_get_thread_limit() >= 1);
    CHECK_EQ_INT(omp_get_max_task_priority(), 0);
}

/* ---- locks ------------------------------------------------------------------------------------------------------------ */

static void locks(void) {
    check_set_context("locks");
    omp_lock_t l;
    omp_init_lock(&l);
    long counter = 0;
#pragma omp parallel num_threads(4)
    for (int i = 0; i < 20000; i++) {
        omp_set_lock(&l);
        counter++;
        omp_unset_lock(&l);
    }
    CHECK_EQ_INT(counter, 80000);
    CHECK_EQ_INT(omp_test_lock(&l), 1);
    int other = -1;
#pragma omp parallel num_threads(2)
    if (omp_get_thread_num() == 1) other = omp_test_lock(&l); /* held by thread 0's task */
    CHECK_EQ_INT(other, 0);
    omp_unset_lock(&l);
    omp_destroy_lock(&l);
    omp_init_lock_with_hint(&l, omp_sync_hint_contended);
    omp_set_lock(&l);
    omp_unset_lock(&l);
    omp_destroy_lock(&l);

    omp_nest_lock_t n;
    omp_init_nest_lock(&n);
    CHECK_EQ_INT(omp_test_nest_lock(&n), 1);
    CHECK_EQ_INT(omp_test_nest_lock(&n), 2); /* the same task: nested */
    omp_set_nest_lock(&n);
    int in_task = -1;
#pragma omp parallel num_threads(2)
#pragma omp single
    {
#pragma omp task shared(in_task, n)
        in_task = omp_test_nest_lock(&n); /* another task: the lock is not its */
#pragma omp taskwait
    }
    CHECK_EQ_INT(in_task, 0);
    omp_unset_nest_lock(&n);
    omp_unset_nest_lock(&n);
    omp_unset_nest_lock(&n);
    long c2 = 0;
#pragma omp parallel num_threads(3)
    for (int i = 0; i < 5000; i++) {
        omp_set_nest_lock(&n);
        omp_set_nest_lock(&n);
        c2++;
        omp_unset_nest_lock(&n);
        omp_unset_nest_lock(&n);
    }
    CHECK_EQ_INT(c2, 15000);
    omp_destroy_nest_lock(&n);
    long crit = 0, atom = 0;
    double fatom = 0;
#pragma omp parallel num_threads(3)
    for (int i = 0; i < 5000; i++) {
#pragma omp critical(named_one)
        crit++;
#pragma omp atomic
        atom++;
#pragma omp atomic
        fatom += 0.5;
    }
    CHECK_EQ_INT(crit, 15000);
    CHECK_EQ_INT(atom, 15000);
    CHECK(fatom == 7500.0);
}

/* ---- time, CPUs, places -------------------------------------------------------------------------------------------- */

static void time_and_places(void) {
    check_set_context("time and places");
    double t0 = omp_get_wtime();
    struct timespec ts = {0, 20000000};
    nanosleep(&ts, NULL);
    double t1 = omp_get_wtime();
    CHECK_MSG(t1 - t0 >= 0.019 && t1 - t0 < 5, "20 ms measured as %.6f s", t1 - t0);
    CHECK(omp_get_wtick() > 0 && omp_get_wtick() < 0.001);
    cpu_set_t set;
    CHECK(sched_getaffinity(0, sizeof set, &set) == 0);
    int procs = omp_get_num_procs();
    CHECK_MSG(procs >= 1 && procs <= CPU_COUNT(&set), "omp_get_num_procs %d, %d CPUs in the mask", procs, CPU_COUNT(&set));
    CHECK_EQ_INT(omp_get_num_places(), CPU_COUNT(&set));
    for (int p = 0; p < omp_get_num_places(); p++) {
        CHECK_EQ_INT(omp_get_place_num_procs(p), 1);
        int id = -1;
        omp_get_place_proc_ids(p, &id);
        CHECK(CPU_ISSET(id, &set));
    }
    CHECK_EQ_INT(omp_get_place_num(), -1); /* the main thread is not bound */
    CHECK_EQ_INT(omp_get_partition_num_places(), omp_get_num_places());
    /* a pool thread bound to a CPU (merino binds when workers <= CPUs) reports that CPU's place */
    int bound_place = -2, worker = -2;
#pragma omp parallel num_threads(2)
    if (omp_get_thread_num() == 1) {
        bound_place = omp_get_place_num();
        worker = merino_worker_index();
    }
    if (worker > 0 && merino_workers() <= (unsigned)CPU_COUNT(&set) && getenv("MERINO_PIN") == NULL)
        CHECK_MSG(bound_place >= 0, "pool thread %d reports place %d", worker, bound_place);
}

/* ---- allocators ------------------------------------------------------------------------------------------------------ */

static void allocators(void) {
    check_set_context("allocators");
    char *p = omp_alloc(1000, omp_default_mem_alloc);
    CHECK(p != NULL);
    memset(p, 7, 1000);
    p = omp_realloc(p, 5000, omp_default_mem_alloc, omp_default_mem_alloc);
    CHECK(p != NULL && p[999] == 7);
    omp_free(p, omp_default_mem_alloc);
    int *z = omp_calloc(100, sizeof(int), omp_null_allocator);
    for (int i = 0; i < 100; i++) CHECK_EQ_INT(z[i], 0);
    omp_free(z, omp_null_allocator);
    void *a = omp_aligned_alloc(256, 100, omp_high_bw_mem_alloc);
    CHECK(((uintptr_t)a & 255) == 0);
    omp_free(a, omp_high_bw_mem_alloc);
    CHECK(omp_aligned_alloc(3, 10, omp_default_mem_alloc) == NULL); /* not a power of two */

    omp_alloctrait_t traits[] = {{omp_atk_alignment, 128}, {omp_atk_pool_size, 4096}, {omp_atk_fallback, omp_atv_null_fb}};
    omp_allocator_handle_t al = omp_init_allocator(omp_default_mem_space, 3, traits);
    CHECK(al != omp_null_allocator);
    void *b1 = omp_alloc(3000, al);
    CHECK(b1 != NULL && ((uintptr_t)b1 & 127) == 0);
    CHECK(omp_alloc(3000, al) == NULL); /* over the pool: the null fallback */
    omp_free(b1, al);
    void *b2 = omp_alloc(3000, al); /* freed: fits again */
    CHECK(b2 != NULL);
    omp_free(b2, al);
    omp_alloctrait_t fb[] = {{omp_atk_pool_size, 100}, {omp_atk_fallback, omp_atv_allocator_fb}, {omp_atk_fb_data, (omp_uintptr_t)omp_default_mem_alloc}};
    omp_allocator_handle_t al2 = omp_init_allocator(omp_default_mem_space, 3, fb);
    void *b3 = omp_alloc(1000, al2); /* over its pool: from the fallback allocator */
    CHECK(b3 != NULL);
    omp_free(b3, al2);
    omp_destroy_allocator(al2);
    omp_destroy_allocator(al);
    omp_alloctrait_t bad[] = {{omp_atk_alignment, 3}};
    CHECK(omp_init_allocator(omp_default_mem_space, 1, bad) == omp_null_allocator);
    CHECK(omp_get_default_allocator() == omp_default_mem_alloc);
    omp_set_default_allocator(omp_large_cap_mem_alloc);
    CHECK(omp_get_default_allocator() == omp_large_cap_mem_alloc);
    omp_set_default_allocator(omp_default_mem_alloc);
    long sum = 0, v[64];
    /* the allocate clause: GOMP_alloc / GOMP_free around the region's private copies */
#pragma omp parallel num_threads(2) reduction(+ : sum) private(v) allocate(omp_high_bw_mem_alloc : v)
    {
        for (int i = 0; i < 64; i++) v[i] = i;
        for (int i = 0; i < 64; i++) sum += v[i];
    }
    CHECK_EQ_INT(sum, 2 * 2016);
}

/* ---- the host device ------------------------------------------------------------------------------------------------------ */

static void host_device(void) {
    check_set_context("host device");
    CHECK_EQ_INT(omp_get_num_devices(), 0);
    CHECK_EQ_INT(omp_is_initial_device(), 1);
    CHECK_EQ_INT(omp_get_initial_device(), omp_get_num_devices());
    int a[100], level = -1, initial = -1, fp = 5;
    for (int i = 0; i < 100; i++) a[i] = i;
#pragma omp target map(tofrom : a) map(from : level, initial) firstprivate(fp)
    {
        for (int i = 0; i < 100; i++) a[i] += fp;
        level = omp_get_level();
        initial = omp_is_initial_device();
        fp = -1; /* a copy */
    }
    for (int i = 0; i < 100; i++) CHECK_EQ_INT(a[i], i + 5);
    CHECK_EQ_INT(level, 0);
    CHECK_EQ_INT(initial, 1);
    CHECK_EQ_INT(fp, 5);
    long s = 0;
#pragma omp target teams distribute parallel for reduction(+ : s) map(tofrom : s)
    for (int i = 0; i < 1000; i++) s += i;
    CHECK_EQ_INT(s, 499500);
    int seen = 0, nteams = 0;
#pragma omp teams num_teams(3) reduction(+ : seen)
    {
        seen += 1 << omp_get_team_num();
        if (omp_get_team_num() == 0) nteams = omp_get_num_teams();
    }
    CHECK_EQ_INT(seen, 7);
    CHECK_EQ_INT(nteams, 3);
    int *d = omp_target_alloc(40, omp_get_initial_device());
    CHECK(d != NULL);
    CHECK_EQ_INT(omp_target_memcpy(d, a, 40, 0, 0, omp_get_initial_device(), omp_get_initial_device()), 0);
    CHECK_EQ_INT(d[9], 14);
    CHECK(omp_target_is_present(d, omp_get_initial_device()));
    omp_target_free(d, omp_get_initial_device());
}

static void affinity_format(void) {
    check_set_context("affinity format");
    omp_set_affinity_format("t%n of %N at L%L");
    char buf[64];
    size_t n = omp_get_affinity_format(buf, sizeof buf);
    CHECK_STR_EQ(buf, "t%n of %N at L%L");
    CHECK_EQ_INT(n, strlen("t%n of %N at L%L"));
    char out[128] = "";
#pragma omp parallel num_threads(2)
    if (omp_get_thread_num() == 1) omp_capture_affinity(out, sizeof out, NULL);
    CHECK_STR_EQ(out, "t1 of 2 at L1");
    n = omp_capture_affinity(out, sizeof out, "%0.4{thread_num}|%P");
    CHECK_MSG(strncmp(out, "0000|", 5) == 0, "%s", out);
    /* a negative number zero-padded keeps its sign first; right and left justified (as libgomp) */
    n = omp_capture_affinity(out, sizeof out, "[%0.5a][%.5a][%5a][%0.6{ancestor_tnum}]");
    CHECK_STR_EQ(out, "[-0001][   -1][-1   ][-00001]");
    CHECK_EQ_INT(n, strlen(out));
}

int main(void) {
    icvs();
    locks();
    time_and_places();
    allocators();
    host_device();
    affinity_format();
    printf("test_omp_library: ok\n");
    return 0;
}
