/* abi_legacy.c — libgomp entry points that gcc 12 no longer emits but programs compiled by older
 * compilers still call, called here directly as those programs did: the GOMP_1.0 parallel
 * start/end pair and its combined loop and sections forms (GOMP_parallel_start,
 * GOMP_parallel_loop_{static,dynamic,guided,runtime}_start, GOMP_parallel_sections_start,
 * GOMP_parallel_end), GOMP_parallel_loop_static (GOMP_4.0), the non-combined static loop starts
 * (GOMP_loop_static_start, GOMP_loop_ull_static_start), the 5.0 generic starts with no reduction
 * (GOMP_loop_ull_start, GOMP_sections2_start), the GOMP_4.0 offloading calls (GOMP_target,
 * GOMP_target_data, GOMP_target_update, GOMP_teams: run on the host), and the OMP_1.0 lock
 * routines (the old lock layout, C and Fortran names, bound by .symver). Each loop: every
 * iteration once, as its schedule deals them.
 */
#include "loop_check.h"

#include <stdbool.h>
#include <stdint.h>

/* The entry points, as libgomp declares them (libgomp_g.h). */
void GOMP_parallel_start(void (*fn)(void *), void *data, unsigned nthreads);
void GOMP_parallel_end(void);
void GOMP_parallel_loop_static_start(void (*)(void *), void *, unsigned, long, long, long, long);
void GOMP_parallel_loop_dynamic_start(void (*)(void *), void *, unsigned, long, long, long, long);
void GOMP_parallel_loop_guided_start(void (*)(void *), void *, unsigned, long, long, long, long);
void GOMP_parallel_loop_runtime_start(void (*)(void *), void *, unsigned, long, long, long);
void GOMP_parallel_loop_static(void (*)(void *), void *, unsigned, long, long, long, long, unsigned);
void GOMP_parallel_sections_start(void (*)(void *), void *, unsigned, unsigned);
void GOMP_parallel(void (*)(void *), void *, unsigned, unsigned);
bool GOMP_loop_static_start(long, long, long, long, long *, long *);
bool GOMP_loop_static_next(long *, long *);
bool GOMP_loop_dynamic_next(long *, long *);
bool GOMP_loop_guided_next(long *, long *);
bool GOMP_loop_runtime_next(long *, long *);
void GOMP_loop_end(void);
void GOMP_loop_end_nowait(void);
bool GOMP_loop_ull_static_start(bool, unsigned long long, unsigned long long, unsigned long long,
                                unsigned long long, unsigned long long *, unsigned long long *);
bool GOMP_loop_ull_static_next(unsigned long long *, unsigned long long *);
bool GOMP_loop_ull_start(bool, unsigned long long, unsigned long long, unsigned long long, long,
                         unsigned long long, unsigned long long *, unsigned long long *, uintptr_t *, void **);
bool GOMP_loop_ull_runtime_next(unsigned long long *, unsigned long long *);
unsigned GOMP_sections2_start(unsigned, uintptr_t *, void **);
unsigned GOMP_sections_next(void);
void GOMP_sections_end(void);
void GOMP_sections_end_nowait(void);
void GOMP_target(int, void (*)(void *), const void *, size_t, void **, size_t *, unsigned char *);
void GOMP_target_data(int, const void *, size_t, void **, size_t *, unsigned char *);
void GOMP_target_end_data(void);
void GOMP_target_update(int, const void *, size_t, void **, size_t *, unsigned char *);
void GOMP_teams(unsigned, unsigned);

enum { N = 777, GFS_DYNAMIC = 2 };
enum { DEVICE_ICV = -1, MAP_TO = 1, MAP_FROM = 2, MAP_TOFROM = 3 }; /* gomp-constants.h */

/* ---- the GOMP_1.0 combined starts: the primary thread runs the body itself, then ends ---------- */

struct loopdata {
    int next; /* 0 static, 1 dynamic, 2 guided, 3 runtime */
};

