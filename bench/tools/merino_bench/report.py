"""docs/benchmarks.md from results files of bench/run (`bench/run report`, or `bench/run --report`
on the results it has just written).

The tables are the ones bench/run prints (tables.py, and the experiments' summaries); the figures
are drawn from the results (plots.py) into docs/img/benchmarks-*.png; each benchmark folder's
paragraph is taken from the header comment of its sources (<f>.h, <f>-serial.c or <f>-merino.c,
whichever says more). Without files named, the newest headline results and the newest results of
the experiments (idle, oversub, multiprog) are used.
"""

import argparse
import glob
import os
import re
import sys

from . import BENCH_DIR, ROOT
from . import multiprog, oversub, plots
from .layout import CATEGORIES, folders
from .results import commit_label, date_label, derived_rows, newest, read
from .tables import report_sections

# Order of the workload paragraphs; folders not listed follow in alphabetical order.
ORDER = ["fib", "stress", "nqueens", "knary", "mm", "ssf", "cholesky", "msort", "heat", "lu", "overhead", "steal"]
CATEGORY_TITLES = {"workloads": "Workloads", "micro": "Micro-benchmarks", "experiments": "Experiments"}
EXPERIMENT_KINDS = ("idle", "oversub", "multiprog")
CAPTIONS = {"speedup": "Speedup at the full worker count per workload and system",
            "overhead": "Time at 1 worker over the serial program's per workload and system",
            "loops": "Loops: time relative to the fastest schedule of each distribution (the IDWS paper's Figure 2)",
            "steal": "Steal cost (hatched: more workers than cores)",
            "oversub": "Oversubscription: merino's time at P workers over its time at 2",
            "idle": "Idle cost: CPU burnt beyond the work per pattern and system",
            "model": "Multiprogramming: knary's utilization against the Hood model"}


# ---- workload paragraphs from the sources' header comments ----------------------------------------

def header_comment(path):
    """The first /* ... */ comment of a file, without comment markers, as a list of paragraphs."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return []
    m = re.search(r"/\*(.*?)\*/", text, re.S)
    if not m:
        return []
    lines = [re.sub(r"^\s*\* ?", "", line).rstrip() for line in m.group(1).splitlines()]
    paras, cur = [], []
    for line in lines:
        if line.strip():
            cur.append(line.strip())
        elif cur:
            paras.append(" ".join(cur))
            cur = []
    if cur:
        paras.append(" ".join(cur))
    return paras


def workload_paragraph(f):
    """The paragraph that says what a folder's benchmark is: from the longest header comment among
    <f>.h, <f>-serial.c and <f>-merino.c, the first paragraph after the title that is not a
    command line."""
    best = []
    for name in (f"{f.name}.h", f"{f.name}-serial.c", f"{f.name}-merino.c"):
        paras = header_comment(os.path.join(f.path, name))
        if sum(map(len, paras)) > sum(map(len, best)):
            best = paras
    for p in best[1:]:
        if not p.startswith("./") and not p.startswith("Command line"):
            return re.sub(r"^Workload: ", "", p)
    return best[0] if best else "(no header comment)"


def present(category):
    """The folders of a category that hold a benchmark, in ORDER then by name."""
    fs = [f for f in folders().values() if f.category == category and f.has_versions()]
    return sorted(fs, key=lambda f: (ORDER.index(f.name) if f.name in ORDER else len(ORDER), f.name))


def draw_figures(files, img_dir):
    """The figures of the results files, drawn into img_dir/benchmarks-<kind>.png; the PNGs of
    kinds not drawn this time are removed. [(kind, path)] in the report's order."""
    os.makedirs(img_dir, exist_ok=True)
    prefix = os.path.join(img_dir, "benchmarks")
    drawn = plots.plot_files(files, prefix=prefix)
    for old in glob.glob(prefix + "-*.png"):
        if old not in drawn:
            os.remove(old)
    return [(k, f"{prefix}-{k}.png") for k in plots.KINDS if f"{prefix}-{k}.png" in drawn]


