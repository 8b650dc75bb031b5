"""The figures of results files, as PNGs named <prefix>-<kind>.png: beside a results file
(<stamp>-speedup.png, ...) for bench/run, in docs/img/ for the report. Each answers one question and
carries a title, the commit, the date and the machine; a bar whose runs other processes disturbed is
outlined in red.

matplotlib comes from this interpreter when it has it, else from bench/.venv (pyenv), where
`python -m merino_bench.plots [--out PREFIX] RESULTS.jsonl [MORE.jsonl ...]` draws them."""

import argparse
import os
import subprocess

from . import TOOLS_DIR, log
from . import expfigures, figures, loops, pyenv
from .results import read

# kind -> its figure, in the order the report shows them
FIGURES = {"speedup": figures.speedup_figure, "overhead": figures.overhead_figure, "loops": loops.figure,
           "steal": figures.steal_figure, "oversub": expfigures.oversub_figure, "idle": expfigures.idle_figure,
           "model": expfigures.model_figure}
KINDS = list(FIGURES)


def stem_of(jsonl):
    return jsonl[:-len(".jsonl")] if jsonl.endswith(".jsonl") else jsonl


def draw(files, prefix=None):
    """Draws every figure the results files hold data for, each from the first file that has it,
    with this interpreter's matplotlib; returns their paths."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    prefix = prefix or stem_of(files[0])
    runs = [read(f) for f in files]
    out = []
    for kind, fig in FIGURES.items():
        for meta, _, records in runs:
            path = fig(plt, records, meta, f"{prefix}-{kind}.png")
            if path:
                out.append(path)
                break
    return out


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


def plot_files(files, prefix=None, install=True):
    """Draws the figures of results files of bench/run, here or in bench/.venv (in_plot_env)."""
    prefix = prefix or stem_of(files[0])
    return in_plot_env(lambda: draw(files, prefix), "merino_bench.plots", ["--out", prefix] + list(files), install)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m merino_bench.plots",
                                 description="draw the figures of bench/run's results files")
    ap.add_argument("--out", help="the PNGs' prefix (default: the first file's, beside it)")
    ap.add_argument("results", nargs="+")
    a = ap.parse_args(argv)
    for f in draw(a.results, a.out):
        print(f"plot: {f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
