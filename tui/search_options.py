"""What the search screen's filters offer, and the query history, kept across sessions in
``.vault-engine/tui-history.json`` (no Textual)."""

from __future__ import annotations

import json
import logging
import os
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
    """Every kind, the projects with notes in the index, the taps of vault-engine.toml."""
    return FilterChoices(tuple(KINDS), tuple(vault.projects()), tuple(tap.name for tap in vault.config.taps))


@dataclass(slots=True)
class QueryHistory:
    """Queries the user settled on (opened a hit, or pressed Enter), newest last, each once.
    ``back``/``forward`` walk it like a shell's history; typing starts over at the end."""

    queries: list[str] = field(default_factory=list)
    position: int = 0  # len(queries): past the newest

    def add(self, query: str) -> None:
        query = query.strip()
        if query:
            if query in self.queries:
                self.queries.remove(query)
            self.queries = (self.queries + [query])[-HISTORY_SIZE:]
        self.position = len(self.queries)

    def back(self) -> str | None:
        """The query before the current position (None: nothing older)."""
        if self.position == 0:
            return None
        self.position -= 1
        return self.queries[self.position]

    def forward(self) -> str:
        """The query after the current position; past the newest, an empty box."""
        self.position = min(self.position + 1, len(self.queries))
        return self.queries[self.position] if self.position < len(self.queries) else ""


def history_path(root: Path) -> Path:
    """Where the vault at ``root`` keeps the TUI's query history."""
    return root / STATE_DIR / HISTORY_FILE


def load_history(path: Path) -> QueryHistory:
    """The history saved at ``path``; an empty one when there is none, or when the file
    cannot be read or is not a history (it is only a convenience: logged, never fatal)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return QueryHistory()
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        log.warning("query history %s ignored: %s", path, exc)
        return QueryHistory()
    queries = data.get("queries") if isinstance(data, dict) else None
    if not isinstance(queries, list):
        log.warning("query history %s ignored: no list of queries in it", path)
        return QueryHistory()
    history = QueryHistory()
    for query in queries:
        if isinstance(query, str):
            history.add(query)
    return history


def save_history(history: QueryHistory, path: Path) -> None:
    """Write ``history`` to ``path`` whole (a temporary file renamed over it), readable by
    its user only: queries can say what someone is working on. Raises OSError."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            os.fchmod(out.fileno(), 0o600)  # an older temp file may have been created wider
            json.dump({"queries": history.queries}, out, ensure_ascii=False)
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
