#!/usr/bin/env bash
# debian.sh — programs from Debian that link libgomp give the same output on another OpenMP runtime
# (LD_PRELOAD) as on libgomp, at OMP_NUM_THREADS 1, 2, 3 and 8:
#   imagemagick      convert: -resize, -blur, -rotate with -sharpen on a generated 800x600 image;
#                    the output images compared byte for byte
#   graphicsmagick   gm convert: the same operations
#   numpy            /usr/bin/python3's numpy on OpenBLAS's OpenMP build (libopenblas0-openmp):
#                    a 400x400 matrix product of integer-valued doubles, checked against the exact
#                    integer product, its bytes hashed; numpy must really be on that OpenBLAS
#                    (openblas_get_parallel() says OpenMP) and the runtime under test mapped
#
#   debian.sh PROGRAM [LIB]
#
# The reference is the program on libgomp at one thread. Without LIB (libmerino_omp.so not built)
# the program's runs on libgomp at 1, 2, 3 and 8 threads must match it. scripts/install-deps.sh
# installs the three; exit 77 (skipped) when one is missing or does not link libgomp.
set -u
what=${1:?debian.sh: give imagemagick, graphicsmagick or numpy}
lib=${2:-}
if [ -n "$lib" ] && [ ! -f "$lib" ]; then echo "debian: $lib does not exist (build merino_omp)"; exit 2; fi
threads=${OMPTEST_THREADS:-1 2 3 8}
for v in $(compgen -e); do
    case "$v" in OMP_* | GOMP_* | KMP_* | MAGICK_*) unset "$v" ;; esac
done

skip() { echo "debian $what: SKIPPED: $*"; exit 77; }

# elf_command NAME...: the first NAME on the PATH that is an ELF program (not a wrapper script).
elf_command() {
    local c p
    for c in "$@"; do
        p=$(command -v "$c" 2>/dev/null) || continue
        p=$(readlink -f "$p")
        [ "$(head -c 4 "$p" 2>/dev/null | od -An -c | tr -d ' ')" = '177ELF' ] && { echo "$p"; return 0; }
    done
    return 1
}

links_libgomp() { ldd "$1" 2>/dev/null | grep -q 'libgomp\.so\.1 => /'; }

work=$(mktemp -d "${TMPDIR:-/tmp}/omptest-debian.XXXXXX")
trap 'rm -rf "$work"' EXIT

# preload RUNTIME: LD_PRELOAD's value for a program on RUNTIME (a library, or "" for libgomp itself),
# keeping what the caller preloads. It is given to the program only (env), not to timeout.
preload() { if [ -n "$1" ]; then echo "${LD_PRELOAD:+$LD_PRELOAD:}$1"; else echo "${LD_PRELOAD:-}"; fi; }

# run_case DIR N RUNTIME: the case's commands in DIR at OMP_NUM_THREADS=N, on RUNTIME (a library to
# preload, or "" for libgomp itself); its outputs are the files it leaves in DIR.
case "$what" in
    imagemagick | graphicsmagick)
        if [ "$what" = imagemagick ]; then
            prog=$(elf_command convert-im6.q16 convert-im6.q8 magick convert) ||
                skip "no ImageMagick convert (apt-get install imagemagick, or scripts/install-deps.sh)"
            tool=("$prog")
            "$prog" -version | grep -q 'OpenMP' || skip "$prog is built without OpenMP"
        else
            prog=$(elf_command gm) || skip "no GraphicsMagick gm (apt-get install graphicsmagick)"
            tool=("$prog" convert)
        fi
        links_libgomp "$prog" || skip "$prog does not link libgomp.so.1 (ldd)"
        # the input, made once, on one thread (ImageMagick's noise is seeded; gm has no -seed)
        make=(-size 800x600 gradient:red-blue -swirl 120)
        if [ "$what" = imagemagick ]; then make+=(-seed 7 +noise Gaussian); else make+=(-implode 0.4); fi
        OMP_NUM_THREADS=1 "${tool[@]}" "${make[@]}" "$work/in.ppm" ||
            { echo "debian $what: making the input image failed"; exit 1; }
        ops=("-resize 61%" "-blur 0x3" "-rotate 17 -sharpen 0x1")
        run_case() {
            local k=0 op
            for op in "${ops[@]}"; do
                # shellcheck disable=SC2086  # op is words
                OMP_NUM_THREADS=$2 timeout -k 5 120 env LD_PRELOAD="$(preload "$3")" \
                    "${tool[@]}" "$work/in.ppm" $op "$1/out$k.ppm" 2>"$1/err$k" || return 1
                k=$((k + 1))
            done
        }
        described="${#ops[@]} operations (${ops[*]})"
        ;;
    numpy)
        py=/usr/bin/python3
        [ -x "$py" ] || skip "no $py"
        "$py" -I -c 'import numpy' 2>/dev/null || skip "no numpy for $py (apt-get install python3-numpy)"
        compgen -G '/usr/lib/*/openblas-openmp/libopenblasp*.so*' >/dev/null ||
            skip "no OpenBLAS OpenMP build (apt-get install libopenblas0-openmp)"
        cat >"$work/matmul.py" <<'PY'
