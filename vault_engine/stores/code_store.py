"""The code tap's store: parsed files, symbols, resolved call edges and the notes' backticked
mentions, in ``code.sqlite`` inside the index generation (derived, rebuilt with it).

The ledger keeps each source file as a document (its sections are what ``search`` finds);
this store keeps what only code has. It is synced to the ledger by content hash on every
index run (indexing/code_sync.py), so a crash between the two writes is repaired next run.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vault_engine.errors import IndexDamaged, IndexMissing
from vault_engine.layout import CODE_FILE  # noqa: F401  (re-exported: the name lives in layout.py)

VERSION = "20"  # 2: unresolved calls counted per file; 3-4: wrapped arrow consts, distant repeats, ctor.class;
# 5: return annotations and bound calls kept for typing locals; 6: each repeat its own symbol
# (``name~2``), consts bound to a function by name; 7: a call by a repeated name an edge to each
# 8: CommonJS exports (module.exports, exports.x) and `exports.x = function ...` definitions
# 9: calls written in a Rust macro's arguments (`write!(f, "{}", self.value())`); Rust calls into the
# crate's other modules (`use`, `util::f()`, `crate::`, `super::`, `Type::f()`); TypeScript namespaces
# 10: method calls on a receiver of no known type kept by name (unconfirmed); Java fields typed
# 11: Go, Rust and Java locals typed by the literal or the signature of the call that makes them
# 12: a Python decorator without arguments (`@pass_context`) is a call of it; a method called on
# a name defined twice (`cli.main()`) is unconfirmed, not a call of the name
# 13: calls of a bare name that binds nothing indexed kept by name too (unconfirmed), with the
# import outside the indexed code they name (`source`)
# 14: a method called on what a call returns: an edge when the call builds a class
# (`Option(...).add_to_parser`), else kept by the method's name (`make().run`); a TS/JS
# definition inside a callback seen only by the calls inside it (Symbol.visible)
# 15: a method of any expression kept by its name (`stores[0].go`); parentheses, `!` and a TS
# cast read through (`(api as Api).go` is `api.go`); Python's `(await Widget()).go` is no edge;
# a name a module no longer exports, called through a namespace import, kept by its name; a
# class expression bound to a const is a class (`const Repo = class {...}`); `<T>x` read through;
# a literal's own method is `<literal>.m` in every language; Rust, Go and Java keep what no
# dotted name reads by the same rule
# 16: a call through an attribute the class body does not bind (`self.store.save()`) is on a
# receiver of no known type (unconfirmed "attribute", not "no_such_member"); a one-line
# definition's body words; Python methods under an `if` of the class body; Rust tuple structs
# built; Java classes named from where they are written; Go imports outside the module; Java
# inner classes' calls of the outer class; Go structs' embedded structs (bases) and promoted methods;
# a callback's own definitions seen only inside it within a named function too; Java's
# `new K().h()` an edge; Go's `var s = NewStore()` typed; an object literal's and a nameless class's
# methods bound by no bare name, and `this` in an object literal's method no class; a call of a
# TS value no call of the type of its name
# 17: Rust inline `mod` blocks: an `impl` there names its methods within the module
# (`inner.Thing.go`), and a bare name or a type is looked up in the modules around the call first
# 18: Go's types of another package (`st.Ledger`), Rust's brought in by `use` or re-exported by
# `pub use`, Java's generic types, `import static` and Maven's source sets; a call on an interface
# or on a type no file declares kept by its method's name (qa159); Java's `new Line.Item()` keeps its
# path, and a class nested elsewhere in the file is not in scope; a module-level callback's
# parameter (and a comprehension's variable) is bound inside it only; a Java anonymous class is a
# class of its own, `$Comparator`, its base what it implements; Go's named results and type switch
# variables bound; a JavaScript class field holding a function a method; a JSX element of a
# component a call of it (qa162); a const in a callback or a block bound there alone (qa164, qa165);
# a Python import in an `except` clause a fallback (qa165)
# 19: a JavaScript function given methods through its prototype a class (`Bus.prototype.publish`);
# a TS/JS function-wide `const` made by `new`, or a local of a declared type, typed; a function or
# class declared in a block, and a `catch` parameter, seen there alone; `super()` of a base with no
# constructor an edge to the base; `export declare function` exported; a class expression
# bound to a const in a function that class (qa174)
# 20: a Python module importing its own name (`from .live import Live` in live.py) leaves it the
# module's definition, no re-export cycle (qa194); a file's own section ends at its last line, not
# one past it (qa196)
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS files (
    key TEXT PRIMARY KEY, tap TEXT NOT NULL, language TEXT NOT NULL, lines INTEGER NOT NULL,
    hash TEXT NOT NULL, error TEXT, parsed BLOB NOT NULL   -- ParsedSource, pickled: for re-resolving
);
CREATE TABLE IF NOT EXISTS symbols (
    key TEXT NOT NULL, qualname TEXT NOT NULL, name TEXT NOT NULL, kind TEXT NOT NULL,
    line_start INTEGER NOT NULL, def_line INTEGER NOT NULL, line_end INTEGER NOT NULL,
    signature TEXT NOT NULL, docstring TEXT, parameters TEXT NOT NULL, decorators TEXT NOT NULL,
    parent TEXT, PRIMARY KEY (key, qualname)
);
CREATE INDEX IF NOT EXISTS symbols_name ON symbols(name);
CREATE INDEX IF NOT EXISTS symbols_qualname ON symbols(qualname);
CREATE TABLE IF NOT EXISTS edges (
    tap TEXT NOT NULL, caller TEXT NOT NULL, callee TEXT NOT NULL, path TEXT NOT NULL,
    line INTEGER NOT NULL, how TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS edges_caller ON edges(caller);
CREATE INDEX IF NOT EXISTS edges_callee ON edges(callee);
CREATE TABLE IF NOT EXISTS unresolved (
    tap TEXT NOT NULL, path TEXT NOT NULL, reason TEXT NOT NULL, count INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS edges_path ON edges(path);
CREATE TABLE IF NOT EXISTS unconfirmed (
    tap TEXT NOT NULL, caller TEXT NOT NULL, name TEXT NOT NULL, path TEXT NOT NULL, line INTEGER NOT NULL,
    reason TEXT NOT NULL, source TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS unconfirmed_name ON unconfirmed(name);
CREATE INDEX IF NOT EXISTS unconfirmed_path ON unconfirmed(tap, path);
CREATE TABLE IF NOT EXISTS mentions (note_path TEXT NOT NULL, token TEXT NOT NULL, line INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS mentions_token ON mentions(token);
CREATE INDEX IF NOT EXISTS mentions_note ON mentions(note_path);
"""


