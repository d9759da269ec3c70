"""Shared fixtures: a vault builder, a copy of sample-vault/, a CLI runner, a frozen clock."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

# Never the per-user cache of model exports (~/.cache/vault-engine): the suite writes nothing
# into the home folder. Until the session fixture below names this run's own cache, none.
os.environ["VAULT_ENGINE_CACHE"] = ""

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_VAULT = ROOT / "sample-vault"
CORPORA = ROOT.parent / "shared" / "corpora"
FROZEN_NOW = 1_790_000_000.0  # 2026-09-21T14:13:20Z: tests pass `now=` instead of sleeping


@pytest.fixture(scope="session", autouse=True)
def model_exports_of_this_run(tmp_path_factory) -> Path:
    """One cache of model exports for the whole run, as a user's machine keeps one: a vault
    indexed with the model reuses the export the first one made (about 20 s each otherwise).
    It lives in pytest's folder of this run (shared by the xdist workers, pruned by pytest).
    Tests of the export itself set VAULT_ENGINE_CACHE= (none) or a cache of their own."""
    base = tmp_path_factory.getbasetemp()
    cache = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "model-exports"
    os.environ["VAULT_ENGINE_CACHE"] = str(cache)  # CLI subprocesses inherit it
    return cache


@pytest.fixture
def make_vault(tmp_path):
    """Write ``{relative path: text}`` into a fresh vault folder and return its path."""

    def build(files: dict[str, str | bytes], config: str | None = None) -> Path:
        root = tmp_path / "vault"
        root.mkdir(exist_ok=True)
        for rel, content in files.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, encoding="utf-8")
        if config is not None:
            (root / "vault-engine.toml").write_text(config, encoding="utf-8")
        return root

    return build


@pytest.fixture
def sample_vault(tmp_path) -> Path:
    """A private copy of sample-vault/ (tests may write to it)."""
    target = tmp_path / "sample"
    shutil.copytree(SAMPLE_VAULT, target, ignore=shutil.ignore_patterns(".vault-engine"))
    return target


@pytest.fixture
def live_watcher():
    """``live_watcher(root)``: the vault at ``root`` seen as run by a live `vault-engine watch`
    (its pid lock held, its health written), without a watcher process."""
    from vault_engine.config import load_config
    from vault_engine.indexing.watch_state import pid_path, write_health

    held: list[int] = []

    def start(root: Path) -> None:
        import fcntl

        config = load_config(root)
        pid_path(config).parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(pid_path(config), os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        held.append(fd)
        from vault_engine import RELEASE

        write_health(config, {"pid": 4242, "release": RELEASE, "started": FROZEN_NOW, "state": "watching"})

    yield start
    for fd in held:
        os.close(fd)


@dataclass
class CliResult:
    code: int
    out: str
    err: str

    @property
    def json(self):
        return json.loads(self.out)


@pytest.fixture
def cli(capsys):
    """Run ``vault-engine`` in-process: ``cli("--vault", str(v), "search", "x", "--json")``."""
    from vault_engine.cli.main import main

    def run(*args: str) -> CliResult:
        try:
            code = main([str(a) for a in args])
        except SystemExit as exc:  # argparse usage errors
            code = exc.code if isinstance(exc.code, int) else 1
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)

    return run


def terminal_signals() -> None:
    """``preexec_fn`` of a child that is sent SIGINT or SIGHUP: those signals as a terminal
    gives them, whatever this run inherited. A run started in the background (``&``) ignores
    SIGINT and one under ``nohup`` SIGHUP, and so did every child: a Ctrl-C test then read
    "exit 0" and a SIGHUP test waited out its timeout."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


def run_cli_subprocess(*args: str, env: dict | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run the installed CLI in a fresh interpreter (for import-cost and exit-code tests)."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run([sys.executable, "-m", "vault_engine", *map(str, args)],
                          capture_output=True, text=True, env=full_env, timeout=timeout)


def needs_corpus(name: str) -> Path:
    """The path of a shared corpus, or skip the test cleanly when ../shared is absent."""
    path = CORPORA / name
    if not path.is_dir():
        pytest.skip(f"corpus {name} not present at {path}")
    return path
