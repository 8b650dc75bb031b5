#!/usr/bin/env bash
# mpirun.sh NP SECONDS [--expect-fail TEXT] PROGRAM [ARGS...] — runs PROGRAM on NP ranks for the
# MPI tests (tests/mpi/CMakeLists.txt), as users run it on this machine:
#   - through $MERINO_MPIEXEC (else mpirun), with --oversubscribe under Open MPI (4 ranks on
#     2 cores) and no binding (a rank's workers must not share one core);
#   - as root if need be: Open MPI refuses to run as root unless OMPI_ALLOW_RUN_AS_ROOT=1 and
#     OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 are set (CI runs as root in a container), so they are set;
#   - with a time limit: a job still running after SECONDS is killed and the test fails with a
#     message (a rank that hangs never hangs the test suite). A rank that fails ends the job
#     (the programs call MPI_Abort; mpirun exits non-zero when any rank does).
# --expect-fail TEXT: the job must fail, and its output must contain TEXT.
set -uo pipefail

if [ $# -lt 3 ]; then
    echo "usage: mpirun.sh NP SECONDS [--expect-fail TEXT] PROGRAM [ARGS...]" >&2
    exit 2
fi
np=$1 seconds=$2
shift 2
expect=""
if [ "$1" = "--expect-fail" ]; then
    expect=$2
    shift 2
fi

mpiexec=${MERINO_MPIEXEC:-mpirun}
if ! command -v "$mpiexec" >/dev/null 2>&1; then
    echo "mpirun.sh: $mpiexec not found: apt-get install openmpi-bin (or set MERINO_MPIEXEC)" >&2
    exit 1
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
opts=(-np "$np")
version=$("$mpiexec" --version 2>&1 || true)
if [[ $version == *"Open MPI"* || $version == *OpenRTE* ]]; then
    opts+=(--oversubscribe --bind-to none)
else
    opts+=(-bind-to none) # MPICH's Hydra oversubscribes by itself
fi

out=$(mktemp)
trap 'rm -f "$out"' EXIT
timeout -k 5 "$seconds" "$mpiexec" "${opts[@]}" "$@" >"$out" 2>&1
rc=$?
cat "$out"
if [ -n "$expect" ] && [ $rc -ne 0 ] && grep -qF -- "$expect" "$out"; then
    # The job failed as it should, saying so (killed, if mpirun itself hung on its way out: Open
    # MPI's launcher has been seen to, after a rank's MPI_Abort).
    echo "mpirun.sh: failed as expected (exit $rc), saying '$expect'"
    exit 0
fi
if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    echo "mpirun.sh: FAILED: $* on $np ranks still ran after $seconds s and was killed (a rank hangs?)" >&2
    exit 1
fi
if [ -n "$expect" ]; then
    if [ $rc -eq 0 ]; then
        echo "mpirun.sh: FAILED: $* on $np ranks succeeded, but it should have failed" >&2
        exit 1
    fi
    if ! grep -qF -- "$expect" "$out"; then
        echo "mpirun.sh: FAILED: the job failed (exit $rc) without saying '$expect'" >&2
        exit 1
    fi
    echo "mpirun.sh: failed as expected (exit $rc), saying '$expect'"
    exit 0
fi
if [ $rc -ne 0 ]; then
    echo "mpirun.sh: FAILED: $* on $np ranks exited with $rc" >&2
    exit 1
fi
