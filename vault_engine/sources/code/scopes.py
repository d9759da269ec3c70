"""The tables the resolvers look names up in, built once over every parsed file.

A scope is ``(path, qualname)``; ``qualname`` None is the module. Each scope knows the
definitions, imports and other bindings made directly in it, so resolving a name is a walk
outward through scopes that stops at the first one that binds it.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping
from pathlib import PurePosixPath

from vault_engine.sources.code.model import REPEAT, ParsedSource, Symbol

CLASS_KINDS = ("class", "interface", "struct", "trait", "enum", "impl")
_CHAIN = re.compile(r"^(?:super\(\)|[\w$#]+)(?:\.[\w$#]+)*$")


class Miss(Exception):
    """A call that does not resolve; ``reason`` is its category in the unresolved counts, and
    ``source`` what an import outside the indexed code names (``zustand/middleware``)."""

    def __init__(self, reason: str, source: str = ""):
        super().__init__(reason)
        self.reason = reason
        self.source = source


# of what any call returns: `make().run`, `a().b().c`, `a[0]().go`; `(a or b).go` calls nothing
_ON_A_CALL = re.compile(r"[\w$)\]]\(.*\)(?:\.[\w$]+)+$")
_A_MEMBER = re.compile(r"[^\s.]\.[\w$]+$")  # a member of some expression: `stores[0].go`
# A member of what one call returns, as the extractors write it (its arguments left out):
# `Option().add_to_parser`, `new Store().go` (the name called, the members after the call)
ON_ONE_CALL = re.compile(r"^(new )?([\w$]+(?:\.[\w$]+)*)\(\)((?:\.[\w$]+)+)$")


def unparsed(callee: str) -> Miss:
    """The miss of a callee no dotted name reads: a method of what a call returns, of another
    expression the syntax gives no type (`stores[0].go`, Rust's `Ledger { n: 1 }.record`, qa139,
    qa142), else no method call at all. One rule for every language."""
    return Miss("call_result" if _ON_A_CALL.search(callee) else "expression" if _A_MEMBER.search(callee)
                else "dynamic")


class Redefined(Exception):
    """A call to a name its scope defines more than once (``getchar`` and ``getchar~2`` in
    ``if``/``else`` branches, Java overloads): the syntax does not say which definition runs,
    so the call is an edge to each of them, ``how`` ``redefined``, and none is singled out."""

    def __init__(self, path: str, symbols: list[Symbol]):
        super().__init__(path)
        self.targets = [(path, sym.qualname) for sym in symbols]


_OPTIONAL = re.compile(r"^(?:(?:typing|t)\.)?Optional\[(.+)\]$|^(.+?) *\| *None$|^None *\| *(.+)$")


def non_optional(annotation: str) -> str:
    """An annotation without its quotes and its ``Optional[...]`` / ``| None``: a method
    called on None calls nothing, so ``C | None`` types a call as ``C`` does."""
    text = annotation.strip().strip("'\"")
    optional = _OPTIONAL.match(text)
    return next(g for g in optional.groups() if g) if optional else text


def callee_parts(callee: str) -> tuple[bool, list[str]] | None:
    """(is a ``new`` call, the dotted parts) of a normalized callee; None for any other shape."""
    is_new = callee.startswith("new ")
    text = callee[4:] if is_new else callee
    if not _CHAIN.match(text):
        return None
    return is_new, text.split(".")


def python_module(path: str, packages: frozenset[str] | set[str] = frozenset()) -> tuple[str, bool]:
    """Dotted module name of a Python file, and whether it is a package's ``__init__``.

    In a folder of ``packages`` (folders holding an ``__init__.py``) the name starts at the
    top of the unbroken chain of packages, as Python's import system sees it from the folder
    above: ``src/click/src/click/core.py`` is ``click.core`` (a repository copied into a
    vault's ``src/<name>/``). Elsewhere it is the path below a ``src/`` folder."""
    parts = list(PurePosixPath(path).with_suffix("").parts)
    folders = parts[:-1]
    if folders and "/".join(folders) in packages:
        start = len(folders)
        while start > 0 and "/".join(folders[:start]) in packages:
            start -= 1
        parts = parts[start:]
    elif "src" in parts[:-1]:
        parts = parts[parts.index("src") + 1:]
    is_package = parts[-1] == "__init__"
    if is_package:
        parts = parts[:-1]
    return ".".join(parts), is_package


class Index:
    """Per-scope tables over all files."""

    def __init__(self, files: Mapping[str, ParsedSource]):
        self.files = files
        self.symbols: dict[str, dict[str, Symbol]] = {}
        self.children: dict[tuple, dict[str, Symbol]] = defaultdict(dict)
        self.imports: dict[tuple, dict[str, list]] = defaultdict(lambda: defaultdict(list))
        self.bindings: dict[tuple, dict[str, list]] = defaultdict(lambda: defaultdict(list))
        self.stars: dict[tuple, list] = defaultdict(list)
        self.modules: dict[str, str] = {}  # Python dotted name -> path; the first file wins
        self.module_parents: set[str] = set()  # every dotted name some module's name goes on from
        self.packages: set[str] = set()
        self.package_dirs = {p.rsplit("/", 1)[0] for p in files if p.endswith("/__init__.py")}
        for path, parsed in sorted(files.items()):
            self._add(path, parsed)

    def _add(self, path: str, parsed: ParsedSource) -> None:
        table = self.symbols[path] = {}
        for sym in parsed.symbols:
            table[sym.qualname] = sym
            self.children[(path, sym.parent)].setdefault(sym.name, sym)
        for imp in parsed.imports:
            if imp.local == "*":
                self.stars[(path, imp.scope)].append(imp)
            else:
                self.imports[(path, imp.scope)][imp.local].append(imp)
        for b in parsed.bindings:
            self.bindings[(path, b.scope)][b.name].append(b)
        if parsed.language == "python":
            name, is_package = python_module(path, self.package_dirs)
            self.modules.setdefault(name, path)
            parts = name.split(".")
            self.module_parents.update(".".join(parts[:n]) for n in range(1, len(parts)))
            if is_package:
                self.packages.add(name)

    def symbol(self, path: str, qualname: str | None) -> Symbol | None:
        return self.symbols.get(path, {}).get(qualname) if qualname else None

    def is_class(self, path: str, qualname: str | None) -> bool:
        sym = self.symbol(path, qualname)
        return sym is not None and sym.kind in CLASS_KINDS

    def chain(self, path: str, qualname: str | None) -> list[str | None]:
        """The scopes a name is looked up in from ``qualname``: itself, then outward to the
        module. A class body is visible only to its own statements, not to its methods."""
        out: list[str | None] = []
        current = qualname
        while current is not None:
            if not (out and self.is_class(path, current)):
                out.append(current)
            sym = self.symbol(path, current)
            current = sym.parent if sym is not None and sym.parent != current else None
        out.append(None)
        return out

    def last_binding(self, path: str, scope: str | None, name: str, line: int | None = None,
                     before: int | None = None):
        """At module and class level the last binding in source order decides: a
        ("def", Symbol) | ("import", Import) | ("assign", Binding), or None. A definition a
        callback holds binds only for a call at a ``line`` inside it (:meth:`seen_from`); with
        ``before``, only bindings made on or above that line count (code run in order)."""
        key = (path, scope)
        found: list = []
        sym = self.children.get(key, {}).get(name)
        repeats = self.seen_from(path, sym, line) if sym is not None else []
        if repeats:  # its last definition's line decides against the other bindings
            found.append((max(d.def_line for d in repeats), 2, ("def", repeats[0])))
        for imp in self.preferred_imports(key, name):
            found.append((imp.line, 1, ("import", imp)))
        for b in self.bindings.get(key, {}).get(name, ()):
            if b.kind == "assign":
                found.append((b.line, 0, ("assign", b)))
        if before is not None:
            found = [f for f in found if f[0] <= before]
        if not found:
            return None
        best = max(found, key=lambda f: (f[0], f[1]))[2]
        if best[0] == "def" and len(repeats) > 1:
            raise Redefined(path, repeats)
        return best

    def preferred_imports(self, key: tuple, name: str) -> list:
        """The imports binding ``name`` in a scope, those an ``except`` clause falls back to
        left out when another binds it: the one that normally runs is the call's."""
        imports = self.imports.get(key, {}).get(name, [])
        return [imp for imp in imports if not imp.fallback] or list(imports)

    def seen_from(self, path: str, sym: Symbol, line: int | None) -> list[Symbol]:
        """``sym`` and its repeats (``name~2``) that a call at ``line`` sees (every one, for no
        line): those of the innermost callback around the line that defines the name, which
        shadow those further out; else those no callback holds (qa138: a callback's own
        `createStore` had shared its calls with the file's)."""
        repeats = self._repeats(path, sym)
        if line is None:
            return repeats
        around = [d for d in repeats if d.visible is not None and d.visible[0] <= line <= d.visible[1]]
        if around:
            innermost = min(d.visible[1] - d.visible[0] for d in around if d.visible is not None)
            return [d for d in around if d.visible is not None and d.visible[1] - d.visible[0] == innermost]
        return [d for d in repeats if d.visible is None]

    def _repeats(self, path: str, sym: Symbol) -> list[Symbol]:
        table = self.symbols.get(path, {})
        out, n = [sym], 2
        while f"{sym.qualname}{REPEAT}{n}" in table:
            out.append(table[f"{sym.qualname}{REPEAT}{n}"])
            n += 1
        return out

    def only_definition(self, path: str, sym: Symbol) -> Symbol:
        """``sym``, unless its scope defines its name again: then :class:`Redefined`, with
        every definition of the name."""
        if f"{sym.qualname}{REPEAT}2" in self.symbols.get(path, {}):
            raise Redefined(path, self._repeats(path, sym))
        return sym
