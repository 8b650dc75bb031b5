#!/usr/bin/env python3
"""test_layers: the layer rule of docs/architecture.md, checked on the object files of a build.

A layer calls only the layers before it (sys, alloc, core, graph, loop, prof, algo, omp, mpi), and
files never call each other in a circle. From each layer's object files (nm), this checks:

  1. no object of a layer references a symbol defined in a layer after it;
  2. no two object files of a build call each other in a circle (directly or through others);
  3. no function or variable name is defined in two layers (file-local ones included), so that a
     name says which layer it is in;
  4. in the sources, every file of src/<layer>/ includes the internal headers of its own layer or
     the ones before it, written "<layer>/<file>.h" (never "../"), and the public headers of those
     layers only (sys, below every public header, includes none).

The one exception is the profiler's link-time seam (docs/architecture.md, "The profiler's seam"):
in the profiled variant (libmerino_prof), the layers below prof call the profiler's functions that
the seam headers declare for them -- SEAM_HEADERS below, read by this script -- and prof defines.
Nothing else may go up.

Usage: test_layers.py MANIFEST SOURCE_DIR
MANIFEST (written by tests/CMakeLists.txt) has one line per layer of a variant of the library:
"<variant> <layer> <object or archive> ...". Exits 77 (skipped) when nm is missing.
"""
import collections
import os
import re
import shutil
import subprocess
import sys

ORDER = ["sys", "alloc", "core", "graph", "loop", "prof", "algo", "omp", "mpi"]

# The seam headers: the functions of prof that the layers below it call in the profiled variant.
SEAM_HEADERS = ["src/core/prof_hooks.h", "src/graph/prof_hooks.h", "src/loop/prof_hooks.h",
                "include/merino/internal/prof.h"]
SEAM_NAME = re.compile(r"\b((?:mrn|merino_)_prof_\w+)\b")


def seam_symbols(source_dir):
    names = set()
    for header in SEAM_HEADERS:
        with open(os.path.join(source_dir, header), encoding="utf-8") as f:
            names.update(SEAM_NAME.findall(f.read()))
    return names


# Circles of files that exist and are still to break, each named by the files it may span: one
# confined to these files is reported but not counted; any other circle fails. Remove an entry once
# its files no longer call each other in a circle.
KNOWN_CYCLES = [
    # the OpenMP layer's files (team, tasks, waits, ICVs) call each other throughout
    ("src/omp", {f"src/omp/{f}" for f in (
        "alloc.c env.c fortran.c gomp_loop.c gomp_ordered.c gomp_parallel.c gomp_sync.c "
        "gomp_target.c gomp_taskloop.c gomp_work.c heap.c icv.c loopsched.c misc.c places.c "
        "reduce.c task.c team.c thread.c wait.c work.c").split()}),
]

# The layer each public header belongs to (include/).
PUBLIC = {"merino_alloc.h": "alloc", "merino.h": "core", "merino/internal/task_stack.h": "core",
          "merino/internal/task_macros.h": "core", "merino/internal/layer.h": "core",
          "merino_graph.h": "graph", "merino/internal/graph.h": "graph",
          "merino_loop.h": "loop", "merino/internal/loop.h": "loop",
          "merino_prof.h": "prof", "merino/internal/prof.h": "prof", "merino_mpi.h": "mpi"}
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def check_includes(source_dir):
    """Prints each include that breaks rule 4; returns their number."""
    errors = 0
    src = os.path.join(source_dir, "src")
    for layer in ORDER:
        folder = os.path.join(src, layer)
        if not os.path.isdir(folder):
            continue
        for root, _, files in os.walk(folder):
            for f in sorted(files):
                if not f.endswith((".c", ".h", ".cpp")):
                    continue
                path = os.path.join(root, f)
                rel = os.path.relpath(path, source_dir)
                with open(path, encoding="utf-8") as fh:
                    text = fh.read()
                for inc in INCLUDE.findall(text):
                    first = inc.split("/")[0]
                    if inc in PUBLIC:
                        owner = PUBLIC[inc]
                    elif first in ORDER and "/" in inc:
                        owner = first
                    elif os.path.exists(os.path.join(root, inc)):
                        real = os.path.relpath(os.path.normpath(os.path.join(root, inc)), src)
                        print(f"test_layers: {rel} includes \"{inc}\": write the layer's folder, "
                              f"\"{real}\"", file=sys.stderr)
                        errors += 1
                        owner = real.split(os.sep)[0]
                        if owner not in ORDER:
                            continue
                    else:
                        continue  # a system header, or a file of the build
                    if ORDER.index(owner) > ORDER.index(layer):
                        print(f"test_layers: {rel} (layer {layer}) includes \"{inc}\" of layer "
                              f"{owner}, after it: a layer uses only the layers before it",
                              file=sys.stderr)
                        errors += 1
    return errors


def read_objects(paths):
    """{object name: (defined globals, undefined, defined locals)} from nm -A -P."""
    run = subprocess.run(["nm", "-A", "-P"] + paths, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"test_layers: nm failed on the objects of the manifest (build the library "
                 f"first):\n{run.stderr.strip()}")
    out = run.stdout
    objs = collections.defaultdict(lambda: (set(), set(), set()))
    for line in out.splitlines():
        # "archive[member.o]: name type value size" or "file.o: name type ..."
        where, _, rest = line.rpartition(": ")
        fields = rest.split()
        if len(fields) < 2:
            continue
        name, kind = fields[0], fields[1]
        defined, undefined, local = objs[where]
        if kind in "Uw":
            undefined.add(name)
        elif kind.isupper() or kind == "u":
            defined.add(name)
        elif kind in "tdbr" and "." not in name and not name.startswith("_"):
            local.add(name)  # not the compiler's own (_sub_I_..., .L..., x.0) nor a sanitizer's
    return objs


