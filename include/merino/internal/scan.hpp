// merino/internal/scan.hpp — the machinery of merino::inclusive_scan, exclusive_scan and
// parallel_scan (merino_algorithm.hpp) over merino_scan (merino_algorithm.h, src/algo/scan.c).
// INTERNAL: included by <merino_algorithm.hpp>, never directly; nothing here is API.
//
// The C engine hands out chunks and carries the prefixes between them; the hooks below run the
// caller's operation on a chunk, with its exceptions caught there (they never cross C code): the
// first in index order is kept, the scan is stopped, and the caller's call rethrows it.
#ifndef MERINO_INTERNAL_SCAN_HPP
#define MERINO_INTERNAL_SCAN_HPP

#include "../../merino_algorithm.h"
#include "../../merino_loop.hpp"

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <new>
#include <optional>
#include <type_traits>
#include <utility>

namespace merino::detail::scanning {

template <class T> T &as(void *p) noexcept { return *std::launder(static_cast<T *>(p)); }
template <class T> const T &as(const void *p) noexcept { return *std::launder(static_cast<const T *>(p)); }

template <class T> constexpr void check_sum_type() {
    static_assert(sizeof(T) <= MERINO_SCAN_MAX_SIZE,
                  "merino scans: a running sum is at most MERINO_SCAN_MAX_SIZE bytes: scan into something "
                  "smaller (a pointer, a std::vector)");
    static_assert(alignof(T) <= 16, "merino scans: a running sum needs at most 16-byte alignment");
}

// The options of one scan, with the stop flag of its errors.
inline merino_scan_opts with_stop(merino_scan_opts o, const loop_errors &err) {
    o.stop = err.with_stop(merino_for_opts{}).stop;
    return o;
}

// Runs merino_scan over [begin, end) with the hooks of Ctx (body, combine, init_sum, destroy_sum) on
// running sums of type Sum; *total (raw storage for a Sum) receives the fold, constructed.
template <class Sum, class Ctx> void run_engine(Ctx *ctx, std::int64_t begin, std::int64_t end, merino_scan_opts o,
                                                 void *total) {
    check_sum_type<Sum>();
    merino_scanner s{};
    s.size = sizeof(Sum);
    s.body = &Ctx::body;
    s.combine = &Ctx::combine;
    s.init = &Ctx::init_sum;
    s.destroy = &Ctx::destroy_sum;
    o = with_stop(o, ctx->err);
    merino_scan(begin, end, total, &s, ctx, &o);
}

// ---- over arrays: inclusive_scan and exclusive_scan --------------------------------------------------

// Elements per chunk of an array scan: 64 KiB of input, so that a chunk and its output stay in a
// core's L2 cache between its pre-scan and its scan.
template <class T> constexpr std::int64_t array_chunk() {
    return sizeof(T) >= 64 ? 1024 : static_cast<std::int64_t>((64 * 1024) / sizeof(T));
}

// The fold of [in, end) (not empty) in four independent chains over its four quarters, combined in
// order: op's latency is paid once per four elements (associativity is enough: the quarters stay in
// order), so the pre-scan runs at the speed of memory rather than of the serial chain.
template <class V, class In, class Op> V prescan(In in, In end, Op &op) {
    auto n = end - in;
    if (n < 64) {
        V acc(*in);
        for (++in; in != end; ++in) acc = op(std::move(acc), *in);
        return acc;
    }
    auto q = n / 4;
    In b = in + q, c = in + 2 * q, d = in + 3 * q;
    V a0(*in), a1(*b), a2(*c), a3(*d);
    for (decltype(q) j = 1; j < q; j++) {
        a0 = op(std::move(a0), in[j]);
        a1 = op(std::move(a1), b[j]);
        a2 = op(std::move(a2), c[j]);
        a3 = op(std::move(a3), d[j]);
    }
    for (In t = in + 4 * q; t != end; ++t) a3 = op(std::move(a3), *t);
    return op(op(op(std::move(a0), std::move(a1)), std::move(a2)), std::move(a3));
}

// A running sum that may be the identity (empty): the array scans have no identity element.
template <class In, class Out, class V, class Op, bool Exclusive> struct array_scan {
    using sum = std::optional<V>;
    In first;
    Out out;
    Op *op;
    const V *init; // exclusive scans, and inclusive scans with an initial value; else nullptr
    loop_errors err;

    static void body(std::int64_t lo, std::int64_t hi, void *sum_p, int final, void *ctx) noexcept {
        auto *x = static_cast<array_scan *>(ctx);
        if (x->err.stopped()) return;
        sum &s = as<sum>(sum_p);
        try {
            In in = x->first + lo, end = x->first + hi;
            Op &op = *x->op;
            if (!final) { // pre-scan: the fold of the chunk, from the identity
                s = prescan<V>(in, end, op);
                return;
            }
            Out o = x->out + lo;
            if constexpr (Exclusive) { // read each element before its output is written: in place works
                V acc = s ? std::move(*s) : *x->init;
                for (; in != end; ++in, ++o) {
                    V v = *in;
                    *o = acc;
                    acc = op(std::move(acc), std::move(v));
                }
                s = std::move(acc);
            } else {
                V acc = s ? op(std::move(*s), *in) : x->init ? op(*x->init, *in) : V(*in);
                *o = acc;
                for (++in, ++o; in != end; ++in, ++o) {
                    acc = op(std::move(acc), *in);
                    *o = acc;
                }
                s = std::move(acc);
            }
        } catch (...) {
            x->err.capture(lo);
        }
    }
    static void combine(void *left, const void *right, void *ctx) noexcept {
        auto *x = static_cast<array_scan *>(ctx);
        if (x->err.stopped()) return;
        sum &l = as<sum>(left);
        const sum &r = as<sum>(right);
        if (!r) return;
        try {
            if (l)
                l = (*x->op)(std::move(*l), *r);
            else
                l = *r;
        } catch (...) {
            x->err.capture(INT64_MAX);
        }
    }
    static void init_sum(void *p, void *) noexcept { ::new (p) sum(); }
    static void destroy_sum(void *p, void *) noexcept { as<sum>(p).~sum(); }

    void run(std::int64_t n) {
        merino_scan_opts o{};
        o.chunk = array_chunk<typename std::iterator_traits<In>::value_type>();
        alignas(sum) unsigned char total[sizeof(sum)];
        run_engine<sum>(this, 0, n, o, total);
        destroy_sum(total, nullptr);
        err.rethrow();
    }
};

template <class In, class Out> inline constexpr bool parallel_ok_v =
    std::is_base_of_v<std::random_access_iterator_tag, typename std::iterator_traits<In>::iterator_category> &&
    std::is_base_of_v<std::random_access_iterator_tag, typename std::iterator_traits<Out>::iterator_category>;

// ---- parallel_scan: oneTBB's two-pass form over positions ------------------------------------------------

template <class P, class T, class Scan, class Combine> struct general_scan {
    positions<P> pos;
    const T *identity;
    Scan *scan;
    Combine *combine_fn;
    loop_errors err;

    static void body(std::int64_t lo, std::int64_t hi, void *sum_p, int final, void *ctx) noexcept {
        auto *x = static_cast<general_scan *>(ctx);
        if (x->err.stopped()) return;
        T &s = as<T>(sum_p);
        try {
            s = (*x->scan)(x->pos.at(lo), x->pos.at(hi), std::move(s), final != 0);
        } catch (...) {
            x->err.capture(lo);
        }
    }
    static void combine(void *left, const void *right, void *ctx) noexcept {
        auto *x = static_cast<general_scan *>(ctx);
        if (x->err.stopped()) return;
        try {
            T &l = as<T>(left);
            l = (*x->combine_fn)(std::move(l), as<T>(right));
        } catch (...) {
            x->err.capture(INT64_MAX);
        }
    }
    static void init_sum(void *p, void *ctx) noexcept { ::new (p) T(*static_cast<general_scan *>(ctx)->identity); }
    static void destroy_sum(void *p, void *) noexcept { as<T>(p).~T(); }

    T run(const merino_scan_opts &opts) {
        alignas(T) unsigned char total[sizeof(T)];
        run_engine<T>(this, pos.begin, pos.end, opts, total);
        T &got = as<T>(total);
        T out(std::move(got));
        got.~T();
        err.rethrow();
        return out;
    }
};

} // namespace merino::detail::scanning

#endif // MERINO_INTERNAL_SCAN_HPP
