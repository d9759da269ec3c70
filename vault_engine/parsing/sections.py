"""Split a note's body into sections by heading, with markdown-it-py's block parser.

Only block structure is parsed (inline parsing is off, which halves the cost). Lists and quotes
must stay on: without them an indented line of a nested list item would read as a code block.
Headings count only at the top level, not inside a quote, callout or list item.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

from vault_engine.model import Section
from vault_engine.parsing.fences import comment_spans
from vault_engine.text import composed

_ATX = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")
_SETEXT = re.compile(r"^ {0,3}(?:=+|-+)[ \t]*$")
_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")


def is_list_item(line: str) -> bool:
    """Whether the line opens a list item (``- x``, ``* x``, ``1. x``), at any indent."""
    return _LIST_ITEM.match(line) is not None


_OTHER_BLOCK = re.compile(r"^[ \t]*(?:#|>|\|)")


def starts_block(line: str) -> bool:
    """Whether the line opens a block of its own (a list item, a heading, a quote, a table
    row), so it does not go on the paragraph above it as a hard-wrapped line would."""
    return is_list_item(line) or _OTHER_BLOCK.match(line) is not None


@dataclass(frozen=True, slots=True)
class Blocks:
    """What the block parser found: headings and the line ranges that are code."""

    headings: tuple[tuple[int, str, int], ...]  # (level, text, 0-based body line)
    code_ranges: tuple[tuple[int, int], ...]  # 0-based [start, end) body lines


@lru_cache(maxsize=1)
def _parser():
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark")
    md.disable("inline")  # the core rule: we only need block structure
    return md


def parse_blocks(body: str) -> Blocks:
    """Find headings and code blocks in a Markdown body. A heading inside a ``%% comment %%``
    is none: Obsidian hides it, and the Excalidraw plugin keeps each drawing's compressed
    data under a ``## Drawing`` there (qa27 F4)."""
    tokens = _parser().parse(body)
    headings: list[tuple[int, str, int]] = []
    code: list[tuple[int, int]] = []
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and token.map and token.level == 0:
            # a setext heading's text may run over lines (a merge conflict's "<<<<<<< HEAD" and
            # "ours" above "=======" are one): read as one line, as a page shows it (qa60)
            content = tokens[i + 1].content if i + 1 < len(tokens) else ""
            text = " ".join(line.strip() for line in content.strip().split("\n"))
            headings.append((int(token.tag[1]), text, token.map[0]))
        elif token.type in ("fence", "code_block") and token.map:
            code.append((token.map[0], token.map[1]))
    if "%%" in body and headings:
        hidden = _commented_lines(body, code)
        headings = [h for h in headings if h[2] not in hidden]
    return Blocks(tuple(headings), tuple(code))


def _commented_lines(body: str, code: list[tuple[int, int]]) -> set[int]:
    """The 0-based lines a comment runs over after its first: only those can hold a heading
    (a line that opens with ``%%`` is none). ``%%`` in code is no comment, in a code span
    neither (printf's ``%%`` had hidden the headings after it, qa151)."""
    lines = body.split("\n")
    for start, end in code:
        lines[start:end] = [""] * (min(end, len(lines)) - start)
    prose = "\n".join(lines)
    hidden: set[int] = set()
    line, counted = 0, 0  # lines before offset `counted`: one pass, however many comments
    for start, end in comment_spans(prose):
        line += prose.count("\n", counted, start)
        counted = start
        hidden.update(range(line + 1, line + 1 + prose.count("\n", start, end)))
    return hidden


def split_sections(body: str, blocks: Blocks, body_line: int = 1) -> tuple[Section, ...]:
    """Cut the body into sections; ``body_line`` is the file line where the body starts.

    A heading with nothing under it before a deeper heading (a note's title over its first
    subsection) is folded into that subsection: it names the subsection's parent, which the
    heading path keeps, and a section that is only a heading would be an empty search hit.
    """
    lines = body.split("\n")
    sections: list[Section] = []
    first = blocks.headings[0][2] if blocks.headings else len(lines)
    if not blocks.headings or _has_text(lines[:first]):
        sections.append(_section(None, (), 0, lines, 0, first, body_line))
    stack: list[tuple[int, str]] = []
    folded_from: int | None = None  # first line of the empty headings folded into the next
    for n, (level, text, start) in enumerate(blocks.headings):
        end = blocks.headings[n + 1][2] if n + 1 < len(blocks.headings) else len(lines)
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, text))
        deeper_next = n + 1 < len(blocks.headings) and blocks.headings[n + 1][0] > level
        if deeper_next and not _has_text(lines[_heading_end(lines, start):end]):
            folded_from = start if folded_from is None else folded_from
            continue
        begin, folded_from = (start if folded_from is None else folded_from), None
        sections.append(_section(text, tuple(t for _, t in stack), level, lines, begin, end, body_line))
    return tuple(sections)


