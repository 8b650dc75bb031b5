// stress_cxx.cpp — the C++ generator of the stress harness (tests/stress.c): random trees of
// merino::fork_join, run through merino::run (or a fork_join entered from outside the pool), and
// the same trees evaluated serially by a fork_join that calls both branches in order. Results and
// exceptions must agree: the value, or the node whose exception reached the top.
//
// A tree is a function of its seed. Each inner node forks two subtrees in one of several shapes:
// value/value, double/std::string, void/move-only std::unique_ptr, void/void, a fork_join nested
// in the second branch, and a first branch that throws after its subtree finished. Leaves (and
// those first branches) throw a node_error at a per-tree rate: none, rare, or often. fork_join
// rethrows the first branch's exception when both throw, only after both branches finished, so
// the serial evaluation below does the same.
#include <merino.hpp>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

namespace {

uint64_t mix(uint64_t h, uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebull;
    return h ^ (h >> 31);
}

uint64_t next(uint64_t &s) {
    s += 0x9e3779b97f4a7c15ull;
    return mix(s, 0x2545f4914f6cdd1dull);
}

constexpr int BUDGET_BITS = 20;
uint64_t node_of(uint64_t key, unsigned budget) {
    return ((key & ((1ull << (64 - BUDGET_BITS)) - 1)) << BUDGET_BITS) | budget;
}
unsigned budget_of(uint64_t node) { return (unsigned)(node & ((1u << BUDGET_BITS) - 1)); }
uint64_t key_of(uint64_t node) { return node >> BUDGET_BITS; }

uint64_t dbits(double d) {
    uint64_t u;
    std::memcpy(&u, &d, sizeof u);
    return u;
}
double dbl_of(uint64_t h) { return (double)(h >> 11) / 1024.0; }

// The exception a node throws; it carries the node, so the one that reached the top is known.
struct node_error {
    uint64_t node;
};

template <class R> using stored_t = std::conditional_t<std::is_void_v<R>, merino::unit, R>;

// (Not named `call`: merino.hpp calls its own detail::call unqualified, and ADL would find this one
// for lambdas defined in this file; reported with issue 4.)
template <class F> stored_t<std::invoke_result_t<F &>> call_branch(F &f) {
    if constexpr (std::is_void_v<std::invoke_result_t<F &>>) {
        f();
        return merino::unit{};
    } else {
        return f();
    }
}

// fork_join with merino's semantics, run serially: f, then g; f's exception first.
template <class F, class G> auto serial_fork_join(F &&f, G &&g) {
    using RF = std::invoke_result_t<F &>;
    using RG = std::invoke_result_t<G &>;
    std::optional<stored_t<RF>> a;
    std::optional<stored_t<RG>> b;
    std::exception_ptr ea, eb;
    try {
        a.emplace(call_branch(f));
    } catch (...) {
        ea = std::current_exception();
    }
    try {
        b.emplace(call_branch(g));
    } catch (...) {
        eb = std::current_exception();
    }
    if (ea) std::rethrow_exception(ea);
    if (eb) std::rethrow_exception(eb);
    if constexpr (std::is_void_v<RF> && std::is_void_v<RG>) {
        return;
    } else {
        return std::pair<stored_t<RF>, stored_t<RG>>(std::move(*a), std::move(*b));
    }
}

template <bool PAR, class F, class G> auto fj(F &&f, G &&g) {
    if constexpr (PAR)
        return merino::fork_join(std::forward<F>(f), std::forward<G>(g));
    else
        return serial_fork_join(std::forward<F>(f), std::forward<G>(g));
}

struct tree {
    unsigned rate;   // a leaf throws when (hash % 4096) < rate
    uint64_t *count; // nodes, counted by the serial evaluation only (the parallel one is concurrent)
};

template <bool PAR> uint64_t eval(const tree &t, uint64_t node) {
    if (t.count) ++*t.count;
    uint64_t s = node;
    unsigned budget = budget_of(node);
    uint64_t r = next(s);
    if (budget <= 1) {
        if ((r % 4096) < t.rate) throw node_error{node};
        uint64_t x = node;
        for (int i = 0; i < 8; i++) x = mix(x, (uint64_t)i); // a little work per leaf
        return x;
    }
    unsigned avail = budget - 1;
    if (avail == 1) {
        auto [a, b] = fj<PAR>([&] { return eval<PAR>(t, node_of(mix(key_of(node), 1), 1)); }, [] { return 7; });
        return mix(mix(node, a), (uint64_t)b);
    }
    unsigned lb = 1 + (unsigned)(next(s) % (avail - 1));
    uint64_t ln = node_of(mix(key_of(node), 1), lb);
    uint64_t rn = node_of(mix(key_of(node), 2), avail - lb);
    unsigned shape = (unsigned)(next(s) % 6);
    if (shape == 4 && avail - lb < 3) shape = 0;
    switch (shape) {
    case 0: {
        auto [a, b] = fj<PAR>([&] { return eval<PAR>(t, ln); }, [&] { return eval<PAR>(t, rn); });
        return mix(mix(node, a), b);
    }
    case 1: {
        auto [a, b] = fj<PAR>([&] { return dbl_of(eval<PAR>(t, ln)); },
                              [&] { return std::to_string(eval<PAR>(t, rn)); });
        return mix(mix(node, dbits(a)), std::stoull(b));
    }
    case 2: {
        uint64_t x = 0;
        auto [u, p] = fj<PAR>([&] { x = eval<PAR>(t, ln); },
                              [&] { return std::make_unique<uint64_t>(eval<PAR>(t, rn)); });
        static_assert(std::is_same_v<decltype(u), merino::unit>);
        return mix(mix(node, x), *p);
    }
    case 3: {
        uint64_t x = 0, y = 0;
        fj<PAR>([&] { x = eval<PAR>(t, ln); }, [&] { y = eval<PAR>(t, rn); });
        return mix(mix(node, x), y);
    }
    case 4: {
        // The second branch forks again: three subtrees.
        unsigned rb = avail - lb;
        unsigned b1 = 1 + (unsigned)(next(s) % (rb - 1));
        uint64_t r1 = node_of(mix(key_of(node), 3), b1), r2 = node_of(mix(key_of(node), 4), rb - b1);
        auto [a, b] = fj<PAR>([&] { return eval<PAR>(t, ln); },
                              [&] {
                                  auto [c, d] = fj<PAR>([&] { return eval<PAR>(t, r1); },
                                                        [&] { return eval<PAR>(t, r2); });
                                  return mix(c, d);
                              });
        return mix(mix(node, a), b);
    }
    default: {
        // The first branch throws after its subtree finished, while the second may still run.
        auto [a, b] = fj<PAR>(
            [&] {
                uint64_t v = eval<PAR>(t, ln);
                if (t.rate && (v % 4096) < t.rate * 8) throw node_error{node};
                return v;
            },
            [&] { return eval<PAR>(t, rn); });
        return mix(mix(node, a), b);
    }
    }
}

// What a tree came to: a value, or the node whose exception reached the top.
struct outcome {
    bool threw = false;
    uint64_t value = 0;
};

template <class F> outcome capture(F &&f, char *err, size_t errlen, int *bad) {
    outcome o;
    try {
        o.value = f();
    } catch (const node_error &e) {
        o.threw = true;
        o.value = e.node;
    } catch (const std::exception &e) {
        std::snprintf(err, errlen, "an unexpected exception reached the top: %s", e.what());
        *bad = 1;
    } catch (...) {
        std::snprintf(err, errlen, "an exception of an unexpected type reached the top");
        *bad = 1;
    }
    return o;
}

} // namespace

