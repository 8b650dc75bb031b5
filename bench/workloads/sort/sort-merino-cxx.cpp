// sort-merino-cxx.cpp — the sort workload with merino::parallel_sort (sort.h).
#include "sort-run.hpp"

#include <merino_algorithm.hpp>

int main(int argc, char **argv) {
    sort_args a;
    sort_parse(argc, argv, &a);
    merino_config cfg{};
    cfg.workers = static_cast<unsigned>(a.workers);
    if (merino_start(&cfg) != 0) return 2;
    int rc = sort_main(a, [](auto first, auto last) { merino::parallel_sort(first, last); });
    merino_stop();
    return rc;
}
