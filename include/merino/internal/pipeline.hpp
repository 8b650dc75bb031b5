// merino/internal/pipeline.hpp — the machinery of merino::parallel_pipeline (merino_algorithm.hpp)
// over merino_pipeline (merino_algorithm.h, src/algo/pipeline.c).
// INTERNAL: included by <merino_algorithm.hpp>, never directly; nothing here is API.
//
// A filter chain is a list of type-erased nodes. Each item in flight owns a slot from a pool of
// max_tokens slots: two buffers, each large and aligned enough for any value between two filters;
// filter i reads its input from buffer (i - 1) % 2 and makes its output in buffer i % 2, so a value
// is made where the next filter reads it, and destroyed once that filter has run (or thrown). The
// C engine sees slots as its items.
#ifndef MERINO_INTERNAL_PIPELINE_HPP
#define MERINO_INTERNAL_PIPELINE_HPP

#include "../../merino_algorithm.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

namespace merino {

/// How a filter runs its items (merino_filter_mode): any number at once, or one at a time — in the
/// order the first filter made them, or in any order.
enum class filter_mode {
    parallel = MERINO_FILTER_PARALLEL,
    serial_in_order = MERINO_FILTER_SERIAL_IN_ORDER,
    serial_out_of_order = MERINO_FILTER_SERIAL_OUT_OF_ORDER
};

/// What the first filter receives: stop() ends the input (the value it returns then is dropped).
class flow_control {
public:
    void stop() noexcept { stopped_ = true; }
    bool is_stopped() const noexcept { return stopped_; }

private:
    bool stopped_ = false;
};

namespace detail::pipes {

// One filter, its types erased.
struct node {
    filter_mode mode;
    std::size_t out_size, out_align; // of the value it makes (0 and 1 for void)
    node(filter_mode m, std::size_t s, std::size_t a) : mode(m), out_size(s), out_align(a) {}
    virtual ~node() = default;
    // Makes the output in out from the input in in, which it destroys whatever happens. The first
    // filter (in == nullptr) returns false, making nothing, when it stopped the input.
    virtual bool call(void *in, void *out) = 0;
    // Destroys an input this filter will not get (its item was dropped).
    virtual void drop(void *in) noexcept = 0;
};

template <class T> constexpr std::size_t size_of() {
    if constexpr (std::is_void_v<T>) return 0;
    else return sizeof(T);
}
template <class T> constexpr std::size_t align_of() {
    if constexpr (std::is_void_v<T>) return 1;
    else return alignof(T);
}

template <class In, class Out, class F> struct typed_node final : node {
    F f;
    typed_node(filter_mode m, F fn) : node(m, size_of<Out>(), align_of<Out>()), f(std::move(fn)) {}

    bool call(void *in, void *out) override {
        if constexpr (std::is_void_v<In>) {
            static_assert(std::is_invocable_v<F &, flow_control &>,
                          "merino::make_filter<void, T>: the first filter takes a merino::flow_control &");
            flow_control fc;
            if constexpr (std::is_void_v<Out>) {
                f(fc);
                return !fc.is_stopped();
            } else {
                Out v = f(fc);
                if (fc.is_stopped()) return false;
                ::new (out) Out(std::move(v));
                return true;
            }
        } else {
            static_assert(std::is_invocable_v<F &, In &&>, "merino::make_filter<In, Out>: the filter takes an In");
            In &x = *std::launder(static_cast<In *>(in));
            struct end_of_input {
                In &x;
                ~end_of_input() { x.~In(); }
            } guard{x};
            if constexpr (std::is_void_v<Out>)
                f(std::move(x));
            else
                ::new (out) Out(f(std::move(x)));
            return true;
        }
    }
    void drop(void *in) noexcept override {
        if constexpr (!std::is_void_v<In>) std::launder(static_cast<In *>(in))->~In();
    }
};

// A slot: an item's two buffers, after this header.
struct slot {
    std::uint64_t seq; // the order of the first filter's call that made it
    slot *next_free;
};

// One run of a pipeline.
class run_state {
public:
    run_state(const std::vector<std::shared_ptr<node>> &nodes, std::size_t tokens) : nodes_(nodes) {
        std::size_t size = 1, align = alignof(slot);
        for (const auto &n : nodes) {
            if (n->out_size > size) size = n->out_size;
            if (n->out_align > align) align = n->out_align;
        }
        buf_ = round_up(size, align);
        head_ = round_up(sizeof(slot), align);
        align_ = align < 64 ? 64 : align; // no false sharing between the slots of two items
        stride_ = round_up(head_ + 2 * buf_, align_);
        mem_ = static_cast<unsigned char *>(::operator new(stride_ * tokens, std::align_val_t(align_)));
        for (std::size_t i = tokens; i-- > 0;) {
            slot *s = ::new (mem_ + i * stride_) slot{0, free_};
            free_ = s;
        }
        ctxs_.resize(nodes.size());
        for (std::size_t i = 0; i < nodes.size(); i++) ctxs_[i] = stage_ctx{this, nodes[i].get(), i};
    }
    ~run_state() { ::operator delete(static_cast<void *>(mem_), std::align_val_t(align_)); }
    run_state(const run_state &) = delete;
    run_state &operator=(const run_state &) = delete;

