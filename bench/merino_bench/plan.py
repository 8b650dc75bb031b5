"""What runs: the workloads and their sizes, the systems and worker counts, and the estimate of the
time the set takes."""

import glob
import json
import os
import statistics
import sys

from . import BENCH_DIR, log
from .machine import NCORES
from .results import ALLPUB_WORKLOADS, NO_STATS_WORKLOADS, STATS_REPS, STATS_WORKERS

RAYON_WORKLOADS = ["fib", "stress", "nqueens", "knary", "idle"]
FIB_N = 40  # serial fib(40) takes ~0.35 s with gcc -O2 on the 2-core development machine


def size(params, reps=1, systems=None, note="", est=None, workers=None):
    """One problem size: positional params, in-process --reps, optionally a subset of systems and
    of worker counts (of those asked for); est = the serial kernel's seconds on the 2-core
    development machine (for the estimate printed at the start when no earlier results file has
    this size); workers = "max": the parallel systems run at the largest of --workers only, a list:
    only these of the counts asked for (None: at every count)."""
    return {"params": params, "reps": reps, "systems": systems, "note": note, "est": est, "workers": workers}


# Headline sizes: each serial kernel takes ~0.1-0.2 s on the 2-core development machine (est), so
# that the whole headline set -- 7 systems x {1, 2} workers x 5 process runs, Table I's counter runs,
# the micro-benchmarks -- finishes in under 10 minutes on 2 cores. The exception is fib 40 without
# cutoff (~0.35 s serial), the inlined-task overhead's headline: it runs on the systems whose inlined
# tasks are cheap (fine-grained fib costs OpenMP and TBB an allocation and more per task, tens of
# seconds at n = 40); --all runs it everywhere. --all has the larger sizes (about 0.5-1 s serial).
CHEAP_TASKS = ["serial", "merino", "merino-allpub", "rayon"]
PER_TREE = 1  # stress's 4th param: one parallel region per tree
# region: (W, R, est), est counting ~5 us a region for the parallel systems
REGION_SIZES = [(0, 1000, 0.05), (100, 1000, 0.05), (1000, 1000, 0.05), (10000, 1000, 0.09), (100000, 100, 0.09)]
# loops: the IDWS paper's synthetic benchmark (bench/loops), its five distributions and two more
# (pareto: a heavy tail; hotspot: 10% of the elements with most of the work). Every system names its
# own schedules, so each size is one distribution and one schedule, run on the systems that have
# that schedule; serial runs once per distribution (with the first schedule). The paper's Table 1 is
# at the full worker count, so every schedule runs at the largest --workers only, except auto (and
# oneTBB's auto), which also runs at 1 worker (the "at most 3% slower than serial").
LOOP_DISTS = ["regular", "random", "dense-end", "dense-start", "periodic", "pareto", "hotspot"]
LOOP_OMP = ["omp-gcc", "omp-clang"]
LOOP_SCHEDULES = [  # (schedule, systems): every merino schedule, OpenMP's four of the paper, oneTBB's three
    ("static", ["serial", "merino"] + LOOP_OMP),
    ("auto", ["merino", "tbb"]),
    ("adaptive", ["merino"]),
    ("idws", ["merino"]),
    ("idws-poll", ["merino"]),
    ("steal", ["merino"]),
    ("static,1", ["merino"] + LOOP_OMP),
    ("dynamic,1", ["merino"] + LOOP_OMP),
    ("guided", ["merino"] + LOOP_OMP),
    ("simple", ["tbb"]),
    ("affinity", ["tbb"]),
]
LOOP_N = 1 << 20  # about 0.1 s serially on a quiet 2-core development machine (~100 ns an element)
LOOP_SMALL = 1000  # "a loop of 1,000 iterations": regular, repeated in-process (about 0.1 ms a loop)
LOOP_SMALL_REPS = 1000


def loop_sizes(n, schedules, est=None, reps=1, dists=LOOP_DISTS):
    return [size(f"{d} {n} {sched}", reps=reps, systems=systems, est=est,
                 workers=None if sched == "auto" else "max")
            for d in dists for (sched, systems) in schedules]


