// test_loop_ranges.cpp — merino::range2d and range3d with parallel_for and parallel_reduce, against
// the serial loops at 1, 2, 3 and 8 workers under several schedules, plain and deterministic: every
// cell passed once (in boxes inside the range), empty dimensions, 1 x 1, 1 x N, N x 1 and 2 x 2
// ranges, grains, negative bounds and bounds at INT64_MAX; the sums equal the serial ones, and a
// deterministic reduction concatenating its boxes gives the same order every time; a range is cut
// along its longer side (2 x 100000: the rows are never cut; 100000 x 2: the columns never are),
// and only pieces longer than their grain are halved (no box below half the grain); an exception
// reaches the caller.
#include "check.h"

#include <merino_loop.hpp>

#include <atomic>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

const char *const schedules[] = {"auto", "static", "dynamic,3", "guided", "steal", "idws", "idws-poll"};

using r2 = merino::range2d<std::int64_t>;
using r3 = merino::range3d<std::int64_t>;

void check_2d(std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1, std::size_t rg, std::size_t cg,
              const merino::loop_options &o) {
    check_set_context("2-D [%lld, %lld) x [%lld, %lld) grains %zu %zu schedule=%s det=%d", (long long)r0, (long long)r1,
                      (long long)c0, (long long)c1, rg, cg, merino_schedule_name(o.schedule), o.deterministic);
    std::int64_t R = r1 > r0 ? r1 - r0 : 0, C = c1 > c0 ? c1 - c0 : 0;
    std::vector<std::atomic<int>> hits(std::size_t(R * C));
    r2 range(r0, r1, rg, c0, c1, cg);
    merino::parallel_for(range, [&](const r2 &b) {
        CHECK(!b.empty());
        CHECK(b.rows().begin() >= r0 && b.rows().end() <= r1 && b.cols().begin() >= c0 && b.cols().end() <= c1);
        CHECK(b.rows().grainsize() == range.rows().grainsize());
        for (std::int64_t i = b.rows().begin(); i < b.rows().end(); i++)
            for (std::int64_t j = b.cols().begin(); j < b.cols().end(); j++)
                hits[std::size_t((i - r0) * C + (j - c0))].fetch_add(1, std::memory_order_relaxed);
    }, o);
    for (std::size_t k = 0; k < hits.size(); k++)
        CHECK_MSG(hits[k].load(std::memory_order_relaxed) == 1, "cell (%lld, %lld) ran %d times",
                  (long long)(r0 + std::int64_t(k) / C), (long long)(c0 + std::int64_t(k) % C),
                  hits[k].load(std::memory_order_relaxed));
    long long want = 0;
    for (std::int64_t i = 0; i < R; i++)
        for (std::int64_t j = 0; j < C; j++) want += (i + 1) * 1000 + j;
    long long got = merino::parallel_reduce(range, 0LL, [&](const r2 &b, long long acc) {
        for (std::int64_t i = b.rows().begin(); i < b.rows().end(); i++)
            for (std::int64_t j = b.cols().begin(); j < b.cols().end(); j++) acc += (i - r0 + 1) * 1000 + (j - c0);
        return acc;
    }, std::plus<>(), o);
    CHECK_EQ_INT(got, want);
}

void check_3d(std::int64_t P, std::int64_t R, std::int64_t C, std::int64_t base, const merino::loop_options &o) {
    check_set_context("3-D %lld x %lld x %lld from %lld schedule=%s det=%d", (long long)P, (long long)R, (long long)C,
                      (long long)base, merino_schedule_name(o.schedule), o.deterministic);
    std::vector<std::atomic<int>> hits(std::size_t(P * R * C));
    r3 range(base, base + P, base, base + R, base, base + C);
    merino::parallel_for(range, [&](const r3 &b) {
        CHECK(!b.empty());
        for (std::int64_t p = b.pages().begin(); p < b.pages().end(); p++)
            for (std::int64_t i = b.rows().begin(); i < b.rows().end(); i++)
                for (std::int64_t j = b.cols().begin(); j < b.cols().end(); j++)
                    hits[std::size_t(((p - base) * R + (i - base)) * C + (j - base))].fetch_add(1, std::memory_order_relaxed);
    }, o);
    for (std::size_t k = 0; k < hits.size(); k++)
        CHECK_MSG(hits[k].load(std::memory_order_relaxed) == 1, "cell %zu ran %d times", k, hits[k].load(std::memory_order_relaxed));
    std::uint64_t cells = merino::parallel_reduce(range, std::uint64_t{0}, [](const r3 &b, std::uint64_t acc) {
        return acc + b.pages().size() * b.rows().size() * b.cols().size();
    }, std::plus<>(), o);
    CHECK_EQ_INT((long long)cells, (long long)(P * R * C));
}

