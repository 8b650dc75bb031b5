// merino_loop.hpp — merino's parallel loops for C++17: parallel_for, parallel_for_each and
// parallel_reduce, over the C loops of merino_loop.h.
//
//     merino::parallel_for(0, n, [&](int i) { y[i] += a * x[i]; });            // per index
//     merino::parallel_for(0, n, [&](int lo, int hi) {                          // per sub-range
//         for (int i = lo; i < hi; i++) y[i] += a * x[i];
//     });
//     merino::parallel_for_each(v.begin(), v.end(), [](double &e) { e = std::sqrt(e); });
//     double s = merino::parallel_reduce(0, n, 0.0,
//         [&](int lo, int hi, double acc) { for (int i = lo; i < hi; i++) acc += x[i]; return acc; },
//         std::plus<>());
//
// Ranges are [first, last) of an integral type or of random-access iterators; a body that can be
// called with two positions gets sub-ranges, else one position at a time. Every call may come from
// anywhere: the main program, other threads, tasks, fork_join branches, other loops' bodies.
//
// Exceptions: an exception thrown by a body (or a combine) reaches the caller of the loop, after
// every sub-range in progress has returned; the rest of the loop is abandoned (merino hands out no
// more sub-ranges, and a per-position body stops at its next block of 1024 positions). When several
// bodies throw, the caller gets the exception of the first sub-range in iteration order among
// them, and the others are dropped.
#ifndef MERINO_LOOP_HPP
#define MERINO_LOOP_HPP

#include "merino.hpp"
#include "merino_loop.h"

#include <cstddef>
#include <cstdint>
#include <exception>
#include <iterator>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace merino {

/// A loop's options: merino_for_opts with constructors (the default: MERINO_SCHEDULE, else auto).
/// Its `stop` field is not used by the C++ loops, which stop on an exception by themselves.
struct loop_options : merino_for_opts {
    loop_options() noexcept : merino_for_opts{} {}
    explicit loop_options(merino_schedule s, std::int64_t chunk = 0, bool deterministic = false) noexcept
        : merino_for_opts{} {
        schedule = s;
        this->chunk = chunk;
        this->deterministic = deterministic ? 1 : 0;
    }
    /// From text as MERINO_SCHEDULE takes it ("dynamic,16"); throws std::invalid_argument.
    static loop_options parse(const char *text, bool deterministic = false) {
        loop_options o;
        if (merino_schedule_parse(text, &o) != 0) throw std::invalid_argument(merino_last_error());
        o.deterministic = deterministic ? 1 : 0;
        return o;
    }
};