@dataclass(frozen=True, slots=True)
class SymbolRow:
    key: str  # the file's ref path
    qualname: str
    name: str
    kind: str
    line_start: int
    def_line: int
    line_end: int
    signature: str
    docstring: str | None
    parameters: tuple[str, ...]
    decorators: tuple[str, ...]
    parent: str | None

    @property
    def ref(self) -> str:
        return f"{self.key}#{self.qualname}"


@dataclass(frozen=True, slots=True)
class EdgeRow:
    caller: str
    callee: str
    path: str
    line: int
    how: str


@dataclass(frozen=True, slots=True)
class UnconfirmedRow:
    """A call by ``name`` the syntax cannot tie to a definition (callgraph.Unconfirmed)."""

    caller: str
    name: str
    path: str
    line: int
    reason: str
    source: str = ""


_SYMBOL_COLUMNS = ("key, qualname, name, kind, line_start, def_line, line_end, signature, docstring, "
                   "parameters, decorators, parent")


def _marks(values: Sequence[object]) -> str:
    """SQL placeholders for ``IN (...)`` of these values."""
    return ",".join("?" * len(values))


def _symbol(r: tuple) -> SymbolRow:
    """A row of ``_SYMBOL_COLUMNS``; parameters and decorators are stored as JSON lists."""
    key, qualname, name, kind, line_start, def_line, line_end, signature, docstring = r[:9]
    return SymbolRow(key, qualname, name, kind, line_start, def_line, line_end, signature, docstring,
                     tuple(json.loads(r[9])), tuple(json.loads(r[10])), r[11])


