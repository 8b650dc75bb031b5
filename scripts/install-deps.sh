#!/usr/bin/env bash
# Installs, on Debian or Ubuntu, what merino's build and tests need and is not there yet:
# cmake, ninja, gcc/g++, clang (tests/test_header_warnings.sh and test_compile_errors.sh compile
# with both compilers), make, pkg-config, spin (the Promela model checker), python3, and Open MPI
# (libopenmpi-dev, openmpi-bin: merino_mpi is built and its tests run through mpirun when CMake
# finds an MPI; docs/mpi.md), gfortran (the Fortran programs of the OpenMP suite, tests/omp), and
# the Debian programs that link libgomp which tests/omp runs on both OpenMP runtimes: ImageMagick,
# GraphicsMagick, and numpy (python3-numpy, for /usr/bin/python3) on OpenBLAS's OpenMP build
# (libopenblas0-openmp), made the system's libblas.so.3 and liblapack.so.3 by update-alternatives.
# With --bench, also the benchmark peers: oneTBB, LLVM's OpenMP for clang, the jemalloc, mimalloc
# and tcmalloc allocators, and python3-venv (bench/run makes bench/.venv for its plots).
#
#   scripts/install-deps.sh [--bench] [--verbose] [--print]
#
# --print: print the packages that are missing, on one line, and install nothing.
#
# Idempotent: prints nothing and changes nothing when everything is present. Runs apt-get and
# update-alternatives as root, or through sudo. Exits non-zero if something missing cannot be
# installed.
set -euo pipefail

bench=0
verbose=0
print_only=0
for arg in "$@"; do
    case "$arg" in
        --bench) bench=1 ;;
        -v | --verbose) verbose=1 ;;
        --print) print_only=1 ;;
        -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
        *) echo "install-deps: unknown argument '$arg' (try --help)" >&2; exit 2 ;;
    esac
done

missing=()  # Debian packages to install
present=()  # what was already there

# need_cmd COMMAND PACKAGE: PACKAGE is needed unless COMMAND is on the PATH (however installed).
need_cmd() {
    if command -v "$1" >/dev/null 2>&1; then present+=("$1"); else missing+=("$2"); fi
}
# need_pkg PACKAGE: PACKAGE is needed unless dpkg says it is installed.
need_pkg() {
    if dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q '^install ok installed$'; then
        present+=("$1")
    else
        missing+=("$1")
    fi
}

need_cmd cmake cmake
need_cmd ninja ninja-build
need_cmd gcc gcc
need_cmd g++ g++
need_cmd clang clang
need_cmd make make
need_cmd pkg-config pkg-config
need_cmd spin spin
need_cmd python3 python3
need_pkg libopenmpi-dev
need_cmd mpirun openmpi-bin
need_cmd gfortran gfortran
need_pkg imagemagick
need_pkg graphicsmagick
need_pkg python3-numpy
need_pkg libopenblas0-openmp
if [ "$bench" = 1 ]; then
    need_pkg libtbb-dev
    need_pkg libomp-dev
    need_pkg libjemalloc-dev
    need_pkg libmimalloc-dev
    need_pkg libgoogle-perftools-dev
    need_pkg python3-venv
fi

if [ "$print_only" = 1 ]; then
    if [ "${#missing[@]}" -gt 0 ]; then echo "${missing[*]}"; fi
    exit 0
fi

# blas_to_select: "NAME PATH" for each alternative of libblas.so.3 and liblapack.so.3 (one per
# architecture) that has an OpenBLAS OpenMP choice not selected: numpy then runs its BLAS on
# libgomp, which tests/omp needs. Nothing else of merino's build uses a BLAS.
blas_to_select() {
    command -v update-alternatives >/dev/null 2>&1 || return 0
    local name mode current want
    update-alternatives --get-selections 2>/dev/null | grep -E '^(libblas|liblapack)\.so\.3-' |
        while read -r name mode current; do
            want=$(update-alternatives --list "$name" | grep -m1 '/openblas-openmp/' || true)
            if [ -n "$want" ] && [ "$want" != "$current" ]; then echo "$name $want"; fi
        done
}

# find_sudo WHAT: sets sudo=() as root, sudo=(sudo) otherwise, or fails naming WHAT to run as root.
find_sudo() {
    if [ "$(id -u)" -eq 0 ]; then
        sudo=()
    elif command -v sudo >/dev/null 2>&1; then
        sudo=(sudo)
    else
        echo "install-deps: not root and no sudo; as root run: $1" >&2
        exit 1
    fi
}

select_blas() {
    local name want
    while read -r name want; do
        find_sudo "update-alternatives --set $name $want"
        "${sudo[@]}" update-alternatives --quiet --set "$name" "$want"
        echo "install-deps: $name: $want"
    done < <(blas_to_select)
}

if [ "${#missing[@]}" -eq 0 ]; then
    if [ "$verbose" = 1 ]; then echo "install-deps: all present: ${present[*]}"; fi
    select_blas
    exit 0
fi

echo "install-deps: already present: ${present[*]:-none}"
echo "install-deps: installing: ${missing[*]}"

if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-deps: apt-get not found; install these by hand: ${missing[*]}" >&2
    exit 1
fi
find_sudo "apt-get install ${missing[*]}"

export DEBIAN_FRONTEND=noninteractive
# Wait (up to 10 minutes) rather than fail when another apt-get holds the lock.
apt=("${sudo[@]}" apt-get -o DPkg::Lock::Timeout=600)
"${apt[@]}" update -qq
"${apt[@]}" install -y -qq --no-install-recommends "${missing[@]}"
echo "install-deps: installed: ${missing[*]}"
select_blas
