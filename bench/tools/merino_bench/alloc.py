"""bench/run alloc (or bench/alloc/run) — the allocator benchmarks against their peers, in one table.

Every benchmark of bench/alloc (built as <build>/bench/alloc/alloc-<name>) runs under each allocator,
chosen by LD_PRELOAD: glibc (none), tbbmalloc (libtbbmalloc_proxy), tcmalloc (libtcmalloc_minimal),
jemalloc, mimalloc and merino (libmerino_malloc.so); at 1 and 2 threads and 4 (oversubscribed on a
2-core machine). Rounds are interleaved — each round runs every (benchmark, threads, allocator) once,
in a shuffled order — and the table shows medians over the rounds (at least 5): throughput in
millions of operations per second (with the range), peak RSS, and RSS 200 ms after the program
freed everything, idle meanwhile (the results file also keeps it as read at once: rss_at_free_kb). A
run whose program fails its own verification, or exits non-zero, is reported as FAIL.

  bench/run alloc [--build-dir build] [--rounds 5] [--scale 1] [--threads 1,2,4]
                  [--only larson-few,mts] [--allocators glibc,merino] [--extra NAME=LIB] [--quick]
                  [--out RESULTS.jsonl] [--plot FIGURE.png | --no-plot]

Every sample goes to a results file of JSON lines (--out; by default
bench/results/alloc-<date>-<time>.jsonl, with a first line naming the commit and the machine), and
one figure is drawn beside it (--plot to put it elsewhere): three panels, one group of bars per
(benchmark, threads), one bar per allocator — throughput as a share of the group's fastest, peak
RSS, RSS after freeing. matplotlib comes from bench/.venv, made from bench/tools/requirements.txt on
first need (pyenv.py); `python3 -m merino_bench.allocplot RESULTS.jsonl OUT.png`, run from
bench/tools/, draws it again from a results file.

--extra NAME=LIB[,NAME=LIB...] adds other builds of libmerino_malloc.so (main's, a variant), each
run as the allocator NAME in the same rounds as the rest: a paired comparison of a change.

--allocators may also name merino-retain8m (merino with MERINO_ALLOC_RETAIN=8192), merino-nodecay
(MERINO_ALLOC_DECAY_MS=0) and merino-clear (MERINO_ALLOC_CALLOC_DECOMMIT=0), run only when named.

Before every run the runner times a cache line handed back and forth between two threads
(alloc-pingpong, pingpong.c) and records beside the sample the median round trip of its 41 chunks
and their mean: the median is the machine's cross-core latency, the mean rises when a vCPU was
preempted during the probe (a chunk that took milliseconds). The table's header says how both
spread; the results file keeps them per sample, to look for runs that met a disturbed machine.

--quick: tiny sizes (scale 0.02), to check that everything runs — not a measurement. Timed runs
(scale 1) want a quiet machine.
"""
import argparse
import datetime
import json
import os
import random
import statistics
import subprocess
import sys

from . import BENCH_DIR, allocplot, plots
from .machine import machine_info

LIBDIR = "/usr/lib/x86_64-linux-gnu"
# (name, program, mode[, thread counts it runs at: the single-threaded shapes only at 1])
BENCHMARKS = [
    ("larson-few", "larson", "few"),
    ("larson-many", "larson", "many"),
    ("speed-cross", "speed-cross", ""),
    ("false-sharing-active", "false-sharing", "active"),
    ("false-sharing-passive", "false-sharing", "passive"),
    ("cache-scratch", "cache-scratch", ""),
    ("mts", "mts", ""),
    ("xmalloc-test", "xmalloc-test", ""),
    ("glibc-thread", "glibc-thread", ""),
    ("mstress", "mstress", ""),
    ("rptest", "rptest", ""),
    ("test-stress", "test-stress", ""),
    ("malloc-large-random", "malloc-large", "random", (1,)),
    ("malloc-large-fixed", "malloc-large", "fixed", (1,)),
]


# Variants run only when --allocators names them: (name, library, environment).
VARIANTS = [
    # merino keeping 8 MB of free blocks resident instead of 1 MB: fewer page faults and madvise
    # calls, more resident memory (the MTS mix shows the trade).
    ("merino-retain8m", "merino", {"MERINO_ALLOC_RETAIN": "8192"}),
    # merino giving free memory past the retained bound back at once instead of after its decay
    # period (100 ms): what the decay saves in page faults and madvise calls.
    ("merino-nodecay", "merino", {"MERINO_ALLOC_DECAY_MS": "0"}),
    # merino clearing every calloc of recycled memory instead of decommitting its pages from 48 KB
    # on: the MTS mix's speed against its peak resident memory (docs/alloc.md).
    ("merino-clear", "merino", {"MERINO_ALLOC_CALLOC_DECOMMIT": "0"}),
]


