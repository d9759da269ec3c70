"""The code commands over the ledger and ``code.sqlite``: show a code ref, outline a file,
callers/callees. Every not-found says which of four it is: no such symbol, ambiguous (with
the candidates), not indexed (skipped, excluded, or new since the last index), no callers."""

from __future__ import annotations

import re
from functools import cached_property
from pathlib import Path
from typing import Any

from vault_engine.code_model import CallAnswer, CodeView, Outline, Why
from vault_engine.config import Config
from vault_engine.errors import UnknownRef, VaultError
from vault_engine.paths import is_note
from vault_engine.refs import make_ref
from vault_engine.retrieval.code.graph import walk
from vault_engine.retrieval.code.lookup import (
    code_symbol,
    definitions,
    file_tokens,
    split_ref,
    symbol_tokens,
    why_links,
)
from vault_engine.sources.code.files import CodeTap, code_taps, tap_of_key, why_left_out
from vault_engine.sources.code.languages import SPECS, detect_language
from vault_engine.sources.code.model import NAME_UNKNOWN, RECEIVER_UNKNOWN
from vault_engine.sources.code.testpaths import is_test_path
from vault_engine.stores.code_store import CodeStore, SymbolRow
from vault_engine.stores.ledger import Ledger

CONSTRUCTORS = ("__init__", "constructor", "new")
MAX_MEANT = 5  # suggestions for a misspelt symbol


def _class_over_its_constructors(rows: list) -> list:
    """A Java class and its constructors share a name: ``callers DefaultPriceService`` is the
    class (its constructors among its starts), not "ambiguous between 2 definitions"."""
    classes = [r for r in rows if r.kind == "class"]
    if len(classes) == 1 and all(r is classes[0] or (r.kind == "constructor" and r.key == classes[0].key
                                                       and r.qualname.startswith(classes[0].qualname + "."))
                                 for r in rows):
        return classes
    return rows


def open_code_queries(config: Config, ledger: Ledger) -> CodeQueries:
    """The code answers of the index generation ``config`` names; a clear error without one."""
    from vault_engine.stores.code_store import CODE_FILE

    path = config.index_dir / CODE_FILE
    if not path.exists():
        raise VaultError("no code is indexed in this vault: add a code tap to vault-engine.toml "
                         '([taps.code] source = "code", paths = ["src/**"]) and run `vault-engine index`')
    return CodeQueries(config, ledger, CodeStore(path, writer=False))


