"""What every language's extractor shares: node text, definitions before they are folded into
symbols, and the sweep that tells which definition encloses a call or a binding.

The extractors never walk a whole tree in Python (a full walk costs more than parsing):
one query pass hands them the nodes they need, and everything positional is done on byte
ranges, which nest the way scopes do.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from vault_engine.sources.code.model import Symbol

_SPACE = re.compile(r"\s+")


def collapse(text: str) -> str:
    """Whitespace runs to one space, ends stripped."""
    return _SPACE.sub(" ", text).strip()


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
    extra: dict = field(default_factory=dict)


def assign_qualnames(defs: list[RawDef], outer=lambda d: (d.node.start_byte, d.node.end_byte),
                     join=lambda parent, d: f"{parent.qualname}.{d.name}") -> None:
    """Name each definition after the definitions around it (``outer.inner``, ``Class.m``).

    ``defs`` must be in document order; ``outer`` gives the byte range that contains nested
    definitions. A definition already given a qualname (a Go method: its receiver type) keeps it.
    """
    stack: list[tuple[int, RawDef]] = []
    for d in defs:
        start, end = outer(d)
        while stack and stack[-1][0] <= start:
            stack.pop()
        parent = stack[-1][1] if stack else None
        if not d.qualname:
            d.qualname = join(parent, d) if parent else d.name
            d.parent = parent.extra.get("type", parent.qualname) if parent else None
        stack.append((end, d))


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

    Overload stubs belong to their implementation (its header, its def line, the span from
    the first stub); a property's accessors are one property (the getter's header); any other
    repeat right after the one before it (``if``/``else`` branches) keeps the first header and
    spans to the last end. A repeat further away (two test helpers of one name in one file) is
    left out, so the span never covers the unrelated code between them.
    """
    groups: dict[str, list[RawDef]] = {}
    for d in defs:
        groups.setdefault(d.qualname, []).append(d)
    starts = sorted(d.line_start for d in defs)
    out = []
    for qualname, group in groups.items():
        bodies = [d for d in group if not d.stub] or group
        real = _adjacent_run(bodies, starts)
        head = real[0]
        group = [d for d in group if d.line_start <= real[-1].line_end]
        kind = "property" if any(d.kind == "property" for d in group) else head.kind
        decorators = head.decorators
        if kind == "property":
            decorators = tuple(dict.fromkeys(x for d in group for x in d.decorators))
        out.append(Symbol(
            qualname, head.name, kind, min(d.line_start for d in group), head.def_line,
            max(d.line_end for d in real), head.signature,
            head.docstring or next((d.docstring for d in group if d.docstring), None), head.parameters,
            decorators, head.parent, head.bases, head.returns, len(bodies)))
    return tuple(out)


REPEAT_GAP = 6  # lines between two definitions of one name that still make one (`else:`, blanks)


def _adjacent_run(defs: list[RawDef], starts: list[int]) -> list[RawDef]:
    """The first definition and the repeats that follow it closely: each within REPEAT_GAP
    lines of the one before, with no other definition between them."""
    run = [defs[0]]
    for d in defs[1:]:
        between = bisect.bisect_left(starts, d.line_start) - bisect.bisect_right(starts, run[-1].line_end)
        if d.line_start - run[-1].line_end > REPEAT_GAP or between > 0:
            break
        run.append(d)
    return run


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

    ``events`` are (byte position, what, fields) for calls (``callee, line``), bindings
    (``name, line, kind, annotation``) and imports (the ``Import`` fields after ``local``..
    ``line`` order, ``aliased`` last); the driver gives each the qualname of the definition
    around its position. ``params`` are (def, name, line, annotation): a parameter belongs to
    its own function, although it sits outside the function's body.
    """

    defs: list[RawDef] = field(default_factory=list)
    events: list[tuple[int, str, tuple]] = field(default_factory=list)
    params: list[tuple[RawDef, str, int, str | None]] = field(default_factory=list)
    exports: list = field(default_factory=list)
