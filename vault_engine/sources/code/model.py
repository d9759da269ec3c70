"""Value types of the code tap: what one file declares, and the call graph over many files.

Everything here is plain frozen data, so a parsed file can be cached, compared in a test or
handed to the resolver without tree-sitter in sight (the tree is gone once a file is parsed).
"""

from __future__ import annotations

from dataclasses import dataclass, field

KINDS = ("function", "method", "class", "interface", "struct", "trait", "impl", "enum", "type",
         "property", "constructor", "module")
REPEAT = "~"  # ``getchar~2``: the second definition of ``getchar`` in one scope (its own symbol)


@dataclass(frozen=True, slots=True)
class Symbol:
    """One definition. ``qualname`` is unique within a file: definitions that share one
    (overload stubs, a property's getter and setter) are one symbol; a name defined again in
    its scope (``if``/``else`` branches) is another symbol, ``name~2``."""

    qualname: str
    name: str
    kind: str
    line_start: int  # 1-based; the first decorator's line when decorated
    def_line: int  # the line of the ``def``/``function``/``class`` keyword itself
    line_end: int
    signature: str  # the header up to the body, whitespace collapsed
    docstring: str | None = None
    parameters: tuple[str, ...] = ()
    decorators: tuple[str, ...] = ()  # as written, without the "@" (Rust/Java: attributes, annotations)
    parent: str | None = None  # qualname of the enclosing symbol (Go/Rust methods: the receiver type)
    bases: tuple[str, ...] = ()  # classes: the bases / extends / implements as written
    returns: str | None = None  # functions: the return annotation as written (``Context | None``)
    definitions: int = 1  # how many definitions fold into it (a property's accessors), overload
    # stubs aside: bindings of several are one scope's, and which one a call sits in is lost
    # The lines of the function no symbol is that holds it (a test's `it('...', () => { const
    # createStore = ... })`): its scope's name, seen only from calls between them
    visible: tuple[int, int] | None = None


@dataclass(frozen=True, slots=True)
class Import:
    """A name bound by an import. ``name`` is None for a whole module (``import a.b``,
    ``import * as ns``); ``"*"`` for a star import (then ``local`` is ``"*"`` too)."""

    local: str
    module: str  # as written: "a.b", "..core", "./x", "fmt", "crate::a::b"
    name: str | None
    line: int
    scope: str | None = None  # qualname of the enclosing function; None: module level
    aliased: bool = False  # ``import a.b as c``: ``c`` is a.b (without ``as``, ``a`` is the package a)
    fallback: bool = False  # in an ``except`` clause: what runs only when the import above it failed


@dataclass(frozen=True, slots=True)
class Export:
    """A name a module offers to importers beyond its own definitions' names, or states
    explicitly: ``__all__``, a package ``__init__.py``'s imports, TS/JS ``export``."""

    name: str  # the exported name; "default"; "*" for ``export * from``
    target: str | None  # the name in this file (``module`` None) or in ``module``; None: the whole module
    module: str | None  # the module re-exported from, as written; None: this file's own binding
    line: int


@dataclass(frozen=True, slots=True)
class Call:
    """One call site. ``callee`` is normalized: ``foo``, ``self.bar``, ``super().bar``,
    ``pkg.mod.f``, ``new Cls``, ``this.m``; other shapes keep their (collapsed) text."""

    caller: str | None  # qualname of the enclosing symbol; None: module level
    callee: str
    line: int
    arguments: int | None = None  # Java: how many it passes, which picks among overloads


@dataclass(frozen=True, slots=True)
class Binding:
    """A name bound in a scope other than by a definition or an import (parameter, assignment,
    loop target...): what makes a same-named call local, hence unresolved."""

    scope: str | None
    name: str
    line: int
    kind: str  # param | assign (``del`` and ``match`` captures too) | declare | inline | global | nonlocal
    annotation: str | None = None  # the declared type as written (``x: T = ...``; Go receiver: its type)
    value: str | None = None  # the normalized callee when the name is bound to a call's result
    entered: bool = False  # bound by ``with value(...) as name``: to what the call's ``__enter__`` gives
    until: int | None = None  # an ``inline`` binding's last line: a callback's parameter is bound inside it only


@dataclass(frozen=True, slots=True)
class ParsedSource:
    """Everything the code tap keeps of one file."""

    path: str
    language: str
    lines: int
    symbols: tuple[Symbol, ...] = ()
    imports: tuple[Import, ...] = ()
    exports: tuple[Export, ...] = ()
    calls: tuple[Call, ...] = ()
    bindings: tuple[Binding, ...] = ()
    error: str | None = None  # one line when tree-sitter reported syntax errors

    def symbol(self, qualname: str) -> Symbol | None:
        """The symbol with this qualified name, if the file defines it."""
        for sym in self.symbols:
            if sym.qualname == qualname:
                return sym
        return None


@dataclass(frozen=True, slots=True)
class Edge:
    caller: str  # a code ref: "<path>#<qualname>", or "<path>" for module-level code
    callee: str
    path: str  # the file of the call site
    line: int
    how: str  # how it was resolved: "name.local", "import", "self", "super", "ctor.init", ...


# Unresolved because the syntax does not say what the receiver is: such a call may be one of
# any method of its name ("attribute": also an attribute the class body does not bind, called
# through, `self.store.save()`). A builtin or an outside package rules that out, and a receiver
# known to lack the method called makes it a call of no definition (NAME_UNKNOWN's "no_such_member").
# "interface": a receiver typed by an interface, whose call may reach any type's method of its
# name; "unplaced": a type named where no file of its package declares it (qa159).
RECEIVER_UNKNOWN = frozenset({"local", "attribute", "assigned", "ctor_assigned", "this", "redefined", "call_result",
                              "expression", "interface", "unplaced"})
# Unresolved because the name binds nothing indexed: imported from outside the indexed code (a
# package's own name, `from 'zustand/middleware'`, with no package.json to map it), or imported
# or called as a name no module or typed receiver defines (what a rename leaves behind). It may
# be a call of any definition of its name.
NAME_UNKNOWN = frozenset({"external", "no_such_member", "not_exported", "builtin_or_global"})


@dataclass(frozen=True, slots=True)
class Unconfirmed:
    """A call the syntax cannot tie to a definition: a method call on a receiver it does not
    type (a local bound by a call, a field, an unannotated parameter: ``book.record()``), or a
    call of a bare name that binds nothing indexed (imported from outside the indexed code,
    ``persist`` from ``zustand/middleware``; or defined nowhere, as a rename leaves its old
    name). Kept by the name called, so that ``callers`` can say which calls of that name it
    could not confirm, rather than a bare "no callers" that reads as dead code."""

    caller: str  # a code ref, as Edge's
    name: str  # the name as called: "record"
    path: str
    line: int
    reason: str  # its unresolved reason: "local", "attribute", "external", "builtin_or_global", ...
    source: str = ""  # for "external": what the import names ("zustand/middleware")


@dataclass(frozen=True, slots=True)
class CallGraph:
    edges: tuple[Edge, ...]
    unresolved: dict[str, int] = field(default_factory=dict)  # reason -> number of call sites
    definitions: dict[str, tuple[str, Symbol | None]] = field(default_factory=dict)  # ref -> (path, symbol)
    unresolved_at: dict[str, dict[str, int]] = field(default_factory=dict)  # path -> reason -> call sites
    unconfirmed: tuple[Unconfirmed, ...] = ()  # the unresolved calls of a method on some receiver