class CodeQueries:
    """Read-only answers about indexed code (one per open Vault generation)."""

    def __init__(self, config: Config, ledger: Ledger, store: CodeStore):
        self.config, self.ledger, self.store = config, ledger, store
        self._revision = store.get_meta("revision")

    def refresh(self) -> None:
        """Forget the cached names and paths when the indexer wrote since (a long-lived
        Vault: the watcher's daemon, the TUI). One read of the store's revision."""
        revision = self.store.get_meta("revision")
        if revision != self._revision:
            for name in ("keys", "path_index", "suggester"):
                self.__dict__.pop(name, None)
            self._revision = revision

    def close(self) -> None:
        self.store.close()

    @cached_property
    def taps(self) -> list[CodeTap]:
        return code_taps(self.config)

    @cached_property
    def keys(self) -> set[str]:
        return set(self.store.file_keys())

    @cached_property
    def path_index(self):
        from vault_engine.retrieval.find.paths import build_path_index

        return build_path_index(sorted(self.keys))

    @cached_property
    def suggester(self):
        """Names and paths for find's fuzzy tier, indexed on first use."""
        from vault_engine.retrieval.find.suggest import Suggester
        from vault_engine.sources.code.testpaths import is_test_path

        tests = {k: is_test_path(k) for k in self.keys}
        symbols = [(f"{k}#{q}", q, tests.get(k, False)) for k, q in self.store.symbol_names()]
        return Suggester(symbols, sorted(tests.items()))

    def meant(self, name: str, within: str | None = None) -> tuple[str, ...]:
        """What a misspelt symbol name probably meant (find's fuzzy tier's rule), best first;
        ``within``: only the symbols of that file."""
        found = [s.target for s in self.suggester.suggest(name) if "#" in s.target]
        return tuple(t for t in found if within is None or t.startswith(f"{within}#"))[:MAX_MEANT]

    def definition_refs(self, name: str) -> tuple[str, ...]:
        """The refs of every definition a symbol's name names, ranked as find ranks them."""
        return tuple(row.ref for row in definitions(self.store, self.keys, name))

    def is_code_ref(self, ref: str) -> bool:
        return split_ref(self.keys, self.with_file_key(ref.strip())) is not None

    # -- why --------------------------------------------------------------------------------

    def vault_path(self, key: str) -> str | None:
        """The vault-relative path of a source file (what notes link to), None outside the vault."""
        found = tap_of_key(self.taps, key)
        if found is None or found[0].vault_rel is None:
            return None
        tap, rel = found
        return f"{tap.vault_rel}/{rel}" if tap.vault_rel else rel

    def why_file(self, key: str) -> tuple[Why, ...]:
        path = self.vault_path(key)
        return why_links(self.store, self.ledger.backlinks_to(path) if path else (), file_tokens(key), of="file")

    def why_symbol(self, row: SymbolRow) -> tuple[Why, ...]:
        """The notes that name the symbol itself (an outline lists its file's apart); a method
        by its name alone too, when no other symbol has that name: a note about
        `find_object(T)` and `ensure_object(T)` explained no method of click's (qa62)."""
        tokens = symbol_tokens(row.key, row.qualname)
        if row.parent and len(self.store.symbols_where("name", row.name)) == 1:
            tokens.append(row.name)
        return why_links(self.store, (), tokens, of="symbol")

    def why_of(self, row: SymbolRow) -> tuple[Why, ...]:
        """A symbol's why wherever it is answered (show, find, callers, callees, search): the
        notes that name it, then those of its file, the most specific first."""
        return self.why_symbol(row) + self.why_file(row.key)

    def with_why(self, hits: tuple, query: str) -> tuple:
        """Search hits, those of code with their why notes and a snippet of their lines as
        written (search results are frozen): the index holds a symbol's words once each, and
        a snippet drawn from them read "measure table widths dict int for row rows idx"
        (qa88)."""
        from dataclasses import replace

        from vault_engine.retrieval.snippets import make_snippet
        from vault_engine.sources.code.sections import BODY_LINES
        from vault_engine.stores.lexical import analyze

        terms = set(analyze(query))
        files: dict[str, list[str]] = {}  # each file read once, however many of its symbols are hits
        out = []
        for hit in hits:
            if hit.kind == "code" and hit.path in self.keys:
                key, _, qualname = hit.ref.partition("#")
                row = self.store.symbol(key, qualname) if qualname else None
                why = self.why_of(row) if row else self.why_file(key)
                if key not in files:
                    try:
                        files[key] = self._lines(key)[0]
                    except VaultError:  # gone or unreadable since the index: the stored text serves
                        files[key] = []
                # its first BODY_LINES, as the index reads them
                lines = files[key][max(0, hit.line_start - 1):min(hit.line_end, hit.line_start + BODY_LINES)]
                hit = replace(hit, why=tuple(dict.fromkeys(w.ref for w in why)),
                              snippet=make_snippet("\n".join(lines), terms) if lines else hit.snippet)
            out.append(hit)
        return tuple(out)

    # -- show and outline -------------------------------------------------------------------

    def show(self, ref: str, follow: int = 0) -> CodeView:
        """The lines of a symbol (decorators included) or of a whole file, numbered; with
        ``follow``, the sections of its why notes and ``follow - 1`` hops of their links."""
        found = split_ref(self.keys, self.with_file_key(ref.strip()))
        assert found is not None  # callers ask is_code_ref first
        key, qualname = found
        lines, notices = self._lines(key)
        language = (self.store.file_info(key) or ("", ""))[1]
        if qualname is None:
            why = self.why_file(key)
            return CodeView(key, key, language, None, 1, tuple(lines), why, notices=notices,
                            followed=self.follow(((key, why),), follow), file=self._file_of(key))
        row = self.store.symbol(key, qualname)
        if row is None:
            meant = self.meant(qualname, key)
            raise UnknownRef(f"{key} defines no symbol {qualname!r}: "
                             + (f"did you mean {meant[0]}? " if meant else "")
                             + f"`vault-engine outline {key}` lists its symbols")
        if notices:  # changed since the index: the stored lines may now hold other code
            row, notices = self._as_it_is_now(row, lines, language)
        why = self.why_of(row)
        symbol = code_symbol(row, why)
        return CodeView(row.ref, key, language, symbol, row.line_start,
                        tuple(lines[row.line_start - 1:row.line_end]), why, self._dead_ends(why, row), notices,
                        self.follow(((row.ref, why),), follow), self._file_of(key))

    def _as_it_is_now(self, row: SymbolRow, lines: list[str], language: str) -> tuple[SymbolRow, tuple[str, ...]]:
        """A symbol of a file changed since the index, with its lines as the file holds them
        now: three lines added above it, its stored span showed the end of the method before
        it under its name (qa95)."""
        from dataclasses import replace

        from vault_engine.sources.code.symbols import parse_source

        now = next((s for s in parse_source(row.key, "\n".join(lines), language).symbols
                    if s.qualname == row.qualname), None)
        if now is None:
            raise UnknownRef(f"{row.key} changed since it was indexed and no longer defines {row.qualname!r}: "
                             "run `vault-engine index`")
        return replace(row, line_start=now.line_start, def_line=now.def_line, line_end=now.line_end), (
            f"{row.key} changed since it was indexed: {row.qualname} is shown as the file holds it now (lines "
            f"{now.line_start}-{now.line_end}, indexed as {row.line_start}-{row.line_end}); run `vault-engine index`",)

    def follow(self, starts, depth: int) -> tuple:
        """``--follow``: what the why notes of each ``(ref, why)`` start say (followed.py)."""
        if depth <= 0:
            return ()
        from vault_engine.retrieval.code.followed import follow_why

        return follow_why(self.ledger, starts, depth)

    def why_of_ref(self, ref: str) -> tuple[Why, ...]:
        """The why notes of a code ref (a symbol's own, then its file's) or of a file key."""
        found = split_ref(self.keys, ref)
        if found is None:
            return ()
        key, qualname = found
        row = self.store.symbol(key, qualname) if qualname else None
        return self.why_of(row) if row else self.why_file(key)

    def _file_of(self, key: str) -> str:
        """The source file of ``key`` on disk: under its tap's root, which may lie outside the
        vault (`e` in the TUI had opened `<vault>/repo:pkg/a.py`, no file at all, qa153)."""
        from vault_engine.sources.code.files import code_taps, tap_of_key

        found = tap_of_key(code_taps(self.config), key)
        return str(found[0].root / found[1]) if found else str(self.config.root / key)

    def _lines(self, key: str) -> tuple[list[str], tuple[str, ...]]:
        from vault_engine.sources.code.files import read_code
        from vault_engine.sources.vault.files import Unreadable

        try:
            text, digest, *_ = read_code(self.config, key)
        except Unreadable as exc:
            if exc.vanished:  # no index is running: the file went since the last one
                raise VaultError(f"{key}: the source file is missing (deleted or moved since the last index); "
                                 "run `vault-engine index`") from exc
            raise VaultError(f"{key}: cannot read the source file ({exc}); run `vault-engine index` "
                             "if it was moved or deleted") from exc
        stale = self.store.file_hashes_of([key]).get(key) != digest
        notices = (f"{key} changed since it was indexed: lines may have moved; run `vault-engine index`",) \
            if stale else ()
        # a last newline ends a line, none follows it; a Windows line ends at its "\r\n" too, where
        # `show` had printed each line with "\x0d" (qa159)
        return [line.removesuffix("\r") for line in text.removesuffix("\n").split("\n")], notices

    def _dead_ends(self, why: tuple[Why, ...], row: SymbolRow) -> tuple[dict, ...]:
        """Dead ends of the notes that mention the symbol, whose own text names it."""
        tokens = set(symbol_tokens(row.key, row.qualname))
        found = []
        for path in dict.fromkeys(w.ref for w in why if w.via == "mention"):
            note = self.ledger.note_by_path(path)
            for d in self.ledger.dead_end_rows(note_id=note.id) if note else ():
                said = f"{d.text} {d.reason or ''}"
                if any(f"`{t}`" in said or f"`{t}()`" in said for t in tokens):
                    when = d.when  # as `deadend list` dates it: Unix seconds, an int
                    found.append({"text": d.text, "reason": d.reason, "ref": make_ref(path, d.heading, d.notion_id),
                                  "slug": d.slug, "agent": d.agent, "when": None if when is None else int(when),
                                  "line": d.line})
        return tuple(found)

    def outline(self, path: str, follow: int = 0) -> Outline:
        """A file's symbols with spans, parameters and decorators; ``follow``: what the why
        notes of the file and of each symbol say."""
        key = self.resolve_file(path)
        info = self.store.file_info(key)
        assert info is not None  # resolve_file answers indexed files only
        _, language, lines, error = info
        symbols = tuple(code_symbol(r, self.why_symbol(r)) for r in self.store.symbols_of(key))
        why = self.why_file(key)
        starts = ((key, why), *((s.ref, s.why) for s in symbols))
        return Outline(key, language, lines, symbols, why, error, self.follow(starts, follow),
                       self.changed_notices([key]))

    def resolve_file(self, path: str) -> str:
        from vault_engine.retrieval.find.paths import AMBIGUOUS, lookup_path

        if path in self.keys:
            return path
        seen = self.key_seen_from_vault(path)
        if seen is not None:
            return seen
        match = lookup_path(self.path_index, path)
        if match.status == AMBIGUOUS:
            raise UnknownRef(f"{path!r} names {len(match.paths)} indexed files: {', '.join(match.paths[:8])}; "
                             "give more of the path")
        if match.paths:
            return match.paths[0]
        reason = self.not_indexed_reason(path)
        if reason is None:  # `zz_new.py` for a file saved since the index: the ending of a new file's path
            new = [key for key in self.stale_files() if key == path or key.endswith("/" + path.lstrip("/"))]
            reason = f"{new[0]} is new or changed since the last index: run `vault-engine index`" if new else None
        if reason is None:  # a slip in its name: find's suggestion, as for a symbol (qa135: `outline formating.py`)
            meant = [s.target for s in self.suggester.suggest(path) if "#" not in s.target][:MAX_MEANT]
            reason = f"no such file; did you mean {' or '.join(meant)}?" if meant else None
        raise UnknownRef(f"{path!r} is not an indexed source file: {reason or 'no such file'}")

    def key_seen_from_vault(self, path: str) -> str | None:
        """The indexed file a path names as the vault sees it, leaving it (`../jsrepo/src/cart.js`)
        or absolute, whichever tap's root holds it: a tap kept beside the vault was "not one of
        taps.code.paths" so named (qa58)."""
        if not path.startswith(("../", "/")):
            return None
        target = (self.config.root / path).resolve()
        for tap in self.taps:
            root = tap.root.resolve()
            key = tap.key(target.relative_to(root).as_posix()) if target.is_relative_to(root) else None
            if key in self.keys:
                return key
        return None

    def not_indexed_reason(self, path: str) -> str | None:
        """Why a file a code tap could own is not in the index, or None when there is none.
        A skipped file is also named by the end of its path, as indexed files are (`outline
        nul_mod.py` said "no such file" where the whole key said "skipped", qa48)."""
        skipped = dict(self.ledger.skipped())
        if path in skipped:
            return f"skipped when indexed ({skipped[path]})"
        ending = [p for p in skipped if p.endswith("/" + path.lstrip("/"))]
        if len(ending) == 1:
            return f"{ending[0]} was skipped when indexed ({skipped[ending[0]]})"
        for tap in self.taps:
            # a tap beside the vault, its file named without the tap's prefix, as indexed ones
            # may be (`src/click/_compat.py`, excluded, was "no such file", qa87)
            rel = tap.rel_of(path) if tap.prefix and path.startswith(tap.prefix) else path
            if rel is None or not _is_file(tap.root / rel) or not _within(tap.root, rel):
                continue
            if tap.key(rel) in self.keys:  # indexed, under its tap's prefix: "run index" never helped (qa135)
                return None
            if tap.owns(rel):
                left_out = why_left_out(tap, rel)  # said when indexed, kept in no ledger: said again
                return f"skipped when indexed ({left_out})" if left_out else \
                    "new or changed since the last index: run `vault-engine index`"
            if any(tap.excluded("/".join(rel.split("/")[:n]) + "/") for n in range(1, rel.count("/") + 1)) \
                    or tap.excluded(rel):
                return f"excluded (taps.{tap.name}.exclude, or the vault's exclude, in vault-engine.toml)"
            return f"not one of taps.{tap.name}.paths (or a language without a grammar)"
        return None

    def syntax_error_note(self, query: str) -> str:
        """For a miss of ``query``, the source files that were not parsed whole and hold its
        name, or "": tree-sitter recovers past an error as far as it can, so a definition after
        one may be missing, but only from a file that names it. (Every miss used to carry the
        first broken file of the whole tap, a Python question a TypeScript file's error.)"""
        query = query.strip()
        # a path (`src/store`, `combine.ts`): no definition a syntax error hides (the `ts` of a
        # deleted `combine.ts` blamed a file that names `ts`, qa69)
        if ("/" in query or detect_language(query)) and "#" not in query:
            return ""
        name = re.split(r"[.#:/]", query)[-1]
        word = re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])") if name else None
        # a name defined somewhere was read where it is: zustand's react.ts was blamed for
        # `zustand.create` though `create` is indexed there (qa48), then a test importing it
        if not name or self.store.symbols_where("name", name):
            return ""
        holding = [(key, error) for key, error in self.store.files_with_errors()
                   if word is not None and word.search(self._source_text(key))]
        if not holding:
            return ""
        key, error = holding[0]
        more = f" (and {len(holding) - 1} more such file(s))" if len(holding) > 1 else ""
        return (f" ({key} names {name!r} but was not parsed whole: {error}{more}; a definition past "
                "that point is not indexed; if the file is wrong, fix it and run `vault-engine index`)")

    def _source_text(self, key: str) -> str:
        """The file as it is now (read as the index reads it), or "" when it cannot be."""
        from vault_engine.sources.code.files import read_code
        from vault_engine.sources.vault.files import Unreadable

        try:
            return read_code(self.config, key)[0]
        except Unreadable:
            return ""

    def changed_notices(self, keys: list[str]) -> tuple[str, ...]:
        """One line when some of these indexed source files changed or went since the last
        index (``KnownFile.change_at``: a current file costs a stat, no read): the answer's line
        numbers may have moved, as ``show`` says of one file."""
        changed: list[str] = []
        gone: list[str] = []
        for key in dict.fromkeys(keys):
            known, found = self.ledger.known_note(key), tap_of_key(self.taps, key)
            change = known.change_at(found[0].root / found[1]) if known is not None and found is not None else None
            if change is not None:
                (gone if change == "gone" else changed).append(key)
        return _moved_notice(changed, gone)

    def _call_notices(self, direction: str, answer: list[str]) -> tuple[str, ...]:
        """What a change since the last index may have done to a callers or callees answer, from
        one scan of the code taps: its own files' lines moved, and a call saved in any other
        file is not in it yet (none: any file)."""
        changed, missing = self._stale()
        others = sorted(key for key in changed + missing if key not in answer)
        notices = _moved_notice([key for key in dict.fromkeys(answer) if key in changed],
                                [key for key in dict.fromkeys(answer) if key in missing])
        return notices + written_since(others, f"{direction} written there since are", other=bool(answer))

    def stale_files(self) -> list[str]:
        """Source files new, changed or gone since the last index (a scan of the code taps;
        a file whose stat moved with the same bytes is not changed)."""
        changed, missing = self._stale()
        return sorted(changed + missing)

    def _stale(self) -> tuple[list[str], list[str]]:
        """(new or changed, missing) source files since the last index."""
        from vault_engine.sources.code.files import file_of, scan_code
        from vault_engine.sources.vault.changes import content_changed, find_suspects

        known = {p: k for p, k in self.ledger.known_files().items() if not is_note(p)}
        suspects = find_suspects(scan_code(self.config).files, known)
        suspects = content_changed(suspects, known, lambda key: file_of(self.taps, self.config.root, key),
                                   self.config.max_file_bytes)
        return list(suspects.changed), list(suspects.missing)

    # -- callers / callees ------------------------------------------------------------------

    def calls(self, symbol: str, direction: str, depth: int, exclude_tests: bool, follow: int = 0) -> CallAnswer:
        base: dict[str, Any] = dict(symbol=symbol, direction=direction, depth=depth, exclude_tests=exclude_tests)
        symbol = self.with_file_key(symbol)
        rows = _class_over_its_constructors(definitions(self.store, self.keys, symbol))
        outside_tests = [r for r in rows if not is_test_path(r.key)]
        if exclude_tests and len(rows) > 1:  # a test's own helper named alike is no candidate then
            rows = outside_tests or rows
        if not rows:
            status, reason, meant = self._not_found(symbol)
            # the calls a rename left behind: "no such symbol" alone read as "nothing calls it" (qa95)
            left = self._left_behind(symbol, exclude_tests) if status == "no_such_symbol" else ()
            return CallAnswer(**base, status=status, reason=reason, candidates=meant,
                              notices=_unconfirmed_notice(_bare_name(symbol), left, beside=""), unconfirmed=left)
        if len(rows) > 1 and len({(r.key, r.qualname) for r in rows}) > 1:
            # each in tests, which --exclude-tests leaves out: 215 test definitions of `cli` were
            # candidates to choose from, the flag unsaid (qa91)
            only_tests = " (each is in test code, which --exclude-tests leaves out of the graph, not of " \
                         "the name's definitions)" if exclude_tests and not outside_tests else ""
            return CallAnswer(**base, status="ambiguous", candidates=tuple(r.ref for r in rows),
                              reason=f"{symbol!r} names {len(rows)} definitions{only_tests}: ask again with one of "
                                     "the candidates' refs")
        row = rows[0]
        starts = [row.ref] + [f"{row.ref}.{c}" for c in (*CONSTRUCTORS, row.name)  # Java's: the class's name
                              if self.store.symbol(row.key, f"{row.qualname}.{c}")]
        nodes, edges = walk(self.store, starts, direction, depth, exclude_tests)
        status = "hit" if nodes else f"no_{direction}"
        named = direction[:-1] if len(nodes) == 1 else direction
        reason = ((f"{len(nodes)} {named} within {depth} calls" if depth > 1 else f"{len(nodes)} direct {named}")
                  if nodes else
                  f"{row.ref} is indexed and has no {direction[:-1]}s{' outside tests' if exclude_tests else ''} "
                  "resolved from the syntax (unresolved calls are counted in status, never guessed)")
        # with callers too (FishComplete's listed only its unit test, qa36 N3): a note beside them
        dispatched = self._dispatched_through(row, exclude_tests) if direction == "callers" else ""
        reason += f"; {dispatched}" if dispatched and not nodes else ""
        why = self.why_of(row)
        notices = self._call_notices(direction, [row.key, *(n.path for n in nodes)] if nodes else [])
        unconfirmed = self._unconfirmed(row, exclude_tests) if direction == "callers" else ()
        if direction == "callers" and row.parent is not None and re.fullmatch(r"[\w$]+", symbol):
            # a bare name only a nested definition answers: the calls of it that bind nothing too
            # (`callers echo` after `echo`'s rename was answered by a test's closure of that
            # name, and the calls the rename left behind went unsaid, qa135)
            unconfirmed += tuple(c for c in self._left_behind(symbol, exclude_tests) if c not in unconfirmed)
        notices += ((dispatched,) if dispatched and nodes else ()) + _unconfirmed_notice(row.name, unconfirmed)
        return CallAnswer(**base, status=status, reason=reason, start=row.ref, nodes=nodes, edges=edges,
                          why=why, followed=self.follow(((row.ref, why),), follow), dead_ends=self._dead_ends(why, row),
                          notices=notices, unconfirmed=unconfirmed)

    def _unconfirmed(self, row: SymbolRow, exclude_tests: bool) -> tuple[dict[str, Any], ...]:
        """The calls of its name the syntax could not tie to a definition, which may be calls
        of it: for a method, on receivers the syntax does not type (``book.record()`` after
        ``let book = Ledger::new()``); for anything else, of the bare name imported from outside
        the indexed code (``persist`` from ``zustand/middleware``, the package's own name) or
        bound nowhere. With none of them, "no callers" read as dead code (qa57, qa95)."""
        info = self.store.file_info(row.key)
        if info is None:
            return ()
        # a call can reach only code its language reaches (a JavaScript `cart.add()` is no
        # call of a Java method: qa58); TypeScript and JavaScript are one
        family = SPECS[info[1]].family if info[1] in SPECS else info[1]
        languages = [name for name, spec in SPECS.items() if spec.family == family] or [info[1]]
        # not for a found name a call's module or typed receiver lacks: that one is no call of it
        reasons = RECEIVER_UNKNOWN if row.kind == "method" else NAME_UNKNOWN - {"no_such_member"}
        if row.kind == "function" and row.parent is not None:
            # a closure handed out as an object's member: zustand's `createStoreImpl.setState` is
            # called as `store.setState(...)` 87 times, and "no callers" had said nothing (qa135)
            reasons = reasons | RECEIVER_UNKNOWN
        if is_test_path(row.key):  # a package's import names its source, never its tests' own (qa138)
            reasons = reasons - {"external"}
        return self._unconfirmed_calls(row.name, languages, reasons, exclude_tests)

    def _left_behind(self, symbol: str, exclude_tests: bool) -> tuple[dict[str, Any], ...]:
        """The calls of a name no symbol answers that bind nothing indexed where they are made."""
        return self._unconfirmed_calls(_bare_name(symbol), list(SPECS), NAME_UNKNOWN - {"external"}, exclude_tests)

    def _unconfirmed_calls(self, name: str, languages: list[str], reasons: frozenset[str],
                           exclude_tests: bool) -> tuple[dict[str, Any], ...]:
        return tuple({"caller": u.caller, "path": u.path, "line": u.line, "reason": u.reason, "source": u.source}
                     for u in self.store.unconfirmed_calls(name, languages, sorted(reasons))
                     if not (exclude_tests and is_test_path(u.path)))

    def _dispatched_through(self, row: SymbolRow, exclude_tests: bool) -> str:
        """For a method no call names: the base class's method of its name that has callers, whose
        calls reach this override at run time (``self.format_completion(item)`` in
        ``ShellComplete.complete`` runs ``ZshComplete.format_completion``). Edges go to the
        method a call names, so "no callers" alone read as dead code (qa35 A1)."""
        cls = self.store.symbol(row.key, row.parent) if row.parent else None
        if cls is None or cls.kind not in ("class", "interface"):
            return ""
        header = cls.signature.replace(cls.name, " ", 1)  # its bases as written: (ShellComplete), extends B
        # a Java method of another arity is an overload, no override (qa58: `price(Order, long)`
        # was said to override `price(Order)`)
        java = (self.store.file_info(row.key) or ("", ""))[1] == "java"
        overridden = [s for s in self.store.symbols_where("name", row.name)
                      if s.parent and s.ref != row.ref and (not java or len(s.parameters) == len(row.parameters))
                      and re.search(rf"(?<![\w$]){re.escape(s.parent.rsplit('.', 1)[-1])}(?![\w$])", header)]
        # an override's own super() call is no caller that reaches this one (qa36 N2)
        called = [s.ref for s in overridden
                  if any(n.symbol.rsplit(".", 1)[-1] != row.name
                         for n in walk(self.store, [s.ref], "callers", 1, exclude_tests)[0])]
        if not called:
            return ""
        return (f"it overrides {', '.join(called)}, whose callers reach it through an instance of its class "
                f"(`vault-engine callers {called[0]}`)")

    def with_file_key(self, ref: str) -> str:
        """``core.py#Command.main`` as ``src/click/core.py#Command.main``: a ref's source file
        named by the end of its path, as `outline` takes it, when that end names one indexed
        file (`callers` said "no such symbol", qa62; `show`, "no note", qa69). Only a path a
        grammar reads is looked up: a note's ref costs no scan of the code taps."""
        path, hash_, qualname = ref.partition("#")
        if not detect_language(path) or split_ref(self.keys, ref) is not None:
            return ref
        try:
            key = self.resolve_file(path)
        except UnknownRef:  # no file, or several: the ref as given answers for itself
            return ref
        return f"{key}#{qualname}" if hash_ else key

    def _not_found(self, symbol: str) -> tuple[str, str, tuple[str, ...]]:
        """Status and reason of a symbol no definition answers, and what a misspelt name
        probably meant (find's fuzzy tier says so too; an agent asking callers first got no
        hint, qa24 #8)."""
        path = symbol.split("#", 1)[0]
        found = split_ref(self.keys, symbol)
        if found is not None:
            key, qualname = found
            if qualname is None:  # a file, not a symbol in it
                return "no_such_symbol", (f"{key} is a file: calls are asked of a symbol in it "
                                          f"(`vault-engine outline {key}` lists them)"), ()
            return _suggesting("no_such_symbol", f"{key} is indexed and defines no {qualname!r}",
                               self.meant(qualname, key))
        if "#" in symbol or path.rsplit(".", 1)[-1] in ("py", "ts", "tsx", "js", "go", "rs", "java"):
            reason = self.not_indexed_reason(path)
            if reason:
                return "not_indexed", f"{path} is not indexed: {reason}", ()
        stale = self.stale_files()
        if stale:  # the name may be in a file saved since: not knowing is not "no such symbol"
            return "not_indexed", (f"no indexed symbol {symbol!r}, but {len(stale)} source file(s) changed since the "
                                   f"last index (e.g. {stale[0]}): run `vault-engine index` and ask again"), ()
        skipped = [p for p, _ in self.ledger.skipped() if not is_note(p)]
        extra = f" ({len(skipped)} source files were skipped: see `vault-engine status`)" if skipped else ""
        return _suggesting("no_such_symbol", f"no symbol {symbol!r} in the {len(self.keys)} indexed source files"
                                             f"{extra}{self.syntax_error_note(symbol)}", self.meant(symbol))


