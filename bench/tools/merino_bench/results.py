"""A results file (bench/results/<stamp>.jsonl): a "meta" line, one record per measurement, the rows
derived from them and an "end" line. Also the names every layer shares: systems, record fields."""

import datetime
import glob
import json
import math
import os
import statistics

from .layout import SYSTEMS

# The systems of bench/systems in its order (merino-stats, never timed, apart); serial, merino's
# builds and interfaces, and the peers merino is compared with
ALL_SYSTEMS = [s for s, v in SYSTEMS.items() if v["runs"] != "stats"]
DEFAULT_SYSTEMS = [s for s in ALL_SYSTEMS if SYSTEMS[s]["runs"] != "named"]  # the rest: only when named
PARALLEL_SYSTEMS = [s for s in ALL_SYSTEMS if SYSTEMS[s]["family"] != "serial"]
PEERS = [s for s in ALL_SYSTEMS if SYSTEMS[s]["family"] == "peer"]
RECORD_KINDS = ("workload", "stats", "overhead", "steal", "ratios", "prof", "multiprog", "idle", "oversub")  # measured, not derived
# Fields of a program's JSON line a record keeps as the median over its runs (and the runs' values
# as <field>_runs): region's per-region time, the median over the rounds of one process; donation's
# latencies (median and 99th percentile over the loops of one process) and sample count; mpiheat's
# computation and communication times, hidden share and CPU while waiting
RUN_MEDIANS = ("region_ns", "lat_median_us", "lat_p99_us", "samples", "comp_seconds", "comm_seconds", "hidden",
               "wait_cpu")

OTHERS_WARN = 0.1  # cores used by other processes during a measurement worth a note
STATS_WORKERS = 2  # Table I: N_M is the number of steals at 2 workers
STATS_REPS = 3     # process runs of <w>-merino-stats per size (median of the counts)
# (key, label) of ratios-merino's output; each value is [p25, median, p75] over the rounds
RATIO_KEYS = {"fib_t1_ts": "fib T_1 / T_S", "fib_ts_t2": "fib T_S / T_2",
              "stress1_ts_t2": "stress T_S / T_2", "ceiling1_ts_t2": "  ceiling T_S / T",
              "stress1_of_ceiling": "  merino / ceiling",
              "stress2_ts_t2": "stress T_S / T_2", "ceiling2_ts_t2": "  ceiling T_S / T",
              "stress2_of_ceiling": "  merino / ceiling"}


# prof-merino's output (experiments/prof): per workload the profiler's parallelism, the estimate
# and their ratio (medians over the rounds), and the profiled fib's T_1 / T_S
PROF_WORKLOADS = {"fibw": "closed form (2 F(n+1) - 1) / n", "stress": "T_S / (trees x (h+1 calls + a leaf))",
                  "cholesky": "T_S / span of a timed serial replay"}
PROF_KEYS = [f"{w}_{k}" for w in PROF_WORKLOADS
             for k in ("measured", "estimate", "ratio", "work_ratio", "span_ratio", "least3_ratio",
                       "least3_work_ratio", "least3_span_ratio", "ratio_lo", "ratio_hi", "least3_ratio_lo",
                       "least3_ratio_hi")] + ["cholesky_replay_work_ratio", "prof_fib_t1_ts"]


def read(path):
    """(meta, end, records) of a results file; derived rows are left out (derived_rows remakes them)."""
    meta, end, records = {}, {}, []
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            kind = r.get("kind")
            if kind == "meta":
                meta = r
            elif kind == "end":
                end = r
            elif kind in RECORD_KINDS:
                records.append(r)
    return meta, end, records


def newest(results_dir, which="headline"):
    """The newest results file of a set (headline, all, quick), or None."""
    for f in sorted(glob.glob(os.path.join(results_dir, "*.jsonl")), reverse=True):
        try:
            with open(f) as fh:
                meta = json.loads(fh.readline())
        except (OSError, ValueError):
            continue
        if meta.get("kind") == "meta" and meta.get("set") == which:
            return f
    return None


# ---- labels of a run ------------------------------------------------------------------------------

def commit_label(meta):
    """The commit's short hash, with "+dirty" when the tree had uncommitted changes."""
    dirty = meta.get("tree_dirty", bool(meta.get("dirty")))
    return meta.get("commit", "unknown") + ("+dirty" if dirty else "")


def date_label(meta):
    stamp = meta.get("time", "")
    try:
        return datetime.datetime.strptime(stamp, "%Y%m%d-%H%M%S").strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return stamp


def machine_label(meta):
    return f"{meta.get('cpu', '?')}, {meta.get('cores', '?')} cores"


def loaded(r):
    """Whether other processes used enough of the machine during the record's runs to doubt them."""
    return (r.get("others_cores") or 0) > OTHERS_WARN


# ---- records by workload size ---------------------------------------------------------------------

def workload_groups(records, kind="workload"):
    groups = {}
    for r in records:
        if r["kind"] == kind:
            groups.setdefault((r["workload"], r["params"], r["inner_reps"]), []).append(r)
    return groups


def group_name(w, params, reps):
    return f"{w} {params}" + (f" --reps {reps}" if reps != 1 else "")


def ok_median(r):
    return r["median"] if r and r["check"] == "ok" and r["median"] else None


# ---- derived rows ---------------------------------------------------------------------------------

