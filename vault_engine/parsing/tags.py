"""Tags: inline ``#tag`` / ``#nested/tag`` and frontmatter ``tags:``.

Obsidian's rules: a tag starts after whitespace or at a line start, may hold letters, digits,
``_``, ``-`` and ``/``, and must not be only digits (``#123`` is not a tag). Tags compare
case-insensitively, so they are stored in lower case.
"""

from __future__ import annotations

import re
from typing import Any

from vault_engine.parsing.frontmatter import frontmatter_tags
from vault_engine.text import composed

# The "at a line start or after whitespace" rule is checked by hand, not in the pattern: a
# pattern that starts with a literal "#" lets the regex engine jump from "#" to "#", where
# "(?:^|(?<=\s))#" made it try every position (25x slower: 0.73 s against 0.03 s of CPU over
# bench/gen_vault.py's 10,000 notes). A match never holds whitespace or a second "#", so the
# tags found are exactly the same.
_INLINE_TAG = re.compile(r"#([\w/\-]*[^\W\d][\w/\-]*)", re.UNICODE)


def inline_tags(masked_body: str) -> list[str]:
    """Tags written in the text (run over the code-masked body), read as composed words: an
    accent written as a mark of its own had ended "#Ko\u0308lnoffice" at "#Ko" (qa128)."""
    if "#" not in masked_body:
        return []
    masked_body = composed(masked_body)
    return [m.group(1) for m in _INLINE_TAG.finditer(masked_body)
            if m.start() == 0 or masked_body[m.start() - 1].isspace()]


def collect_tags(meta: dict[str, Any], masked_body: str) -> tuple[str, ...]:
    """Frontmatter ``tags``/``tag`` plus inline tags, lower-cased, first occurrence order."""
    raw = frontmatter_tags(meta) + inline_tags(masked_body)
    seen: dict[str, None] = {}
    for tag in raw:
        tag = tag.lstrip("#").strip("/").casefold()
        if tag and not tag.isdigit():
            seen.setdefault(tag, None)
    return tuple(seen)
