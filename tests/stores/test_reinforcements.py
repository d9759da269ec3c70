"""The durable reinforcement log (vault_engine/stores/reinforcements.py)."""

import json
import multiprocessing
import os

import pytest

from vault_engine.errors import VaultError
from vault_engine.stores.reinforcements import ReinforcementLog, replay


def _append_many(path, who, n):
    log = ReinforcementLog(path)
    for i in range(n):
        log.append({"event": "reinforce", "path": f"{who}.md", "at": float(i), "by": who, "why": "x" * 300})


def test_concurrent_appends_from_two_processes_keep_every_line(tmp_path):
    path = tmp_path / "r.jsonl"
    ctx = multiprocessing.get_context("fork")
    workers = [ctx.Process(target=_append_many, args=(path, who, 300)) for who in ("a", "b")]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    lines = path.read_text().splitlines()
    assert len(lines) == 600
    records = [json.loads(line) for line in lines]  # none interleaved: every line parses
    assert sum(r["by"] == "a" for r in records) == sum(r["by"] == "b" for r in records) == 300


def test_replay_follows_moves_and_counts(tmp_path):
    log = ReinforcementLog(tmp_path / "r.jsonl")
    log.append({"event": "reinforce", "path": "a.md", "at": 10.0, "by": "x"})
    log.append({"event": "reinforce", "path": "a.md", "at": 5.0, "by": "y"})  # older, out of order
    log.append({"event": "move", "from": "a.md", "to": "b.md", "at": 11.0})
    records, offset = log.read()
    state = replay(records)
    assert list(state) == ["b.md"]
    assert (state["b.md"].last_at, state["b.md"].count, state["b.md"].last_by) == (10.0, 2, "x")
    assert offset == log.path.stat().st_size


def test_a_damaged_or_partial_line_is_skipped_and_named(tmp_path, caplog):
    path = tmp_path / "r.jsonl"
    path.write_text('{"event": "reinforce", "path": "a.md", "at": 1}\nnot json\n{"event": "reinf')
    records, offset = ReinforcementLog(path).read()
    assert [r["path"] for r in records] == ["a.md"]
    assert offset == path.stat().st_size  # no writer holds the lock: a torn last line is read now
    assert [r.getMessage() for r in caplog.records] == [
        f"{path}: 2 lines ignored (line 2: not JSON; line 3: not JSON): fix or remove them"]


def test_a_line_nested_too_deeply_is_ignored_and_named_not_a_traceback(tmp_path, caplog):
    """`[[[...]]]` 3,000 deep (the log is shared through git) stopped every command with a
    RecursionError (qa137)."""
    path = tmp_path / "r.jsonl"
    path.write_text("[" * 3000 + "]" * 3000 + '\n{"event": "reinforce", "path": "a.md", "at": 1}\n')
    records, _ = ReinforcementLog(path).read()
    assert [r["path"] for r in records] == ["a.md"]
    assert [r.getMessage() for r in caplog.records] == [
        f"{path} line 1: JSON nested too deeply: ignored (fix or remove that line)"]


def test_a_log_that_is_a_named_pipe_is_named_never_waited_on(tmp_path, caplog):
    """Reading a FIFO waits for a writer: status, search and index had hung for good (qa139)."""
    path = tmp_path / "r.jsonl"
    os.mkfifo(path)
    log = ReinforcementLog(path)
    assert log.read() == ([], 0) and log.digest(10) == ""
    assert [r.getMessage() for r in caplog.records] == [
        f"{path} is a named pipe (FIFO), not a file: no reinforcement is read; move it aside (it stays yours)"]
    with pytest.raises(VaultError, match=r"r.jsonl is a named pipe \(FIFO\), not a file: move it aside"):
        log.append({"event": "reinforce", "path": "a.md", "at": 1})