def _suggesting(status: str, reason: str, meant: tuple[str, ...]) -> tuple[str, str, tuple[str, ...]]:
    """A not-found answer naming its best suggestion, as find's fuzzy tier does."""
    if meant:
        reason += f"; did you mean {meant[0]}? Confirm it before acting on it"
    return status, reason, meant


def written_since(files: list[str], unknown: str, other: bool = False) -> tuple[str, ...]:
    """One line when source files changed since the last index: ``unknown`` ("callers written
    there since are") is not known until `vault-engine index`."""
    if not files:
        return ()
    return (f"{len(files)} {'other ' if other else ''}source file(s) changed since the last index "
            f"(e.g. {files[0]}): {unknown} not known until `vault-engine index`",)


def _moved_notice(changed: list[str], gone: list[str] | None = None) -> tuple[str, ...]:
    """The lines for an answer whose files changed or were deleted since the last index."""
    notices = []
    if changed:
        notices.append(f"{len(changed)} of this answer's files changed since the last index ({_some(changed)}): "
                       "lines may have moved; run `vault-engine index`")
    if gone:
        notices.append(f"{len(gone)} of this answer's files are missing (deleted or moved since the last index: "
                       f"{_some(gone)}): run `vault-engine index`")
    return tuple(notices)


UNCONFIRMED_SHOWN = 3


