"""merino's benchmark runner. bench/run is its command line, bench/report.py its report writer.

Modules, each calling only those listed after it:

    cli       the command line of bench/run
    report    docs/benchmarks.md from a results file
    execute   building the programs, running them, writing the JSON lines
    plan      what runs: workloads, sizes, systems, worker counts, the time estimate
    plots     the figures (matplotlib, from bench/.venv when this Python lacks it)
    pyenv     bench/.venv, the plotting environment made from bench/requirements.txt
    tables    the text tables
    results   a results file's records, the systems they name, the rows derived from them
    machine   the machine: cores, other processes' load, compiler and library versions, the commit
"""

import os
import sys

BENCH_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(BENCH_DIR)


def log(msg=""):
    print(msg, flush=True)


def warn(msg):
    print(f"bench/run: {msg}", file=sys.stderr, flush=True)
