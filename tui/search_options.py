"""What the search screen's filters offer, and the session's query history (no Textual)."""

from __future__ import annotations

from dataclasses import dataclass, field

from vault_engine.model import KINDS
from vault_engine.vault import Vault

ARMS = (("words + meaning", "hybrid"), ("words only", "lexical"))
HISTORY_SIZE = 100


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
