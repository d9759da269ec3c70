"""Bounded callers/callees over the stored call graph: breadth first, one query per level.

Reading only the frontier's edges keeps a depth-3 walk at a few milliseconds whatever the
size of the repository (the whole graph is never loaded)."""

from __future__ import annotations

from vault_engine.code_model import GraphEdge, GraphNode
from vault_engine.sources.code.testpaths import is_test_path
from vault_engine.stores.code_store import CodeStore

MAX_DEPTH = 5  # --depth 1..5

MODULE = "<module>"


def walk(store: CodeStore, starts: list[str], direction: str, depth: int,
         exclude_tests: bool) -> tuple[tuple[GraphNode, ...], tuple[GraphEdge, ...]]:
    """Nodes reached from ``starts`` (refs treated as one symbol: a class and its
    constructor) within ``depth`` calls, and the edges walked, in a stable order."""
    if not 1 <= depth <= MAX_DEPTH:
        raise ValueError(f"depth must be 1..{MAX_DEPTH}, not {depth}")
    column, other = ("callee", "caller") if direction == "callers" else ("caller", "callee")
    hops = {s: 0 for s in starts}
    recursive: dict[str, int] = {}  # a start that calls itself (or, as one symbol, its twin): its own caller
    walked: list[GraphEdge] = []
    frontier = list(starts)
    for level in range(1, depth + 1):
        rows = sorted(store.edges_touching(frontier, column), key=lambda e: (e.path, e.line, e.caller, e.callee))
        frontier = []
        for e in rows:
            target = getattr(e, other)
            if exclude_tests and is_test_path(target):
                continue
            walked.append(GraphEdge(e.caller, e.callee, e.path, e.line, e.how))
            if target in starts:
                recursive.setdefault(target, level)
            elif target not in hops:
                hops[target] = level
                frontier.append(target)
        if not frontier:
            break
    reached = [(r, h) for r, h in hops.items() if r not in starts] + list(recursive.items())
    nodes = tuple(sorted((_node(store, r, h) for r, h in reached), key=lambda n: (n.hops, n.path, n.line_start)))
    return nodes, tuple(dict.fromkeys(walked))


def _node(store: CodeStore, ref: str, hops: int) -> GraphNode:
    key, _, qualname = ref.partition("#")
    row = store.symbol(key, qualname) if qualname else None
    if row is None:
        info = store.file_info(key)
        return GraphNode(qualname or MODULE, ref, key, 1, info[2] if info else 1, hops)
    return GraphNode(row.qualname, ref, key, row.line_start, row.line_end, hops)
