"""A writer killed between Whoosh's commit and its ledger's: readers keep answering, `status`
says an earlier index run was interrupted and what repairs it, and the next writer (`index`,
or the watcher's batch) rebuilds Whoosh from the ledger and says why.

The kill is real: a subprocess that sends itself SIGKILL the moment Whoosh has committed,
inside the run's ledger transaction (the window an outside audit hit by killing `watch` and
`index --no-embed` at random moments). Every other command runs in a fresh interpreter. No
timing is asserted; waits are bounded polls.
"""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

from tests.conftest import run_cli_subprocess
from tests.daemon.conftest import DaemonProcess, wait_for
from tests.faults.conftest import cli_json, healthy
from tests.faults.test_damage import EXPECTED, QUERY, garble, whoosh_file
from vault_engine.vault import Vault

# The CLI with a SIGKILL right after a WhooshIndex method returns: ``apply`` (Whoosh has
# committed, the ledger has not) or ``reset`` (a repair removed Whoosh's folder).
KILLER = """
import os, signal, sys
from vault_engine.stores.lexical import WhooshIndex

method = sys.argv[1]
original = getattr(WhooshIndex, method)

def then_die(self, *args, **kwargs):
    original(self, *args, **kwargs)
    os.kill(os.getpid(), signal.SIGKILL)

setattr(WhooshIndex, method, then_die)
from vault_engine.cli.main import main
sys.exit(main(sys.argv[2:]))
"""

LAST = "scratch/last.md"  # indexed last: its sections hold the ledger's highest ids
NEW = "scratch/new.md"  # written in its place by the run that is killed
MODIFIED = "specs/query-cache.md"


def killer(root, *args: str, after: str = "apply") -> list[str]:
    return [sys.executable, "-c", KILLER, after, "--vault", str(root), *args]


def run_killed(root, *args: str, after: str = "apply") -> None:
    done = subprocess.run(killer(root, *args, after=after), capture_output=True, text=True, timeout=120)
    assert done.returncode == -signal.SIGKILL, (done.returncode, done.stderr[-2000:])


def write(root, rel: str, text: str) -> None:
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(text, encoding="utf-8")


def change_the_vault(root) -> None:
    """Delete the note with the highest section ids, write a new one, modify another: the
    new sections' ids are the ones SQLite would hand out again after the deletion."""
    (root / LAST).unlink()
    write(root, NEW, "# New\n\nThe quokkaflux note.\n\n## More\n\nquokkaflux again.\n")
    with (root / MODIFIED).open("a", encoding="utf-8") as note:
        note.write("\n## Added\n\nzebrafrost was added.\n")


@pytest.fixture
def interrupted(lexical_vault):
    """The sample vault (words only) after an `index --no-embed` killed between the commits."""
    write(lexical_vault, LAST, "# Last\n\nThe wombatglyph note.\n\n## Tail\n\nwombatglyph, twice.\n")
    cli_json(lexical_vault, "index")
    change_the_vault(lexical_vault)
    run_killed(lexical_vault, "index", "--no-embed")
    return lexical_vault


def paths(found: dict) -> set[str]:
    return {hit["path"] for hit in found["hits"]}


def assert_readers_answer(root) -> None:
    """Old or new state, never a section under another's id, and every reader exits 0."""
    for arms in (("--lexical",), ()):
        found = cli_json(root, "search", QUERY, *arms)
        assert found["hits"][0]["path"] == EXPECTED, found
        assert any("interrupted" in n for n in found["notices"]), found["notices"]
    assert paths(cli_json(root, "search", "quokkaflux", "--lexical")) <= {NEW}
    assert paths(cli_json(root, "search", "wombatglyph", "--lexical")) <= {LAST}
    assert cli_json(root, "show", EXPECTED)["path"] == EXPECTED
    cli_json(root, "resume", "--project", "drone-audio")
    cli_json(root, "deadend", "check", "retry the drop test on carpet", "--project", "drone-audio")
    cli_json(root, "status")


def test_readers_answer_after_index_is_killed_between_the_commits(interrupted):
    assert_readers_answer(interrupted)


def test_status_says_an_earlier_run_was_interrupted_and_what_repairs_it(interrupted):
    status = cli_json(interrupted, "status")
    assert len(status["damage"]) == 1, status["damage"]
    line = status["damage"][0]
    assert "interrupted" in line and "`vault-engine index`" in line and "watcher" in line, line
    assert "outside vault-engine" not in line
    text = run_cli_subprocess("--vault", interrupted, "status")
    assert text.returncode == 0 and "outside vault-engine" not in text.stdout, text.stdout
    # searches read it (the test above): it is out of step, not "unreadable" as status said
    assert status["lexical"]["sections"] > 0 and not status["lexical"]["agrees"]
    (lexical,) = [line for line in text.stdout.splitlines() if line.startswith("lexical")]
    assert "unreadable" not in lexical and f"{status['lexical']['sections']} sections  OUT OF STEP" in lexical, lexical
    # a step behind, readable: not "DAMAGED", which contradicted the stopped run's "nothing is damaged"
    assert status["lexical"]["interrupted"] and "DAMAGED" not in text.stdout
    assert text.stdout.splitlines()[1].startswith("BEHIND     the lexical index is out of step"), text.stdout