WORKLOADS = {
    "fib": {
        "doc": "fib n cutoff: one task per call (cutoff 0) or serial below the cutoff (TBB paper: 12, 20)",
        "headline": [size(f"{FIB_N} 0", systems=CHEAP_TASKS, note="overhead: T_S, T_1, T_2", est=0.35),
                     size("38 20", est=0.14), size("38 12", est=0.14)],
        "all": [size(f"{FIB_N} 0"), size(f"{FIB_N} 12"), size(f"{FIB_N} 20"), size("42 0", systems=CHEAP_TASKS),
                size("42 12"), size("32 0", reps=10)],
        "quick": [size("20 0"), size("20 12")],
    },
    "stress": {
        "doc": "stress h L reps [per_tree]: reps balanced trees of height h, leaves of L empty iterations "
               "(Wool Table I); per_tree 1 = one parallel region (MERINO_RUN) per tree",
        "headline": [size("7 256 8192", note="Wool (7, 256)", est=0.18),
                     size("3 4096 8192", note="Wool (3, 4096)", est=0.17),
                     # the same trees entered one region (MERINO_RUN, omp parallel, ...) per tree
                     # from the main thread: what entering a region adds to each tree
                     size(f"7 256 8192 {PER_TREE}", note="Wool (7, 256), a region per tree", est=0.18),
                     size(f"3 4096 8192 {PER_TREE}", note="Wool (3, 4096), a region per tree", est=0.17),
                     # two leaves of ~1.7 ms: no scheduling to speak of, so its T_S / T_2 is what
                     # the machine gives two threads at the time of the run (the bound for the rest)
                     size("1 4194304 48", note="ceiling: 2 independent halves", est=0.16)],
        "all": [size(f"{h} 256 {32768 >> (h - 7)}") for h in range(7, 12)]
        + [size(f"{h} 4096 {32768 >> (h - 3)}") for h in range(3, 8)]
        + [size(f"7 256 32768 {PER_TREE}"), size(f"3 4096 32768 {PER_TREE}")],
        "quick": [size("5 256 100"), size("3 4096 20"), size(f"5 256 100 {PER_TREE}")],
    },
    # EPCC syncbench style: R regions in a row from the main thread, two leaves of W empty
    # iterations each (stress's leaf loop, so W is stress's L), --reps = rounds (median per-region
    # time over them). R x rounds keeps each size near 0.1 s at a few microseconds a region.
    "region": {
        "doc": "region W R: R parallel regions entered from the main thread, each two leaves of W empty "
               "iterations; --reps = rounds, region_ns = median over the rounds of a round's time / R",
        "headline": [size(f"{w} {r}", reps=11, note="region overhead", est=est) for (w, r, est) in REGION_SIZES],
        "all": [size(f"{w} {r}", reps=31, est=est * 3) for (w, r, est) in REGION_SIZES],
        "quick": [size("0 200", reps=3), size("1000 100", reps=3)],
    },
    "nqueens": {
        "doc": "nqueens n: count the solutions, one task per placement",
        "headline": [size("12", reps=16, est=0.13)],
        "all": [size("10", reps=100), size("11", reps=20), size("12", reps=5), size("13", reps=1)],
        "quick": [size("8")],
    },
    "knary": {
        "doc": "knary h d s iters: Hood paper; degree d, first s children serial, iters-loop per node",
        "headline": [size("9 4 0 400", reps=3, est=0.16), size("9 4 2 400", reps=3, est=0.16)],
        "all": [size("9 4 0 400", reps=20), size("9 4 1 400", reps=20), size("9 4 2 400", reps=20),
                size("9 4 3 400", reps=20), size("7 8 0 400", reps=10), size("7 8 4 400", reps=10),
                size("12 2 0 400", reps=20), size("12 2 1 400", reps=20)],
        "quick": [size("4 4 1 100")],
    },
    "loops": {
        "doc": "loops dist n schedule: the IDWS paper's synthetic loop (states 0..3 decide each element's "
               "trigonometric work) in the distributions regular, random, dense-end, dense-start, periodic; "
               "schedule: the system's own (merino's, OpenMP's via schedule(runtime), oneTBB's partitioner)",
        "headline": loop_sizes(LOOP_N, LOOP_SCHEDULES, est=0.1)
        + loop_sizes(LOOP_SMALL, LOOP_SCHEDULES, est=0.1, reps=LOOP_SMALL_REPS, dists=["regular"]),
        "all": loop_sizes(LOOP_N, LOOP_SCHEDULES, est=0.1)
        + loop_sizes(LOOP_SMALL, LOOP_SCHEDULES, est=0.1, reps=LOOP_SMALL_REPS, dists=["regular", "random"])
        + loop_sizes(16 * LOOP_N, LOOP_SCHEDULES, est=1.6),
        "quick": [size(f"random 2000 {sched}", systems=systems) for (sched, systems) in LOOP_SCHEDULES],
    },
    # The TBB paper's Figure 6: task objects (plain, +C, +CB, +CBR) against oneTBB's task_group and
    # merino's direct task stack; the variant is a parameter of taskobj-merino (bench/taskobj/taskobj.h).
    "taskobj": {
        "doc": "taskobj n cutoff variant: fib by task objects, variants plain, c, cb, cbr; direct: task stack",
        "headline": [size(f"36 {c} plain", reps=3, est=0.15) for c in (12, 20)]
        + [size(f"36 {c} {v}", reps=3, systems=["serial", "merino"], est=0.15)
           for c in (12, 20) for v in ("c", "cb", "cbr", "direct")],
        "all": [size(f"38 {c} plain", reps=3) for c in (12, 20)]
        + [size(f"38 {c} {v}", reps=3, systems=["serial", "merino"]) for c in (12, 20) for v in ("c", "cb", "cbr", "direct")],
        "quick": [size("20 12 plain")] + [size(f"20 12 {v}", systems=["serial", "merino"]) for v in ("c", "cb", "cbr", "direct")],
    },
}

