"""The durable reinforcement log: ``.vault-engine/ledger/reinforcements.jsonl``.

The one piece of state the notes cannot give back, so it lives outside the derived index and
survives ``index --rebuild`` and ``rm -r .vault-engine/index``. Append-only, one JSON object a
line. Each reinforcement is its own line (time, who, why), so a future policy, such as a
longer half-life for documents reinforced often, needs no format change. When a reinforced
note is renamed, a ``move`` line makes its history follow it. A reinforcement taken back
(the TUI's undo) is never erased: an ``undo`` line names it (path and time) and replay
skips it, so the log keeps what happened.

Concurrent writers: each line is one ``write()`` on an ``O_APPEND`` descriptor under an
exclusive ``flock``, so lines from two processes never interleave or get lost.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FORMAT_VERSION = 1


@dataclass(frozen=True, slots=True)
class Reinforced:
    """Replayed state of one note: when it was last reinforced, how often, by whom."""

    path: str
    last_at: float
    count: int
    last_by: str | None = None
    last_why: str | None = None


class ReinforcementLog:
    def __init__(self, path: Path):
        self.path = path

    def append(self, record: dict[str, Any]) -> None:
        """Append one record as one line, atomically with respect to other writers."""
        line = (json.dumps({"v": FORMAT_VERSION, **record}, ensure_ascii=False) + "\n").encode()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            os.write(fd, line)
            os.fsync(fd)
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def size(self) -> int:
        try:
            return self.path.stat().st_size
        except FileNotFoundError:
            return 0

    def read(self, offset: int = 0) -> tuple[list[dict[str, Any]], int]:
        """Records from byte ``offset`` on, and the offset after the last complete line."""
        try:
            with open(self.path, "rb") as f:
                f.seek(offset)
                data = f.read()
        except FileNotFoundError:
            return [], 0
        end = data.rfind(b"\n") + 1  # a line still being written is left for next time
        records = []
        for raw in data[:end].splitlines():
            try:
                record = json.loads(raw)
            except ValueError:
                continue  # a damaged line is skipped, the rest still counts
            if isinstance(record, dict):
                records.append(record)
        return records, offset + end


def replay(records: Iterable[dict[str, Any]],
           state: dict[str, Reinforced] | None = None) -> dict[str, Reinforced]:
    """Fold log records into per-path state (pure; ``state`` is updated and returned).

    An ``undo`` record cancels one reinforcement of its ``path`` at time ``undoes``, wherever
    it stands in ``records``: replay the whole log when records hold an undo (see
    :func:`has_undo`), since ``state`` alone cannot tell what the undone one replaced."""
    state = {} if state is None else state
    records = list(records)
    undone = Counter((r.get("path"), r.get("undoes")) for r in records if r.get("event") == "undo")
    for record in records:
        event = record.get("event", "reinforce")
        if event == "reinforce" and record.get("path") and isinstance(record.get("at"), (int, float)):
            path = record["path"]
            if undone[(path, record["at"])]:
                undone[(path, record["at"])] -= 1
                continue
            was = state.get(path)
            count = (was.count if was else 0) + 1
            if was is None or record["at"] >= was.last_at:
                state[path] = Reinforced(path, float(record["at"]), count, record.get("by"), record.get("why"))
            else:
                state[path] = Reinforced(path, was.last_at, count, was.last_by, was.last_why)
        elif event == "move" and record.get("from") in state and record.get("to"):
            moved = state.pop(record["from"])
            state[record["to"]] = Reinforced(record["to"], moved.last_at, moved.count,
                                             moved.last_by, moved.last_why)
    return state


def has_undo(records: Iterable[dict[str, Any]]) -> bool:
    """Whether any record takes a reinforcement back (the state must then be replayed whole)."""
    return any(record.get("event") == "undo" for record in records)