    // Runs the pipeline with the C engine; rethrows the exception of the earliest item that threw.
    void run(std::size_t tokens) {
        std::vector<merino_stage> stages(nodes_.size());
        for (std::size_t i = 0; i < nodes_.size(); i++)
            stages[i] = merino_stage{static_cast<merino_filter_mode>(nodes_[i]->mode), &call_stage, &ctxs_[i]};
        merino_pipeline(tokens, stages.data(), stages.size());
        if (error_) std::rethrow_exception(error_);
    }

private:
    struct stage_ctx {
        run_state *run;
        node *n;
        std::size_t index;
    };

    static constexpr std::uint64_t none = UINT64_MAX;
    static std::size_t round_up(std::size_t x, std::size_t a) { return (x + a - 1) / a * a; }

    void *buffer(slot *s, std::size_t i) noexcept {
        return reinterpret_cast<unsigned char *>(s) + head_ + (i & 1) * buf_;
    }

    slot *acquire() noexcept {
        std::lock_guard<std::mutex> hold(lock_);
        slot *s = free_;
        free_ = s->next_free; // never empty: the engine lets at most `tokens` items exist
        return s;
    }
    void release(slot *s) noexcept {
        std::lock_guard<std::mutex> hold(lock_);
        s->next_free = free_;
        free_ = s;
    }

    // Items after the earliest one that threw are dropped; its exception is the one rethrown.
    void fail(std::uint64_t seq) noexcept {
        std::lock_guard<std::mutex> hold(lock_);
        if (seq < error_seq_) {
            error_seq_ = seq;
            error_ = std::current_exception();
        }
        // relaxed: a hint to the filters about to run; the error is under the lock
        if (seq < cancel_after_.load(std::memory_order_relaxed)) cancel_after_.store(seq, std::memory_order_relaxed);
    }

    // The engine's stage function for filter index.
    static void *call_stage(void *item, void *ctx) noexcept {
        auto *sc = static_cast<stage_ctx *>(ctx);
        run_state &r = *sc->run;
        bool last = sc->index + 1 == r.nodes_.size();
        // relaxed: a hint; an item made or run after a failure it has not seen yet is dropped later
        std::uint64_t cancel_after = r.cancel_after_.load(std::memory_order_relaxed);
        if (sc->index == 0) {
            if (cancel_after != none) return nullptr; // a failure: the serial program makes no more items
            slot *s = r.acquire();
            s->seq = r.next_seq_.fetch_add(1, std::memory_order_relaxed); // relaxed: numbering only
            bool made;
            try {
                made = sc->n->call(nullptr, r.buffer(s, 0));
            } catch (...) {
                r.fail(s->seq);
                made = false;
            }
            if (!made || last) {
                r.release(s);
                return made ? static_cast<void *>(s) : nullptr; // last: a finished item (not dereferenced)
            }
            return s;
        }
        slot *s = static_cast<slot *>(item);
        void *in = r.buffer(s, sc->index - 1);
        if (s->seq > cancel_after) { // after the earliest failure: dropped, as the serial program would
            sc->n->drop(in);
            r.release(s);
            return nullptr;
        }
        try {
            sc->n->call(in, r.buffer(s, sc->index));
        } catch (...) {
            r.fail(s->seq);
            r.release(s);
            return nullptr;
        }
        if (last) r.release(s);
        return s;
    }