# ---- the document ---------------------------------------------------------------------------------

def code_block(sec):
    return ["```text"] + sec["lines"] + ["```"]


def machine_lines(meta, end):
    dirty = meta.get("dirty") or []
    commit = f"`{commit_label(meta)}`"
    if dirty:
        commit += (" with uncommitted changes to " + ", ".join(f"`{d}`" for d in dirty[:8])
                   + (" ..." if len(dirty) > 8 else ""))
    cpu = meta.get("cpu", "?") + (f" ({meta['hypervisor']} guest)" if meta.get("hypervisor") else "")
    rows = [("Date", date_label(meta)), ("Commit", commit), ("CPU", cpu),
            ("Cores", f"{meta.get('cores')} (TSC {meta['tsc_hz'] / 1e9:.3f} GHz)" if meta.get("tsc_hz")
             else str(meta.get("cores"))),
            ("Memory", f"{meta['mem_gib']} GiB" if meta.get("mem_gib") else None),
            ("OS, kernel", f"{meta.get('os', '?')}, Linux {meta.get('kernel', '?')}"),
            ("gcc", meta.get("gcc")), ("clang (libomp)", meta.get("clang")),
            ("oneTBB", meta.get("tbb")), ("Rust (Rayon)", meta.get("rustc")),
            ("Run", f"`{' '.join(['bench/run'] + meta.get('argv', []))}`" +
             f": {meta.get('reps')} process runs per measurement (median), workers "
             f"{', '.join(map(str, meta.get('workers', [])))}"),
            ("Wall time", f"{end['wall_s'] / 60:.1f} min ({end['run_s']:.0f} s of runs, the rest building); "
                          f"estimated at the start: {meta['estimate_s'] / 60:.1f} min"
             if end.get("wall_s") and meta.get("estimate_s") else None),
            ("Other load", f"other processes used {end['others_cores']:.2f} of the {meta.get('cores')} cores on "
                           f"average during the runs; the hypervisor stole {end.get('steal_cores') or 0:.2f}"
             if end.get("others_cores") is not None else None)]
    out = ["| | |", "|---|---|"]
    out += [f"| {k} | {v} |" for k, v in rows if v]
    return out


def headline_sizes(records):
    sizes = {}
    for r in records:
        if r["kind"] in ("workload", "overhead", "steal"):
            p = f"`{r['params']}`" + (f" x{r['inner_reps']}" if r["inner_reps"] != 1 else "")
            sizes.setdefault(r["workload"], [])
            if p not in sizes[r["workload"]]:
                sizes[r["workload"]].append(p)
    return sizes


def figure_lines(figs, kinds):
    return [line for k, path in figs if k in kinds
            for line in (f"![{CAPTIONS[k]}]({path})", "")]


def experiment_lines(exp):
    """The experiments' part: where their results come from, figures and summary tables."""
    if not exp:
        return []
    jsonl, meta, records, figs = exp
    lines = ["## Experiments", "",
             f"From `{os.path.basename(jsonl)}` (`{' '.join(['bench/run'] + meta.get('argv', []))}`, commit "
             f"`{commit_label(meta)}`, {date_label(meta)}): the experiments of `bench/experiments/`, run only when "
             "named (docs/idle.md says what they show).", ""]
    lines += figure_lines(figs, ("oversub", "idle", "model"))
    summary = oversub.summary(records) + multiprog.idle_summary(records) + multiprog.mp_summary(records)
    if summary:
        lines += ["```text"] + [line for line in summary if line != ""] + ["```", ""]
    return lines


