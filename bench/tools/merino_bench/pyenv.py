"""bench/.venv: the Python environment the plots are drawn in, made on first need with
`python3 -m venv` and pip from bench/tools/requirements.txt (matplotlib)."""

import os
import subprocess
import sys

from . import BENCH_DIR, TOOLS_DIR, log

VENV = os.path.join(BENCH_DIR, ".venv")
REQUIREMENTS = os.path.join(TOOLS_DIR, "requirements.txt")
VENV_PYTHON = os.path.join(VENV, "bin", "python")


def has_matplotlib(python):
    try:
        return subprocess.run([python, "-c", "import matplotlib"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=60).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def requirements():
    with open(REQUIREMENTS) as f:
        return [line.split("#", 1)[0].strip() for line in f if line.split("#", 1)[0].strip()]


def last_line(text):
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else "no output"


def plot_python(install=True):
    """The interpreter of bench/.venv when it can import matplotlib, making or completing the venv
    first when install is true (after saying what it installs); else None, after one line saying
    why the plots are skipped."""
    if os.path.exists(VENV_PYTHON) and has_matplotlib(VENV_PYTHON):
        return VENV_PYTHON
    rel = os.path.relpath(VENV)
    if not install:
        log(f"plots skipped: matplotlib is not installed in {rel} (bench/run without --no-install makes it)")
        return None
    log(f"plots need matplotlib: installing {', '.join(requirements())} from bench/tools/requirements.txt "
        f"into {rel} (python3 -m venv, pip)")
    if not os.path.exists(VENV_PYTHON):
        p = subprocess.run([sys.executable, "-m", "venv", VENV], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        if p.returncode != 0:
            log(f"plots skipped: python3 -m venv {rel} failed (Debian: the python3-venv package; "
                f"scripts/install-deps.sh --bench installs it): {last_line(p.stdout)}")
            return None
    p = subprocess.run([VENV_PYTHON, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                        "--retries", "1", "--timeout", "20", "-r", REQUIREMENTS],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0 or not has_matplotlib(VENV_PYTHON):
        log(f"plots skipped: pip could not install bench/tools/requirements.txt into {rel} "
            f"(no network?): {last_line(p.stdout)}")
        return None
    return VENV_PYTHON
