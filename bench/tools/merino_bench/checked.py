"""One run of a benchmark program whose answer is checked, for the paired scripts of a workload
(bench/workloads/*/paired.py): the program's last stdout line is its JSON result."""
import json
import subprocess
import sys


def checked_seconds(cmd):
    """Runs cmd and returns its "seconds"; stops the script when it gave no result or a wrong one."""
    out = subprocess.run(cmd, capture_output=True, text=True)
    try:
        rec = json.loads(out.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        sys.exit(f"no result from {' '.join(cmd)}: {out.stdout!r} {out.stderr!r}")
    if rec.get("check") != "ok":
        sys.exit(f"wrong answer from {' '.join(cmd)}: {rec}")
    return rec["seconds"]
