"""The Hood paper's experiments (docs/idle.md): multiprogramming (`--only multiprog`) and idle cost
(`--only idle`). Both run their own way, not as a workload's table of sizes.

multiprog: knary(h, d, s) with P = 1..16 workers on this machine, alone, next to cyclcr (the
competing program, cyclcr.c), next to 1 and 2 CPU-bound hogs (cyclcr --hog), and two copies at
once; for merino, its naive ablation (merino-naive: idle workers spin), oneTBB, OpenMP (libgomp and
libomp, each with the default wait policy and OMP_WAIT_POLICY=active) and Rayon. Each run gives a
point of the paper's Figures 4 and 5: x = P / (T_1 / T_inf), y = T_1 / (P_A T_P), where
  T_1    the same system's time at P = 1 alone, at that size;
  T_inf  T_1 x S/W, knary's span over its work counted on its tree (each node one unit: the span of
         a node is itself, then its serial children one after the other, then one parallel child);
  P_A    the processors the run could have: min(P, cores) alone; min(P, cores - what the competitor
         used over the run) beside cyclcr (from its counter log and its calibrated rate, as in the
         paper; its CPU time from /proc is recorded too) or hogs (their CPU time, from
         /proc/<pid>/task/*/schedstat); for two copies at once, min(P, cores - the other's CPU time
         (getrusage) spread over its run and counted over ours).
idle: experiments/idle, rayon #642's pattern: a region of N tasks every 1 ms and every 10 ms, empty
or of 1 ms of work, for --idle-seconds (default 1.5 s, --all 10 s): the process's CPU time over the
tasks' busy time, the CPUs burnt beyond the work, and the latency from submission to the first
task; the serial program (the same loop calling the tasks itself) gives what the loop costs without
any runtime, which every runtime's figure includes too.
"""

import json
import os
import signal
import statistics
import subprocess
import time

from . import log
from .machine import NCORES, LoadMeter
from .layout import folders
from .plan import binary
from .results import fit_constants, model_rows

# ---- what runs -------------------------------------------------------------------------------------

# (system as recorded, binary's system, extra environment)
MP_VARIANTS = {
    "merino": [("merino", "merino", {}), ("merino-naive", "merino-naive", {})],
    "tbb": [("tbb", "tbb", {})],
    "omp-gcc": [("omp-gcc", "omp-gcc", {}), ("omp-gcc-active", "omp-gcc", {"OMP_WAIT_POLICY": "active"})],
    "omp-clang": [("omp-clang", "omp-clang", {}), ("omp-clang-active", "omp-clang", {"OMP_WAIT_POLICY": "active"})],
    "rayon": [("rayon", "rayon", {})],
}
MP_SYSTEMS = [v[0] for vs in MP_VARIANTS.values() for v in vs]
SCENARIOS = ["alone", "cyclcr", "hog1", "hog2", "two"]
CYCLCR_ARGS = [str(NCORES), "20", "0"]  # p = cores subordinates, 1..20 increments each, no end
# The sizes: experiments/multiprog/params (knary's params, its in-process reps and the worker counts
# P) and experiments/idle/params (period_us region_us tasks, and the worker counts)
IDLE_SYSTEMS = ["serial", "merino", "merino-naive", "tbb", "omp-gcc", "omp-clang", "rayon"]


def span_ratio(params):
    """T_inf / T_1 of knary h d s: S(h) = 1 + (s + [d > s]) S(h - 1), W(h) = 1 + d W(h - 1)."""
    h, d, s = (int(x) for x in params.split()[:3])
    sp, w = 1, 1
    for _ in range(h - 1):
        sp = 1 + (s + (1 if d > s else 0)) * sp
        w = 1 + d * w
    return sp / w


def mp_binary(build_dir, system):
    return binary(build_dir, "knary", system)


def cyclcr_binary(build_dir):
    p = os.path.join(build_dir, "bench", "cyclcr", "cyclcr")
    return p if os.access(p, os.X_OK) else None


def mp_plan(args, which):
    """[(size, inner reps, system, binary system, env, P, scenario)] and the skipped versions."""
    runs, skipped = [], []
    have_cy = cyclcr_binary(args.build_dir) is not None
    if not have_cy:
        skipped.append("cyclcr")
    for size in folders()["multiprog"].params[which]:
        params, reps = size["params"], size["reps"]
        for base, variants in MP_VARIANTS.items():
            if base not in args.systems:
                continue
            for (name, exe, env) in variants:
                if not mp_binary(args.build_dir, exe):
                    skipped.append(f"knary-{exe}")
                    continue
                for p in size["workers"] or [NCORES]:
                    for sc in SCENARIOS:
                        if sc != "alone" and not have_cy and sc != "two":
                            continue
                        runs.append((params, reps, name, exe, env, p, sc))
    return runs, sorted(set(skipped))


