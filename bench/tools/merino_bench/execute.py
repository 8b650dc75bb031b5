"""Building the programs, running them, and writing one JSON line per measurement."""

import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import time

from . import BENCH_DIR, ROOT, TOOLS_DIR, log, warn
from .layout import folders, system_env as declared_env
from .machine import NCORES, LoadMeter
from .plan import binary, label, process_runs
from .results import PROF_KEYS, RATIO_KEYS, RUN_MEDIANS, STATS_REPS, STATS_WORKERS, OTHERS_WARN

INSTALL_DEPS = os.path.join(ROOT, "scripts", "install-deps.sh")


# ---- build ----------------------------------------------------------------------------------------

def install_peers():
    """Installs the Debian packages of the peers that are missing (scripts/install-deps.sh --bench),
    after saying which."""
    if not os.path.exists(INSTALL_DEPS):
        warn("scripts/install-deps.sh does not exist: missing peers are skipped")
        return
    p = subprocess.run([INSTALL_DEPS, "--bench", "--print"], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    missing = p.stdout.split()
    if p.returncode != 0 or not missing:
        return
    log(f"installing the Debian packages the benchmarks lack: {' '.join(missing)} "
        "(scripts/install-deps.sh --bench; --no-install skips this)")
    rc = subprocess.call([INSTALL_DEPS, "--bench"], cwd=ROOT)
    if rc != 0:
        warn(f"scripts/install-deps.sh --bench failed (exit {rc}); the peers that need them are skipped")


def run_quiet(cmd, env=None):
    """Runs a build step, printing the command; returns the CompletedProcess (output captured)."""
    log("building:    " + " ".join(shlex.quote(c) for c in cmd))
    return subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def configure_and_build(src, bdir, defines, what):
    """cmake -S src -B bdir (with Ninja on a first configure), then bench_all; exits on failure."""
    cmd = ["cmake", "-S", src, "-B", bdir, "-DCMAKE_BUILD_TYPE=Release"] + defines
    if not os.path.exists(os.path.join(bdir, "CMakeCache.txt")) and shutil.which("ninja"):
        cmd[1:1] = ["-G", "Ninja"]
    log("configuring: " + " ".join(shlex.quote(c) for c in cmd))
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in p.stdout.splitlines():
        if "merino bench:" in line or "Error" in line or "error" in line:
            log("  " + line.strip())
    if p.returncode != 0:
        log(p.stdout)
        sys.exit(f"bench/run: cmake configure of {what} failed (exit {p.returncode})")
    p = run_quiet(["cmake", "--build", bdir, "--target", "bench_all", "--parallel", str(max(1, NCORES))])
    if p.returncode != 0:
        log(p.stdout[-20000:])
        sys.exit(f"bench/run: build of {what} failed (exit {p.returncode})")


def build(args):
    """merino and bench/ in the build directory (unless --no-build), the folders of --workloads-dir
    against it in <build>/bench-extra (always: nothing else builds them), Rayon's versions."""
    if not args.no_build:
        configure_and_build(ROOT, args.build_dir, ["-DMERINO_BUILD_BENCH=ON", "-DMERINO_SANITIZE="], "merino")
    if args.workloads_dirs:
        configure_and_build(BENCH_DIR, os.path.join(args.build_dir, "bench-extra"),
                            ["-DMERINO_BUILD_DIR=" + args.build_dir,
                             "-DMERINO_BENCH_DIRS=" + ";".join(os.path.abspath(d) for d in args.workloads_dirs)],
                            "the --workloads-dir folders")
    if not args.no_build and "rayon" in args.systems:
        build_rayon(args)


def build_rayon(args):
    """The Rayon versions (<f>-rayon.rs) as the binaries of one cargo crate, tools/rayon, whose
    manifest is written into <build>/rayon with a [[bin]] per version found."""
    if not shutil.which("cargo"):
        warn("rayon skipped: cargo is not installed")
        return
    crate = os.path.join(TOOLS_DIR, "rayon")
    out = os.path.join(args.build_dir, "rayon")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(crate, "Cargo.toml")) as f:
        manifest = f.read().replace('path = "lib.rs"', f'path = "{os.path.join(crate, "lib.rs")}"')
    for f in folders(args.workloads_dirs).values():
        src = f.source("rayon")
        if src:
            manifest += f'\n[[bin]]\nname = "{f.name}"\npath = "{src}"\n'
    with open(os.path.join(out, "Cargo.toml"), "w") as f:
        f.write(manifest)
    if not os.path.exists(os.path.join(out, "Cargo.lock")):
        shutil.copyfile(os.path.join(crate, "Cargo.lock"), os.path.join(out, "Cargo.lock"))
    env = dict(os.environ, CARGO_TARGET_DIR=out)
    p = run_quiet(["cargo", "build", "--release", "--quiet", "--manifest-path", os.path.join(out, "Cargo.toml")], env=env)
    if p.returncode != 0:
        log(p.stdout[-5000:])
        warn("rayon skipped: cargo build failed (is crates.io reachable for the rayon crate?)")


