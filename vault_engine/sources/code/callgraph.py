"""The call graph of a code tree: edges resolved by scope rules, unresolved calls counted.

A ref is ``"<path>#<qualname>"``, or ``"<path>"`` for module-level code; paths are relative
to the code root. Nothing is guessed: a call whose target the syntax does not establish (a
builtin, an unannotated parameter, a local whose class is not certain, an attribute of an
unknown object, a package outside the repository) is counted by reason and gets no edge; a
call by a name its scope defines twice is an edge to each definition (``how`` "redefined"),
unless the arguments choose one Java overload. The bounded walks of ``callers`` and
``callees`` read the stored graph (retrieval/code/graph.py).
"""

from __future__ import annotations

import builtins
import re
from collections import Counter
from collections.abc import Collection, Mapping

from vault_engine.sources.code.dynamic_resolver import DynamicResolver
from vault_engine.sources.code.model import (
    NAME_UNKNOWN,
    RECEIVER_UNKNOWN,
    CallGraph,
    Edge,
    ParsedSource,
    Symbol,
    Unconfirmed,
)
from vault_engine.sources.code.scopes import Index, Miss, Redefined
from vault_engine.sources.code.static_resolver import StaticResolver
from vault_engine.sources.code.syntax import LITERAL

# receiver.method, as Call normalizes it: the method, and the name the receiver opens with; the
# receiver may be what calls return (`make().run`, `Gadget().to_widget().render`) or any
# expression (`stores[0].go`, `(api).go`)
_METHOD = re.compile(r"\.([\w$]+)$")
_HEAD = re.compile(r"^(?:new )?([\w$]+)")
_NAME_CALL = re.compile(r"^(?:new )?([\w$]+)$")

_PYTHON_BUILTINS = frozenset(dir(builtins))  # `len(x)` binds a builtin, not an unknown name


def ref(path: str, qualname: str | None) -> str:
    """The code ref of a symbol, or of a file's module-level code."""
    return f"{path}#{qualname}" if qualname else path


def resolve(files: Mapping[str, ParsedSource], *, annotations: bool = True, local_types: bool = True,
            only: Collection[str] | None = None, go_modules: Mapping[str, str] | None = None) -> CallGraph:
    """Resolve every call site of ``files`` (path relative to the code root -> parsed file),
    or only those in the files of ``only`` (an incremental update: every file is still
    looked into to resolve them). ``unresolved_at`` counts the misses per file.

    ``annotations``: a Python/TS parameter annotated with an in-repo class is an instance of
    it (``ctx: Context`` makes ``ctx.exit()`` an edge to ``Context.exit``); the syntax says so,
    but a checker-free reading of annotations can be switched off (return annotations too).
    ``local_types``: a Python local bound once, to what a call certainly makes, is an
    instance of that class (``runner = CliRunner()``: ``runner.invoke()`` is an edge ``local``
    to ``CliRunner.invoke``; sources/code/local_types.py says when it is certain).
    ``go_modules``: module path -> the folder of its ``go.mod`` (files.go_modules).
    """
    index = Index(files)
    dynamic = DynamicResolver(index, annotations=annotations, local_types=local_types)
    static = StaticResolver(index, go_modules or {})
    edges: dict[tuple, Edge] = {}
    unresolved: Counter = Counter()
    per_file: dict[str, Counter] = {}
    unconfirmed: list[Unconfirmed] = []
    for path, parsed in sorted(files.items()):
        if only is not None and path not in only:
            continue
        resolver = static if parsed.language in ("go", "rust", "java") else dynamic
        for call in parsed.calls:
            try:
                targets = [resolver.resolve(path, call.caller, call.callee, call.line)]
            except Redefined as many:
                runs = _runnable(index, many.targets)
                targets = [_one(path, *runs[0])] if len(runs) == 1 else _by_arguments(index, runs, call.arguments)
            except Miss as miss:
                unresolved[miss.reason] += 1
                per_file.setdefault(path, Counter())[miss.reason] += 1
                name = _unconfirmed_name(call.callee, miss.reason, parsed.language)
                if name is not None:
                    unconfirmed.append(Unconfirmed(ref(path, call.caller), name, path, call.line, miss.reason,
                                                   miss.source))
                continue
            for tpath, qualname, how in targets:
                tpath, qualname, how = _canonical(index, tpath, qualname, how, call.arguments)
                edge = Edge(ref(path, call.caller), ref(tpath, qualname), path, call.line, how)
                edges.setdefault((edge.caller, edge.callee, edge.path, edge.line), edge)
    definitions: dict[str, tuple[str, Symbol | None]] = {path: (path, None) for path in files}
    for path, parsed in files.items():
        for sym in parsed.symbols:
            definitions[ref(path, sym.qualname)] = (path, sym)
    return CallGraph(tuple(edges.values()), dict(unresolved.most_common()), definitions,
                     {p: dict(c) for p, c in per_file.items()}, tuple(unconfirmed))