# Micro-benchmarks of the Wool paper, run their own way (see execute.run_overhead / run_groups).
OVERHEAD = {
    "headline": [size("36", reps=5)],
    "all": [size("36", reps=5), size("40", reps=3)],
    "quick": [size("20", reps=2)],
}
STEAL = {
    "headline": [size("1 100000", reps=500), size("2 100000", reps=200), size("3 100000", reps=100)],
    "all": [size("1 100000", reps=1000), size("1 20000", reps=1000), size("2 100000", reps=500),
            size("3 100000", reps=200)],
    "quick": [size("1 10000", reps=20)],
}
STEAL_SYSTEMS = ["merino", "tbb", "omp-gcc", "omp-clang"]
# Paired ratios in one process, serial and merino round by round (bench/ratios): fib n and stress
# (h L trees) x 2, each stress beside its ceiling (two pinned threads self-scheduling the same
# leaves); reps = rounds (one process, ~0.4 s a round).
RATIOS = {
    "headline": [size("36 7 256 1024 3 4096 1024", reps=31, est=0.4)],
    "all": [size("36 7 256 1024 3 4096 1024", reps=61, est=0.4)],
    "quick": [size("20 5 256 10 3 4096 4", reps=3)],
}
# The profiler (bench/prof, linked with libmerino_prof): its parallelism for fibw (fib with a loop
# of w iterations in every call; closed form), stress and cholesky against independent estimates,
# and the profiled fib's T_1 / T_S. Params: fib_n fib_w h L trees chol_n chol_nz chol_cut ovh_n;
# reps = rounds (medians); run at 1 worker (the dag's figures, least disturbed) and 2. The first
# size, the target's (docs/profiler.md "Accuracy"), has coarse strands: calls of 93 us, leaves of
# 61 us, cholesky's levels below 5 serial in each task (64 x 64 blocks, 56 us on average), long
# beside the 20-800 us gaps this VM's guest cannot see. The others have fine strands (4.7-us calls,
# 60-ns leaves, cholesky's 4 x 4 leaves as bench/cholesky): there the span is an upper bound.
PROF = {
    "headline": [size("14 400000 3 262144 256 1000 4000 5 36", reps=5, est=9.0),
                 size("20 20000 7 256 256 500 2000 0 36", reps=5, est=5.0)],
    "all": [size("14 400000 3 262144 256 1000 4000 5 36", reps=11, est=20.0),
            size("20 20000 3 4096 1024 500 2000 0 36", reps=11, est=11.0),
            size("20 20000 7 256 256 500 2000 0 36", reps=11, est=11.0),
            size("22 20000 5 4096 256 1000 4000 0 38", reps=5, est=4.0)],
    "quick": [size("12 2000 3 256 8 100 300 0 16", reps=3)],
}
PROF_WORKERS = [1, 2]
MICRO = ("overhead", "steal", "ratios", "prof")
# The Hood paper's experiments, run their own way (multiprog.py): only when named with --only.
EXPERIMENTS = ("multiprog", "idle")


def which_set(args):
    return "quick" if args.quick else ("all" if args.all else "headline")


def binary(build_dir, workload, system):
    """The executable of a workload's version, or None when it is not built."""
    if system == "rayon":
        if workload not in RAYON_WORKLOADS:
            return None
        path = os.path.join(build_dir, "rayon", "release", workload)
    else:
        path = os.path.join(build_dir, "bench", workload, f"{workload}-{system}")
    return path if os.path.isfile(path) and os.access(path, os.X_OK) else None