def tsc_hz(build_dir):
    """The TSC frequency, as a serial benchmark program calibrates it (--tsc-hz), or None."""
    for w in ("fib", "stress", "nqueens"):
        p = binary(build_dir, w, "serial")
        if p:
            try:
                out = subprocess.run([p, "--tsc-hz"], stdout=subprocess.PIPE, text=True, timeout=10).stdout
                return json.loads(out)["tsc_hz"]
            except (OSError, subprocess.SubprocessError, ValueError, KeyError):
                pass
    return None


# ---- one process ----------------------------------------------------------------------------------

def system_env(system, build_dir):
    """The environment a system runs in: ours without the settings of a worker count or of every
    task public, plus its env= of bench/systems (merino-allpub's MERINO_ALL_PUBLIC=1)."""
    env = dict(os.environ)
    for k in ("MERINO_WORKERS", "OMP_NUM_THREADS", "MERINO_ALL_PUBLIC"):
        env.pop(k, None)
    env.update(declared_env(system, build_dir))
    return env


def run_once(args, path, system, workers, params, reps):
    """Runs one process; returns (dict from its JSON line or None, error text or None)."""
    cmd = [path, "--workers", str(workers)] + (["--reps", str(reps)] if reps != 1 else []) + params.split()
    t0 = time.time()
    try:
        p = subprocess.run(cmd, env=system_env(system, args.build_dir), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return None, f"timeout after {args.timeout} s"
    wall = time.time() - t0
    out = None
    for line in reversed(p.stdout.strip().splitlines()):
        try:
            out = json.loads(line)
            break
        except ValueError:
            continue
    if out is None:
        err = (p.stderr.strip().splitlines() or ["no output"])[-1]
        return None, f"exit {p.returncode}: {err}"
    out["wall"] = wall  # the whole process: start-up, input, kernel, verification (for estimates)
    if p.returncode != 0 or out.get("check") != "ok":
        err = (p.stderr.strip().splitlines() or [""])[-1]
        return out, f"check {out.get('check')} (exit {p.returncode}) {err}".strip()
    return out, None


class Progress:
    """The [k/total elapsed] prefix of the progress lines."""

    def __init__(self, total):
        self.k, self.total, self.t0 = 0, total, time.time()

    def step(self, n=1):
        self.k += n

    def tag(self):
        e = int(time.time() - self.t0)
        return f"[{self.k}/{self.total} {e // 60}:{e % 60:02d}]"

    def start(self, what):
        """Counts a process run and prints its progress line, to be ended by the result."""
        self.step()
        print(f"{self.tag()} {what} ...", end=" ", flush=True)


# ---- runs of a plan -------------------------------------------------------------------------------

class Writer:
    """The results file's records: kept in a list and written as JSON lines as they come."""

    def __init__(self, out):
        self.out, self.records = out, []

    def add(self, rec):
        self.records.append(rec)
        self.out.write(json.dumps(rec) + "\n")
        self.out.flush()


def metered(rec, meter):
    """Adds to a record how busy other processes kept the machine during its runs."""
    rec["others_cores"], rec["steal_cores"] = meter.read()
    return rec


def median_of(outs, field):
    vals = [o[field] for o in outs if o.get(field) is not None]
    return statistics.median(vals) if vals else None


class Competitor:
    """A CPU-bound process bound to the last CPU while the block runs (--compete): the machine then
    offers one CPU less half of one to the workers, the Hood paper's multiprogrammed setting."""

    def __init__(self, on):
        self.on, self.proc = on, None

    def __enter__(self):
        if self.on:
            cpu = max(os.sched_getaffinity(0))
            self.proc = subprocess.Popen([sys.executable, "-c", "while True: pass"],
                                         preexec_fn=lambda: os.sched_setaffinity(0, {cpu}))
            log(f"competing process {self.proc.pid}: a busy loop bound to CPU {cpu}")
        return self

    def __exit__(self, *exc):
        if self.proc:
            self.proc.kill()
            self.proc.wait()
        return False


def run_groups(args, groups, out):
    """Runs every group; configs of a group are interleaved run by run (less drift between them);
    then, for Table I, a few runs of <w>-merino-stats at 2 workers. Returns (records, seconds,
    (others, steal) over all of it)."""
    prog = Progress(sum(reps for (_, _, _, reps) in process_runs(groups, args.reps)))
    wr = Writer(out)
    whole = LoadMeter()
    for g in groups:
        if g["kind"] == "overhead":
            run_overhead(args, g, wr, prog)
        elif g["kind"] == "ratios":
            run_ratios(args, g, wr, prog)
        elif g["kind"] == "prof":
            run_prof(args, g, wr, prog)
        else:
            run_configs(args, g, wr, prog)
            if g.get("stats"):
                run_stats(args, g, wr, prog)
    return wr.records, time.time() - prog.t0, whole.read()


def run_configs(args, g, wr, prog):
    s = g["size"]
    load = LoadMeter()
    keys = [c[:2] for c in g["configs"]]
    runs, outs, errors = {k: [] for k in keys}, {k: [] for k in keys}, {k: None for k in keys}
    last = {k: None for k in keys}
    for r in range(args.reps):
        for (sy, nw, path) in g["configs"]:
            key = (sy, nw)
            if errors[key] or (r > 0 and runs[key] and runs[key][0] > args.slow):
                prog.step()
                continue
            over = " (oversubscribed)" if nw > NCORES else ""
            prog.start(f"{label(g)}  {sy} w={nw}{over}  run {r + 1}/{args.reps}")
            res, err = run_once(args, path, sy, nw, s["params"], s["reps"])
            last[key] = res
            if err:
                errors[key] = err
                print(f"FAILED: {err}", flush=True)
                continue
            runs[key].append(res["seconds"])
            outs[key].append(res)
            print(f"{res['seconds']:.4f} s", flush=True)
            if r == 0 and res["seconds"] > args.slow and args.reps > 1:
                log(f"    slower than --slow {args.slow} s: one run only for this configuration")
    others, steal = load.read()
    if others is not None and others > OTHERS_WARN:
        log(f"    note: other processes used {others:.2f} cores on average during these runs")
    for key in keys:
        sy, nw = key
        res = last[key] or {}
        rec = {
            "kind": g["kind"], "workload": g["workload"], "params": s["params"],
            "inner_reps": s["reps"], "system": sy, "workers": nw, "oversubscribed": nw > NCORES,
            "runs": runs[key], "median": statistics.median(runs[key]) if runs[key] else None,
            "check": "ok" if not errors[key] and runs[key] else "FAIL",
            "error": errors[key], "tasks": res.get("tasks"), "result": res.get("result"),
            "walls": [o["wall"] for o in outs[key]], "others_cores": others, "steal_cores": steal,
            "compete": bool(getattr(args, "compete", False)),
        }
        for f in RUN_MEDIANS:
            if any(o.get(f) is not None for o in outs[key]):
                rec[f] = median_of(outs[key], f)
                rec[f + "_runs"] = [o.get(f) for o in outs[key]]
        if g["kind"] == "steal":
            # each run reports in-process medians over its trees; take the median over runs
            for f in ("leaf_cycles", "tree_cycles", "cost_cycles", "cost_ns", "cost_vs_ideal_cycles"):
                rec[f] = median_of(outs[key], f)
            rec["cost_cycles_runs"] = [o.get("cost_cycles") for o in outs[key]]
            rec["k"] = res.get("k")
        wr.add(rec)


def run_stats(args, g, wr, prog):
    """Table I's counts: <w>-merino-stats (built with -DMERINO_STATS) at 2 workers, STATS_REPS runs;
    the median of each counter. Their timings are recorded but not used."""
    s, nw = g["size"], STATS_WORKERS
    outs, err = [], None
    load = LoadMeter()
    for r in range(STATS_REPS):
        prog.start(f"{label(g)}  merino-stats w={nw}  run {r + 1}/{STATS_REPS}")
        res, err = run_once(args, g["stats"], "merino-stats", nw, s["params"], s["reps"])
        if err or res.get("spawns") is None:
            err = err or "no spawns/steals in the output (built without -DMERINO_STATS?)"
            print(f"FAILED: {err}", flush=True)
            prog.step(STATS_REPS - r - 1)
            break
        outs.append(res)
        print(f"spawns {res['spawns']}, steals {res['steals']}", flush=True)
    rec = {"kind": "stats", "workload": g["workload"], "params": s["params"], "inner_reps": s["reps"],
           "system": "merino-stats", "workers": nw, "oversubscribed": nw > NCORES,
           "runs": [o["seconds"] for o in outs], "walls": [o["wall"] for o in outs],
           "median": median_of(outs, "seconds"), "check": "ok" if outs and not err else "FAIL", "error": err,
           "tasks": outs[0].get("tasks") if outs else None}
    for f in ("spawns", "steals", "leapfrogs", "publishes"):
        rec[f + "_runs"] = [o[f] for o in outs if o.get(f) is not None]
        rec[f] = median_of(outs, f)
    wr.add(metered(rec, load))


def run_overhead(args, g, wr, prog):
    """overhead-merino and overhead-merino-allpub (built with -DMERINO_ALL_PUBLIC); each run is
    itself R alternations of serial fib and merino fib at one worker, timed with the TSC."""
    s = g["size"]
    for allpub in (False, True):
        sysname = "merino-allpub" if allpub else "merino"
        path = binary(args.build_dir, "overhead", sysname)
        if not path:
            log(f"note: overhead-{sysname} not built; skipped")
            prog.step(args.reps)
            continue
        outs, err = [], None
        load = LoadMeter()
        for r in range(args.reps):
            prog.start(f"overhead fib({s['params']}) {sysname} w=1  run {r + 1}/{args.reps}")
            res, err = run_once(args, path, sysname, 1, s["params"], s["reps"])
            if err:
                print(f"FAILED: {err}", flush=True)
                prog.step(args.reps - r - 1)
                break
            outs.append(res)
            print(f"{res['cycles_per_task']:.2f} cycles/task", flush=True)
        cpt = [o["cycles_per_task"] for o in outs]
        rec = {
            "kind": "overhead", "workload": "overhead", "params": s["params"], "inner_reps": s["reps"],
            "system": sysname, "workers": 1, "oversubscribed": False, "all_public": allpub,
            "runs": [o["seconds"] for o in outs], "median": median_of(outs, "seconds"),
            "cycles_per_task_runs": cpt, "cycles_per_task": median_of(outs, "cycles_per_task"),
            "ts_cycles": median_of(outs, "ts_cycles"), "t1_cycles": median_of(outs, "t1_cycles"),
            "tasks": outs[0]["tasks"] if outs else None, "check": "ok" if cpt and not err else "FAIL",
            "error": err, "walls": [o["wall"] for o in outs],
        }
        wr.add(metered(rec, load))


def run_ratios(args, g, wr, prog):
    """ratios-merino: one process of R rounds, each the serial programs then merino at 1 and 2
    workers, back to back; the ratios are taken within each round (see micro/ratios)."""
    s = g["size"]
    path = binary(args.build_dir, "ratios", "merino")
    if not path:
        prog.step()
        log("note: ratios-merino not built; skipped")
        return
    load = LoadMeter()
    prog.start(f"ratios {s['params']}  {s['reps']} paired rounds")
    res, err = run_once(args, path, "merino", 2, s["params"], s["reps"])
    print(f"FAILED: {err}" if err else "ok", flush=True)
    rec = {"kind": "ratios", "workload": "ratios", "params": s["params"], "inner_reps": s["reps"],
           "system": "merino", "workers": 2, "oversubscribed": False, "check": "FAIL" if err else "ok",
           "error": err, "runs": [res["seconds"]] if res else [], "median": res["seconds"] if res else None}
    for k in RATIO_KEYS:
        rec[k] = res.get(k) if res else None
    wr.add(metered(rec, load))


def run_prof(args, g, wr, prog):
    """prof-merino (libmerino_prof): the profiler's parallelism against independent estimates and
    the profiled fib's T_1 / T_S, one process per worker count (see experiments/prof)."""
    s = g["size"]
    path = binary(args.build_dir, "prof", "merino")
    for nw in g["workers"]:
        if not path:
            prog.step()
            log("note: prof-merino not built; skipped")
            continue
        load = LoadMeter()
        prog.start(f"prof {s['params']}  {s['reps']} rounds  w={nw}")
        res, err = run_once(args, path, "merino", nw, s["params"], s["reps"])
        print(f"FAILED: {err}" if err else "ok", flush=True)
        rec = {"kind": "prof", "workload": "prof", "params": s["params"], "inner_reps": s["reps"],
               "system": "merino", "workers": nw, "oversubscribed": nw > NCORES,
               "check": "FAIL" if err else "ok", "error": err, "runs": [res["seconds"]] if res else [],
               "median": res["seconds"] if res else None}
        for k in PROF_KEYS:
            rec[k] = res.get(k) if res else None
        wr.add(metered(rec, load))
