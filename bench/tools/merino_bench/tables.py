"""The text tables bench/run prints and docs/benchmarks.md shows, as sections: a title and lines."""

from . import loops
from .results import (ALL_SYSTEMS, OTHERS_WARN, PARALLEL_SYSTEMS, PEERS, PROF_WORKLOADS, RATIO_KEYS, STATS_REPS, group_name,
                      ok_median, workload_groups)


def fmt_s(x):
    """Seconds, with about three significant digits."""
    if x is None:
        return "-"
    if x >= 100:
        return f"{x:.0f}"
    if x >= 1:
        return f"{x:.2f}"
    if x >= 0.01:
        return f"{x:.3f}"
    return f"{x:.5f}"


def fmt_r(x):
    return "-" if x is None else f"{x:.2f}"


def fmt_n(v, nd=0):
    return "-" if v is None else f"{v:.{nd}f}"


def fmt_q(x):
    """A ratio that may be far below 1 (region's T_S / T_P at W = 0): three decimals below 0.1."""
    return "-" if x is None else (f"{x:.3f}" if x < 0.1 else f"{x:.2f}")


def fmt_ns(x):
    """Nanoseconds: one decimal below 100, none above."""
    if x is None:
        return "-"
    return f"{x:.1f}" if x < 100 else f"{x:.0f}"


def render(rows, align):
    """The lines of a table. A row is a list of cells (strings) or a string printed as it is (a
    heading between the parts of one table). Each column is padded to its widest cell, 'r' columns
    on the left (numbers), 'l' ones on the right; a last 'l' column (notes) is not padded."""
    cells = [r for r in rows if not isinstance(r, str)]
    ncol = max((len(r) for r in cells), default=0)
    width = [max((len(r[i]) for r in cells if i < len(r)), default=0) for i in range(ncol)]
    lines = []
    for r in rows:
        if isinstance(r, str):
            lines.append(r)
            continue
        out = []
        for i, c in enumerate(r):
            if align[i] == "r":
                out.append(c.rjust(width[i]))
            else:
                out.append(c if i == ncol - 1 else c.ljust(width[i]))
        lines.append("  ".join(out).rstrip())
    return lines


def section(title, lines):
    """A titled block of the report: printed between rules by bench/run, a code block in
    docs/benchmarks.md."""
    return {"title": title, "lines": lines} if lines else None


def section_text(sec):
    rule = "=" * 100
    return ["", rule, sec["title"], rule] + sec["lines"]


def main_table(records, workers, reps, cores):
    """Per workload size and system, the median seconds at each worker count, the speedup against
    serial, and T / T_best of the parallel systems at that worker count."""
    workers = sorted(set(workers))
    head = ["system"] + [f"w={w}" + ("*" if w > cores else "") for w in workers] + \
        [f"speedup{w}" for w in workers] + [f"vs best{w}" for w in workers] + ["note"]
    rows = []
    for (w, params, ireps), recs in workload_groups(records).items():
        t = {(r["system"], r["workers"]): r for r in recs}
        ts = ok_median(t.get(("serial", 1)))
        best = {}
        for wk in workers:
            ms = [m for m in (ok_median(r) for r in recs if r["system"] != "serial" and r["workers"] == wk) if m]
            best[wk] = min(ms) if ms else None
        busy = max((r.get("others_cores") or 0) for r in recs)
        if rows:
            rows.append("")
        rows.append(group_name(w, params, ireps) + (f"   (serial: {fmt_s(ts)} s)" if ts else "   (no serial time)")
                    + (f"   other processes used {busy:.2f} cores meanwhile" if busy > OTHERS_WARN else ""))
        rows.append(head)
        for sy in ALL_SYSTEMS:
            if not any(r["system"] == sy and (r["workers"] in workers or sy == "serial") for r in recs):
                continue
            row, notes = [sy], []
            for wk in workers:
                r = t.get((sy, wk))
                row.append(fmt_s(r["median"]) if r else "")
                if r and r["check"] != "ok":
                    notes.append(f"w={wk}: {r.get('error') or 'FAIL'}")
                elif r and len(r["runs"]) < reps:
                    notes.append(f"w={wk}: {len(r['runs'])} run(s)")
            for wk in workers:
                m = ok_median(t.get((sy, wk)))
                row.append(fmt_r(ts / m) if (ts and m) else "")
            for wk in workers:
                m = ok_median(t.get((sy, wk))) if sy != "serial" else None
                row.append(fmt_r(m / best[wk]) if (m and best[wk]) else "")
            rows.append(row + ["; ".join(notes)])
    return section(f"Median seconds of {reps} runs (kernel only); speedup = T_serial / T; vs best = T / T_best "
                   f"of the parallel systems at that worker count (1.00 = fastest); * = oversubscribed",
                   render(rows, "l" + "r" * (3 * len(workers)) + "l"))