def _unconfirmed_notice(name: str, calls: tuple[dict[str, Any], ...],
                        beside: str = ", not counted above") -> tuple[str, ...]:
    """A line for each kind of unconfirmed call of a name (:meth:`CodeQueries._unconfirmed`),
    the first few by place; ``beside`` the callers found, or alone."""
    on_receivers = [c for c in calls if c["reason"] in RECEIVER_UNKNOWN]
    imported = [c for c in calls if c["reason"] == "external"]
    unbound = [c for c in calls if c["reason"] in NAME_UNKNOWN and c["reason"] != "external"]
    sources = ", ".join(sorted({c["source"] for c in imported if c["source"]})[:3])
    said = [(on_receivers, f"of a method named `{name}` on a receiver whose type the syntax does not give{beside} "
                           "(it may be this method, or another of that name)"),
            (imported, f"of `{name}` imported from outside the indexed code{f' ({sources})' if sources else ''}"
                       f"{beside} (if that is this code under its package's name, they call it)"),
            (unbound, f"of `{name}`, a name no indexed definition answers where it is called{beside} (a "
                      "rename leaves such calls behind)")]
    return tuple(f"{len(some)} {'call' if len(some) == 1 else 'calls'} {what}: {_places(some)}"
                 for some, what in said if some)


def _bare_name(symbol: str) -> str:
    """The name a symbol is called by: ``_split_opt`` of ``parser.py#_split_opt`` or ``Parser.split``'s ``split``."""
    return re.split(r"[.#:]", symbol)[-1]


def _places(calls: list[dict[str, Any]]) -> str:
    """The first few calls by place, and how many more."""
    places = ", ".join(f"{c['path']}:{c['line']} in {c['caller'].partition('#')[2] or 'module code'}"
                       for c in calls[:UNCONFIRMED_SHOWN])
    more = len(calls) - UNCONFIRMED_SHOWN
    return places + (f" and {more} more (--json lists them)" if more > 0 else "")


def _some(keys: list[str]) -> str:
    return ", ".join(keys[:3]) + (", ..." if len(keys) > 3 else "")


def _within(root: Path, rel: str) -> bool:
    """Whether ``rel`` stays inside ``root`` (``../x`` of the vault's tap is another tap's)."""
    return (root / rel).resolve().is_relative_to(root.resolve())


def _is_file(path: Path) -> bool:
    """``path.is_file()``, False for a name the file system cannot look up at all (a part of
    255+ bytes raised OSError: a traceback where the answer is "no such file")."""
    try:
        return path.is_file()
    except OSError:
        return False
