"""Fixtures for the daemon tests: a real `vault-engine watch` process on a temp vault, a CLI
probe that also reports which heavy modules it imported, and waiting on conditions."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

PROBE = (
    "import sys\n"
    "from vault_engine.cli.main import main\n"
    "code = main(sys.argv[1:])\n"
    "sys.stdout.flush()\n"
    "loaded = [m for m in ('vault_engine.vault', 'whoosh', 'torch', 'sqlite3') if m in sys.modules]\n"
    "print('LOADED ' + ','.join(loaded), file=sys.stderr)\n"
    "sys.exit(code)\n"
)


@dataclass
class Probe:
    code: int
    out: str
    err: str  # stderr without the LOADED line
    loaded: set[str]

    @property
    def json(self):
        return json.loads(self.out)


def probe_cli(*args: str, env: dict | None = None) -> Probe:
    """Run the CLI in a fresh interpreter; report exit code, stdout, stderr and imports."""
    done = subprocess.run([sys.executable, "-c", PROBE, *map(str, args)], capture_output=True,
                          text=True, timeout=120, env={**os.environ, **(env or {})})
    lines = done.stderr.splitlines()
    loaded = set(lines[-1].removeprefix("LOADED ").split(",")) - {""} if lines else set()
    return Probe(done.returncode, done.stdout, "\n".join(lines[:-1]), loaded)


def wait_for(condition, timeout: float = 20.0, what: str = "condition"):
    """Poll ``condition`` until it returns something truthy (returned), or fail."""
    deadline = time.monotonic() + timeout
    while True:
        found = condition()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} not met within {timeout} s")
        time.sleep(0.05)


@dataclass
class DaemonProcess:
    root: Path
    proc: subprocess.Popen
    log: Path

    @property
    def socket(self) -> Path:
        return self.root / ".vault-engine" / "daemon.sock"

    def health(self) -> dict:
        try:
            return json.loads((self.root / ".vault-engine" / "watch.json").read_text())
        except (OSError, ValueError):
            return {}

    def events(self) -> list[dict]:
        """The JSON lines `watch --json` printed so far."""
        text = self.log.with_suffix(".out").read_text()
        return [json.loads(line) for line in text.splitlines() if line.startswith("{")]

    def wait_ready(self, timeout: float = 60.0) -> None:
        def ready():
            if self.proc.poll() is not None:
                raise AssertionError(f"watch exited {self.proc.returncode}: {self.log.read_text()}")
            health = self.health()  # this process's, not one left by a killed watcher
            return health.get("pid") == self.proc.pid and health.get("state") == "watching"
        wait_for(ready, timeout, "daemon ready")

    def idle(self) -> dict:
        """Wait until every change seen so far is applied; the health then."""
        def settled():
            h = self.health()
            applied_last = (h.get("last_applied") or 0) >= (h.get("last_event") or 0)
            return h.get("pending") == 0 and applied_last and h
        return wait_for(settled, what="watcher idle")

    def stop(self, sig: int = signal.SIGTERM) -> int:
        self.proc.send_signal(sig)
        return self.proc.wait(30)


@pytest.fixture
def start_daemon(tmp_path):
    """``start_daemon(root)``: a running `vault-engine watch --json` on ``root``, stopped at
    the end of the test whatever happened."""
    started: list[DaemonProcess] = []

    def start(root: Path, wait: bool = True) -> DaemonProcess:
        log = tmp_path / f"watch{len(started)}.err"
        proc = subprocess.Popen(
            [sys.executable, "-m", "vault_engine", "--vault", str(root), "watch", "--json"],
            stdout=open(log.with_suffix(".out"), "w"), stderr=open(log, "w"))
        daemon = DaemonProcess(root, proc, log)
        started.append(daemon)
        if wait:
            daemon.wait_ready()
        return daemon

    yield start
    for daemon in started:
        if daemon.proc.poll() is None:
            daemon.proc.kill()
            daemon.proc.wait(10)


@pytest.fixture
def lexical_vault(sample_vault) -> Path:
    """sample-vault/ indexed lexically, with the model off so the daemon stays light."""
    config = sample_vault / "vault-engine.toml"
    config.write_text(config.read_text() + "\n[model]\nenabled = false\n")
    from vault_engine.vault import Vault

    with Vault(sample_vault) as vault:
        vault.index(embed=False)
    return sample_vault
