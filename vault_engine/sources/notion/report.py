"""What a Notion import or sync did, as plain values the CLI and the TUI render."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vault_engine.model import IndexReport
from vault_engine.paths import name_key, note_stem

if TYPE_CHECKING:
    from vault_engine.stores.ledger.links import LinkRow


@dataclass(frozen=True, slots=True)
class Problem:
    """Something in the input that was skipped; ``reason`` says what to do about it."""

    path: str
    reason: str

    def line(self) -> str:
        """The one line printed for it: ``path: reason``."""
        return f"{self.path}: {self.reason}"


@dataclass(frozen=True, slots=True)
class UnresolvedLink:
    """A link of an imported page that points at nothing in the vault yet."""

    page: str  # vault path of the note holding the link
    target: str  # the link target as written in the source
    reason: str


@dataclass(frozen=True, slots=True)
class NotionReport:
    """What one ``notion import`` or ``notion sync`` did."""

    action: str  # "import" | "sync"
    source: str
    into: str
    pages: int = 0
    databases: int = 0
    new: tuple[str, ...] = ()
    updated: tuple[str, ...] = ()
    unchanged: int = 0
    edited: tuple[str, ...] = ()  # pages whose notes were kept as they are: edited in the vault
    renamed: tuple[tuple[str, str], ...] = ()
    not_fetched: int = 0
    gone: tuple[str, ...] = ()
    pruned: tuple[str, ...] = ()
    kept_edited: tuple[str, ...] = ()  # gone, but edited in the vault: never pruned
    prune: bool = False  # whether the run was asked to prune
    attachments: int = 0
    links_relative: int = 0
    links_resolved: int = 0
    unresolved: tuple[UnresolvedLink, ...] = ()
    problems: tuple[Problem, ...] = ()
    notices: tuple[str, ...] = ()
    index: IndexReport | None = None

    def to_json(self) -> dict[str, Any]:
        """The report as the ``--json`` output of ``notion import`` and ``notion sync``."""
        return {
            "action": self.action, "source": self.source, "into": self.into,
            "pages": self.pages, "databases": self.databases,
            "new": list(self.new), "updated": list(self.updated), "unchanged": self.unchanged,
            "edited": list(self.edited), "renamed": [{"from": a, "to": b} for a, b in self.renamed],
            "not_fetched": self.not_fetched, "gone": list(self.gone), "pruned": list(self.pruned),
            "kept_edited": list(self.kept_edited), "prune": self.prune,
            "attachments": self.attachments,
            "links": {"relative": self.links_relative, "resolved": self.links_resolved,
                      "unresolved": [{"page": u.page, "target": u.target, "reason": u.reason}
                                     for u in self.unresolved]},
            "problems": [{"path": p.path, "reason": p.reason} for p in self.problems],
            "notices": list(self.notices),
            "index": self.index.to_json() if self.index else None,
        }


def broken_by_renames(renamed: Iterable[tuple[str, str]], unresolved: Iterable[LinkRow]) -> tuple[str, ...]:
    """A line for each note whose link names a page's note by the name it had before a rename
    (the import never edits a note of yours: ``[[Write website copy eda8f8f2]]`` broke without a
    word, qa32 F3)."""
    now_named = {name_key(note_stem(old)): note_stem(new) for old, new in renamed}
    return tuple(f"{link.source}:{link.line}: links {link.target!r}, a page's note renamed to "
                 f"{now_named[name_key(note_stem(link.target))]!r} by this run: update the link"
                 for link in unresolved if name_key(note_stem(link.target)) in now_named)
