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
// called with two positions gets sub-ranges, else one position at a time. parallel_for also takes a
// step (per position), and 2-D and 3-D ranges (merino::range2d, merino::range3d, with parallel_reduce
// too); parallel_for_each takes any input iterators and a body that may add items (merino::feeder).
// Every call may come from anywhere: the main program, other threads, tasks, fork_join branches,
// other loops' bodies.
//
// Exceptions follow the serial program (docs/guarantees.md, "Failures in serial order"): the caller
// gets the exception the serial loop would have thrown first — of the earliest position in
// iteration order among those that threw — after every iteration before it has run; the iterations
// after it that have not begun are cancelled (a per-position body stops at its next block of 1024
// positions), and the other exceptions are dropped.
#ifndef MERINO_LOOP_HPP
#define MERINO_LOOP_HPP

#include "merino.hpp"
#include "merino_loop.h"

#include <condition_variable>
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
#include <vector>

namespace merino {

/// A loop's options: merino_for_opts with constructors (the default: MERINO_SCHEDULE, else auto).
/// Its `stop` and `stop_at` fields are not used by the C++ loops, which stop on an exception by
/// themselves. `max_workers` (0: no limit) bounds the workers that run the loop at a time.
struct loop_options : merino_for_opts {
    loop_options() noexcept : merino_for_opts{} {}
    explicit loop_options(merino_schedule s, std::int64_t chunk = 0, bool deterministic = false) noexcept
        : merino_for_opts{} {
        schedule = s;
        this->chunk = chunk;
        this->deterministic = deterministic ? 1 : 0;
    }
    /// These options with at most n workers running the loop at a time (0: no limit).
    loop_options &limit(int n) noexcept {
        max_workers = n;
        return *this;
    }
    /// From text as MERINO_SCHEDULE takes it ("dynamic,16"); throws std::invalid_argument.
    static loop_options parse(const char *text, bool deterministic = false) {
        loop_options o;
        if (merino_schedule_parse(text, &o) != 0) throw std::invalid_argument(merino_last_error());
        o.deterministic = deterministic ? 1 : 0;
        return o;
    }
};

/// The integers [begin, end) of type T, with a grain (the size below which it is not cut; at
/// least 1), as a dimension of range2d and range3d (oneTBB's blocked_range, integral values).
template <class T> class blocked_range {
    static_assert(std::is_integral_v<T>, "merino::blocked_range: an integral type");

public:
    using value_type = T;
    blocked_range() noexcept : begin_(), end_(), grain_(1) {}
    blocked_range(T begin, T end, std::size_t grainsize = 1) noexcept
        : begin_(begin), end_(end), grain_(grainsize ? grainsize : 1) {}
    T begin() const noexcept { return begin_; }
    T end() const noexcept { return end_; }
    /// The number of values (0 when end <= begin), up to 2^64 - 1.
    std::uint64_t size() const noexcept {
        return begin_ < end_ ? static_cast<std::uint64_t>(end_) - static_cast<std::uint64_t>(begin_) : 0;
    }
    std::size_t grainsize() const noexcept { return grain_; }
    bool empty() const noexcept { return !(begin_ < end_); }
    bool is_divisible() const noexcept { return size() > grain_; }

private:
    T begin_, end_;
    std::size_t grain_;
};

/// A 2-D range: rows x cols, for parallel_for and parallel_reduce (oneTBB's blocked_range2d). Cut by
/// halving the side whose pieces are longer relative to its grain, while a piece is longer than
/// its grain.
template <class T = std::int64_t> class range2d {
public:
    using value_type = T;
    static constexpr int dims = 2;
    range2d(T row_begin, T row_end, T col_begin, T col_end) noexcept
        : rows_(row_begin, row_end), cols_(col_begin, col_end) {}
    range2d(T row_begin, T row_end, std::size_t row_grain, T col_begin, T col_end, std::size_t col_grain) noexcept
        : rows_(row_begin, row_end, row_grain), cols_(col_begin, col_end, col_grain) {}
    range2d(const blocked_range<T> &rows, const blocked_range<T> &cols) noexcept : rows_(rows), cols_(cols) {}
    const blocked_range<T> &rows() const noexcept { return rows_; }
    const blocked_range<T> &cols() const noexcept { return cols_; }
    bool empty() const noexcept { return rows_.empty() || cols_.empty(); }
    /// Dimension d: 0 rows, 1 cols.
    const blocked_range<T> &dim(int d) const noexcept { return d == 0 ? rows_ : cols_; }
    static range2d of(const blocked_range<T> *d) noexcept { return range2d(d[0], d[1]); }

private:
    blocked_range<T> rows_, cols_;
};

/// A 3-D range: pages x rows x cols (oneTBB's blocked_range3d), cut as range2d.
template <class T = std::int64_t> class range3d {
public:
    using value_type = T;
    static constexpr int dims = 3;
    range3d(T page_begin, T page_end, T row_begin, T row_end, T col_begin, T col_end) noexcept
        : pages_(page_begin, page_end), rows_(row_begin, row_end), cols_(col_begin, col_end) {}
    range3d(T page_begin, T page_end, std::size_t page_grain, T row_begin, T row_end, std::size_t row_grain,
            T col_begin, T col_end, std::size_t col_grain) noexcept
        : pages_(page_begin, page_end, page_grain), rows_(row_begin, row_end, row_grain),
          cols_(col_begin, col_end, col_grain) {}
    range3d(const blocked_range<T> &pages, const blocked_range<T> &rows, const blocked_range<T> &cols) noexcept
        : pages_(pages), rows_(rows), cols_(cols) {}
    const blocked_range<T> &pages() const noexcept { return pages_; }
    const blocked_range<T> &rows() const noexcept { return rows_; }
    const blocked_range<T> &cols() const noexcept { return cols_; }
    bool empty() const noexcept { return pages_.empty() || rows_.empty() || cols_.empty(); }
    /// Dimension d: 0 pages, 1 rows, 2 cols.
    const blocked_range<T> &dim(int d) const noexcept { return d == 0 ? pages_ : d == 1 ? rows_ : cols_; }
    static range3d of(const blocked_range<T> *d) noexcept { return range3d(d[0], d[1], d[2]); }

private:
    blocked_range<T> pages_, rows_, cols_;
};

namespace detail {

template <class R> struct is_multi_range : std::false_type {};
template <class T> struct is_multi_range<range2d<T>> : std::true_type {};
template <class T> struct is_multi_range<range3d<T>> : std::true_type {};

// The exceptions of one loop, kept as the serial loop would throw them: the one of the smallest
// position wins, and the loop's stop_at (the cut) makes merino skip the sub-ranges that begin at or
// after it, while those before it still run.
class loop_errors {
public:
    // Positions at or after the cut are not to be run (INT64_MAX: no cut).
    std::int64_t cut() const noexcept {
        return __atomic_load_n(&cut_, __ATOMIC_RELAXED); // relaxed: a hint; the error is under the lock
    }
    // Some exception was captured.
    bool stopped() const noexcept {
        return __atomic_load_n(&failed_, __ATOMIC_RELAXED) != 0; // relaxed: as above
    }
    // The options of a loop that stops at its first exception (scans: their outputs are then
    // unspecified, so nothing after it is worth running).
    merino_for_opts with_stop(const merino_for_opts &o) const noexcept {
        merino_for_opts out = o;
        out.stop = &failed_;
        return out;
    }
    // The options of the loop, with its cut.
    merino_for_opts with_cut(const merino_for_opts &o) const noexcept {
        merino_for_opts out = o;
        out.stop = nullptr;
        out.stop_at = &cut_;
        return out;
    }
    // The exception in flight, thrown at position `at` (INT64_MAX: after every position, which
    // cuts nothing: a combine's).
    void capture(std::int64_t at) noexcept {
        std::lock_guard<std::mutex> hold(lock_);
        if (!error_ || at < at_) {
            at_ = at;
            error_ = std::current_exception();
        }
        merino_for_stop_at(&cut_, at);
        __atomic_store_n(&failed_, 1, __ATOMIC_RELAXED); // relaxed: a hint, as above
    }
    // After the loop (its joins order every capture before this).
    void rethrow() const {
        if (error_) std::rethrow_exception(error_);
    }

private:
    std::int64_t cut_ = INT64_MAX; // atomic (merino reads it with relaxed loads)
    int failed_ = 0;               // atomic: an exception was captured (a scan's stop flag)
    std::mutex lock_;
    std::exception_ptr error_;
    std::int64_t at_ = 0;
};

// How positions of type P map to the int64_t indices the C loop runs over: integral types map to
// themselves when they fit int64_t, else (unsigned ranges past INT64_MAX, iterators) to offsets
// from first.
template <class P> struct positions {
    using position_type = P;
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

// Positions first, first + step, ... of an integral type P (the step of any integral type, not 0):
// iteration k is the index INT64_MIN + k of the C loop, so the whole int64_t range fits, and a
// position is computed only for iterations in the range (no overflow near the type's bounds).
template <class P> struct stepped_positions {
    using position_type = P;
    P first;
    std::uint64_t step; // two's complement of the step
    std::int64_t begin = INT64_MIN, end = INT64_MIN;

    template <class S> stepped_positions(P f, P l, S s) : first(f), step(static_cast<std::uint64_t>(s)) {
        static_assert(std::is_integral_v<P> && std::is_integral_v<S>,
                      "merino::parallel_for(first, last, step, body): integral positions and step");
        if (s == 0) throw std::invalid_argument("merino::parallel_for: the step is 0: give a positive or a negative step");
        std::uint64_t a = key(f), b = key(l), span, stride;
        if (s > 0) {
            span = b > a ? b - a : 0, stride = static_cast<std::uint64_t>(s);
        } else {
            span = a > b ? a - b : 0, stride = 0 - static_cast<std::uint64_t>(s);
        }
        std::uint64_t count = span ? (span - 1) / stride + 1 : 0;
        end = static_cast<std::int64_t>(static_cast<std::uint64_t>(INT64_MIN) + count);
    }
    // P's order as unsigned 64-bit numbers.
    static std::uint64_t key(P v) {
        if constexpr (std::is_signed_v<P>)
            return static_cast<std::uint64_t>(static_cast<std::int64_t>(v)) ^ (std::uint64_t{1} << 63);
        else
            return static_cast<std::uint64_t>(v);
    }
    P at(std::int64_t i) const {
        std::uint64_t k = static_cast<std::uint64_t>(i) - static_cast<std::uint64_t>(INT64_MIN);
        return static_cast<P>(static_cast<std::uint64_t>(first) + k * step); // in range: no overflow
    }
};

constexpr std::int64_t block = 1024; // per-position bodies check the cut this often

// A loop's context: its domain (positions, stepped positions, or a range's tiles), body and errors.
template <class Dom, class F> struct for_ctx {
    Dom dom;
    F *f;
    loop_errors err;
};

// Runs f over [lo, hi): as one sub-range, or position by position. A throw is captured at its
// position (a sub-range's: its first).
template <class Pos, class F> void for_body(std::int64_t lo, std::int64_t hi, void *c) noexcept {
    using P = typename Pos::position_type;
    auto *x = static_cast<for_ctx<Pos, F> *>(c);
    std::int64_t at = lo;
    try {
        if constexpr (std::is_invocable_v<F &, P, P> && std::is_same_v<Pos, positions<P>>) {
            (*x->f)(x->dom.at(lo), x->dom.at(hi));
        } else {
            static_assert(std::is_invocable_v<F &, P>,
                          "merino::parallel_for: the body takes one position, or two (a sub-range; "
                          "not with a step)");
            for (std::int64_t b = lo; b < hi; b += block) {
                if (b != lo && b >= x->err.cut()) return;
                std::int64_t e = hi - b > block ? b + block : hi;
                for (at = b; at < e; at++) (*x->f)(x->dom.at(at));
            }
        }
    } catch (...) {
        x->err.capture(at);
    }
}

template <class Pos, class F> void run_for(Pos pos, F &body, const loop_options &opts) {
    for_ctx<Pos, F> c{pos, &body, {}};
    merino_for_opts o = c.err.with_cut(opts);
    merino_for(c.dom.begin, c.dom.end, &for_body<Pos, F>, &c, &o);
    c.err.rethrow();
}

// A reduction's context: its domain, identity, body, combine and errors.
template <class Dom, class T, class F, class C> struct reduce_ctx {
    Dom dom;
    const T *identity;
    F *f;
    C *combine;
    loop_errors err;
};

template <class T> T &partial(void *p) noexcept { return *std::launder(static_cast<T *>(p)); }

// The hooks merino_reduce calls on the partials of a context with identity, combine and err. A
// copy of the identity must not throw (std::terminate).
template <class Ctx, class T> struct partial_hooks {
    static void init(void *acc, void *c) noexcept { ::new (acc) T(*static_cast<Ctx *>(c)->identity); }
    static void destroy(void *acc, void *) noexcept { partial<T>(acc).~T(); }
    static void combine(void *acc, const void *right, void *c) noexcept {
        auto *x = static_cast<Ctx *>(c);
        if (x->err.stopped()) return; // the result is dropped: no need to combine
        try {
            T &a = partial<T>(acc);
            a = (*x->combine)(std::move(a), std::move(partial<T>(const_cast<void *>(right))));
        } catch (...) {
            x->err.capture(INT64_MAX); // after every body's exception
        }
    }
};

template <class P, class T, class F, class C>
struct reduce_hooks : partial_hooks<reduce_ctx<positions<P>, T, F, C>, T> {
    using ctx = reduce_ctx<positions<P>, T, F, C>;
    static void body(std::int64_t lo, std::int64_t hi, void *acc, void *c) noexcept {
        auto *x = static_cast<ctx *>(c);
        T &a = partial<T>(acc);
        std::int64_t at = lo;
        try {
            if constexpr (std::is_invocable_v<F &, P, P, T>) {
                a = (*x->f)(x->dom.at(lo), x->dom.at(hi), std::move(a));
            } else {
                static_assert(std::is_invocable_v<F &, P>,
                              "merino::parallel_reduce: the body takes (first, last, partial) and returns the "
                              "new partial, or takes one position and returns its value");
                for (std::int64_t b = lo; b < hi; b += block) {
                    if (b != lo && b >= x->err.cut()) return;
                    std::int64_t e = hi - b > block ? b + block : hi;
                    for (at = b; at < e; at++) a = (*x->combine)(std::move(a), (*x->f)(x->dom.at(at)));
                }
            }
        } catch (...) {
            x->err.capture(at);
        }
    }
};

// Runs merino_reduce over [begin, end) with Hooks on context c (which has err) and returns the
// result, or rethrows the loop's exception.
template <class T, class Hooks, class Ctx>
T run_reduce(std::int64_t begin, std::int64_t end, Ctx &c, const loop_options &opts) {
    static_assert(sizeof(T) <= MERINO_REDUCE_MAX_SIZE,
                  "merino::parallel_reduce: partials are at most MERINO_REDUCE_MAX_SIZE bytes: reduce into "
                  "something smaller (a pointer, a std::vector)");
    static_assert(alignof(T) <= alignof(std::max_align_t),
                  "merino::parallel_reduce: partials need fundamental alignment");
    merino_reducer r{};
    r.size = sizeof(T);
    r.body = &Hooks::body;
    r.combine = &Hooks::combine;
    r.init = &Hooks::init;
    r.destroy = &Hooks::destroy;
    alignas(T) unsigned char result[sizeof(T)];
    merino_for_opts o = c.err.with_cut(opts);
    merino_reduce(begin, end, result, &r, &c, &o);
    T &got = partial<T>(result);
    T out(std::move(got));
    got.~T();
    c.err.rethrow();
    return out;
}

} // namespace detail
} // namespace merino

#include "merino/internal/for_each.hpp" // merino::feeder and the work list of parallel_for_each
#include "merino/internal/ranges.hpp"   // the tiles of range2d and range3d

namespace merino {

/// Runs body over [first, last) in parallel: body(lo, hi) for sub-ranges, or body(i) for each
/// position. Positions: an integral type, or random-access iterators. Returns when all have run;
/// rethrows the exception the serial loop would have thrown first (see the top of this header).
template <class P, class F> void parallel_for(P first, P last, F &&body, const loop_options &opts = {}) {
    detail::run_for(detail::positions<P>(first, last), body, opts);
}

/// The same with integral bounds of two types (parallel_for(0, v.size(), ...)): positions of
/// their common type.
template <class A, class B, class F,
          std::enable_if_t<std::is_integral_v<A> && std::is_integral_v<B> && !std::is_same_v<A, B>, int> = 0>
void parallel_for(A first, B last, F &&body, const loop_options &opts = {}) {
    using P = std::common_type_t<A, B>;
    parallel_for(static_cast<P>(first), static_cast<P>(last), std::forward<F>(body), opts);
}

/// body(i) for i = first, first + step, ... while i < last (step > 0), or while i > last (step < 0),
/// in parallel (oneTBB's parallel_for(first, last, step, f), negative steps too). Integral positions
/// and step; the whole range of the type works, and no position past it is computed. A step of 0
/// throws std::invalid_argument.
template <class P, class S, class F, std::enable_if_t<std::is_integral_v<P> && std::is_integral_v<S>, int> = 0>
void parallel_for(P first, P last, S step, F &&body, const loop_options &opts = {}) {
    detail::run_for(detail::stepped_positions<P>(first, last, step), body, opts);
}

/// The same with bounds of two integral types: positions of their common type.
template <class A, class B, class S, class F,
          std::enable_if_t<std::is_integral_v<A> && std::is_integral_v<B> && std::is_integral_v<S> &&
                               !std::is_same_v<A, B>,
                           int> = 0>
void parallel_for(A first, B last, S step, F &&body, const loop_options &opts = {}) {
    using P = std::common_type_t<A, B>;
    parallel_for(static_cast<P>(first), static_cast<P>(last), step, std::forward<F>(body), opts);
}

/// body(e) for every element e of [first, last), in parallel. Any input iterators: with
/// random-access ones and a body of one argument, a parallel_for over the positions; else a work
/// list the workers share, read block by block from the iterators (input iterators' elements are
/// copied out first). A body that takes (e, merino::feeder<value_type> &) may add items with
/// feeder.add(x); they are run too before the loop returns. Exceptions as in parallel_for, an added
/// item ranking with the element of the range it descends from.
template <class It, class F> void parallel_for_each(It first, It last, F &&body, const loop_options &opts = {}) {
    using Item = typename std::iterator_traits<It>::value_type;
    using Ref = typename std::iterator_traits<It>::reference;
    constexpr bool random = std::is_base_of_v<std::random_access_iterator_tag,
                                              typename std::iterator_traits<It>::iterator_category>;
    if constexpr (random && !std::is_invocable_v<F &, Ref, feeder<Item> &>) {
        parallel_for(first, last, [&body](It it) { body(*it); }, opts);
    } else {
        detail::for_each_list(first, last, body, opts);
    }
}

/// body(e) for every element e of a container, in parallel (as above).
template <class Range, class F> void parallel_for_each(Range &&range, F &&body, const loop_options &opts = {}) {
    using std::begin, std::end;
    parallel_for_each(begin(range), end(range), std::forward<F>(body), opts);
}

/// body(box) for boxes (merino::range2d or range3d of the range's type) that together cover every
/// cell of r exactly once, in parallel. The range is cut by halving its longest side relative to
/// its grain (see range2d); a box is a rectangle (a cuboid) of whole tiles, rows of tiles merged.
/// Exceptions as in parallel_for, in the boxes' row-major order.
template <class R, class F, std::enable_if_t<detail::is_multi_range<R>::value, int> = 0>
void parallel_for(const R &r, F &&body, const loop_options &opts = {}) {
    using Fn = std::remove_reference_t<F>;
    static_assert(std::is_invocable_v<Fn &, const R &>, "merino::parallel_for over a range2d/range3d: the body takes a box (const range &)");
    detail::for_ctx<detail::tiling<R>, Fn> c{detail::tiling<R>(r), &body, {}};
    merino_for_opts o = c.err.with_cut(opts);
    merino_for(0, static_cast<std::int64_t>(c.dom.tiles()), &detail::tiles_body<R, Fn>, &c, &o);
    c.err.rethrow();
}

/// Reduces a range2d or range3d: body(box, partial) folds a box into a partial and returns it;
/// combine(a, b) and the partials as in parallel_reduce over positions (the iteration order is the
/// boxes' row-major order).
template <class R, class T, class F, class C, std::enable_if_t<detail::is_multi_range<R>::value, int> = 0>
T parallel_reduce(const R &r, T identity, F &&body, C &&combine, const loop_options &opts = {}) {
    using Fn = std::remove_reference_t<F>;
    using Cn = std::remove_reference_t<C>;
    detail::reduce_ctx<detail::tiling<R>, T, Fn, Cn> c{detail::tiling<R>(r), &identity, &body, &combine, {}};
    return detail::run_reduce<T, detail::tiles_reduce_hooks<R, T, Fn, Cn>>(
        0, static_cast<std::int64_t>(c.dom.tiles()), c, opts);
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
    detail::for_ctx<detail::positions<P>, Fn> c{detail::positions<P>(first, last), &body, {}};
    merino_for_opts o = opts;
    merino_for_omp(c.dom.begin, c.dom.end, &detail::for_body<detail::positions<P>, Fn>, &c, &o);
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
    using Fn = std::remove_reference_t<F>;
    using Cn = std::remove_reference_t<C>;
    detail::reduce_ctx<detail::positions<P>, T, Fn, Cn> c{detail::positions<P>(first, last), &identity, &body, &combine, {}};
    return detail::run_reduce<T, detail::reduce_hooks<P, T, Fn, Cn>>(c.dom.begin, c.dom.end, c, opts);
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
