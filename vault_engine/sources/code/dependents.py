"""Which files' calls can resolve differently once some files changed: the changed files,
every file that imports one of them, and on through files whose own surface carries what
they import (package files, re-exports, classes with bases). Pure, and conservative: a
file is re-resolved whenever an import of it could name a changed file, by name alone.

Go, Rust and Java see their package's files without an import: a change in one of them
re-resolves every file of those languages.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import PurePosixPath

from vault_engine.sources.code.languages import detect_language
from vault_engine.sources.code.model import ParsedSource

STATIC_LANGUAGES = frozenset({"go", "rust", "java"})
PACKAGE_FILES = frozenset({"__init__", "index", "mod", "lib", "main"})
_SPLIT = re.compile(r"[./:\\\-@]+")


def identity(path: str) -> set[str]:
    """The names an import can reach ``path`` by: its stem, or its folder's for a package file."""
    p = PurePosixPath(path)
    stem = p.name.split(".", 1)[0]
    return {p.parent.name, stem} if stem in PACKAGE_FILES else {stem}


def import_tokens(parsed: ParsedSource) -> set[str]:
    """Every name component an import or re-export of the file mentions."""
    tokens: set[str] = set()
    for imp in parsed.imports:
        tokens.update(t for t in _SPLIT.split(imp.module) if t)
        if imp.name:
            tokens.add(imp.name)
    for export in parsed.exports:
        if export.module:
            tokens.update(t for t in _SPLIT.split(export.module) if t)
    return tokens


def carries_surface(path: str, parsed: ParsedSource) -> bool:
    """Whether what others see of this file depends on what it imports: a return annotation
    does (it types a caller's local by a class the file may import)."""
    return (PurePosixPath(path).name.split(".", 1)[0] in PACKAGE_FILES
            or any(e.module for e in parsed.exports) or any(s.bases or s.returns for s in parsed.symbols))


def surface(parsed: ParsedSource) -> tuple:
    """What other files' resolution can see of a file: its definitions (names, kinds,
    nesting, bases, return annotations, decorators, signatures and parameters: a Go or Rust
    return type is read from the signature, a Java overload by its parameters, and a return
    type changed to another had left the old edges until `index --rebuild`, qa147),
    its module-level imports and exports, and the order of the names bound
    at module and class level. Line numbers are left out: an edit inside a function body
    changes none of this, and then no other file's calls can resolve differently."""
    containers = {s.qualname for s in parsed.symbols if s.kind not in ("function", "method")}
    symbols = tuple((s.qualname, s.kind, s.parent, s.bases, s.returns, s.decorators, s.signature, s.parameters)
                    for s in parsed.symbols)
    imports = tuple((i.local, i.module, i.name, i.aliased) for i in parsed.imports if i.scope is None)
    exports = tuple((e.name, e.target, e.module) for e in parsed.exports)
    # module level (scope None) first among names bound on one line: `class G { h() {} }` binds
    # `G` and `G.h` on line 1, and None beside "G" could not be ordered (qa141: every `index` failed)
    bound = sorted([(b.line, b.scope, b.name, b.kind) for b in parsed.bindings
                    if b.scope is None or b.scope in containers]
                   + [(s.def_line, s.parent, s.name, "def") for s in parsed.symbols],
                   key=lambda item: (item[0], item[1] is not None, item[1] or "", item[2], item[3]))
    return symbols, imports, exports, tuple(item[1:] for item in bound)


def affected(files: Mapping[str, ParsedSource], changed: Iterable[str],
             local: Iterable[str] = ()) -> set[str]:
    """The paths of ``files`` to re-resolve after ``changed`` (paths added, modified or
    removed), plus ``local``: files modified with an unchanged :func:`surface`, whose own
    calls alone need resolving again."""
    changed = set(changed)
    result = {p for p in changed if p in files}
    if any((files[p].language if p in files else detect_language(p)) in STATIC_LANGUAGES for p in changed):
        result |= {p for p, f in files.items() if f.language in STATIC_LANGUAGES}
    tokens = {p: import_tokens(f) for p, f in files.items()}
    frontier = set(changed)
    while frontier:
        names = set().union(*(identity(p) for p in frontier))
        new = {p for p, t in tokens.items() if p not in result and t & names}
        result |= new
        frontier = {p for p in new if carries_surface(p, files[p])}
    return result | {p for p in local if p in files}