def params_file_sizes(workload, which):
    """Sizes of a workload the runner has no table for, from bench/<w>/params:
    lines `headline: <params> [--reps R] [--max-workers | --workers W1,W2] [~S]`, `all: ...`,
    `quick: ...`; '#' starts a comment; --max-workers: the parallel systems run at the largest
    --workers only; --workers = only these of the worker counts asked for (mpiheat: the workers per
    rank that go with its rank count); ~S = about S seconds serially (for the estimate). --all runs
    the headline and the all lines."""
    path = os.path.join(BENCH_DIR, workload, "params")
    if not os.path.exists(path):
        return None
    sets = {"headline": [], "all": [], "quick": []}
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line or ":" not in line:
                continue
            key, rest = line.split(":", 1)
            key = key.strip()
            if key not in sets:
                continue
            toks = rest.split()
            est = None
            if toks and toks[-1].startswith("~"):
                est = float(toks.pop()[1:])
            reps = 1
            if "--reps" in toks:
                i = toks.index("--reps")
                reps = int(toks[i + 1])
                del toks[i:i + 2]
            workers = None
            if "--max-workers" in toks:
                toks.remove("--max-workers")
                workers = "max"
            if "--workers" in toks:
                i = toks.index("--workers")
                workers = [int(x) for x in toks[i + 1].split(",")]
                del toks[i:i + 2]
            sets[key].append(size(" ".join(toks), reps=reps, est=est, workers=workers))
    if which == "all":
        seen, out = set(), []
        for s in sets["headline"] + sets["all"]:
            if s["params"] not in seen:
                seen.add(s["params"])
                out.append(s)
        return out
    return sets[which]


def discover_workloads():
    """The workload folders of bench/ (a folder with <w>-*.c or <w>-*.cpp), micro-benchmarks apart."""
    ws = []
    for d in sorted(os.listdir(BENCH_DIR)):
        if d in ("common", "rayon", "results", "cyclcr") + MICRO + EXPERIMENTS or \
                not os.path.isdir(os.path.join(BENCH_DIR, d)):
            continue
        if glob.glob(os.path.join(BENCH_DIR, d, f"{d}-*.c")) or glob.glob(os.path.join(BENCH_DIR, d, f"{d}-*.cpp")):
            ws.append(d)
    return ws


def group(workload, s, kind, configs=()):
    """One (workload, size) with its configurations (system, workers, executable)."""
    return {"workload": workload, "size": s, "kind": kind, "configs": list(configs)}


def steal_groups(args, which, skipped):
    out = []
    for s in STEAL[which]:
        k = int(s["params"].split()[0])
        configs = []
        for sy in (x for x in STEAL_SYSTEMS if x in args.systems):
            path = binary(args.build_dir, "steal", sy)
            if path:
                configs.append((sy, 1 << k, path))
            else:
                skipped.append(f"steal-{sy}")
        if configs:
            out.append(group("steal", s, "steal", configs))
    return out


def size_groups(args, w, sizes, skipped):
    out = []
    for s in sizes:
        configs = []
        for sy in args.systems:
            if s["systems"] and sy not in s["systems"]:
                continue
            if sy == "merino-allpub" and w not in ALLPUB_WORKLOADS:
                continue
            if sy == "merino-cxx" and not os.path.exists(os.path.join(BENCH_DIR, w, f"{w}-merino-cxx.cpp")):
                continue  # only workloads with a C++ version (merino.hpp) have one
            if sy == "merino-loop" and not os.path.exists(os.path.join(BENCH_DIR, w, f"{w}-merino-loop.c")):
                continue  # only workloads with a version written with loops (merino_loop.h) have one
            path = binary(args.build_dir, w, sy)
            if not path:
                if not (sy == "rayon" and w not in RAYON_WORKLOADS):
                    skipped.append(f"{w}-{sy}")
                continue
            if s.get("workers") == "max":
                counts = [max(args.workers)]
            elif s.get("workers"):
                counts = [nw for nw in args.workers if nw in s["workers"]]
            else:
                counts = args.workers
            configs += [(sy, nw, path) for nw in ([1] if sy == "serial" else counts)]
        if configs:
            g = group(w, s, "workload", configs)
            if args.stats and w not in NO_STATS_WORKLOADS and any(sy == "merino" for (sy, _, _) in configs):
                # Table I: the same program built with -DMERINO_STATS reports merino's counters
                g["stats"] = binary(args.build_dir, w, "merino-stats")
                if not g["stats"]:
                    skipped.append(f"{w}-merino-stats")
            out.append(g)
    return out


