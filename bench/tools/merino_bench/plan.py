"""What runs: the benchmark folders and their sizes (each folder's params file), the systems and
worker counts, and the estimate of the time the set takes."""

import glob
import json
import os
import statistics
import sys

from . import log
from .layout import CATEGORIES, SYSTEMS, folders
from .machine import NCORES
from .results import STATS_REPS, STATS_WORKERS

# Folders run their own way (execute.py): the micro-benchmarks of the Wool paper and the paired
# ratios and the profiler's accuracy, each a kind of record of its own
OWN_RUN = ("overhead", "steal", "ratios", "prof")
# The experiments (multiprog.py, oversub.py): only when --only names them
EXPERIMENTS = ("multiprog", "idle", "oversub")


def which_set(args):
    return "quick" if args.quick else ("all" if args.all else "headline")


def binary(build_dir, workload, system):
    """The executable of a folder's version, or None when it is not built: <build>/bench/<f>/, or
    <build>/bench-extra/bench/<f>/ for the folders of --workloads-dir; Rayon's in <build>/rayon/."""
    sy = SYSTEMS.get(system, {})
    if sy.get("exe"):
        system, sy = sy["exe"], SYSTEMS.get(sy["exe"], {})
    if sy.get("build") == "cargo":
        paths = [os.path.join(build_dir, "rayon", "release", workload)]
    else:
        paths = [os.path.join(build_dir, sub, workload, f"{workload}-{system}") for sub in ("bench", "bench-extra/bench")]
    return next((p for p in paths if os.path.isfile(p) and os.access(p, os.X_OK)), None)


def counts(args, s, system="merino"):
    """The worker counts a size runs at: its --workers of those asked for, the largest asked for
    (--max-workers), or all of them; serial at 1."""
    if system == "serial":
        return [1]
    if s.get("workers") == "max":
        return [max(args.workers)]
    if s.get("workers"):
        return [nw for nw in args.workers if nw in s["workers"]]
    return args.workers


def group(workload, s, kind, configs=()):
    """One (workload, size) with its configurations (system, workers, executable)."""
    return {"workload": workload, "size": s, "kind": kind, "configs": list(configs)}


def steal_groups(args, f, sizes, skipped):
    """steal: each size at 2^k workers (k its first param) on every system that has a version."""
    out = []
    for s in sizes:
        k = int(s["params"].split()[0])
        configs = []
        for sy in (x for x in args.systems if f.builds(x)):
            path = binary(args.build_dir, f.name, sy)
            if path:
                configs.append((sy, 1 << k, path))
            else:
                skipped.append(f"{f.name}-{sy}")
        if configs:
            out.append(group(f.name, s, "steal", configs))
    return out


def size_groups(args, f, sizes, skipped):
    """A folder's sizes, each on the systems asked for that have a version (and its size's
    --systems), at its worker counts; with the Table I counter runs where merino-stats is built."""
    out = []
    for s in sizes:
        configs = []
        for sy in args.systems:
            if (s["systems"] and sy not in s["systems"]) or not f.builds(sy):
                continue
            path = binary(args.build_dir, f.name, sy)
            if not path:
                skipped.append(f"{f.name}-{sy}")
                continue
            configs += [(sy, nw, path) for nw in counts(args, s, sy)]
        if configs:
            g = group(f.name, s, "workload", configs)
            if args.stats and f.builds("merino-stats") and any(sy == "merino" for (sy, _, _) in configs):
                # Table I: the same program built with -DMERINO_STATS reports merino's counters
                g["stats"] = binary(args.build_dir, f.name, "merino-stats")
                if not g["stats"]:
                    skipped.append(f"{f.name}-merino-stats")
            out.append(g)
    return out


def runnable(fs):
    """The folders bench/run runs by default, in its order: those timed alike (every folder with a
    version of its own and no run of its own), by name, then the micro-benchmarks run their own way."""
    alike = sorted(n for n, f in fs.items() if n not in OWN_RUN + EXPERIMENTS and f.has_versions())
    return alike + [n for n in OWN_RUN if n in fs]


def make_plan(args):
    """(groups, skipped): a group per (workload, size) with its configurations; the versions that
    were asked for and are not built."""
    which = which_set(args)
    groups, skipped = [], []
    fs = folders(args.workloads_dirs)
    names = runnable(fs)
    if args.only:
        unknown = [w for w in args.only if w not in names + list(EXPERIMENTS)]
        if unknown:
            sys.exit(f"bench/run: unknown workload(s) {', '.join(unknown)}; known: {', '.join(names + list(EXPERIMENTS))} "
                     f"(the folders of bench/{{{','.join(CATEGORIES)}}}/ and --workloads-dir)")
        names = [w for w in names if w in args.only]
    for w in names:
        f = fs[w]
        sizes = f.params[which]
        if not f.params["exists"]:
            log(f"note: {w}: no sizes known (write {os.path.relpath(os.path.join(f.path, 'params'))}, "
                "bench/README.md says how); skipped")
            continue
        if w == "overhead":
            if "merino" in args.systems or "merino-allpub" in args.systems:
                groups += [group(w, s, "overhead") for s in sizes]
        elif w in ("ratios", "prof"):
            if "merino" in args.systems:
                groups += [dict(group(w, s, w), workers=counts(args, s)) for s in sizes]
        elif w == "steal":
            groups += steal_groups(args, f, sizes, skipped)
        else:
            groups += size_groups(args, f, sizes, skipped)
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
            for nw in g["workers"]:
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
            [("merino (libmerino_prof)", nw, "") for nw in g["workers"]] if g["kind"] == "prof" else \
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