static void loop_body(void *arg) {
    struct loopdata *d = arg;
    long s, e;
    for (;;) {
        bool more = d->next == 0 ? GOMP_loop_static_next(&s, &e)
                  : d->next == 1 ? GOMP_loop_dynamic_next(&s, &e)
                  : d->next == 2 ? GOMP_loop_guided_next(&s, &e)
                                 : GOMP_loop_runtime_next(&s, &e);
        if (!more) break;
        for (long i = s; i < e; i++) lc_record(i);
    }
    GOMP_loop_end_nowait();
}

/* The legacy combined starts with a chunk argument, each with the schedule it must produce. */
static const struct {
    void (*start)(void (*)(void *), void *, unsigned, long, long, long, long);
    enum lc_kind kind;
    int chunk;
    const char *what;
} chunked_starts[] = {
    {GOMP_parallel_loop_static_start, LC_STATIC_CHUNK, 5, "GOMP_parallel_loop_static_start, chunk 5"},
    {GOMP_parallel_loop_dynamic_start, LC_DYNAMIC, 3, "GOMP_parallel_loop_dynamic_start, chunk 3"},
    {GOMP_parallel_loop_guided_start, LC_GUIDED, 4, "GOMP_parallel_loop_guided_start, chunk 4"},
};

static void combined_starts(void) {
    unsigned team = (unsigned)ot_threads();
    struct loopdata d;
    for (int k = 0; k < 3; k++) { /* d.next 0, 1, 2: the matching GOMP_loop_*_next */
        lc_reset(N);
        d.next = k;
        chunked_starts[k].start(loop_body, &d, team, 0, N, 1, chunked_starts[k].chunk);
        loop_body(&d);
        GOMP_parallel_end();
        lc_verify(chunked_starts[k].what, N, chunked_starts[k].kind, chunked_starts[k].chunk, (int)team, k == 0);
    }
    omp_set_schedule(omp_sched_static, 2);
    lc_reset(N);
    d.next = 3;
    GOMP_parallel_loop_runtime_start(loop_body, &d, team, 0, N, 1);
    loop_body(&d);
    GOMP_parallel_end();
    lc_verify("GOMP_parallel_loop_runtime_start under static,2", N, LC_STATIC_CHUNK, 2, (int)team, 1);
    /* GOMP_4.0's combined static form: the region ends inside the call */
    lc_reset(N);
    d.next = 0;
    GOMP_parallel_loop_static(loop_body, &d, team, 0, N, 1, 7, 0);
    lc_verify("GOMP_parallel_loop_static, chunk 7", N, LC_STATIC_CHUNK, 7, (int)team, 1);
    OT_SAY("GOMP_parallel_loop_{static,dynamic,guided,runtime}_start, GOMP_parallel_loop_static: right");
}

static atomic_int region_threads, section_runs[5];

static void region_body(void *arg) {
    (void)arg;
    atomic_fetch_add(&region_threads, 1);
}

static void sections_body(void *arg) {
    (void)arg;
    for (unsigned id = GOMP_sections_next(); id != 0; id = GOMP_sections_next())
        atomic_fetch_add(&section_runs[id - 1], 1);
    GOMP_sections_end_nowait();
}

static void start_end_pairs(void) {
    unsigned team = (unsigned)ot_threads();
    GOMP_parallel_start(region_body, NULL, team);
    region_body(NULL);
    GOMP_parallel_end();
    CHECK_EQ_INT(atomic_load(&region_threads), (int)team);
    GOMP_parallel_sections_start(sections_body, NULL, team, 5);
    sections_body(NULL);
    GOMP_parallel_end();
    for (int k = 0; k < 5; k++) CHECK_EQ_INT(atomic_load(&section_runs[k]), 1);
    OT_SAY("GOMP_parallel_start/end (%u threads), GOMP_parallel_sections_start: right", team);
}

/* ---- non-combined starts, called by every thread of a region ---------------------------------- */