def document(jsonl, meta, end, records, figs, exp):
    derived = derived_rows(records, meta.get("tsc_hz"))
    secs = report_sections(records, derived, meta.get("workers", [1, 2]), meta.get("reps", 5),
                           meta.get("cores") or 1)
    rel = os.path.relpath(jsonl, ROOT)
    L = ["# Benchmarks", "",
         f"<!-- Generated by bench/run report from {os.path.basename(jsonl)}"
         + (f" and {os.path.basename(exp[0])}" if exp else "") + " (bench/run's results); "
         "edit bench/tools/merino_bench/report.py, not this file. -->", "",
         "merino against what its users would pick instead: oneTBB, OpenMP tasks and loops (gcc's libgomp "
         "and LLVM's libomp) and Rayon, on the workloads of the Wool, TBB, Hood and Cilk papers, each written "
         "once serially and once per system, every version checking its result against the serial one. "
         "The contract the programs follow and how to add a workload or a system are in "
         "[bench/README.md](../bench/README.md).", "",
         "## How to run", "",
         "```sh",
         "make bench                         # build (Release) and run the headline set: about 11 min on 2 cores",
         "make bench FULL=1                  # every size (bench/run --all)",
         "make bench BENCH_ARGS=\"--only fib,stress --workers 1,2,4\"",
         "bench/run --only cholesky --systems serial,merino,tbb --reps 9",
         "bench/run --only idle,oversub     # the experiments of the section below",
         "bench/run --quick --no-build       # smoke test (ctest bench_smoke)",
         "bench/run --report                 # the headline set, then this page from its results",
         "bench/run report [RESULTS.jsonl...]  # this page from results files",
         "bench/run alloc                    # the allocator benchmarks (docs/alloc.md)",
         "```", "",
         "`make bench` installs what it lacks when it can, saying what before it does: the peers' Debian "
         "packages (`scripts/install-deps.sh --bench`: oneTBB, clang and libomp, the allocators) and, for the "
         "figures, matplotlib in `bench/.venv` from `bench/tools/requirements.txt`; it says which peers it skipped "
         "and why. `bench/run --help` lists its options. It prints the estimated "
         "time at the start and one progress line per process run, then the tables below; the raw results "
         "go to `bench/results/<timestamp>.jsonl` (one JSON object per measurement, with every run's seconds) "
         "and the figures next to it.", "",
         f"Every measurement is the median of {meta.get('reps', 5)} process runs of the kernel alone (start-up, "
         "input generation and verification excluded). Following the Wool paper, a run repeats a small problem many times "
         "inside the process, so the headline sizes take about 0.1-0.2 s serially and tasks stay fine-grained; "
         "`--all` has larger and smaller sizes. The systems are the lines of `bench/systems`: `merino-allpub` is merino "
         "built with `-DMERINO_ALL_PUBLIC` "
         "(every task public: the worst case of the Wool paper's Table II); `merino-cxx` is the C++ interface "
         "(`merino::run`, `merino::fork_join`), `merino-loop` a workload written with merino's loops; "
         "`merino-stats` is merino built with "
         "`-DMERINO_STATS`, run only for Table I's counts. Every version of a workload calls the same leaf functions; "
         "the `omp-clang` versions are compiled by clang, leaves included, all other C and C++ versions by gcc "
         "(with `-O2 -falign-loops=32`), so at 1 worker a version faster than serial usually has faster code "
         "for the leaf rather than a better scheduler.", "",
         "## The machine", ""]
    L += machine_lines(meta, end)
    L += [""]
    if meta.get("hypervisor"):
        L += [f"A {meta['hypervisor']} guest: the host's other tenants share its cores, so differences of a few "
              "percent between systems are noise; the JSON lines keep every run.", ""]
    if figs:
        L += ["## At a glance", ""] + figure_lines(figs, ("speedup", "overhead", "loops", "steal"))
    L += [f"## Results ({meta.get('set', 'headline')} set)", ""]
    if secs["table"]:
        L += [secs["table"]["title"] + ":", ""] + code_block(secs["table"]) + [""]
    if secs["fastest"]:
        L += ["### Where merino is not the fastest", ""] + code_block(secs["fastest"]) + [""]
    if secs["table1"]:
        L += ["### Table I: granularity", "",
              "The Wool paper's Table I for this machine. " + secs["table1"]["title"].split(": ", 1)[1] + ".", ""]
        L += code_block(secs["table1"]) + [""]
    for key, title in (("overhead", "Inlined-task overhead"), ("steal", "Steal cost"), ("region", "Region overhead"),
                       ("mpiheat", "Across MPI ranks (mpiheat)"), ("per_tree", "One region per tree"),
                       ("prof", "The profiler"), ("loops", "Loops (the IDWS paper's Table 1)"),
                       ("donation", "Donation latency"), ("taskobj", "Task objects")):
        if secs.get(key):
            L += [f"### {title}", "", secs[key]["title"] + ".", ""] + code_block(secs[key]) + [""]
    L += experiment_lines(exp)
    L += ["## The benchmarks", "",
          "One folder per benchmark under `bench/workloads/`, `bench/micro/` and `bench/experiments/`; what each is, "
          "from the header comment of its sources, with the sizes of the run above (its `params` file; `xR` = "
          "in-process `--reps R`).", ""]
    sizes = headline_sizes(records)
    for cat in CATEGORIES:
        L += [f"### {CATEGORY_TITLES[cat]}", ""]
        for f in present(cat):
            L += [f"**{f.name}** — {workload_paragraph(f)}"
                  + (f" Sizes run: {', '.join(sizes[f.name])}." if f.name in sizes else ""), ""]
    L += [f"Raw results of this page: `{rel}`" + (f" and `{os.path.relpath(exp[0], ROOT)}`" if exp else "")
          + " on the machine that ran them (results are not committed).", ""]
    return "\n".join(L)


