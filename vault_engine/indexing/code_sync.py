"""The indexer's code step: source files into the scan, parsed files into ``code.sqlite``,
the call graph re-resolved for every tap that changed, and the notes' mentions of code.

The code store follows the ledger by content hash: whatever the ledger holds as a code
document and the store lacks or holds with another hash is (re)parsed, whatever the store
holds that the ledger no longer does is dropped. So the store repairs itself after a crash
between the two writes, and after being deleted.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from vault_engine.config import Config
from vault_engine.parsing.mentions import mentions_in
from vault_engine.sources.code.files import CodeTap, code_taps, describe, read_code, scan_code, tap_of_key
from vault_engine.sources.vault_files import Scan, Unreadable
from vault_engine.stores.code_store import CODE_FILE, CodeStore, EdgeRow
from vault_engine.stores.ledger import Ledger

log = logging.getLogger(__name__)


@dataclass(slots=True)
class CodeSync:
    """What one sync did, for the index report."""

    parsed: int = 0
    dropped: int = 0
    taps_resolved: list[str] = field(default_factory=list)
    seconds: float = 0.0


def is_code_key(path: str) -> bool:
    """Ledger documents that are source files: everything the scan put there but notes."""
    return not path.lower().endswith(".md")


def add_code_files(config: Config, scan: Scan, only: set[str] | None = None) -> set[str]:
    """Put the code taps' files into ``scan.notes`` (their keys) and their skipped folders
    and files into ``scan.problems``; drop Markdown a code tap's paths claim (a README in
    a repository is neither a note nor code). Returns the keys ``only`` stands for."""
    taps = code_taps(config)
    if not taps:
        return set()
    for path in [p for p in scan.notes if config.tap_for(p).source == "code"]:
        del scan.notes[path]
    code = scan_code(config, only)
    scan.notes.update(code.files)
    scan.problems += code.problems
    if only is None:
        return set()
    return {t.key(p[len(t.vault_rel):].strip("/")) for t in taps if t.prefix and t.vault_rel is not None
            for p in only if p == t.vault_rel or p.startswith(t.vault_rel + "/")}


def code_status(config: Config, suspects) -> dict | None:
    """The code taps' health for ``status``: what is indexed, what is stale, what calls
    stayed unresolved (by reason) and which files had syntax errors. None without a code tap."""
    taps = code_taps(config)
    path = config.index_dir / CODE_FILE
    if not taps and not path.exists():
        return None
    stale = {"changed": sum(map(is_code_key, suspects.changed)), "missing": sum(map(is_code_key, suspects.missing))}
    base = {"taps": describe(taps),
            "stale": stale, "fresh": not (stale["changed"] or stale["missing"])}
    if not path.exists():
        return {**base, "indexed": False}
    store = CodeStore(path)
    try:
        return {**base, "indexed": True, **store.counts(), "unresolved": store.unresolved(),
                "syntax_errors": [{"path": p, "error": e} for p, e in store.files_with_errors()]}
    finally:
        store.close()


def parse_code_file(config: Config, key: str):
    """(ParsedNote, ParsedSource, digest, stat) of one source file; raises Unreadable."""
    from vault_engine.sources.code.languages import UnsupportedLanguage
    from vault_engine.sources.code.sections import code_note
    from vault_engine.sources.code.symbols import parse_source

    text, digest, stat, language, rel, tap = read_code(config, key)
    try:
        parsed = parse_source(rel, text, language)
    except (UnsupportedLanguage, RecursionError, ValueError) as exc:
        raise Unreadable(f"cannot be parsed ({type(exc).__name__}: {exc})") from exc
    return code_note(key, parsed, text, tap), parsed, digest, stat


def sync_code(config: Config, ledger: Ledger, parsed_now: Mapping[str, object],
              changed_note_ids: Iterable[int], cleared_paths: Iterable[str]) -> CodeSync | None:
    """Bring ``code.sqlite`` in line with the ledger (see the module docstring).
    ``parsed_now``: key -> ParsedSource read by this run; ``changed_note_ids`` and
    ``cleared_paths``: notes written and paths gone, whose mentions change."""
    path = config.index_dir / CODE_FILE
    taps = code_taps(config)
    if not taps and not path.exists():
        return None
    started = time.perf_counter()
    store = CodeStore(path)
    try:
        result = CodeSync()
        with store.transaction():
            touched = _sync_files(config, ledger, store, taps, parsed_now, result)
            for tap in taps:
                if tap.name in touched:
                    _resolve_tap(store, tap)
                    result.taps_resolved.append(tap.name)
            for gone in touched - {t.name for t in taps}:
                store.drop_tap(gone)
            _sync_mentions(ledger, store, changed_note_ids, cleared_paths)
        result.seconds = time.perf_counter() - started
        return result
    finally:
        store.close()


def _sync_files(config, ledger, store: CodeStore, taps: list[CodeTap], parsed_now, result: CodeSync) -> set[str]:
    in_ledger = {p: k.hash for p, k in ledger.known_files().items() if k.hash and is_code_key(p)}
    stored = store.file_hashes()
    touched: set[str] = set()
    gone = [k for k in stored if k not in in_ledger]
    for key in gone:
        info = store.file_info(key)
        touched.add(info[0])
    store.delete_files(gone)
    result.dropped = len(gone)
    for key, digest in sorted(in_ledger.items()):
        if stored.get(key) == digest:
            continue
        found = tap_of_key(taps, key)
        if found is None:
            continue
        parsed = parsed_now.get(key)
        if parsed is None:  # the store lost it (deleted, crash): read it again
            try:
                _, parsed, digest, _ = parse_code_file(config, key)
            except Unreadable as exc:
                log.warning("%s: %s", key, exc)
                continue
        store.put_file(key, found[0].name, parsed, digest)
        touched.add(found[0].name)
        result.parsed += 1
    return touched


def _resolve_tap(store: CodeStore, tap: CodeTap) -> None:
    """Re-resolve the whole tap: one changed file can change what calls elsewhere resolve to
    (an import, a re-export, a base class), and resolving is cheaper than knowing which."""
    from vault_engine.sources.code.callgraph import resolve

    files = {tap.rel_of(k): parsed for k, parsed in store.parsed_of_tap(tap.name).items()}
    graph = resolve(files)
    p = tap.prefix
    edges = [EdgeRow(p + e.caller, p + e.callee, p + e.path, e.line, e.how) for e in graph.edges]
    store.replace_edges(tap.name, edges, graph.unresolved)


def _sync_mentions(ledger: Ledger, store: CodeStore, changed_note_ids, cleared_paths) -> None:
    full = store.get_meta("mentions") is None
    notes = ledger.notes() if full else list(ledger.notes_by_ids(changed_note_ids).values())
    notes = [n for n in notes if not is_code_key(n.path)]
    rows = []
    for note in notes:
        for section in ledger.sections_of(note.id):
            rows += [(note.path, token, line) for token, line in mentions_in(section.text, section.line_start)]
    if full:
        store.db.execute("DELETE FROM mentions")
    store.replace_mentions([*cleared_paths, *(n.path for n in notes)], rows)
    store.set_meta("mentions", "1")
