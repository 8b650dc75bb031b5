// scan-merino-cxx.cpp — the scan workload with merino::inclusive_scan (scan.h).
#include "scan-run.hpp"

#include <merino_algorithm.hpp>

int main(int argc, char **argv) {
    scan_args a;
    scan_parse(argc, argv, &a);
    merino_config cfg{};
    cfg.workers = static_cast<unsigned>(a.workers);
    if (merino_start(&cfg) != 0) return 2;
    int rc = scan_main(a, [](auto first, auto last, auto out) { merino::inclusive_scan(first, last, out); });
    merino_stop();
    return rc;
}
