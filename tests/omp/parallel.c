/* parallel.c — the parallel construct: the team's size (default, num_threads, omp_set_num_threads,
 * if, teams larger than the machine), thread numbers, the queries inside (levels, ancestors, team
 * sizes, omp_in_parallel, omp_get_max_threads), shared / private / firstprivate data, proc_bind
 * accepted, nested regions under max-active-levels, regions in a row, and the threads of a team
 * running concurrently (one waits for another outside any OpenMP construct).
 * omp-run:
 * omp-run: OMP_PROC_BIND=true
 */
#include "omp_test.h"

enum { MAXT = 64 };

/* Runs a region of `want` threads (num_threads) and checks its team: each thread number once,
 * every thread sees the same team size, the levels and ancestors of a region at level 1. */
static void check_team(int want) {
    atomic_int seen[MAXT] = {0};
    int size[MAXT];
    int bad = 0;
#pragma omp parallel num_threads(want) shared(seen, size) reduction(+ : bad)
    {
        int t = omp_get_thread_num(), n = omp_get_num_threads();
        if (t < 0 || t >= MAXT || n != want) {
            bad++;
        } else {
            atomic_fetch_add_explicit(&seen[t], 1, memory_order_relaxed); /* a count */
            size[t] = n;
            int active = n > 1;
            bad += omp_get_level() != 1;
            bad += omp_get_active_level() != active;
            bad += omp_in_parallel() != (active > 0);
            bad += omp_get_ancestor_thread_num(0) != 0;
            bad += omp_get_ancestor_thread_num(1) != t;
            bad += omp_get_ancestor_thread_num(2) != -1;
            bad += omp_get_ancestor_thread_num(-1) != -1;
            bad += omp_get_team_size(0) != 1;
            bad += omp_get_team_size(1) != n;
            bad += omp_get_team_size(2) != -1;
        }
    }
    CHECK_MSG(bad == 0, "num_threads(%d): %d wrong answers inside the region", want, bad);
    for (int t = 0; t < want; t++) {
        CHECK_MSG(atomic_load(&seen[t]) == 1, "num_threads(%d): thread %d ran %d times", want, t,
                  atomic_load(&seen[t]));
        CHECK_EQ_INT(size[t], want);
    }
}

static void team_sizes(void) {
    int n = ot_threads();
    int got = 0;
#pragma omp parallel
    {
#pragma omp single
        got = omp_get_num_threads();
    }
    CHECK_EQ_INT(got, n);
    OT_SAY("default team: %d threads", got);
    for (int k = 1; k <= 9; k++) check_team(k);
    check_team(16); /* more threads than this machine has cores: all of them are made */
    OT_SAY("num_threads(1..9, 16): every team complete");

    /* omp_set_num_threads sets the next regions' size; num_threads overrides it once. */
    omp_set_num_threads(5);
    CHECK_EQ_INT(omp_get_max_threads(), 5);
#pragma omp parallel
#pragma omp single
    got = omp_get_num_threads();
    CHECK_EQ_INT(got, 5);
#pragma omp parallel num_threads(2)
#pragma omp single
    got = omp_get_num_threads();
    CHECK_EQ_INT(got, 2);
    omp_set_num_threads(n);
    OT_SAY("omp_set_num_threads(5): 5 threads, num_threads(2) overrides it");
}

static void if_clause(void) {
    for (int cond = 0; cond <= 1; cond++) {
        int size = -1, level = -1, active = -1, inpar = -1;
#pragma omp parallel if (cond) num_threads(4)
#pragma omp single
        {
            size = omp_get_num_threads();
            level = omp_get_level();
            active = omp_get_active_level();
            inpar = omp_in_parallel();
        }
        CHECK_EQ_INT(size, cond ? 4 : 1);
        CHECK_EQ_INT(level, 1);
        CHECK_EQ_INT(active, cond ? 1 : 0);
        CHECK_EQ_INT(inpar, cond);
    }
    OT_SAY("if(0): one thread, level 1, inactive; if(1): the team");
}

