"""The figures of the experiments: oversubscription (T_P / T_base per workload and P), the idle cost
(CPU burnt beyond the work per pattern and system) and the Hood model's utilization (multiprog)."""

from .plotkit import FONT, finish, grouped_bars, ideal_line, system_color
from .results import ALL_SYSTEMS, fit_constants, log_space, model_curve, model_rows

IDLE_TARGET = 0.02  # an empty region's idle cost target: 2% of a CPU (docs/idle.md)


def oversub_figure(plt, records, meta, path):
    """merino's T_P / T_base at each oversubscribed P, per workload: 1 = no loss to oversubscription."""
    rs = [r for r in records if r["kind"] == "oversub" and r.get("ratio") is not None and r["workers"] != r["base_workers"]]
    if not rs:
        return None
    groups = list(dict.fromkeys((r["workload"], r["params"]) for r in rs))
    ps = sorted({r["workers"] for r in rs})
    by = {(r["workload"], r["params"], r["workers"]): r for r in rs}
    shades = ["#fdae6b", "#fd8d3c", "#e6550d", "#a63603", "#7f2704"]
    base = rs[0]["base_workers"]
    with plt.rc_context(FONT):
        fig, ax = plt.subplots(figsize=(9, 3.9))
        any_loaded = grouped_bars(ax, groups, [f"P={p}" for p in ps],
                                  lambda g, s: ((by[g + (int(s[2:]),)]["ratio"], by[g + (int(s[2:]),)])
                                                if g + (int(s[2:]),) in by else None),
                                  lambda s: shades[ps.index(int(s[2:])) % len(shades)], cap=2.0, fmt="{:.1f}")
        ideal_line(ax, 1.0, f"ideal: 1 (as fast as at P={base})")
        ax.set_xticklabels([f"{w}\n{p}" for w, p in groups], fontsize=8)
        ax.set_ylabel(f"T_P / T_{base}")
        return finish(plt, fig, path, 110, f"Oversubscription: merino at P workers on {meta.get('cores')} cores "
                      "(lower is better)", meta, any_loaded, legend=[ax],
                      note=f"each ratio paired within a round, median of {len(rs[0]['runs'])} rounds")


def idle_label(r):
    what = "empty region" if r["region_us"] == 0 else f"{r['region_us'] / 1000:g} ms region"
    tasks = "1 task" if r.get("tasks") == 1 else f"{r.get('tasks')} tasks"
    return f"{what},\n{tasks}, every {r['period_us'] / 1000:g} ms"


def idle_figure(plt, records, meta, path):
    """CPU burnt beyond the work (and beyond the serial loop's timer and wake-ups), per pattern and
    system: the cost of idling; log scale, the empty regions' target drawn."""
    rs = [r for r in records if r["kind"] == "idle" and r["check"] == "ok" and r.get("idle_cpus") is not None]
    if not rs:
        return None
    loop = {(r["workers"], r.get("tasks"), r["period_us"], r["region_us"]): r["idle_cpus"]
            for r in rs if r["system"] == "serial"}
    counts = sorted({r["workers"] for r in rs})
    systems = [s for s in ALL_SYSTEMS if s != "serial" and any(r["system"] == s for r in rs)]
    floor = 1e-4  # 0.01% of a CPU: the bottom of the log scale
    with plt.rc_context(FONT):
        fig, axes = plt.subplots(len(counts), 1, figsize=(10, 3.4 * len(counts) + 1.4), squeeze=False)
        any_loaded = False
        for ax, nw in zip(axes.flat, counts):
            here = sorted((r for r in rs if r["workers"] == nw),
                          key=lambda r: (r["region_us"], r.get("tasks") == 1, r["period_us"]))
            groups = list(dict.fromkeys((r["period_us"], r["region_us"], r.get("tasks")) for r in here))
            by = {(r["period_us"], r["region_us"], r.get("tasks"), r["system"]): r for r in here}

            def value(g, s):
                r = by.get(g + (s,))
                if not r:
                    return None
                base = loop.get((nw, g[2], g[0], g[1]), 0.0)
                return max(floor, r["idle_cpus"] - base), r
            any_loaded |= grouped_bars(ax, groups, systems, value, system_color)
            ax.set_yscale("log")
            ax.set_ylim(floor, 4)
            ax.set_yticks([1e-4, 1e-3, 1e-2, 1e-1, 1])
            ax.set_yticklabels(["0.01%", "0.1%", "1%", "10%", "100%"])
            ax.axhline(IDLE_TARGET, color="black", lw=1, ls="--", zorder=4, label="target for empty regions: 2%")
            ax.set_xticklabels([idle_label(by[g + (next(s for s in systems if g + (s,) in by),)]) for g in groups],
                               fontsize=8)
            ax.set_ylabel("CPU beyond the work")
            if len(counts) > 1:
                ax.set_title(f"{nw} workers")
        return finish(plt, fig, path, 110, f"Idle cost: CPU burnt beyond the tasks' work, {counts[0]}"
                      f"{'' if len(counts) == 1 else '+'} workers (lower is better)", meta, any_loaded,
                      legend=list(axes.flat),
                      note="share of one CPU over the run, less what the serial program's loop (its timer and "
                           "wake-ups) burns; log scale, 0.01% and below at the bottom")


