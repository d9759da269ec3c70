"""The indexer: scan, read what changed (reading.py: each key by its tap's reader), plan, and
apply the plan to the ledger and Whoosh.

The same code serves ``vault-engine index`` and the watcher. Order of writes: a mark that a
Whoosh commit is under way, committed alone; then one ledger transaction that spans Whoosh's
commit and records its fingerprint, clearing the mark. A run killed between Whoosh's commit
and the ledger's is told by the mark from damage, read through, and repaired by the next run
(integrity.py).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace

from vault_engine.config import SETTINGS_META, Config
from vault_engine.errors import from_newer_release
from vault_engine.indexing.code_sync import add_code_files, sync_code
from vault_engine.indexing.integrity import begin_lexical_commit, end_lexical_commit, lexical_damage, record_new_times
from vault_engine.indexing.planner import (
    ChangePlan,
    note_words,
    pair_by_identity,
    pair_by_likeness,
    plan_changes,
    rename_candidates,
)
from vault_engine.indexing.reading import Progress, ReadResult, read_many
from vault_engine.model import SkippedFile
from vault_engine.parsing.frontmatter import property_words
from vault_engine.parsing.links import LinkResolver
from vault_engine.parsing.note import EXTRACTION_VERSION, extraction_key, newer_extraction
from vault_engine.parsing.sections import section_body
from vault_engine.paths import name_key, note_stem
from vault_engine.sources.code.files import code_taps, file_of
from vault_engine.sources.vault.changes import FileStat, find_suspects
from vault_engine.sources.vault.files import Scan, scan_paths, scan_vault, still_skipped
from vault_engine.stores.ledger import Ledger
from vault_engine.stores.lexical import LexicalDoc, WhooshIndex

log = logging.getLogger(__name__)

EXTRACTION = "extraction"  # ledger meta: the extraction_key its notes were parsed with
LINKED = "linked_notes"  # ledger meta: the scan's notes that are symlinks or hard links (Scan.linked)


@dataclass(slots=True)
class AppliedChanges:
    """What an apply changed, for the stores that follow (vectors) and for the report."""

    plan: ChangePlan
    skipped: list[SkippedFile] = field(default_factory=list)
    changed_note_ids: set[int] = field(default_factory=set)
    removed_section_ids: list[int] = field(default_factory=list)
    lexical_repaired: str | None = None  # why Whoosh was rebuilt from the ledger
    notices: list[str] = field(default_factory=list)  # e.g. a source file with a syntax error
    read_again: tuple[str, ...] = ()  # unchanged on disk, read again (in plan.modified): reported apart


class Indexer:
    """Applies change plans to the ledger and the lexical index."""

    def __init__(self, config: Config, ledger: Ledger, lexical: WhooshIndex,
                 on_plan: Callable[[ChangePlan], None] | None = None):
        self.config = config
        self.ledger = ledger
        self.lexical = lexical
        # Told each plan before it is applied: the caller's moment to record its renames
        # durably and to start slow work the plan will need (the model, while the words are written).
        self.on_plan = on_plan

    def run(self, *, progress: Progress | None = None, now: float | None = None) -> AppliedChanges:
        """Bring the ledger and Whoosh up to date with the vault. (A rebuild is a new index
        generation, built by this same run on an empty ledger: Vault.index.)"""
        scan = scan_vault(self.config)
        add_code_files(self.config, scan)
        return self.apply_scan(scan, progress=progress, now=now)

    def apply_scan(self, scan: Scan, *, progress: Progress | None = None,
                   now: float | None = None) -> AppliedChanges:
        """Apply a scan of the whole vault; its ``skipped`` is every file still skipped, those
        skipped by earlier runs too, as ``status`` lists them (and a file that vanished while
        this run read it)."""
        known = self.ledger.known_files()
        changes = self._apply(scan, known, first_index=not known, progress=progress, now=now,
                              reread=bool(known) and self.ledger.get_meta(EXTRACTION) != extraction_key(self.config))
        every = {s.path: s for s in still_skipped(self.ledger, scan)} | {s.path: s for s in changes.skipped}
        changes.skipped = sorted(every.values(), key=lambda s: s.path)
        changes.notices += [f"{folder}/ is a vault of its own (its vault-engine.toml or index): its notes are indexed "
                            f"here too; to leave them out, add \"{folder}/**\" to exclude in this vault's "
                            "vault-engine.toml" for folder in sorted(set(scan.nested))]
        self._remember_linked(scan.linked)
        return changes

    def apply_paths(self, paths: Iterable[str], *, now: float | None = None) -> AppliedChanges:
        """Apply what changed at ``paths`` only (the watcher's plan: a save must not rescan
        10,000 files). Paths are vault-relative files or folders; a folder stands for
        everything under it, on disk and in the ledger. Give both sides of a rename: the
        planner pairs them by content hash, so the note keeps its identity."""
        roots = given = {p.strip("/") for p in paths} - {""}
        # A symlinked (or hard-linked) note changes when its target is written, and the event
        # names the target only: compare every such note on each batch (they are few), so
        # the watcher gives what `index`, which compares every file's stat, gives.
        roots = roots | self._linked()
        known = self.ledger.known_files()
        scan = scan_paths(self.config, roots)
        roots |= add_code_files(self.config, scan, roots)  # prefixed keys of a code tap inside the vault
        roots |= _vanished_twins(scan, known, self.config)
        kept = {a for a in self.ledger.attachment_paths() if not _under_any(a, roots)}
        scan.attachments = sorted(kept | set(scan.attachments))  # the ledger keeps the full list
        subset = {p: k for p, k in known.items() if _under_any(p, roots)}
        changes = self._apply(scan, subset, first_index=not known, progress=None, now=now)
        self._remember_linked(scan.linked)  # every one known was compared: roots held them
        # A broken link compared only because it is one is said by the batch that names it
        changes.skipped = [s for s in changes.skipped if s.path not in scan.linked or _under_any(s.path, given)]
        return changes

    def _linked(self) -> set[str]:
        return set(json.loads(self.ledger.get_meta(LINKED) or "[]"))

    def _remember_linked(self, linked: set[str]) -> None:
        if linked != self._linked():
            with self.ledger.transaction():
                self.ledger.set_meta(LINKED, json.dumps(sorted(linked)))

    def _apply(self, scan: Scan, known: dict, *, first_index: bool, progress: Progress | None,
               now: float | None, reread: bool = False) -> AppliedChanges:
        """Apply the plan for ``scan`` against ``known``; ``reread``: every note is read and
        written again, unchanged ones too (the parser or the config it reads changed)."""
        newer = newer_extraction(self.ledger.get_meta(EXTRACTION))
        if newer:  # each would read every note again its own way, over the other's
            raise from_newer_release(self.config.index_dir, f"notes read by extraction {newer}, "
                                     f"this one reads {EXTRACTION_VERSION}")
        suspects = find_suspects(scan.notes, {} if reread else known)
        if reread:
            suspects = replace(suspects, missing=tuple(sorted(set(known) - set(scan.notes))))
        unreadable = _there_but_unreadable(suspects.missing, scan)
        reads = read_many(self.config, {p: scan.origin[p] for p in suspects.changed}, progress,
                          {p: scan.notes[p].size for p in suspects.changed},
                          {} if reread else {p: known[p].hash for p in suspects.changed if p in known})
        if unreadable:  # unreadable, as a `chmod 000` note is, not deleted
            suspects = replace(suspects, missing=tuple(p for p in suspects.missing if p not in unreadable),
                               changed=suspects.changed + tuple(unreadable))
            reads |= {p: ReadResult(p, problem=why) for p, why in unreadable.items()}
        gone = {p for p, r in reads.items() if r.vanished}
        if gone:  # deleted since the scan (a `git checkout` under way): deletions, not skipped files (qa61)
            reads = {p: r for p, r in reads.items() if p not in gone}
            suspects = replace(suspects, changed=tuple(p for p in suspects.changed if p not in gone),
                               new=tuple(p for p in suspects.new if p not in gone),
                               missing=suspects.missing + tuple(p for p in sorted(gone) if p in known))
        plan = plan_changes(suspects, known, {p: None if r.problem else r.digest for p, r in reads.items()})
        plan = pair_by_identity(plan, {p: str(r.note.meta["notion_id"]).lower() for p, r in reads.items()
                                       if r.note is not None and r.note.meta.get("notion_id")},
                                self.ledger.notion_ids_of(plan.deleted) if plan.deleted and plan.new else {})
        pairs = rename_candidates(plan)
        if pairs:
            plan = pair_by_likeness(plan, pairs, self._words_of(pairs, reads))
        read_again = plan.touched if reread else ()
        if reread:
            plan = replace(plan, modified=plan.modified + plan.touched, touched=())
        if self.on_plan is not None:
            self.on_plan(plan)
        old_attachments = set(self.ledger.attachment_paths())
        attachments_changed = old_attachments != set(scan.attachments)
        needs_repair = lexical_damage(self.ledger, self.lexical)
        if not needs_repair:
            record_new_times(self.ledger, self.lexical)
        if plan.is_empty and not attachments_changed and not needs_repair:
            sync_code(self.config, self.ledger, {}, (), ())  # repairs a lost or stale code store
            if self.ledger.last_index() is None:
                with self.ledger.transaction():  # a vault with no notes yet: an empty index is valid
                    self.ledger.mark_indexed(now or time.time())
                    self.ledger.set_meta(EXTRACTION, extraction_key(self.config))
            if self.ledger.get_meta(SETTINGS_META) != self.config.settings_key:  # e.g. an exclude matching nothing
                with self.ledger.transaction():
                    self.ledger.set_meta(SETTINGS_META, self.config.settings_key)
            return AppliedChanges(plan, skipped=self._skipped(scan, reads))
        skipped = self._skipped(scan, reads)
        # One ledger transaction spans the Whoosh commit, which lands first: readers see the
        # old ledger with the old Whoosh, then the new Whoosh a moment before the new ledger
        # (Vault.search asks again when a hit is not in the ledger yet). A kill in between
        # leaves the old ledger, Whoosh a step ahead and the mark committed here: readers
        # answer, and the next run rebuilds Whoosh (integrity.py).
        begin_lexical_commit(self.ledger, rebuild=bool(needs_repair) or reread)
        with self.ledger.transaction():
            changes = self._apply_to_ledger(plan, reads, scan, now)
            changes.skipped = skipped
            changes.read_again = read_again
            if reread:
                changes.notices.append("every note was read again: this vault-engine reads notes differently, "
                                       "or [kinds], [taps], projects_dir or max_file_mb changed, since the last index")
            parsed_code = {p: r.code for p, r in reads.items() if r.code is not None}
            changes.notices += [f"{p}: {r.code.error}" for p, r in sorted(reads.items())
                                if r.code is not None and r.code.error]
            # Parsed notes are in the ledger now: let them go before Whoosh forks its two
            # writers, which would otherwise each carry a copy-on-write share of them (a
            # 10,000-note index peaked at 589 MB PSS with them, 462 MB without; bench_core.py).
            del reads
            self._resolve_links(plan, changes.changed_note_ids,
                                old_attachments ^ set(scan.attachments), full=first_index)
            self._apply_to_lexical(changes, repair=needs_repair, rebuild=reread, progress=progress)
        cleared = [*plan.deleted, *(old for old, _ in plan.moved)]
        sync_code(self.config, self.ledger, parsed_code, changes.changed_note_ids, cleared)
        return changes

    # -- ledger ---------------------------------------------------------------------------

    def _apply_to_ledger(self, plan, reads, scan, now) -> AppliedChanges:
        changes = AppliedChanges(plan)
        ledger = self.ledger
        gone = [*plan.deleted, *plan.modified, *plan.refused, *(old for old, _ in plan.moved)]
        changes.removed_section_ids = ledger.section_ids_of_paths(gone)
        above = ledger.max_section_id()  # new sections never take a removed one's id
        # page ids whose note may change: one of several notes carrying an id holds it (settled below)
        page_ids = set(ledger.notion_ids_of(gone).values())
        page_ids |= {str(r.note.meta["notion_id"]).lower() for r in reads.values()
                     if r.note is not None and r.note.meta.get("notion_id")}
        with ledger.transaction():
            for path in plan.deleted + plan.forgotten:
                ledger.delete_note(path)
            for path in plan.touched:
                stat = reads[path].stat
                ledger.touch_note(path, size=stat.size, mtime_ns=stat.mtime_ns, ctime_ns=stat.ctime_ns)
            for old, new in plan.moved:
                note_id = ledger.note_id(old)
                self._write_note(reads[new], note_id, changes, now, above)
            for path in plan.new + plan.modified + plan.refused:  # refused: recorded as skipped
                self._write_note(reads[path], None, changes, now, above)
            if page_ids:
                from vault_engine.sources.notion.pages import page_note_rank

                ledger.settle_notion_ids(page_ids, page_note_rank)
            ledger.set_attachments(scan.attachments)
            ledger.mark_indexed(now or time.time())
            ledger.set_meta(EXTRACTION, extraction_key(self.config))
            ledger.set_meta(SETTINGS_META, self.config.settings_key)
        return changes

    def _write_note(self, result: ReadResult, note_id, changes: AppliedChanges, now, above: int) -> None:
        assert not result.same  # read without parsing: the plan makes it a touch, never a write
        if result.note is None:
            stat = result.stat or FileStat(0, 0, 0)
            self.ledger.record_skipped(result.path, result.problem or "unreadable", size=stat.size,
                                       mtime_ns=stat.mtime_ns, ctime_ns=stat.ctime_ns)
            return
        assert result.stat is not None and result.digest is not None and result.tap is not None  # read with it
        note_id = self.ledger.upsert_note(
            result.note, tap=result.tap, size=result.stat.size, mtime_ns=result.stat.mtime_ns,
            ctime_ns=result.stat.ctime_ns, digest=result.digest, note_id=note_id, now=now, section_ids_above=above)
        changes.changed_note_ids.add(note_id)

    def _words_of(self, pairs: list[tuple[str, str]], reads: dict[str, ReadResult]) -> dict[str, frozenset[str]]:
        """The words of each deleted note (as the ledger holds it) and new note (as read) of
        ``pairs``, to tell a moved and edited note from two different notes of one name."""
        words = {}
        for old, new in pairs:
            note_id, read = self.ledger.note_id(old), reads[new].note
            if note_id is not None and read is not None:
                words[old] = note_words(" ".join(s.text for s in self.ledger.sections_of(note_id)))
                words[new] = note_words(" ".join(s.text for s in read.sections))
        return words

    def _skipped(self, scan: Scan, reads: dict[str, ReadResult]) -> list[SkippedFile]:
        said = {s.path for s in scan.problems}  # (an indexed note the scan cannot stat: once)
        return [*scan.problems, *(SkippedFile(p, r.problem) for p, r in sorted(reads.items())
                                  if r.problem and p not in said)]

    # -- links ----------------------------------------------------------------------------

    def _resolve_links(self, plan: ChangePlan, note_ids: set[int], attachments: set[str],
                       full: bool) -> None:
        """Re-resolve only links whose answer can have changed: those written in changed
        notes, and those whose target name is a note or attachment that came or went."""
        keys: set[str] | None = None
        if not full:
            names = [*plan.new, *plan.deleted, *plan.refused, *(p for pair in plan.moved for p in pair)]
            keys = {name_key(note_stem(p)) for p in names}
            keys |= {name_key(p.rsplit("/", 1)[-1]) for p in attachments}
            keys |= {name_key(note_stem(p)) for p in attachments}
        rows = self.ledger.links_to_resolve(keys, note_ids)
        if not rows:
            return
        resolver = LinkResolver(self.ledger.note_paths(), self.ledger.attachment_paths())
        from vault_engine.model import LinkOccurrence

        updates = []
        for link in rows:
            occurrence = LinkOccurrence("", link.target, link.subpath, None, False, link.style, 0)
            found = resolver.resolve(occurrence, link.source)
            updates.append((found.target_path, int(found.ambiguous), link.id))
        with self.ledger.transaction():
            self.ledger.set_link_targets(updates)

    # -- lexical --------------------------------------------------------------------------

    def _apply_to_lexical(self, changes: AppliedChanges, *, repair: str | None, rebuild: bool,
                          progress: Progress | None) -> None:
        """The changed notes' sections into Whoosh; all of them, into an emptied index, for a
        ``repair`` (Whoosh disagreed with the ledger) or a ``rebuild`` (every note was read
        again: deleting and adding each document would leave Whoosh's BM25 statistics counting
        every deleted one until its segment is merged)."""
        if repair or rebuild:
            changes.lexical_repaired = repair
            self.lexical.reset()
            deleted: Iterable[int] = ()
            docs = self.lexical_docs(None)
        else:
            deleted, docs = changes.removed_section_ids, self.lexical_docs(changes.changed_note_ids)
        if progress:
            progress("lexical", 0, len(docs))
        self.lexical.apply(deleted, docs)
        if progress:
            progress("lexical", len(docs), len(docs))
        end_lexical_commit(self.ledger, self.lexical)

    def lexical_docs(self, note_ids: Iterable[int] | None) -> list[LexicalDoc]:
        if note_ids is not None:
            note_ids = list(note_ids)
            if not note_ids:
                return []
        rows = list(self.ledger.sections_for_index(note_ids))
        tags = self.ledger.tags_of({r.note_id for r in rows})
        # A note's properties go with its first section, where they are written: in every
        # section they would lift all of a long note's sections together.
        return [LexicalDoc(id=r.id, note_id=r.note_id, title=r.title, headings=" > ".join(json.loads(r.heading_path)),
                           body=section_body(r.text, r.heading), tags=" ".join(tags.get(r.note_id, ())), path=r.path,
                           kind=r.kind, project=r.project or "", tap=r.tap,
                           properties=property_words(json.loads(r.meta)) if r.ord == 0 and r.meta else "")
                for r in rows]


def _vanished_twins(scan: Scan, known: dict, config: Config) -> set[str]:
    """Known notes now gone from disk with the size of a note new in ``scan``: the other
    half of a rename whose two events came apart (watchdog holds back an unpaired rename
    source for half a second), so that the planner can pair them by hash as a move."""
    sizes = {stat.size for path, stat in scan.notes.items() if path not in known}
    if not sizes:
        return set()
    taps = code_taps(config)
    return {path for path, was in known.items() if was.size in sizes and was.hash is not None
            and path not in scan.notes and not file_of(taps, config.root, path).exists()}


def _there_but_unreadable(missing: Iterable[str], scan: Scan) -> dict[str, str]:
    """The indexed notes the scan did not find that are there all the same, and why: in a
    folder it could not list (qa60), or named by one of its problems (a folder that can be
    listed but not entered: every stat "Permission denied", qa64). They were counted deleted."""
    problems = {p.path: p.reason for p in scan.problems}
    found = {}
    for path in missing:
        folder = _unlisted_folder(path, scan.unlisted)
        if folder is not None:
            found[path] = f"{scan.unlisted[folder]} ({folder}/)"
        elif path in problems:
            found[path] = problems[path]
    return found


def _unlisted_folder(path: str, unlisted: Mapping[str, str]) -> str | None:
    """The folder above ``path`` that the scan could not open or list, if any."""
    if "." in unlisted:
        return "."
    cut = path.find("/")
    while cut != -1:
        if path[:cut] in unlisted:
            return path[:cut]
        cut = path.find("/", cut + 1)
    return None


def _under_any(path: str, roots: set[str]) -> bool:
    """``path`` is one of ``roots`` or inside one of them (set lookups: no scan of roots)."""
    if path in roots:
        return True
    colon = path.find(":")
    if colon > 0 and path[:colon + 1] in roots:  # "repo:": a whole code tap outside the vault
        return True
    cut = path.find("/")
    while cut != -1:
        if path[:cut] in roots:
            return True
        cut = path.find("/", cut + 1)
    return False



