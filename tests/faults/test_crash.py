"""kill -9 of ``index`` at points of each phase: its workers die with it, nothing is left
holding the writer lock, and plain ``index`` (the CLI, no hand deletion) recovers in full.

The phases: reading (in worker processes: the vault is above the parallel threshold), after
the ledger transaction and before Whoosh, inside the Whoosh commit (its writer processes),
after Whoosh. Three shapes of run: a first index and a rebuild (both build a new generation
beside the live one) and an incremental index in place.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest

from tests.conftest import run_cli_subprocess
from tests.faults.conftest import (
    NOTES,
    KillPoint,
    cli_json,
    healthy,
    index_killed_at,
    tagged_processes,
    vault_files,
    wait_gone,
)

READING = KillPoint("read", 0.01)  # the first chunk is back: both workers are alive
READ_MOST = KillPoint("read", 0.9)
BEFORE_WHOOSH = KillPoint("lexical", 0.0)  # the ledger transaction is committed
IN_WHOOSH = KillPoint("lexical", 0.0, after=0.25)  # Whoosh's writers are at work
AFTER_WHOOSH = KillPoint("lexical", 1.0)  # before the generation switch
POINTS = [READING, READ_MOST, BEFORE_WHOOSH, IN_WHOOSH, AFTER_WHOOSH]
MARKER = "quokkaflux"


def add_marker(root):
    (root / "faults").mkdir(exist_ok=True)
    (root / "faults" / "marker.md").write_text(f"# Marker\n\nThe {MARKER} note.\n", encoding="utf-8")


def assert_recovers(root, *, notes: int, term: str = MARKER, expect_hits: int = 1) -> dict:
    """Plain ``index`` repairs whatever the kill left; the index then agrees with the vault."""
    report = cli_json(root, "index")
    status = cli_json(root, "status")
    assert healthy(status), status
    assert status["notes"] == notes
    found = cli_json(root, "search", term, "--lexical", "-k", "50")
    assert len({hit["path"] for hit in found["hits"]}) >= expect_hits, found
    generations = [p.name for p in (root / ".vault-engine" / "index").iterdir()]
    assert len([g for g in generations if g.startswith("g")]) <= 2, generations
    return report


def assert_workers_died(killed) -> None:
    assert wait_gone(killed.tag) == [], "index workers outlived their parent"


@pytest.mark.parametrize("point", [READING, IN_WHOOSH, AFTER_WHOOSH], ids=str)
def test_a_killed_first_index_is_finished_by_plain_index(generated_vault, point):
    add_marker(generated_vault)
    before = vault_files(generated_vault)
    killed = index_killed_at(generated_vault, point)
    assert_workers_died(killed)
    # A first index builds a generation that is swapped in only when complete: no index yet.
    assert not (generated_vault / ".vault-engine" / "index" / "current").exists()
    assert_recovers(generated_vault, notes=NOTES + 1)
    assert vault_files(generated_vault) == before  # nothing the user wrote changed


@pytest.mark.parametrize("point", POINTS, ids=str)
def test_a_killed_incremental_index_is_repaired_by_plain_index(generated_vault, point):
    add_marker(generated_vault)
    cli_json(generated_vault, "index")
    for note in sorted(generated_vault.rglob("*.md")):  # every note changes: a parallel read
        note.write_text(note.read_text(encoding="utf-8") + "\nzebrafrost was added.\n", encoding="utf-8")
    killed = index_killed_at(generated_vault, point)
    assert_workers_died(killed)
    assert_recovers(generated_vault, notes=NOTES + 1, term="zebrafrost", expect_hits=50)


@pytest.mark.parametrize("point", [READING, BEFORE_WHOOSH, AFTER_WHOOSH], ids=str)
def test_a_killed_rebuild_leaves_the_live_index_answering(generated_vault, point):
    add_marker(generated_vault)
    cli_json(generated_vault, "index")
    killed = index_killed_at(generated_vault, point, rebuild=True)
    assert_workers_died(killed)
    # Before any repair: the old generation is still the live one, whole.
    status = cli_json(generated_vault, "status")
    assert healthy(status) and status["notes"] == NOTES + 1, status
    assert cli_json(generated_vault, "search", MARKER, "--lexical")["hits"][0]["path"] == "faults/marker.md"
    index_root = generated_vault / ".vault-engine" / "index"
    assert len([p for p in index_root.iterdir() if p.name.startswith("g")]) == 2  # live + interrupted
    assert_recovers(generated_vault, notes=NOTES + 1)
    # The interrupted build's folder went with the repair.
    assert len([p for p in index_root.iterdir() if p.name.startswith("g")]) == 1


@pytest.mark.parametrize("delay", [0.4, 1.5])
def test_kill_9_of_the_cli_index_at_any_moment(generated_vault, delay):
    """The reported reproduction: SIGKILL the `index --no-embed` process 0.4-3 s in."""
    tag = f"cli-kill-{delay}-{time.monotonic_ns()}"
    import os

    proc = subprocess.Popen([sys.executable, "-m", "vault_engine", "--vault", str(generated_vault),
                             "index", "--no-embed"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env={**os.environ, "VAULT_ENGINE_FAULT_TAG": tag})
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    proc.wait(30)
    assert wait_gone(tag) == []
    done = run_cli_subprocess("--vault", generated_vault, "index", "--no-embed", timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    status = cli_json(generated_vault, "status")
    assert healthy(status) and status["notes"] == NOTES, status


def test_sigterm_to_the_parent_alone_stops_its_workers(generated_vault):
    import os

    tag = f"cli-term-{time.monotonic_ns()}"
    proc = subprocess.Popen([sys.executable, "-m", "vault_engine", "--vault", str(generated_vault),
                             "index", "--no-embed"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "VAULT_ENGINE_FAULT_TAG": tag})
    deadline = time.monotonic() + 60
    while len(tagged_processes(tag)) < 2 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.02)  # until the read pool's workers exist
    proc.send_signal(signal.SIGTERM)
    proc.wait(60)
    assert wait_gone(tag) == []
    assert "Traceback" not in proc.stderr.read()
    done = run_cli_subprocess("--vault", generated_vault, "index", "--no-embed", timeout=120)
    assert done.returncode == 0, done.stderr
    assert healthy(cli_json(generated_vault, "status"))
