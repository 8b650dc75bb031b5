// test_loop_step.cpp — stepped loops: merino_for_step (C) and merino::parallel_for(first, last,
// step, f) against the serial `for (i = first; i < last; i += step)` (step < 0: i > last), at 1, 2,
// 3 and 8 workers under every schedule: empty, 1- and 2-iteration loops, steps of 1, 2, 7, -1, -3,
// steps larger than the range, INT64_MAX and INT64_MIN, bounds at the int64_t limits (where the
// serial loop's `i += step` itself would overflow: the reference runs in 128 bits), unsigned and
// narrow position types; loops of 2^64 - 1 iterations tiled exactly by the C body's runs (the sum
// of the counts, in order); a step of 0 refused.
#include "check.h"

#include <merino_loop.hpp>

#include <algorithm>
#include <csignal>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace {

const char *const schedules[] = {"auto",      "adaptive,3", "static", "static,3", "dynamic,7", "guided",
                                 "steal,2",   "idws",       "idws-poll", "adaptive"};

// The serial loop's positions, in 128-bit arithmetic (so that its last i += step cannot overflow).
std::vector<std::int64_t> serial(std::int64_t first, std::int64_t last, std::int64_t step) {
    std::vector<std::int64_t> out;
    for (__int128 i = first; step > 0 ? i < last : i > last; i += step) out.push_back(std::int64_t(i));
    return out;
}

struct c_ctx {
    std::mutex lock;
    std::map<std::int64_t, int> seen; // position -> times
    std::int64_t step;
};

void c_body(std::int64_t first, std::int64_t count, std::int64_t step, void *ctx) {
    auto *c = static_cast<c_ctx *>(ctx);
    CHECK(count >= 1);
    CHECK(step == c->step);
    std::lock_guard<std::mutex> hold(c->lock);
    for (std::int64_t k = 0; k < count; k++) c->seen[std::int64_t(std::uint64_t(first) + std::uint64_t(k) * std::uint64_t(step))]++;
}

void check_case(std::int64_t first, std::int64_t last, std::int64_t step, const merino_for_opts &o) {
    check_set_context("first=%lld last=%lld step=%lld schedule=%s", (long long)first, (long long)last, (long long)step,
                      merino_schedule_name(o.schedule));
    std::vector<std::int64_t> want = serial(first, last, step);
    // C
    c_ctx c;
    c.step = step;
    merino_for_step(first, last, step, c_body, &c, &o);
    CHECK_EQ_INT((long long)c.seen.size(), (long long)want.size());
    for (std::int64_t i : want) CHECK_MSG(c.seen.count(i) && c.seen[i] == 1, "C: position %lld ran %d times", (long long)i, c.seen.count(i) ? c.seen[i] : 0);
    // C++
    std::mutex lock;
    std::map<std::int64_t, int> seen;
    merino::loop_options lo;
    static_cast<merino_for_opts &>(lo) = o;
    merino::parallel_for(first, last, step, [&](std::int64_t i) {
        std::lock_guard<std::mutex> hold(lock);
        seen[i]++;
    }, lo);
    CHECK_EQ_INT((long long)seen.size(), (long long)want.size());
    for (std::int64_t i : want) CHECK_MSG(seen.count(i) && seen[i] == 1, "C++: position %lld ran %d times", (long long)i, seen.count(i) ? seen[i] : 0);
}

// Loops too long to enumerate: the C body's runs, sorted, must tile the iterations exactly.
struct tiles_ctx {
    std::mutex lock;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> runs; // (first as unsigned, count)
};
void tiles_body(std::int64_t first, std::int64_t count, std::int64_t, void *ctx) {
    auto *c = static_cast<tiles_ctx *>(ctx);
    std::lock_guard<std::mutex> hold(c->lock);
    c->runs.emplace_back(std::uint64_t(first), std::uint64_t(count));
}
void check_huge(std::int64_t first, std::int64_t last, std::int64_t step, std::uint64_t count, const merino_for_opts &o) {
    check_set_context("huge first=%lld last=%lld step=%lld schedule=%s", (long long)first, (long long)last,
                      (long long)step, merino_schedule_name(o.schedule));
    tiles_ctx c;
    merino_for_step(first, last, step, tiles_body, &c, &o);
    // the iteration number of each run's first position, in unsigned arithmetic
    std::vector<std::pair<std::uint64_t, std::uint64_t>> its;
    for (auto &r : c.runs)
        its.emplace_back(step > 0 ? (r.first - std::uint64_t(first)) / std::uint64_t(step)
                                  : (std::uint64_t(first) - r.first) / (0 - std::uint64_t(step)),
                         r.second);
    std::sort(its.begin(), its.end());
    std::uint64_t next = 0;
    for (auto &r : its) {
        CHECK_MSG(r.first == next, "a run starts at iteration %llu, expected %llu", (unsigned long long)r.first,
                  (unsigned long long)next);
        next += r.second;
    }
    CHECK_MSG(next == count, "the runs hold %llu iterations, expected %llu", (unsigned long long)next,
              (unsigned long long)count);
}

