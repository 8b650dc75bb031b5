"""The machine the benchmarks run on: its cores, how busy other processes keep it, the compiler
and library versions and the commit the programs are built from."""

import os
import platform
import re
import resource
import subprocess
import time

from . import ROOT

NCORES = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


class LoadMeter:
    """How busy the machine was with work other than ours since the meter started: CPU time of the
    whole machine (/proc/stat) minus this process's and its children's, and the hypervisor's steal
    time, each as an average number of cores. Timings taken while others > ~0.1 are suspect."""

    def __init__(self):
        self.start = self.sample()

    @staticmethod
    def sample():
        try:
            with open("/proc/stat") as f:
                v = [int(x) for x in f.readline().split()[1:]]
        except (OSError, ValueError):
            return None
        hz = os.sysconf("SC_CLK_TCK")
        busy = (v[0] + v[1] + v[2] + v[5] + v[6]) / hz  # user nice system irq softirq
        steal = (v[7] if len(v) > 7 else 0) / hz
        own = sum(getattr(resource.getrusage(w), f) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
                  for f in ("ru_utime", "ru_stime"))
        return time.time(), busy, steal, own

    def read(self):
        """(others, steal): average cores used by other processes and stolen by the hypervisor."""
        now = self.sample()
        if not self.start or not now or now[0] - self.start[0] <= 0:
            return None, None
        dt = now[0] - self.start[0]
        others = max(0.0, (now[1] - self.start[1]) - (now[3] - self.start[3])) / dt
        return round(others, 3), round((now[2] - self.start[2]) / dt, 3)


def command_output(cmd):
    """A command's stdout (run in the repository), or None if it fails."""
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, timeout=20,
                           cwd=ROOT)
        return p.stdout.rstrip() if p.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None


def tbb_version():
    for h in ("/usr/include/oneapi/tbb/version.h", "/usr/local/include/oneapi/tbb/version.h"):
        if os.path.exists(h):
            with open(h) as f:
                v = dict(re.findall(r"#define TBB_VERSION_(MAJOR|MINOR|PATCH) (\d+)", f.read()))
            return ".".join(v[k] for k in ("MAJOR", "MINOR", "PATCH") if k in v)
    return None


def machine_info():
    """What a results file's meta line says about the machine and the source it measured."""
    info = {"cpu": platform.processor() or platform.machine(), "kernel": platform.release()}
    for line in (command_output(["lscpu"]) or "").splitlines():
        if line.startswith("Model name:"):
            info["cpu"] = line.split(":", 1)[1].strip()
        elif line.startswith("Hypervisor vendor:"):
            info["hypervisor"] = line.split(":", 1)[1].strip()
    try:
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    info["os"] = line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    try:
        with open("/proc/meminfo") as f:
            info["mem_gib"] = round(int(f.readline().split()[1]) / 2**20, 1)
    except (OSError, ValueError, IndexError):
        pass
    for name, cmd in (("gcc", ["gcc", "--version"]), ("clang", ["clang", "--version"]),
                      ("rustc", ["rustc", "--version"])):
        out = command_output(cmd)
        info[name] = out.splitlines()[0] if out else None
    info["tbb"] = tbb_version()
    info["commit"] = command_output(["git", "rev-parse", "--short", "HEAD"]) or "unknown"
    # uncommitted changes to what the benchmarks are built from, and to any tracked file
    dirty = command_output(["git", "status", "--porcelain", "--", "src", "include", "bench", "CMakeLists.txt"])
    info["dirty"] = [line[3:] for line in dirty.splitlines()] if dirty else []
    info["tree_dirty"] = bool(command_output(["git", "status", "--porcelain", "--untracked-files=no"]))
    return info