def not_fastest(records, workers):
    """(workload size, workers, merino's median, best peer, its median) wherever a peer beats merino,
    and the number of cells compared."""
    out, cells = [], 0
    for (w, params, ireps), recs in workload_groups(records).items():
        t = {(r["system"], r["workers"]): r for r in recs}
        for wk in sorted(set(workers)):
            m = ok_median(t.get(("merino", wk)))
            peers = [x for x in ((ok_median(t.get((p, wk))), p) for p in PEERS) if x[0]]
            if not m or not peers:
                continue
            cells += 1
            bt, bp = min(peers)
            if bt < m:
                out.append((group_name(w, params, ireps), wk, m, bp, bt))
    return out, cells


def fastest_section(records, workers):
    slow, cells = not_fastest(records, workers)
    if not cells:
        return None
    lines = [f"merino is the fastest in {cells - len(slow)} of {cells} (workload, workers) cells."]
    if slow:
        lines.append("Where a peer is faster:")
        rows = [["  " + name, f"w={wk}:", bp, f"{fmt_s(bt)} s,", "merino", f"{fmt_s(m)} s", f"({m / bt:.2f}x the time)"]
                for (name, wk, m, bp, bt) in slow]
        lines += render(rows, "llllrrl")
    return section("merino against the fastest peer (tbb, omp-gcc, omp-clang, rayon) at each worker count", lines)


def table1_section(rows):
    if not rows:
        return None
    hz = rows[0].get("tsc_hz")

    def scaled(v, k):
        if v is None or not k:
            return "-"
        return f"{v * k:.3g}" if v * k < 1000 else f"{v * k:.0f}"
    table = [["workload", "T_S [s]", "N_T", "N_M", "G_T [ns]", "G_T [cyc]", "G_L [us]", "G_L [cyc]", "note"]]
    for r in rows:
        notes = []
        if r["check"] != "ok":
            notes.append(f"FAILED: {r.get('error')}")
        if r["N_T"] is not None and r["tasks_reported"] is not None and r["N_T"] != r["tasks_reported"]:
            notes.append(f"the program computes {r['tasks_reported']} tasks")
        if r["T_S"] is None:
            notes.append("no serial time")
        table.append([group_name(r["workload"], r["params"], r["inner_reps"]), fmt_s(r["T_S"]), fmt_n(r["N_T"]),
                      fmt_n(r["N_M"]), scaled(r["G_T"], 1e9), scaled(r["G_T"], hz), scaled(r["G_L"], 1e6),
                      scaled(r["G_L"], hz), "; ".join(notes)])
    return section(f"Table I (Wool paper) for this machine: T_S = serial median; N_T = spawns, N_M = steals at "
                   f"{rows[0]['workers']} workers (merino's counters, <w>-merino-stats, median of {STATS_REPS} runs); "
                   "G_T = T_S / N_T, G_L = T_S / N_M (cycles: TSC)", render(table, "lrrrrrrrl"))