def _heading_end(lines: list[str], start: int) -> int:
    """The line after the heading that starts at ``start`` (a setext heading has two)."""
    return start + 2 if start + 1 < len(lines) and _SETEXT.match(lines[start + 1]) else start + 1


def _has_text(lines: list[str]) -> bool:
    return any(line.strip() for line in lines)


def _section(heading, path, level, lines, start, end, body_line) -> Section:
    # Trailing blank lines belong to no one; keep at least the heading line itself.
    last = end
    while last > start + 1 and not lines[last - 1].strip():
        last -= 1
    first = start
    if heading is None:
        while first < last - 1 and not lines[first].strip():
            first += 1
    text = "\n".join(lines[first:last])
    return Section(heading, path, level, first + body_line, max(first, last - 1) + body_line, text)


def leading_headings(text: str) -> list[str]:
    """The ATX headings a section's text opens with: its own, after any folded into it."""
    return [name for _, name, _ in leading_levels(text)]


def leading_levels(text: str) -> list[tuple[int, str, int]]:
    """:func:`leading_headings`, each with its level and its line in ``text`` (from 0)."""
    found = []
    for i, line in enumerate(text.split("\n")):
        if _ATX.match(line):
            marks = line.strip()
            found.append((len(marks) - len(marks.lstrip("#")), marks.strip("#").strip(), i))
        elif line.strip():
            break
    return found


def heading_line(section) -> int:
    """The file line of a section's own heading, after any empty headings folded in front of
    it (a section's ``line_start`` is where its text starts)."""
    if section.heading is None:
        return section.line_start
    lines = section.text.split("\n")
    rest = section_body(section.text, section.heading)
    body = len(rest.split("\n")) if rest else 0  # a section that is only headings has none
    own = len(lines) - body - 1  # the last of the heading lines
    while own > 0 and not lines[own].strip():
        own -= 1
    if own > 0 and _SETEXT.match(lines[own]) and not _ATX.match(lines[own]):
        own -= 1  # a setext heading's text sits above its underline
    return section.line_start + max(0, own)


def section_body(text: str, heading: str | None) -> str:
    """A section's text without its heading lines: the one place that knows where a section's
    heading ends (ATX or setext, and the empty headings folded in front of it). Text before
    the first heading (``heading`` None) is all body."""
    if heading is None:
        return text
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if not lines[i].strip() or _ATX.match(lines[i]):
            i += 1
        elif i + 1 < len(lines) and _SETEXT.match(lines[i + 1]) and not is_list_item(lines[i]):
            i += 2  # (a list item's line is no heading's text: `- -- x` over `- ` is two items, qa64)
        else:
            break
    return "\n".join(lines[i:])


