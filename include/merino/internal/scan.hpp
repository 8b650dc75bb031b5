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

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <new>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>
#if defined(__x86_64__)
#include <emmintrin.h>
#endif

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

// ---- streaming stores: the final pass over a large array of numbers ------------------------------

// An output of at least this many bytes is written with streaming (non-temporal) stores: it is
// larger than the last-level cache of most machines, so it would not stay cached anyway, and a
// streaming store skips the read of each output line before it is written — a third of a large
// scan's memory traffic, and what a second core adds nothing to once the memory bus is saturated.
inline constexpr std::size_t stream_bytes = std::size_t(32) << 20;

// Whether outputs through Out can be streamed: 4- or 8-byte integers of the sums' type V, in
// contiguous memory (a pointer or a std::vector<V>'s iterator), on x86-64. Integers only: a sum of
// integers costs a cycle an element, so a large scan runs at the memory's speed; a floating-point
// sum is bound by the latency of its additions instead, and a streaming store of it adds a move to
// an integer register that costs more than the read it saves.
template <class Out, class V> inline constexpr bool streamable_v =
#if defined(__x86_64__)
    std::is_integral_v<V> && (sizeof(V) == 4 || sizeof(V) == 8) &&
    (std::is_same_v<Out, V *> || std::is_same_v<Out, typename std::vector<V>::iterator>);
#else
    false;
#endif

// *o = v, by a streaming store when Stream.
template <bool Stream, class Out, class V> inline void put(Out o, const V &v) {
#if defined(__x86_64__)
    if constexpr (Stream) {
        void *p = static_cast<void *>(&*o);
        if constexpr (sizeof(V) == 8) {
            long long b;
            std::memcpy(&b, &v, 8);
            _mm_stream_si64(static_cast<long long *>(p), b);
        } else {
            int b;
            std::memcpy(&b, &v, 4);
            _mm_stream_si32(static_cast<int *>(p), b);
        }
        return;
    }
#endif
    *o = v;
}

// After a pass of streaming stores: they are ordered before every later store (the chunk's
// publication, the join) and the compiler moves no access of the output across this point.
template <bool Stream> inline void end_pass() {
#if defined(__x86_64__)
    if constexpr (Stream) {
        _mm_sfence();
        std::atomic_signal_fence(std::memory_order_seq_cst);
    }
#endif
}

// A running sum that may be the identity (empty): the array scans have no identity element.
template <class In, class Out, class V, class Op, bool Exclusive> struct array_scan {
    using sum = std::optional<V>;
    In first;
    Out out;
    Op *op;
    const V *init; // exclusive scans, and inclusive scans with an initial value; else nullptr
    loop_errors err;
    bool stream; // the final passes write with streaming stores (streamable_v, a large output)

    // The final pass over [in, end) into o, from s; s becomes the fold up to end.
    template <bool Stream> void final_pass(In in, In end, Out o, sum &s) {
        Op &op = *this->op;
        if constexpr (Exclusive) { // read each element before its output is written: in place works
            V acc = s ? std::move(*s) : *init;
            for (; in != end; ++in, ++o) {
                V v = *in;
                put<Stream>(o, acc);
                acc = op(std::move(acc), std::move(v));
            }
            s = std::move(acc);
        } else {
            V acc = s ? op(std::move(*s), *in) : init ? op(*init, *in) : V(*in);
            put<Stream>(o, acc);
            for (++in, ++o; in != end; ++in, ++o) {
                acc = op(std::move(acc), *in);
                put<Stream>(o, acc);
            }
            s = std::move(acc);
        }
        end_pass<Stream>();
    }

    static void body(std::int64_t lo, std::int64_t hi, void *sum_p, int final, void *ctx) noexcept {
        auto *x = static_cast<array_scan *>(ctx);
        if (x->err.stopped()) return;
        sum &s = as<sum>(sum_p);
        try {
            In in = x->first + lo, end = x->first + hi;
            if (!final) { // pre-scan: the fold of the chunk, from the identity
                s = prescan<V>(in, end, *x->op);
                return;
            }
            if constexpr (streamable_v<Out, V>) {
                if (x->stream) {
                    x->template final_pass<true>(in, end, x->out + lo, s);
                    return;
                }
            }
            x->template final_pass<false>(in, end, x->out + lo, s);
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
        stream = streamable_v<Out, V> && static_cast<std::size_t>(n) * sizeof(V) >= stream_bytes;
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
