/* target.c — offloading constructs with no device: every target region runs on the host (libgomp's
 * GOMP_target_ext fallback), with map clauses of each kind, target data, enter/exit data, update,
 * nowait and depend (the region becomes a task), declare target functions and variables, target
 * teams distribute parallel for (GOMP_teams4 on the host: teams run one after another), a teams
 * construct on the host (GOMP_teams_reg), and the device memory routines on the initial device
 * (omp_target_alloc, memcpy, memcpy_rect, is_present, associate_ptr, disassociate_ptr, free).
 * omp-run:
 * omp-run: OMP_TARGET_OFFLOAD=disabled
 * omp-run: OMP_TARGET_OFFLOAD=default
 */
#include "omp_test.h"

enum { N = 1000 };

#pragma omp declare target
static int scale = 3;
static int twice(int x) { return 2 * x; }
#pragma omp end declare target

static void regions(void) {
    static int a[N], b[N];
    for (int i = 0; i < N; i++) a[i] = i;
    int on_host = -1, sum = 0;
#pragma omp target map(to : a[0:N]) map(from : b[0:N]) map(tofrom : sum) map(from : on_host)
    {
        on_host = omp_is_initial_device();
        for (int i = 0; i < N; i++) {
            b[i] = twice(a[i]) * scale;
            sum += a[i];
        }
    }
    CHECK_EQ_INT(on_host, 1);
    CHECK_EQ_INT(sum, N * (N - 1) / 2);
    for (int i = 0; i < N; i++) CHECK_EQ_INT(b[i], 6 * i);

    int x = 5, y = 0;
#pragma omp target data map(tofrom : x) map(alloc : y)
    {
#pragma omp target map(tofrom : x)
        x += 1;
#pragma omp target update from(x)
        CHECK_EQ_INT(x, 6);
        x = 10;
#pragma omp target update to(x)
#pragma omp target map(tofrom : x) /* a scalar is firstprivate unless mapped */
        x *= 2;
    }
    CHECK_EQ_INT(x, 20);
#pragma omp target enter data map(to : a[0:N])
#pragma omp target map(alloc : a[0:N])
    for (int i = 0; i < N; i++) a[i] += 1;
#pragma omp target exit data map(from : a[0:N])
    for (int i = 0; i < N; i++) CHECK_EQ_INT(a[i], i + 1);
    (void)y;
    OT_SAY("target, target data, update, enter/exit data: ran on the host, results right");
}

static void nowait_depend(void) {
    int v = 0, w = -1;
#pragma omp parallel
#pragma omp single
    {
#pragma omp target nowait depend(out : v) map(tofrom : v)
        v = 41;
#pragma omp task depend(inout : v) shared(v)
        v += 1;
#pragma omp target nowait depend(in : v) map(to : v) map(from : w)
        w = v;
#pragma omp taskwait
    }
    CHECK_EQ_INT(v, 42);
    CHECK_EQ_INT(w, 42);
    OT_SAY("target nowait with depend: ordered as tasks");
}

static void teams(void) {
    static int hits[N]; /* no _Atomic in a map clause: omp atomic instead */
    int nteams = -1;
    long sum = 0;
#pragma omp target teams distribute parallel for num_teams(4) map(tofrom : nteams, sum, hits) reduction(+ : sum)
    for (int i = 0; i < N; i++) {
#pragma omp atomic
        hits[i]++;
        sum += i;
        if (i == 0) nteams = omp_get_num_teams();
    }
    for (int i = 0; i < N; i++) CHECK_EQ_INT(hits[i], 1);
    CHECK_EQ_INT(sum, (long)N * (N - 1) / 2);
    CHECK(nteams >= 1 && nteams <= 4);

    /* teams on the host (OpenMP 5.0): each team's primary thread runs the block */
    atomic_int team_runs = 0;
    int team_nums[8] = {0}, got_teams = 0;
#pragma omp teams num_teams(3)
    {
        atomic_fetch_add(&team_runs, 1);
        int tn = omp_get_team_num();
        if (tn >= 0 && tn < 8) team_nums[tn]++;
        if (tn == 0) got_teams = omp_get_num_teams();
    }
    CHECK(got_teams >= 1 && got_teams <= 3);
    CHECK_EQ_INT(atomic_load(&team_runs), got_teams);
    for (int t = 0; t < got_teams; t++) CHECK_EQ_INT(team_nums[t], 1);
    for (int i = 0; i < N; i++) hits[i] = 0;
#pragma omp teams distribute num_teams(2)
    for (int i = 0; i < N; i++) {
#pragma omp atomic
        hits[i]++;
    }
    for (int i = 0; i < N; i++) CHECK_EQ_INT(hits[i], 1);
    OT_SAY("target teams distribute parallel for, host teams, teams distribute: every iteration once");
}

static void device_memory(void) {
    int host = omp_get_initial_device();
    int *d = omp_target_alloc(N * sizeof(int), host);
    CHECK(d != NULL);
    int src[N], back[N];
    for (int i = 0; i < N; i++) src[i] = i * 7;
    CHECK_EQ_INT(omp_target_memcpy(d, src, N * sizeof(int), 0, 0, host, host), 0);
    CHECK_EQ_INT(omp_target_memcpy(back, d, N * sizeof(int), 0, 0, host, host), 0);
    for (int i = 0; i < N; i++) CHECK_EQ_INT(back[i], i * 7);
    CHECK(omp_target_is_present(src, host));
    /* a 10 x 10 block out of a 20 x 30 matrix */
    static double m[20][30], blk[10][10];
    for (int r = 0; r < 20; r++)
        for (int c = 0; c < 30; c++) m[r][c] = r * 100 + c;
    size_t vol[2] = {10, 10}, doff[2] = {0, 0}, soff[2] = {5, 7}, ddim[2] = {10, 10}, sdim[2] = {20, 30};
    CHECK_EQ_INT(omp_target_memcpy_rect(blk, m, sizeof(double), 2, vol, doff, soff, ddim, sdim, host, host), 0);
    for (int r = 0; r < 10; r++)
        for (int c = 0; c < 10; c++) CHECK(blk[r][c] == (r + 5) * 100 + (c + 7));
    /* associating host memory with itself on the host device: libgomp refuses (EINVAL) */
    int assoc = omp_target_associate_ptr(src, d, sizeof src, 0, host);
    int disassoc = omp_target_disassociate_ptr(src, host);
    omp_target_free(d, host);
    OT_SAY("omp_target_alloc, memcpy, memcpy_rect, is_present, free on the initial device: right");
    OT_SAY("omp_target_associate_ptr on the initial device = %d, omp_target_disassociate_ptr = %d", assoc, disassoc);
}

int main(void) {
    regions();
    nowait_depend();
    teams();
    device_memory();
    return 0;
}