def test_a_file_where_the_logs_folder_goes_is_named_and_the_rest_goes_on(tmp_path, caplog):
    """`status --json` had printed no JSON (qa139)."""
    (tmp_path / "ledger").touch()
    log = ReinforcementLog(tmp_path / "ledger" / "r.jsonl")
    assert (log.stamp(), log.read(), log.digest(10)) == ("", ([], 0), "")
    assert [r.getMessage() for r in caplog.records] == [
        f"{tmp_path / 'ledger'} is a file where vault-engine keeps a folder: no reinforcement is read; move it "
        "aside (it stays yours)"]
    with pytest.raises(VaultError, match="ledger is a file where vault-engine keeps a folder: move it aside"):
        log.append({"event": "reinforce", "path": "a.md", "at": 1})
    (tmp_path / "ledger").unlink()
    os.mkfifo(tmp_path / "ledger")  # said what it is, not "a file" (qa141)
    assert log.unusable() == f"{tmp_path / 'ledger'} is a named pipe (FIFO) where vault-engine keeps a folder"
    (tmp_path / "ledger").unlink()
    (tmp_path / "ledger").symlink_to(tmp_path / "gone")  # had been "a file", and --undo "nothing to undo" (qa142)
    assert log.unusable() == f"{tmp_path / 'ledger'} is a link that leads nowhere (dangling, or a loop) where " \
                             "vault-engine keeps a folder"
    (tmp_path / "ledger").unlink()
    (tmp_path / "ledger").symlink_to("ledger")  # a loop: every command had stopped with ELOOP (qa143)
    assert (log.stamp(), log.read(), log.digest(10)) == ("", ([], 0), "")


def test_an_append_after_a_last_line_without_newline_starts_a_fresh_line(tmp_path):
    path = tmp_path / "r.jsonl"
    log = ReinforcementLog(path)
    log.append({"event": "reinforce", "path": "a.md", "at": 1.0})
    path.write_bytes(path.read_bytes().rstrip(b"\n"))  # an editor, a merge, a torn write
    assert [r["path"] for r in log.read()[0]] == ["a.md"]
    log.append({"event": "reinforce", "path": "b.md", "at": 2.0})
    assert [json.loads(line)["path"] for line in path.read_text().splitlines()] == ["a.md", "b.md"]


def test_records_glued_onto_one_line_are_both_read(tmp_path, caplog):
    path = tmp_path / "r.jsonl"
    path.write_text('{"path": "a.md", "at": 1}{"path": "b.md", "at": 2}\n')
    records, _ = ReinforcementLog(path).read()
    assert [r["path"] for r in records] == ["a.md", "b.md"]
    assert caplog.records == []


@pytest.mark.parametrize("at", ["1e999", "NaN", "-Infinity", "1e300", "-5", '"yesterday"', "true",
                                '"2030-01-01T00:00:00Z"'])
def test_a_reinforcement_at_no_writable_time_is_ignored_naming_file_and_line(tmp_path, caplog, at):
    path = tmp_path / "r.jsonl"
    path.write_text('{"path": "a.md", "at": 1}\n' + f'{{"path": "b.md", "at": {at}}}\n')
    log = ReinforcementLog(path)
    first, offset = log.read(0)
    records, _ = log.read(len(path.read_text().splitlines()[0]) + 1)  # line numbers count from the top
    assert [r["path"] for r in first] == ["a.md"] and records == []
    assert list(replay(first)) == ["a.md"]
    # how it is written: "2030-01-01T00:00:00Z" had been said to be "not a time" (qa137)
    assert all(f"{path} line 2: at " in r.getMessage() and "is not a time in seconds since 1970 (as every line "
               "writes it)" in r.getMessage() for r in caplog.records) and len(caplog.records) == 2


def test_replay_ignores_a_time_no_date_can_be_written_for():
    assert replay([{"path": "a.md", "at": float("inf")}, {"path": "b.md", "at": 1e300}]) == {}


def test_an_undo_line_cancels_one_reinforcement_and_the_state_before_it_returns():
    records = [{"event": "reinforce", "path": "a.md", "at": 10.0, "by": "ann"},
               {"event": "reinforce", "path": "a.md", "at": 20.0, "by": "bob"},
               {"event": "reinforce", "path": "b.md", "at": 20.0, "by": "bob"},
               {"event": "undo", "path": "a.md", "undoes": 20.0}]
    state = replay(records)
    assert (state["a.md"].last_at, state["a.md"].count, state["a.md"].last_by) == (10.0, 1, "ann")
    assert state["b.md"].count == 1  # same time, other note: untouched
    assert "a.md" not in replay(records + [{"event": "undo", "path": "a.md", "undoes": 10.0}])
