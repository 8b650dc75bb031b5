// merino/internal/ranges.hpp — the tiling behind parallel_for and parallel_reduce over
// merino::range2d and range3d (included by merino_loop.hpp; never include it yourself).
//
// A range is cut into tiles by halving, again and again, the dimension whose pieces are the longest
// relative to its grain (oneTBB's rule for blocked_range2d), while a piece is longer than its grain
// and there are fewer than max_tiles tiles. The tiles are numbered in row-major order (the last
// dimension fastest) and run as a one-dimensional loop over their numbers, so every schedule,
// max_workers, the deterministic flag and the exception rule apply unchanged; a sub-range of tile
// numbers reaches the body as at most 2D - 1 boxes (whole rows of tiles merged).
#ifndef MERINO_INTERNAL_RANGES_HPP
#define MERINO_INTERNAL_RANGES_HPP

namespace merino {
namespace detail {

constexpr std::uint64_t max_tiles = std::uint64_t{1} << 16; // finer than any balance needs

template <class R> class tiling {
public:
    static constexpr int D = R::dims;
    using value_type = typename R::value_type;
    using dim_range = blocked_range<value_type>;

    explicit tiling(const R &r) {
        for (int d = 0; d < D; d++) {
            dim_[d] = r.dim(d);
            ext_[d] = dim_[d].size();
            k_[d] = 1;
            if (ext_[d] == 0) tiles_ = 0;
        }
        while (tiles_ != 0 && tiles_ * 2 <= max_tiles) {
            int best = -1;
            double best_ratio = 0;
            for (int d = 0; d < D; d++) {
                std::uint64_t piece = ext_[d] / k_[d] + (ext_[d] % k_[d] != 0);
                double ratio = static_cast<double>(piece) / static_cast<double>(dim_[d].grainsize());
                if (k_[d] * 2 <= ext_[d] && piece > dim_[d].grainsize() && ratio > best_ratio)
                    best = d, best_ratio = ratio;
            }
            if (best < 0) break;
            k_[best] *= 2;
            tiles_ *= 2;
        }
        stride_[D - 1] = 1;
        for (int d = D - 2; d >= 0; d--) stride_[d] = stride_[d + 1] * k_[d + 1];
    }

    std::uint64_t tiles() const noexcept { return tiles_; }

    // Calls g(box) for the boxes that make up tiles [lo, hi), in order, until the loop is cut
    // there; captures a throw at its box's first tile.
    template <class G> void boxes(std::int64_t lo, std::int64_t hi, loop_errors &err, G &&g) const noexcept {
        std::uint64_t at = static_cast<std::uint64_t>(lo), end = static_cast<std::uint64_t>(hi);
        try {
            while (at < end) {
                if (at != static_cast<std::uint64_t>(lo) && static_cast<std::int64_t>(at) >= err.cut()) return;
                int d = 0; // the outermost dimension whose whole units start at `at` and fit
                while (at % stride_[d] != 0 || end - at < stride_[d]) d++;
                std::uint64_t c = at / stride_[d] % k_[d];
                std::uint64_t m = (end - at) / stride_[d];
                if (m > k_[d] - c) m = k_[d] - c;
                dim_range part[D];
                for (int e = 0; e < D; e++) {
                    std::uint64_t t0 = e < d ? at / stride_[e] % k_[e] : e == d ? c : 0;
                    std::uint64_t t1 = e < d ? t0 + 1 : e == d ? c + m : k_[e];
                    part[e] = dim_range(cell(e, t0), cell(e, t1), dim_[e].grainsize());
                }
                g(R::of(part));
                at += m * stride_[d];
            }
        } catch (...) {
            err.capture(static_cast<std::int64_t>(at));
        }
    }

private:
    // The first cell of tile t of dimension d: begin + floor(ext * t / k), without overflow.
    value_type cell(int d, std::uint64_t t) const {
        std::uint64_t q = ext_[d] / k_[d], r = ext_[d] % k_[d];
        std::uint64_t off = q * t + r * t / k_[d]; // r, t <= k <= 2^16
        return static_cast<value_type>(static_cast<std::uint64_t>(dim_[d].begin()) + off);
    }

    dim_range dim_[D];
    std::uint64_t ext_[D], k_[D], stride_[D];
    std::uint64_t tiles_ = 1;
};

template <class R, class F> void tiles_body(std::int64_t lo, std::int64_t hi, void *c) noexcept {
    auto *x = static_cast<for_ctx<tiling<R>, F> *>(c);
    x->dom.boxes(lo, hi, x->err, [x](const R &box) { (*x->f)(box); });
}

template <class R, class T, class F, class C>
struct tiles_reduce_hooks : partial_hooks<reduce_ctx<tiling<R>, T, F, C>, T> {
    using ctx = reduce_ctx<tiling<R>, T, F, C>;
    static void body(std::int64_t lo, std::int64_t hi, void *acc, void *c) noexcept {
        static_assert(std::is_invocable_r_v<T, F &, const R &, T>,
                      "merino::parallel_reduce over a range2d/range3d: the body takes (box, partial) and "
                      "returns the new partial");
        auto *x = static_cast<ctx *>(c);
        T &a = partial<T>(acc);
        x->dom.boxes(lo, hi, x->err, [&](const R &box) { a = (*x->f)(box, std::move(a)); });
    }
};

} // namespace detail
} // namespace merino

#endif
