/* barrier.c — barriers separate phases: explicit barriers, the implicit barriers at the end of a
 * worksharing loop, of single and of sections, in teams of changing sizes, inside an inactive
 * nested region, and a barrier completes the tasks the team made before it.
 * omp-run:
 * omp-run: OMP_WAIT_POLICY=passive
 * omp-run: OMP_WAIT_POLICY=active
 */
#include "omp_test.h"

enum { MAXT = 64 };

/* Phases: in each, every thread writes its slot (plain stores); after the barrier every thread
 * reads every slot and must see this phase's values. A second barrier keeps the next phase's
 * writes from overtaking the reads. */
static void phases(int team) {
    static int slot[MAXT];
    /* libgomp's active policy never yields: with more threads than cores every barrier waits out
     * time slices, so that run does fewer rounds */
    const char *policy = getenv("OMP_WAIT_POLICY");
    int active = policy && !strcmp(policy, "active");
    int rounds = (int)((active ? 40 : 200) * check_scale()), bad = 0;
#pragma omp parallel num_threads(team) reduction(+ : bad)
    {
        int t = omp_get_thread_num(), n = omp_get_num_threads();
        for (int r = 0; r < rounds; r++) {
            slot[t] = r * MAXT + t;
#pragma omp barrier
            for (int u = 0; u < n; u++) bad += slot[u] != r * MAXT + u;
#pragma omp barrier
        }
    }
    CHECK_MSG(bad == 0, "team of %d: %d stale reads after barriers", team, bad);
}

/* The implicit barriers of worksharing constructs (no nowait). */
static void implicit_barriers(void) {
    enum { N = 997 };
    static int a[N], b[N];
    int bad = 0, single_value = 0, sec[3] = {0};
#pragma omp parallel reduction(+ : bad)
    {
#pragma omp for schedule(dynamic, 7)
        for (int i = 0; i < N; i++) a[i] = i * 2;
        /* every thread reads iterations other threads wrote */
#pragma omp for schedule(static)
        for (int i = 0; i < N; i++) b[i] = a[N - 1 - i] + 1;
        for (int i = 0; i < N; i++) bad += b[i] != (N - 1 - i) * 2 + 1;

#pragma omp single
        single_value = 12345;
        bad += single_value != 12345;

#pragma omp sections
        {
#pragma omp section
            sec[0] = 1;
#pragma omp section
            sec[1] = 2;
#pragma omp section
            sec[2] = 3;
        }
        bad += sec[0] + sec[1] + sec[2] != 6;
    }
    CHECK_MSG(bad == 0, "%d reads did not see writes made before an implicit barrier", bad);
}

/* A barrier in a nested region that is inactive (a team of one) is a no-op, and one in an active
 * nested team synchronizes only that team. */
static void nested_barriers(void) {
    int bad = 0;
    omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2) reduction(+ : bad)
    {
        int inner_slot[4] = {0};
#pragma omp parallel num_threads(3) shared(inner_slot) reduction(+ : bad)
        {
            int t = omp_get_thread_num();
            inner_slot[t] = t + 10;
#pragma omp barrier
            for (int u = 0; u < omp_get_num_threads(); u++) bad += inner_slot[u] != u + 10;
        }
#pragma omp parallel num_threads(1) reduction(+ : bad)
        {
#pragma omp barrier
            bad += omp_get_num_threads() != 1;
        }
    }
    omp_set_max_active_levels(1);
    CHECK_EQ_INT(bad, 0);
}

/* Tasks made before a barrier are complete after it. */
static void barrier_completes_tasks(void) {
    atomic_int done = 0;
    int bad = 0, n = ot_threads();
#pragma omp parallel reduction(+ : bad)
    {
        for (int k = 0; k < 20; k++) {
#pragma omp task shared(done)
            {
                ot_spin(100);
                atomic_fetch_add_explicit(&done, 1, memory_order_relaxed); /* a count */
            }
        }
#pragma omp barrier
        bad += atomic_load_explicit(&done, memory_order_relaxed) != 20 * omp_get_num_threads();
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(atomic_load(&done), 20 * n);
}

int main(void) {
    int n = ot_threads();
    phases(n);
    for (int k = 1; k <= 5; k++) phases(k);
    phases(8);
    OT_SAY("explicit barriers separate phases (teams of %d, 1..5, 8)", n);
    implicit_barriers();
    OT_SAY("implicit barriers of for, single, sections: right");
    nested_barriers();
    OT_SAY("barriers in nested teams: right");
    barrier_completes_tasks();
    OT_SAY("a barrier completes the team's tasks: right");
    return 0;
}
