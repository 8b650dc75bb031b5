// test_prof_cxx.cpp — the profiled variant under merino.hpp: merino::fork_join counts a spawn and,
// run by its joiner, an inlined join, exactly as MERINO_SPAWN/JOIN; its work and span follow
// (a fork of two equal serial branches has about half its work as span); regions from C++.
#include "check.h"

#include <merino.hpp>
#include <merino_prof.h>

static long fib(int n) {
    if (n < 2) return n;
    auto [a, b] = merino::fork_join([n] { return fib(n - 1); }, [n] { return fib(n - 2); });
    return a + b;
}

static uint64_t fib_spawns(int n) { return n < 2 ? 0 : 1 + fib_spawns(n - 1) + fib_spawns(n - 2); }

static uint64_t spin(uint64_t n) {
    uint64_t s = 0;
    for (uint64_t i = 0; i < n; i++) s += i ^ (s >> 5);
    return s;
}

int main() {
    merino_config cfg{};
    cfg.workers = 1;
    CHECK_EQ_INT(merino_start(&cfg), 0);
    merino_prof_report a, b;
    CHECK_EQ_INT(merino_prof_get(&a), 0);
    CHECK(merino::run([] { return fib(20); }) == 6765);
    CHECK_EQ_INT(merino_prof_get(&b), 0);
    CHECK_EQ_UINT(b.spawns - a.spawns, fib_spawns(20));
    CHECK_EQ_UINT(b.inlined - a.inlined, fib_spawns(20));

    // Two branches of the same serial loop, in parallel: span < work, and the span is at least the
    // longer branch, so the parallelism is at most 2 (up to the strands between the branches).
    merino_wsp w0 = merino_wsp_now();
    auto [x, y] = merino::run([] { return merino::fork_join([] { return spin(400000); }, [] { return spin(400000); }); });
    CHECK(x == y);
    merino_wsp d = merino_wsp_sub(merino_wsp_now(), w0);
    merino_wsp_dump(d, "two halves");
    CHECK_CMP_DBL(d.span, <, d.work);
    CHECK_CMP_DBL(d.work / d.span, >, 1.0);
    CHECK_CMP_DBL(d.work / d.span, <=, 2.0 * (1 + 1e-6));
    CHECK_EQ_INT(merino_stop(), 0);
    std::printf("test_prof_cxx: ok (two halves: parallelism %.2f)\n", d.work / d.span);
    return 0;
}
