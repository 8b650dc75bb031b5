#!/usr/bin/env python3
"""Paired, interleaved rounds of workloads/isolate: the cost of isolating the inner loop.

Each round runs, for every workers count and system asked, the `plain` and the `isolate` variant
back to back (the order reversed every other round: the VM's cores drift in speed) and takes the
ratio isolate / plain; the table gives their medians over the rounds [min-max] and the median
times. Every run checks its sum against the serial one; a FAIL stops.

    workloads/isolate/paired.py [--build build] [--rounds 9] [--reps 5] [--workers 1,2]
        [--systems merino-cxx,tbb] [--params "200 2000"]

Run it under mrn-bench (a quiet machine).
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from merino_bench.checked import checked_seconds as run  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--systems", default="merino-cxx,tbb")
    ap.add_argument("--params", default="200 2000")
    a = ap.parse_args()
    systems = [s for s in a.systems.split(",") if os.path.exists(f"{a.build}/bench/isolate/isolate-{s}")]
    configs = [(s, int(w)) for s in systems for w in a.workers.split(",")]
    times = {}  # (system, workers, variant) -> [seconds]
    ratios = {}  # (system, workers) -> [isolate / plain]
    for r in range(a.rounds):
        for (s, w) in (configs if r % 2 == 0 else configs[::-1]):
            t = {}
            for v in (["plain", "isolate"] if r % 2 == 0 else ["isolate", "plain"]):
                cmd = [f"{a.build}/bench/isolate/isolate-{s}", "--workers", str(w), "--reps", str(a.reps)]
                t[v] = run(cmd + a.params.split() + [v])
                times.setdefault((s, w, v), []).append(t[v])
            ratios.setdefault((s, w), []).append(t["isolate"] / t["plain"])
    print(f"isolate {a.params} x{a.reps}, {a.rounds} rounds interleaved; seconds: median; "
          f"isolate/plain: median of the per-round ratios [min-max]")
    print(f"{'system':12} {'workers':>7} {'plain s':>9} {'isolate s':>9} {'isolate/plain':>22}")
    for (s, w) in configs:
        rs = ratios[(s, w)]
        print(f"{s:12} {w:7d} {statistics.median(times[(s, w, 'plain')]):9.4f} "
              f"{statistics.median(times[(s, w, 'isolate')]):9.4f} "
              f"{statistics.median(rs):8.3f} [{min(rs):.3f}-{max(rs):.3f}]")


if __name__ == "__main__":
    main()