def distinct_anchors(sections: Sequence[Section]) -> list[str | None]:
    """For each section, the end of its heading path that names it alone among its note's
    sections (``Ops#Tokens`` beside ``Design#Tokens``), or None when its own heading does:
    a ref must open the section it came from. Sections with the very same heading path
    (``## Week / ### Notes`` twice) are named as GitHub names their anchors (``notes-1``), but
    the first of a name, which its heading opens, by its heading as written."""
    paths = [tuple(normalize_heading(h) for h in s.heading_path) for s in sections]
    by_heading: dict[tuple[str, ...], list[tuple[str, ...]]] = {}
    for path in paths:  # grouped once: comparing every pair took 2.8 s for a 5,000-heading note
        by_heading.setdefault(path[-1:], []).append(path)
    own_slug = {i: anchor for i, name, anchor in github_anchors(sections) if name == sections[i].heading}
    first_of: dict[tuple[str, ...], int] = {}
    for i, path in enumerate(paths):
        first_of.setdefault(path[-1:], i)
    # how many namesakes end with each path end, counted once per length: counting for each
    # section anew took 51 s for a note of 20,000 `## Notes` (qa137)
    ends: dict[tuple[tuple[str, ...], int], Counter[tuple[str, ...]]] = {}

    def sharing(path: tuple[str, ...], n: int) -> int:
        counted = ends.get((path[-1:], n))
        if counted is None:
            counted = ends[(path[-1:], n)] = Counter(o[-n:] for o in by_heading[path[-1:]])
        return counted[path[-n:]]

    anchors: list[str | None] = []
    for i, (section, path) in enumerate(zip(sections, paths)):
        namesakes = by_heading[path[-1:]]
        if len(namesakes) < 2:
            anchors.append(None)
            continue
        n = next((n for n in range(2, len(path) + 1) if sharing(path, n) == 1), None)
        if n:
            anchors.append("#".join(section.heading_path[-n:]))
        else:  # the first of its name opens by its heading as written ("#Status", not "#status")
            anchors.append(None if first_of[path[-1:]] == i else own_slug.get(i))
    return anchors


def github_anchors(sections: Sequence) -> Iterator[tuple[int, str, str]]:
    """(section index, heading, its anchor as GitHub writes it) for every heading of a note,
    folded empty ones included, in order: ``concurrent-batch-processing``, and ``notes-1``,
    ``notes-2`` for the second and third heading with the same slug."""
    seen: Counter[str] = Counter()
    for i, section in enumerate(sections):
        if not section.heading:
            continue
        for name in leading_headings(section.text) or [section.heading]:
            slug = heading_slug(name)
            yield i, name, f"{slug}-{seen[slug]}" if seen[slug] else slug
            seen[slug] += 1


# Obsidian's stripHeading: these count as spaces when a link's heading is matched, and the
# links Obsidian writes leave some out ("## Appendix: Changes" is linked [[#Appendix Changes]])
_HEADING_PUNCTUATION = re.compile(r"[!\"#$%&()*+,.:;<=>?@^`{|}~/\[\]\\]")


def normalize_heading(text: str) -> str:
    """The form in which headings are compared with link subpaths and refs (its accents as one
    with their letters: a heading "Ko\u0308ln", written decomposed, was no "Köln", qa128)."""
    return " ".join(_HEADING_PUNCTUATION.sub(" ", composed(text)).split()).casefold()


def heading_slug(text: str) -> str:
    """A heading's anchor as GitHub writes it in a URL (``#concurrent-batch-processing``):
    of its text as rendered, lower case, punctuation dropped (not made a space: "7.0.0" is
    "700"), spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", rendered_heading(text).lower()).replace(" ", "-")


_INLINE_LINK = re.compile(r"!?\[([^\[\]]*)\]\((?:[^()\s]|\([^)]*\))*(?:\s+\"[^\"]*\")?\)")  # [text](target)
_INLINE_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")
_EMPHASIS_EDGE = re.compile(r"(?<!\w)[_*]+|[_*]+(?!\w)")  # `_without_`, `__Only__`; snake_case stays
_CODE_SPAN = re.compile(r"(`+[^`]*`+)")
_RENDERED_MARKUP = re.compile(r"[\[<_*`]")  # what the four patterns above act on


def rendered_heading(text: str) -> str:
    """A heading's text as a page renders it: a link as its text (``Integration with [Cluster
    Autoscaler](https://...)``), no HTML tag or emphasis marker, its spacing kept (GitHub
    slugs "Beta to  GA" as ``beta-to--ga``). GitHub's anchors and the links of tables of
    contents are made from it (27 KEP links read as "no such heading")."""
    if not _RENDERED_MARKUP.search(text):  # nothing to draw otherwise: most headings (qa82)
        return text.strip()
    parts = _CODE_SPAN.split(text)  # code spans at odd places: their text stays as written (`<mode>`)
    return "".join(part if n % 2 else _EMPHASIS_EDGE.sub("", _INLINE_TAG.sub("", _INLINE_LINK.sub(r"\1", part)))
                   for n, part in enumerate(parts)).strip()