namespace detail {

// The exceptions of one loop: the first in iteration order is kept, and a flag (the loop's
// merino_for_opts.stop) makes merino skip the sub-ranges not yet begun.
class loop_errors {
public:
    bool stopped() const noexcept {
        return __atomic_load_n(&stop_, __ATOMIC_RELAXED) != 0; // relaxed: a hint; the error is under the lock
    }
    // The options of the loop, with its stop flag.
    merino_for_opts with_stop(const merino_for_opts &o) const noexcept {
        merino_for_opts out = o;
        out.stop = &stop_;
        return out;
    }
    void capture(std::int64_t at) noexcept {
        std::lock_guard<std::mutex> hold(lock_);
        if (!error_ || at < at_) {
            at_ = at;
            error_ = std::current_exception();
        }
        __atomic_store_n(&stop_, 1, __ATOMIC_RELAXED); // relaxed: a hint, as above
    }
    // After the loop (its joins order every capture before this).
    void rethrow() const {
        if (error_) std::rethrow_exception(error_);
    }

private:
    int stop_ = 0; // atomic (merino reads it with relaxed loads)
    std::mutex lock_;
    std::exception_ptr error_;
    std::int64_t at_ = 0;
};

// How positions of type P map to the int64_t indices the C loop runs over: integral types map to
// themselves when they fit int64_t, else (unsigned ranges past INT64_MAX, iterators) to offsets
// from first.
template <class P> struct positions {
    P first;
    bool offsets;
    std::int64_t begin, end;

    positions(P f, P l) : first(f) {
        if constexpr (std::is_integral_v<P>) {
            if (!(f < l)) {
                offsets = false, begin = end = 0;
            } else if (std::is_signed_v<P> || static_cast<std::uint64_t>(l) <= INT64_MAX) {
                offsets = false, begin = static_cast<std::int64_t>(f), end = static_cast<std::int64_t>(l);
            } else {
                std::uint64_t n = static_cast<std::uint64_t>(l) - static_cast<std::uint64_t>(f);
                if (n > static_cast<std::uint64_t>(INT64_MAX))
                    throw std::length_error("merino: a loop over more than INT64_MAX positions: split it in two");
                offsets = true, begin = 0, end = static_cast<std::int64_t>(n);
            }
        } else {
            static_assert(std::is_base_of_v<std::random_access_iterator_tag,
                                            typename std::iterator_traits<P>::iterator_category>,
                          "merino: loops take integral positions or random-access iterators");
            auto n = l - f;
            offsets = true, begin = 0, end = n > 0 ? static_cast<std::int64_t>(n) : 0;
        }
    }

    P at(std::int64_t i) const {
        if constexpr (std::is_integral_v<P>) {
            return offsets ? static_cast<P>(static_cast<std::uint64_t>(first) + static_cast<std::uint64_t>(i))
                           : static_cast<P>(i);
        } else {
            return first + static_cast<typename std::iterator_traits<P>::difference_type>(i);
        }
    }
};

constexpr std::int64_t block = 1024; // per-position bodies check for an exception this often

// Runs f over [lo, hi): as one sub-range, or position by position.
template <class P, class F> void run_range(const positions<P> &pos, F &f, std::int64_t lo, std::int64_t hi,
                                           const loop_errors &err) {
    if constexpr (std::is_invocable_v<F &, P, P>) {
        f(pos.at(lo), pos.at(hi));
    } else {
        static_assert(std::is_invocable_v<F &, P>,
                      "merino::parallel_for: the body takes one position, or two (a sub-range)");
        for (std::int64_t b = lo; b < hi; b += block) {
            if (b != lo && err.stopped()) return;
            std::int64_t e = hi - b > block ? b + block : hi;
            for (std::int64_t i = b; i < e; i++) f(pos.at(i));
        }
    }
}

template <class P, class F> struct for_ctx {
    positions<P> pos;
    F *f;
    loop_errors err;
};

template <class P, class F> void for_body(std::int64_t lo, std::int64_t hi, void *c) noexcept {
    auto *x = static_cast<for_ctx<P, F> *>(c);
    if (x->err.stopped()) return;
    try {
        run_range(x->pos, *x->f, lo, hi, x->err);
    } catch (...) {
        x->err.capture(lo);
    }
}

template <class P, class T, class F, class C> struct reduce_ctx {
    positions<P> pos;
    const T *identity;
    F *f;
    C *combine;
    loop_errors err;
};

template <class T> T &partial(void *p) noexcept { return *std::launder(static_cast<T *>(p)); }

// The hooks merino_reduce calls. A copy of the identity must not throw (std::terminate).
template <class P, class T, class F, class C> struct reduce_hooks {
    using ctx = reduce_ctx<P, T, F, C>;
    static void init(void *acc, void *c) noexcept { ::new (acc) T(*static_cast<ctx *>(c)->identity); }
    static void destroy(void *acc, void *) noexcept { partial<T>(acc).~T(); }
    static void body(std::int64_t lo, std::int64_t hi, void *acc, void *c) noexcept {
        auto *x = static_cast<ctx *>(c);
        if (x->err.stopped()) return;
        T &a = partial<T>(acc);
        try {
            if constexpr (std::is_invocable_v<F &, P, P, T>) {
                a = (*x->f)(x->pos.at(lo), x->pos.at(hi), std::move(a));
            } else {
                static_assert(std::is_invocable_v<F &, P>,
                              "merino::parallel_reduce: the body takes (first, last, partial) and returns the "
                              "new partial, or takes one position and returns its value");
                for (std::int64_t i = lo; i < hi; i++) {
                    if ((i - lo) % block == 0 && i != lo && x->err.stopped()) return;
                    a = (*x->combine)(std::move(a), (*x->f)(x->pos.at(i)));
                }
            }
        } catch (...) {
            x->err.capture(lo);
        }
    }
    static void combine(void *acc, const void *right, void *c) noexcept {
        auto *x = static_cast<ctx *>(c);
        if (x->err.stopped()) return;
        try {
            T &a = partial<T>(acc);
            a = (*x->combine)(std::move(a), std::move(partial<T>(const_cast<void *>(right))));
        } catch (...) {
            x->err.capture(INT64_MAX); // after every body's exception
        }
    }
};

} // namespace detail

/// Runs body over [first, last) in parallel: body(lo, hi) for sub-ranges, or body(i) for each
/// position. Positions: an integral type, or random-access iterators. Returns when all have run;
/// rethrows the first exception in iteration order (see the top of this header).
template <class P, class F> void parallel_for(P first, P last, F &&body, const loop_options &opts = {}) {
    using Fn = std::remove_reference_t<F>;
    detail::for_ctx<P, Fn> c{detail::positions<P>(first, last), &body, {}};
    merino_for_opts o = c.err.with_stop(opts);
    merino_for(c.pos.begin, c.pos.end, &detail::for_body<P, Fn>, &c, &o);
    c.err.rethrow();
}

/// The same with integral bounds of two types (parallel_for(0, v.size(), ...)): positions of
/// their common type.
template <class A, class B, class F,
          std::enable_if_t<std::is_integral_v<A> && std::is_integral_v<B> && !std::is_same_v<A, B>, int> = 0>