def allocators(build, names, extra):
    libs = [
        ("glibc", None),
        ("tbbmalloc", os.path.join(LIBDIR, "libtbbmalloc_proxy.so.2")),
        ("tcmalloc", os.path.join(LIBDIR, "libtcmalloc_minimal.so.4")),
        ("jemalloc", os.path.join(LIBDIR, "libjemalloc.so.2")),
        ("mimalloc", os.path.join(LIBDIR, "libmimalloc.so.2")),
        ("merino", os.path.join(build, "libmerino_malloc.so")),
    ]
    out = [(name, lib, {}) for name, lib in libs if not names or name in names]
    for item in extra:  # always run when given
        name, _, lib = item.partition("=")
        if not lib:
            sys.exit("bench/run alloc: --extra wants NAME=LIB, got %r" % item)
        out.append((name, os.path.abspath(lib), {}))
    by_name = dict(libs)
    out += [(name, by_name[base], env) for name, base, env in VARIANTS if name in names]
    return out


def run_one(exe, lib, threads, scale, mode, timeout, extra_env):
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    env.update(extra_env)
    if lib:
        env["LD_PRELOAD"] = lib
    args = [exe, str(threads), str(scale)] + ([mode] if mode else [])
    try:
        p = subprocess.run(args, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "timed out after %d s" % timeout
    line = next((l for l in p.stdout.splitlines() if l.startswith("RESULT ")), None)
    if p.returncode != 0 or not line or "verified=1" not in line:
        return None, "exit %d: %s" % (p.returncode, (p.stderr.strip().splitlines() or ["no RESULT line"])[-1])
    return dict(kv.split("=", 1) for kv in line.split()[1:]), None


def main(argv=None):
    ap = argparse.ArgumentParser(prog="bench/run alloc", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", default="build")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--threads", default="1,2,4")
    ap.add_argument("--only", default="")
    ap.add_argument("--allocators", default="")
    ap.add_argument("--extra", default="", help="NAME=LIB,...: other builds of libmerino_malloc.so, run as NAME")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--seed", type=int, default=None, help="seed of the shuffled run order")
    ap.add_argument("--out", default=None, help="the results file (JSON lines); default bench/results/alloc-<stamp>.jsonl")
    ap.add_argument("--plot", default=None, help="the figure (PNG); default beside the results file")
    ap.add_argument("--no-plot", action="store_true", help="draw no figure")
    a = ap.parse_args(argv)
    if a.quick:
        a.scale = 0.02
    if a.rounds < 5 and not a.quick:
        print("note: fewer than 5 rounds: the medians are not meant to be quoted", file=sys.stderr)
    build = os.path.abspath(a.build_dir)
    bindir = os.path.join(build, "bench", "alloc")
    threads = [int(t) for t in a.threads.split(",")]
    benches = [b[:3] + (b[3] if len(b) > 3 else None,) for b in BENCHMARKS if not a.only or b[0] in a.only.split(",")]
    allocs = []
    for name, lib, env in allocators(build, a.allocators.split(",") if a.allocators else [],
                                       a.extra.split(",") if a.extra else []):
        if lib and not os.path.exists(lib):
            print("skipping %s: %s not found" % (name, lib), file=sys.stderr)
            continue
        allocs.append((name, lib, env))
    for _, prog, _, _ in benches:
        if not os.path.exists(os.path.join(bindir, "alloc-" + prog)):
            sys.exit("bench/run alloc: %s/alloc-%s not built (cmake --build %s --target bench_alloc)"
                     % (bindir, prog, a.build_dir))

    probe_exe = os.path.join(bindir, "alloc-pingpong")
    if not os.path.exists(probe_exe):
        print("note: %s not built: no cross-core round trip recorded" % probe_exe, file=sys.stderr)
        probe_exe = None
    probes = []
    ncpu = os.cpu_count() or 1
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = a.out or os.path.join(BENCH_DIR, "results", "alloc-%s.jsonl" % stamp)
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    meta = dict(machine_info(), kind="meta", time=stamp, cpus=ncpu, rounds=a.rounds, scale=a.scale,
                threads=threads, allocators=[al[0] for al in allocs], benchmarks=[b[0] for b in benches])
    results = open(out, "w")
    results.write(json.dumps(meta) + "\n")
    configs = [(b, t, al) for b in benches for t in threads for al in allocs if not b[3] or t in b[3]]
    samples = {(b[0], t, al[0]): [] for b, t, al in configs}
    failures = {}
    rng = random.Random(a.seed)
    for r in range(a.rounds):
        order = configs[:]
        rng.shuffle(order)
        for (bname, prog, mode, _), t, (aname, lib, env) in order:
            pp, pp_mean = pingpong(probe_exe) if probe_exe else (None, None)
            if pp is not None:
                probes.append((pp, pp_mean))
            res, err = run_one(os.path.join(bindir, "alloc-" + prog), lib, t, a.scale, mode, a.timeout, env)
            rec = {"kind": "sample" if not err else "failure", "benchmark": bname, "threads": t,
                   "allocator": aname, "round": r, "pingpong_ns": pp, "pingpong_mean_ns": pp_mean}
            if err:
                failures[(bname, t, aname)] = err
                rec["error"] = err
            else:
                samples[(bname, t, aname)].append(res)
                rec.update(mops=float(res["mops"]), seconds=float(res["seconds"]),
                           peak_rss_kb=int(res["peak_rss_kb"]), rss_after_kb=int(res["rss_after_kb"]),
                           rss_at_free_kb=int(res.get("rss_at_free_kb", res["rss_after_kb"])))
            results.write(json.dumps(rec) + "\n")
            results.flush()
        print("round %d/%d done" % (r + 1, a.rounds), file=sys.stderr)

    head = ["benchmark", "threads", "allocator", "Mops/s", "(min..max)", "peak RSS MB", "RSS after MB"]  # after: 200 ms past the last free
    rows = []
    for (bname, _, _, _), t, (aname, _, _) in configs:
        key = (bname, t, aname)
        tlabel = "%d%s" % (t, " (oversub)" if t > ncpu else "")
        s = samples[key]
        if key in failures or not s:
            rows.append([bname, tlabel, aname, "FAIL", failures.get(key, "no run")[:60], "", ""])
            continue
        mops = [float(x["mops"]) for x in s]
        peak = statistics.median(int(x["peak_rss_kb"]) for x in s) / 1024
        after = statistics.median(int(x["rss_after_kb"]) for x in s) / 1024
        rows.append([bname, tlabel, aname, "%.2f" % statistics.median(mops),
                     "(%.2f..%.2f)" % (min(mops), max(mops)), "%.1f" % peak, "%.1f" % after])
    widths = [max(len(str(r[i])) for r in rows + [head]) for i in range(len(head))]
    fmt = "  ".join("%%-%ds" % w if i < 3 else "%%%ds" % w for i, w in enumerate(widths))
    print("allocator benchmarks: %d rounds interleaved, medians; scale %g; %d CPUs" % (a.rounds, a.scale, ncpu))
    if probes:
        med = [x for x, _ in probes]
        mean = [y for _, y in probes]
        print("cross-core round trip before each run: %.0f ns (%.0f..%.0f); probes' means %.0f ns (%.0f..%.0f), "
              "%d of %d above twice their median (a vCPU preempted)" % (
                  statistics.median(med), min(med), max(med), statistics.median(mean), min(mean), max(mean),
                  sum(1 for x, y in probes if y > 2 * x), len(probes)))
    print(fmt % tuple(head))
    last = None
    for row in rows:
        if last and row[0] != last:
            print()
        last = row[0]
        print(fmt % tuple(row))
    results.close()
    print("results: %s" % os.path.relpath(out))
    if not a.no_plot:
        plot(out, a.plot or (out[:-len(".jsonl")] if out.endswith(".jsonl") else out) + ".png")
    return 1 if failures else 0


def pingpong(exe):
    """The probe's median and mean round trip in ns, or (None, None) if it failed."""
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    try:
        p = subprocess.run([exe], env=env, capture_output=True, text=True, timeout=30)
        line = next(l for l in p.stdout.splitlines() if l.startswith("RESULT "))
        kv = dict(x.split("=", 1) for x in line.split()[1:])
        return float(kv["ns"]), float(kv["mean_ns"])
    except (subprocess.SubprocessError, StopIteration, KeyError, ValueError, OSError):
        return None, None


def plot(results, png):
    """Draws the figure of a results file (merino_bench.allocplot), here or in bench/.venv, made on
    first need; a figure that cannot be drawn is said in one line and ends nothing."""
    for f in plots.in_plot_env(lambda: [allocplot.draw(results, png)], "merino_bench.allocplot", [results, png]):
        print("plot: %s" % os.path.relpath(f))