def newest_experiments(results_dir):
    """The newest results file that holds records of the experiments (idle, oversub, multiprog)."""
    for f in sorted(glob.glob(os.path.join(results_dir, "*.jsonl")), reverse=True):
        try:
            _, _, records = read(f)
        except (OSError, ValueError):
            continue
        if any(r["kind"] in EXPERIMENT_KINDS for r in records):
            return f
    return None


def main(argv=None):
    ap = argparse.ArgumentParser(prog="bench/run report",
                                 description="write docs/benchmarks.md and its figures from results files of bench/run")
    ap.add_argument("results", nargs="*",
                    help="bench/results/<stamp>.jsonl files: the first for the tables, the others for the experiments "
                         "(default: the newest headline run and the newest run of the experiments)")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "benchmarks.md"))
    ap.add_argument("--img-dir", default=os.path.join(ROOT, "docs", "img"))
    args = ap.parse_args(argv)
    results_dir = os.path.join(BENCH_DIR, "results")
    files = [os.path.abspath(f) for f in args.results] or [newest(results_dir)]
    if not files[0] or not all(os.path.exists(f) for f in files):
        sys.exit("bench/run report: no results file (run bench/run first, or name one)")
    runs = [(f,) + read(f) for f in files]
    if not any(r["kind"] in EXPERIMENT_KINDS for (_, _, _, recs) in runs for r in recs):
        extra = newest_experiments(os.path.dirname(files[0]))
        if extra:
            runs.append((extra,) + read(extra))
    drawn = draw_figures([f for (f, _, _, _) in runs], args.img_dir)
    figs = [(k, os.path.relpath(p, os.path.dirname(os.path.abspath(args.out)))) for k, p in drawn]
    jsonl, meta, end, records = runs[0]
    exp = next(((f, m, recs, figs) for (f, m, _, recs) in runs if any(r["kind"] in EXPERIMENT_KINDS for r in recs)),
               None)
    text = document(jsonl, meta, end, [r for r in records if r["kind"] not in EXPERIMENT_KINDS], figs, exp)
    with open(args.out, "w") as f:
        f.write(text)
    print(f"wrote {os.path.relpath(args.out)} from {', '.join(os.path.relpath(f) for (f, _, _, _) in runs)}"
          + (f"; figures: {', '.join(os.path.relpath(p) for _, p in drawn)}" if drawn else ""))
    return 0