static void static_starts_body(void *arg) {
    int which = *(int *)arg;
    if (which == 0) {
        long s, e;
        for (bool more = GOMP_loop_static_start(0, 3 * N, 3, 4, &s, &e); more; more = GOMP_loop_static_next(&s, &e))
            for (long i = s; i < e; i += 3) lc_record(i / 3);
        GOMP_loop_end();
    } else if (which == 1) {
        unsigned long long s, e, base = 0xF000000000000000ULL;
        for (bool more = GOMP_loop_ull_static_start(true, base, base + N, 1, 6, &s, &e); more;
             more = GOMP_loop_ull_static_next(&s, &e))
            for (unsigned long long u = s; u < e; u++) lc_record((long)(u - base));
        GOMP_loop_end();
    } else if (which == 2) {
        unsigned long long s, e, base = 0xF000000000000000ULL;
        for (bool more = GOMP_loop_ull_start(true, base, base + N, 1, GFS_DYNAMIC, 5, &s, &e, NULL, NULL); more;
             more = GOMP_loop_ull_runtime_next(&s, &e))
            for (unsigned long long u = s; u < e; u++) lc_record((long)(u - base));
        GOMP_loop_end();
    } else {
        for (unsigned id = GOMP_sections2_start(4, NULL, NULL); id != 0; id = GOMP_sections_next())
            atomic_fetch_add(&section_runs[id - 1], 1);
        GOMP_sections_end();
    }
}

static void non_combined_starts(void) {
    int team = ot_threads(), which = 0;
    lc_reset(N);
    GOMP_parallel(static_starts_body, &which, 0, 0);
    lc_verify("GOMP_loop_static_start, step 3, chunk 4", N, LC_STATIC_CHUNK, 4, team, 1);
    which = 1;
    lc_reset(N);
    GOMP_parallel(static_starts_body, &which, 0, 0);
    lc_verify("GOMP_loop_ull_static_start, chunk 6", N, LC_STATIC_CHUNK, 6, team, 1);
    which = 2;
    lc_reset(N);
    GOMP_parallel(static_starts_body, &which, 0, 0);
    lc_verify("GOMP_loop_ull_start, dynamic chunk 5", N, LC_DYNAMIC, 5, team, 0);
    which = 3;
    for (int k = 0; k < 5; k++) atomic_store(&section_runs[k], 0);
    GOMP_parallel(static_starts_body, &which, 0, 0);
    for (int k = 0; k < 4; k++) CHECK_EQ_INT(atomic_load(&section_runs[k]), 1);
    CHECK_EQ_INT(atomic_load(&section_runs[4]), 0);
    OT_SAY("GOMP_loop_static_start, GOMP_loop_ull_static_start, GOMP_loop_ull_start, GOMP_sections2_start: right");
}

/* ---- GOMP_4.0 offloading: with no device, the host runs it ----------------------------------- */

static void target_fn(void *arg) {
    void **addrs = arg;
    int *x = addrs[0];
    *x = *x * 2 + 1;
}

static void old_offloading(void) {
    int x = 20;
    void *addrs[1] = {&x};
    size_t sizes[1] = {sizeof x};
    unsigned char kinds[1] = {MAP_TOFROM}, to[1] = {MAP_TO};
    GOMP_target_data(DEVICE_ICV, NULL, 1, addrs, sizes, kinds);
    GOMP_target(DEVICE_ICV, target_fn, NULL, 1, addrs, sizes, kinds);
    GOMP_target_update(DEVICE_ICV, NULL, 1, addrs, sizes, to);
    GOMP_target_end_data();
    CHECK_EQ_INT(x, 41);
    GOMP_teams(0, 0); /* the defaults: nothing to do on the host */
    OT_SAY("GOMP_target, GOMP_target_data, GOMP_target_update, GOMP_teams (GOMP_4.0): ran on the host");
}

/* ---- the OMP_1.0 locks: an int for a simple lock, {owner, count} for a nested one -------------- */

