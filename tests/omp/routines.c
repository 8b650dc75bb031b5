/* routines.c — the omp_* routines not covered by the construct tests: wtime/wtick; num_procs;
 * dynamic, nested and max-active-levels settings; thread limit; in_final; max task priority;
 * teams settings (num_teams, teams_thread_limit, outside a teams region); devices on the host
 * (default, initial, num_devices, is_initial_device, device_num); pause_resource (libgomp 12 has
 * no omp_control_tool); the affinity format routines (get, set, capture, display) with deterministic
 * fields; omp_display_env; omp_get_proc_bind. Printed: what the OpenMP specification fixes or
 * the environment decides, never the machine's CPU count.
 * omp-run:
 * omp-run: OMP_DYNAMIC=true
 */
#include "omp_test.h"

#include <unistd.h>

static void time_routines(void) {
    double tick = omp_get_wtick();
    CHECK(tick > 0 && tick < 0.01);
    double t0 = omp_get_wtime(), prev = t0;
    for (int k = 0; k < 1000; k++) {
        double t = omp_get_wtime();
        CHECK(t >= prev);
        prev = t;
    }
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
    CHECK(omp_get_wtime() - t0 >= 0.019);
    /* every thread reads the same clock */
    double lo = 1e300, hi = 0;
    double start = omp_get_wtime();
#pragma omp parallel reduction(min : lo) reduction(max : hi)
    {
        double t = omp_get_wtime();
        lo = t;
        hi = t;
    }
    CHECK(lo >= start && hi <= omp_get_wtime());
    OT_SAY("omp_get_wtime: monotonic, one clock for every thread; omp_get_wtick > 0");
}

static void settings(void) {
    CHECK(omp_get_num_procs() >= 1);
    const char *dyn_env = getenv("OMP_DYNAMIC");
    int dyn = omp_get_dynamic();
    CHECK_EQ_INT(dyn, dyn_env && strcmp(dyn_env, "true") == 0);
    OT_SAY("omp_get_dynamic() = %d", dyn);
    omp_set_dynamic(1);
    CHECK_EQ_INT(omp_get_dynamic(), 1);
    int sz = -1;
#pragma omp parallel num_threads(4)
#pragma omp single
    sz = omp_get_num_threads();
    CHECK(sz >= 1 && sz <= 4); /* dynamic: any size up to the request */
    omp_set_dynamic(0);
    CHECK_EQ_INT(omp_get_dynamic(), 0);
#pragma omp parallel num_threads(4)
#pragma omp single
    sz = omp_get_num_threads();
    CHECK_EQ_INT(sz, 4);
    omp_set_dynamic(dyn);

    /* max-active-levels: set, clamped to the supported levels, negative ignored */
    int supported = omp_get_supported_active_levels();
    CHECK(supported >= 1);
    omp_set_max_active_levels(3);
    CHECK_EQ_INT(omp_get_max_active_levels(), 3 <= supported ? 3 : supported);
    omp_set_max_active_levels(-4);
    CHECK_EQ_INT(omp_get_max_active_levels(), 3 <= supported ? 3 : supported);
    omp_set_max_active_levels(supported + 100);
    CHECK_EQ_INT(omp_get_max_active_levels(), supported);
    omp_set_max_active_levels(1);
    OT_SAY("max-active-levels: set, clamped, a negative value ignored");

    CHECK(omp_get_thread_limit() >= 1);
    OT_SAY("omp_get_thread_limit() without OMP_THREAD_LIMIT = %d", omp_get_thread_limit());
    CHECK_EQ_INT(omp_in_final(), 0);
    OT_SAY("omp_get_max_task_priority() = %d", omp_get_max_task_priority());
    OT_SAY("omp_get_proc_bind() = %d", (int)omp_get_proc_bind());
    /* omp_set_num_threads of a value below 1 is not allowed: nothing is checked for it */
}

static void teams_and_devices(void) {
    CHECK_EQ_INT(omp_get_num_teams(), 1);
    CHECK_EQ_INT(omp_get_team_num(), 0);
    omp_set_num_teams(3);
    CHECK_EQ_INT(omp_get_max_teams(), 3);
    omp_set_teams_thread_limit(5);
    CHECK_EQ_INT(omp_get_teams_thread_limit(), 5);
    OT_SAY("teams: num_teams 1 and team_num 0 outside; set/get of max teams and teams thread limit");

    int ndev = omp_get_num_devices();
    CHECK(ndev >= 0);
    CHECK_EQ_INT(omp_is_initial_device(), 1);
    CHECK_EQ_INT(omp_get_initial_device(), ndev);
    CHECK_EQ_INT(omp_get_device_num(), omp_get_initial_device());
    int def = omp_get_default_device();
    omp_set_default_device(omp_get_initial_device());
    CHECK_EQ_INT(omp_get_default_device(), omp_get_initial_device());
    omp_set_default_device(def);
    OT_SAY("devices: %d offload devices, the host is device %d, default device %d", ndev,
           omp_get_initial_device(), def);
    OT_SAY("omp_pause_resource(soft, host) = %d, omp_pause_resource_all(soft) = %d",
           omp_pause_resource(omp_pause_soft, omp_get_initial_device()), omp_pause_resource_all(omp_pause_soft));
    /* after a pause, regions still work */
    int sz = 0;
#pragma omp parallel num_threads(3)
#pragma omp single
    sz = omp_get_num_threads();
    CHECK_EQ_INT(sz, 3);
}

static void affinity_format(void) {
    char buf[256];
    size_t need = omp_get_affinity_format(buf, sizeof buf);
    CHECK(need == strlen(buf) && need > 0);
    omp_set_affinity_format("L%L n%n N%N a%a [%{thread_num}/%{num_threads}] %0.5n|%.4n|%4n|");
    need = omp_get_affinity_format(buf, 4);
    CHECK_EQ_INT(buf[3], 0); /* truncated, terminated */
    CHECK(need == strlen("L%L n%n N%N a%a [%{thread_num}/%{num_threads}] %0.5n|%.4n|%4n|"));
    char got[8][128];
    size_t len[8];
    int team = 0;
#pragma omp parallel num_threads(3)
    {
        int t = omp_get_thread_num();
        len[t] = omp_capture_affinity(got[t], sizeof got[t], NULL);
        if (t == 0) team = omp_get_num_threads();
    }
    CHECK_EQ_INT(team, 3);
    for (int t = 0; t < 3; t++) {
        CHECK(len[t] == strlen(got[t]));
        OT_SAY("omp_capture_affinity, thread %d: \"%s\"", t, got[t]);
    }
    /* a format given to capture overrides the set one; a too-small buffer still gives the length */
    char small[4];
    size_t full = omp_capture_affinity(small, sizeof small, "%n-%N");
    CHECK_EQ_INT(full, 3);
    CHECK_STR_EQ(small, "0-1");
    /* omp_display_affinity prints to stdout, one line */
    fflush(stdout);
    omp_display_affinity("display: L%L n%n N%N");
    fflush(stdout);
}

static void display_env(void) {
    /* omp_display_env writes to stderr: its form is env.c's (through OMP_DISPLAY_ENV) */
    omp_display_env(0);
    OT_SAY("omp_display_env(0) returned");
}

int main(void) {
    time_routines();
    settings();
    omp_set_dynamic(0); /* the rest counts team sizes */
    teams_and_devices();
    affinity_format();
    display_env();
    return 0;
}