static void data_sharing(void) {
    int n = ot_threads();
    int shared_sum = 0, first = 42, priv = 7;
    long per_thread[MAXT] = {0};
#pragma omp parallel shared(shared_sum, per_thread) firstprivate(first) private(priv)
    {
        int t = omp_get_thread_num();
        priv = t * 3;  /* private: each thread its own */
        first += t;    /* firstprivate: each starts from 42 */
        per_thread[t] = (long)first * 1000 + priv;
#pragma omp atomic
        shared_sum += t + 1;
    }
    CHECK_EQ_INT(shared_sum, n * (n + 1) / 2);
    CHECK_EQ_INT(first, 42);
    CHECK_EQ_INT(priv, 7);
    for (int t = 0; t < n; t++) CHECK_EQ_INT(per_thread[t], (42L + t) * 1000 + t * 3);

    /* A large firstprivate aggregate is copied for each thread. */
    struct big {
        int v[512];
    } b;
    for (int i = 0; i < 512; i++) b.v[i] = i;
    int bad = 0;
#pragma omp parallel firstprivate(b) reduction(+ : bad)
    {
        for (int i = 0; i < 512; i++) bad += b.v[i] != i;
        b.v[0] = -1;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(b.v[0], 0);
    OT_SAY("shared, private, firstprivate (an int and a 2 KB struct): right");
}

static void queries(void) {
    CHECK_EQ_INT(omp_get_num_threads(), 1);
    CHECK_EQ_INT(omp_get_thread_num(), 0);
    CHECK_EQ_INT(omp_get_level(), 0);
    CHECK_EQ_INT(omp_get_active_level(), 0);
    CHECK_EQ_INT(omp_in_parallel(), 0);
    CHECK_EQ_INT(omp_get_team_size(0), 1);
    CHECK_EQ_INT(omp_get_ancestor_thread_num(0), 0);
    CHECK_EQ_INT(omp_get_team_size(1), -1);
    int n = ot_threads(), bad = 0;
#pragma omp parallel reduction(+ : bad)
    {
        /* nthreads-var of the implicit tasks: the same single value (no list) */
        bad += omp_get_max_threads() != n;
        /* setting it in one implicit task changes only that task's value */
        omp_set_num_threads(omp_get_thread_num() + 1);
        bad += omp_get_max_threads() != omp_get_thread_num() + 1;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(omp_get_max_threads(), n);
    OT_SAY("queries outside and inside: right");
}

static void proc_bind(void) {
    int n = ot_threads(), sizes[4] = {0};
#pragma omp parallel proc_bind(close)
#pragma omp single
    sizes[0] = omp_get_num_threads();
#pragma omp parallel proc_bind(spread)
#pragma omp single
    sizes[1] = omp_get_num_threads();
#pragma omp parallel proc_bind(master)
#pragma omp single
    sizes[2] = omp_get_num_threads();
#pragma omp parallel proc_bind(primary) num_threads(3)
#pragma omp single
    sizes[3] = omp_get_num_threads();
    CHECK_EQ_INT(sizes[0], n);
    CHECK_EQ_INT(sizes[1], n);
    CHECK_EQ_INT(sizes[2], n);
    CHECK_EQ_INT(sizes[3], 3);
    /* With OMP_PROC_BIND unset bind-var is false; "true" is what the variable says. */
    OT_SAY("proc_bind(close, spread, master, primary) accepted; omp_get_proc_bind() = %d",
           (int)omp_get_proc_bind());
}

/* Nested regions: inner teams are made only while the active levels are below max-active-levels. */
static void nested(void) {
    int n = ot_threads();
    CHECK_EQ_INT(omp_get_max_active_levels(), 1); /* libgomp's default without a list */
    CHECK_MSG(omp_get_supported_active_levels() >= 2, "supported active levels %d",
              omp_get_supported_active_levels());
    for (int levels = 1; levels <= 3; levels++) {
        omp_set_max_active_levels(levels);
        CHECK_EQ_INT(omp_get_max_active_levels(), levels);
        atomic_int inner_threads = 0, innermost_threads = 0;
        int bad = 0;
#pragma omp parallel num_threads(2) reduction(+ : bad)
        {
            int outer = omp_get_thread_num();
#pragma omp parallel num_threads(3) reduction(+ : bad)
            {
                int want2 = levels >= 2 ? 3 : 1;
                bad += omp_get_num_threads() != want2;
                bad += omp_get_level() != 2;
                bad += omp_get_active_level() != 1 + (want2 > 1);
                bad += omp_get_ancestor_thread_num(1) != outer;
                bad += omp_get_team_size(1) != 2;
                bad += omp_get_team_size(2) != want2;
                atomic_fetch_add_explicit(&inner_threads, 1, memory_order_relaxed); /* a count */
                int mid = omp_get_thread_num();
#pragma omp parallel num_threads(2) reduction(+ : bad)
                {
                    int want3 = levels >= 3 ? 2 : 1;
                    bad += omp_get_num_threads() != want3;
                    bad += omp_get_level() != 3;
                    bad += omp_get_ancestor_thread_num(2) != mid;
                    bad += omp_get_ancestor_thread_num(1) != outer;
                    atomic_fetch_add_explicit(&innermost_threads, 1, memory_order_relaxed);
                }
            }
        }
        CHECK_MSG(bad == 0, "max-active-levels %d: %d wrong answers", levels, bad);
        int i2 = atomic_load(&inner_threads), i3 = atomic_load(&innermost_threads);
        CHECK_EQ_INT(i2, 2 * (levels >= 2 ? 3 : 1));
        CHECK_EQ_INT(i3, i2 * (levels >= 3 ? 2 : 1));
        OT_SAY("max-active-levels %d: 2 x %d x %d threads", levels, i2 / 2, i3 / i2);
    }
    /* omp_set_nested (deprecated) is max-active-levels 1 or more */
    omp_set_max_active_levels(1);
    CHECK_EQ_INT(omp_get_nested(), 0);
    omp_set_nested(1);
    CHECK_EQ_INT(omp_get_nested(), 1);
    CHECK_MSG(omp_get_max_active_levels() > 1, "omp_set_nested(1) left max-active-levels at %d",
              omp_get_max_active_levels());
    omp_set_nested(0);
    CHECK_EQ_INT(omp_get_max_active_levels(), 1);
    (void)n;
}

/* Many regions in a row, of changing sizes: every thread of every team runs once. */
static void regions_in_a_row(void) {
    int rounds = (int)(300 * check_scale());
    long total = 0, want = 0;
    for (int r = 0; r < rounds; r++) {
        int k = 1 + r % 5;
#pragma omp parallel num_threads(k) reduction(+ : total)
        total += omp_get_thread_num() + 1;
        want += k * (k + 1) / 2;
    }
    CHECK_EQ_INT(total, want);
    OT_SAY("%d regions of 1..5 threads in a row: every thread once", rounds);
}

/* The threads of a team run at the same time: a hand-made barrier of atomics (no OpenMP
 * construct) completes only if every member gets to run while the others wait. */
static void concurrent_members(void) {
    for (int k = 2; k <= 8; k *= 2) {
        atomic_int arrived = 0;
#pragma omp parallel num_threads(k) shared(arrived)
        {
            atomic_fetch_add_explicit(&arrived, 1, memory_order_release);
            ot_wait_for(&arrived, k, "every member of the team to arrive");
        }
        CHECK_EQ_INT(atomic_load(&arrived), k);
    }
    OT_SAY("teams of 2, 4, 8: members run concurrently");
}

int main(void) {
    queries();
    team_sizes();
    if_clause();
    data_sharing();
    proc_bind();
    nested();
    regions_in_a_row();
    concurrent_members();
    return 0;
}
