"""Helpers shared by the bench scripts: timing, percentiles, cold CLI runs, peak memory,
fresh vault copies, and writing one script's section of bench/RESULTS.md.

Pure stdlib (Linux /proc for memory), so a bench script imports nothing heavy by accident.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
RESULTS = BENCH_DIR / "RESULTS.md"
CORPORA = REPO.parent / "shared" / "corpora"
RESULTS_HEADER = """# Benchmark results

Numbers written by the scripts in bench/ (`make bench` runs them all; each script rewrites only
its own section, between its markers). Targets are for the 2-core reference machine.
"""


# -- timing -------------------------------------------------------------------------------

def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    """(wall seconds, result) of one call."""
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0-100) with linear interpolation between closest ranks."""
    if not values:
        raise ValueError("percentile of no values")
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def median(values: Sequence[float]) -> float:
    """The 50th percentile."""
    return percentile(values, 50)


# -- cold CLI runs and memory --------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class CliRun:
    """One finished ``vault-engine`` process."""

    seconds: float
    returncode: int
    stdout: str
    stderr: str
    max_rss_mb: float  # the largest single process of the tree (kernel rusage, exact)
    tree_peak_mb: float | None  # the whole tree, PSS summed, sampled (None when not sampled)
    cpu_seconds: float = 0.0  # user + system time of the whole tree: barely moved by load


def cli_command() -> list[str]:
    """The installed console script next to this interpreter (what a user runs), else -m."""
    _write_bytecode()
    script = Path(sys.executable).parent / "vault-engine"
    return [str(script)] if script.exists() else [sys.executable, "-m", "vault_engine"]


@functools.cache
def _write_bytecode() -> None:
    """Compile the package's bytecode, as installing a package does: the editable install
    never does it, and with PYTHONDONTWRITEBYTECODE set (as on this machine) every cold run
    would compile the package from source again (about 30 ms a run, measured)."""
    import compileall

    for package in ("vault_engine", "tui"):
        compileall.compile_dir(REPO / package, quiet=1)


# Spawns the command and reports its exact wall time and peak RSS. A launcher is needed
# because the kernel seeds a process's max-RSS with the *parent's* peak at exec time: measured
# from the bench process (hundreds of MB after an in-process index) every figure would be
# inflated. The launcher is a bare interpreter, so at most ~10 MB leaks into the number.
_LAUNCHER = """
import json, os, sys, time
report, command = sys.argv[1], sys.argv[2:]
start = time.perf_counter()
pid = os.posix_spawn(command[0], command, os.environ)
_, status, usage = os.wait4(pid, 0)
seconds = time.perf_counter() - start
with open(report, "w") as f:
    json.dump({"seconds": seconds, "status": status, "max_rss_kb": usage.ru_maxrss,
               "cpu_seconds": usage.ru_utime + usage.ru_stime}, f)
sys.exit(os.waitstatus_to_exitcode(status))
"""


def run_cli(args: Sequence[str], *, sample_memory: bool = False, env: dict | None = None,
            timeout: float = 900) -> CliRun:
    """Run ``vault-engine ARGS`` in a fresh process: wall time from spawn to exit, and the
    peak RSS of the largest process of its tree (the kernel folds waited-for children in).

    With ``sample_memory`` a thread also sums the PSS of the whole tree every 50 ms: the
    figure that says how much memory the machine must have while worker processes run.
    """
    with tempfile.TemporaryDirectory() as tmp:
        out, err, report = (Path(tmp) / name for name in ("out", "err", "report.json"))
        with out.open("wb") as stdout, err.open("wb") as stderr:
            proc = subprocess.Popen([sys.executable, "-c", _LAUNCHER, str(report), *cli_command(), *args],
                                    stdout=stdout, stderr=stderr, env={**os.environ, **(env or {})},
                                    start_new_session=True)  # a runaway is killed with its tree
            sampler = TreeMemorySampler(proc.pid) if sample_memory else None
            if sampler:
                sampler.start()
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                raise TimeoutError(f"vault-engine {' '.join(args)} ran over {timeout:g} s") from None
            finally:
                if sampler:
                    sampler.stop()
        measured = json.loads(report.read_text())
        return CliRun(measured["seconds"], proc.returncode,
                      out.read_text(encoding="utf-8", errors="replace"),
                      err.read_text(encoding="utf-8", errors="replace"),
                      measured["max_rss_kb"] / 1024, sampler.peak_mb if sampler else None,
                      measured["cpu_seconds"])


