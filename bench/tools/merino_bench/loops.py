"""The loop benchmarks' tables and figure: workloads/loops in the layout of the IDWS paper's Table 1
(seconds per schedule and distribution, at the full worker count) and Figure 2 (time relative to
the fastest schedule of each distribution), with and without a competing process (--compete); and
the donation latencies (experiments/donation)."""

import math

from .plotkit import finish, system_color
from .results import PEERS, ok_median

DISTS = ["regular", "random", "dense-end", "dense-start", "periodic", "pareto", "hotspot"]
SYSTEM_ORDER = ["serial", "merino", "omp-gcc", "omp-clang", "tbb"]
SCHEDULE_ORDER = ["auto", "adaptive", "idws", "idws-poll", "steal", "static", "static,1", "dynamic,1", "guided",
                  "simple", "affinity"]
# Figure 2's bars: merino's default and IDWS against the peers' usual choices (the paper: IDWS,
# OpenMP guided, Cilk)
FIGURE_ROWS = ["merino auto", "merino idws", "omp-gcc static", "omp-gcc guided", "omp-gcc dynamic,1", "tbb auto",
               "tbb simple"]


def row_key(label):
    sy, _, sched = label.partition(" ")
    return (SYSTEM_ORDER.index(sy) if sy in SYSTEM_ORDER else 99,
            SCHEDULE_ORDER.index(sched) if sched in SCHEDULE_ORDER else 99, label)


def tables(records):
    """[(title, dists, rows, workers)] per loop size (n, in-process reps, with or without a competing
    process): rows = {label: {dist: seconds}} at the largest worker count (serial: 1 worker), and
    "merino auto w=1" beside them."""
    groups = {}
    for r in records:
        if r["kind"] != "workload" or r["workload"] != "loops":
            continue
        p = r["params"].split()
        if len(p) < 2:
            continue
        key = (int(p[1]), r["inner_reps"], bool(r.get("compete")))
        groups.setdefault(key, []).append((p[0], p[2] if len(p) > 2 else "auto", r))
    out = []
    for (n, ireps, compete), recs in sorted(groups.items()):
        wmax = max((r["workers"] for (_, _, r) in recs if r["system"] != "serial"), default=1)
        rows = {}
        for dist, sched, r in recs:
            t = ok_median(r)
            if r["system"] == "serial":
                rows.setdefault("serial", {})[dist] = t
            elif r["workers"] == wmax:
                rows.setdefault(f"{r['system']} {sched}", {})[dist] = t
            elif r["workers"] == 1 and sched == "auto":
                rows.setdefault(f"{r['system']} auto w=1", {})[dist] = t
        dists = [d for d in DISTS if any(d in v for v in rows.values())]
        title = (f"n = {n}" + (f", {ireps} loops in a row" if ireps != 1 else "")
                 + (", with a CPU-bound process on one CPU" if compete else ""))
        out.append((title, dists, rows, wmax, compete))
    return out


def geomean(xs):
    xs = [x for x in xs if x]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def best_peer(rows, dist):
    peers = [(v.get(dist), lab) for lab, v in rows.items()
             if lab.split()[0] in PEERS and "w=1" not in lab and v.get(dist)]
    return min(peers) if peers else (None, None)


def relative(rows, dists):
    """{label: {dist: time / fastest parallel time of that distribution}} (Figure 2's values)."""
    out = {}
    for d in dists:
        ts = [v.get(d) for lab, v in rows.items() if lab != "serial" and "w=1" not in lab and v.get(d)]
        best = min(ts) if ts else None
        for lab, v in rows.items():
            if best and v.get(d):
                out.setdefault(lab, {})[d] = v[d] / best
    return out


