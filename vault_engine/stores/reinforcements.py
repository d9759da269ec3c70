"""The durable reinforcement log: ``.vault-engine/ledger/reinforcements.jsonl``.

The one piece of state the notes cannot give back, so it lives outside the derived index and
survives ``index --rebuild`` and ``rm -r .vault-engine/index``. Append-only, one JSON object a
line. Each reinforcement is its own line (time, who, why), so a future policy, such as a
longer half-life for documents reinforced often, needs no format change. When a reinforced
note is renamed, a ``move`` line makes its history follow it. A reinforcement taken back
(the TUI's undo) is never erased: an ``undo`` line names it (path and time) and replay
skips it, so the log keeps what happened.

Concurrent writers: each line is one ``write()`` on an ``O_APPEND`` descriptor under an
exclusive ``flock``, so lines from two processes never interleave or get lost. A reader takes
the shared lock, so it never sees half a line being written.

The log may also be edited by hand, merged, or torn by a crash: an append starts on a fresh
line even when the last one lacks its newline, a reader splits records glued onto one line,
and a line it still cannot use is named (file and line) in one warning, never dropped
silently.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import math
import os
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from vault_engine.errors import VaultError
from vault_engine.paths import make_state_folder, not_a_file

FORMAT_VERSION = 1

# The latest time a date can be written for (9999-12-31T23:59:59Z): a later or non-finite
# `at`, or a negative one, is not a time anyone reinforced at, and would break every date shown.
MAX_AT = 253_402_300_799.0
EVENTS = ("reinforce", "move", "undo")

log = logging.getLogger(__name__)


def valid_at(at: object) -> bool:
    """Whether ``at`` is a Unix time a reinforcement can have been made at."""
    return (isinstance(at, (int, float)) and not isinstance(at, bool)
            and math.isfinite(at) and 0 <= at <= MAX_AT)


def record_problem(record: object) -> str | None:
    """Why replay cannot use ``record`` (None when it can)."""
    if not isinstance(record, dict):
        return "not a JSON object"
    event = record.get("event", "reinforce")
    if event not in EVENTS:
        return f"unknown event {event!r}"
    if event == "reinforce" and not (isinstance(record.get("path"), str) and record["path"]):
        return "a reinforcement without a path"
    if event in ("reinforce", "undo"):
        key = "at" if event == "reinforce" else "undoes"
        if not valid_at(record.get(key)):
            # "2030-01-01T00:00:00Z" is a time, written as no line of the log writes it (qa137)
            return f"{key} {record.get(key)!r} is not a time in seconds since 1970 (as every line writes it)"
    return None


@dataclass(frozen=True, slots=True)
class Reinforced:
    """Replayed state of one note: when it was last reinforced, how often, by whom."""

    path: str
    last_at: float
    count: int
    last_by: str | None = None
    last_why: str | None = None


class LogMark(NamedTuple):
    """How far a reader got into the log: the byte offset, a digest of the bytes before it,
    and the file's size and time when it looked (its quick "nothing changed")."""

    offset: int
    digest: str
    stamp: str


class ReinforcementLog:
    def __init__(self, path: Path):
        self.path = path

    def unusable(self) -> str | None:
        """What stands where the log goes, when something does: a named pipe (every command
        had waited on it forever) or a file where its folder goes (status printed no JSON;
        qa139). None when the log is a file, or not written yet."""
        what = not_a_file(self.path)
        if what:
            return f"{self.path} is {what}, not a file"
        in_the_way = next((p for p in reversed(self.path.parents) if p.is_symlink() and not p.exists()
                           or p.exists() and not p.is_dir()), None)
        if in_the_way is None:
            return None
        return f"{in_the_way} is {not_a_file(in_the_way) or 'a file'} where vault-engine keeps a folder"

    def refuse_unusable(self) -> None:
        """One line for what stands where the log goes, before anything is written to it."""
        if problem := self.unusable():
            raise VaultError(f"{problem}: move it aside (it stays yours) and run the command again")

    def stamp(self) -> str:
        """The file's size and modification time: equal, it was not written since."""
        try:
            info = self.path.stat()
        except OSError:  # none there, or a link in a loop: `unusable` says which (qa143)
            return ""
        return f"{info.st_size}:{info.st_mtime_ns}"

    def digest(self, length: int) -> str:
        """A digest of the first ``length`` bytes ("" when the file is shorter or missing):
        the same, what was read before is still there, and only appends followed."""
        if self.unusable():
            return ""
        try:
            with open(self.path, "rb") as f:
                head = f.read(length)
        except FileNotFoundError:
            return ""
        return hashlib.blake2b(head, digest_size=16).hexdigest() if len(head) == length else ""

    def append(self, record: dict[str, Any]) -> None:
        """Append one record as one line, atomically with respect to other writers."""
        line = (json.dumps({"v": FORMAT_VERSION, **record}, ensure_ascii=False) + "\n").encode()
        self.refuse_unusable()
        make_state_folder(self.path.parent)
        fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                # The last line lost its newline (an editor, a merge, a torn write): gluing
                # onto it would make both records one unreadable line.
                line = b"\n" + line
            os.write(fd, line)
            os.fsync(fd)
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def read(self, offset: int = 0) -> tuple[list[dict[str, Any]], int]:
        """Records from byte ``offset`` on, and the offset after the last one read.

        Records glued onto one line are split; a line that still cannot be used is left out
        and named in one warning (the rest still counts)."""
        if problem := self.unusable():
            log.warning("%s: no reinforcement is read; move it aside (it stays yours)", problem)
            return [], 0
        try:
            with open(self.path, "rb") as f:
                fcntl.flock(f, fcntl.LOCK_SH)  # no append is half-written while we read
                f.seek(offset)
                data = f.read()
                problems = []
                records = []
                for number, raw in enumerate(data.split(b"\n")):
                    found, problem = decode_line(raw)
                    records.extend(found)
                    if problem:
                        problems.append((number, problem))
                if problems:
                    f.seek(0)
                    first_line = f.read(offset).count(b"\n") + 1
                    self._warn([(first_line + n, why) for n, why in problems])
        except FileNotFoundError:
            return [], 0
        return records, offset + len(data)

    def _warn(self, problems: list[tuple[int, str]]) -> None:
        if len(problems) == 1:
            (line, why), = problems
            log.warning("%s line %d: %s: ignored (fix or remove that line)", self.path, line, why)
            return
        shown = "; ".join(f"line {line}: {why}" for line, why in problems[:3])
        more = f"; and {len(problems) - 3} more" if len(problems) > 3 else ""
        log.warning("%s: %d lines ignored (%s%s): fix or remove them", self.path, len(problems), shown, more)