// The boxes' order in a deterministic reduction is fixed: the same string every time.
void check_order(const merino::loop_options &o) {
    merino::loop_options d = o;
    d.deterministic = 1;
    auto boxes = [&] {
        return merino::parallel_reduce(r2(0, 300, 0, 500), std::string(), [](const r2 &b, std::string acc) {
            return acc + std::to_string(b.rows().begin()) + "," + std::to_string(b.cols().begin()) + ";";
        }, [](std::string a, const std::string &b) { return a + b; }, d);
    };
    std::string first = boxes();
    for (int rep = 0; rep < 3; rep++) CHECK(boxes() == first);
}

// Cut along the longer side; never below a grain the range is larger than.
void check_shapes(const merino::loop_options &o) {
    merino::parallel_for(r2(0, 2, 0, 100000), [](const r2 &b) { CHECK_EQ_INT((long long)b.rows().size(), 2); }, o);
    merino::parallel_for(r2(0, 100000, 0, 2), [](const r2 &b) { CHECK_EQ_INT((long long)b.cols().size(), 2); }, o);
    merino::parallel_for(r2(0, 1000, 64, 0, 1000, 100), [](const r2 &b) {
        CHECK(b.rows().size() >= 32 && b.cols().size() >= 50); // a piece longer than its grain is halved
    }, o);
}

void check_throw(const merino::loop_options &o) {
    bool caught = false;
    try {
        merino::parallel_for(r2(0, 100, 0, 100), [](const r2 &b) {
            if (b.rows().begin() <= 57 && 57 < b.rows().end() && b.cols().begin() <= 33 && 33 < b.cols().end())
                throw std::runtime_error("cell 57 33");
        }, o);
    } catch (const std::runtime_error &e) {
        caught = std::string(e.what()) == "cell 57 33";
    }
    CHECK(caught);
}

} // namespace

int main() {
    unsetenv("MERINO_SCHEDULE");
    const std::int64_t MAX = INT64_MAX;
    for (unsigned workers : {1u, 2u, 3u, 8u}) {
        merino::runtime rt(workers);
        for (const char *s : schedules)
            for (bool det : {false, true}) {
                merino::loop_options o = merino::loop_options::parse(s, det);
                check_2d(0, 0, 0, 10, 1, 1, o);
                check_2d(0, 10, 5, 5, 1, 1, o);
                check_2d(3, 1, 0, 10, 1, 1, o);
                check_2d(0, 1, 0, 1, 1, 1, o);
                check_2d(0, 2, 0, 2, 1, 1, o);
                check_2d(0, 1, 0, 777, 1, 1, o);
                check_2d(0, 777, 0, 1, 1, 1, o);
                check_2d(-50, 123, -7, 301, 1, 1, o);
                check_2d(-50, 123, -7, 301, 16, 5, o);
                check_2d(MAX - 40, MAX, MAX - 30, MAX, 1, 1, o);
                check_3d(0, 5, 5, 0, o);
                check_3d(1, 1, 1, 0, o);
                check_3d(2, 2, 2, -1, o);
                check_3d(7, 33, 65, -3, o);
                check_3d(40, 3, 2, MAX - 40, o);
                check_set_context("workers=%u schedule=%s det=%d shapes", workers, s, int(det));
                check_shapes(o);
                check_order(o);
                check_throw(o);
            }
    }
    std::puts("test_loop_ranges: ok");
    return 0;
}