# The CLI whose ledger finds the disk full right after Whoosh committed (a run on a tmpfs
# filled mid-index stopped so): SQLite's own error, as the run's commit raises it.
DISK_FILLS = """
import sqlite3, sys
from vault_engine.stores.lexical import WhooshIndex

original = WhooshIndex.apply

def then_the_disk_is_full(self, *args, **kwargs):
    original(self, *args, **kwargs)
    raise sqlite3.OperationalError("database or disk is full")

WhooshIndex.apply = then_the_disk_is_full
from vault_engine.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def test_an_index_run_the_full_disk_stopped_leaves_the_index_behind_not_damaged(lexical_vault):
    write(lexical_vault, LAST, "# Last\n\nThe wombatglyph note.\n\n## Tail\n\nwombatglyph, twice.\n")
    cli_json(lexical_vault, "index")
    change_the_vault(lexical_vault)
    done = subprocess.run([sys.executable, "-c", DISK_FILLS, "--vault", str(lexical_vault), "index", "--no-embed"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and done.stderr.startswith("vault-engine: the disk is full"), done.stderr
    assert "nothing is damaged" in done.stderr
    status = run_cli_subprocess("--vault", lexical_vault, "status").stdout
    assert "DAMAGED" not in status and "OUT OF STEP" in status, status  # as the run said
    assert_readers_answer(lexical_vault)
    cli_json(lexical_vault, "index")  # the next run, with room, makes it whole
    assert healthy(cli_json(lexical_vault, "status"))


def test_status_does_not_judge_the_words_index_while_another_process_writes(interrupted):
    """Whoosh's files change before the ledger's record of them: a healthy `index` run and a
    watcher catching up were called damaged for 9 s (qa39 F2). Search does not judge then
    either (integrity.check_before_reading)."""
    import fcntl
    import os

    from vault_engine.layout import STATE_DIR, WRITE_LOCK

    fd = os.open(interrupted / STATE_DIR / WRITE_LOCK, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # what a writer holds while it writes
        status = cli_json(interrupted, "status")
        assert status["damage"] == [] and status["lexical"]["agrees"], status["damage"]
    finally:
        os.close(fd)
    assert cli_json(interrupted, "status")["damage"]  # judged again once nobody writes


def test_the_next_index_repairs_it_and_says_a_run_was_interrupted(interrupted):
    notices = cli_json(interrupted, "index")["notices"]
    assert any("interrupted" in n for n in notices) and not any("outside" in n for n in notices), notices
    assert healthy(cli_json(interrupted, "status"))
    assert paths(cli_json(interrupted, "search", "quokkaflux", "--lexical")) == {NEW}
    assert paths(cli_json(interrupted, "search", "wombatglyph", "--lexical")) == set()
    assert MODIFIED in paths(cli_json(interrupted, "search", "zebrafrost", "--lexical"))


def test_the_watchers_next_batch_repairs_it_and_says_a_run_was_interrupted(interrupted):
    with Vault(interrupted) as vault:  # what the watcher calls for each batch
        notices = vault.index_paths([LAST, NEW, MODIFIED]).notices
        assert any("interrupted" in n for n in notices) and not any("outside" in n for n in notices)
        assert healthy(vault.status())
    assert paths(cli_json(interrupted, "search", "quokkaflux", "--lexical")) == {NEW}


def test_a_watcher_killed_mid_batch_leaves_readers_answering(lexical_vault, start_daemon, tmp_path):
    write(lexical_vault, LAST, "# Last\n\nThe wombatglyph note.\n")
    cli_json(lexical_vault, "index")
    log = tmp_path / "killed-watch.err"
    proc = subprocess.Popen(killer(lexical_vault, "watch", "--json"), stdout=open(log.with_suffix(".out"), "w"),
                            stderr=open(log, "w"))
    try:
        DaemonProcess(lexical_vault, proc, log).wait_ready()
        change_the_vault(lexical_vault)
        assert proc.wait(60) == -signal.SIGKILL, log.read_text()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    assert_readers_answer(lexical_vault)
    start_daemon(lexical_vault)  # its catch-up repairs Whoosh
    wait_for(lambda: healthy(cli_json(lexical_vault, "status")), timeout=60, what="the watcher's repair")
    assert paths(cli_json(lexical_vault, "search", "quokkaflux", "--lexical")) == {NEW}


def test_whoosh_files_changed_after_an_interrupted_run_are_still_damage(interrupted):
    whoosh = interrupted / ".vault-engine" / "index" / "current" / "whoosh"
    garble(max(whoosh.glob("*.trm"), key=lambda p: p.stat().st_size))  # the first index's: kept since
    search = run_cli_subprocess("--vault", interrupted, "search", QUERY, "--lexical")
    assert search.returncode == 1 and "outside vault-engine" in search.stderr, search.stderr
    assert len(search.stderr.strip().splitlines()) == 1


def test_a_table_of_contents_deleted_after_an_interrupted_run_is_damage(interrupted):
    whoosh_file(interrupted, ".toc").unlink()  # else a search would answer an empty index
    search = run_cli_subprocess("--vault", interrupted, "search", QUERY, "--lexical")
    assert search.returncode == 1 and "`vault-engine index`" in search.stderr, search.stderr


def test_a_repair_killed_mid_rebuild_is_refused_until_the_next_index(interrupted):
    run_killed(interrupted, "index", "--no-embed", after="reset")
    search = run_cli_subprocess("--vault", interrupted, "search", QUERY, "--lexical")
    assert search.returncode == 1, search.stdout
    assert "interrupted" in search.stderr and "`vault-engine index`" in search.stderr, search.stderr
    notices = cli_json(interrupted, "index")["notices"]
    assert any("interrupted" in n for n in notices), notices
    assert healthy(cli_json(interrupted, "status"))
