"""Refs: how agents and humans name a note or a section.

``specs/auth.md``, ``specs/auth.md#Token refresh``, ``specs/auth.md#Design#Tokens`` (a heading
path, for headings that repeat), ``specs/auth.md#^block-id``, and ``notion://<32-hex id>``
with the same ``#`` suffixes for pages from Notion.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from vault_engine.paths import normalize_path

NOTION_SCHEME = "notion://"
_NOTION_ID = re.compile(r"^[0-9a-fA-F]{32}$")


@dataclass(frozen=True, slots=True)
class ParsedRef:
    path: str | None  # vault-relative path, when the ref names one
    notion_id: str | None  # 32 lower-case hex digits, for notion:// refs (None: not a page id)
    heading: str | None  # the part after the first "#"


def make_ref(path: str, heading: str | None = None, notion_id: str | None = None) -> str:
    """The canonical ref of a note, or of a section when ``heading`` is given."""
    base = f"{NOTION_SCHEME}{notion_id}" if notion_id else path
    return f"{base}#{heading}" if heading else base


def parse_ref(ref: str) -> ParsedRef:
    """Split a ref into its note part and its heading part (no lookup happens here)."""
    ref = ref.strip()
    if ref.startswith(NOTION_SCHEME):
        body = ref[len(NOTION_SCHEME):]
        ident, _, heading = body.partition("#")
        ident = ident.strip().replace("-", "").lower()
        return ParsedRef(None, ident if _NOTION_ID.match(ident) else None, heading.strip() or None)
    path, _, heading = ref.partition("#")
    return ParsedRef(normalize_path(path.strip()) or None, None, heading.strip() or None)


def printed(ref: str) -> str:
    """A ref or path as text output prints it: a newline in a file name as ``\\x0a``, as every
    other control character is shown, so the ref stays on its one line (JSON keeps it exact)."""
    return ref.replace("\n", "\\x0a")
