"""Which file a relative TS/JS module specifier names: one rule for the call graph and for
``find``'s re-exports (``export { a as b } from './middleware/ssrSafe.ts'``). Pure."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePosixPath

_TS_SUFFIXES = ("", ".ts", ".tsx", ".d.ts", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs",
                "/index.ts", "/index.tsx", "/index.d.ts", "/index.js", "/index.jsx")


def ts_module_path(exists: Callable[[str], bool], path: str, spec: str) -> str | None:
    """The file a relative specifier written in ``path`` names, ``exists`` telling which
    TS/JS files there are: as written, with an extension, or its folder's index; ``./x.js``
    may name ``x.ts`` (TypeScript's ESM convention). None when none exists."""
    base = PurePosixPath(path).parent
    target = _normalize(base / spec)
    stems = [target]
    if target.endswith((".js", ".jsx", ".mjs", ".cjs")):
        stems.append(target.rsplit(".", 1)[0])
    for stem in stems:
        for suffix in _TS_SUFFIXES:
            if exists(stem + suffix):
                return stem + suffix
    return None


def _normalize(path: PurePosixPath) -> str:
    parts: list[str] = []
    for part in path.parts:
        if part == "..":
            if parts:
                parts.pop()
        elif part != ".":
            parts.append(part)
    return "/".join(parts)
