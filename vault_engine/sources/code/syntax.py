"""What every language's extractor shares: node text, definitions before they are folded into
symbols, and the sweep that tells which definition encloses a call or a binding.

The extractors never walk a whole tree in Python (a full walk costs more than parsing):
one query pass hands them the nodes they need, and everything positional is done on byte
ranges, which nest the way scopes do.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from vault_engine.sources.code.model import REPEAT, Symbol

_SPACE = re.compile(r"\s+")


def collapse(text: str) -> str:
    """Whitespace runs to one space, ends stripped."""
    return _SPACE.sub(" ", text).strip()


# What a literal's method is called on, in a callee (`", ".join` is `<literal>.join`): its
# method is its type's, never the indexed code's, and no call is listed as one it might be
# (qa141, qa142: a regex's `.test()`, while `{"json": Fmt()}[kind].render()` stays an expression's)
LITERAL = "<literal>"


def deep_callee(read, src: Source, node) -> str:
    """``read(src, node)``, a call's callee; for a chain of calls too deep for Python's
    recursion (1,500 chained `.step()`s) the call's text, cut: the whole file had been skipped
    with a RecursionError, every symbol of it lost (qa162)."""
    try:
        return read(src, node)
    except RecursionError:
        return collapse(src.text(node))[:160]


def as_written(callee: str, member: str = "") -> str:
    """A callee the normal forms do not cover, as written with whitespace collapsed; cut to
    160 characters, keeping the ``member`` it calls when it has one (a cast's type over 160
    characters had lost `.subscribe`, and the call its method's name, qa139)."""
    text = collapse(callee)
    if len(text) <= 160:
        return text
    return f"{text[:120]}….{member}" if member else text[:160]


class Source:
    """The bytes of one file with cheap accessors for node text and lines."""

    __slots__ = ("data",)

    def __init__(self, data: bytes):
        self.data = data

    def text(self, node) -> str:
        return self.data[node.start_byte:node.end_byte].decode("utf-8", "replace")

    def span(self, start: int, end: int) -> str:
        return self.data[start:end].decode("utf-8", "replace")


def line(node) -> int:
    """1-based line where a node starts."""
    return node.start_point[0] + 1


def end_line(node) -> int:
    """1-based line of a node's last character (a node may end at column 0 of the next line)."""
    row, column = node.end_point
    return row if column == 0 and row > node.start_point[0] else row + 1


@dataclass(slots=True)
class RawDef:
    """One definition as written; several can fold into one ``Symbol``."""

    node: object  # the tree-sitter node of the definition (the decorated one's inner node)
    name: str
    kind: str
    line_start: int
    def_line: int
    line_end: int
    signature: str
    body: tuple[int, int]  # byte range whose calls and bindings belong to this definition
    docstring: str | None = None
    parameters: tuple[str, ...] = ()
    decorators: tuple[str, ...] = ()
    bases: tuple[str, ...] = ()
    stub: bool = False  # an overload signature: belongs to the implementation
    returns: str | None = None  # the return annotation as written
    qualname: str = ""
    parent: str | None = None
    visible: tuple[int, int] | None = None  # the lines of the callback that holds it (Symbol.visible)
    extra: dict = field(default_factory=dict)


def assign_qualnames(defs: list[RawDef], outer=lambda d: (d.node.start_byte, d.node.end_byte),
                     join=lambda parent, d: f"{parent.qualname}.{d.name}") -> None:
    """Name each definition after the definitions around it (``outer.inner``, ``Class.m``).

    ``defs`` must be in document order; ``outer`` gives the byte range that contains nested
    definitions. A definition already given a qualname (a Go method: its receiver type) keeps it.
    A name defined again in the same scope (``if``/``else`` branches, a test's second ``cmd``)
    is a definition of its own, with its own span: the second is ``name~2``, the third
    ``name~3`` (and its nested ones ``name~2.inner``), unless it is one binding with the one
    before (see ``_same_binding``), which ``fold`` makes one symbol.
    """
    stack: list[tuple[int, RawDef]] = []
    last: dict[str, RawDef] = {}  # plain qualname -> its latest definition
    count: dict[str, int] = {}
    for d in defs:
        start, end = outer(d)
        while stack and stack[-1][0] <= start:
            stack.pop()
        parent = stack[-1][1] if stack else None
        if not d.qualname:
            d.qualname = join(parent, d) if parent else d.name
            d.parent = parent.extra.get("type", parent.qualname) if parent else None
        plain = d.qualname
        before = last.get(plain)
        if before is not None and _same_binding(before, d):
            d.qualname = before.qualname
        elif before is not None:
            count[plain] = count.get(plain, 1) + 1
            d.qualname = f"{plain}{REPEAT}{count[plain]}"
        last[plain] = d
        stack.append((end, d))


def _same_binding(before: RawDef, d: RawDef) -> bool:
    """Two definitions of one name that are one thing: overload stubs and their
    implementation, a property's getter, setter and deleter (TS ``get``/``set`` too)."""
    return before.stub or d.stub or (before.kind == "property" and d.kind == "property")


def enclosing(defs: list[RawDef], positions: list[int]) -> list[RawDef | None]:
    """For each byte position (ascending), the innermost definition whose body contains it."""
    bodies = sorted(defs, key=lambda d: (d.body[0], -d.body[1]))
    out: list[RawDef | None] = []
    stack: list[RawDef] = []
    i = 0
    for pos in positions:
        while i < len(bodies) and bodies[i].body[0] <= pos:
            while stack and stack[-1].body[1] <= bodies[i].body[0]:
                stack.pop()
            stack.append(bodies[i])
            i += 1
        while stack and stack[-1].body[1] <= pos:
            stack.pop()
        out.append(stack[-1] if stack else None)
    return out


def fold(defs: list[RawDef]) -> tuple[Symbol, ...]:
    """One symbol per qualified name, in order of first appearance.

    Only definitions that are one binding share a qualified name (``assign_qualnames``):
    overload stubs belong to their implementation (its header, its def line, the span from
    the first stub); a property's accessors are one property (the getter's header).
    """
    groups: dict[str, list[RawDef]] = {}
    for d in defs:
        groups.setdefault(d.qualname, []).append(d)
    out = []
    for qualname, group in groups.items():
        bodies = [d for d in group if not d.stub] or group
        head = bodies[0]
        kind = "property" if any(d.kind == "property" for d in group) else head.kind
        decorators = head.decorators
        if kind == "property":
            decorators = tuple(dict.fromkeys(x for d in group for x in d.decorators))
        out.append(Symbol(
            qualname, head.name, kind, min(d.line_start for d in group), head.def_line,
            max(d.line_end for d in bodies), head.signature,
            head.docstring or next((d.docstring for d in group if d.docstring), None), head.parameters,
            decorators, head.parent, head.bases, head.returns, len(bodies), head.visible))
    return tuple(out)


def doc_comment(src: Source, node, prefixes: tuple[str, ...]) -> str | None:
    """The comment block right above a node (no blank line between), without its markers.

    ``prefixes`` are the comment starts that count: ("/**",) for JSDoc and Javadoc,
    ("//",) for Go, ("///", "/**") for Rust.
    """
    lines: list[str] = []
    expect = node.start_point[0]  # the comment must end on the line before this one
    prev = node.prev_sibling
    while prev is not None and prev.type in ("comment", "line_comment", "block_comment"):
        if end_line(prev) != expect:
            break
        text = src.text(prev)
        if not text.startswith(prefixes):
            break
        lines[:0] = _strip_comment(text)
        expect = prev.start_point[0]
        if text.startswith("/*"):
            break  # one block comment is the whole doc
        prev = prev.prev_sibling
    text = "\n".join(lines).strip()
    return text or None


def _strip_comment(text: str) -> list[str]:
    if text.startswith("/*"):
        body = text[3 if text.startswith("/**") else 2:-2]
        return [re.sub(r"^\s*\*? ?", "", ln) for ln in body.split("\n")]
    return [re.sub(r"^//[/!]?\s?", "", text)]


def header(src: Source, start: int, end: int) -> str:
    """A definition's header: its text from ``start`` up to where its body begins."""
    return collapse(src.span(start, end)).rstrip(":{ ").rstrip()


@dataclass(slots=True)
class Extracted:
    """An extractor's findings before the driver sorts out scopes.

    ``events`` are (byte position, what, fields) for calls and bindings (the fields of
    :class:`~model.Call` and :class:`~model.Binding` after the scope: ``callee, line`` and Java's
    ``arguments``; ``name, line, kind`` and as many of ``annotation, value, entered`` as the
    language gives) and imports (the ``Import`` fields in ``local``..``line`` order,
    ``aliased`` last); the driver gives each the qualname of the definition
    around its position. ``params`` are (def, name, line, annotation): a parameter belongs to
    its own function, although it sits outside the function's body.
    """

    defs: list[RawDef] = field(default_factory=list)
    events: list[tuple[int, str, tuple]] = field(default_factory=list)
    params: list[tuple[RawDef, str, int, str | None]] = field(default_factory=list)
    exports: list = field(default_factory=list)
