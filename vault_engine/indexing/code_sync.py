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

from vault_engine.config import Config
from vault_engine.errors import VaultError
from vault_engine.parsing.mentions import mentions_in
from vault_engine.paths import is_note
from vault_engine.sources.code.files import (
    CodeTap,
    code_taps,
    describe,
    go_modules,
    read_code,
    scan_code,
    tap_of_key,
)
from vault_engine.sources.code.model import ParsedSource
from vault_engine.sources.vault.files import Scan, Unreadable
from vault_engine.stores.code_store import CODE_FILE, CodeStore, EdgeRow, UnconfirmedRow
from vault_engine.stores.ledger import Ledger

log = logging.getLogger(__name__)

# Past this share of a tap's files changed, resolve the whole tap: the dependents of that
# many files are most of it anyway.
FULL_RESOLVE_SHARE = 0.25
# Parsed files of the stores this process wrote, by (store, key) -> (hash, ParsedSource):
# the watcher re-resolves a tap on every save, and unpickling every file each time cost more
# than resolving (bench/bench_code.py).
_PARSED: dict[tuple[str, str], tuple[str, ParsedSource]] = {}


def add_code_files(config: Config, scan: Scan, only: set[str] | None = None) -> set[str]:
    """Put the code taps' files into ``scan.notes`` (their keys, each with its tap as origin)
    and their skipped folders and files into ``scan.problems``; drop Markdown a code tap's
    paths claim (a README in a repository is neither a note nor code). Returns the keys
    ``only`` stands for."""
    taps = code_taps(config)
    if not taps:
        return set()
    for path in [p for p in scan.notes if any(t.claims(p) for t in taps)]:
        scan.drop(path)
        scan.claimed.append(path)
    code = scan_code(config, only)
    scan.notes.update(code.files)
    scan.origin.update(code.origin)
    scan.problems += code.problems
    if only is None:
        return set()
    return {t.key(p[len(t.vault_rel):].strip("/")) for t in taps if t.prefix and t.vault_rel is not None
            for p in only if p == t.vault_rel or p.startswith(t.vault_rel + "/")}


def code_status(config: Config, suspects, claimed: list[str] | None = None) -> dict | None:
    """The code taps' health for ``status``: what is indexed, what is stale, what calls
    stayed unresolved (by reason), which files had syntax errors, and the vault's Markdown
    their paths claim (``claimed``). None without a code tap."""
    taps = code_taps(config)
    path = config.index_dir / CODE_FILE
    if not taps and not path.exists():
        return None
    stale = {"changed": sum(not is_note(p) for p in suspects.changed),
             "missing": sum(not is_note(p) for p in suspects.missing)}
    base = {"taps": describe(taps), "stale": stale, "fresh": not (stale["changed"] or stale["missing"]),
            "claimed_notes": sorted(claimed or ())}
    if not path.exists():
        return {**base, "indexed": False}
    try:
        store = CodeStore(path, writer=False)
    except VaultError as exc:
        return {**base, "indexed": False, "problem": str(exc)}
    try:
        return {**base, "indexed": True, **store.counts(), "unresolved": store.unresolved(),
                "syntax_errors": [{"path": p, "error": e} for p, e in store.files_with_errors()]}
    finally:
        store.close()


def parse_code_file(config: Config, key: str, known_hash: str | None = None):
    """(ParsedNote, ParsedSource, digest, stat) of one source file; raises Unreadable. A file
    whose content hashes to ``known_hash`` (the ledger's: a touch) is not parsed, the one
    cost that matters: (None, None, digest, stat)."""
    from vault_engine.sources.code.languages import UnsupportedLanguage
    from vault_engine.sources.code.sections import code_note
    from vault_engine.sources.code.symbols import parse_source

    text, digest, stat, language, rel, tap = read_code(config, key)
    if digest == known_hash:
        return None, None, digest, stat
    try:
        parsed = parse_source(rel, text, language)
    except (UnsupportedLanguage, RecursionError, ValueError) as exc:
        raise Unreadable(f"cannot be parsed ({type(exc).__name__}: {exc})") from exc
    return code_note(key, parsed, text, tap), parsed, digest, stat


def sync_code(config: Config, ledger: Ledger, parsed_now: Mapping[str, object],
              changed_note_ids: Iterable[int], cleared_paths: Iterable[str]) -> None:
    """Bring ``code.sqlite`` in line with the ledger (see the module docstring).
    ``parsed_now``: key -> ParsedSource read by this run; ``changed_note_ids`` and
    ``cleared_paths``: notes written and paths gone, whose mentions change."""
    path = config.index_dir / CODE_FILE
    taps = code_taps(config)
    if not taps and not path.exists():
        return
    store = CodeStore(path)
    try:
        with store.transaction():
            touched, local = _sync_files(config, ledger, store, taps, parsed_now)
            for tap in taps:
                if tap.name in touched:
                    _resolve_tap(store, tap, touched[tap.name], local)
            for gone in set(touched) - {t.name for t in taps}:
                store.drop_tap(gone)
            if touched or local:  # readers' caches of names and paths are out of date
                store.set_meta("revision", str(time.time_ns()))
            _sync_mentions(ledger, store, changed_note_ids, cleared_paths)
    finally:
        store.close()


