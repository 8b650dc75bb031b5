// test_loop_exceptions.cpp — loops fail as the serial loop does (docs/guarantees.md, "Failures in
// serial order"): the exception rethrown is the one of the earliest throwing position, every
// position before it has run, and none ran twice — for parallel_for per position and per sub-range,
// stepped loops, parallel_reduce and parallel_for_each over a std::list, under every schedule, plain
// and deterministic, at 1, 2, 3 and 8 workers. Late positions throw at once while the early ones
// are slow, so that a loop which kept the first exception to happen, or stopped the positions
// before it, gets caught. Random thrower sets (replayable with MERINO_TEST_SEED).
#include "check.h"

#include <merino_loop.hpp>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <list>
#include <random>
#include <vector>

namespace {

// Every schedule, with and without a chunk (as tests/loop_test.h lists them for C).
const char *const loop_schedules[] = {"auto",     "adaptive", "adaptive,3", "static", "static,1", "static,3",
                                      "dynamic",  "dynamic,7", "guided",    "guided,5", "steal",   "steal,2",
                                      "idws",     "idws,4",    "idws-poll", "idws-poll,3"};

struct thrown {
    long at;
};

// One scene: n positions, throwers at `first` and at many late positions.
struct scene {
    long n, first;
    std::vector<char> throws;
    std::vector<std::atomic<int>> ran;

    scene(long n_, std::mt19937_64 &rng) : n(n_), throws(n_), ran(n_) {
        first = long(rng() % std::uint64_t(n / 2));
        throws[first] = 1;
        for (long i = first + 1; i < n; i++)
            if (i >= n / 2 ? rng() % 64 == 0 : rng() % 1024 == 0) throws[i] = 1;
        throws[n / 2] = throws[n - 1] = 1;
    }
    // Position i of the serial loop: counted, then thrown or (early positions) slowed down.
    void visit(long i) {
        ran[i].fetch_add(1, std::memory_order_relaxed); // relaxed: read after the loop returns
        if (throws[i]) throw thrown{i};
        if (i < n / 2)
            for (volatile int k = 0; k < 200; k++) {
            }
    }
    void check(long got, const char *what) {
        CHECK_MSG(got == first, "%s: rethrew the exception of position %ld, the serial loop's is %ld", what, got,
                  first);
        for (long i = 0; i < n; i++) {
            int r = ran[i].load(std::memory_order_relaxed);
            CHECK_MSG(r <= 1, "%s: position %ld ran %d times", what, i, r);
            CHECK_MSG(i > first || r == 1, "%s: position %ld, before the thrower %ld, did not run", what, i, first);
        }
    }
};

template <class Loop> void play(const char *what, long n, std::mt19937_64 &rng, Loop &&loop) {
    scene s(n, rng);
    long got = -1;
    try {
        loop(s);
    } catch (const thrown &t) {
        got = t.at;
    }
    s.check(got, what);
}

void check_schedule(const merino::loop_options &o, std::mt19937_64 &rng) {
    const long n = 6000;
    play("per position", n, rng, [&](scene &s) { merino::parallel_for(0L, s.n, [&](long i) { s.visit(i); }, o); });
    play("per sub-range", n, rng, [&](scene &s) {
        merino::parallel_for(0L, s.n, [&](long lo, long hi) {
            for (long i = lo; i < hi; i++) s.visit(i);
        }, o);
    });
    play("stepped (3, from the top down)", n, rng, [&](scene &s) {
        // positions 3(n-1), ..., 3, 0: iteration k is position n - 1 - k
        merino::parallel_for(3 * (s.n - 1), -1L, -3L, [&](long x) { s.visit(s.n - 1 - x / 3); }, o);
    });
    play("reduce per position", n, rng, [&](scene &s) {
        merino::parallel_reduce(0L, s.n, 0L, [&](long i) { s.visit(i); return i; }, std::plus<>(), o);
    });
    play("reduce per sub-range", n, rng, [&](scene &s) {
        merino::parallel_reduce(0L, s.n, 0L, [&](long lo, long hi, long acc) {
            for (long i = lo; i < hi; i++) s.visit(i), acc += i;
            return acc;
        }, std::plus<>(), o);
    });
}

void check_for_each(const merino::loop_options &o, std::mt19937_64 &rng) {
    const long n = 3000;
    std::list<long> items;
    for (long i = 0; i < n; i++) items.push_back(i);
    play("for_each over a list", n, rng, [&](scene &s) {
        merino::parallel_for_each(items.begin(), items.end(), [&](long i) { s.visit(i); }, o);
    });
    // With a feeder: the list holds the even positions, each of which adds its odd successor
    // before it runs. An added item ranks with the item that added it: the serial order is still
    // 0, 1, 2, ...
    play("for_each with a feeder", n, rng, [&](scene &s) {
        std::list<long> evens;
        for (long i = 0; i < s.n; i += 2) evens.push_back(i);
        merino::parallel_for_each(evens.begin(), evens.end(), [&](long i, merino::feeder<long> &f) {
            if (i % 2 == 0 && i + 1 < s.n) f.add(i + 1);
            s.visit(i);
        }, o);
    });
}

} // namespace

int main() {
    unsetenv("MERINO_SCHEDULE");
    unsigned long long seed;
    if (!check_env_seed(&seed)) seed = std::random_device{}();
    check_set_seed(seed);
    std::printf("test_loop_exceptions: seed %llu (MERINO_TEST_SEED replays it)\n", seed);
    std::mt19937_64 rng(seed);
    for (unsigned workers : {1u, 2u, 3u, 8u}) {
        merino::runtime rt(workers);
        for (const char *s : loop_schedules)
            for (bool det : {false, true}) {
                check_set_context("workers=%u schedule=%s deterministic=%d", workers, s, int(det));
                merino::loop_options o = merino::loop_options::parse(s, det);
                check_schedule(o, rng);
            }
        check_set_context("workers=%u for_each", workers);
        check_for_each(merino::loop_options(), rng);
        check_for_each(merino::loop_options().limit(2), rng);
    }
    std::puts("test_loop_exceptions: ok");
    return 0;
}
