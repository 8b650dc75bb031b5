/* affinity.c — places and thread binding: with OMP_PLACES (threads, cores, threads(1)) and
 * OMP_PROC_BIND (true, close, spread), the place queries describe real processors
 * (omp_get_num_places, omp_get_place_num_procs, omp_get_place_proc_ids), a bound thread runs on
 * a processor of its place (sched_getcpu), its partition holds its place, and under close or
 * spread with no more threads than places every thread has a place of its own (close: consecutive
 * from the primary thread's). Without them, the answers are only checked to agree with each
 * other. Printed: nothing that depends on the machine's processors but "threads(1)"'s one place.
 * omp-run:
 * omp-run: OMP_PLACES=threads OMP_PROC_BIND=close
 * omp-run: OMP_PLACES=cores OMP_PROC_BIND=spread
 * omp-run: OMP_PLACES=threads(1) OMP_PROC_BIND=true
 * omp-run: OMP_PLACES=threads OMP_PROC_BIND=spread,close
 */
#include "omp_test.h"

enum { MAXP = 1024, MAXT = 64 };

static int in_place(int place, int cpu) {
    int ids[MAXP];
    int n = omp_get_place_num_procs(place);
    if (n < 1 || n > MAXP) return 0;
    omp_get_place_proc_ids(place, ids);
    for (int k = 0; k < n; k++)
        if (ids[k] == cpu) return 1;
    return 0;
}

static void check_places(void) {
    int np = omp_get_num_places();
    long ncpu = sysconf(_SC_NPROCESSORS_CONF);
    CHECK(np >= 0 && np <= MAXP);
    int seen[MAXP] = {0};
    for (int p = 0; p < np; p++) {
        int n = omp_get_place_num_procs(p);
        CHECK_MSG(n >= 1 && n <= MAXP, "place %d has %d processors", p, n);
        int ids[MAXP];
        omp_get_place_proc_ids(p, ids);
        for (int k = 0; k < n; k++) {
            CHECK_MSG(ids[k] >= 0 && ids[k] < ncpu && ids[k] < MAXP, "place %d names processor %d", p, ids[k]);
            CHECK_MSG(!seen[ids[k]]++, "processor %d is in two places", ids[k]);
        }
    }
    CHECK_EQ_INT(omp_get_place_num_procs(np), 0);  /* out of range */
    CHECK_EQ_INT(omp_get_place_num_procs(-1), 0);
}

int main(void) {
    const char *places = getenv("OMP_PLACES"), *bind = getenv("OMP_PROC_BIND");
    int bound = bind != NULL;
    check_places();
    int np = omp_get_num_places();
    if (places && !strcmp(places, "threads(1)")) {
        CHECK_EQ_INT(np, 1);
        OT_SAY("OMP_PLACES=threads(1): 1 place of %d processor", omp_get_place_num_procs(0));
    } else if (places) {
        CHECK(np >= 1);
    }
    if (!bound) CHECK_EQ_INT(omp_get_proc_bind(), omp_proc_bind_false);

    int place_of[MAXT], part_ok[MAXT], cpu_ok[MAXT], team = 0;
#pragma omp parallel
    {
        int t = omp_get_thread_num();
        int pl = omp_get_place_num();
        place_of[t] = pl;
        cpu_ok[t] = pl < 0 ? !bound : in_place(pl, sched_getcpu());
        int pn = omp_get_partition_num_places();
        int nums[MAXP];
        part_ok[t] = pn >= 0 && pn <= np;
        if (pl >= 0 && part_ok[t]) {
            omp_get_partition_place_nums(nums);
            int found = 0;
            for (int k = 0; k < pn; k++) found |= nums[k] == pl;
            part_ok[t] = found;
        }
        if (t == 0) team = omp_get_num_threads();
    }
    for (int t = 0; t < team; t++) {
        CHECK_MSG(place_of[t] >= -1 && place_of[t] < np, "thread %d: place %d of %d", t, place_of[t], np);
        if (bound) CHECK_MSG(place_of[t] >= 0, "thread %d is not bound to a place", t);
        CHECK_MSG(cpu_ok[t], "thread %d does not run on a processor of its place %d", t, place_of[t]);
        CHECK_MSG(part_ok[t], "thread %d's partition does not hold its place %d", t, place_of[t]);
    }
    omp_proc_bind_t pb = omp_get_proc_bind();
    if ((pb == omp_proc_bind_close || pb == omp_proc_bind_spread) && team <= np) {
        for (int t = 0; t < team; t++)
            for (int u = 0; u < t; u++) CHECK_MSG(place_of[t] != place_of[u], "threads %d and %d share place %d", u, t, place_of[t]);
        if (pb == omp_proc_bind_close)
            for (int t = 0; t < team; t++) CHECK_EQ_INT(place_of[t], (place_of[0] + t) % np);
    }
    OT_SAY("places and binding (OMP_PLACES=%s, OMP_PROC_BIND=%s): consistent, bound threads on their places",
           places ? places : "unset", bind ? bind : "unset");
    return 0;
}
