"""bench/run -- build and run merino's benchmarks, print one table, write JSON lines and plots.

    bench/run                      build (Release) and run the headline set (about 11 min on 2 cores)
    bench/run --all                every size
    bench/run --only fib,stress --systems serial,merino,tbb --workers 1,2,4
    bench/run --quick --no-build   tiny sizes, 2 runs each: a smoke test (ctest bench_smoke)
    bench/run --only multiprog,idle,oversub   the experiments (experiments/, docs/idle.md): knary
                                   beside cyclcr, hogs and itself; the idle cost; oversubscription
    bench/run --list               print what would run, and exit
    bench/run --only loops --compete   the same with a CPU-bound process bound to the last CPU
    bench/run --workloads-dir DIR --only foo   a benchmark folder DIR/foo/ kept outside bench/
    bench/run report [RESULTS.jsonl]   docs/benchmarks.md and its figures from a results file
    bench/run alloc [--quick ...]  the allocator benchmarks against their peers (bench/alloc/)

The systems are the lines of bench/systems: serial, merino, merino-allpub (every task public:
the Wool paper's Table II's worst case), merino-cxx (merino.hpp), merino-loop (merino_loop.h), tbb,
omp-gcc, omp-clang, rayon and merino-naive (idle workers spin: only when named); merino brings
along those of its builds and interfaces a folder has. Each measurement is the median of --reps
process runs (default 5). Worker counts above the number of cores are allowed and labelled
oversubscribed.

The contract every benchmark program follows, and the params files that give the sizes, are in
bench/README.md. Needs Python 3 (stdlib); the plots, matplotlib from bench/tools/requirements.txt,
installed into bench/.venv on first need.
"""

import argparse
import datetime
import json
import os
import platform
import sys
import time

from . import BENCH_DIR, ROOT, log
from . import alloc, multiprog, oversub, report
from .execute import Competitor, Writer, build, install_peers, run_groups, tsc_hz
from .layout import SYSTEMS
from .machine import NCORES, machine_info
from .plan import EXPERIMENTS, estimate, list_lines, make_plan, which_set
from .plots import plot_files
from .results import ALL_SYSTEMS, DEFAULT_SYSTEMS, OTHERS_WARN, derived_rows
from .tables import report_sections, section_text


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="bench/run", description=__doc__.split("\n\n")[0].split(" -- ")[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="Workload params and the program contract: bench/README.md")
    ap.add_argument("--all", action="store_true", help="every size (long)")
    ap.add_argument("--quick", action="store_true", help="tiny sizes, 2 runs each (smoke test)")
    ap.add_argument("--only", help="comma-separated benchmark folders (fib,stress,region,...; multiprog, idle, oversub)")
    ap.add_argument("--systems", default=",".join(DEFAULT_SYSTEMS),
                    help=f"comma-separated systems of bench/systems (default: {','.join(DEFAULT_SYSTEMS)}); "
                         "merino brings along merino's other builds and interfaces (runs=merino)")
    ap.add_argument("--workloads-dir", action="append", default=[], metavar="DIR", dest="workloads_dirs",
                    help="a folder of benchmark folders outside bench/, built against the build directory "
                         "in <build>/bench-extra and run like bench/workloads/ (repeatable)")
    ap.add_argument("--workers", default=None,
                    help=f"comma-separated worker counts (default 1,{NCORES}); above {NCORES} = oversubscribed")
    ap.add_argument("--reps", type=int, default=None, help="process runs per measurement (default 5, --quick 2)")
    ap.add_argument("--no-build", action="store_true", help="use the binaries already in the build dir")
    ap.add_argument("--no-install", action="store_true",
                    help="install nothing: neither the peers (scripts/install-deps.sh --bench) nor bench/.venv")
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    ap.add_argument("--results-dir", default=os.path.join(BENCH_DIR, "results"))
    ap.add_argument("--timeout", type=float, default=None, help="seconds per process (default 300, --quick 20)")
    ap.add_argument("--slow", type=float, default=20.0,
                    help="a configuration whose first run takes longer than this many seconds runs once")
    ap.add_argument("--no-plots", action="store_true")
    ap.add_argument("--no-stats", dest="stats", action="store_false",
                    help="skip Table I's runs of <w>-merino-stats (merino's spawn and steal counters)")
    ap.add_argument("--compete", action="store_true",
                    help="run a CPU-bound competing process bound to the last CPU beside every measurement "
                         f"(the machine then offers {NCORES} - 1/2 CPUs to {NCORES} workers: the issue's 1.5 of 2)")
    ap.add_argument("--mp-reps", type=int, default=1, help="multiprog: process runs per configuration (default 1)")
    ap.add_argument("--idle-seconds", type=float, default=None,
                    help="idle: seconds each idle-cost run lasts (default 1.5, --all 10, --quick 0.2)")
    ap.add_argument("--list", action="store_true", help="print the plan and exit")
    ap.add_argument("--plot-only", metavar="JSONL", help="only draw the plots of a results file")
    ap.add_argument("--report", action="store_true",
                    help="then write docs/benchmarks.md and docs/img/ from the results (bench/run report)")
    args = ap.parse_args(argv)
    args.build_dir = os.path.abspath(args.build_dir)
    args.only = [w.strip() for w in args.only.split(",") if w.strip()] if args.only else None
    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    bad = [s for s in systems if s not in ALL_SYSTEMS]
    if bad:
        sys.exit(f"bench/run: unknown system(s) {', '.join(bad)}; known: {', '.join(ALL_SYSTEMS)}")
    if "merino" in systems:
        systems += [s for s in ALL_SYSTEMS if SYSTEMS[s]["runs"] == "merino"]
    args.systems = [s for s in ALL_SYSTEMS if s in systems]
    if args.workers:
        args.workers = sorted({int(w) for w in args.workers.split(",")})
        if any(w < 1 for w in args.workers):
            sys.exit("bench/run: --workers values must be >= 1")
    else:
        args.workers = sorted({1, NCORES})
    if args.reps is None:
        args.reps = 2 if args.quick else 5
    if args.timeout is None:
        args.timeout = 20.0 if args.quick else 300.0
    if args.idle_seconds is None:
        args.idle_seconds = 0.2 if args.quick else (10.0 if args.all else 1.5)
    return args


