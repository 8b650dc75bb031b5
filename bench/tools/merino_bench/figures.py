"""The figures of the workloads and micro-benchmarks: the speedup at the full worker count and the
cost at one worker, per workload and system, as grouped bars; the steal cost."""

from .layout import SYSTEMS, folders
from .plotkit import FONT, finish, grouped_bars, ideal_line, system_color
from .results import PARALLEL_SYSTEMS, ok_median, workload_groups

# merino's variants built for a few folders only (every task public, idle workers spinning) are
# ablations: the tables show them, the figures do not
SHOWN = [s for s in PARALLEL_SYSTEMS if SYSTEMS[s]["for"] != "asked"]
PER_ROW = 9  # groups of bars in a row of panels
# loops has a figure of its own; mpiheat's worker counts are per MPI rank (its own table)
OWN_FIGURE = ("loops", "mpiheat")


def shown_sizes(records, workers):
    """Per workload of bench/workloads/ (in the order they ran), the size the figures show: the one
    run serially and by the most systems at `workers` (the first of those in its params file).
    [(workload, label, {system: record at `workers`}, serial record)]."""
    cats = {n: f.category for n, f in folders().items()}
    best = {}
    for (w, params, reps), recs in workload_groups(records).items():
        if cats.get(w, "workloads") != "workloads" or w in OWN_FIGURE:
            continue
        ser = next((r for r in recs if r["system"] == "serial" and ok_median(r)), None)
        at = {r["system"]: r for r in recs if r["system"] in SHOWN and r["workers"] == workers and ok_median(r)}
        if ser and at and len(at) > len(best.get(w, (None, {}, None))[1]):
            label = f"{w}\n{params}" + (f" x{reps}" if reps != 1 else "")
            best[w] = (label, at, ser)
    return [(w, label, at, ser) for w, (label, at, ser) in best.items()]


def rows_of(items):
    n = len(items)
    rows = max(1, -(-n // PER_ROW))
    per = -(-n // rows) if n else 1
    return [items[i:i + per] for i in range(0, n, per)]


def workload_bars(plt, records, nw, over_serial, ylabel, cap, ideal, ideal_label, title, meta, path, note):
    """Panels of grouped bars, a group per workload (shown_sizes at nw workers), a bar per system:
    its time over serial's (over_serial) or serial's over its; an ideal line."""
    sizes = shown_sizes(records, nw)
    if not sizes:
        return None

    def value(size, s):
        _, _, at, ser = size
        r = at.get(s)
        if not r:
            return None
        return (ok_median(r) / ok_median(ser) if over_serial else ok_median(ser) / ok_median(r)), r
    parts = rows_of(sizes)
    with plt.rc_context(FONT):
        fig, axes = plt.subplots(len(parts), 1, figsize=(11, 2.9 * len(parts) + 1.5), squeeze=False)
        any_loaded = False
        for ax, part in zip(axes.flat, parts):
            any_loaded |= grouped_bars(ax, list(range(len(part))), SHOWN, lambda g, s: value(part[g], s),
                                       system_color, cap=cap, fmt="{:.1f}")
            ideal_line(ax, ideal, ideal_label)
            ax.set_xticklabels([p[1] for p in part], fontsize=8)
            ax.set_ylabel(ylabel)
        return finish(plt, fig, path, 110, title, meta, any_loaded, note=note, legend=list(axes.flat))


def speedup_figure(plt, records, meta, path):
    """T_S / T_P at the largest worker count up to the cores, per workload and system; ideal P."""
    cores = meta.get("cores") or 1
    ws = [w for w in meta.get("workers", []) if 1 < w <= cores]
    if not ws:
        return None
    nw = max(ws)
    return workload_bars(plt, records, nw, False, f"speedup T_S / T_{nw}", nw * 1.4, nw, f"ideal: {nw}",
                         f"Speedup at {nw} workers (higher is better)", meta, path,
                         "per workload, its size run by the most systems; every size is in the tables")


def overhead_figure(plt, records, meta, path):
    """T_1 / T_S per workload and system: what a runtime costs a program on one worker; ideal 1."""
    return workload_bars(plt, records, 1, True, "T_1 / T_S", 4.0, 1.0, "ideal: 1 (as fast as serial)",
                         "Cost at 1 worker: time over the serial program's (lower is better)", meta, path,
                         "per workload, its size run by the most systems; below 1: the version's leaves "
                         "compile to faster code than serial's")


def steal_figure(plt, records, meta, path):
    st = [r for r in records if r["kind"] == "steal" and r.get("cost_cycles") is not None]
    if not st:
        return None
    cores = meta.get("cores") or 1
    cats = list(dict.fromkeys(r["params"] for r in st))
    systems = list(dict.fromkeys(r["system"] for r in st))
    by = {(r["params"], r["system"]): r for r in st}
    with plt.rc_context(FONT):
        fig, ax = plt.subplots(figsize=(7, 3.8))
        any_loaded = grouped_bars(ax, cats, systems,
                                  lambda c, s: (by[(c, s)]["cost_cycles"], by[(c, s)]) if (c, s) in by else None,
                                  system_color, hatch_of=lambda r: "//" if r["oversubscribed"] else None)
        labels = []
        for c in cats:
            k = int(c.split()[0])
            labels.append(f"k={k}: {1 << k} workers{', oversub.' if (1 << k) > cores else ''}")
        ax.set_xticklabels(labels)
        ax.set_ylabel("T(tree) - T(leaf)  [cycles]")
        return finish(plt, fig, path, 110, "Steal cost (lower is better; hatched: more workers than cores)",
                      meta, any_loaded, legend=[ax])