// Runs one tree of about `budget` nodes on the pool (from any thread, a worker or not) and
// serially; returns 0 if they agree, else writes what differs into err and returns 1. Adds the
// tree's nodes to *tasks.
extern "C" int stress_cxx_run(uint64_t seed, unsigned budget, uint64_t *tasks, char *err, size_t errlen) {
    uint64_t s = seed;
    static const unsigned rates[4] = {0, 0, 1, 40};
    tree serial{rates[next(s) % 4], nullptr};
    uint64_t root = node_of(next(s), budget < 1 ? 1 : budget);
    bool via_fork_join = next(s) % 4 == 0;
    uint64_t count = 0;
    serial.count = &count;
    int bad = 0;
    outcome want = capture([&] { return eval<false>(serial, root); }, err, errlen, &bad);
    if (bad) return 1;
    tree par{serial.rate, nullptr};
    outcome got;
    if (via_fork_join) {
        // fork_join from wherever we are: from a thread that is not a worker it enters the pool.
        got = capture(
            [&] {
                auto [v, seven] = merino::fork_join([&] { return eval<true>(par, root); }, [] { return 7; });
                if (seven != 7) throw std::runtime_error("the second branch returned a wrong value");
                return v;
            },
            err, errlen, &bad);
    } else {
        got = capture([&] { return merino::run([&] { return eval<true>(par, root); }); }, err, errlen, &bad);
    }
    if (bad) return 1;
    *tasks += count;
    if (got.threw != want.threw || got.value != want.value) {
        std::snprintf(err, errlen, "%s (rate %u, %s): parallel %s %#llx, serial %s %#llx",
                      "results differ", serial.rate, via_fork_join ? "fork_join" : "run",
                      got.threw ? "threw at node" : "returned", (unsigned long long)got.value,
                      want.threw ? "threw at node" : "returned", (unsigned long long)want.value);
        return 1;
    }
    return 0;
}
