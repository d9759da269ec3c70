"""The change planner: what changed between the vault on disk and the ledger. Pure functions.

Two steps, so only suspect files are ever read:

1. :func:`~vault_engine.sources.vault.changes.find_suspects` compares size, mtime and the
   inode's change time (``FileStat`` says why the mtime is not enough): a file whose stat is
   unchanged is trusted (beside the scan, so queries that ask "what changed since the index?"
   use it without the indexer).
2. :func:`plan_changes` takes the content hashes of the suspects and decides: same hash and a
   new stat is a *touch* (hashed, never parsed: reading.py); a new path whose content equals
   a vanished path's is a *move* (a rename keeps the note's identity, it is not a delete plus
   an add); so is a new path that carries a vanished note's Notion page id
   (:func:`pair_by_identity`).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, replace

from vault_engine.paths import name_key, note_stem
from vault_engine.sources.vault.changes import Suspects
from vault_engine.stores.ledger import KnownFile


@dataclass(frozen=True, slots=True)
class ChangePlan:
    """What to apply. ``new``, ``modified``, ``deleted``, ``moved`` and ``unchanged`` count
    notes only (what ``index`` reports and ``status`` counts); files that cannot be notes
    are ``refused`` (read now and unreadable: recorded as skipped, and a note that was
    indexed leaves the index) or ``forgotten`` (skipped before, gone from disk now)."""

    new: tuple[str, ...] = ()  # not a note in the index before: unseen, or skipped until now
    modified: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    moved: tuple[tuple[str, str], ...] = ()  # (old path, new path)
    touched: tuple[str, ...] = ()  # content unchanged, stat changed
    unchanged: int = 0
    refused: tuple[str, ...] = ()
    forgotten: tuple[str, ...] = ()
    left_out: tuple[str, ...] = ()  # the refused that were notes of the index: they leave it

    @property
    def is_empty(self) -> bool:
        return not (self.new or self.modified or self.deleted or self.moved or self.touched
                    or self.refused or self.forgotten)


def plan_changes(suspects: Suspects, known: Mapping[str, KnownFile],
                 hashes: Mapping[str, str | None]) -> ChangePlan:
    """Classify suspects given their content hashes (None: unreadable now). A known file
    without a hash is one the ledger keeps as skipped: readable now, it is a new note.

    A vanished path and a new path with the same hash pair up as a move; when several
    candidates share a hash, the one with the same file name wins, then the first by path.
    """
    new, modified, touched, refused = [], [], [], []
    for path in suspects.changed:
        was = known.get(path)
        digest = hashes.get(path)
        if digest is None:
            refused.append(path)
        elif was is None or was.hash is None:
            new.append(path)
        elif digest == was.hash:
            touched.append(path)
        else:
            modified.append(path)
    vanished: dict[str, list[str]] = defaultdict(list)
    forgotten = []
    for path in suspects.missing:
        digest = known[path].hash
        if digest is not None:
            vanished[digest].append(path)
        else:
            forgotten.append(path)
    moved, added = [], []
    origins = {digest: _Origins(paths) for digest, paths in vanished.items()}
    for path in new:
        origin = origins.get(hashes.get(path) or "")
        old = origin.take(path) if origin is not None else None
        if old is not None:
            moved.append((old, path))
        else:
            added.append(path)
    paired = {old for old, _ in moved}
    deleted = [p for p in suspects.missing if p not in paired and known[p].hash is not None]
    left_out = tuple(p for p in refused if p in known and known[p].hash is not None)
    return ChangePlan(tuple(added), tuple(modified), tuple(deleted), tuple(moved),
                      tuple(touched), suspects.unchanged, tuple(refused), tuple(forgotten), left_out)


def pair_by_identity(plan: ChangePlan, new_ids: Mapping[str, str], deleted_ids: Mapping[str, str]) -> ChangePlan:
    """A deleted note and a new one carrying the same identity (a Notion page's ``notion_id``)
    are one note renamed, whatever their content: a page renamed in Notion changes its file
    name and its title line at once, so no hash pairs them, but its reinforcements and its
    place in the ledger must follow it."""
    by_id = {ident: path for path, ident in deleted_ids.items() if path in plan.deleted}
    renamed = [(by_id.pop(new_ids[path]), path) for path in plan.new if new_ids.get(path) in by_id]
    if not renamed:
        return plan
    olds, news = {old for old, _ in renamed}, {new for _, new in renamed}
    return replace(plan, new=tuple(p for p in plan.new if p not in news),
                   deleted=tuple(p for p in plan.deleted if p not in olds), moved=plan.moved + tuple(renamed))


LIKENESS_MIN = 0.5  # shared words, of all either holds: git calls a file renamed at 50% similarity


def rename_candidates(plan: ChangePlan) -> list[tuple[str, str]]:
    """The (deleted, new) pairs :func:`pair_by_likeness` compares: of one file name, the only
    note of that name to go and the only one to come in this run; or, whatever their names,
    the run's only deleted note and its only new one (a note renamed and edited in one
    watcher burst, as Obsidian does when it updates a note's links to itself, came as "1 new,
    1 deleted" and lost its reinforcement, qa49)."""
    if len(plan.deleted) == 1 and len(plan.new) == 1:
        return [(plan.deleted[0], plan.new[0])]
    gone: dict[str, list[str]] = defaultdict(list)
    came: dict[str, list[str]] = defaultdict(list)
    for path in plan.deleted:
        gone[name_key(note_stem(path))].append(path)
    for path in plan.new:
        came[name_key(note_stem(path))].append(path)
    return [(gone[name][0], news[0]) for name, news in came.items() if len(news) == 1 and len(gone.get(name, ())) == 1]


def pair_by_likeness(plan: ChangePlan, pairs: list[tuple[str, str]],
                     words: Mapping[str, frozenset[str]]) -> ChangePlan:
    """A deleted note and a new one of the same file name whose words are at least
    ``LIKENESS_MIN`` shared are one note moved and edited (`git mv` then an edit, or a rename
    merged with a teammate's edit): it keeps its identity and reinforcements, as a move
    without an edit does. Before, it was a new note and a deleted one (qa25 #3).

    Of two names, the new note must also keep every word of the old one but its old name (a
    rename with its links to itself updated, and lines added): two daily notes of one template
    share half their words, and deleting one while writing the next had handed the new day the
    old one's identity and reinforcements (qa172)."""
    renamed = [(old, new) for old, new in pairs
               if _likeness(old_words := words.get(old, frozenset()), new_words := words.get(new, frozenset()))
               >= LIKENESS_MIN and (_same_name(old, new) or old_words - new_words <= note_words(note_stem(old)))]
    if not renamed:
        return plan
    olds, news = {old for old, _ in renamed}, {new for _, new in renamed}
    return replace(plan, new=tuple(p for p in plan.new if p not in news),
                   deleted=tuple(p for p in plan.deleted if p not in olds), moved=plan.moved + tuple(renamed))


def _same_name(a: str, b: str) -> bool:
    return name_key(note_stem(a)) == name_key(note_stem(b))


_WORD = re.compile(r"\w+")


def note_words(text: str) -> frozenset[str]:
    """A text's words, whatever their case: what a note moved and edited keeps of itself."""
    return frozenset(_WORD.findall(text.casefold()))


def _likeness(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


class _Origins:
    """The vanished paths of one content hash, handed to the new paths of that hash: the one
    of the same file name first, then the first by path. Each is taken in constant time, so
    8,000 notes of one template moved at once take no quadratic time (they had taken 8 s in
    this step alone, inside the writer's lock, qa149)."""

    def __init__(self, paths: list[str]):
        self.in_order = sorted(paths)
        self.next = 0
        self.by_name: dict[str, list[str]] = defaultdict(list)
        for path in reversed(self.in_order):  # popped from the end: the first by path first
            self.by_name[note_stem(path)].append(path)
        self.taken: set[str] = set()

    def take(self, new_path: str) -> str | None:
        same_name = self.by_name.get(note_stem(new_path), [])
        while same_name and same_name[-1] in self.taken:
            same_name.pop()
        if same_name:
            return self._took(same_name.pop())
        while self.next < len(self.in_order) and self.in_order[self.next] in self.taken:
            self.next += 1
        return self._took(self.in_order[self.next]) if self.next < len(self.in_order) else None

    def _took(self, path: str) -> str:
        self.taken.add(path)
        return path
