#!/usr/bin/env bash
# The README's commands work on a fresh clone: clone the repository (its committed HEAD) into a
# temporary directory, then take README.md's code blocks in order — the C, C++ and CMake examples
# saved as app.c, app.cpp and CMakeLists.txt — and run every line of its sh blocks exactly as
# written, /opt/merino standing for a temporary prefix: make install, the pkg-config one-liners
# and the CMake build, each program run printing the example's fib result. `make test` and
# `make bench` are skipped (this test is part of make test; the benchmarks take long).
# Commands that start with `make` run in the clone, the others where the examples are saved.
# Needs MERINO_SOURCE_DIR (a git checkout; uncommitted changes are not in the clone).
set -euo pipefail
: "${MERINO_SOURCE_DIR:?set MERINO_SOURCE_DIR to the merino source directory}"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
clone="$work/merino"
prefix="$work/prefix"
app="$work/app"
mkdir -p "$app" "$work/blocks"
# Nothing from the caller's environment may help the programs find merino.
unset LD_LIBRARY_PATH PKG_CONFIG_PATH CMAKE_PREFIX_PATH MERINO_WORKERS

fail() {
    echo "test_readme: FAILED: $*" >&2
    exit 1
}

git clone -q "$MERINO_SOURCE_DIR" "$clone" || fail "git clone $MERINO_SOURCE_DIR"
echo "test_readme: fresh clone of $(git -C "$clone" log --oneline -1)"

# Code blocks of README.md into blocks/NN.<language>, in order.
awk -v dir="$work/blocks" '
    /^```[a-z+]*[ \t]*$/ && !inside { inside = 1; n++; lang = substr($0, 4); sub(/[ \t]+$/, "", lang);
                                      file = sprintf("%s/%02d.%s", dir, n, lang == "" ? "txt" : lang); next }
    /^```[ \t]*$/ && inside { inside = 0; close(file); next }
    inside { print > file }
' "$clone/README.md"

# The examples: exactly one whole program in C and one in C++ (the block with a main; other
# blocks of those languages are fragments), and one CMake block.
save_example() { # save_example LANGUAGE FILE
    local blocks=() b
    for b in "$work"/blocks/*."$1"; do
        [ -e "$b" ] || continue
        if [ "$1" = cmake ] || grep -q 'main(' "$b"; then blocks+=("$b"); fi
    done
    [ "${#blocks[@]}" = 1 ] ||
        fail "README.md has ${#blocks[@]} whole \`\`\`$1 examples, this test expects one (update it with the README)"
    cp "${blocks[0]}" "$app/$2"
}
save_example c app.c
save_example cpp app.cpp
save_example cmake CMakeLists.txt

# What each program must print: fib(N) of the C example's MERINO_RUN(fib, N).
n=$(grep -oE 'MERINO_RUN\(fib, [0-9]+\)' "$app/app.c" | grep -oE '[0-9]+' | head -n 1)
[ -n "$n" ] || fail "no MERINO_RUN(fib, N) in the README's C example"
a=0 b=1
for ((i = 0; i < n; i++)); do t=$((a + b)) a=$b b=$t; done
want=$a
echo "test_readme: the programs must print fib($n) = $want"

ran=0 programs=0
for block in "$work"/blocks/*.sh; do
    while IFS= read -r line || [ -n "$line" ]; do
        cmd=${line%%#*}                      # no comment
        cmd=${cmd%"${cmd##*[![:space:]]}"}   # no trailing blanks
        [ -n "${cmd//[[:space:]]/}" ] || continue
        case "$cmd" in
            "make test"* | "make bench"*)
                echo "test_readme: skipped: $cmd (not run from a test)"
                continue ;;
        esac
        cmd=${cmd//\/opt\/merino/$prefix}
        case "$cmd" in make*) dir=$clone ;; *) dir=$app ;; esac
        echo "test_readme: (in ${dir#"$work"/}) $cmd"
        cd "$dir"
        if ! eval "$cmd" >"$work/out" 2>&1; then
            sed 's/^/    | /' "$work/out" | tail -n 40 >&2
            fail "$line"
        fi
        ran=$((ran + 1))
        if [[ "$cmd" == *"./"* ]]; then # it runs a program
            programs=$((programs + 1))
            grep -qw -- "$want" "$work/out" || {
                sed 's/^/    | /' "$work/out" >&2
                fail "$line: the output does not have $want"
            }
        fi
    done <"$block"
done

[ "$ran" -gt 0 ] || fail "no command found in README.md's sh blocks"
[ -f "$prefix/include/merino.h" ] || fail "make install did not install include/merino.h into the prefix"
[ "$programs" -ge 3 ] || fail "only $programs of README.md's commands run a program (want the C, C++ and CMake builds)"
echo "test_readme: ok ($ran commands, $programs programs printed $want)"
