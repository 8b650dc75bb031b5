"""merino's benchmark runner: bench/run is its command line. bench/README.md lists the modules."""

import os
import sys

TOOLS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH_DIR = os.path.dirname(TOOLS_DIR)
ROOT = os.path.dirname(BENCH_DIR)


def log(msg=""):
    print(msg, flush=True)


def warn(msg):
    print(f"bench/run: {msg}", file=sys.stderr, flush=True)
