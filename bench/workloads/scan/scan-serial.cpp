// scan-serial.cpp — the scan workload with std::inclusive_scan (scan.h).
#include "scan-run.hpp"

#include <numeric>

int main(int argc, char **argv) {
    scan_args a;
    scan_parse(argc, argv, &a);
    return scan_main(a, [](auto first, auto last, auto out) { std::inclusive_scan(first, last, out); });
}
