# symbols_lib.sh — sourced by symbols.sh and abi_coverage.sh: the OpenMP host ABI of a library.
#
# omp_exports LIB: the defined dynamic symbols of LIB that belong to OpenMP's host ABI, one a
# line as nm prints them with their version: "GOMP_barrier@@GOMP_1.0" (the default version) or
# "omp_init_lock@OMP_1.0" (an older, non-default one). OpenACC (acc_*, GOACC_*, and whatever
# sits in an OACC_* version) and the device plugins' interface (GOMP_PLUGIN_*) are left out, as
# are the version nodes themselves.
omp_exports() {
    nm -D --defined-only "$1" |
        awk 'NF >= 3 && $2 != "A" { print $3 }' |
        grep -E '^(GOMP_|omp_)' |
        grep -Ev '^GOMP_PLUGIN_|@@?OACC_' |
        sort -u
}

# omp_version_nodes LIB: the version nodes LIB defines (GOMP_1.0, OMP_5.1, ...), OACC_* left out.
omp_version_nodes() {
    nm -D --defined-only "$1" | awk '$2 == "A" { print $3 }' | grep -E '^(GOMP|OMP)_[0-9]' | sort -u
}

# system_libgomp PROGRAM: the libgomp.so.1 that PROGRAM loads (ldd), or nothing.
system_libgomp() {
    ldd "$1" 2>/dev/null | awk '$1 == "libgomp.so.1" && $3 ~ /^\// { print $3 }' | head -n 1
}
