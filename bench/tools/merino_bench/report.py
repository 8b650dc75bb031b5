"""docs/benchmarks.md from a results file of bench/run (bench/report.py is its command line).

The tables are the ones bench/run prints (tables.py), the plots are bench/run's PNGs for that results
file (drawn by plots.py if they are missing), copied to docs/img/benchmarks-*.png, and each
workload's paragraph is taken from the header comment of its sources (bench/<w>/<w>.h or
<w>-serial.c, whichever says more). `bench/run --report` runs this on the results it has just
written.
"""

import argparse
import glob
import os
import re
import shutil
import sys

from . import BENCH_DIR, ROOT
from . import plots as figures
from .results import commit_label, date_label, derived_rows, newest, read
from .tables import report_sections

# Order of the workload paragraphs; folders not listed follow in alphabetical order.
ORDER = ["fib", "stress", "nqueens", "knary", "mm", "ssf", "cholesky", "msort", "heat", "lu", "overhead", "steal"]


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


def workload_paragraph(w):
    """The paragraph that says what the workload is: from the longest header comment among
    <w>.h, <w>-serial.c and <w>-merino.c, the first paragraph after the title that is not a
    command line."""
    best = []
    for name in (f"{w}.h", f"{w}-serial.c", f"{w}-merino.c"):
        paras = header_comment(os.path.join(BENCH_DIR, w, name))
        if sum(map(len, paras)) > sum(map(len, best)):
            best = paras
    for p in best[1:]:
        if not p.startswith("./") and not p.startswith("Command line"):
            return re.sub(r"^Workload: ", "", p)
    return best[0] if best else "(no header comment)"


def workloads_present():
    ws = [d for d in os.listdir(BENCH_DIR) if os.path.isdir(os.path.join(BENCH_DIR, d))
          and glob.glob(os.path.join(BENCH_DIR, d, f"{d}-*.c*"))]
    return [w for w in ORDER if w in ws] + sorted(w for w in ws if w not in ORDER)


# ---- plots ----------------------------------------------------------------------------------------

def copy_plots(jsonl, img_dir):
    stem = jsonl[:-len(".jsonl")]
    if not all(os.path.exists(f"{stem}-{p}.png") for p in figures.KINDS):
        figures.plot_file(jsonl)
    os.makedirs(img_dir, exist_ok=True)
    out = []
    for p in figures.KINDS:
        src = f"{stem}-{p}.png"
        if os.path.exists(src):
            dst = os.path.join(img_dir, f"benchmarks-{p}.png")
            shutil.copyfile(src, dst)
            out.append((p, dst))
    return out


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