def idle_plan(args, which):
    runs, skipped = [], []
    for s in IDLE_SYSTEMS:
        base = "merino" if s == "merino-naive" else s
        if base not in args.systems:
            continue
        if not binary(args.build_dir, "idle", s):
            skipped.append(f"idle-{s}")
            continue
        for size in folders()["idle"].params[which]:
            period, region, tasks = (int(x) for x in size["params"].split())
            for w in size["workers"] or [NCORES]:
                runs.append((s, w, period, region, tasks or w))
    return runs, sorted(set(skipped))


def estimate(args, which):
    """Seconds the experiments should take (nominal)."""
    t = 0.0
    if "multiprog" in (args.only or []):
        runs, _ = mp_plan(args, which)
        for (params, reps, name, exe, env, p, sc) in runs:
            # ~0.15 s a kernel at P = 1, better at 2, more when oversubscribed or shared; two copies
            w = 0.25 if which != "quick" else 0.01
            w *= 1.0 if p == 1 else 0.6
            if name.endswith("naive") or name.endswith("active"):
                w *= 1 + p / 3
            t += (w * (2 if sc != "alone" else 1) + 0.08) * args.mp_reps
    if "idle" in (args.only or []):
        runs, _ = idle_plan(args, which)
        t += len(runs) * (args.idle_seconds + 0.3)
    return t


# ---- processes -------------------------------------------------------------------------------------

# Kept from the caller's environment, so the idle policy can be tuned from the command line:
# MERINO_IDLE_US=10 bench/run --only idle --systems merino
KEPT_VARS = ("MERINO_IDLE_SPINS", "MERINO_IDLE_US")


def tuning():
    """The idle policy's variables in effect (recorded with every run)."""
    return {k: os.environ[k] for k in KEPT_VARS if k in os.environ}


def clean_env(extra=None):
    env = dict(os.environ)
    for k in list(env):
        if k in KEPT_VARS:
            continue
        if k.startswith("MERINO_") or k.startswith("OMP_") or k.startswith("GOMP_") or k.startswith("KMP_"):
            del env[k]
    env.update(extra or {})
    return env


def task_cpu_ns(pid):
    """CPU time of a live process: the sum of its threads' /proc/<pid>/task/*/schedstat (ns)."""
    total = 0
    try:
        for t in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{t}/schedstat") as f:
                    total += int(f.read().split()[0])
            except (OSError, ValueError, IndexError):
                pass
    except OSError:
        return None
    return total


def parse_json_line(text):
    for line in reversed(text.strip().splitlines()):
        try:
            return json.loads(line)
        except ValueError:
            continue
    return None


