"""Fenced code blocks, line by line, as CommonMark reads them: the one reader of fences for
the code that walks a note's lines itself (sections come from markdown-it). Pure.

A fence opens with three or more backticks or tildes and closes only with a line of the same
character, at least as long, and nothing else: a `~~~` example inside a ```` ``` ```` block
is code, not the block's end (four readers each toggled on any fence, and read what followed
such an example as text). An HTML comment opening a line runs to the first line holding
``-->``, and a fence inside it is none (CommonMark's HTML block): the KEP template's first
comment holds an example fence, which turned the rest of every KEP into code.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

TEXT, OPEN, CODE, CLOSE = "text", "open", "code", "close"
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})(.*)$")
_COMMENT_BLOCK = re.compile(r"^ {0,3}<!--")


def fence_roles(lines: Iterable[str]) -> Iterator[str]:
    """Each line's part: :data:`TEXT`, or :data:`OPEN`, :data:`CODE` and :data:`CLOSE` of a
    fenced block (one left open runs to the end, as in CommonMark). The lines of an HTML
    comment block are text."""
    fence = None
    in_comment = False
    for line in lines:
        if in_comment:
            in_comment = "-->" not in line
            yield TEXT
        elif fence is None:
            m = _FENCE.match(line)
            if m and not (m.group(1)[0] == "`" and "`" in m.group(2)):  # "```a``` b" is a code span
                fence = m.group(1)
                yield OPEN
            else:
                opened = _COMMENT_BLOCK.match(line)
                in_comment = opened is not None and "-->" not in line[opened.end():]
                yield TEXT
        else:
            mark = line.strip()
            if len(mark) >= len(fence) and mark == fence[0] * len(mark):
                fence = None
                yield CLOSE
            else:
                yield CODE


def info_word(line: str) -> str:
    """The first word of an opening fence's info string: the code's language (``js``)."""
    m = _FENCE.match(line)
    words = m.group(2).split() if m else []
    return words[0] if words else ""