def ratios_lines(records):
    """Lines for the paired in-process ratios (bench/micro/ratios), or []."""
    lines = []
    for r in [r for r in records if r["kind"] == "ratios"]:
        p = r["params"].split()
        if len(p) < 7:  # results of the older 10-parameter version: skip
            continue
        ceil = "the same leaves, two pinned threads sharing them through a counter: the machine's ceiling"
        what = {"fib_t1_ts": f"fib({p[0]})", "fib_ts_t2": f"fib({p[0]})",
                "stress1_ts_t2": f"stress {p[1]} {p[2]} x{p[3]}", "ceiling1_ts_t2": ceil,
                "stress1_of_ceiling": "T_ceiling / T_2 (1 = as fast as the ceiling)",
                "stress2_ts_t2": f"stress {p[4]} {p[5]} x{p[6]}", "ceiling2_ts_t2": ceil,
                "stress2_of_ceiling": "T_ceiling / T_2"}
        lines.append("")
        lines.append(f"in-process paired measurement (bench/micro/ratios, {r['inner_reps']} rounds; each round runs the "
                     "serial program pinned to each CPU (T_S = the fastest), merino at 1 worker on the same CPU, "
                     "merino at 2 workers and the ceiling, back to back; median [p25 - p75] of the per-round ratios):")
        if r["check"] != "ok":
            lines.append(f"  FAILED: {r.get('error')}")
            continue
        rows = [["  " + lab, f"{r[k][1]:.2f}", f"[{r[k][0]:.2f} - {r[k][2]:.2f}]", what[k]]
                for k, lab in RATIO_KEYS.items() if r.get(k)]
        lines += render(rows, "lrll")
    return lines


def overhead_section(rows, records):
    """The inlined-task overhead: from the workload runs, from bench/micro/overhead and the paired ratios."""
    ov = [r for r in records if r["kind"] == "overhead"]
    rl = ratios_lines(records)
    lines = []
    if rows:
        table = [["workload", "T_S", "T_1", "T_2", "T_1 allpub", "T_2 allpub", "N_T", "cyc/task", "allpub"]]
        for r in rows:
            name = f"{r['workload']} {r['params']}" + (f" x{r['inner_reps']}" if r["inner_reps"] != 1 else "")
            table.append([name, fmt_s(r["T_S"]), fmt_s(r.get("T_1")), fmt_s(r.get("T_2")),
                          fmt_s(r.get("T_1_allpub")), fmt_s(r.get("T_2_allpub")), str(r.get("N_T") or "-"),
                          fmt_r(r.get("cycles_per_task")), fmt_r(r.get("cycles_per_task_allpub"))])
        lines += render(table, "lrrrrrrrr")
    if ov:
        lines.append("")
        lines.append("in-process measurement (bench/micro/overhead, serial and merino fib alternated, 1 worker, TSC):")
        table = [[f"  fib({r['params']})", "all tasks public:" if r["all_public"] else "private tasks:",
                  fmt_r(r.get("cycles_per_task")), "cycles/task",
                  f"(T_S {r.get('ts_cycles') or 0:.3g} cyc, T_1 {r.get('t1_cycles') or 0:.3g} cyc, "
                  f"N_T {r.get('tasks')})" + ("" if r["check"] == "ok" else f"  FAILED: {r.get('error')}")]
                 for r in ov]
        lines += render(table, "llrll")
    lines += rl
    return section("Inlined-task overhead (Wool Table II method): (T_1 - T_S) / N_T in TSC cycles; "
                   "allpub = built with -DMERINO_ALL_PUBLIC (every task public)", lines)


def steal_section(records):
    st = [r for r in records if r["kind"] == "steal"]
    table = [["k C", "system", "workers", "leaf cyc", "tree cyc", "cost cyc", "cost us", "vs ideal", "note"]]
    for r in st:
        note = "oversubscribed: leaves cannot all run at once" if r["oversubscribed"] else ""
        if r["check"] != "ok":
            note = f"FAILED: {r.get('error')}"
        cost_us = (r["cost_ns"] / 1000) if r.get("cost_ns") is not None else None
        table.append([r["params"], r["system"], str(r["workers"]), fmt_n(r.get("leaf_cycles")),
                      fmt_n(r.get("tree_cycles")), fmt_n(r.get("cost_cycles")), fmt_r(cost_us),
                      fmt_n(r.get("cost_vs_ideal_cycles")), note])
    return section("Steal cost (Wool Table III method): T(tree of height k on 2^k workers) - T(leaf C alone), "
                   "TSC cycles, median of runs", render(table, "llrrrrrrl") if st else [])


def by_config(recs):
    return {(r["system"], r["workers"]): r for r in recs}


def region_ns(r):
    """A region record's per-region time (ns, median over its runs), or None."""
    return r.get("region_ns") if r and r["check"] == "ok" else None


