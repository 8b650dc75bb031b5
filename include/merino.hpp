// merino.hpp — merino's C++17 interface: fork_join, run and a RAII runtime, over the C core.
//
//     merino::runtime rt;                                   // starts the workers (throws on bad input)
//     auto [a, b] = merino::fork_join([&] { return fib(n - 1); },
//                                     [&] { return fib(n - 2); });
//
// fork_join(f, g) runs f on the calling worker and offers g to the other workers; it returns when
// both have finished. A branch is any callable with no arguments; the cost of a fork_join whose g
// is not stolen is a few stores and a compare — no heap allocation, no atomic read-modify-write.
//
// It is safe to call fork_join from any thread and from any code: on a worker (whatever called
// it — a C task body, a plain function, a lambda) g may run in parallel; from a thread that is not
// a worker it first enters the pool like merino::run, starting a default pool if none runs.
#ifndef MERINO_HPP
#define MERINO_HPP

#if !defined(__cplusplus) || __cplusplus < 201703L
#error "merino.hpp requires C++17 or later: compile with -std=c++17 (CMake: the merino::merino target asks for it)"
#endif

#include "merino.h"

#include <cstring>
#include <exception>
#include <functional>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace merino {

/// The result of a branch that returns void, in the pair fork_join returns.
struct unit {
    friend constexpr bool operator==(unit, unit) noexcept { return true; }
    friend constexpr bool operator!=(unit, unit) noexcept { return false; }
};

/// Starts merino's workers on construction and stops them on destruction. Optional: the first
/// run or fork_join starts a default pool. At most one runtime (or merino_start) at a time.
/// Throws std::runtime_error with merino's message when the configuration is invalid (say, a
/// malformed MERINO_WORKERS) or merino is already running.
class runtime {
public:
    /// Default configuration: MERINO_WORKERS, else the CPUs this process may run on.
    runtime() : runtime(merino_config{}) {}
    /// workers workers (1..MERINO_MAX_WORKERS); 0 means the default.
    explicit runtime(unsigned workers) : runtime(make_config(workers)) {}
    /// Throws with merino's message, which it does not print.
    explicit runtime(const merino_config &cfg) {
        merino_config quiet = cfg;
        quiet.quiet = 1;
        if (merino_start(&quiet) != 0) throw std::runtime_error(merino_last_error());
    }
    /// Stops the workers, unless they were stopped already or the destructor runs in a task
    /// (exit() called from a task: the program ends with its tasks).
    ~runtime() {
        if (merino__self == nullptr && merino_workers() != 0) merino_stop();
    }
    runtime(const runtime &) = delete;
    runtime &operator=(const runtime &) = delete;

    /// The number of workers.
    unsigned workers() const noexcept { return merino_workers(); }

private:
    static merino_config make_config(unsigned workers) {
        merino_config cfg{};
        cfg.workers = workers;
        return cfg;
    }
};

namespace detail {

template <class F> using result_t = std::invoke_result_t<F &>;
template <class R> using stored_t = std::conditional_t<std::is_void_v<R>, unit, R>;

template <class F> stored_t<result_t<F>> call(F &f) {
    if constexpr (std::is_void_v<result_t<F>>) {
        std::invoke(f);
        return unit{};
    } else {
        return std::invoke(f);
    }
}

// A branch that another worker may run: it lives in the frame of the code that forks, which
// waits for it before returning, and the task descriptor holds only a pointer to it. An exception
// is caught where the branch runs and rethrown where it is joined.
template <class F> struct branch {
    F *fn;
    std::optional<stored_t<result_t<F>>> result{};
    std::exception_ptr error{};

    void run() noexcept {
        try {
            result.emplace(detail::call(*fn));
        } catch (...) {
            error = std::current_exception();
        }
    }

    // What a thief (or a worker taking a root task) calls; merino__next is already top.
    MERINO__WRAP_ATTR static void wrap(merino__task *, merino__task *t) noexcept {
        branch *b;
        std::memcpy(&b, t->payload, sizeof b);
        b->run();
    }

    void store_into(merino__task *t) noexcept {
        branch *self = this;
        std::memcpy(t->payload, &self, sizeof self);
    }

    // The result, or the branch's exception rethrown.
    stored_t<result_t<F>> take() {
        if (error) std::rethrow_exception(error);
        return std::move(*result);
    }
};

template <class F, class G>
using fork_join_t = std::conditional_t<std::is_void_v<result_t<F>> && std::is_void_v<result_t<G>>, void,
                                       std::pair<stored_t<result_t<F>>, stored_t<result_t<G>>>>;

template <class F, class G> detail::fork_join_t<F, G> fork_join_cold(F &f, G &g);

} // namespace detail

/// Runs f on the pool and returns its result (or rethrows its exception). On a worker it simply
/// calls f (whose fork_joins may run in parallel); from another thread, that thread runs f with
/// the pool's help, starting a default pool if none runs.
template <class F> detail::result_t<F> run(F &&f) {
    using R = detail::result_t<F>;
    if (merino__self) return std::invoke(f);
    detail::branch<std::remove_reference_t<F>> b{&f};
    merino__task t;
    b.store_into(&t);
    merino__run_external(&t, &decltype(b)::wrap);
    if constexpr (std::is_void_v<R>) {
        b.take();
    } else {
        return b.take();
    }
}

