/* idle, OpenMP: ./idle-omp-{gcc,clang} --workers N period_us region_us seconds (idle.h). A region is
 * a parallel region of N threads, each running one task; the wait policy is the runtime's default
 * unless OMP_WAIT_POLICY says otherwise. */
#include <omp.h>

#include "idle.h"

static void start(int workers) {
    omp_set_dynamic(0);
    omp_set_num_threads(workers);
}

static void region(int n) {
#pragma omp parallel num_threads(n)
    idle_task();
}

int main(int argc, char **argv) { return idle_main(argc, argv, start, region); }