def short(obj, layer):
    """A readable name for an object: src/<layer>/<file>.c for CMake's foo.c.o (or an archive's)."""
    member = re.search(r"\[(.+)\]$", obj)
    name = os.path.basename(member.group(1) if member else obj)
    return f"src/{layer}/{name[:-2] if name.endswith('.o') else name}"


def cycles(edges):
    """The strongly connected components of more than one node (Tarjan's algorithm)."""
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in list(edges):
        if v not in index:
            visit(v)
    return found


def header_statics(source_dir):
    """The static functions the headers define (each object that uses one may keep a copy of it,
    in builds that do not inline: they are the header's, not a namesake)."""
    names = set()
    for top in ("src", "include"):
        for root, _, files in os.walk(os.path.join(source_dir, top)):
            for f in files:
                if not f.endswith((".h", ".hpp")):
                    continue
                with open(os.path.join(root, f), encoding="utf-8") as fh:
                    for line in fh:
                        if line.startswith("static"):
                            m = re.search(r"(\w+)\s*\(", re.sub(r"__attribute__\(\(.*?\)\)", "", line))
                            if m:
                                names.add(m.group(1))
    return names


def check_variant(variant, layers, seam, statics):
    """Prints each breach of the rule in one variant of the library; returns their number."""
    errors = 0
    objs = {}        # object -> (layer, defined, undefined, local)
    where = {}       # global symbol -> object defining it
    for layer, paths in layers.items():
        for obj, (defined, undefined, local) in read_objects(paths).items():
            objs[obj] = (layer, defined, undefined, local)
            for s in defined:
                where[s] = obj
    rank = {layer: ORDER.index(layer) for layer in layers}

    def name(o):
        return short(o, objs[o][0])

    edges = collections.defaultdict(dict)   # object -> {object it calls: [symbols]}
    for obj, (layer, _, undefined, _) in sorted(objs.items()):
        for s in sorted(undefined):
            target = where.get(s)
            if target is None:
                continue
            up = objs[target][0]
            if variant == "prof" and up == "prof" and rank[layer] < rank[up] and s in seam:
                continue  # the seam: neither a breach nor a file's call (prof calls back down)
            if target != obj:
                edges[obj].setdefault(target, []).append(s)
            if rank[up] <= rank[layer]:
                continue
            print(f"test_layers: {variant}: {name(obj)} (layer {layer}) uses {s}, defined in "
                  f"{name(target)} (layer {up}, after it): a layer calls only the layers before it "
                  f"(docs/architecture.md); move the code down, or register a hook",
                  file=sys.stderr)
            errors += 1

    for comp in cycles(edges):
        known = next((k for k in KNOWN_CYCLES if {name(o) for o in comp} <= k[1]), None)
        if known:  # listed below, with the work that breaks it: reported, not counted
            print(f"test_layers: {variant}: known circle in {known[0]} ({len(comp)} files), "
                  "still to break", file=sys.stderr)
            continue
        calls = [f"{name(a)} -> {name(b)} ({', '.join(edges[a][b][:3])})"
                 for a in comp for b in comp if b in edges[a]]
        print(f"test_layers: {variant}: files call each other in a circle: "
              + "; ".join(calls)
              + ". Move the shared part into a file of its own that the others call",
              file=sys.stderr)
        errors += 1

    names = collections.defaultdict(set)
    for obj, (layer, defined, _, local) in objs.items():
        for s in defined | local:
            names[s].add((layer, obj))
    for s, places in sorted(names.items()):
        if len({layer for layer, _ in places}) > 1 and s not in statics:
            print(f"test_layers: {variant}: {s} is defined in more than one layer: "
                  + ", ".join(sorted(short(o, layer) for layer, o in places))
                  + "; name it after its layer", file=sys.stderr)
            errors += 1
    return errors, len(objs)


def main():
    if len(sys.argv) != 3:
        print("usage: test_layers.py MANIFEST SOURCE_DIR", file=sys.stderr)
        return 2
    if shutil.which("nm") is None:
        print("test_layers: skipped: nm (binutils) is not installed", file=sys.stderr)
        return 77
    variants = collections.defaultdict(dict)
    with open(sys.argv[1], encoding="utf-8") as f:
        for line in f:
            fields = line.split()
            if len(fields) >= 3:
                if fields[1] not in ORDER:
                    print(f"test_layers: {sys.argv[1]}: unknown layer {fields[1]}", file=sys.stderr)
                    return 2
                variants[fields[0]][fields[1]] = fields[2:]
    seam = seam_symbols(sys.argv[2])
    statics = header_statics(sys.argv[2])
    errors = check_includes(sys.argv[2])
    print(f"test_layers: the includes of src/: {'ok' if errors == 0 else str(errors) + ' breaches'}")
    for variant, layers in sorted(variants.items()):
        n, count = check_variant(variant, layers, seam, statics)
        print(f"test_layers: {variant}: {count} object files of {', '.join(layers)}: "
              f"{'ok' if n == 0 else str(n) + ' breaches'}")
        errors += n
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
