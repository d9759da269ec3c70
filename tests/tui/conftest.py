"""TUI fixtures: an indexed copy of sample-vault/, a frozen clock, and a way to let workers finish."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from vault_engine.vault import Vault

TUI_NOW = 1_795_953_600.0  # 2026-11-29T12:00:00Z: sample-vault's dates are in Oct/Nov 2026
WIDE, SMALL = (120, 36), (80, 24)


@pytest.fixture
def anyio_backend() -> str:
    """Async tests run with anyio's pytest plugin (anyio comes with httpx, via notion-client)."""
    return "asyncio"


@pytest.fixture(autouse=True)
def lasting_notifications(request, monkeypatch) -> None:
    """Toasts stay until the test has read them: a test that counts them read none where a
    loaded machine took over Textual's 5 s between the toast and the count. (Not in a
    snapshot, which draws the screen as a user sees it then.)"""
    from textual.app import App

    if "snap_compare" not in request.fixturenames:
        monkeypatch.setattr(App, "NOTIFICATION_TIMEOUT", 600)


@pytest.fixture
def indexed_vault(sample_vault: Path, monkeypatch) -> Path:
    """A private copy of sample-vault/, indexed by words (no model), under a fake $HOME so
    the header shows a stable ``~/sample``."""
    monkeypatch.setenv("HOME", str(sample_vault.parent))
    with Vault(sample_vault) as vault:
        vault.index(embed=False, now=TUI_NOW)
    return sample_vault


@pytest.fixture
def make_app(indexed_vault: Path):
    """``make_app()`` builds the app as the CLI does, on the indexed copy, clock frozen."""
    from tui import create_app

    def build(root: Path | None = None, semantic: bool = False):
        return create_app(root or indexed_vault, now=TUI_NOW, semantic=semantic)

    return build


async def settle(pilot, rounds: int = 3) -> None:
    """Let debounce timers, workers and the messages they post run to the end."""
    from textual.worker import WorkerCancelled

    for _ in range(rounds):
        await pilot.pause(0.05)
        while True:
            try:
                await pilot.app.workers.wait_for_complete()
                break
            except WorkerCancelled:  # an exclusive worker replaced by a newer one: wait again
                continue
    await pilot.pause()


def quiet(app) -> bool:
    """No worker pending or running, and no message waiting in the app or in any widget of
    the screen: what a snapshot must wait for (a pause, or Textual's own idle test, which
    reads CPU use, is fooled by a loaded machine: the process looks idle while its queues
    are still full)."""
    nodes = [app, *app.screen.walk_children(with_self=True)]
    return all(worker.is_finished for worker in app.workers) and not any(n.message_queue_size for n in nodes)


async def wait_until(pilot, condition: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    """Settle until ``condition()`` holds and the app is :func:`quiet` twice in a row (a
    message handled can post another); fail saying ``what`` was waited for after ``timeout``
    seconds, never pass on a guess."""
    deadline, calm = time.monotonic() + timeout, 0
    while calm < 2:
        await settle(pilot, rounds=1)
        calm = calm + 1 if condition() and quiet(pilot.app) else 0
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout:.0f} s for {what}")


async def index_in_a_terminal(app, pilot, root: Path) -> None:
    """An index run in a terminal beside the app, then the poll that notices it."""
    from tests.conftest import run_cli_subprocess

    done = run_cli_subprocess("--vault", root, "index", "--no-embed")
    assert done.returncode == 0, done.stderr
    app.poll_freshness()  # what the poll timer does each second


async def index_with_f5(app, pilot, root: Path) -> None:
    await pilot.press("f5")


# The two ways an index reaches an open app, for a test that must hold after either
INDEX_RUNS = pytest.mark.parametrize("index", [index_in_a_terminal, index_with_f5], ids=["terminal", "F5"])


def ledger_lines(root: Path) -> list[str]:
    """The durable reinforcement log of a vault, one JSON document per line."""
    log = root / ".vault-engine" / "ledger" / "reinforcements.jsonl"
    return log.read_text(encoding="utf-8").splitlines() if log.exists() else []


@pytest.fixture
def code_vault(sample_vault: Path, monkeypatch) -> Path:
    """sample-vault/ with a little code beside it (tests/mcp's code tap: src/shop/orders.py)
    and a note saying why ``OrderBook.place`` checks first, indexed by words."""
    from tests.mcp.conftest import CODE_TAP, ORDERS

    monkeypatch.setenv("HOME", str(sample_vault.parent))
    config = sample_vault / "vault-engine.toml"
    config.write_text(config.read_text() + CODE_TAP)
    (sample_vault / "src" / "shop").mkdir(parents=True)
    (sample_vault / "src" / "shop" / "orders.py").write_text(ORDERS, encoding="utf-8")
    (sample_vault / "memory" / "order-checks.md").write_text(
        "# Order checks\n\n`OrderBook.place` checks every order before placing it: a rejected order "
        "must never reach the book.\n", encoding="utf-8")
    with Vault(sample_vault) as vault:
        vault.index(embed=False, now=TUI_NOW)
    return sample_vault


WALK = """\
def ping(n):
    if n:
        pong(n - 1)


def pong(n):
    if n:
        ping(n - 1)


def countdown(n):
    if n:
        countdown(n - 1)


run = ping(3)
"""


@pytest.fixture
def call_vault(code_vault: Path) -> Path:
    """code_vault with calls that go round: ``ping`` and ``pong`` call each other, and
    ``countdown`` calls itself; module-level code calls ``ping``."""
    (code_vault / "src" / "shop" / "walk.py").write_text(WALK, encoding="utf-8")
    with Vault(code_vault) as vault:
        vault.index(embed=False, now=TUI_NOW)
    return code_vault
