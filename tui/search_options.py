"""What the search screen's filters offer, and the query history, kept across sessions in
``.vault-engine/tui-history.json`` (no Textual)."""

from __future__ import annotations

import fcntl
import json
import logging
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from vault_engine.config import STATE_DIR
from vault_engine.model import KINDS
from vault_engine.vault import Vault

log = logging.getLogger(__name__)
ARMS = (("words + meaning", "hybrid"), ("words only", "lexical"))
HISTORY_SIZE = 100
HISTORY_FILE = "tui-history.json"  # in .vault-engine/: derived state, private to its user


@dataclass(frozen=True, slots=True)
class FilterChoices:
    """The values each filter accepts in this vault."""

    kinds: tuple[str, ...]
    projects: tuple[str, ...]
    taps: tuple[str, ...]


def filter_choices(vault: Vault) -> FilterChoices:
    """Every kind (``code`` with a code tap, as search takes it), the projects with notes in
    the index, the taps of vault-engine.toml."""
    code = ("code",) if any(tap.source == "code" for tap in vault.config.taps) else ()
    return FilterChoices((*KINDS, *code), tuple(vault.projects()), tuple(tap.name for tap in vault.config.taps))


@dataclass(slots=True)
class QueryHistory:
    """Queries the user settled on (opened a hit, or pressed Enter), newest last, each once.
    ``back``/``forward`` walk it like a shell's history; typing starts over at the end.
    ``unsaved`` are the queries added since the last save, oldest first: what a save adds to
    the file another TUI on the same vault may have written meanwhile."""

    queries: list[str] = field(default_factory=list)
    position: int = 0  # len(queries): past the newest
    unsaved: list[str] = field(default_factory=list)
    draft: str = ""  # what was typed last: past the newest, ↓ gives it back

    def typed(self, text: str) -> None:
        """The box was typed in: the walk starts over at the end (↑ had gone on from where it
        was, to an older query, and the typed one was lost, qa153)."""
        self.position, self.draft = len(self.queries), text

    def add(self, query: str) -> None:
        query = query.strip()
        if query:
            self.queries = newest_last(self.queries, [query])
            self.unsaved = newest_last(self.unsaved, [query])
        self.position, self.draft = len(self.queries), ""

    def back(self) -> str | None:
        """The query before the current position (None: nothing older)."""
        if self.position == 0:
            return None
        self.position -= 1
        return self.queries[self.position]

    def forward(self) -> str:
        """The query after the current position; past the newest, what was being typed."""
        self.position = min(self.position + 1, len(self.queries))
        return self.queries[self.position] if self.position < len(self.queries) else self.draft


def newest_last(queries: list[str], added: list[str]) -> list[str]:
    """``queries`` then ``added``, each query once (where it was added last), at most
    HISTORY_SIZE of the newest."""
    merged = [query for query in queries if query not in added]
    for query in added:
        if query in merged:
            merged.remove(query)
        merged.append(query)
    return merged[-HISTORY_SIZE:]


def history_path(root: Path) -> Path:
    """Where the vault at ``root`` keeps the TUI's query history."""
    return root / STATE_DIR / HISTORY_FILE


def load_history(path: Path) -> QueryHistory:
    """The history saved at ``path``; an empty one when there is none, or when the file
    cannot be read or is not a history (it is only a convenience: logged, never fatal)."""
    queries = saved_queries(path)
    return QueryHistory(queries, len(queries))


def saved_queries(path: Path) -> list[str]:
    """The queries in the file at ``path``, oldest first; none when it is missing or bad."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        log.warning("query history %s ignored: %s", path, exc)
        return []
    queries = data.get("queries") if isinstance(data, dict) else None
    if not isinstance(queries, list):
        log.warning("query history %s ignored: no list of queries in it", path)
        return []
    return newest_last([], [query.strip() for query in queries if isinstance(query, str) and query.strip()])


def save_history(history: QueryHistory, path: Path) -> None:
    """Add the queries of ``history`` not saved yet to the file at ``path``, keeping what
    another TUI on the same vault saved there since we read it (a bad file counts as none),
    then make ``history`` that merged list. The file is written whole (a temporary file
    renamed over it, under a lock so two saves cannot interleave), readable by its user
    only: queries can say what someone is working on. Raises OSError (``history`` unchanged)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with _locked(path.with_name(path.name + ".lock")):
        merged = newest_last(saved_queries(path), history.unsaved)
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")  # 0600
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump({"queries": merged}, out, ensure_ascii=False)
            os.replace(temp, path)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise
    history.queries, history.unsaved, history.position = merged, [], len(merged)


@contextmanager
def _locked(lock_path: Path) -> Iterator[None]:
    """An exclusive ``flock`` on ``lock_path`` (created 0600) for the ``with`` block: saves
    are a read, a merge and a rename, microseconds long; a second TUI waits for them."""
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock
