// test_algo_pipeline.cpp — merino::parallel_pipeline at 1, 2, 3 and 8 workers and 1 to 64 tokens:
// read / transform / write in order gives the serial program's output; values that own memory
// (std::string, std::unique_ptr) are moved from filter to filter and every one is destroyed once;
// serial filters never run two items at once; never more than max_tokens items in flight; the
// input stops early (flow_control::stop at once, after one item, after many); an exception thrown in
// any filter at any item reaches the caller, the items before it still reach the end, in order, and
// none after it does; the earliest of several throwing items wins; a void-to-void single filter;
// bad arguments throw std::invalid_argument. Random choices print their seed (MERINO_TEST_SEED).
#include "algo_check.h"

#include <merino_algorithm.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

std::mt19937_64 rng;

struct boom {
    long at;
    int stage;
};

// A value that counts the live ones, so that a leak or a double destruction shows.
std::atomic<long> live_values{0};
struct tracked {
    long v;
    explicit tracked(long x) : v(x) { live_values.fetch_add(1, std::memory_order_relaxed); }
    tracked(tracked &&o) noexcept : v(o.v) { live_values.fetch_add(1, std::memory_order_relaxed); }
    tracked(const tracked &o) : v(o.v) { live_values.fetch_add(1, std::memory_order_relaxed); }
    ~tracked() { live_values.fetch_sub(1, std::memory_order_relaxed); }
};

// What a run observed (relaxed counters: read after the pipeline has returned).
struct watch {
    std::atomic<int> in_flight{0}, max_in_flight{0};
    std::atomic<int> busy_mid{0}, overlap{0};
    void enter() {
        int v = in_flight.fetch_add(1, std::memory_order_relaxed) + 1;
        int m = max_in_flight.load(std::memory_order_relaxed);
        while (v > m && !max_in_flight.compare_exchange_weak(m, v, std::memory_order_relaxed)) {
        }
    }
    void leave() { in_flight.fetch_sub(1, std::memory_order_relaxed); }
};

const std::size_t token_counts[] = {1, 2, 3, 8, 64};

// read (serial in order) -> square into a string (parallel) -> tag (serial out of order) -> write
// (serial in order). throw_stage / throw_at: the filter and the item that throw (-1: none).
void check_chain(unsigned workers, std::size_t tokens, long n, int throw_stage, long throw_at) {
    check_set_context("workers=%u tokens=%zu n=%ld throw at stage %d item %ld", workers, tokens, n, throw_stage,
                      throw_at);
    watch w;
    std::vector<long> out;
    long next = 0;
    bool threw = false;
    try {
        merino::parallel_pipeline(
            tokens,
            merino::make_filter<void, tracked>(merino::filter_mode::serial_in_order,
                                               [&](merino::flow_control &fc) {
                                                   if (next == n) {
                                                       fc.stop();
                                                       return tracked(-1);
                                                   }
                                                   if (throw_stage == 0 && next == throw_at) throw boom{next, 0};
                                                   w.enter();
                                                   return tracked(next++);
                                               }) &
                merino::make_filter<tracked, std::unique_ptr<std::string>>(
                    merino::filter_mode::parallel,
                    [&](tracked t) {
                        if (throw_stage == 1 && t.v == throw_at) throw boom{t.v, 1};
                        return std::make_unique<std::string>(std::to_string(t.v * t.v));
                    }) &
                merino::make_filter<std::unique_ptr<std::string>, std::string>(
                    merino::filter_mode::serial_out_of_order,
                    [&](std::unique_ptr<std::string> s) {
                        if (w.busy_mid.fetch_add(1, std::memory_order_relaxed) != 0)
                            w.overlap.store(1, std::memory_order_relaxed);
                        std::string r = *s + "!";
                        w.busy_mid.fetch_sub(1, std::memory_order_relaxed);
                        if (throw_stage == 2 && std::stol(*s) == throw_at * throw_at) throw boom{throw_at, 2};
                        return r;
                    }) &
                merino::make_filter<std::string, void>(merino::filter_mode::serial_in_order, [&](std::string s) {
                    long v = std::stol(s.substr(0, s.size() - 1));
                    w.leave();
                    if (throw_stage == 3 && v == throw_at * throw_at) throw boom{throw_at, 3};
                    out.push_back(v);
                }));
    } catch (const boom &b) {
        threw = true;
        CHECK_EQ_INT(b.at, throw_at);
        CHECK_EQ_INT(b.stage, throw_stage);
    }
    bool throws = throw_stage >= 0 && throw_at < n;
    CHECK_EQ_INT(threw, throws);
    long reached = throws ? throw_at : n; // the serial program's output: every item before the throw
    CHECK_EQ_UINT(out.size(), static_cast<std::size_t>(reached));
    for (long i = 0; i < reached && i < static_cast<long>(out.size()); i++) CHECK_EQ_INT(out[i], i * i);
    CHECK_EQ_INT(w.overlap.load(), 0);
    CHECK_MSG(w.max_in_flight.load() <= static_cast<int>(tokens), "%d items in flight with %zu tokens",
              w.max_in_flight.load(), tokens);
    CHECK_EQ_INT(live_values.load(), 0);
}

void check_chains(unsigned workers) {
    for (std::size_t tokens : token_counts) {
        for (long n : {0L, 1L, 2L, 3L, 1000L}) check_chain(workers, tokens, n, -1, -1);
        for (int stage = 0; stage < 4; stage++)
            for (long at : {0L, 1L, 57L, 999L}) check_chain(workers, tokens, 1000, stage, at);
    }
    for (int round = 0; round < 40; round++) {
        long n = static_cast<long>(rng() % 3000);
        check_chain(workers, token_counts[rng() % 5], n, static_cast<int>(rng() % 5) - 1,
                    n ? static_cast<long>(rng() % static_cast<std::uint64_t>(n)) : 0);
    }
}

// Several items throw: the earliest one's exception is the one the caller gets.
void check_earliest(unsigned workers) {
    for (std::size_t tokens : token_counts) {
        check_set_context("workers=%u tokens=%zu earliest", workers, tokens);
        long next = 0;
        std::atomic<long> last_seen{-1};
        try {
            merino::parallel_pipeline(
                tokens,
                merino::make_filter<void, long>(merino::filter_mode::serial_in_order,
                                                [&](merino::flow_control &fc) {
                                                    if (next == 500) fc.stop();
                                                    return next++;
                                                }) &
                    merino::make_filter<long, long>(merino::filter_mode::parallel,
                                                    [&](long v) {
                                                        // the later items throw sooner
                                                        if (v >= 100 && v % 10 == 0) {
                                                            std::this_thread::sleep_for(
                                                                std::chrono::microseconds(v < 150 ? 300 : 0));
                                                            throw boom{v, 1};
                                                        }
                                                        return v;
                                                    }) &
                    merino::make_filter<long, void>(merino::filter_mode::serial_in_order, [&](long v) {
                        CHECK(v > last_seen.load(std::memory_order_relaxed));
                        last_seen.store(v, std::memory_order_relaxed);
                    }));
            CHECK_MSG(false, "no exception reached the caller");
        } catch (const boom &b) {
            CHECK_EQ_INT(b.at, 100);
        }
        CHECK_EQ_INT(last_seen.load(), 99);
    }
}

// A single filter from void to void; a filter made once and used in two pipelines.
void check_small(unsigned workers) {
    check_set_context("workers=%u small", workers);
    for (std::size_t tokens : token_counts) {
        int calls = 0;
        merino::parallel_pipeline(tokens, merino::make_filter<void, void>(merino::filter_mode::serial_in_order,
                                                                          [&](merino::flow_control &fc) {
                                                                              if (++calls == 10) fc.stop();
                                                                          }));
        CHECK_EQ_INT(calls, 10);
    }
    std::atomic<long> sum{0};
    auto square = merino::make_filter<long, long>(merino::filter_mode::parallel, [](long v) { return v * v; });
    auto add = merino::make_filter<long, void>(merino::filter_mode::parallel,
                                               [&](long v) { sum.fetch_add(v, std::memory_order_relaxed); });
    for (int twice = 0; twice < 2; twice++) {
        long next = 0;
        merino::parallel_pipeline(4, merino::make_filter<void, long>(merino::filter_mode::serial_out_of_order,
                                                                     [&](merino::flow_control &fc) {
                                                                         if (next == 100) fc.stop();
                                                                         return next++;
                                                                     }) &
                                         square & add);
    }
    CHECK_EQ_INT(sum.load(), 2 * 328350); // 2 * sum of k^2 for k < 100
}

// The parallel filter does run items at once with two workers and tokens to spare.
void check_overlap(unsigned workers) {
    if (workers < 2) return;
    check_set_context("workers=%u overlap", workers);
    std::atomic<int> in{0}, most{0};
    // runs until one overlaps, for up to 20 s, as test_algo_pipeline_c's check_overlap
    for (double until = check_now() + 20; most.load() < 2 && check_now() < until;) {
        long next = 0;
        merino::parallel_pipeline(
            8,
            merino::make_filter<void, long>(merino::filter_mode::serial_in_order,
                                            [&](merino::flow_control &fc) {
                                                if (next == 300) fc.stop();
                                                return next++;
                                            }) &
                merino::make_filter<long, void>(merino::filter_mode::parallel, [&](long) {
                    int v = in.fetch_add(1, std::memory_order_relaxed) + 1;
                    int m = most.load(std::memory_order_relaxed);
                    while (v > m && !most.compare_exchange_weak(m, v, std::memory_order_relaxed)) {
                    }
                    std::this_thread::sleep_for(std::chrono::microseconds(50));
                    in.fetch_sub(1, std::memory_order_relaxed);
                }));
    }
    CHECK_MSG(most.load() >= 2, "the parallel filter never ran two items at once with %u workers", workers);
}

void check_bad_input() {
    bool threw = false;
    try {
        merino::parallel_pipeline(0, merino::make_filter<void, void>(merino::filter_mode::parallel,
                                                                     [](merino::flow_control &fc) { fc.stop(); }));
    } catch (const std::invalid_argument &e) {
        threw = true;
        CHECK_STR_CONTAINS(e.what(), "max_tokens is 0");
    }
    CHECK(threw);
    threw = false;
    try {
        merino::parallel_pipeline(4, merino::filter<void, void>());
    } catch (const std::invalid_argument &e) {
        threw = true;
        CHECK_STR_CONTAINS(e.what(), "empty");
    }
    CHECK(threw);
}

} // namespace

int main(int argc, char **argv) {
    auto setup = [](unsigned long long seed) {
        rng.seed(seed);
        check_bad_input();
    };
    auto at_workers = [](unsigned workers) {
        check_chains(workers);
        check_earliest(workers);
        check_small(workers);
        check_overlap(workers);
    };
    return algo_test_main(argc, argv, "test_algo_pipeline", nullptr, setup, at_workers);
}