def results_file(results_dir):
    """A new results file's stem (bench/results/<timestamp>), the folder made and git-ignored."""
    os.makedirs(results_dir, exist_ok=True)
    ign = os.path.join(results_dir, ".gitignore")
    if not os.path.exists(ign):
        with open(ign, "w") as f:
            f.write("# benchmark results are not committed\n*\n")
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    return stamp, os.path.join(results_dir, stamp)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["alloc"]:
        return alloc.main(argv[1:])
    if argv[:1] == ["report"]:
        return report.main(argv[1:])
    args = parse_args(argv)
    if args.plot_only:
        files = plot_files([args.plot_only], install=not args.no_install)
        for f in files:
            log(f"plot: {f}")
        return 0
    t_main = time.time()

    if (not args.no_build or args.workloads_dirs) and not args.list:
        if not args.no_install and not args.no_build:
            install_peers()
        build(args)

    groups, skipped = make_plan(args)
    if skipped:
        log("not built (skipped): " + ", ".join(skipped))
    which = which_set(args)
    experiments = [x for x in (args.only or []) if x in EXPERIMENTS]
    exp_est = multiprog.estimate(args, which) + (oversub.estimate(args, which) if "oversub" in experiments else 0)
    if args.list:
        for line in list_lines(groups):
            log(line)
        if "multiprog" in experiments:
            runs, _ = multiprog.mp_plan(args, which)
            log(f"multiprog: {len(runs)} configurations (knary sizes x systems x P x scenarios), "
                f"{args.mp_reps} run(s) each")
        if "idle" in experiments:
            runs, _ = multiprog.idle_plan(args, which)
            log(f"idle: {len(runs)} runs of {args.idle_seconds} s")
        if "oversub" in experiments:
            lines, _ = oversub.plan(args, which)
            log(f"oversub: {len(lines)} workloads, {sum(len(x[3]) for x in lines)} runs a round, {args.reps} rounds")
        est, how = estimate(args, groups)
        log(f"estimated time: {(est + exp_est) / 60:.1f} min ({how})")
        return 0
    if not groups and not experiments:
        sys.exit("bench/run: nothing to run (no binaries found: build first, or check --only/--systems)")

    hz = tsc_hz(args.build_dir)
    stamp, stem = results_file(args.results_dir)
    jsonl = stem + ".jsonl"
    machine = machine_info()
    log(f"{platform.node()}: {machine['cpu']}, {NCORES} cores, TSC {hz / 1e9 if hz else 0:.3f} GHz; "
        f"commit {machine['commit']}" + (" (with uncommitted changes)" if machine["dirty"] else ""))
    est, how = estimate(args, groups)
    est += exp_est
    log(f"workers {args.workers}; {args.reps} runs per measurement; estimated {est / 60:.1f} min ({how}); "
        f"results in {os.path.relpath(jsonl)}")
    with open(jsonl, "w") as out:
        out.write(json.dumps({"kind": "meta", "time": stamp, "host": platform.node(), "cores": NCORES,
                              "tsc_hz": hz, "argv": argv, "reps": args.reps,
                              "workers": args.workers, "systems": args.systems, "set": which_set(args),
                              "compete": args.compete,
                              "estimate_s": est, **machine}) + "\n")
        with Competitor(args.compete):
            records, elapsed, (others, steal) = run_groups(args, groups, out)
        wr = Writer(out)
        t_exp = time.time()
        if "multiprog" in experiments:
            multiprog.run_multiprog(args, which, wr)
        if "idle" in experiments:
            multiprog.run_idle(args, which, wr)
        if "oversub" in experiments:
            oversub.run(args, which, wr)
        records += wr.records
        elapsed += time.time() - t_exp
        derived = derived_rows(records, hz) + multiprog.model_rows(records)
        for r in derived:
            out.write(json.dumps(r) + "\n")
        out.write(json.dumps({"kind": "end", "run_s": elapsed, "wall_s": time.time() - t_main,
                              "others_cores": others, "steal_cores": steal}) + "\n")
    for sec in report_sections(records, derived, args.workers, args.reps, NCORES).values():
        if sec:
            for line in section_text(sec):
                log(line)
    for line in multiprog.mp_summary(records) + multiprog.idle_summary(records) + oversub.summary(records):
        log(line)
    files = [] if args.no_plots else plot_files([jsonl], install=not args.no_install)
    log("")
    if others is not None:
        log(f"other processes used {others:.2f} of the {NCORES} cores on average during the runs, the "
            f"hypervisor stole {steal:.2f}" + (": the timings are suspect" if others > OTHERS_WARN else ""))
    log(f"ran in {elapsed:.0f} s ({time.time() - t_main:.0f} s with the build; estimated {est:.0f} s); "
        f"results: {os.path.relpath(jsonl)}"
        + (f"; plots: {', '.join(os.path.relpath(f) for f in files)}" if files else ""))
    if args.report:
        report.main([jsonl])
    fails = [r for r in records if r.get("check") != "ok"]
    if fails:
        log(f"{len(fails)} measurement(s) FAILED: " + ", ".join(
            f"{r['workload']} {r['params']} {r['system']} w={r['workers']}" for r in fails))
        return 1
    return 0
