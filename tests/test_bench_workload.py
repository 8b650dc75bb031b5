#!/usr/bin/env python3
"""A benchmark folder added with no Python or CMake edited runs: foo/{foo-serial.c, foo-merino.c,
params} made in a temporary folder, then `bench/run --quick --workloads-dir TMP --only foo`; its
results file must hold foo's records with the right answer, and a version that computes a wrong
answer must be reported as FAIL (and bench/run exit 1).

    test_bench_workload.py BENCH_RUN BUILD_DIR     (BUILD_DIR: a merino build with libmerino.a)
"""

import glob
import json
import os
import subprocess
import sys
import tempfile

SKIP = 77

# sum of i for i < n, by halving tasks; params: n wrong (wrong = 1: merino's answer is off by one)
SERIAL = r"""
#include <bench.h>

int main(int argc, char **argv) {
    int workers, reps;
    const char *p[2];
    int np = bench_args(argc, argv, &workers, &reps, p, 2);
    long n = bench_param_long(p, np, 0, 1000);
    double t0 = bench_now();
    long sum = 0;
    for (int r = 0; r < reps; r++)
        for (long i = 0; i < n; i++) {
            bench_sink(i);
            sum += i;
        }
    double t = bench_now() - t0;
    return bench_report_i64(t, sum / reps == n * (n - 1) / 2, sum / reps, -1);
}
"""
MERINO = r"""
#include <bench.h>
#include <merino.h>

MERINO_TASK_2(long, sum, long, lo, long, hi) {
    if (hi - lo < 16) {
        long s = 0;
        for (long i = lo; i < hi; i++) {
            bench_sink(i);
            s += i;
        }
        return s;
    }
    long mid = lo + (hi - lo) / 2;
    MERINO_SPAWN(sum, mid, hi);
    long a = MERINO_CALL(sum, lo, mid);
    return a + MERINO_JOIN(sum);
}

int main(int argc, char **argv) {
    int workers, reps;
    const char *p[2];
    int np = bench_args(argc, argv, &workers, &reps, p, 2);
    long n = bench_param_long(p, np, 0, 1000), wrong = bench_param_long(p, np, 1, 0);
    merino_config cfg = {0};
    cfg.workers = (unsigned)workers;
    if (merino_start(&cfg) != 0) return 2;
    double t0 = bench_now();
    long s = 0;
    for (int r = 0; r < reps; r++) s = MERINO_RUN(sum, 0, n) + wrong;
    double t = bench_now() - t0;
    BENCH_MERINO_STATS();
    merino_stop();
    return bench_report_i64(t, s == n * (n - 1) / 2, s, -1);
}
"""
PARAMS = """# foo: n wrong  (a test's workload: the sum of 0..n-1; wrong = 1 makes merino's answer wrong)
headline, all: 100000 0
quick: 5000 0
quick: 5000 1 --systems merino
"""


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    run, build = sys.argv[1], os.path.abspath(sys.argv[2])
    if not os.path.exists(os.path.join(build, "libmerino.a")):
        print(f"skipped: {build}/libmerino.a does not exist (build merino first)")
        return SKIP
    with tempfile.TemporaryDirectory(prefix="bench-workload-") as tmp:
        foo = os.path.join(tmp, "workloads", "foo")
        os.makedirs(foo)
        for name, text in (("foo-serial.c", SERIAL), ("foo-merino.c", MERINO), ("params", PARAMS)):
            with open(os.path.join(foo, name), "w") as f:
                f.write(text)
        results = os.path.join(tmp, "results")
        cmd = [sys.executable, run, "--quick", "--no-build", "--no-install", "--no-plots", "--build-dir", build,
               "--results-dir", results, "--workloads-dir", os.path.join(tmp, "workloads"), "--only", "foo",
               "--systems", "serial,merino"]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
        print(p.stdout[-6000:])
        files = glob.glob(os.path.join(results, "*.jsonl"))
        if len(files) != 1:
            print(f"FAIL: bench/run wrote {len(files)} results files, not one (exit {p.returncode})")
            return 1
        with open(files[0]) as f:
            recs = [json.loads(line) for line in f]
        got = {(r["params"], r["system"], r["workers"]): r for r in recs
               if r.get("kind") == "workload" and r.get("workload") == "foo"}
        want_ok = [("5000 0", "serial", 1), ("5000 0", "merino", 1), ("5000 0", "merino", 2)]
        want_fail = [("5000 1", "merino", 1), ("5000 1", "merino", 2)]
        errors = []
        for k in want_ok:
            r = got.get(k)
            if not r or r["check"] != "ok" or r["result"] != 5000 * 4999 // 2 or len(r["runs"]) != 2:
                errors.append(f"{k}: want check ok, result {5000 * 4999 // 2}, 2 runs; got {r}")
        for k in want_fail:
            r = got.get(k)
            if not r or r["check"] != "FAIL":
                errors.append(f"{k}: want check FAIL (a wrong answer); got {r}")
        if sorted(got) != sorted(want_ok + want_fail):
            errors.append(f"records {sorted(got)}, want {sorted(want_ok + want_fail)}")
        if not any(r.get("kind") == "stats" and r.get("workload") == "foo" and r["check"] == "ok" for r in recs):
            errors.append("no Table I counter run (foo-merino-stats) for foo")
        if p.returncode != 1:
            errors.append(f"bench/run exited {p.returncode}, want 1 (a measurement failed)")
        for e in errors:
            print("FAIL: " + e)
        if errors:
            return 1
        print("ok: foo ran from a folder of its own, its answers checked")
        return 0


if __name__ == "__main__":
    sys.exit(main())