#define OLD_LOCK_FN(ret, name, ver) ret old_##name(void *) __asm__("old_" #name); __asm__(".symver old_" #name "," #name "@" ver)
OLD_LOCK_FN(void, omp_init_lock, "OMP_1.0");
OLD_LOCK_FN(void, omp_set_lock, "OMP_1.0");
OLD_LOCK_FN(void, omp_unset_lock, "OMP_1.0");
OLD_LOCK_FN(int, omp_test_lock, "OMP_1.0");
OLD_LOCK_FN(void, omp_destroy_lock, "OMP_1.0");
OLD_LOCK_FN(void, omp_init_nest_lock, "OMP_1.0");
OLD_LOCK_FN(void, omp_set_nest_lock, "OMP_1.0");
OLD_LOCK_FN(void, omp_unset_nest_lock, "OMP_1.0");
OLD_LOCK_FN(int, omp_test_nest_lock, "OMP_1.0");
OLD_LOCK_FN(void, omp_destroy_nest_lock, "OMP_1.0");
/* the Fortran names take a pointer to the lock, old and current versions alike */
OLD_LOCK_FN(void, omp_init_lock_, "OMP_1.0");
OLD_LOCK_FN(void, omp_set_lock_, "OMP_1.0");
OLD_LOCK_FN(void, omp_unset_lock_, "OMP_1.0");
OLD_LOCK_FN(int, omp_test_lock_, "OMP_1.0");
OLD_LOCK_FN(void, omp_destroy_lock_, "OMP_1.0");
OLD_LOCK_FN(void, omp_init_nest_lock_, "OMP_1.0");
OLD_LOCK_FN(void, omp_set_nest_lock_, "OMP_1.0");
OLD_LOCK_FN(void, omp_unset_nest_lock_, "OMP_1.0");
OLD_LOCK_FN(int, omp_test_nest_lock_, "OMP_1.0");
OLD_LOCK_FN(void, omp_destroy_nest_lock_, "OMP_1.0");

static void old_locks(void) {
    /* generous storage: the old layouts are smaller than today's */
    _Alignas(16) char lock[64] = {0}, nest[64] = {0}, flock[64] = {0}, fnest[64] = {0};
    old_omp_init_lock(lock);
    long counter = 0;
    int n = ot_threads();
#pragma omp parallel
    for (int r = 0; r < 200; r++) {
        if (r % 2) old_omp_set_lock(lock);
        else
            while (!old_omp_test_lock(lock)) {
            }
        counter++;
        old_omp_unset_lock(lock);
    }
    CHECK_EQ_INT(counter, 200L * n);
    old_omp_set_lock(lock);
    CHECK_EQ_INT(old_omp_test_lock(lock), 0); /* held */
    old_omp_unset_lock(lock);
    old_omp_destroy_lock(lock);
    old_omp_init_nest_lock(nest);
    CHECK_EQ_INT(old_omp_test_nest_lock(nest), 1);
    old_omp_set_nest_lock(nest);
    CHECK_EQ_INT(old_omp_test_nest_lock(nest), 3);
    for (int k = 0; k < 3; k++) old_omp_unset_nest_lock(nest);
    old_omp_destroy_nest_lock(nest);

    old_omp_init_lock_(flock);
    old_omp_set_lock_(flock);
    CHECK_EQ_INT(old_omp_test_lock_(flock), 0);
    old_omp_unset_lock_(flock);
    CHECK_EQ_INT(old_omp_test_lock_(flock), 1);
    old_omp_unset_lock_(flock);
    old_omp_destroy_lock_(flock);
    old_omp_init_nest_lock_(fnest);
    old_omp_set_nest_lock_(fnest);
    CHECK_EQ_INT(old_omp_test_nest_lock_(fnest), 2);
    old_omp_unset_nest_lock_(fnest);
    old_omp_unset_nest_lock_(fnest);
    old_omp_destroy_nest_lock_(fnest);
    OT_SAY("OMP_1.0 locks (C and Fortran names): exclusion and nesting counts right");
}

int main(void) {
    combined_starts();
    start_end_pairs();
    non_combined_starts();
    old_offloading();
    old_locks();
    return 0;
}
