/* idle, serial: ./idle-serial --workers N period_us region_us seconds [tasks] (idle.h). The loop
 * alone: a region calls its tasks one after the other on the main thread, with no runtime, so
 * its idle_cpus is what the loop itself costs (its timer sleeps and wake-ups), which the runtimes'
 * figures include too. --workers is accepted and ignored but for the default number of tasks. */
#include "idle.h"

static void start(int workers) { (void)workers; }

static void region(int n) {
    for (int i = 0; i < n; i++) idle_task();
}

int main(int argc, char **argv) { return idle_main(argc, argv, start, region); }
