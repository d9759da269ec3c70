"""Fixtures for the fault-injection suite: a vault big enough that ``index`` reads it with a
process pool, an index run that can be killed at a chosen point of a chosen phase, and
processes found by a tag in their environment (so a worker that outlives its parent is seen
even after it is reparented)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_cli_subprocess
from tests.daemon.conftest import lexical_vault, start_daemon  # noqa: F401  (the watcher's fixtures)

sys.path.insert(0, str(ROOT / "bench"))
from gen_vault import generate  # noqa: E402  (bench/ is not a package)

NOTES = 450  # above PARALLEL_READ_THRESHOLD (400): the first index reads in worker processes
WORDS_ONLY = "[model]\nenabled = false\n"

# The index run under test: Vault.index with a progress callback that prints each step, so
# the test can kill it exactly when a phase is under way.
DRIVER = """
import json, sys
from pathlib import Path
from vault_engine.vault import Vault

def progress(phase, done, total):
    print(json.dumps([phase, done, total]), flush=True)

root, rebuild, embed = Path(sys.argv[1]), sys.argv[2] == "1", sys.argv[3] == "1"
with Vault(root) as vault:
    report = vault.index(rebuild=rebuild, progress=progress, embed=embed)
print(json.dumps(["done", report.sections, report.sections]), flush=True)
"""


@dataclass(frozen=True)
class KillPoint:
    """Kill ``after`` seconds once ``phase`` has reported at least ``fraction`` of its total."""

    phase: str
    fraction: float
    after: float = 0.0

    def __str__(self) -> str:
        return f"{self.phase}@{self.fraction:g}" + (f"+{self.after:g}s" if self.after else "")

    def reached(self, phase: str, done: int, total: int) -> bool:
        return phase == self.phase and done >= self.fraction * total


@dataclass
class Killed:
    tag: str
    pid: int
    seen: list[tuple[str, int, int]]


def index_killed_at(root: Path, point: KillPoint, *, rebuild: bool = False,
                    embed: bool = False, timeout: float = 300) -> Killed:
    """Run an index of ``root`` and SIGKILL it (the parent only, as the OOM killer or a
    closed laptop would) the moment ``point`` is reached; fails if the run never gets there."""
    tag = uuid.uuid4().hex
    proc = subprocess.Popen(
        [sys.executable, "-c", DRIVER, str(root), "1" if rebuild else "0", "1" if embed else "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "VAULT_ENGINE_FAULT_TAG": tag})
    seen: list[tuple[str, int, int]] = []
    deadline = time.monotonic() + timeout
    try:
        for line in proc.stdout:
            phase, done, total = json.loads(line)
            seen.append((phase, done, total))
            if point.reached(phase, done, total):
                time.sleep(point.after)
                proc.send_signal(signal.SIGKILL)
                proc.wait(30)
                return Killed(tag, proc.pid, seen)
            if time.monotonic() > deadline:
                break
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
    raise AssertionError(f"the run never reached {point}: saw {seen[-5:]}; "
                         f"stderr: {proc.stderr.read()[-2000:]}")


def tagged_processes(tag: str) -> list[int]:
    """Live processes whose environment carries ``tag`` (zombies excluded)."""
    needle = f"VAULT_ENGINE_FAULT_TAG={tag}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if needle in (entry / "environ").read_bytes().split(b"\0") and \
                    (entry / "stat").read_text().split(") ")[1][0] != "Z":
                found.append(int(entry.name))
        except (OSError, IndexError):
            continue
    return found


def wait_gone(tag: str, timeout: float = 10.0) -> list[int]:
    """The tagged processes still alive after ``timeout`` seconds (none, when all is well)."""
    deadline = time.monotonic() + timeout
    while (alive := tagged_processes(tag)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return alive


def cli_json(root: Path, *args: str, timeout: float = 300) -> dict:
    done = run_cli_subprocess("--vault", root, *args, "--json", timeout=timeout)
    assert done.returncode == 0, (args, done.stdout[-1000:], done.stderr[-2000:])
    assert "Traceback" not in done.stderr, done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="session")
def generated_source(tmp_path_factory) -> Path:
    """One generated vault per session; tests copy it."""
    root = tmp_path_factory.mktemp("generated") / "vault"
    generate(root, NOTES, seed=20)
    (root / "vault-engine.toml").write_text(WORDS_ONLY, encoding="utf-8")
    return root


@pytest.fixture
def generated_vault(generated_source, tmp_path) -> Path:
    """A private copy of the generated vault, not indexed yet."""
    import shutil

    target = tmp_path / "vault"
    shutil.copytree(generated_source, target)
    return target


def vault_files(root: Path) -> dict[str, bytes]:
    """Every file the user owns (everything outside .vault-engine/), with its bytes."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".vault-engine" not in p.relative_to(root).parts}


def healthy(status: dict) -> bool:
    return not status["damage"] and status["stale"] == {"changed": 0, "missing": 0, "new": 0, "paths": [], "settings": False} \
        and status["lexical"]["agrees"]