def decode_line(raw: bytes) -> tuple[list[dict[str, Any]], str | None]:
    """The usable records on one line (several when appends were glued together), and why
    the line, or part of it, could not be used."""
    try:
        text = raw.decode()
    except UnicodeDecodeError:
        return [], "not UTF-8"
    decoder = json.JSONDecoder()
    records: list[dict[str, Any]] = []
    problem = None
    pos = len(text) - len(text.lstrip())
    while pos < len(text):
        try:
            record, pos = decoder.raw_decode(text, pos)
        except ValueError:
            return records, problem or "not JSON"
        except RecursionError:  # `[[[...` 3,000 deep had stopped every command with a traceback (qa137)
            return records, problem or "JSON nested too deeply"
        why = record_problem(record)
        if why:
            problem = problem or why
        else:
            records.append(record)
        pos = len(text) - len(text[pos:].lstrip())
    return records, problem


@dataclass(slots=True)
class _Held:
    """Reinforcements a note holds: one line of the log, or (``count`` > 1) what an earlier
    read folded; ``names`` are the paths the note has had since, the first its own then."""

    at: float
    by: str | None
    why: str | None
    count: int
    names: list[str]


def standing(records: Iterable[dict[str, Any]],
             state: dict[str, Reinforced] | None = None) -> dict[str, list[_Held]]:
    """Every note's reinforcements still standing, under the path the note has now (pure).

    A ``move`` carries them to the new path; an ``undo`` takes back one made at ``undoes`` of
    the note that had ``path`` then, under any name it has had (after a rename, ``reinforce
    --undo`` had found nothing to take back, qa149), wherever the undo stands in ``records``
    (a merge may put it first). ``state``: what an earlier read folded, carried as it is."""
    held: dict[str, list[_Held]] = {
        path: [_Held(r.last_at, r.last_by, r.last_why, r.count, [path])] for path, r in (state or {}).items()}
    records = list(records)
    for record in records:
        event = record.get("event", "reinforce")
        if event == "reinforce" and record.get("path") and valid_at(record.get("at")):
            path = record["path"]
            held.setdefault(path, []).append(_Held(float(record["at"]), record.get("by"), record.get("why"), 1, [path]))
        elif event == "move" and record.get("from") in held and record.get("to"):
            moved = held.pop(record["from"])
            for entry in moved:
                entry.names.append(record["to"])
            held.setdefault(record["to"], []).extend(moved)
    undone = Counter((r.get("path"), r.get("undoes")) for r in records if r.get("event") == "undo")
    if undone:
        for path, entries in list(held.items()):
            held[path] = [e for e in entries if not _taken_back(e, undone)]
            if not held[path]:
                del held[path]
    return held


def _taken_back(entry: _Held, undone: Counter) -> bool:
    if entry.count != 1:
        return False  # folded before: an undo makes the caller read the whole log (:func:`has_undo`)
    for name in entry.names:
        if undone[(name, entry.at)]:
            undone[(name, entry.at)] -= 1
            return True
    return False


def replay(records: Iterable[dict[str, Any]],
           state: dict[str, Reinforced] | None = None) -> dict[str, Reinforced]:
    """Fold log records into per-path state (pure; ``state``, what an earlier read folded, is
    updated and returned): each note's standing reinforcements (:func:`standing`), counted,
    the latest named. An undo may cancel a line read before: replay the whole log when
    records hold one (see :func:`has_undo`)."""
    state = {} if state is None else state
    held = standing(records, state)
    state.clear()
    for path, entries in held.items():
        last = max(reversed(entries), key=lambda e: e.at)  # of two at one time, the later line
        state[path] = Reinforced(path, last.at, sum(e.count for e in entries), last.by, last.why)
    return state


def has_undo(records: Iterable[dict[str, Any]]) -> bool:
    """Whether any record takes a reinforcement back (the state must then be replayed whole)."""
    return any(record.get("event") == "undo" for record in records)
