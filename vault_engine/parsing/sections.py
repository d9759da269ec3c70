"""Split a note's body into sections by heading, with markdown-it-py's block parser.

Only block structure is parsed (inline parsing is off, which halves the cost). Lists and quotes
must stay on: without them an indented line of a nested list item would read as a code block.
Headings count only at the top level, not inside a quote, callout or list item.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from vault_engine.model import Section

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
    """Find headings and code blocks in a Markdown body."""
    tokens = _parser().parse(body)
    headings: list[tuple[int, str, int]] = []
    code: list[tuple[int, int]] = []
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and token.map and token.level == 0:
            text = tokens[i + 1].content.strip() if i + 1 < len(tokens) else ""
            headings.append((int(token.tag[1]), text, token.map[0]))
        elif token.type in ("fence", "code_block") and token.map:
            code.append((token.map[0], token.map[1]))
    return Blocks(tuple(headings), tuple(code))


def split_sections(body: str, blocks: Blocks, body_line: int = 1) -> tuple[Section, ...]:
    """Cut the body into sections; ``body_line`` is the file line where the body starts."""
    lines = body.split("\n")
    sections: list[Section] = []
    first = blocks.headings[0][2] if blocks.headings else len(lines)
    if not blocks.headings or _has_text(lines[:first]):
        sections.append(_section(None, (), 0, lines, 0, first, body_line))
    stack: list[tuple[int, str]] = []
    for n, (level, text, start) in enumerate(blocks.headings):
        end = blocks.headings[n + 1][2] if n + 1 < len(blocks.headings) else len(lines)
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, text))
        path = tuple(t for _, t in stack)
        sections.append(_section(text, path, level, lines, start, end, body_line))
    return tuple(sections)


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


def section_body(section: Section) -> str:
    """The section's text without its heading line (the heading is indexed on its own)."""
    if section.heading is None:
        return section.text
    _, _, rest = section.text.partition("\n")
    return rest


def normalize_heading(text: str) -> str:
    """The form in which headings are compared with link subpaths and refs."""
    text = text.replace("[[", "").replace("]]", "")
    return " ".join(text.split()).casefold()
