"""Result types of the code commands (show of a code ref, outline, callers/callees, find),
each with its ``to_json`` as DESIGN.md gives it: fields may be added, never renamed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Why:
    """A vault note that says why a file or symbol is the way it is: it links to the file
    (``via`` "link") or names it in backticks (``via`` "mention")."""

    ref: str  # the note's path
    line: int
    via: str
    token: str  # the link target or the backticked text
    of: str  # what the note names: the "symbol" asked of, or its "file"

    def to_json(self) -> dict[str, Any]:
        return {"ref": self.ref, "line": self.line, "via": self.via, "token": self.token, "of": self.of}


@dataclass(frozen=True, slots=True)
class FollowedNote:
    """``--follow``: a note section reached from an answer. At hop 1 it is the section of a
    why note holding the link or mention (``line``; ``how`` "link" or "mention"), or a section
    a shown note links to; each further hop is a section the previous one links to."""

    ref: str  # the section's ref, e.g. memory/orders.md#Orders are priced once
    path: str
    heading: str | None
    kind: str
    title: str
    line_start: int
    line_end: int
    text: str  # the section as written (cut at FOLLOW_TEXT_LIMIT characters, with "…")
    via: str  # the ref it was reached from: a code ref, a file, or the section one hop closer
    hops: int
    how: str  # "link" | "mention"
    line: int | None = None  # the line of the link or mention, at hop 1
    token: str | None = None  # what it names there, at hop 1: the symbol, or only its file (qa198)

    def to_json(self) -> dict[str, Any]:
        return {"ref": self.ref, "path": self.path, "heading": self.heading, "kind": self.kind,
                "title": self.title, "line_start": self.line_start, "line_end": self.line_end,
                "line": self.line, "how": self.how, "token": self.token, "via": self.via, "hops": self.hops,
                "text": self.text}


def why_json(why: tuple[Why, ...]) -> dict[str, Any]:
    """``why`` as refs (the contract), ``why_detail`` with where and how each note says it."""
    return {"why": list(dict.fromkeys(w.ref for w in why)), "why_detail": [w.to_json() for w in why]}


@dataclass(frozen=True, slots=True)
class CodeSymbol:
    """One definition, as commands hand it back."""

    ref: str
    path: str
    symbol: str
    name: str
    kind: str
    line_start: int
    def_line: int
    line_end: int
    signature: str = ""
    parameters: tuple[str, ...] = ()
    decorators: tuple[str, ...] = ()
    parent: str | None = None
    docstring: str | None = None
    why: tuple[Why, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"ref": self.ref, "path": self.path, "symbol": self.symbol, "name": self.name,
                "kind": self.kind, "line_start": self.line_start, "def_line": self.def_line,
                "line_end": self.line_end, "signature": self.signature, "parameters": list(self.parameters),
                "decorators": list(self.decorators), "parent": self.parent, "docstring": self.docstring,
                **why_json(self.why)}


@dataclass(frozen=True, slots=True)
class CodeView:
    """``show`` of a code ref: the symbol's (or file's) lines, numbered as in the file."""

    ref: str
    path: str
    language: str
    symbol: CodeSymbol | None  # None: the whole file
    line_start: int
    lines: tuple[str, ...]
    why: tuple[Why, ...] = ()
    dead_ends: tuple[dict[str, Any], ...] = ()  # checkpoint dead ends that name this symbol
    notices: tuple[str, ...] = ()
    followed: tuple[FollowedNote, ...] = ()  # --follow: what the why notes say, and what they link to
    file: str = ""  # the source file on disk (a tap's root may be outside the vault): what an editor opens

    @property
    def line_end(self) -> int:
        return self.line_start + len(self.lines) - 1

    def numbered(self) -> str:
        width = len(str(self.line_end))
        return "\n".join(f"{n:>{width}}  {text}" for n, text in enumerate(self.lines, self.line_start))

    def to_json(self) -> dict[str, Any]:
        return {"ref": self.ref, "path": self.path, "kind": "code", "language": self.language,
                "symbol": self.symbol.to_json() if self.symbol else None,
                "line_start": self.line_start, "line_end": self.line_end,
                "code": "\n".join(self.lines), "numbered": self.numbered(),
                **why_json(self.why), "dead_ends": list(self.dead_ends), "notices": list(self.notices),
                "followed": [f.to_json() for f in self.followed]}


@dataclass(frozen=True, slots=True)
class Outline:
    path: str
    language: str
    lines: int
    symbols: tuple[CodeSymbol, ...]
    why: tuple[Why, ...] = ()
    error: str | None = None  # the file's syntax error, when tree-sitter reported one
    followed: tuple[FollowedNote, ...] = ()
    notices: tuple[str, ...] = ()  # the file changed since the last index: its spans may have moved

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "language": self.language, "lines": self.lines, "error": self.error,
                "symbols": [s.to_json() for s in self.symbols], **why_json(self.why),
                "followed": [f.to_json() for f in self.followed], "notices": list(self.notices)}


@dataclass(frozen=True, slots=True)
class GraphNode:
    symbol: str  # the qualified name; "<module>" for a file's module-level code
    ref: str
    path: str
    line_start: int
    line_end: int
    hops: int

    def to_json(self) -> dict[str, Any]:
        return {"symbol": self.symbol, "ref": self.ref, "path": self.path, "line_start": self.line_start,
                "line_end": self.line_end, "hops": self.hops}


@dataclass(frozen=True, slots=True)
class GraphEdge:
    caller: str
    callee: str
    path: str
    line: int
    how: str

    def to_json(self) -> dict[str, Any]:
        return {"caller": self.caller, "callee": self.callee, "path": self.path, "line": self.line, "how": self.how}



@dataclass(frozen=True, slots=True)
class CallAnswer:
    """``callers``/``callees``: a bounded traversal, or why there is none."""

    symbol: str  # as asked
    direction: str  # callers | callees
    depth: int
    status: str
    reason: str
    start: str | None = None  # the ref the traversal started from
    nodes: tuple[GraphNode, ...] = ()
    edges: tuple[GraphEdge, ...] = ()
    candidates: tuple[str, ...] = ()  # refs, when ambiguous; what a misspelt name probably meant
    why: tuple[Why, ...] = ()
    exclude_tests: bool = False
    followed: tuple[FollowedNote, ...] = ()
    dead_ends: tuple[dict[str, Any], ...] = ()  # checkpoint dead ends that name the symbol (as show has)
    notices: tuple[str, ...] = ()  # files of the answer changed since the last index: lines may have moved
    # callers of a method: calls of its name on receivers the syntax does not type, no edges
    unconfirmed: tuple[dict[str, Any], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"symbol": self.symbol, "direction": self.direction, "depth": self.depth,
                "status": self.status, "reason": self.reason, "ref": self.start, "notices": list(self.notices),
                "exclude_tests": self.exclude_tests,
                "nodes": [n.to_json() for n in self.nodes], "edges": [e.to_json() for e in self.edges],
                "unconfirmed": list(self.unconfirmed),
                "candidates": list(self.candidates), **why_json(self.why),
                "dead_ends": list(self.dead_ends), "followed": [f.to_json() for f in self.followed]}


@dataclass(frozen=True, slots=True)
class FindHit:
    ref: str
    path: str
    symbol: str | None
    kind: str  # a symbol kind, "file", or "memory"
    line_start: int
    line_end: int
    score: float
    def_line: int | None = None
    why: tuple[Why, ...] = ()  # the notes naming the symbol or its file, each where and how it does
    facet: str | None = None
    title: str | None = None
    coverage: float | None = None  # memory: the share of the question's informative words the note holds

    def to_json(self) -> dict[str, Any]:
        return {"ref": self.ref, "path": self.path, "symbol": self.symbol, "kind": self.kind,
                "line_start": self.line_start, "line_end": self.line_end, "def_line": self.def_line,
                "score": round(self.score, 6), **why_json(self.why), "facet": self.facet, "title": self.title,
                "coverage": None if self.coverage is None else round(self.coverage, 6)}


@dataclass(frozen=True, slots=True)
class FindResult:
    """``find``: an exact location, a suggestion to confirm (``junction``), or a clean miss."""

    query: str
    status: str  # hit | junction | miss
    tier: str | None  # symbol | path | fuzzy | memory | None
    hits: tuple[FindHit, ...] = ()
    suggestion: str | None = None
    reason: str = ""
    alternatives: tuple[str, ...] = field(default=())  # further suggestions after the first
    followed: tuple[FollowedNote, ...] = ()  # --follow: the why notes of the code hits
    notices: tuple[str, ...] = ()  # a hit's file changed or went since the last index

    def to_json(self) -> dict[str, Any]:
        return {"query": self.query, "status": self.status, "tier": self.tier,
                "hits": [h.to_json() for h in self.hits], "suggestion": self.suggestion,
                "alternatives": list(self.alternatives), "reason": self.reason,
                "followed": [f.to_json() for f in self.followed], "notices": list(self.notices)}

