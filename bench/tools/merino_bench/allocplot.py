"""The allocator benchmarks' figure (bench/alloc/run): one PNG of three panels sharing the x axis,
one group of bars per (benchmark, threads), one bar per allocator — throughput as a share of the
fastest allocator's in that group, peak resident memory, and resident memory after the program
freed everything (both MB, log scale). Medians over the rounds of a results file of bench/alloc/run.

`python -m merino_bench.allocplot RESULTS.jsonl OUT.png` draws it with this interpreter's
matplotlib (bench/alloc/run calls it through bench/.venv when it must)."""

import json
import statistics
import sys

from .results import commit_label, date_label

ORDER = ["glibc", "tbbmalloc", "tcmalloc", "jemalloc", "mimalloc", "merino"]


def read(path):
    """The meta line and the medians: {(benchmark, threads): {allocator: (mops, peak MB, after MB)}},
    the groups in the meta line's order of benchmarks then by threads, the allocators in ORDER then
    the others."""
    meta, samples, groups, allocs = {}, {}, [], []
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            if r.get("kind") == "meta":
                meta = r
                continue
            if r.get("kind") != "sample":
                continue
            g = (r["benchmark"], r["threads"])
            if g not in groups:
                groups.append(g)
            if r["allocator"] not in allocs:
                allocs.append(r["allocator"])
            samples.setdefault(g, {}).setdefault(r["allocator"], []).append(r)
    allocs.sort(key=lambda a: (ORDER.index(a) if a in ORDER else len(ORDER), a))
    bench_order = meta.get("benchmarks", [])
    groups.sort(key=lambda g: (bench_order.index(g[0]) if g[0] in bench_order else len(bench_order), g[0], g[1]))
    med = {}
    for g, by in samples.items():
        for a, rs in by.items():
            med.setdefault(g, {})[a] = (statistics.median(x["mops"] for x in rs),
                                        statistics.median(x["peak_rss_kb"] for x in rs) / 1024,
                                        statistics.median(x["rss_after_kb"] for x in rs) / 1024)
    return meta, med, groups, allocs


def draw(path, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker  # noqa: F401 (matplotlib.ticker below)
    from .plotkit import save_png

    meta, med, groups, allocs = read(path)
    if not groups:
        raise ValueError(f"{path}: no samples")
    width = 0.8 / len(allocs)
    fig, axes = plt.subplots(3, 1, figsize=(max(10, 0.55 * len(groups) + 2), 9), sharex=True)
    panels = [("throughput / fastest", 0, False), ("peak RSS, MB", 1, True), ("RSS after free, MB", 2, True)]
    for ax, (label, k, log) in zip(axes, panels):
        for i, a in enumerate(allocs):
            xs, ys = [], []
            for j, g in enumerate(groups):
                if a not in med.get(g, {}):
                    continue
                v = med[g][a][k]
                if k == 0:
                    best = max(m[0] for m in med[g].values())
                    v = v / best if best > 0 else 0
                xs.append(j + (i - (len(allocs) - 1) / 2) * width)
                ys.append(v)
            style = {"edgecolor": "black", "linewidth": 0.8} if a.startswith("merino") else {}
            ax.bar(xs, ys, width, label=a, color=f"C{i % 10}", **style)
        ax.set_ylabel(label, fontsize=9)
        if log:
            ax.set_yscale("log")
            ax.yaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
            ax.yaxis.set_minor_locator(matplotlib.ticker.LogLocator(subs=(2.0, 5.0)))
            ax.yaxis.set_minor_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
            ax.tick_params(axis="y", which="minor", labelsize=7)
        else:
            ax.set_ylim(0, 1.05)
            ax.axhline(1.0, color="grey", linewidth=0.5)
        ax.grid(axis="y", linewidth=0.3)
        for j in range(1, len(groups)):
            if groups[j][0] != groups[j - 1][0]:
                ax.axvline(j - 0.5, color="grey", linewidth=0.4)
    ncpu = meta.get("cpus", 0)
    axes[-1].set_xticks(range(len(groups)))
    axes[-1].set_xticklabels([f"{b}\n{t}{' (over)' if ncpu and t > ncpu else ''}" for b, t in groups],
                             rotation=90, fontsize=7)
    axes[0].legend(ncol=len(allocs), fontsize=8, loc="lower center", bbox_to_anchor=(0.5, 1.0))
    fig.suptitle("Allocator benchmarks: medians of %s interleaved rounds, scale %s (bars: allocators; "
                 "groups: benchmark, threads)" % (meta.get("rounds", "?"), meta.get("scale", "?")), fontsize=10)
    fig.text(0.5, 0.955, f"commit {commit_label(meta)}  |  {date_label(meta)}  |  {meta.get('cpu', '?')}, "
             f"{ncpu or '?'} CPUs", ha="center", fontsize=8, color="dimgrey")
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    save_png(fig, out, 100)
    plt.close(fig)
    return out


def main(argv):
    if len(argv) != 2:
        print("usage: python -m merino_bench.allocplot RESULTS.jsonl OUT.png", file=sys.stderr)
        return 2
    print(f"plot: {draw(argv[0], argv[1])}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