def make_plan(args):
    """(groups, skipped): a group per (workload, size) with its configurations; the versions that
    were asked for and are not built."""
    which = which_set(args)
    groups, skipped = [], []
    names = discover_workloads() + list(MICRO)
    if args.only:
        unknown = [w for w in args.only if w not in names + list(EXPERIMENTS)]
        if unknown:
            sys.exit(f"bench/run: unknown workload(s) {', '.join(unknown)}; known: {', '.join(names)}")
        names = [w for w in names if w in args.only]
    for w in names:
        if w == "overhead":
            if "merino" in args.systems or "merino-allpub" in args.systems:
                groups += [group(w, s, "overhead") for s in OVERHEAD[which]]
        elif w == "ratios":
            if "merino" in args.systems:
                groups += [group(w, s, "ratios") for s in RATIOS[which]]
        elif w == "prof":
            if "merino" in args.systems:
                groups += [group(w, s, "prof") for s in PROF[which]]
        elif w == "steal":
            groups += steal_groups(args, which, skipped)
        else:
            sizes = WORKLOADS[w][which] if w in WORKLOADS else params_file_sizes(w, which)
            if sizes is None:
                log(f"note: {w}: no sizes known (add {w} to WORKLOADS in bench/merino_bench/plan.py "
                    f"or write bench/{w}/params); skipped")
                continue
            groups += size_groups(args, w, sizes, skipped)
    return groups, sorted(set(skipped))


def label(g):
    s = g["size"]
    r = f" --reps {s['reps']}" if s["reps"] != 1 else ""
    return f"{g['workload']} {s['params']}{r}"


def process_runs(groups, reps):
    """(group, system, workers, runs) for every process the plan starts (before --slow cuts)."""
    for g in groups:
        if g["kind"] == "overhead":
            for sy in ("merino", "merino-allpub"):
                yield g, sy, 1, reps
            continue
        if g["kind"] == "ratios":
            yield g, "merino", 2, 1
            continue
        if g["kind"] == "prof":
            for nw in PROF_WORKERS:
                yield g, "merino", nw, 1
            continue
        for (sy, nw, _) in g["configs"]:
            yield g, sy, nw, reps
        if g.get("stats"):
            yield g, "merino-stats", STATS_WORKERS, STATS_REPS


def list_lines(groups):
    """What --list prints: one line per configuration."""
    lines = []
    for g in groups:
        default = [("serial and merino paired, merino", 2, "")] if g["kind"] == "ratios" else \
            [("merino (libmerino_prof)", nw, "") for nw in PROF_WORKERS] if g["kind"] == "prof" else \
            [("merino and merino-allpub", 1, "")]
        for (sy, nw, _) in g["configs"] or default:
            lines.append(f"{label(g)}  {sy} w={nw}{' (oversubscribed)' if nw > NCORES else ''}")
        if g.get("stats"):
            lines.append(f"{label(g)}  merino-stats w={STATS_WORKERS} ({STATS_REPS} runs, Table I)")
    return lines


def previous_walls(results_dir):
    """Median process wall time per (workload, params, inner reps, system, workers) from the newest
    earlier results file that has them, and its name."""
    for f in sorted(glob.glob(os.path.join(results_dir, "*.jsonl")), reverse=True):
        walls = {}
        try:
            with open(f) as fh:
                for line in fh:
                    r = json.loads(line)
                    if r.get("walls"):
                        key = (r["workload"], r["params"], r["inner_reps"], r["system"], r["workers"])
                        walls[key] = statistics.median(r["walls"])
        except (OSError, ValueError, KeyError):
            continue
        if walls:
            return walls, f
    return {}, None


def estimate(args, groups):
    """Seconds the plan should take: each process's wall time in the newest earlier results file
    that ran it on this machine, else the size's nominal serial time (est) plus start-up and
    verification, else 0.5 s (0.02 s with --quick)."""
    walls, src = previous_walls(args.results_dir)
    total, known, n = 0.0, 0, 0
    for g, sy, nw, reps in process_runs(groups, args.reps):
        s = g["size"]
        n += 1
        w = walls.get((g["workload"], s["params"], s["reps"], sy, nw))
        if w is not None:
            known += 1
        elif s.get("est"):
            # kernel (T_S / workers, or T_S at one worker), plus ~T_S/2 of verification and start-up
            w = 0.1 + s["est"] * (1.0 if sy == "serial" else 0.5 + 1.0 / min(nw, NCORES))
        else:
            w = 0.02 if args.quick else 0.5
        total += w * reps
    how = f"measured in {os.path.relpath(src)} for {known} of {n} configurations" if known else \
        "from the sizes' nominal times"
    return total, how
