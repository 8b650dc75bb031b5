// scan-tbb.cpp — the scan workload with oneTBB's tbb::parallel_scan (functional form: a pre-scan and
// a final scan per range), in bench_tbb.h's arena (scan.h).
#include "scan-run.hpp"

#include <bench_tbb.h>
#include <functional>
#include <tbb/blocked_range.h>
#include <tbb/parallel_scan.h>

int main(int argc, char **argv) {
    scan_args a;
    scan_parse(argc, argv, &a);
    bench_tbb_arena arena(a.workers);
    return scan_main(a, [&](auto first, auto last, auto out) {
        using T = std::remove_pointer_t<decltype(first)>;
        arena.execute([&] {
            tbb::parallel_scan(
                tbb::blocked_range<std::size_t>(0, static_cast<std::size_t>(last - first)), T(0),
                [&](const tbb::blocked_range<std::size_t> &r, T sum, bool is_final) {
                    for (std::size_t i = r.begin(); i != r.end(); ++i) {
                        sum += first[i];
                        if (is_final) out[i] = sum;
                    }
                    return sum;
                },
                std::plus<T>());
        });
    });
}
