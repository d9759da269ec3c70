"""Answers capped to a token budget: the longest parts cut first, and the cut said out loud.

An MCP client pastes a tool's answer into the model's context, so an answer must never be
silently huge. :func:`cap` keeps the JSON's shape (every field the CLI's ``--json`` has),
drops the tail of the largest list (the lowest-ranked hits, the oldest dead ends) or shortens
the longest string (a note's text), and repeats until the answer fits; what it cut is listed
under ``"truncated"``. An answer that fits comes back unchanged, equal to ``--json``'s.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from vault_engine.constants import CHARS_PER_TOKEN

MARKER = " [...cut]"
_RESERVE = 400  # room for the "truncated" note itself
_MIN_STRING = 200  # strings shorter than this are never cut: a title must stay whole
_MAX_ROUNDS = 200
_WHOLE = frozenset({"arms"})  # facts about the answer (which arms ran), never content to cut
# what an agent opens or passes on: a ref or a path cut is one it cannot open, however long
# (a note 268 characters deep had been handed back as `projects/.../deeply-nested-fol [...cut]`, qa150)
_NAMES = frozenset({"ref", "path", "target", "source", "slug"})


def _never_cut(key: Any) -> bool:
    return isinstance(key, str) and (key in _NAMES or key.endswith(("_ref", "_path")))


def size(data: Any) -> int:
    """Characters of ``data`` as the tool's text content carries it."""
    return len(json.dumps(data, ensure_ascii=False))


def cap(data: dict[str, Any], max_tokens: int) -> dict[str, Any]:
    """``data`` within ``max_tokens`` (about 4 characters a token): unchanged when it fits,
    else a copy with cuts and ``"truncated": {"max_tokens", "cut": [...]}``."""
    budget = max_tokens * CHARS_PER_TOKEN
    if size(data) <= budget:
        return data
    data = copy.deepcopy(data)
    budget = max(budget - _RESERVE, 0)
    cuts: dict[str, tuple[int, int, str]] = {}  # path -> (kept, first total, unit)
    for _ in range(_MAX_ROUNDS):
        excess = size(data) - budget
        if excess <= 0:
            break
        target = _largest(data, "")
        if target is None:
            break  # nothing left to cut: the skeleton alone is over budget
        path, parent, key = target
        kept, total, unit = _cut(parent, key, excess)
        cuts[path] = (kept, cuts[path][1] if path in cuts else total, unit)
    data["truncated"] = {"max_tokens": max_tokens,
                         "cut": [f"{path}: kept {kept} of {total}{unit}" for path, (kept, total, unit) in cuts.items()]}
    if size(data) > max_tokens * CHARS_PER_TOKEN:  # said, not hidden: the skeleton alone is over
        data["truncated"]["note"] = (f"the fields that are never cut take about {size(data) // CHARS_PER_TOKEN} "
                                     "tokens: ask with a larger max_tokens for the whole answer")
    return data


def _largest(node: Any, path: str) -> tuple[str, Any, Any] | None:
    """(path, parent, key) of the biggest cuttable part: a list with more than one item, or a
    string of at least ``_MIN_STRING`` characters."""
    best: tuple[int, str, Any, Any] | None = None
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in items:
        if key in _WHOLE and isinstance(node, dict):
            continue
        child = f"{path}.{key}" if isinstance(node, dict) else f"{path}[{key}]"
        child = child.lstrip(".")
        if (isinstance(value, list) and len(value) > 1) or (
                isinstance(value, str) and len(value) >= _MIN_STRING and not _never_cut(key)):
            weight = size(value)
            if best is None or weight > best[0]:
                best = (weight, child, node, key)
        if isinstance(value, (dict, list)):
            inner = _largest(value, child)
            if inner is not None and (best is None or size(inner[1][inner[2]]) > best[0]):
                best = (size(inner[1][inner[2]]), *inner)
    return best[1:] if best else None


def _cut(parent: Any, key: Any, excess: int) -> tuple[int, int, str]:
    """Shorten ``parent[key]`` by about ``excess`` characters: (kept, total, unit)."""
    value = parent[key]
    if isinstance(value, list):
        total, removed = len(value), 0
        while len(value) > 1 and removed < excess:
            removed += size(value.pop()) + 2  # the item and its ", "
        return len(value), total, ""
    body = value[:-len(MARKER)] if value.endswith(MARKER) else value  # cut before: count the text
    keep = max(len(body) - excess, _MIN_STRING // 2)
    parent[key] = body[:keep] + MARKER
    return keep, len(body), " characters"
