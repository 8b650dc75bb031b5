#!/usr/bin/env python3
"""Paired, interleaved rounds of workloads/taskobj (the TBB paper's Figure 6) for the ratios of issue 14.

Each round runs, for every (cut-off, workers) asked, oneTBB's task_group, the serial program (one
worker only) and every merino variant of every merino binary given, back to back (the order
reversed every other round: the VM's cores drift in speed). Per round it takes the ratios
tbb / variant; the table gives their medians over the rounds (and the median times), so each
ratio is paired within a round. Every run checks fib(n) against the closed form; a FAIL stops.

    workloads/taskobj/paired.py --build build [--merino old=/path/taskobj-merino ...] \\
        [--rounds 7] [--n 36] [--reps 3] [--cutoffs 12,20] [--workers 1,2]

Run it under the exclusive CPU lock (flock -x /work/merino-cpu.lock ...) on a quiet machine.
"""
import argparse
import os
import statistics
import sys

VARIANTS = ["plain", "c", "cb", "cbr", "direct"]


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from merino_bench.checked import checked_seconds as run  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build", help="the build directory whose bench/taskobj binaries run")
    ap.add_argument("--merino", action="append", default=[], metavar="LABEL=PATH",
                    help="another taskobj-merino to run beside the build's (say, a baseline)")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--n", type=int, default=36)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--cutoffs", default="12,20")
    ap.add_argument("--workers", default="1,2")
    a = ap.parse_args()
    tdir = f"{a.build}/bench/taskobj"
    merinos = [tuple(m.split("=", 1)) for m in a.merino] + [("new", f"{tdir}/taskobj-merino")]
    configs = [(int(c), int(w)) for c in a.cutoffs.split(",") for w in a.workers.split(",")]
    times = {}  # (cutoff, workers, system) -> [seconds per round]
    for r in range(a.rounds):
        for (c, w) in (configs if r % 2 == 0 else configs[::-1]):
            jobs = [("tbb", [f"{tdir}/taskobj-tbb"], "plain")]
            if w == 1:
                jobs.append(("serial", [f"{tdir}/taskobj-serial"], "plain"))
            jobs += [(f"{label} {v}", [path], v) for (label, path) in merinos for v in VARIANTS]
            for (name, cmd, v) in (jobs if r % 2 == 0 else jobs[::-1]):
                t = run(cmd + ["--workers", str(w), "--reps", str(a.reps), str(a.n), str(c), v])
                times.setdefault((c, w, name), []).append(t)
    print(f"taskobj fib({a.n}) x{a.reps}, {a.rounds} rounds interleaved; seconds: median; tbb/T: median of "
          f"the per-round ratios [min-max]")
    for (c, w) in configs:
        tbb = times[(c, w, "tbb")]
        print(f"\ncut-off {c}, {w} worker{'s' if w > 1 else ''}: tbb task_group {statistics.median(tbb):.5f} s"
              + (f", serial {statistics.median(times[(c, w, 'serial')]):.5f} s" if w == 1 else ""))
        for (label, _) in merinos:
            for v in VARIANTS:
                ts = times[(c, w, f"{label} {v}")]
                ratios = [b / t for (b, t) in zip(tbb, ts)]
                line = (f"  {label:>6} {v:<7} {statistics.median(ts):.5f} s   tbb/T {statistics.median(ratios):5.2f} "
                        f"[{min(ratios):.2f}-{max(ratios):.2f}]")
                if label != "new":  # this binary's time over the build's, paired per round
                    vs = [t / n for (t, n) in zip(ts, times[(c, w, f"new {v}")])]
                    line += f"   T/T(new) {statistics.median(vs):5.2f} [{min(vs):.2f}-{max(vs):.2f}]"
                print(line)


if __name__ == "__main__":
    main()