def _unconfirmed_name(callee: str, reason: str, language: str) -> str | None:
    """The name an unresolved call is kept by (:class:`Unconfirmed`), or None when the miss
    rules out every definition of the name (a builtin, a type known to lack the member)."""
    if reason in RECEIVER_UNKNOWN or reason in ("no_such_member", "not_exported"):
        # the others: a receiver whose type is known lacks the method, or a module the name,
        # as a rename leaves `ctx.make_formatter()` and TypeScript's `g.greetTs()` behind (qa100, qa139)
        method, head = _METHOD.search(callee), _HEAD.match(callee)
        # what a builtin returns (`str(x).strip()`) is no method of the indexed code's
        builtin = reason == "call_result" and language == "python" and head and head[1] in _PYTHON_BUILTINS
        if method and not builtin and callee != f"{LITERAL}.{method[1]}":  # a literal's own method
            return method[1]
    bare = _NAME_CALL.match(callee) if reason in NAME_UNKNOWN else None
    if bare is None or (language == "python" and bare[1] in _PYTHON_BUILTINS):
        return None
    return bare[1]


def _runnable(index: Index, targets: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The definitions a call of a repeated name can run: not a TypeScript type alias or
    interface that shares its name with a value (`function Money` beside `type Money`: a call
    of the function had been an edge to the type too, qa147); all of them when none is a value."""
    runs = [t for t in targets if (sym := index.symbol(*t)) is None or sym.kind not in ("type", "interface")]
    return runs or targets


def _one(path: str, tpath: str, qualname: str) -> tuple[str, str, str]:
    """The edge to the one definition left of a name's repeats, as a name found alone is."""
    return tpath, qualname, "import" if tpath != path else "name.local" if "." in qualname else "name.module"


def _canonical(index: Index, path: str, qualname: str, how: str, arguments: int | None) -> tuple[str, str, str]:
    """A Java record's constructor called with as many arguments as the record has components,
    where its explicit one takes another number: the implicit canonical constructor, an edge
    to the record (`new Rec(1, 2)` and `this(a, 0)` had been edges to `Rec(int a)`, qa165)."""
    sym = index.symbol(path, qualname)
    owner = index.symbol(path, sym.parent) if sym is not None and sym.kind == "constructor" else None
    if owner is None or arguments is None or not owner.signature.startswith("record ") \
            or len(sym.parameters) == arguments:  # type: ignore[union-attr]
        return path, qualname, how
    return path, owner.qualname, "ctor.class"


def _by_arguments(index: Index, targets: list[tuple[str, str]], arguments: int | None) -> list[tuple[str, str, str]]:
    """The definitions a call of a redefined name may run: every one (``redefined``), or, for
    a Java call, the overloads that take as many parameters as it passes (``arguments``;
    all of them again when none does: a varargs method). ``round(total)`` had been an edge to
    ``round(double, int)`` too, and ``round(x, 0)`` inside ``round(double)`` a call of itself (qa57)."""
    def takes(target: tuple[str, str]) -> int | None:
        sym = index.symbol(*target)
        return len(sym.parameters) if sym is not None else None

    fitting = [t for t in targets if arguments is not None and takes(t) == arguments]
    if len(fitting) == 1:
        return [(*fitting[0], "arguments")]
    return [(tpath, qualname, "redefined") for tpath, qualname in fitting or targets]