def region_section(records, workers):
    """region: per W, the time of one region on every system (ns; each process's median over its
    rounds, median over the process runs), T_S / T_P against serial, and merino's time over the best
    peer's at that worker count (below 1: merino enters and leaves a region faster)."""
    groups = sorted(((params, ireps, recs) for (w, params, ireps), recs in workload_groups(records).items()
                     if w == "region"), key=lambda g: [int(x) for x in g[0].split()] + [g[1]])
    if not groups:
        return None
    present = {r["system"] for (_, _, recs) in groups for r in recs}
    par = [sy for sy in ALL_SYSTEMS if sy in present and sy != "serial"]
    lines = []
    for wk in sorted(set(workers)):
        times = [["W", "R x rounds", "serial"] + par + ["best peer", "merino/best"]]
        speedups = [["W", "R x rounds"] + par]
        for params, ireps, recs in groups:
            t = by_config(recs)
            W, R = params.split()[:2]
            ts = region_ns(t.get(("serial", 1)))
            ns = {sy: region_ns(t.get((sy, wk))) for sy in par}
            peers = [(ns[p], p) for p in PEERS if ns.get(p)]
            bt, bp = min(peers) if peers else (None, "-")
            m = ns.get("merino")
            times.append([W, f"{R} x {ireps}", fmt_ns(ts)] + [fmt_ns(ns[sy]) for sy in par]
                         + [bp, fmt_r(m / bt) if (m and bt) else "-"])
            speedups.append([W, f"{R} x {ireps}"] + [fmt_q(ts / ns[sy] if (ts and ns[sy]) else None) for sy in par])
        lines += [f"w={wk}: per-region time [ns]; merino/best = merino's time over the best peer's "
                  "(below 1: merino is faster)"] + render(times, "r" * (len(par) + 3) + "lr")
        lines += ["", f"w={wk}: T_S / T_P (serial time over the system's; 1 = no faster than serial)"]
        lines += render(speedups, "r" * (len(par) + 2)) + [""]
    return section("Region overhead (bench/micro/region, EPCC syncbench style): R regions entered one after the other "
                   "from the main thread, each two leaves of W empty iterations (stress's leaf loop); the median "
                   "over the rounds of a round's time / R, median of the process runs", lines[:-1])


def per_tree_section(records, workers):
    """stress with one parallel region per tree (4th param 1) beside the same trees in one region:
    T_S / T_P of both, and what entering a region added to each tree (us)."""
    groups = workload_groups(records)
    parts = []
    for (w, params, ireps), recs in groups.items():
        p = params.split()
        if w != "stress" or len(p) != 4 or p[3] == "0":
            continue
        one = groups.get((w, " ".join(p[:3]), ireps)) or groups.get((w, " ".join(p[:3] + ["0"]), ireps))
        if not one:
            continue
        t_pt, t_one = by_config(recs), by_config(one)
        ts = ok_median(t_one.get(("serial", 1))) or ok_median(t_pt.get(("serial", 1)))
        ntrees = int(p[2]) * ireps
        wks = [wk for wk in sorted(set(workers))]
        table = [["system"] + [c for wk in wks for c in (f"one run S{wk}", f"per tree S{wk}", f"us/tree{wk}")]]
        for sy in PARALLEL_SYSTEMS:
            if not any(r["system"] == sy for r in recs):
                continue
            row = [sy]
            for wk in wks:
                a, b = ok_median(t_one.get((sy, wk))), ok_median(t_pt.get((sy, wk)))
                row += [fmt_r(ts / a) if (ts and a) else "-", fmt_r(ts / b) if (ts and b) else "-",
                        f"{(b - a) / ntrees * 1e6:.2f}" if (a and b) else "-"]
            table.append(row)
        parts += ([""] if parts else []) + [f"stress {' '.join(p[:3])}" + (f" --reps {ireps}" if ireps != 1 else "")
                                            + f"   (serial: {fmt_s(ts)} s, {ntrees} trees)"] + render(table, "l" + "r" * 3 * len(wks))
    return section("One parallel region per tree (stress h L reps 1: a MERINO_RUN, omp parallel + single, "
                   "arena.execute or pool.install per tree) against all the trees in one region: "
                   "S = T_S / T at that worker count; us/tree = (T_per_tree - T_one_run) / trees", parts)