def start_knary(path, system, p, params, reps, env):
    cmd = [path, "--workers", str(p)] + (["--reps", str(reps)] if reps != 1 else []) + params.split()
    e = clean_env(env)
    if system.startswith("omp"):
        e["OMP_NUM_THREADS"] = str(p)
    return subprocess.Popen(cmd, env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish_knary(proc, timeout):
    """(output dict or None, error, cpu seconds from rusage, end time)."""
    deadline = time.monotonic() + timeout
    while True:
        pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            proc.kill()
            os.wait4(proc.pid, 0)
            return None, f"timeout after {timeout} s", None, time.monotonic_ns()
        time.sleep(0.002)
    t_end = time.monotonic_ns()
    proc.returncode = os.waitstatus_to_exitcode(status)
    out, err = proc.stdout.read(), proc.stderr.read()
    res = parse_json_line(out)
    cpu = ru.ru_utime + ru.ru_stime
    if res is None:
        return None, f"exit {proc.returncode}: {(err.strip().splitlines() or ['no output'])[-1]}", cpu, t_end
    if proc.returncode != 0 or res.get("check") != "ok":
        return res, f"check {res.get('check')} (exit {proc.returncode})", cpu, t_end
    return res, None, cpu, t_end


class Competitor:
    """cyclcr or hogs in the background, for the length of one run."""

    def __init__(self, path, scenario, seed):
        self.scenario = scenario
        args = ["--hog", scenario[3:]] if scenario.startswith("hog") else ["--seed", str(seed)] + CYCLCR_ARGS
        self.proc = subprocess.Popen([path] + args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        time.sleep(0.03)  # its threads are up and competing
        self.cpu0 = None

    def mark(self):
        """The start of the measured window."""
        self.cpu0 = task_cpu_ns(self.proc.pid)

    def stop(self):
        """CPU ns it used since mark(), and cyclcr's log (or None)."""
        cpu1 = task_cpu_ns(self.proc.pid)
        self.proc.send_signal(signal.SIGTERM)
        try:
            out, _ = self.proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, _ = self.proc.communicate()
        used = cpu1 - self.cpu0 if cpu1 is not None and self.cpu0 is not None else None
        return used, (parse_json_line(out) if self.scenario == "cyclcr" else None)


def cyclcr_rate(path):
    """Increments per second of one cyclcr thread alone (the paper's calibration)."""
    out = subprocess.run([path, "--calibrate", "0.3"], stdout=subprocess.PIPE, text=True, timeout=30).stdout
    return json.loads(out)["rate"]


def counter_at(log_, t):
    """cyclcr's counter at time t (ns), interpolated in its log [[t, v], ...]."""
    if not log_:
        return None
    if t <= log_[0][0]:
        return log_[0][1]
    for (t0, v0), (t1, v1) in zip(log_, log_[1:]):
        if t0 <= t <= t1:
            return v0 + (v1 - v0) * (t - t0) / max(1, t1 - t0)
    return log_[-1][1]


# ---- the multiprogramming runs ---------------------------------------------------------------------

def run_multiprog(args, which, wr):
    runs, skipped = mp_plan(args, which)
    if skipped:
        log("multiprog: not built (skipped): " + ", ".join(skipped))
    cy = cyclcr_binary(args.build_dir)
    rate = cyclcr_rate(cy) if cy else None
    if rate:
        log(f"multiprog: cyclcr calibrated at {rate:.0f} increments/s on one processor")
    # alone first (T_1 and the solo times the others are compared with), then the rest
    order = sorted(runs, key=lambda r: SCENARIOS.index(r[6]))
    t0 = time.time()
    for k, (params, reps, name, exe, env, p, sc) in enumerate(order):
        for rep in range(args.mp_reps):
            e = int(time.time() - t0)
            print(f"[{k + 1}/{len(order)} {e // 60}:{e % 60:02d}] knary {params} x{reps}  {name} P={p}  {sc}"
                  f"{'' if args.mp_reps == 1 else f' run {rep + 1}/{args.mp_reps}'} ...", end=" ", flush=True)
            rec = mp_one(args, params, reps, name, exe, env, p, sc, cy, rate, seed=k * 100 + rep)
            wr.add(rec)
            print(f"FAILED: {rec['error']}" if rec["check"] != "ok" else
                  f"{rec['median']:.4f} s" + (f", P_A {rec['p_a']:.2f}" if rec.get("p_a") is not None else ""),
                  flush=True)


def mp_one(args, params, reps, name, exe, env, p, sc, cy, rate, seed):
    path = mp_binary(args.build_dir, exe)
    rec = {"kind": "multiprog", "workload": "knary", "params": params, "inner_reps": reps, "system": name,
           "workers": p, "oversubscribed": p > NCORES, "scenario": sc, "span_ratio": span_ratio(params),
           "cores": NCORES, "tuning": tuning()}
    load = LoadMeter()
    comp = Competitor(cy, sc, seed) if sc in ("cyclcr", "hog1", "hog2") else None
    if comp:
        comp.mark()
    t_start = time.monotonic_ns()
    procs = [start_knary(path, exe, p, params, reps, env) for _ in range(2 if sc == "two" else 1)]
    outs = [finish_knary(pr, args.timeout) for pr in procs]
    used, cylog = comp.stop() if comp else (None, None)
    if sc == "alone":
        rec["others_cores"], rec["steal_cores"] = load.read()
    errors = [o[1] for o in outs if o[1]]
    rec["check"] = "FAIL" if errors else "ok"
    rec["error"] = errors[0] if errors else None
    if errors:
        rec["median"] = None
        return rec
    times = [o[0]["seconds"] for o in outs]
    rec["runs"] = times
    rec["median"] = max(times) if sc == "two" else times[0]
    rec["cpu_s"] = [o[2] for o in outs]  # each process's CPU time (getrusage): what it burnt, spinning included
    rec["cpus_used"] = [o[2] / max(1e-6, (o[3] - t_start) * 1e-9) for o in outs]
    rec["result"] = outs[0][0].get("result")
    rec["tasks"] = outs[0][0].get("tasks")
    t_p = times[0]
    # the kernel's window: it ends with the program (verification and exit are short)
    t_end = outs[0][3]
    win = max(1e-6, (t_end - t_start) * 1e-9)
    if sc == "alone":
        rec["p_a"] = float(min(p, NCORES))
    elif sc in ("hog1", "hog2"):
        rec["competitor_cpus"] = used * 1e-9 / win if used is not None else None
        rec["p_a"] = min(p, max(0.0, NCORES - rec["competitor_cpus"])) if used is not None else None
    elif sc == "cyclcr":
        rec["competitor_cpus_proc"] = used * 1e-9 / win if used is not None else None
        lg = (cylog or {}).get("log") or []
        t0 = t_end - int(t_p * 1e9)
        v1, v0 = counter_at(lg, t_end), counter_at(lg, t0)
        inside = sum(1 for (t, _) in lg if t0 <= t <= t_end)
        # the counter's rate needs a few log entries inside the kernel's window; else its CPU time
        if rate and v1 is not None and v0 is not None and t_p > 0 and inside >= 5:
            rec["competitor_cpus"] = (v1 - v0) / t_p / rate
        else:
            rec["competitor_cpus"] = rec["competitor_cpus_proc"]
        c = rec["competitor_cpus"]
        rec["p_a"] = min(p, max(0.0, NCORES - c)) if c is not None else None
    else:  # two copies: each had what the other left: the other's CPUs (its CPU time over its life)
        pas = []  # counted over the part of our life it lived
        walls = [max(1e-6, (o[3] - t_start) * 1e-9) for o in outs]
        for i, j in ((0, 1), (1, 0)):
            other = outs[j][2] / walls[j] * min(1.0, walls[j] / walls[i])
            pas.append(min(p, max(0.0, NCORES - other)))
        rec["p_a_each"] = pas
        rec["p_a"] = pas[0]
    return rec


def mp_summary(records):
    """Lines of the multiprogramming tables ([] without multiprog records)."""
    if not any(r["kind"] == "multiprog" for r in records):
        return []
    rows = model_rows(records)
    lines = ["", "Multiprogramming (knary; the Hood paper's model, Figures 4 and 5)",
             "  per system: fitted c1, c_inf of P_A T_P = c1 T_1 + c_inf T_inf P; runs within 15% of the",
             "  (1.1, 2) model or faster; median utilization T_1 / (P_A T_P) where P < T_1/T_inf / 10",
             f"  {'system':18} {'runs':>5} {'c1':>7} {'c_inf':>8} {'<=1.15 model':>13} {'util (x<0.1)':>13}"]
    for sy in MP_SYSTEMS:
        rs = [r for r in rows if r["system"] == sy]
        if not rs:
            continue
        fit = fit_constants(rs)
        ok = sum(1 for r in rs if r["vs_model"] <= 1.15)
        low = [r["utilization"] for r in rs if r["x"] < 0.1]
        lines.append(f"  {sy:18} {len(rs):>5} {fit[0] if fit else float('nan'):>7.3f} "
                     f"{fit[1] if fit else float('nan'):>8.3f} {ok / len(rs):>12.0%} "
                     f"{statistics.median(low) if low else float('nan'):>13.3f}")
    # oversubscription: T_P at P = 4, 8, 16 over P = 2, alone
    lines += ["", "  alone: T_P(P) / T_P(2) (oversubscribed on the right of 2)"]
    alone = {}
    for r in records:
        if r["kind"] == "multiprog" and r["scenario"] == "alone" and r.get("median"):
            alone.setdefault((r["system"], r["params"]), {})[r["workers"]] = r["median"]
    for (sy, params), by_p in sorted(alone.items(), key=lambda kv: (MP_SYSTEMS.index(kv[0][0]), kv[0][1])):
        if 2 not in by_p:
            continue
        cells = "  ".join(f"P={p}: {by_p[p] / by_p[2]:.2f}" for p in sorted(by_p) if p > 2)
        lines.append(f"  {sy:18} knary {params:12} {cells}")
    # two copies at once
    lines += ["", "  two copies at once: throughput over the solo program's, and each one's time over its fair share"]
    for r in records:
        if r["kind"] == "multiprog" and r["scenario"] == "two" and r.get("runs"):
            solo = alone.get((r["system"], r["params"]), {}).get(r["workers"])
            if not solo:
                continue
            thr = solo * sum(1.0 / t for t in r["runs"])
            fair = solo * min(r["workers"], NCORES) / max(1e-9, min(r["workers"], NCORES / 2))
            worst = max(r["runs"]) / fair
            lines.append(f"  {r['system']:18} knary {r['params']:12} P={r['workers']:<3} together {thr:.2f}x solo, "
                         f"slowest {worst:.2f}x its fair share")
    return lines


# ---- the idle-cost runs ----------------------------------------------------------------------------

def run_idle(args, which, wr):
    runs, skipped = idle_plan(args, which)
    if skipped:
        log("idle: not built (skipped): " + ", ".join(skipped))
    t0 = time.time()
    for k, (s, w, period, region, tasks) in enumerate(runs):
        path = binary(args.build_dir, "idle", s)
        e = int(time.time() - t0)
        print(f"[{k + 1}/{len(runs)} {e // 60}:{e % 60:02d}] idle {s} w={w} every {period} us, region {region} us "
              f"of {tasks} task(s), "
              f"{args.idle_seconds} s ...", end=" ", flush=True)
        load = LoadMeter()
        env = clean_env({"OMP_NUM_THREADS": str(w)} if s.startswith("omp") else None)
        cmd = [path, "--workers", str(w), str(period), str(region), str(args.idle_seconds), str(tasks)]
        rec = {"kind": "idle", "workload": "idle", "system": s, "workers": w, "period_us": period,
               "region_us": region, "tasks": tasks, "seconds_asked": args.idle_seconds,
               "params": f"{period} {region} {tasks}",
               "inner_reps": 1, "oversubscribed": w > NCORES, "tuning": tuning()}
        try:
            p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               timeout=args.idle_seconds * 3 + 30)
            out = parse_json_line(p.stdout)
            err = None if out and p.returncode == 0 and out.get("check") == "ok" else \
                f"exit {p.returncode}: {(p.stderr.strip().splitlines() or ['no output'])[-1]}"
        except subprocess.TimeoutExpired:
            out, err = None, "timeout"
        rec["others_cores"], rec["steal_cores"] = load.read()
        rec["check"], rec["error"] = ("FAIL", err) if err else ("ok", None)
        for f in ("seconds", "result", "cpu_s", "busy_s", "cpu_over_busy", "idle_cpus", "first_med_us",
                  "first_p99_us", "other_med_us", "other_p99_us", "other_regions"):
            rec[f] = (out or {}).get(f)
        rec["median"] = rec["seconds"]
        wr.add(rec)
        print(f"FAILED: {err}" if err else
              f"CPU {rec['cpu_s']:.3f} s, busy {rec['busy_s']:.3f} s, idle {100 * rec['idle_cpus']:.1f}% of a CPU, "
              f"first task p99 {rec['first_p99_us']:.1f} us", flush=True)


def idle_summary(records):
    rs = [r for r in records if r["kind"] == "idle" and r["check"] == "ok"]
    if not rs:
        return []
    lines = ["", "Idle cost (rayon #642's pattern; targets: empty regions <= 2% of a CPU, a 1 ms region every",
             "10 ms <= 1.2x its busy time, first task p99 < 50 us). 'beyond loop': idle %CPU less the serial",
             "program's (the same loop calling the tasks itself, no runtime: its timer sleeps and wake-ups)",
             f"  {'system':14} {'w':>3} {'period':>7} {'region':>7} {'tasks':>5} {'idle %CPU':>9} {'beyond loop':>11} "
             f"{'CPU/busy':>9} {'first med/p99 us':>17} {'woken med/p99 us':>17}"]
    loop = {(r["workers"], r.get("tasks"), r["period_us"], r["region_us"]): r["idle_cpus"]
            for r in rs if r["system"] == "serial"}
    tun = {k: v for r in rs for k, v in (r.get("tuning") or {}).items()}
    if tun:
        lines.insert(3, "  merino's idle policy set by " + " ".join(f"{k}={v}" for k, v in sorted(tun.items())))
    for r in sorted(rs, key=lambda r: (r["workers"], r.get("tasks") or r["workers"], r["period_us"], r["region_us"],
                                       IDLE_SYSTEMS.index(r["system"]))):
        cb = f"{r['cpu_over_busy']:.2f}" if r.get("cpu_over_busy") else "-"
        woken = f"{r['other_med_us']:.1f}/{r['other_p99_us']:.1f}" if r.get("other_regions") else "-"
        base = loop.get((r["workers"], r.get("tasks"), r["period_us"], r["region_us"]))
        beyond = f"{100 * (r['idle_cpus'] - base):.2f}%" if base is not None and r["system"] != "serial" else "-"
        lines.append(f"  {r['system']:14} {r['workers']:>3} {r['period_us']:>5}us {r['region_us']:>5}us "
                     f"{r.get('tasks') or r['workers']:>5} "
                     f"{100 * r['idle_cpus']:>8.2f}% {beyond:>11} {cb:>9} {r['first_med_us']:>8.1f}/{r['first_p99_us']:<8.1f} {woken:>17}")
    return lines
