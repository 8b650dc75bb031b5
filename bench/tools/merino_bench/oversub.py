"""Oversubscription (`--only oversub`): merino's versions of workloads at P workers beyond the cores,
T_P / T_base with base the line's first (smallest) worker count, paired within a round.

Each round runs every line of experiments/oversub/params at each of its worker counts back to back
(one process run each, its answer checked by the program); --reps rounds. On a 2-core machine,
P > 2 is oversubscribed: the Hood paper's setting, where a work stealer that yields keeps T_P near
T_2. A record per (line, P): "kind": "oversub", the rounds' seconds and ratios, their medians."""

import statistics
import time

from . import log
from .execute import run_once
from .layout import folders
from .machine import NCORES, LoadMeter
from .plan import binary

SYSTEM = "merino"


def plan(args, which):
    """[(workload, params, inner reps, worker counts, executable)] and the versions not built."""
    lines, skipped = [], []
    for s in folders()["oversub"].params[which]:
        w, _, params = s["params"].partition(" ")
        path = binary(args.build_dir, w, SYSTEM)
        if not path:
            skipped.append(f"{w}-{SYSTEM}")
            continue
        lines.append((w, params, s["reps"], s["workers"] or [NCORES], path))
    return lines, skipped


def estimate(args, which):
    lines, _ = plan(args, which)
    per_run = 0.02 if which == "quick" else 0.5
    return sum(len(ps) for (_, _, _, ps, _) in lines) * per_run * args.reps


def run(args, which, wr):
    lines, skipped = plan(args, which)
    if skipped:
        log("oversub: not built (skipped): " + ", ".join(skipped))
    times = {(w, params, p): [] for (w, params, _, ps, _) in lines for p in ps}
    errors = {}
    load = LoadMeter()
    t0 = time.time()
    for r in range(args.reps):
        for (w, params, reps, ps, path) in lines:
            e = int(time.time() - t0)
            print(f"[round {r + 1}/{args.reps} {e // 60}:{e % 60:02d}] oversub {w} {params}  {SYSTEM} "
                  f"P={','.join(map(str, ps))} ...", end=" ", flush=True)
            cells = []
            for p in ps:
                if (w, params) in errors:
                    break
                res, err = run_once(args, path, SYSTEM, p, params, reps)
                if err:
                    errors[(w, params)] = f"P={p}: {err}"
                    break
                times[(w, params, p)].append(res["seconds"])
                cells.append(f"{res['seconds']:.3f}")
            print(f"FAILED: {errors[(w, params)]}" if (w, params) in errors else " ".join(cells) + " s", flush=True)
    others, steal = load.read()
    for (w, params, reps, ps, _) in lines:
        base = times[(w, params, ps[0])]
        for p in ps:
            runs = times[(w, params, p)]
            paired = [t / b for t, b in zip(runs, base)]
            err = errors.get((w, params))
            wr.add({"kind": "oversub", "workload": w, "params": params, "inner_reps": reps, "system": SYSTEM,
                    "workers": p, "oversubscribed": p > NCORES, "base_workers": ps[0], "runs": runs,
                    "median": statistics.median(runs) if runs else None,
                    "ratio_runs": paired, "ratio": statistics.median(paired) if paired else None,
                    "ratio_lo": min(paired) if paired else None, "ratio_hi": max(paired) if paired else None,
                    "check": "FAIL" if err else "ok", "error": err, "others_cores": others, "steal_cores": steal})


def summary(records):
    """Lines of the table: per line, T_P / T_base at each P, median of the rounds [range]."""
    rs = [r for r in records if r["kind"] == "oversub"]
    if not rs:
        return []
    lines = ["", f"Oversubscription (merino): T_P / T_base, the median of {len(rs[0]['runs'])} paired rounds [min-max]"]
    by_line = {}
    for r in rs:
        by_line.setdefault((r["workload"], r["params"]), []).append(r)
    for (w, params), recs in by_line.items():
        cells = "  ".join(f"P={r['workers']} {r['ratio']:.3f} [{r['ratio_lo']:.2f}-{r['ratio_hi']:.2f}]"
                          for r in recs if r["workers"] != r["base_workers"] and r.get("ratio") is not None)
        fail = "; ".join(sorted({r["error"] for r in recs if r.get("error")}))
        lines.append(f"  {w:9s} {params:16s} base P={recs[0]['base_workers']}  {cells}" + (f"  FAILED: {fail}" if fail else ""))
    return lines
