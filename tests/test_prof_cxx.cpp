// test_prof_cxx.cpp — the profiled variant under merino.hpp: merino::fork_join counts a spawn and,
// run by its joiner, an inlined join, exactly as MERINO_SPAWN/JOIN; its work and span follow
// (a fork of two equal serial branches has about half its work as span); regions from C++. The
// same for merino_graph.hpp: a task_group of four equal tasks and a parallel_invoke of three have
// about a quarter and a third of their work as span.
#include "check.h"

#include <merino.hpp>
#include <merino_graph.hpp>
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

    // k equal tasks of a group, then of a parallel_invoke: parallelism near k, never above. Each
    // task times itself: a task the machine preempted is longer, and the parallelism the profiler
    // must report is the tasks' total over the longest (k when none was), not k.
    uint64_t r[4] = {0, 0, 0, 0};
    double t[4] = {0, 0, 0, 0};
    auto timed = [](uint64_t &ri, double &ti) {
        double t0 = check_now();
        ri = spin(400000);
        ti = check_now() - t0;
    };
    auto expected = [&t](int k) {
        double sum = 0, max = 0;
        for (int i = 0; i < k; i++) sum += t[i], max = t[i] > max ? t[i] : max;
        return sum / max;
    };
    w0 = merino_wsp_now();
    merino::task_group g;
    for (int i = 0; i < 4; i++) g.run([&, i] { timed(r[i], t[i]); });
    g.wait();
    merino_wsp dg = merino_wsp_sub(merino_wsp_now(), w0);
    double eg = expected(4);
    CHECK(r[0] == x && r[3] == x);
    w0 = merino_wsp_now();
    merino::parallel_invoke([&] { timed(r[0], t[0]); }, [&] { timed(r[1], t[1]); }, [&] { timed(r[2], t[2]); });
    merino_wsp di = merino_wsp_sub(merino_wsp_now(), w0);
    double ei = expected(3);
    CHECK(r[0] == x && r[2] == x);
    std::printf("task_group of 4: parallelism %.2f (tasks' own times: %.2f); parallel_invoke of 3: %.2f (%.2f)\n",
                dg.work / dg.span, eg, di.work / di.span, ei);
    if (!CHECK_SANITIZER) { /* under ThreadSanitizer a task_group of 4 once showed 2.00 (open) */
        CHECK_CMP_DBL(dg.work / dg.span, >, 0.6 * eg);
        CHECK_CMP_DBL(di.work / di.span, >, 0.6 * ei);
    }
    CHECK_CMP_DBL(dg.work / dg.span, <=, 4.0 * (1 + 1e-6));
    CHECK_CMP_DBL(di.work / di.span, <=, 3.0 * (1 + 1e-6));
    CHECK_EQ_INT(merino_stop(), 0);
    std::printf("test_prof_cxx: ok (two halves: parallelism %.2f)\n", d.work / d.span);
    return 0;
}