import ctypes, hashlib, os, sys
import numpy as np
runtime = os.environ["OMPTEST_RUNTIME"]
rng = np.random.default_rng(1)
a = rng.integers(-8, 9, size=(400, 400))
b = rng.integers(-8, 9, size=(400, 400))
c = a.astype(np.float64) @ b.astype(np.float64)  # dgemm: OpenBLAS, parallel under OpenMP
maps = {l.split()[-1] for l in open("/proc/self/maps") if l.split()[-1].startswith("/")}
core = [p for p in maps if os.path.basename(p).startswith("libopenblas")]
if not any("openblas-openmp" in p for p in core):
    sys.exit("numpy does not use OpenBLAS's OpenMP build but %s: select it with update-alternatives "
             "(scripts/install-deps.sh does: libblas.so.3 and liblapack.so.3)" % (sorted(core) or "no OpenBLAS"))
if ctypes.CDLL(core[0]).openblas_get_parallel() != 2:
    sys.exit("%s is not OpenBLAS's OpenMP build (openblas_get_parallel() != 2)" % core[0])
if not any(runtime in os.path.basename(p) for p in maps):
    sys.exit("the runtime under test (%s) is not mapped in the process" % runtime)
if not np.array_equal(c, (a @ b).astype(np.float64)):
    sys.exit("the product differs from the exact integer product")
print("400x400 product exact, trace %d, sha256 %s" % (np.trace(c), hashlib.sha256(c.tobytes()).hexdigest()))
PY
        run_case() {
            local runtime=libgomp
            [ -n "$3" ] && runtime=$(basename "$3" | sed 's/\.so.*//')
            OMP_NUM_THREADS=$2 OMPTEST_RUNTIME=$runtime timeout -k 5 120 env LD_PRELOAD="$(preload "$3")" \
                "$py" -I "$work/matmul.py" >"$1/out.txt" 2>"$1/err.txt"
        }
        described="a matrix product"
        ;;
    *) echo "debian.sh: unknown program '$what' (imagemagick, graphicsmagick, numpy)"; exit 2 ;;
esac

mkdir "$work/ref"
run_case "$work/ref" 1 "" || { echo "debian $what: the reference run (libgomp, 1 thread) failed:"; cat "$work"/ref/err*; exit 1; }
runtimes=("")
[ -n "$lib" ] && runtimes+=("$lib")
runs=0 failed=0
for rt in "${runtimes[@]}"; do
    for n in $threads; do
        name=${rt:+$(basename "$rt")}
        name=${name:-libgomp}
        dir="$work/$name.$n"
        mkdir "$dir"
        runs=$((runs + 1))
        if ! { run_case "$dir" "$n" "$rt"; } 2>/dev/null; then
            failed=$((failed + 1))
            echo "FAIL $what on $name, OMP_NUM_THREADS=$n: the program failed (exit status not 0):"
            cat "$dir"/err* | head -n 20 | sed 's/^/    /'
            continue
        fi
        differs=""
        for f in "$work"/ref/out*; do
            cmp -s "$f" "$dir/$(basename "$f")" || differs="$differs $(basename "$f")"
        done
        if [ -n "$differs" ]; then
            failed=$((failed + 1))
            echo "FAIL $what on $name, OMP_NUM_THREADS=$n: differs from libgomp's at 1 thread:$differs"
        fi
    done
done
[ "$what" = numpy ] && cat "$work/ref/out.txt"
echo "debian $what: $described on libgomp${lib:+ and $(basename "$lib")} at OMP_NUM_THREADS $threads: $((runs - failed)) runs identical to libgomp's at 1 thread, $failed not"
[ $failed -eq 0 ]
