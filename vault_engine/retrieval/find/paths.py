"""File paths found by their trailing components: a reversed-component trie. Pure.

``find``'s literal path tier answers fail-closed, in this order:

1. an exact full path: that file (even when longer paths end with it too);
2. whole trailing components: every file whose path ends with them, "src/daemon.ts" finding
   "app/src/daemon.ts" while "emon.ts" finds nothing and "persist.ts" never "persist.tsx";
3. several files that way (a basename in many folders): all of them, marked ambiguous;
4. otherwise nothing. A path is never completed, corrected or guessed: that is the fuzzy
   tier's job, and it answers with a suggestion, not a hit.

Queries and indexed paths are normalized alike: backslashes become slashes, "." components
and empty ones ("./x", "a//b", "dir/") are dropped; ".." stays a literal component, so it
matches nothing a walker would index. A query with a leading "/" is anchored at the root and
matches only as a full path.

The trie is a dict of dicts keyed by components from the end (basename first), so a lookup
walks one level per query component whatever the number of files. A node keeps, under the key
``""`` (never a component), the paths that end with its suffix, already in answer order. A
suffix that only one path has is stored as that path itself, a leaf, and becomes a node only
when a second path shares it: most suffixes are unique, so this keeps the trie small.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from operator import methodcaller
from typing import Any

from vault_engine.paths import normalize_path

_PATHS = ""  # the key of a node's own paths: normalization leaves no empty component
EXACT, SUFFIX, AMBIGUOUS, MISS = "exact", "suffix", "ambiguous", "miss"


@dataclass(frozen=True, slots=True)
class PathMatch:
    """The answer to a path query: ``exact`` (the full path), ``suffix`` (the one file ending
    with those components), ``ambiguous`` (several, all given) or ``miss`` (none)."""

    query: str
    status: str
    paths: tuple[str, ...]  # fewest components first, then alphabetical


@dataclass(frozen=True, slots=True)
class PathIndex:
    """Paths ready for ``lookup_path`` (``build_path_index``)."""

    case_sensitive: bool
    paths: tuple[str, ...]  # normalized, distinct, in answer order
    exact: dict[str, tuple[str, ...]]  # full path (case-folded when insensitive) -> paths
    trie: dict[str, Any]

    def __len__(self) -> int:
        return len(self.paths)


def _parts(path: str) -> list[str]:
    """A normalized path's components for the trie, a code tap's ``name:`` its own: a file of
    a tap kept outside the vault (``web:src/cart.js``) is found by its path in its own
    repository, ``src/cart.js`` (qa57: only ``cart.js`` found it)."""
    parts = path.split("/")
    tap, colon, rest = parts[0].partition(":")
    return [tap + colon, rest, *parts[1:]] if colon and tap and rest else parts


def _in_answer_order(paths: set[str]) -> list[str]:
    """Shallowest first, like Obsidian's preference for the shortest path, then alphabetical
    (two sorts, the second stable, both keyed at C speed)."""
    ordered = sorted(paths)
    ordered.sort(key=methodcaller("count", "/"))
    return ordered


def build_path_index(paths: Iterable[str], *, case_sensitive: bool = True) -> PathIndex:
    """An index of ``paths`` (relative; any separator). Case-sensitive unless asked: with
    ``case_sensitive=False`` components compare case-folded and answers keep their spelling."""
    fold = _folder(case_sensitive)
    ordered = _in_answer_order({p for p in map(normalize_path, paths) if p})
    exact: dict[str, list[str]] = {}
    trie: dict[str, Any] = {}
    for path in ordered:  # in answer order, so every list below is built already sorted
        exact.setdefault(fold(path), []).append(path)
        _insert(trie, path, fold)
    _freeze(trie)
    return PathIndex(case_sensitive, tuple(ordered), {k: tuple(v) for k, v in exact.items()}, trie)


def _folder(case_sensitive: bool) -> Callable[[str], str]:
    return (lambda text: text) if case_sensitive else str.casefold


def _insert(trie: dict[str, Any], path: str, fold: Callable[[str], str]) -> None:
    node = trie
    for depth, component in enumerate(reversed(_parts(path)), start=1):
        key = fold(component)
        child = node.get(key)
        if child is None:
            node[key] = path  # the only path with this suffix, so far: a leaf
            return
        if isinstance(child, str):  # a second path shares the leaf's suffix: make it a node
            child = node[key] = _node_from_leaf(child, depth, fold)
        child[_PATHS].append(path)
        node = child


def _node_from_leaf(leaf: str, depth: int, fold: Callable[[str], str]) -> dict[str, Any]:
    """The node for the suffix of ``depth`` components that ``leaf`` alone had so far."""
    node: dict[str, Any] = {_PATHS: [leaf]}
    parts = _parts(leaf)
    if depth < len(parts):
        node[fold(parts[-depth - 1])] = leaf  # one level down it is still the only one
    return node


def _freeze(trie: dict[str, Any]) -> None:
    """Turn every node's list of paths into a tuple (iteratively: paths can be deep)."""
    stack = [trie]
    while stack:
        node = stack.pop()
        for key, value in node.items():
            if key == _PATHS:
                node[key] = tuple(value)
            elif isinstance(value, dict):
                stack.append(value)


def lookup_path(index: PathIndex, query: str) -> PathMatch:
    """The files ``query`` names: exact path, else whole trailing components, else nothing.
    Costs one dictionary step per query component."""
    full = normalize_path(query)
    if not full:
        return PathMatch(query, MISS, ())
    fold = _folder(index.case_sensitive)
    exact = index.exact.get(fold(full))
    if exact:
        if full in exact:  # case-insensitive, yet spelled exactly like one: that one (as lookup_ref)
            exact = (full,)
        return PathMatch(query, EXACT if len(exact) == 1 else AMBIGUOUS, exact)
    if query.replace("\\", "/").startswith("/"):
        return PathMatch(query, MISS, ())  # anchored at the root: a full path or nothing
    wanted = [fold(component) for component in reversed(_parts(full))]
    node: Any = index.trie  # a dict below, a str at a unique suffix's end
    for depth, key in enumerate(wanted, start=1):
        node = node.get(key)
        if node is None:
            return PathMatch(query, MISS, ())
        if isinstance(node, str):  # the one path with this suffix: the rest must be its own
            parts = [fold(part) for part in reversed(_parts(node))]
            if parts[depth:len(wanted)] == wanted[depth:]:
                return PathMatch(query, SUFFIX, (node,))
            return PathMatch(query, MISS, ())
    found = node[_PATHS]
    return PathMatch(query, SUFFIX if len(found) == 1 else AMBIGUOUS, found)