def _sync_files(config, ledger, store: CodeStore, taps: list[CodeTap],
                parsed_now) -> tuple[dict[str, set[str]], set[str]]:
    """Store what the ledger has and the store lacks; returns tap -> keys added, changed or
    gone, and the keys edited without a change of surface (dependents.surface): only their
    own calls need resolving again."""
    from vault_engine.sources.code.dependents import surface

    in_ledger = {p: k.hash for p, k in ledger.known_files().items() if k.hash and not is_note(p)}
    stored = store.file_hashes()
    touched: dict[str, set[str]] = {}
    local: set[str] = set()
    gone = [k for k in stored if k not in in_ledger]
    for key in gone:
        info = store.file_info(key)
        assert info is not None  # a key of file_hashes
        touched.setdefault(info[0], set()).add(key)
    store.delete_files(gone)
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
        old = _cached(store, key, stored.get(key))
        store.put_file(key, found[0].name, parsed, digest)
        _PARSED[(str(store.path), key)] = (digest, parsed)
        touched.setdefault(found[0].name, set())
        if old is not None and surface(old) == surface(parsed):
            local.add(key)
        else:
            touched[found[0].name].add(key)
    return touched, local


def _cached(store: CodeStore, key: str, digest: str | None) -> ParsedSource | None:
    """The stored ParsedSource of ``key`` at ``digest`` (before it is replaced), or None."""
    if digest is None:
        return None
    hit = _PARSED.get((str(store.path), key))
    if hit is not None and hit[0] == digest:
        return hit[1]
    return store.parsed([key]).get(key)


def _resolve_tap(store: CodeStore, tap: CodeTap, changed: set[str], local: set[str]) -> int:
    """Resolve again the calls of the changed files and of every file whose calls they can
    change (sources/code/dependents.py: importers, through re-exports and base classes);
    the whole tap when much changed or the store is new. Returns how many files it resolved."""
    from vault_engine.sources.code.callgraph import resolve
    from vault_engine.sources.code.dependents import affected

    loaded = _load_parsed(store, tap.name)
    files = {rel: parsed for k, parsed in loaded.items() if (rel := tap.rel_of(k)) is not None}
    rel_changed = {rel for k in changed if (rel := tap.rel_of(k)) is not None}
    rel_local = {rel for k in local if k.startswith(tap.prefix) and (rel := tap.rel_of(k)) is not None} - rel_changed
    full = store.fresh or len(rel_changed | rel_local) > FULL_RESOLVE_SHARE * max(len(files), 1)
    only = None if full else affected(files, rel_changed, rel_local)
    folders = {rel.rpartition("/")[0] for rel, parsed in files.items() if parsed.language == "go"}
    graph = resolve(files, only=only, go_modules=go_modules(tap, folders))
    p = tap.prefix
    edges = [EdgeRow(p + e.caller, p + e.callee, p + e.path, e.line, e.how) for e in graph.edges]
    paths = None if only is None else [p + rel for rel in sorted(only | rel_changed)]
    unconfirmed = [UnconfirmedRow(p + u.caller, u.name, p + u.path, u.line, u.reason, u.source)
                   for u in graph.unconfirmed]
    store.replace_edges(tap.name, paths, edges, {p + k: v for k, v in graph.unresolved_at.items()}, unconfirmed)
    return len(files) if only is None else len(only)


def _load_parsed(store: CodeStore, tap: str) -> dict[str, ParsedSource]:
    """Every parsed file of ``tap``, from this process's cache where its hash still matches."""
    where = str(store.path)
    for stale in [k for k in _PARSED if k[0] != where]:  # a replaced generation's files
        del _PARSED[stale]
    hashes = store.hashes_of_tap(tap)
    missing = [k for k, h in hashes.items() if _PARSED.get((where, k), ("",))[0] != h]
    for key, parsed in store.parsed(missing).items():
        _PARSED[(where, key)] = (hashes[key], parsed)
    return {k: _PARSED[(where, k)][1] for k in hashes}


def _sync_mentions(ledger: Ledger, store: CodeStore, changed_note_ids, cleared_paths) -> None:
    full = store.get_meta("mentions") is None
    notes = ledger.notes() if full else list(ledger.notes_by_ids(changed_note_ids).values())
    notes = [n for n in notes if is_note(n.path)]
    rows = []
    for note in notes:
        for section in ledger.sections_of(note.id):
            rows += [(note.path, token, line) for token, line in mentions_in(section.text, section.line_start)]
    if full:
        store.clear_mentions()
    store.replace_mentions([*cleared_paths, *(n.path for n in notes)], rows)
    store.set_meta("mentions", "1")