def cold_median_ms(args: Sequence[str], runs: int) -> float:
    """Median wall milliseconds of ``runs`` fresh ``vault-engine ARGS`` processes; a failed
    run stops the bench (its number would mean nothing)."""
    times = []
    for _ in range(runs):
        run = run_cli(args)
        if run.returncode != 0:
            raise SystemExit(f"vault-engine {' '.join(args)} failed: {run.stderr.strip()}")
        times.append(run.seconds * 1000)
    return median(times)


class TreeMemorySampler(threading.Thread):
    """Polls the descendants of a process; ``peak_mb`` is the largest summed PSS seen."""

    def __init__(self, root_pid: int, interval: float = 0.05):
        super().__init__(daemon=True)
        self.root_pid, self.interval = root_pid, interval
        self.peak_mb = 0.0
        self._done = threading.Event()

    def run(self) -> None:
        while not self._done.is_set():
            total = sum(_pss_kb(pid) for pid in _tree(self.root_pid)[1:])  # not the launcher
            self.peak_mb = max(self.peak_mb, total / 1024)
            self._done.wait(self.interval)

    def stop(self) -> None:
        self._done.set()
        self.join()


def _tree(root: int) -> list[int]:
    """``root`` and every descendant, from the parent pids in /proc/*/stat."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue  # exited while we looked
        ppid = int(stat[stat.rindex(b")") + 2:].split()[1])  # the name may hold spaces
        children.setdefault(ppid, []).append(int(entry.name))
    found, stack = [], [root]
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack += children.get(pid, [])
    return found


def _pss_kb(pid: int) -> int:
    """Proportional set size: shared pages (forked workers) are counted once, not per process."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


# -- vaults --------------------------------------------------------------------------------

def fresh_copy(source: Path, parent: Path, name: str) -> Path:
    """A copy of a vault without any index, in ``parent/name`` (replaced if present)."""
    target = parent / name
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(source, target, ignore=shutil.ignore_patterns(".vault-engine"), symlinks=True)
    return target


def vault_size(root: Path) -> tuple[int, int]:
    """(number of .md notes, their total bytes), index excluded."""
    count = total = 0
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in (".vault-engine", ".obsidian", ".git", ".trash")]
        for name in files:
            if name.lower().endswith(".md"):
                count += 1
                total += os.path.getsize(os.path.join(folder, name))
    return count, total


# -- results --------------------------------------------------------------------------------

def machine_line() -> str:
    """Where and when a number was taken: enough to tell two runs apart."""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (f"{dt.date.today().isoformat()}, {os.cpu_count()} cores ({platform.machine()}), "
            f"Python {platform.python_version()}, {platform.system()} {platform.release()}, "
            f"load average {load:.2f} at start")


def write_section(marker: str, body: str, path: Path | None = None) -> None:
    """Replace the text between ``<!-- marker -->`` and ``<!-- /marker -->`` in RESULTS.md,
    appending the section when it is new; every other section is left as it was."""
    path = path or RESULTS
    text = path.read_text(encoding="utf-8") if path.exists() else RESULTS_HEADER
    block = f"<!-- {marker} -->\n{body.strip()}\n<!-- /{marker} -->"
    pattern = re.compile(rf"<!-- {re.escape(marker)} -->.*?<!-- /{re.escape(marker)} -->", re.DOTALL)
    if pattern.search(text):
        text = pattern.sub(lambda _: block, text, count=1)
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    path.write_text(text, encoding="utf-8")


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A GitHub-flavoured Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)
