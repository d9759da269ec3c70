"""The durable reinforcement log (vault_engine/stores/reinforcements.py)."""

import json
import multiprocessing

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
    assert offset == log.size()


def test_a_damaged_or_partial_line_is_skipped(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"event": "reinforce", "path": "a.md", "at": 1}\nnot json\n{"event": "reinf')
    records, offset = ReinforcementLog(path).read()
    assert [r["path"] for r in records] == ["a.md"]
    assert offset == len('{"event": "reinforce", "path": "a.md", "at": 1}\nnot json\n')


def test_an_undo_line_cancels_one_reinforcement_and_the_state_before_it_returns():
    records = [{"event": "reinforce", "path": "a.md", "at": 10.0, "by": "ann"},
               {"event": "reinforce", "path": "a.md", "at": 20.0, "by": "bob"},
               {"event": "reinforce", "path": "b.md", "at": 20.0, "by": "bob"},
               {"event": "undo", "path": "a.md", "undoes": 20.0}]
    state = replay(records)
    assert (state["a.md"].last_at, state["a.md"].count, state["a.md"].last_by) == (10.0, 1, "ann")
    assert state["b.md"].count == 1  # same time, other note: untouched
    assert "a.md" not in replay(records + [{"event": "undo", "path": "a.md", "undoes": 10.0}])
