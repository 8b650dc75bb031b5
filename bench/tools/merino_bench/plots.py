"""The figures of a results file: speedup, overhead per task and steal cost, as PNGs beside it
(<stamp>-speedup.png, ...). Each carries a title, the commit, the date and the machine; a point or
bar whose runs other processes disturbed is ringed in red.

matplotlib comes from this interpreter when it has it, else from bench/.venv (pyenv), where
`python -m merino_bench.plots RESULTS.jsonl` draws them."""

import io
import os
import subprocess
import sys

from . import TOOLS_DIR, log
from . import loops, pyenv
from .results import (ALL_SYSTEMS, OTHERS_WARN, PARALLEL_SYSTEMS, commit_label, date_label,
                      fit_constants, log_space, model_curve, model_rows,
                      loaded, machine_label, read, workload_groups)

KINDS = ["speedup", "overhead", "steal", "loops", "model"]
LOAD_COLOR = "red"
LOAD_NOTE = f"red ring (and outline on bars): other processes used more than {OTHERS_WARN} cores during those runs"


def system_color(system):
    """One colour per system in every plot."""
    return f"C{ALL_SYSTEMS.index(system) % 10}" if system in ALL_SYSTEMS else "grey"


def save_png(fig, path, dpi):
    """Saves a figure as a PNG of at most 256 colours when Pillow is there (a third of the size:
    docs/img/ keeps copies in git)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    try:
        from PIL import Image
        Image.open(buf).convert("RGB").quantize(colors=256).save(path, optimize=True)
    except ImportError:
        with open(path, "wb") as f:
            f.write(buf.getvalue())


def finish(plt, fig, path, dpi, title, meta, any_loaded, legend_rows=0):
    """Title, the run's commit, date and machine on top; the load note below; then saved and closed."""
    h = fig.get_figheight()
    fig.suptitle(title, fontsize=11, fontweight="bold", y=1 - 0.12 / h)
    fig.text(0.5, 1 - 0.42 / h, f"commit {commit_label(meta)}  |  {date_label(meta)}  |  {machine_label(meta)}",
             ha="center", va="top", fontsize=8, color="dimgrey")
    bottom = 0.3 * legend_rows
    if any_loaded:
        fig.text(0.01, 0.05 / h, LOAD_NOTE, fontsize=7, color=LOAD_COLOR, va="bottom")
        bottom += 0.25
    fig.tight_layout(rect=(0, bottom / h, 1, 1 - 0.55 / h))
    save_png(fig, path, dpi)
    plt.close(fig)
    return path


def ring(ax, x, y):
    ax.plot([x], [y], marker="o", markersize=13, markerfacecolor="none", markeredgecolor=LOAD_COLOR,
            markeredgewidth=1.5, linestyle="none", zorder=5)


def speedup_figure(plt, records, meta, path):
    groups = workload_groups(records)
    if not groups:
        return None
    cores = meta.get("cores") or 1
    n = len(groups)
    cols = min(4, n)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 3.2 * rows + 1.0), squeeze=False)
    any_loaded = False
    for ax, ((w, params, reps), rs) in zip(axes.flat, groups.items()):
        ax.set_title(f"{w} {params}" + (f" x{reps}" if reps != 1 else ""), fontsize=9)
        ser = [r for r in rs if r["system"] == "serial" and r["median"]]
        if not ser:
            ax.set_title(f"{w} {params} (no serial)", fontsize=9)
            continue
        ts = ser[0]["median"]
        ws = sorted({r["workers"] for r in rs if r["system"] != "serial"})
        if ws:
            xs = sorted(set([1] + ws))
            ax.plot(xs, [min(x, cores) for x in xs], color="grey", ls="--", lw=1, label="ideal")
            ax.set_xticks(ws)
        for sy in PARALLEL_SYSTEMS:
            pts = sorted((r["workers"], ts / r["median"], loaded(r) or loaded(ser[0])) for r in rs
                         if r["system"] == sy and r["median"] and r["check"] == "ok")
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=sy, color=system_color(sy))
            for x, y, busy in pts:
                if busy:
                    ring(ax, x, y)
                    any_loaded = True
        if any(x > cores for x in ws):
            ax.axvline(cores + 0.5, color="grey", lw=0.5, ls=":")  # right of it: oversubscribed
        ax.set_xlabel("workers")
        ax.set_ylabel("speedup vs serial")
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    handles, labels = [], []
    for ax in axes.flat:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    order = sorted(range(len(labels)), key=lambda i: ALL_SYSTEMS.index(labels[i]) if labels[i] in ALL_SYSTEMS else -1)
    if handles:
        fig.legend([handles[i] for i in order], [labels[i] for i in order], loc="lower center",
                   ncol=len(labels), fontsize=8, bbox_to_anchor=(0.5, 0.25 / fig.get_figheight() if any_loaded else 0))
    return finish(plt, fig, path, 90, "Speedup against serial (dashed: ideal)", meta, any_loaded, legend_rows=1)


def bar_chart(ax, bars, cats, hatch_of=None):
    """Grouped bars: bars are (category, system, value, record); returns whether any was ringed."""
    systems = list(dict.fromkeys(b[1] for b in bars))
    width = 0.8 / len(systems)
    any_loaded = False
    for i, sy in enumerate(systems):
        for j, c in enumerate(cats):
            v = [b for b in bars if b[0] == c and b[1] == sy]
            if not v:
                continue
            _, _, y, rec = v[0]
            x = j + i * width
            busy = loaded(rec)
            ax.bar(x, y, width, color=system_color(sy), hatch=hatch_of(rec) if hatch_of else None,
                   edgecolor=LOAD_COLOR if busy else None, linewidth=1.5 if busy else 0,
                   label=sy if sy not in ax.get_legend_handles_labels()[1] else None)
            if busy:
                ring(ax, x, y)
                any_loaded = True
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(cats))])
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.grid(axis="y", alpha=0.3)
    return any_loaded


