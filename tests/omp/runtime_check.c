/* runtime_check.c — linked into every program of the OpenMP suite: before main, checks that the
 * OpenMP runtime the program really calls is the one the runner means to test.
 *
 * run.sh sets OMPTEST_RUNTIME to a part of the expected library's file name (libgomp, or
 * libmerino_omp); the library that defines omp_get_num_threads in the process's global scope
 * (where the program's own calls bind, LD_PRELOAD first) must match it. Unset: no check (a program
 * run by hand). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((constructor)) static void omptest_runtime_check(void) {
    const char *want = getenv("OMPTEST_RUNTIME");
    if (!want || !*want) return;
    void *fn = dlsym(RTLD_DEFAULT, "omp_get_num_threads");
    Dl_info info;
    if (!fn || !dladdr(fn, &info) || !info.dli_fname) {
        fprintf(stderr, "runtime_check: no library defines omp_get_num_threads (want %s)\n", want);
        _exit(1);
    }
    if (!strstr(info.dli_fname, want)) {
        fprintf(stderr,
                "runtime_check: omp_get_num_threads comes from %s, not from %s: the program does "
                "not run on the runtime under test (LD_PRELOAD or the link went wrong)\n",
                info.dli_fname, want);
        _exit(1);
    }
}