def table_lines(title, dists, rows, wmax, compete, render, fmt_s, fmt_r):
    head = [["schedule"] + dists + ["geomean", "rel. geomean"]]
    rel = relative(rows, dists)
    body = []
    for lab in sorted(rows, key=row_key):
        v = rows[lab]
        body.append([lab] + [fmt_s(v.get(d)) for d in dists]
                    + [fmt_s(geomean([v.get(d) for d in dists])), fmt_r(geomean([rel.get(lab, {}).get(d) for d in dists]))])
    extra = []
    bp = [best_peer(rows, d) for d in dists]
    extra.append(["best peer"] + [lab or "-" for (_, lab) in bp] + ["", ""])
    auto = rows.get("merino auto", {})
    extra.append(["auto / best peer"] + [fmt_r(auto.get(d) / t) if (auto.get(d) and t) else "-" for d, (t, _) in zip(dists, bp)]
                 + ["", ""])
    idws, guided = rows.get("merino idws", {}), rows.get("omp-gcc guided", {})
    if idws and guided:
        extra.append(["idws / omp-gcc guided"] + [fmt_r(idws.get(d) / guided.get(d)) if (idws.get(d) and guided.get(d)) else "-"
                                                  for d in dists] + ["", ""])
    ser, one = rows.get("serial", {}), rows.get("merino auto w=1", {})
    if ser and one:
        extra.append(["auto w=1 / serial"] + [fmt_r(one.get(d) / ser.get(d)) if (one.get(d) and ser.get(d)) else "-"
                                              for d in dists] + ["", ""])
    if compete and ser and auto:
        cap = wmax - 0.5  # the competitor takes half of the CPU it shares with one worker
        extra.append([f"auto / (T_S / {cap:g})"] + [fmt_r(auto.get(d) / (ser.get(d) / cap)) if (auto.get(d) and ser.get(d)) else "-"
                                                     for d in dists] + ["", ""])
    align = "l" + "r" * (len(dists) + 2)
    return ([f"{title}: seconds at {wmax} workers (serial at 1), median of the process runs; rel. geomean: the "
             "geometric mean of the time over the fastest schedule of each distribution (Figure 2's values)"]
            + render(head + body + ["-"] + extra, align + "l"))


def loops_lines(records, render, fmt_s, fmt_r):
    lines = []
    for t in tables(records):
        lines += ([""] if lines else []) + table_lines(*t, render, fmt_s, fmt_r)
    return lines


def donation_lines(records, render, fmt_r):
    recs = [r for r in records if r["kind"] == "workload" and r["workload"] == "donation"]
    if not recs:
        return []
    table = [["schedule", "workers", "median us", "p99 us", "samples", "check"]]
    for r in sorted(recs, key=lambda r: (r["params"].split()[1], r["workers"])):
        p = r["params"].split()
        table.append([p[1], str(r["workers"]), fmt_r(r.get("lat_median_us")), fmt_r(r.get("lat_p99_us")),
                      f"{r.get('samples') or 0:.0f}", r["check"]])
    return (["from the moment an idle worker ran out of work to its entry into a range it was given; "
             "each process: median and 99th percentile over its loops; the median of those over the runs"]
            + render(table, "lrrrrl"))


def figure(plt, records, meta, path):
    """Figure 2 of the IDWS paper for each loop size: per distribution, the time of a few schedules
    relative to the fastest (1.0) of all that ran."""
    ts = [t for t in tables(records) if len(t[1]) > 1]
    if not ts:
        return None
    fig, axes = plt.subplots(len(ts), 1, figsize=(11, 3.4 * len(ts) + 1), squeeze=False)
    for ax, (title, dists, rows, wmax, compete) in zip(axes.flat, ts):
        rel = relative(rows, dists)
        shown = [lab for lab in FIGURE_ROWS if lab in rel]
        width = 0.8 / max(1, len(shown))
        cap = 3.0  # bars above are cut, their value written on top (a schedule 30x slower hides the rest)
        for k, lab in enumerate(shown):
            xs = [i + (k - (len(shown) - 1) / 2) * width for i in range(len(dists))]
            ys = [rel[lab].get(d, 0) for d in dists]
            ax.bar(xs, [min(y, cap) for y in ys], width, label=lab,
                   color=system_color(lab.split()[0]), alpha=0.45 + 0.55 * (k % 3) / 2, edgecolor="black", lw=0.3)
            for x, y in zip(xs, ys):
                if y > cap:
                    ax.text(x, cap, f"{y:.0f}", ha="center", va="bottom", fontsize=6, rotation=90)
        ax.set_ylim(0, cap * 1.12)
        ax.axhline(1.0, color="black", lw=1, ls="--", label="the fastest")
        ax.set_xticks(range(len(dists)))
        ax.set_xticklabels(dists)
        ax.set_ylabel("time / fastest")
        ax.set_title(f"{title}, {wmax} workers", fontsize=9)
        ax.grid(axis="y", alpha=0.3)
    return finish(plt, fig, path, 100, "Loops: time over the fastest schedule of each distribution (lower is "
                  "better)", meta, False, legend=list(axes.flat), ncol=4)