def document(jsonl, meta, end, records, plots):
    derived = derived_rows(records, meta.get("tsc_hz"))
    secs = report_sections(records, derived, meta.get("workers", [1, 2]), meta.get("reps", 5),
                           meta.get("cores") or 1)
    rel = os.path.relpath(jsonl, ROOT)
    L = ["# Benchmarks", "",
         f"<!-- Generated by bench/report.py from {os.path.basename(jsonl)} (bench/run's results); "
         "edit bench/report.py, not this file. -->", "",
         "merino against what its users would pick instead: oneTBB, OpenMP tasks and loops (gcc's libgomp "
         "and LLVM's libomp) and Rayon, on the workloads of the Wool, TBB, Hood and Cilk papers, each written "
         "once serially and once per system, every version checking its result against the serial one. "
         "The contract the programs follow and how to add a workload are in "
         "[bench/README.md](../bench/README.md).", "",
         "## How to run", "",
         "```sh",
         "make bench                         # build (Release) and run the headline set: < 10 min on 2 cores",
         "make bench FULL=1                  # every size (bench/run --all)",
         "make bench BENCH_ARGS=\"--only fib,stress --workers 1,2,4\"",
         "bench/run --only cholesky --systems serial,merino,tbb --reps 9",
         "bench/run --quick --no-build       # smoke test (ctest bench_smoke)",
         "bench/run --report                 # the headline set, then this page from its results",
         "bench/report.py [RESULTS.jsonl]    # this page from a results file",
         "```", "",
         "`make bench` installs what it lacks when it can, saying what before it does: the peers' Debian "
         "packages (`scripts/install-deps.sh --bench`: oneTBB, clang and libomp, the allocators) and, for the "
         "plots, matplotlib in `bench/.venv` from `bench/requirements.txt`; it says which peers it skipped "
         "and why. Options of `bench/run`: `--all`, "
         "`--quick`, `--only W1,W2`, `--systems S1,S2` (serial, merino, merino-allpub, merino-cxx, merino-loop, tbb, omp-gcc, "
         "omp-clang, rayon), `--compete`, `--workers 1,2,4` (counts above the cores are labelled oversubscribed), `--reps N` (process "
         "runs per measurement, median reported; default 5), `--no-stats` (skip Table I's counter runs), "
         "`--no-build`, `--no-install`, `--build-dir`, `--results-dir`, `--timeout`, `--slow`, `--no-plots`, "
         "`--plot-only FILE`, `--list` (the plan and its estimated time), `--report`. It prints the estimated "
         "time at the start and one progress line per process run, then the tables below; the raw results "
         "go to `bench/results/<timestamp>.jsonl` (one JSON object per measurement, with every run's seconds) "
         "and the plots next to it.", "",
         f"Every measurement is the median of {meta.get('reps', 5)} process runs of the kernel alone (start-up, "
         "input generation and verification excluded). Following the Wool paper, a run repeats a small problem many times "
         "inside the process, so the headline sizes take about 0.1-0.2 s serially and tasks stay fine-grained; "
         "`--all` has larger and smaller sizes. `merino-allpub` is merino built with `-DMERINO_ALL_PUBLIC` "
         "(every task public: the worst case of the Wool paper's Table II); `merino-cxx` is the C++ interface "
         "(`merino::run`, `merino::fork_join`), for the workloads that have a version in it (region); "
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
    L += [f"## Results ({meta.get('set', 'headline')} set)", ""]
    if secs["table"]:
        L += [secs["table"]["title"] + ":", ""] + code_block(secs["table"]) + [""]
    if secs["fastest"]:
        L += ["### Where merino is not the fastest", ""] + code_block(secs["fastest"]) + [""]
    if secs["table1"]:
        L += ["### Table I: granularity", "",
              "The Wool paper's Table I for this machine. " + secs["table1"]["title"].split(": ", 1)[1] + ".", ""]
        L += code_block(secs["table1"]) + [""]
    if secs["overhead"]:
        L += ["### Inlined-task overhead", "", secs["overhead"]["title"] + ".", ""] + code_block(secs["overhead"]) + [""]
    if secs["steal"]:
        L += ["### Steal cost", "", secs["steal"]["title"] + ".", ""] + code_block(secs["steal"]) + [""]
    if secs["region"]:
        L += ["### Region overhead", "", secs["region"]["title"] + ".", ""] + code_block(secs["region"]) + [""]
    if secs.get("mpiheat"):
        L += ["### Across MPI ranks (mpiheat)", "", secs["mpiheat"]["title"] + ".", ""] + code_block(secs["mpiheat"]) + [""]
    if secs["per_tree"]:
        L += ["### One region per tree", "", secs["per_tree"]["title"] + ".", ""] + code_block(secs["per_tree"]) + [""]
    if secs.get("prof"):
        L += ["### The profiler", "", secs["prof"]["title"] + ".", ""] + code_block(secs["prof"]) + [""]
    if secs["loops"]:
        L += ["### Loops (the IDWS paper's Table 1)", "", secs["loops"]["title"] + ".", ""] + code_block(secs["loops"]) + [""]
    if secs["donation"]:
        L += ["### Donation latency", "", secs["donation"]["title"] + ".", ""] + code_block(secs["donation"]) + [""]
    if secs["taskobj"]:
        L += ["### Task objects", "", secs["taskobj"]["title"] + ".", ""] + code_block(secs["taskobj"]) + [""]
    if plots:
        L += ["### Plots", ""]
        captions = {"speedup": "Speedup against serial per workload size and system",
                    "overhead": "Overhead per task at 1 worker, (T_1 - T_S) / N_T in cycles",
                    "steal": "Steal cost (hatched: more workers than cores)",
                    "loops": "Loops: time relative to the fastest schedule of each distribution (the IDWS paper's Figure 2)"}
        for p, path in plots:
            L += [f"![{captions[p]}]({os.path.relpath(path, os.path.join(ROOT, 'docs'))})", ""]
    L += ["## The workloads", "",
          "One folder per workload under `bench/`; what each is, from the header comment of its sources, with "
          "the sizes of the run above (params; `xR` = in-process `--reps R`).", ""]
    sizes = headline_sizes(records)
    for w in workloads_present():
        L += [f"**{w}** — {workload_paragraph(w)}" + (f" Sizes run: {', '.join(sizes[w])}." if w in sizes else ""), ""]
    L += [f"Raw results of this page: `{rel}` on the machine that ran them (results are not committed).", ""]
    return "\n".join(L)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="bench/report.py",
                                 description="write docs/benchmarks.md from a results file of bench/run")
    ap.add_argument("results", nargs="?", help="a bench/results/<stamp>.jsonl (default: the newest headline run)")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "benchmarks.md"))
    ap.add_argument("--img-dir", default=os.path.join(ROOT, "docs", "img"))
    args = ap.parse_args(argv)
    jsonl = args.results or newest(os.path.join(BENCH_DIR, "results"))
    if not jsonl or not os.path.exists(jsonl):
        sys.exit("bench/report.py: no results file (run bench/run first, or name one)")
    jsonl = os.path.abspath(jsonl)
    meta, end, records = read(jsonl)
    plots = copy_plots(jsonl, args.img_dir)
    text = document(jsonl, meta, end, records, plots)
    with open(args.out, "w") as f:
        f.write(text)
    print(f"wrote {os.path.relpath(args.out)} from {os.path.relpath(jsonl)}"
          + (f"; plots: {', '.join(os.path.relpath(p) for _, p in plots)}" if plots else ""))
    return 0

