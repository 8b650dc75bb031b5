"""What bench/ holds: the systems of bench/systems, the benchmark folders of workloads/, micro/ and
experiments/ (and of --workloads-dir), and what each folder's params file says: its sizes, and the
systems built for it alone (`also:`) or not at all (`skip:`). The format is in bench/README.md,
"params"."""

import glob
import os
import re
import sys

from . import BENCH_DIR
from .machine import NCORES

CATEGORIES = ("workloads", "micro", "experiments")
SETS = ("headline", "all", "quick")
SYSTEM_KEYS = ("source", "build", "family", "link", "define", "needs", "for", "runs", "env", "exe")


def fail(where, msg):
    sys.exit(f"bench/run: {where}: {msg}")


# ---- bench/systems --------------------------------------------------------------------------------

def read_systems(path=os.path.join(BENCH_DIR, "systems")):
    """{name: {key: value}} in the file's order, with the defaults (for=every, runs=default)."""
    out = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            name, *fields = line.split()
            sy = {"for": "every", "runs": "default", "family": "peer", "env": "", "exe": ""}
            for fld in fields:
                key, eq, value = fld.partition("=")
                if not eq or key not in SYSTEM_KEYS:
                    fail(f"{os.path.relpath(path)}:{n}", f"'{fld}' is not one of {', '.join(SYSTEM_KEYS)} as key=value")
                sy[key] = value
            if "source" not in sy or "build" not in sy:
                fail(f"{os.path.relpath(path)}:{n}", f"{name} needs source= and build=")
            out[name] = sy
    return out


SYSTEMS = read_systems()


def system_env(system, build_dir):
    """{NAME: VALUE} a system's env= field sets when it runs."""
    env = {}
    for item in filter(None, SYSTEMS.get(system, {}).get("env", "").split(",")):
        k, _, v = item.partition("=")
        env[k] = v.replace("{build}", build_dir)
    return env


# ---- the benchmark folders ------------------------------------------------------------------------

class Folder:
    """A benchmark folder: its name (the <f> of its files), path, category and params file."""

    def __init__(self, path, category):
        self.path, self.category = path, category
        self.name = os.path.basename(path)
        self._params = None

    def source(self, system):
        """The path of the folder's version for a system, or None when it has none. A .c version may
        be C++ instead (<f>-serial.cpp), as bench/CMakeLists.txt builds it."""
        sy = SYSTEMS.get(system)
        p = os.path.join(self.path, f"{self.name}-{sy['source']}") if sy else None
        if p and not os.path.exists(p) and p.endswith(".c") and os.path.exists(p + "pp"):
            p += "pp"
        return p if p and os.path.exists(p) else None

    def has_versions(self):
        return any(self.source(s) for s in SYSTEMS)

    @property
    def params(self):
        if self._params is None:
            self._params = read_params(os.path.join(self.path, "params"))
        return self._params

    def builds(self, system):
        """Whether bench/CMakeLists.txt builds this folder's version for a system (its peer found)."""
        sy = SYSTEMS[system]
        if not self.source(system) or system in self.params["skip"]:
            return False
        return sy["for"] != "asked" or system in self.params["also"]


def folders(extra_dirs=()):
    """{name: Folder} of every benchmark folder, bench's categories first, then --workloads-dir's
    folders (as workloads). Two folders of one name are an error: an executable is named after it."""
    out = {}
    roots = [(os.path.join(BENCH_DIR, c), c) for c in CATEGORIES] + [(os.path.abspath(d), "workloads") for d in extra_dirs]
    for root, category in roots:
        if not os.path.isdir(root):
            fail(root, "no such folder")
        for d in sorted(glob.glob(os.path.join(root, "*"))):
            if not os.path.isdir(d):
                continue
            f = Folder(d, category)
            if f.name in out:
                fail(d, f"a second folder named {f.name} (the first: {os.path.relpath(out[f.name].path)})")
            out[f.name] = f
    return out


# ---- params files ---------------------------------------------------------------------------------

def expand(text):
    """The lines a line with {a|b|c} alternatives stands for: one per alternative, the first group
    varying slowest."""
    m = re.search(r"\{([^{}]*)\}", text)
    if not m:
        return [text]
    return [out for alt in m.group(1).split("|") for out in expand(text[:m.start()] + alt + text[m.end():])]


def worker_counts(spec, where):
    """--workers' list: numbers, `cores` (this machine's) or K*cores."""
    out = []
    for tok in spec.split(","):
        m = re.fullmatch(r"(?:(\d+)\*)?cores|(\d+)", tok.strip())
        if not m:
            fail(where, f"--workers {spec}: '{tok}' is not a number, cores or K*cores")
        out.append(int(m.group(2)) if m.group(2) else int(m.group(1) or 1) * NCORES)
    return out


def size(params, reps=1, systems=None, est=None, workers=None):
    """One problem size: positional params, in-process --reps, optionally a subset of systems and of
    worker counts; est = the serial kernel's seconds on the 2-core development machine (for the
    estimate printed at the start when no earlier results file has this size); workers = "max":
    the parallel systems run at the largest of --workers only, a list: only these of the counts
    asked for (the experiments: exactly these)."""
    return {"params": params, "reps": reps, "systems": systems, "est": est, "workers": workers}


def parse_size(text, where):
    toks = text.split()
    est = reps = systems = workers = None
    if toks and toks[-1].startswith("~"):
        try:
            est = float(toks.pop()[1:])
        except ValueError:
            fail(where, "~S wants a number of seconds")
    params = []
    while toks:
        t = toks.pop(0)
        if t in ("--reps", "--systems", "--workers"):
            if not toks:
                fail(where, f"{t} wants a value")
            v = toks.pop(0)
            if t == "--reps":
                if not v.isdigit() or int(v) < 1:
                    fail(where, f"--reps {v}: a positive count")
                reps = int(v)
            elif t == "--systems":
                systems = v.split(",")
                unknown = [s for s in systems if s not in SYSTEMS]
                if unknown:
                    fail(where, f"--systems names {', '.join(unknown)}, not in bench/systems")
            else:
                workers = worker_counts(v, where)
        elif t == "--max-workers":
            workers = "max"
        elif t.startswith("--"):
            fail(where, f"unknown option {t} (--reps, --systems, --workers, --max-workers)")
        else:
            params.append(t)
    return size(" ".join(params), reps=reps or 1, systems=systems, est=est, workers=workers)


def read_params(path):
    """{"headline": [size...], "all": [...], "quick": [...], "also": [system...], "skip": [...],
    "exists": bool} of a params file (empty when there is none)."""
    out = {s: [] for s in SETS}
    out.update(also=[], skip=[], exists=os.path.exists(path))
    if not out["exists"]:
        return out
    with open(path) as f:
        for n, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            where = f"{os.path.relpath(path)}:{n}"
            key, colon, rest = line.partition(":")
            if not colon:
                fail(where, "a line is <sets>: <params...> [options], also: <systems> or skip: <systems>")
            key = key.strip()
            if key in ("also", "skip"):
                names = rest.split()
                unknown = [s for s in names if s not in SYSTEMS]
                if unknown:
                    fail(where, f"{key}: names {', '.join(unknown)}, not in bench/systems")
                out[key] += names
                continue
            sets = [s.strip() for s in key.split(",")]
            bad = [s for s in sets if s not in SETS]
            if bad:
                fail(where, f"'{', '.join(bad)}' is not a set: headline, all, quick (comma-separated), also or skip")
            for text in expand(rest):
                s = parse_size(text, where)
                for name in sets:
                    out[name].append(s)
    return out
