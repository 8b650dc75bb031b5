/* mpiheat-serial.c — the serial program of mpiheat (see mpiheat.h): STEPS steps on the whole grid,
 * no MPI. RANKS and LATENCY_US are accepted and ignored; the grid is checked against a second
 * serial run. */
#include "mpiheat.h"

int main(int argc, char **argv) {
    mh_args a;
    mh_parse(argc, argv, &a);
    double best = 1e300, sum = 0;
    int ok = 1;
    double *ref = NULL;
    for (int r = 0; r < a.reps; r++) {
        double t0 = bench_now();
        double *u = mh_serial(a.nx, a.ny, a.steps);
        double t = bench_now() - t0;
        best = t < best ? t : best;
        if (!ref) ref = mh_serial(a.nx, a.ny, a.steps);
        ok &= memcmp(ref, u, (size_t)a.nx * a.ny * sizeof(double)) == 0;
        sum += u[(size_t)(a.ny / 2) * a.nx + a.nx / 2];
        free(u);
    }
    free(ref);
    printf("{\"seconds\": %.6f, \"check\": \"%s\", \"result\": %d, \"tasks\": null, \"center\": %.17g}\n", best,
           ok ? "ok" : "FAIL", a.steps, sum / a.reps);
    return !ok;
}