def prof_ratio(r, key):
    """A ratio's median and, when recorded, the range of the rounds': 0.95 (0.90-0.97)."""
    if r.get(f"{key}_lo") is None:
        return fmt_r(r.get(key))
    return f"{fmt_r(r.get(key))} ({fmt_r(r[f'{key}_lo'])}-{fmt_r(r.get(f'{key}_hi'))})"


def prof_section(records):
    """The profiler (bench/experiments/prof): its parallelism T_1 / T_inf against an estimate made
    without it, and the profiled fib's T_1 / T_S (the default build's is bench/micro/ratios' fib
    T_1 / T_S)."""
    pr = [r for r in records if r["kind"] == "prof"]
    table = [["params", "workers", "workload", "profiler", "estimate", "ratio", "least of 3", "estimate from", "note"]]
    for r in pr:
        note = f"FAILED: {r.get('error')}" if r["check"] != "ok" else \
            ("oversubscribed" if r["oversubscribed"] else "")
        for w, how in PROF_WORKLOADS.items():
            if w == "cholesky" and r.get("cholesky_replay_work_ratio") is not None:
                how += f" (its work / T_S {fmt_r(r['cholesky_replay_work_ratio'])})"
            table.append([r["params"], str(r["workers"]), w, fmt_r(r.get(f"{w}_measured")),
                          fmt_r(r.get(f"{w}_estimate")), prof_ratio(r, f"{w}_ratio"),
                          prof_ratio(r, f"{w}_least3_ratio"), how, note])
        table.append([r["params"], str(r["workers"]), "profiled fib T_1/T_S", fmt_r(r.get("prof_fib_t1_ts")),
                      "", "", "", "fib(ovh_n) at 1 worker, one task per call", note])
    return section("Profiler (bench/experiments/prof, libmerino_prof): parallelism T_1 / T_inf by the profiler against an "
                   "independent estimate (ratio = profiler / estimate, of each round's first run and of its run "
                   "with the least span; target within 15%), medians over the rounds (their range); params: fib_n fib_w h "
                   "L trees chol_n chol_nz chol_cut ovh_n", render(table, "lrlrrrrll") if pr else [])


def mpiheat_section(records):
    """mpiheat (across MPI ranks): per size (RANKS NX NY STEPS LATENCY_US), system and workers per
    rank, the time, the share of the communication time hidden behind computation and the CPU a
    waiting rank uses (each the median over the process runs)."""
    rows = [["ranks x workers", "latency us", "system", "seconds", "comp s", "comm s", "hidden", "wait CPU"]]
    recs = sorted((r for r in records if r.get("workload") == "mpiheat" and r.get("system") != "serial"),
                  key=lambda r: ([int(x) for x in r["params"].split()], r["system"], r["workers"]))
    if not recs:
        return None
    for r in recs:
        p = r["params"].split()
        ok = r["check"] == "ok"
        pct = lambda v: f"{100 * v:.0f}%" if (ok and v is not None) else "-"
        rows.append([f"{p[0]} x {r['workers']}" + (" *" if int(p[0]) * r["workers"] > 2 else ""), p[4],
                     r["system"], fmt_s(r["median"]) if ok else "FAIL", fmt_s(r.get("comp_seconds")) if ok else "-",
                     fmt_s(r.get("comm_seconds")) if ok else "-", pct(r.get("hidden")), pct(r.get("wait_cpu"))])
    return section("mpiheat across MPI ranks (bench/workloads/mpiheat/mpiheat.h): hidden = (comp + comm - seconds) / comm, the "
                   "share of the exchanges' time hidden behind computation; wait CPU = CPU used by a rank waiting "
                   "0.2 s for a message (- with one rank); * = more threads than cores", render(rows, "rrlrrrrr"))