    const std::vector<std::shared_ptr<node>> &nodes_;
    std::vector<stage_ctx> ctxs_;
    unsigned char *mem_;
    std::size_t buf_, head_, align_, stride_;
    std::mutex lock_;          // the free slots and the error
    slot *free_ = nullptr;
    std::exception_ptr error_;
    std::uint64_t error_seq_ = none;
    std::atomic<std::uint64_t> cancel_after_{none};
    std::atomic<std::uint64_t> next_seq_{0};
};

} // namespace detail::pipes

/// A chain of filters that takes In and gives Out (void at the ends of a whole pipeline). Cheap to
/// copy: copies share their filters. Made by make_filter and joined with operator&.
template <class In, class Out> class filter {
public:
    filter() = default;

private:
    template <class I, class O> friend class filter;
    template <class I, class O, class F> friend filter<I, O> make_filter(filter_mode, F);
    template <class A, class B, class C> friend filter<A, C> operator&(const filter<A, B> &, const filter<B, C> &);
    friend void parallel_pipeline(std::size_t, const filter<void, void> &);
    std::vector<std::shared_ptr<detail::pipes::node>> nodes_;
};

/// A filter that runs f in the given mode: the first filter of a pipeline (In = void) is called as
/// f(flow_control &) and returns an Out (or nothing, when Out is void too); the others are called
/// with their input value (moved), and return an Out (the last: nothing).
template <class In, class Out, class F> filter<In, Out> make_filter(filter_mode mode, F f) {
    filter<In, Out> out;
    out.nodes_.push_back(std::make_shared<detail::pipes::typed_node<In, Out, F>>(mode, std::move(f)));
    return out;
}

/// The chain of l then r.
template <class A, class B, class C> filter<A, C> operator&(const filter<A, B> &l, const filter<B, C> &r) {
    filter<A, C> out;
    out.nodes_ = l.nodes_;
    out.nodes_.insert(out.nodes_.end(), r.nodes_.begin(), r.nodes_.end());
    return out;
}

/// Runs the chain (first filter to last) over the items its first filter makes until that filter
/// calls flow_control::stop(), with at most max_tokens items in flight (made and not yet through
/// the last filter), on the workers of the pool. Serial filters run one item at a time (in order:
/// in the order the first filter made them); parallel ones several at once; a serial first filter's
/// calls come one at a time, in order. Memory: max_tokens slots of twice the largest value between
/// two filters, allocated per call.
/// Exceptions, as in the serial program (each item through every filter, one item after the other):
/// when filters throw, the exception of the earliest item among those that threw reaches the caller;
/// items made before it still run through the pipeline (one of them may throw instead), items after
/// it are dropped (their values destroyed) and the first filter is not called again.
inline void parallel_pipeline(std::size_t max_tokens, const filter<void, void> &chain) {
    if (max_tokens == 0) throw std::invalid_argument("merino::parallel_pipeline: max_tokens is 0: allow at least one item");
    if (chain.nodes_.empty()) throw std::invalid_argument("merino::parallel_pipeline: the filter chain is empty");
    detail::pipes::run_state r(chain.nodes_, max_tokens);
    r.run(max_tokens);
}

} // namespace merino

#endif // MERINO_INTERNAL_PIPELINE_HPP
