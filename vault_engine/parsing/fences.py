"""Fenced code blocks, line by line, as CommonMark reads them: the one reader of fences for
the code that walks a note's lines itself (sections come from markdown-it). Pure.

A fence opens with three or more backticks or tildes and closes only with a line of the same
character, at least as long, and nothing else: a `~~~` example inside a ```` ``` ```` block
is code, not the block's end (four readers each toggled on any fence, and read what followed
such an example as text). An HTML comment opening a line runs to the first line holding
``-->``, and a fence inside it is none (CommonMark's HTML block): the KEP template's first
comment holds an example fence, which turned the rest of every KEP into code.

Code spans are read here too (:func:`code_spans`), and so the comments Obsidian hides, which
code holds none of (:func:`comments_blanked`): one reader for every part that walks a note.
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
    fence_indent = 0
    in_comment = False
    for line in lines:
        if fence is not None and fence_indent and _ends_the_item(line, fence_indent):
            fence = None  # a fence left open in a list item ends with the item, as in CommonMark:
            # the rest of a checkpoint's Failed list had been code (qa151)
        if in_comment:
            in_comment = "-->" not in line
            yield TEXT
        elif fence is None:
            m = _FENCE.match(line)
            if m and not (m.group(1)[0] == "`" and "`" in m.group(2)):  # "```a``` b" is a code span
                fence, fence_indent = m.group(1), len(line) - len(line.lstrip(" \t"))
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


_ITEM_START = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+\S")


def _ends_the_item(line: str, fence_indent: int) -> bool:
    """Whether ``line`` starts a list item less indented than an open fence: the fence was in
    an item, and that item has ended."""
    return _ITEM_START.match(line) is not None and len(line) - len(line.lstrip(" \t")) < fence_indent


def info_word(line: str) -> str:
    """The first word of an opening fence's info string: the code's language (``js``)."""
    m = _FENCE.match(line)
    words = m.group(2).split() if m else []
    return words[0] if words else ""


_TICKS = re.compile(r"`+")


def code_spans(line: str) -> list[tuple[int, int]]:
    """The code spans of a line, as CommonMark reads them: a run of backticks opens one that
    the next run of exactly as many closes; a run nothing closes is text. One pass over the
    runs (a backreference pattern had taken 2.7 s for a line of 800 backticks, and minutes
    for longer ones, qa151)."""
    if "`" not in line:
        return []
    runs = [m.span() for m in _TICKS.finditer(line)]
    closer: list[int | None] = [None] * len(runs)
    seen: dict[int, int] = {}  # run length -> the nearest run of that length after this one
    for i in range(len(runs) - 1, -1, -1):
        length = runs[i][1] - runs[i][0]
        closer[i] = seen.get(length)
        seen[length] = i
    spans, i = [], 0
    while i < len(runs):
        j = closer[i]
        if j is None:
            i += 1
        else:
            spans.append((runs[i][0], runs[j][1]))
            i = j + 1
    return spans


def code_masked(line: str, mask: str = "x") -> str:
    """``line`` with each code span's characters as ``mask``, its length kept: a pattern read
    over it sees no quote or star a span holds, and its matches' places are the line's."""
    letters = list(line)
    for start, stop in code_spans(line):
        letters[start:stop] = mask * (stop - start)
    return "".join(letters)


_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)|%%.*?%%", re.DOTALL)  # an unclosed HTML comment runs to the end
_NOT_A_BREAK = re.compile(r"[^\n]")


def comment_spans(text: str) -> list[tuple[int, int]]:
    """Where ``text`` holds the comments Obsidian hides: ``%% ... %%`` and ``<!-- ... -->``,
    over lines too. A comment mark in code (a fenced block, a code span: IPython's ``%%time``,
    printf's ``%%``) opens none."""
    if "%%" not in text and "<!--" not in text:
        return []
    lines = text.split("\n")
    code_free = "\n".join(_without_spans(line) if role == TEXT else "\0" * len(line)
                           for line, role in zip(lines, fence_roles(lines)))
    return [m.span() for m in _COMMENT.finditer(code_free)]


def comments_blanked(text: str) -> str:
    """``text`` with its comments (:func:`comment_spans`) as spaces, line breaks and offsets
    kept. What a reader of rulings, links or headings finds in a comment is hidden from the
    person too (a `DEADEND:` an author commented out had still been raised, and a template's
    hidden example was a ruling, qa151)."""
    out, at = [], 0
    for start, end in comment_spans(text):
        out += [text[at:start], _NOT_A_BREAK.sub(" ", text[start:end])]
        at = end
    return "".join([*out, text[at:]])


def _without_spans(line: str) -> str:
    for start, end in reversed(code_spans(line)):
        line = line[:start] + "\0" * (end - start) + line[end:]
    return line