def taskobj_section(records, workers):
    """The TBB paper's Figure 6 and issue 14's targets, from the taskobj lines of one run: for each
    n and cut-off, each variant's time at each worker count and how many times faster it is than
    oneTBB's task_group (the tbb time is the same program whatever the variant: it is run on the
    plain line), and the cost per task at 1 worker, (T_1 - T_S) / N_T in ns, beside the direct task
    stack's (targets: +CB and +CBR faster than plain; +CBR >= 3x faster than tbb; its cost per
    task <= 2x the direct stack's)."""
    idx = {}
    for r in records:
        if r["kind"] == "workload" and r["workload"] == "taskobj":
            p = r["params"].split()
            idx[(p[0], p[1], p[2], r["inner_reps"], r["system"], r["workers"])] = r
    parts = []
    wks = sorted({w for w in workers})
    for (n, c, reps) in sorted({(k[0], k[1], k[3]) for k in idx}, key=lambda k: (int(k[0]), int(k[1]))):
        def med(v, sy, w):
            return ok_median(idx.get((n, c, v, reps, sy, w)))
        ts = next((med(v, "serial", 1) for v in ("plain", "c", "cb", "cbr", "direct") if med(v, "serial", 1)), None)
        tbb = {w: med("plain", "tbb", w) for w in wks}
        nt = next((idx[k].get("tasks") for k in idx if k[:2] == (n, c) and k[4] == "merino" and idx[k].get("tasks")), None)
        tbb_cost = (tbb.get(1) - ts) / nt * 1e9 if (ts and nt and tbb.get(1)) else None
        direct_cost = (med("direct", "merino", 1) - ts) / nt * 1e9 if (ts and nt and med("direct", "merino", 1)) else None
        if direct_cost is not None and direct_cost <= 0:
            direct_cost = None  # the direct stack beat the serial program (noise, or leaves that dominate): no ratio
        table = [["variant"] + [f"T{w}" for w in wks] + [f"tbb/T{w}" for w in wks] + ["ns/task(1)", "x direct"]]
        for v in ("plain", "c", "cb", "cbr", "direct"):
            t = {w: med(v, "merino", w) for w in wks}
            if not any(t.values()):
                continue
            cost = (t[1] - ts) / nt * 1e9 if (ts and nt and t.get(1)) else None
            table.append([v] + [fmt_s(t[w]) for w in wks] + [fmt_r(tbb[w] / t[w]) if (tbb[w] and t[w]) else "-" for w in wks]
                         + [fmt_ns(cost), fmt_r(cost / direct_cost) if (cost is not None and direct_cost) else "-"])
        table.append(["tbb task_group"] + [fmt_s(tbb[w]) for w in wks] + ["1.00" if tbb[w] else "-" for w in wks]
                     + [fmt_ns(tbb_cost), fmt_r(tbb_cost / direct_cost) if (tbb_cost is not None and direct_cost) else "-"])
        parts += ([""] if parts else []) + [f"taskobj fib({n}) cut-off {c}" + (f" --reps {reps}" if reps != 1 else "")
                                            + f"   (serial: {fmt_s(ts)} s, N_T = {nt})"] + render(table, "l" + "r" * (2 * len(wks) + 2))
    return section("Task objects (TBB paper, Figure 6): T at each worker count, oneTBB task_group's time over "
                   "merino's (targets: cbr >= 3 at cut-off 12), and the cost per task at 1 worker "
                   "(T_1 - T_S) / N_T against the direct task stack's (target: cbr <= 2x)", parts)


def report_sections(records, derived, workers, reps, cores):
    """Every section of the report, in order (None for an empty one)."""
    overhead = [r for r in derived if r["kind"] == "task_overhead"]
    table1 = [r for r in derived if r["kind"] == "table1"]
    return {"table": main_table(records, workers, reps, cores), "fastest": fastest_section(records, workers),
            "table1": table1_section(table1), "overhead": overhead_section(overhead, records),
            "steal": steal_section(records), "region": region_section(records, workers),
            "per_tree": per_tree_section(records, workers), "prof": prof_section(records),
            "loops": section("Loops (bench/workloads/loops) in the layout of the IDWS paper's Table 1",
                             loops.loops_lines(records, render, fmt_s, fmt_r)),
            "donation": section("Donation latency (bench/experiments/donation): an idle worker's wait for work, microseconds",
                                loops.donation_lines(records, render, fmt_r)),
            "mpiheat": mpiheat_section(records),
            "taskobj": taskobj_section(records, workers)}
