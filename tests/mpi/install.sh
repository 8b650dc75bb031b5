#!/usr/bin/env bash
# mpi_install_consumer: install this build into a scratch prefix, then build examples/mpi/
# ssend_recv.c against it as a user would — with `cc $(pkg-config --cflags --libs merino-mpi)`
# and through find_package(merino) with merino::mpi and merino::mpi_shared — and run each on
# 2 ranks with one worker (tests/mpi/mpirun.sh).
set -euo pipefail
: "${MERINO_SOURCE_DIR:?}" "${MERINO_BUILD_DIR:?}"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$MERINO_BUILD_DIR/tests/mpi/install_consumer
libdir=${MERINO_LIBDIR:-lib}
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix

step() { echo "mpi_install_consumer: $1"; shift; "$@"; }

step "cmake --install into $prefix" cmake --install "$MERINO_BUILD_DIR" --prefix "$prefix" >/dev/null
for f in include/merino_mpi.h include/merino/internal/layer.h "$libdir/libmerino_mpi.a" \
         "$libdir/libmerino_mpi.so" "$libdir/pkgconfig/merino-mpi.pc" \
         "$libdir/cmake/merino/merinoMpiTargets.cmake"; do
    if [ ! -e "$prefix/$f" ]; then
        echo "mpi_install_consumer: $f was not installed into $prefix" >&2
        exit 1
    fi
done

example=$MERINO_SOURCE_DIR/examples/mpi/ssend_recv.c
export MERINO_WORKERS=1

# pkg-config, with the plain C compiler (the .pc carries the MPI's flags)
pc=${PKG_CONFIG:-pkg-config}
flags=$(PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig "$pc" --cflags --libs merino-mpi)
echo "mpi_install_consumer: pkg-config --cflags --libs merino-mpi: $flags"
# shellcheck disable=SC2086
step "build with pkg-config" "${CC:-cc}" -std=gnu11 -O2 "$example" -o "$work/pc_consumer" $flags
step "run the pkg-config build on 2 ranks" bash "$here/mpirun.sh" 2 60 "$work/pc_consumer" 20

# CMake: find_package(merino) then merino::mpi / merino::mpi_shared
gen=()
if [ -n "${MERINO_GENERATOR:-}" ]; then gen=(-G "$MERINO_GENERATOR"); fi
# The MPI merino_mpi was built with (with two MPIs installed, the consumer's find_package(MPI)
# would otherwise take the system default and mix the two: MPICH's library, Open MPI's header).
if [ -n "${MERINO_MPI_C_COMPILER:-}" ]; then gen+=("-DMPI_C_COMPILER=$MERINO_MPI_C_COMPILER"); fi
step "configure the find_package consumer" cmake -S "$here/consumer" -B "$work/cmake" "${gen[@]}" \
    -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=$prefix" "-DEXAMPLE=$example" >/dev/null
found=$(sed -n 's/^merino_DIR:[A-Z]*=//p' "$work/cmake/CMakeCache.txt")
if [ "$(realpath "$found")" != "$(realpath "$prefix/$libdir/cmake/merino")" ]; then
    echo "mpi_install_consumer: find_package found merino in $found, not in $prefix" >&2
    exit 1
fi
step "build the find_package consumer" cmake --build "$work/cmake" >/dev/null
step "run consumer_mpi (merino::mpi)" bash "$here/mpirun.sh" 2 60 "$work/cmake/consumer_mpi" 20
step "run consumer_mpi_shared (merino::mpi_shared)" bash "$here/mpirun.sh" 2 60 "$work/cmake/consumer_mpi_shared" 20
echo "mpi_install_consumer: ok"