def overhead_figure(plt, records, meta, path):
    """Overhead per task (cycles): every system from fib/stress at 1 worker (the workloads whose
    tasks are fine enough for it to mean something), plus bench/overhead."""
    hz = meta.get("tsc_hz")
    bars = []
    for (w, params, reps), rs in workload_groups(records).items():
        ser = [r for r in rs if r["system"] == "serial" and r["median"]]
        if not ser or not hz or not any(r["system"] == "merino-allpub" for r in rs):
            continue
        ts = ser[0]["median"]
        for r in rs:
            if r["system"] != "serial" and r["workers"] == 1 and r["median"] and r.get("tasks"):
                bars.append((f"{w} {params}", r["system"], (r["median"] - ts) / r["tasks"] * hz, r))
    for r in records:
        if r["kind"] == "overhead" and r.get("cycles_per_task") is not None:
            bars.append((f"in-process fib {r['params']}", r["system"], r["cycles_per_task"], r))
    if not bars:
        return None
    cats = list(dict.fromkeys(b[0] for b in bars))
    fig, ax = plt.subplots(figsize=(min(14, max(7, 1.2 * len(cats) + 2)), 4.6))
    any_loaded = bar_chart(ax, bars, cats)
    ax.set_xticklabels(cats, rotation=20, ha="right", fontsize=8)
    ax.set_yscale("symlog", linthresh=10)
    ax.set_ylabel("(T_1 - T_S) / N_T  [cycles]")
    return finish(plt, fig, path, 110, "Overhead per task at 1 worker", meta, any_loaded)


def steal_figure(plt, records, meta, path):
    st = [r for r in records if r["kind"] == "steal" and r.get("cost_cycles") is not None]
    if not st:
        return None
    cores = meta.get("cores") or 1
    cats = list(dict.fromkeys(r["params"] for r in st))
    fig, ax = plt.subplots(figsize=(7, 4.6))
    any_loaded = bar_chart(ax, [(r["params"], r["system"], r["cost_cycles"], r) for r in st], cats,
                           hatch_of=lambda r: "//" if r["oversubscribed"] else None)
    labels = []
    for c in cats:
        k = int(c.split()[0])
        labels.append(f"k={k} ({1 << k} w{', oversub.' if (1 << k) > cores else ''})")
    ax.set_xticklabels(labels, fontsize=8)
    ax.set_ylabel("T(tree) - T(leaf)  [cycles]")
    return finish(plt, fig, path, 110, "Steal cost (hatched: more workers than cores)", meta, any_loaded)


MP_COLORS = {"merino": "C1", "merino-naive": "C7", "tbb": "C4", "omp-gcc": "C5", "omp-gcc-active": "C8",
             "omp-clang": "C6", "omp-clang-active": "C9", "rayon": "C3"}
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
    handles, labels = [], []
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=7)
    note = "markers: o alone, s cyclcr, ^ 1 hog, v 2 hogs, D two copies; knary(h, d, s), T_inf from its tree"
    fig.text(0.5, 0.01 + 0.9 / fig.get_figheight(), note, ha="center", fontsize=7, color="dimgrey")
    return finish(plt, fig, path, 100, "knary: measured utilization against the Hood model", meta, False,
                  legend_rows=4)


def draw(jsonl):
    """Draws the figures of a results file with this interpreter's matplotlib; returns their paths."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    meta, _, records = read(jsonl)
    stem = jsonl[:-len(".jsonl")] if jsonl.endswith(".jsonl") else jsonl
    def loops_fig(plt, records, meta, path):
        return loops.figure(plt, records, meta, path, finish, system_color)
    figures = (speedup_figure, overhead_figure, steal_figure, loops_fig, model_figure)
    files = [fig(plt, records, meta, f"{stem}-{kind}.png") for kind, fig in zip(KINDS, figures)]
    return [f for f in files if f]


def can_import_matplotlib():
    try:
        import matplotlib  # noqa: F401
        return True
    except ImportError:
        return False


def in_plot_env(draw_here, module, args, install=True):
    """Draws figures: draw_here() when this interpreter has matplotlib, else `python -m module
    args...` in bench/.venv (made first when install is true), whose "plot: FILE" lines name them.
    Returns their paths ([] when the plots are skipped or fail, after one line saying why)."""
    if can_import_matplotlib():
        try:
            return draw_here()
        except Exception as e:  # noqa: BLE001 -- a figure that cannot be drawn must not end the run
            log(f"plots failed: {e.__class__.__name__}: {e}")
            return []
    python = pyenv.plot_python(install)
    if not python:
        return []
    env = dict(os.environ, PYTHONPATH=TOOLS_DIR + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.run([python, "-m", module] + list(args), env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    files = [line[len("plot: "):] for line in p.stdout.splitlines() if line.startswith("plot: ")]
    if p.returncode != 0:
        log(f"plots failed ({python}): {p.stdout.strip()[-2000:]}")
    return files


def plot_file(jsonl, install=True):
    """Draws the figures of a results file of bench/run, here or in bench/.venv (in_plot_env)."""
    return in_plot_env(lambda: draw(jsonl), "merino_bench.plots", [jsonl], install)


def main(argv):
    if len(argv) != 1:
        print("usage: python -m merino_bench.plots RESULTS.jsonl", file=sys.stderr)
        return 2
    for f in draw(argv[0]):
        print(f"plot: {f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
