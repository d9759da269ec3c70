"""Reading what a scan found: each key by the reader of the source of the tap that found it.

The scan records that tap for every key (``Scan.origin``): ``vault`` for the vault's Markdown
notes, a tap that reads in place (config.SOURCES) for its own files, such as ``repo:pkg/a.py``
of a repository beside the vault, which no vault path names. READERS maps the tap's
``source`` to the function that reads and parses one key: the one place the indexer tells
sources apart, so a new source that reads in place is one more entry here. A tap that writes
into the vault (notion) has none: the vault's reader reads the notes it wrote.

A reader is given the content hash the ledger holds for the key: a file whose stat moved but
whose bytes hash to it (a touch, a chmod, a copy that keeps the words) is hashed, not parsed.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vault_engine.config import Config
from vault_engine.errors import VaultError
from vault_engine.indexing.code_sync import parse_code_file
from vault_engine.model import ParsedNote
from vault_engine.parsing.note import RECORD_SIDECARS, parse_note
from vault_engine.paths import read_side_file
from vault_engine.sources.code.files import code_taps, tap_of_key
from vault_engine.sources.vault.changes import FileStat
from vault_engine.sources.vault.files import Unreadable, read_note

log = logging.getLogger(__name__)

# Below this many files to read, a process pool costs more than it saves.
PARALLEL_READ_THRESHOLD = 400
# A file read in place (a source file) weighs a note per KB (a tree-sitter parse runs at
# about 1 ms a KB, a note in about 1 ms), and worker processes that parse code first compile
# each grammar's tags query again, each of them: that costs up to CODE_PARALLEL_EXTRA more
# before two processes pay. Measured on bench/bench_code.py's repositories: 20k lines (48
# files, 714 KB) read in 0.58 s alone and in 0.91 s by two workers; 100k lines (254 files,
# 3.3 MB, and 1,000 notes) in 3.1 s alone and 2.6 s by two, on a machine at load 3.
CODE_KB_WEIGHT = 1.0
CODE_PARALLEL_EXTRA = 800

Progress = Callable[[str, int, int], None]


@dataclass(slots=True)
class ReadResult:
    """One suspect file after reading: parsed, or the reason it could not be."""

    path: str
    stat: FileStat | None = None  # an unreadable file's too: the ledger keeps it, not to read it again
    digest: str | None = None
    note: ParsedNote | None = None
    problem: str | None = None
    vanished: bool = False
    code: Any = None  # a source file's ParsedSource (code tap), for the call graph
    tap: str | None = None  # the tap that owns the document, for its decay (the ledger's tap)
    same: bool = False  # the content hashes to the ledger's: a touch, so it was not parsed


Reader = Callable[[Config, str, "str | None"], ReadResult]  # (config, key, the ledger's hash of it)


def read_vault_note(config: Config, key: str, known_hash: str | None = None) -> ReadResult:
    """A Markdown note of the vault: read, hashed and parsed (unless it hashes to
    ``known_hash``); never raises for a bad file: one note the parsers cannot handle is
    skipped with its reason, never the whole run. Its tap is the one whose paths claim it
    (config.tap_for)."""
    try:
        text, digest, stat = read_note(config.root, key, config.max_file_bytes)
    except Unreadable as exc:
        return ReadResult(key, None if exc.vanished else _stat(config.root / key), problem=str(exc),
                          vanished=exc.vanished)
    if digest == known_hash:
        return ReadResult(key, stat, digest, same=True)
    try:
        note = parse_note(key, text, config, _sidecar(config.root, key))
    except (RecursionError, MemoryError, ValueError, IndexError) as exc:
        log.debug("parsing %s failed", key, exc_info=True)
        return ReadResult(key, stat, digest, problem=f"cannot be parsed ({type(exc).__name__}): "
                                                      "simplify its deepest nesting, or report it as a bug")
    return ReadResult(key, stat, digest, note, tap=config.tap_for(key).name)


def _sidecar(root: Path, key: str) -> str | None:
    """The text of a decision record's metadata file beside the note (parsing/note.py's
    RECORD_SIDECARS), read with the note: an edit to it alone is seen when the note is next
    read. None when there is none, or it cannot be read (the note is indexed without it)."""
    folder = (root / key).parent
    for name in RECORD_SIDECARS:
        try:
            return read_side_file(folder / name)
        except (OSError, UnicodeDecodeError):
            continue
    return None


def read_code_file(config: Config, key: str, known_hash: str | None = None) -> ReadResult:
    """A code tap's file: read where it lies, under the tap's root, and parsed with
    tree-sitter (sources/code) unless it hashes to ``known_hash``. Its tap is the code tap
    that owns it."""
    try:
        note, parsed, digest, stat = parse_code_file(config, key, known_hash)
    except Unreadable as exc:
        found = None if exc.vanished else tap_of_key(code_taps(config), key)
        return ReadResult(key, None if found is None else _stat(found[0].root / found[1]), problem=str(exc),
                          vanished=exc.vanished)
    if note is None:
        return ReadResult(key, stat, digest, same=True)
    return ReadResult(key, stat, digest, note, code=parsed, tap=note.meta["tap"])


# source -> the reader of one key of a tap of that source (config.SOURCES: every source that
# reads in place has one, and the vault; a source that writes into the vault has none).
READERS: dict[str, Reader] = {
    "vault": read_vault_note,
    "code": read_code_file,
}


def source_of(config: Config, origin: str) -> str:
    """The source whose reader reads the keys that the tap ``origin`` found."""
    tap = config.tap(origin)
    if tap.source not in READERS:
        raise VaultError(f"tap {tap.name!r} found files to index, but its source {tap.source!r} has no reader "
                         f"(indexing/reading.py reads {', '.join(READERS)})")
    return tap.source


def _read_chunk(args: tuple) -> list[ReadResult]:
    config, keys = args
    return [READERS[source](config, key, known_hash) for key, source, known_hash in keys]


def read_many(config: Config, origins: Mapping[str, str], progress: Progress | None = None,
              sizes: Mapping[str, int] | None = None,
              known_hashes: Mapping[str, str | None] | None = None) -> dict[str, ReadResult]:
    """Read and parse the keys of ``origins`` (key -> the tap whose scan found it, in the
    order to read them; ``sizes``: their byte sizes, as the scan found them), on both cores
    when that is worth the workers' start. A key whose content hashes to its entry in
    ``known_hashes`` (the ledger's) is not parsed: its result is ``same``."""
    sources = {origin: source_of(config, origin) for origin in set(origins.values())}
    known_hashes = known_hashes or {}
    keys = [(key, sources[origin], known_hashes.get(key)) for key, origin in origins.items()]
    in_place = {origin for origin in sources if config.tap(origin).reads_in_place}
    code_kb = sum((sizes or {}).get(k, 10_000) for k, o in origins.items() if o in in_place) / 1000 * CODE_KB_WEIGHT
    weight = sum(o not in in_place for o in origins.values()) + code_kb
    results: dict[str, ReadResult] = {}
    if weight < PARALLEL_READ_THRESHOLD + min(CODE_PARALLEL_EXTRA, code_kb):
        for i, (key, source, known_hash) in enumerate(keys):
            results[key] = READERS[source](config, key, known_hash)
            if progress and i % 50 == 0:
                progress("read", i, len(keys))
    else:
        from concurrent.futures import ProcessPoolExecutor  # 14 ms of imports: only when used

        size = max(10, min(200, len(keys) // 8))  # enough chunks to keep both workers busy
        chunks = [keys[i:i + size] for i in range(0, len(keys), size)]
        with ProcessPoolExecutor(max_workers=2) as pool:
            done = 0
            for batch in pool.map(_read_chunk, [(config, c) for c in chunks]):
                for result in batch:
                    results[result.path] = result
                done += len(batch)
                if progress:
                    progress("read", done, len(keys))
    if progress:
        progress("read", len(keys), len(keys))
    return results


def _stat(path: Path) -> FileStat:
    """An unreadable file's stat for the ledger; zeros when it is gone or cannot be stat'ed."""
    try:
        info = path.stat()
    except OSError:
        return FileStat(0, 0, 0)
    return FileStat.of(info)