/// Runs f and g, possibly in parallel, and returns when both have finished: a
/// std::pair<RF, RG> of their results, where a void result is merino::unit; void if both are
/// void. f runs on the calling worker; g is offered to other workers and run here if nobody took
/// it. If f throws, g is not called when no other worker has taken it — as in the serial program,
/// where g() would come after f() — and f's exception is rethrown; if a worker has taken g, it may
/// already run: fork_join waits for it to finish (both may borrow the caller's frame), drops its
/// result or exception, and rethrows f's. If only g throws, its exception is rethrown here after
/// f has finished.
template <class F, class G> detail::fork_join_t<F, G> fork_join(F &&f, G &&g) {
    using RF = detail::result_t<F>;
    using RG = detail::result_t<G>;
    merino__task *t = merino__next;
    if (MERINO__UNLIKELY(t == nullptr)) return detail::fork_join_cold(f, g); // not on a worker

    // Spawn g into the next free descriptor, exactly as a C task's spawn does.
    using branch_t = detail::branch<std::remove_reference_t<G>>;
    branch_t b{&g};
    b.store_into(t);
    merino__spawn(t, MERINO__ADDR(&branch_t::wrap));

    std::optional<detail::stored_t<RF>> a;
    std::exception_ptr a_error;
    try {
        a.emplace(detail::call(f));
    } catch (...) {
        a_error = std::current_exception(); // first wait for g: it may use our frame
    }

    if (MERINO__UNLIKELY(a_error != nullptr)) {
        // As in the serial program, g does not run after f threw: not stolen, it is dropped here;
        // taken by a thief, it may have started before the throw, and we wait for it (it may use
        // our frame), dropping its result and its exception.
        (void)merino__join(t, MERINO__ADDR(&branch_t::wrap));
        std::rethrow_exception(a_error);
    }
    if (merino__join(t, MERINO__ADDR(&branch_t::wrap))) MERINO__PROF_INLINE(t, b.run()); // not stolen: run g here
    if constexpr (std::is_void_v<RF> && std::is_void_v<RG>) {
        b.take();
    } else {
        return std::pair<detail::stored_t<RF>, detail::stored_t<RG>>(std::move(*a), b.take());
    }
}

namespace detail {

// fork_join on a thread that is not a worker, out of line: the root task that run() hands to the
// pool needs an aligned descriptor in the frame, which inline would make every fork_join realign
// its stack (and keep a frame pointer) on the fast path too.
template <class F, class G> __attribute__((noinline, cold)) fork_join_t<F, G> fork_join_cold(F &f, G &g) {
    return run([&] { return merino::fork_join(f, g); });
}

} // namespace detail

namespace detail {

// isolate and arena::run: f runs inside the C call; its result or exception is carried out of it.
template <class F> struct region_call {
    F *fn;
    std::optional<stored_t<result_t<F>>> result{};
    std::exception_ptr error{};

    static void trampoline(void *p) noexcept {
        auto *c = static_cast<region_call *>(p);
        try {
            c->result.emplace(detail::call(*c->fn));
        } catch (...) {
            c->error = std::current_exception();
        }
    }

    result_t<F> take() {
        if (error) std::rethrow_exception(error);
        if constexpr (!std::is_void_v<result_t<F>>) return std::move(*result);
    }
};

} // namespace detail

/// Runs f() isolated and returns its result (or rethrows its exception): while a worker waits
/// inside f — a fork_join whose branch was stolen, a task_group's wait, the end of a parallel
/// loop — it runs only work that f created, never an unrelated task of the pool. So f may hold a
/// mutex across inner parallel work (as long as that work does not take the mutex itself):
///
///     merino::parallel_for(0, n, [&](int i) {
///         std::lock_guard<std::mutex> lock(m);
///         merino::isolate([&] { merino::parallel_for(0, k, inner); }); // never runs another i here
///     });
///
/// Regions nest (work of a region inside f is f's too). Join and wait for all that f starts before
/// f returns. oneTBB: tbb::this_task_arena::isolate.
template <class F> detail::result_t<F> isolate(F &&f) {
    detail::region_call<std::remove_reference_t<F>> c{&f};
    merino_isolate(&decltype(c)::trampoline, &c);
    return c.take();
}

/// A limit on the workers that run a piece of work at a time (oneTBB: tbb::task_arena):
///
///     merino::arena a(2);
///     a.run([&] { merino::parallel_for(0, n, body); }); // at most 2 workers run the loop's bodies
///
/// The rest of the pool goes on with other work meanwhile. run() isolates f as isolate() does.
/// Arenas nest: work of an arena run inside f counts against both. An arena may run work from
/// several threads at once; the limit counts them all (a run waits for a place when it is full).
/// It must outlive the runs.
class arena {
public:
    /// At most max_concurrency workers (1..MERINO_MAX_WORKERS; throws std::invalid_argument else).
    explicit arena(unsigned max_concurrency) {
        if (merino_arena_init(&a_, max_concurrency) != 0) throw std::invalid_argument(merino_last_error());
    }
    arena(const arena &) = delete;
    arena &operator=(const arena &) = delete;

    /// Runs f() in the arena and returns its result (or rethrows its exception).
    template <class F> detail::result_t<F> run(F &&f) {
        detail::region_call<std::remove_reference_t<F>> c{&f};
        merino_arena_run(&a_, &decltype(c)::trampoline, &c);
        return c.take();
    }

    /// The limit.
    unsigned max_concurrency() const noexcept { return a_.merino__max; }
    /// The C arena, for code that mixes the two APIs.
    merino_arena *native() noexcept { return &a_; }

private:
    merino_arena a_;
};

} // namespace merino

#endif // MERINO_HPP
