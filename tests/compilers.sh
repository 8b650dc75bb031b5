# compilers.sh — sourced by the tests that compile merino's headers with every compiler
# (test_header_warnings.sh, test_compile_errors.sh).

# need_compilers TEST: exits with a message unless gcc, g++, clang and clang++ are all installed.
need_compilers() {
    local cc
    for cc in gcc g++ clang clang++; do
        if ! command -v "$cc" >/dev/null 2>&1; then
            echo "$1: $cc not found: run scripts/install-deps.sh (it installs clang)" >&2
            exit 1
        fi
    done
}