// A sparse body for huge loops: the C++ loop visits each position; only these few are expected.
void check_cxx_types() {
    // unsigned positions near the top, a negative step given as a signed value
    std::vector<std::atomic<int>> hits(10);
    const std::uint64_t top = UINT64_MAX;
    merino::parallel_for(top, top - 30, -3, [&](std::uint64_t i) { hits[(top - i) / 3].fetch_add(1, std::memory_order_relaxed); });
    for (auto &h : hits) CHECK_EQ_INT(h.load(std::memory_order_relaxed), 1);
    // narrow types at their bounds: no overflow, every position once
    std::vector<std::atomic<int>> bytes(256);
    merino::parallel_for(std::int8_t(-128), std::int8_t(127), std::int8_t(1), [&](std::int8_t i) { bytes[i + 128].fetch_add(1, std::memory_order_relaxed); });
    for (int i = 0; i < 256; i++) CHECK_EQ_INT(bytes[i].load(std::memory_order_relaxed), i == 255 ? 0 : 1);
    for (auto &b : bytes) b.store(0, std::memory_order_relaxed);
    merino::parallel_for(std::int8_t(127), std::int8_t(-128), std::int8_t(-2), [&](std::int8_t i) { bytes[i + 128].fetch_add(1, std::memory_order_relaxed); });
    for (int i = 0; i < 256; i++) CHECK_EQ_INT(bytes[i].load(std::memory_order_relaxed), (i % 2 == 1) ? 1 : 0);
    // mixed bound types
    std::atomic<long> sum{0};
    merino::parallel_for(0, std::size_t(100), 10, [&](std::size_t i) { sum.fetch_add(long(i), std::memory_order_relaxed); });
    CHECK_EQ_INT(sum.load(std::memory_order_relaxed), 450);
    // a step of 0
    bool threw = false;
    try {
        merino::parallel_for(0, 10, 0, [](int) {});
    } catch (const std::invalid_argument &) {
        threw = true;
    }
    CHECK(threw);
}

} // namespace

int main(int argc, char **argv) {
    unsetenv("MERINO_SCHEDULE");
    if (const char *child = check_child_name(argc, argv)) {
        if (std::string(child) == "zero") merino_for_step(0, 10, 0, c_body, nullptr, nullptr);
        return 0;
    }
    const std::int64_t MIN = INT64_MIN, MAX = INT64_MAX;
    struct {
        std::int64_t first, last, step;
    } cases[] = {
        {0, 0, 1},        {5, 5, -1},        {0, 1, 1},         {0, 1, 7},          {0, 2, 1},
        {0, 3, 2},        {1, 0, -1},        {2, 0, -1},        {3, 0, -2},         {0, 5, -1},
        {5, 0, 1},        {0, 10007, 1},     {0, 10007, 7},     {-500, 9000, 3},    {9000, -500, -3},
        {MAX - 100, MAX, 7}, {MIN + 100, MIN, -7}, {MIN, MIN + 300, 13}, {MAX, MAX - 300, -13},
        {MIN, MAX, MAX},  {MAX, MIN, MIN},   {MIN, MAX, MAX / 1000 + 1}, {MAX, MIN, -(MAX / 1000 + 1)},
        {0, 100, MAX},    {0, -100, MIN},    {MIN, 0, MAX},     {-1, MIN, MIN},     {MAX - 1, MAX, MAX},
    };
    for (unsigned workers : {1u, 2u, 3u, 8u}) {
        merino::runtime rt(workers);
        for (const char *s : schedules)
            for (int det = 0; det < 2; det++) {
                merino_for_opts o{};
                CHECK(merino_schedule_parse(s, &o) == 0);
                o.deterministic = det;
                for (auto &c : cases) check_case(c.first, c.last, c.step, o);
                // 2^64 - 1 iterations: the schedules whose chunks grow or are shares (not dynamic, nor
                // fixed chunks: 2^62 calls)
                bool grows = o.schedule == MERINO_SCHEDULE_ADAPTIVE || o.schedule == MERINO_SCHEDULE_AUTO ||
                             o.schedule == MERINO_SCHEDULE_IDWS || o.schedule == MERINO_SCHEDULE_IDWS_POLL ||
                             o.schedule == MERINO_SCHEDULE_GUIDED;
                if (det == 0 && (grows || o.chunk == 0) && o.schedule != MERINO_SCHEDULE_DYNAMIC) {
                    check_huge(MIN, MAX, 1, UINT64_MAX, o);
                    check_huge(MAX, MIN, -1, UINT64_MAX, o);
                    check_huge(MIN + 1, MAX, 2, UINT64_MAX / 2, o);
                }
            }
        check_set_context("workers=%u C++ types", workers);
        check_cxx_types();
    }
    check_set_context("a step of 0");
    const char *const env[] = {nullptr};
    check_child child = check_run_child("zero", env, 30);
    CHECK_MSG(child.signaled && child.sig == SIGABRT, "the child should stop (SIGABRT): %s", child.err);
    CHECK_STR_CONTAINS(child.err, "merino_for_step: the step is 0");
    check_child_free(&child);
    std::puts("test_loop_step: ok");
    return 0;
}