MP_COLORS = {"merino": "#e6550d", "merino-naive": "#7f2704", "tbb": "#3182bd", "omp-gcc": "#31a354",
             "omp-gcc-active": "#a1d99b", "omp-clang": "#756bb1", "omp-clang-active": "#bcbddc", "rayon": "#8c564b"}
MP_MARKERS = {"alone": "o", "cyclcr": "s", "hog1": "^", "hog2": "v", "two": "D"}


def model_figure(plt, records, meta, path):
    """The Hood paper's Figures 4 and 5: utilization T_1 / (P_A T_P) against P / (T_1 / T_inf), alone
    (left) and beside cyclcr, hogs or a second copy (right), with inequality (5)'s curves for
    (c1, c_inf) = (1, 1) and (1.1, 2) and the curve of merino's fitted constants."""
    rows = model_rows(records)
    if not rows:
        return None
    fig, axes = plt.subplots(1, 2, figsize=(12, 5.2), sharey=True)
    xs_all = [r["x"] for r in rows]
    xs = log_space(max(1e-4, min(xs_all) / 2), max(xs_all) * 2, 100)
    fit = fit_constants([r for r in rows if r["system"] == "merino"])
    for ax, title, keep in ((axes[0], "alone (Figure 4)", lambda r: r["scenario"] == "alone"),
                            (axes[1], "beside cyclcr, 1-2 hogs or a second copy (Figure 5)",
                             lambda r: r["scenario"] != "alone")):
        for sy, color in MP_COLORS.items():
            for sc, marker in MP_MARKERS.items():
                pts = [(r["x"], r["utilization"]) for r in rows if r["system"] == sy and r["scenario"] == sc and keep(r)]
                if pts:
                    ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=14, color=color, marker=marker, alpha=0.75,
                               label=sy if sc in ("alone", "cyclcr") else None)
        ax.plot(xs, model_curve(1.0, 1.0, xs), color="black", lw=1, label="(5) with c1 = 1, c_inf = 1")
        ax.plot(xs, model_curve(1.1, 2.0, xs), color="black", lw=1, ls="--", label="(5) with c1 = 1.1, c_inf = 2")
        if fit and fit[0] > 0 and fit[1] > 0:
            ax.plot(xs, model_curve(fit[0], fit[1], xs), color=MP_COLORS["merino"], lw=1, ls=":",
                    label=f"merino fitted: c1 = {fit[0]:.2f}, c_inf = {fit[1]:.2f}")
        ax.set_xscale("log")
        ax.set_ylim(0, 1.3)
        ax.set_xlabel("normalized number of processes P / (T_1 / T_inf)")
        ax.set_title(title, fontsize=9)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("utilization T_1 / (P_A T_P)")
    return finish(plt, fig, path, 100, "knary: measured utilization against the Hood model (higher is better)",
                  meta, False, legend=list(axes), ncol=4,
                  note="markers: o alone, s cyclcr, ^ 1 hog, v 2 hogs, D two copies; knary(h, d, s), T_inf from its tree")
