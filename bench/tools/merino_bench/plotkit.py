"""What every figure shares: a colour per system, the heading (title, commit, date, machine), the
note on disturbed runs, grouped bars with an ideal line, and the PNG written small."""

import io

from .results import ALL_SYSTEMS, OTHERS_WARN, commit_label, date_label, loaded, machine_label

LOAD_COLOR = "red"
LOAD_NOTE = f"outlined in red: other processes used more than {OTHERS_WARN} cores during those runs"
# merino's builds in oranges, each peer a hue of its own; other systems take the default cycle
COLORS = {"serial": "#969696", "merino": "#e6550d", "merino-cxx": "#fd8d3c", "merino-loop": "#fdae6b",
          "merino-allpub": "#a63603", "merino-naive": "#7f2704", "tbb": "#3182bd", "omp-gcc": "#31a354",
          "omp-clang": "#756bb1", "rayon": "#8c564b"}
FONT = {"font.size": 9, "axes.titlesize": 10, "axes.labelsize": 9, "xtick.labelsize": 8.5,
        "ytick.labelsize": 8.5, "legend.fontsize": 8.5}


def system_color(system):
    """One colour per system in every figure."""
    if system in COLORS:
        return COLORS[system]
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


def finish(plt, fig, path, dpi, title, meta, any_loaded, legend_rows=0, note=None, legend=None, ncol=None):
    """Title, the run's commit, date and machine on top; below, the notes (a note, the load note)
    and above them one legend for the panels of `legend`, in the order the series first appear;
    then saved and closed. legend_rows reserves room for a legend the caller placed at the bottom."""
    h = fig.get_figheight()
    fig.suptitle(title, fontsize=11, fontweight="bold", y=1 - 0.12 / h)
    fig.text(0.5, 1 - 0.42 / h, f"commit {commit_label(meta)}  |  {date_label(meta)}  |  {machine_label(meta)}",
             ha="center", va="top", fontsize=8, color="dimgrey")
    bottom = 0.05
    for text, color in ((note, "dimgrey"), (LOAD_NOTE if any_loaded else None, LOAD_COLOR)):
        if text:
            fig.text(0.01, bottom / h, text, fontsize=7.5, color=color, va="bottom")
            bottom += 0.2
    if legend:
        handles, labels = [], []
        for ax in legend:
            for hd, lab in zip(*ax.get_legend_handles_labels()):
                if lab not in labels:
                    handles.append(hd)
                    labels.append(lab)
        if handles:
            ncol = ncol or len(labels)
            fig.legend(handles, labels, loc="lower center", ncol=ncol, frameon=False,
                       bbox_to_anchor=(0.5, bottom / h))
            bottom += 0.28 * -(-len(labels) // ncol) + 0.05
    bottom += 0.3 * legend_rows
    fig.tight_layout(rect=(0, bottom / h, 1, 1 - 0.55 / h))
    save_png(fig, path, dpi)
    plt.close(fig)
    return path


def ring(ax, x, y):
    ax.plot([x], [y], marker="o", markersize=13, markerfacecolor="none", markeredgecolor=LOAD_COLOR,
            markeredgewidth=1.5, linestyle="none", zorder=5)


def grouped_bars(ax, groups, series, value, color_of, cap=None, fmt="{:.1f}", hatch_of=None):
    """Bars for each group (x position) and series (colour): value(group, series) is (height,
    record) or None. A group's bars are centred on it, as many as it has; bars above cap are cut
    there with their value written on top. Returns whether a bar's runs were disturbed."""
    most = max((sum(1 for s in series if value(g, s)) for g in groups), default=1)
    width = 0.8 / max(1, most)
    any_loaded = False
    for s in series:  # the legend's entries, in the order of the series
        if any(value(g, s) for g in groups):
            ax.bar([0], [0], 0, color=color_of(s), label=s)
    for j, g in enumerate(groups):
        present = [(s, value(g, s)) for s in series if value(g, s)]
        for i, (s, (y, rec)) in enumerate(present):
            x = j + (i - (len(present) - 1) / 2) * width
            busy = rec is not None and loaded(rec)
            ax.bar(x, min(y, cap) if cap else y, width * 0.92, color=color_of(s),
                   hatch=hatch_of(rec) if hatch_of else None, edgecolor=LOAD_COLOR if busy else "white",
                   linewidth=1.4 if busy else 0.3, zorder=3)
            any_loaded |= busy
            if cap and y > cap:
                ax.text(x, cap, fmt.format(y), ha="center", va="bottom", fontsize=7, rotation=90)
    ax.set_xticks(range(len(groups)))
    ax.set_xlim(-0.6, len(groups) - 0.4)
    if cap:
        ax.set_ylim(0, cap * 1.15)
    ax.grid(axis="y", alpha=0.3, zorder=0)
    return any_loaded


def ideal_line(ax, y, label):
    ax.axhline(y, color="black", lw=1, ls="--", zorder=4, label=label)
