#!/usr/bin/env python3
"""Oversubscription of the bench workloads (issue 16): T_P / T_2 at P = 4, 8 and 16 workers.

Each round runs every workload at P = 2, 4, 8 and 16 workers back to back (one process run each,
its answer checked by the program), so each ratio T_P / T_2 is paired within a round; the table
gives the medians over the rounds and their range. On a machine with 2 cores, P > 2 is
oversubscribed: the Hood paper's setting, where a work stealer that yields keeps T_P near T_2.

    bench/oversub/oversub.py --build build [--rounds 7] [--lock FILE]

--lock FILE holds `flock -x FILE` for each round (a shared machine's protocol: nothing else runs
while a round is timed)."""
import argparse, json, statistics, subprocess, sys

WORKLOADS = [("fib", "fib/fib-merino", "40"), ("stress", "stress/stress-merino", "7 256 20000"),
             ("nqueens", "nqueens/nqueens-merino", "14"), ("cholesky", "cholesky/cholesky-merino", "1000 4000"),
             ("heat", "heat/heat-merino", "256 256 100 16"), ("msort", "msort/msort-merino", "100000 20"),
             ("mm", "mm/mm-merino", "256 12"), ("lu", "lu/lu-merino", "256 16 32")]
COUNTS = (2, 4, 8, 16)

ROUND = r'''
import json, subprocess, sys
bench, workloads, counts = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
out = {}
for name, prog, args in workloads:
    out[name] = {}
    for p in counts:
        run = subprocess.run([bench + "/" + prog, "--workers", str(p), "--reps", "1"] + args.split(),
                             capture_output=True, text=True)
        r = json.loads(run.stdout) if run.returncode == 0 else {"check": run.stderr.strip()}
        if r.get("check") != "ok":
            sys.exit(f"{name} at {p} workers failed: {r.get('check')}")
        out[name][p] = r["seconds"]
print(json.dumps(out))
'''


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build", help="the build directory whose bench/ binaries run")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--lock", help="hold flock -x on this file for each round")
    a = ap.parse_args()
    cmd = [sys.executable, "-c", ROUND, a.build + "/bench", json.dumps(WORKLOADS), json.dumps(COUNTS)]
    if a.lock:
        cmd = ["flock", "-x", a.lock] + cmd
    ratios = {(w, p): [] for w, _, _ in WORKLOADS for p in COUNTS[1:]}
    for r in range(a.rounds):
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"round {r + 1}: {run.stderr.strip()}")
        times = json.loads(run.stdout)
        for w, t in times.items():
            for p in COUNTS[1:]:
                ratios[(w, p)].append(t[str(p)] / t[str(COUNTS[0])])
        print(f"round {r + 1}: T_2 " + ", ".join(f"{w} {t['2']:.4f} s" for w, t in times.items()), flush=True)
    print(f"\nT_P / T_2, median of {a.rounds} paired rounds [min-max]:")
    for w, prog, args in WORKLOADS:
        cells = "  ".join(f"P={p} {statistics.median(ratios[(w, p)]):.3f} [{min(ratios[(w, p)]):.2f}-"
                          f"{max(ratios[(w, p)]):.2f}]" for p in COUNTS[1:])
        print(f"  {w:9s} {args:16s} {cells}")


if __name__ == "__main__":
    main()