void parallel_for(A first, B last, F &&body, const loop_options &opts = {}) {
    using P = std::common_type_t<A, B>;
    parallel_for(static_cast<P>(first), static_cast<P>(last), std::forward<F>(body), opts);
}

/// body(*it) for every it in [first, last) (random-access iterators), in parallel.
template <class It, class F> void parallel_for_each(It first, It last, F &&body, const loop_options &opts = {}) {
    parallel_for(first, last, [&body](It it) { body(*it); }, opts);
}

/// body(e) for every element e of a container with random-access iterators, in parallel.
template <class Range, class F> void parallel_for_each(Range &&range, F &&body, const loop_options &opts = {}) {
    using std::begin, std::end;
    parallel_for_each(begin(range), end(range), std::forward<F>(body), opts);
}

#if defined(_OPENMP)
/// merino_for_omp for C++ (merino_loop.h): called by EVERY thread of an enclosing
/// `#pragma omp parallel` region, runs body over [first, last) on the region's threads, balanced by
/// interrupt-driven work sharing (schedule idws unless opts says otherwise). first, last and opts
/// must be the same on every thread; body is each thread's own (it may capture thread-private
/// partials). Returns on every thread when all positions have run (a barrier). An exception
/// thrown by a body is rethrown, after the loop, on the thread whose body threw it (which runs no
/// more of the sub-ranges it is given); the other threads go on with the loop. Exists where this
/// header is compiled with OpenMP (-fopenmp).
template <class P, class F> void omp_parallel_for(P first, P last, F &&body, const loop_options &opts = {}) {
    using Fn = std::remove_reference_t<F>;
    detail::for_ctx<P, Fn> c{detail::positions<P>(first, last), &body, {}};
    merino_for_opts o = opts;
    merino_for_omp(c.pos.begin, c.pos.end, &detail::for_body<P, Fn>, &c, &o);
    c.err.rethrow();
}

/// The same with integral bounds of two types: positions of their common type.
template <class A, class B, class F,
          std::enable_if_t<std::is_integral_v<A> && std::is_integral_v<B> && !std::is_same_v<A, B>, int> = 0>
void omp_parallel_for(A first, B last, F &&body, const loop_options &opts = {}) {
    using P = std::common_type_t<A, B>;
    omp_parallel_for(static_cast<P>(first), static_cast<P>(last), std::forward<F>(body), opts);
}
#endif

/// Reduces [first, last): body(lo, hi, partial) folds a sub-range into a partial and returns it
/// (or body(i) returns the value of one position); combine(a, b) returns a (+) b for a partial a
/// before b in iteration order. Each partial starts as a copy of identity (the copy must not
/// throw). combine must be associative, and commutative too unless opts.deterministic is set (which
/// also makes the result the same bits at any worker count and schedule). T: at most
/// MERINO_REDUCE_MAX_SIZE bytes and fundamental alignment (hold larger data by pointer).
template <class P, class T, class F, class C>
T parallel_reduce(P first, P last, T identity, F &&body, C &&combine, const loop_options &opts = {}) {
    static_assert(sizeof(T) <= MERINO_REDUCE_MAX_SIZE,
                  "merino::parallel_reduce: partials are at most MERINO_REDUCE_MAX_SIZE bytes: reduce into "
                  "something smaller (a pointer, a std::vector)");
    static_assert(alignof(T) <= alignof(std::max_align_t),
                  "merino::parallel_reduce: partials need fundamental alignment");
    using Fn = std::remove_reference_t<F>;
    using Cn = std::remove_reference_t<C>;
    using hooks = detail::reduce_hooks<P, T, Fn, Cn>;
    detail::reduce_ctx<P, T, Fn, Cn> c{detail::positions<P>(first, last), &identity, &body, &combine, {}};
    merino_reducer r{};
    r.size = sizeof(T);
    r.body = &hooks::body;
    r.combine = &hooks::combine;
    r.init = &hooks::init;
    r.destroy = &hooks::destroy;
    alignas(T) unsigned char result[sizeof(T)];
    merino_for_opts o = c.err.with_stop(opts);
    merino_reduce(c.pos.begin, c.pos.end, result, &r, &c, &o);
    T &got = detail::partial<T>(result);
    T out(std::move(got));
    got.~T();
    c.err.rethrow();
    return out;
}

/// The same with integral bounds of two types: positions of their common type.
template <class A, class B, class T, class F, class C,
          std::enable_if_t<std::is_integral_v<A> && std::is_integral_v<B> && !std::is_same_v<A, B>, int> = 0>
T parallel_reduce(A first, B last, T identity, F &&body, C &&combine, const loop_options &opts = {}) {
    using P = std::common_type_t<A, B>;
    return parallel_reduce(static_cast<P>(first), static_cast<P>(last), std::move(identity), std::forward<F>(body),
                           std::forward<C>(combine), opts);
}

} // namespace merino

#endif // MERINO_LOOP_HPP