def task_overhead_rows(records, tsc_hz):
    """The workloads run as merino-allpub too (fib, stress): T_S, T_1, T_2 and the inlined-task overhead (T_1 - T_S) / N_T in TSC cycles, for
    merino with private tasks and with every task public."""
    allpub = {r["workload"] for r in records if r["kind"] == "workload" and r["system"] == "merino-allpub"}
    idx = {}
    for r in records:
        if r["kind"] == "workload" and r["workload"] in allpub:
            idx[(r["workload"], r["params"], r["inner_reps"], r["system"], r["workers"])] = r
    rows = []
    for (w, params, reps) in sorted({k[:3] for k in idx}, key=lambda k: (k[0], k[1])):
        def rec(sy, nw):
            return idx.get((w, params, reps, sy, nw))
        ts = ok_median(rec("serial", 1))
        if ts is None:
            continue
        row = {"kind": "task_overhead", "workload": w, "params": params, "inner_reps": reps, "T_S": ts,
               "tsc_hz": tsc_hz}
        for sy, tag in (("merino", ""), ("merino-allpub", "_allpub")):
            t1, t2 = ok_median(rec(sy, 1)), ok_median(rec(sy, 2))
            nt = (rec(sy, 1) or {}).get("tasks") or (rec(sy, 2) or {}).get("tasks")
            row["T_1" + tag], row["T_2" + tag], row["N_T"] = t1, t2, nt or row.get("N_T")
            row["cycles_per_task" + tag] = ((t1 - ts) / nt * tsc_hz) if (t1 and nt and tsc_hz) else None
        if row.get("T_1") is not None or row.get("T_1_allpub") is not None:
            rows.append(row)
    return rows


def table1_rows(records, tsc_hz):
    """The Wool paper's Table I: T_S (serial median), N_T (spawns) and N_M (steals at 2 workers)
    from merino's own counters (<w>-merino-stats, median of its runs), G_T = T_S / N_T and
    G_L = T_S / N_M."""
    serial = {(r["workload"], r["params"], r["inner_reps"]): r for r in records
              if r["kind"] == "workload" and r["system"] == "serial"}
    rows = []
    for r in records:
        if r["kind"] != "stats":
            continue
        ts = ok_median(serial.get((r["workload"], r["params"], r["inner_reps"])))
        nt, nm = r.get("spawns"), r.get("steals")
        rows.append({"kind": "table1", "workload": r["workload"], "params": r["params"],
                     "inner_reps": r["inner_reps"], "workers": r["workers"], "T_S": ts, "N_T": nt, "N_M": nm,
                     "leapfrogs": r.get("leapfrogs"), "publishes": r.get("publishes"),
                     "tasks_reported": r.get("tasks"), "check": r["check"], "error": r.get("error"),
                     "tsc_hz": tsc_hz, "G_T": ts / nt if (ts and nt) else None,
                     "G_L": ts / nm if (ts and nm) else None})
    return rows


def derived_rows(records, tsc_hz):
    return task_overhead_rows(records, tsc_hz) + table1_rows(records, tsc_hz)


# ---- the Hood model (multiprog.py's runs) -------------------------------------------------------------------------------------

def model_rows(records):
    """One row per multiprog run with its point of Figures 4/5 (x, utilization), T_1 from the same
    system's P = 1 alone run at that size, and the model's prediction with (1.1, 2)."""
    t1 = {}
    for r in records:
        if r["kind"] == "multiprog" and r["scenario"] == "alone" and r["workers"] == 1 and r.get("median"):
            t1.setdefault((r["system"], r["params"], r["inner_reps"]), []).append(r["median"])
    rows = []
    for r in records:
        if r["kind"] != "multiprog" or not r.get("median") or not r.get("p_a"):
            continue
        key = (r["system"], r["params"], r["inner_reps"])
        if key not in t1:
            continue
        T1 = statistics.median(t1[key])
        tinf = T1 * r["span_ratio"]
        pairs = [(r["runs"][i], r["p_a_each"][i]) for i in range(2)] if r["scenario"] == "two" else [(r["median"], r["p_a"])]
        for tp, pa in pairs:
            if pa <= 0:
                continue
            pred = (1.1 * T1 + 2.0 * tinf * r["workers"]) / pa
            rows.append({"kind": "model", "system": r["system"], "params": r["params"], "scenario": r["scenario"],
                         "workers": r["workers"], "T_1": T1, "T_inf": tinf, "T_P": tp, "P_A": pa,
                         "x": r["workers"] * r["span_ratio"], "utilization": T1 / (pa * tp),
                         "model_1.1_2": pred, "vs_model": tp / pred})
    return rows


def fit_constants(rows):
    """Least-squares c1, c_inf of P_A T_P = c1 T_1 + c_inf T_inf P, each run weighted by 1 / (P_A T_P)
    (relative errors); None when there are too few runs."""
    a11 = a12 = a22 = b1 = b2 = 0.0
    for r in rows:
        y = r["P_A"] * r["T_P"]
        u, v = r["T_1"] / y, r["T_inf"] * r["workers"] / y
        a11, a12, a22, b1, b2 = a11 + u * u, a12 + u * v, a22 + v * v, b1 + u, b2 + v
    det = a11 * a22 - a12 * a12
    if len(rows) < 3 or abs(det) < 1e-12:
        return None
    return (b1 * a22 - b2 * a12) / det, (a11 * b2 - a12 * b1) / det


def model_curve(c1, cinf, xs):
    return [1.0 / (c1 + cinf * x) for x in xs]


def log_space(lo, hi, n):
    return [math.exp(math.log(lo) + (math.log(hi) - math.log(lo)) * i / (n - 1)) for i in range(n)]