class CodeStore:
    """``code.sqlite``: one writer (under the vault's writer lock), any number of readers."""

    def __init__(self, path: Path, *, writer: bool = True):
        """Open (a writer creates, and rebuilds empty one of another version, which the
        indexer then refills from the ledger); a reader never changes the file and refuses
        a store of another version with the command that fixes it."""
        self.path = path
        fresh = not path.exists()
        try:
            self.db = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
            if not writer:
                if self.get_meta("version") != VERSION:
                    self.db.close()
                    raise IndexMissing(f"the code index {path} was made by another version of vault-engine "
                                       "(or not finished): run `vault-engine index` to rebuild it")
                self.fresh = False
                return
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            if not fresh and self.get_meta("version") != VERSION:
                self._drop_all()
                fresh = True
            self.db.executescript(SCHEMA)
            self.set_meta("version", VERSION)
        except sqlite3.DatabaseError as exc:
            raise IndexDamaged(f"the code index {path} cannot be read ({exc}): run `vault-engine index`, "
                               "which rebuilds it from the source files") from exc
        self.fresh = fresh

    def close(self) -> None:
        self.db.close()

    def _drop_all(self) -> None:
        for (name,) in self.db.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall():
            self.db.execute(f"DROP TABLE IF EXISTS {name}")

    @contextmanager
    def transaction(self) -> Iterator[None]:
        if self.db.in_transaction:  # nested: the outer transaction commits
            yield
            return
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def get_meta(self, key: str) -> str | None:
        try:
            row = self.db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        except sqlite3.OperationalError:  # no meta table yet
            return None
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    # -- files and symbols ------------------------------------------------------------------

    def file_hashes(self) -> dict[str, str]:
        return dict(self.db.execute("SELECT key, hash FROM files"))

    def file_hashes_of(self, keys: Iterable[str]) -> dict[str, str]:
        keys = list(keys)
        marks = _marks(keys)
        return dict(self.db.execute(f"SELECT key, hash FROM files WHERE key IN ({marks})", keys)) if keys else {}

    def put_file(self, key: str, tap: str, parsed, digest: str) -> None:
        """Store one parsed file (a ``ParsedSource`` whose paths are root-relative) and its symbols."""
        import pickle  # writers and the resolver only: a query never unpickles

        self.delete_files([key])
        self.db.execute("INSERT INTO files(key, tap, language, lines, hash, error, parsed) VALUES (?,?,?,?,?,?,?)",
                        (key, tap, parsed.language, parsed.lines, digest, parsed.error,
                         pickle.dumps(parsed, protocol=pickle.HIGHEST_PROTOCOL)))
        self.db.executemany(
            f"INSERT OR REPLACE INTO symbols({_SYMBOL_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            [(key, s.qualname, s.name, s.kind, s.line_start, s.def_line, s.line_end, s.signature,
              s.docstring, json.dumps(list(s.parameters)), json.dumps(list(s.decorators)), s.parent)
             for s in parsed.symbols])

    def delete_files(self, keys: Iterable[str]) -> None:
        rows = [(k,) for k in keys]
        self.db.executemany("DELETE FROM files WHERE key=?", rows)
        self.db.executemany("DELETE FROM symbols WHERE key=?", rows)

    def hashes_of_tap(self, tap: str) -> dict[str, str]:
        return dict(self.db.execute("SELECT key, hash FROM files WHERE tap=?", (tap,)))

    def parsed(self, keys: Iterable[str]) -> dict[str, Any]:
        """key -> ParsedSource of those files (what the resolver needs; unpickled, so typed
        by the caller: the store sits below the code tap that defines it)."""
        import pickle

        found: dict[str, Any] = {}
        keys = list(keys)
        for i in range(0, len(keys), 500):
            chunk = keys[i:i + 500]
            marks = _marks(chunk)
            found.update((k, pickle.loads(b)) for k, b in
                         self.db.execute(f"SELECT key, parsed FROM files WHERE key IN ({marks})", chunk))
        return found

    def files_holding(self, word: str) -> list[str]:
        """Keys of the files whose stored parse holds ``word`` (pickled strings are stored
        as their UTF-8 bytes): a cheap filter before unpickling the few that may define it."""
        return [k for (k,) in self.db.execute("SELECT key FROM files WHERE instr(parsed, ?) > 0",
                                              (word.encode("utf-8"),))]

    def file_info(self, key: str) -> tuple[str, str, int, str | None] | None:
        """(tap, language, lines, syntax error) of an indexed file."""
        return self.db.execute("SELECT tap, language, lines, error FROM files WHERE key=?", (key,)).fetchone()

    def file_keys(self) -> list[str]:
        return [k for (k,) in self.db.execute("SELECT key FROM files ORDER BY key")]

    def files_with_errors(self) -> list[tuple[str, str]]:
        return list(self.db.execute("SELECT key, error FROM files WHERE error IS NOT NULL ORDER BY key"))

    def symbols_of(self, key: str) -> list[SymbolRow]:
        rows = self.db.execute(f"SELECT {_SYMBOL_COLUMNS} FROM symbols WHERE key=? ORDER BY line_start, qualname",
                               (key,))
        return [_symbol(r) for r in rows]

    def symbols_where(self, column: str, value: str) -> list[SymbolRow]:
        """Symbols whose ``name`` or ``qualname`` is ``value``."""
        assert column in ("name", "qualname")
        rows = self.db.execute(f"SELECT {_SYMBOL_COLUMNS} FROM symbols WHERE {column}=?", (value,))
        return [_symbol(r) for r in rows]

    def symbol(self, key: str, qualname: str) -> SymbolRow | None:
        row = self.db.execute(f"SELECT {_SYMBOL_COLUMNS} FROM symbols WHERE key=? AND qualname=?",
                              (key, qualname)).fetchone()
        return _symbol(row) if row else None

    def symbol_names(self) -> list[tuple[str, str]]:
        """(key, qualname) of every symbol, in a stable order (the fuzzy tier's names)."""
        return list(self.db.execute("SELECT key, qualname FROM symbols ORDER BY key, line_start, qualname"))

    # -- edges --------------------------------------------------------------------------------

    def replace_edges(self, tap: str, paths: Iterable[str] | None, edges: Iterable[EdgeRow],
                      unresolved_at: dict[str, dict[str, int]], unconfirmed: Iterable[UnconfirmedRow] = ()) -> None:
        """The call edges, unresolved counts and unconfirmed method calls of the call sites in
        ``paths`` (every file of ``tap`` when None), replaced."""
        for table in ("edges", "unresolved", "unconfirmed"):
            if paths is None:
                self.db.execute(f"DELETE FROM {table} WHERE tap=?", (tap,))
            else:
                self.db.executemany(f"DELETE FROM {table} WHERE tap=? AND path=?", [(tap, p) for p in paths])
        self.db.executemany("INSERT INTO edges(tap, caller, callee, path, line, how) VALUES (?,?,?,?,?,?)",
                            [(tap, e.caller, e.callee, e.path, e.line, e.how) for e in edges])
        self.db.executemany("INSERT INTO unresolved(tap, path, reason, count) VALUES (?,?,?,?)",
                            [(tap, p, r, n) for p, reasons in unresolved_at.items() for r, n in reasons.items()])
        self.db.executemany("INSERT INTO unconfirmed(tap, caller, name, path, line, reason, source) "
                            "VALUES (?,?,?,?,?,?,?)",
                            [(tap, u.caller, u.name, u.path, u.line, u.reason, u.source) for u in unconfirmed])

    def drop_tap(self, tap: str) -> None:
        self.replace_edges(tap, None, (), {})

    def unconfirmed_calls(self, name: str, languages: Iterable[str], reasons: Iterable[str]) -> list[UnconfirmedRow]:
        """The calls by ``name`` the syntax could not tie to a definition for one of
        ``reasons``, in files of ``languages``, in file order; two calls on one line once."""
        languages, reasons = list(languages), list(reasons)
        rows = self.db.execute("SELECT DISTINCT u.caller, u.name, u.path, u.line, u.reason, u.source "
                               "FROM unconfirmed u "
                               f"JOIN files f ON f.key=u.path WHERE u.name=? AND f.language IN ({_marks(languages)}) "
                               f"AND u.reason IN ({_marks(reasons)}) ORDER BY u.path, u.line",
                               (name, *languages, *reasons))
        return [UnconfirmedRow(*r) for r in rows]

    def edges_touching(self, refs: Iterable[str], column: str) -> list[EdgeRow]:
        """Edges whose ``callee`` (callers of refs) or ``caller`` (callees of refs) is in ``refs``."""
        assert column in ("caller", "callee")
        refs = list(refs)
        found: list[EdgeRow] = []
        for i in range(0, len(refs), 500):
            chunk = refs[i:i + 500]
            marks = _marks(chunk)
            found += [EdgeRow(*r) for r in self.db.execute(
                f"SELECT caller, callee, path, line, how FROM edges WHERE {column} IN ({marks})", chunk)]
        return found

    def counts(self) -> dict[str, int]:
        one = lambda sql: self.db.execute(sql).fetchone()[0]  # noqa: E731
        return {"files": one("SELECT COUNT(*) FROM files"), "symbols": one("SELECT COUNT(*) FROM symbols"),
                "edges": one("SELECT COUNT(*) FROM edges"),
                "unresolved_calls": one("SELECT COALESCE(SUM(count), 0) FROM unresolved")}

    def unresolved(self) -> dict[str, int]:
        rows = self.db.execute("SELECT reason, SUM(count) FROM unresolved GROUP BY reason ORDER BY 2 DESC")
        return {r: n for r, n in rows}

    # -- mentions -------------------------------------------------------------------------------

    def clear_mentions(self) -> None:
        """Forget every mention (before a full rebuild of them)."""
        self.db.execute("DELETE FROM mentions")

    def replace_mentions(self, note_paths: Iterable[str], rows: Iterable[tuple[str, str, int]]) -> None:
        """Forget the mentions of ``note_paths``, then add ``rows`` (note path, token, line)."""
        self.db.executemany("DELETE FROM mentions WHERE note_path=?", [(p,) for p in note_paths])
        self.db.executemany("INSERT INTO mentions(note_path, token, line) VALUES (?,?,?)", rows)

    def mentioning(self, tokens: Iterable[str]) -> list[tuple[str, str, int]]:
        """(note path, token, line) of the mentions of any of ``tokens``."""
        tokens = list(dict.fromkeys(tokens))
        if not tokens:
            return []
        marks = _marks(tokens)
        return list(self.db.execute(f"SELECT note_path, token, line FROM mentions WHERE token IN ({marks}) "
                                    "ORDER BY note_path, line", tokens))
