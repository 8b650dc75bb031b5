#!/usr/bin/env python3
"""Paired ratios from a results file of bench/run: the runner interleaves the configurations of a
size run by run, so the i-th run of every configuration comes from the same round; a ratio taken
within each round and then its median over the rounds is less disturbed by the machine's drift than
the ratio of two medians.

    bench/tools/paired.py RESULTS.jsonl [--only sort,scan] [--system merino-cxx]

For each size of the folders asked: every configuration's median seconds and its per-round ratio to
the serial program (T / T_S: below 1 is faster), median [p25 - p75]; then the system asked (default
merino-cxx) against every peer at the same worker count (T_system / T_peer: below 1 means the
system is faster), median [p25 - p75] and the rounds it won.
"""
import argparse
import json
import statistics
import sys


def quart(v):
    v = sorted(v)
    if len(v) < 2:
        return (v[0], v[0], v[0]) if v else (None, None, None)
    q = statistics.quantiles(v, n=4)
    return q[0], statistics.median(v), q[2]


def fmt(q):
    return "%.3f [%.3f - %.3f]" % (q[1], q[0], q[2])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results")
    ap.add_argument("--only", default="", help="comma-separated workload folders (default: all)")
    ap.add_argument("--system", default="merino-cxx", help="the system compared with each peer")
    a = ap.parse_args()
    only = set(filter(None, a.only.split(",")))
    groups = {}
    with open(a.results) as f:
        for line in f:
            r = json.loads(line)
            if r.get("kind") != "workload" or (only and r["workload"] not in only) or not r.get("runs"):
                continue
            groups.setdefault((r["workload"], r["params"]), {})[(r["system"], r["workers"])] = r
    if not groups:
        sys.exit("paired.py: no workload records in %s" % a.results)
    for (w, params), recs in groups.items():
        base = recs.get(("serial", 1))
        print("\n%s %s   (%d rounds)" % (w, params, len(base["runs"]) if base else 0))
        for (sy, nw), r in recs.items():
            line = "  %-11s w=%d  median %.4f s" % (sy, nw, r["median"])
            if base and (sy, nw) != ("serial", 1):
                line += "   T/T_S " + fmt(quart([x / b for x, b in zip(r["runs"], base["runs"])]))
            print(line)
        for (sy, nw), r in recs.items():
            if sy != a.system:
                continue
            for (py, pw), p in recs.items():
                if pw != nw or py in (a.system, "serial") or py.startswith("merino"):
                    continue
                rs = [x / y for x, y in zip(r["runs"], p["runs"])]
                print("  %s / %-7s w=%d  %s   faster in %d of %d rounds" %
                      (sy, py, nw, fmt(quart(rs)), sum(x < 1 for x in rs), len(rs)))


if __name__ == "__main__":
    main()
