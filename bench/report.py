#!/usr/bin/env python3
"""bench/report.py [RESULTS.jsonl] [--out FILE] [--img-dir DIR] -- write docs/benchmarks.md from a
results file of bench/run (default: the newest headline results). The code: merino_bench/report.py."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from merino_bench.report import main  # noqa: E402

sys.exit(main())
