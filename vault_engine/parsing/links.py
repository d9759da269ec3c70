"""Links by Obsidian's rules: find them in a note, then resolve them against the vault.

Forms: ``[[Note]]``, ``[[Note#Heading]]``, ``[[Note#Heading#Sub]]``, ``[[Note#^block]]``,
``[[Note|shown]]``, ``![[embed]]``, ``[[#Heading]]`` and ``[text](relative/path.md)`` with
URL-encoded paths (a ``?query`` after the path is no part of it). Nothing inside code spans,
code blocks or ``%% comments %%`` is a link. A wikilink in a frontmatter property
(``up: "[[Projects]]"``) is a link of the note, as in Obsidian's properties.

Resolution (``LinkResolver``): a Markdown link, or a wikilink starting ``./`` or ``../``, is a path
from the linking note's folder first; a target matches a note's file name without ``.md``,
case-insensitively; a target with ``/`` matches by path suffix; an attachment matches its full
file name. Aliases do not resolve links (as in Obsidian). When several files match, the one in
the linking note's folder wins, then the shortest path, and the link is marked ambiguous. A
link that matches nothing stays unresolved: never guessed.
"""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import unquote

from vault_engine.model import LinkOccurrence
from vault_engine.parsing.fences import code_spans, comments_blanked
from vault_engine.paths import name_key, note_stem, parent_dir

# The "!" of an embed is checked by hand, not in the pattern: an optional first character
# kept the regex engine from jumping straight to each "[[" (with one-pass line counting below,
# extract_links fell from 1.15 s to 0.70 s of CPU over bench/gen_vault.py's 10,000 notes,
# every link found identical).
_WIKI = re.compile(r"\[\[([^\[\]\n]*?)\]\]")
_MARKDOWN = re.compile(
    # [text], one level of nested brackets; the text may wrap onto the next lines (not over a
    # blank line), as CommonMark allows: 16 of the KEPs' links were neither listed nor counted
    r"(!?)\[((?:[^\[\]\n]|\n(?![ \t]*\n)|\[[^\[\]\n]*\])*)\]"
    # the destination: in angle brackets, or with balanced parentheses as CommonMark allows
    # ("Target.md#Pour-over%20(V60)" was cut at its first ")": qa29 N9)
    r"\(\s*(<[^>\n]+>|(?:[^()\s]|\([^()\s]*\))+)(?:\s+(?:\"(?:[^\"\n]|\n(?![ \t]*\n))*\"|'[^'\n]*'))?\s*\)"
)
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.\-]*:")
_YAML_COMMENT = re.compile(r"^[ \t]*#.*$", re.M)


def mask_code(body: str, code_ranges: Iterable[tuple[int, int]]) -> str:
    """Blank out code blocks, code spans and comments (``%% %%``, ``<!-- -->``), keeping
    every offset.

    Link and tag scanners run over the result, so what they find never comes from code, nor
    from what Obsidian hides: the KEP template's hidden `[here](...)` had been 22 of the KEPs'
    87 unresolved links, and a `%%` in a code span had hidden a note's links and tags (qa151).
    """
    lines = body.split("\n")
    for start, end in code_ranges:
        for i in range(start, min(end, len(lines))):
            lines[i] = ""
    masked = comments_blanked("\n".join(lines))
    if "`" in masked:
        masked = "\n".join(_code_spans_blanked(line) for line in masked.split("\n"))
    return masked


def _code_spans_blanked(line: str) -> str:
    spans = code_spans(line)
    inside = [m.span() for m in _WIKI_SPAN.finditer(line)] if spans and "[[" in line else []
    for start, end in reversed(spans):
        if not _within((start, end), inside):
            line = line[:start] + " " * (end - start) + line[end:]
    return line


# A wikilink's whole text: a code span inside one is part of its target, as Obsidian writes a
# link to a heading with code in it ([[Headings#The `foo()` call]] was read as "The         call")
_WIKI_SPAN = re.compile(r"\[\[[^\[\]\n]*\]\]")


def _within(span: tuple[int, int], spans: list[tuple[int, int]]) -> bool:
    return any(start <= span[0] and span[1] <= end for start, end in spans)


def _blank(match: re.Match[str]) -> str:
    return re.sub(r"[^\n]", " ", match.group())


def extract_links(masked_body: str, body_line: int = 1) -> tuple[LinkOccurrence, ...]:
    """All links in a body already passed through :func:`mask_code`, in reading order."""
    found: list[tuple[int, LinkOccurrence]] = []
    if "[[" in masked_body:
        lines = _LineCounter(masked_body, body_line)
        for m in _WIKI.finditer(masked_body):
            start = m.start()
            if start and masked_body[start - 1] == "!":
                start -= 1  # an embed: ![[...]]
            link = _wiki(masked_body[start:m.end()], m.group(1), lines.at(start))
            if link is not None:
                found.append((start, link))
    if "](" in masked_body:
        lines = _LineCounter(masked_body, body_line)
        for m in _MARKDOWN.finditer(masked_body):
            link = _markdown(m, lines.at(m.start()))
            if link is not None:
                found.append((m.start(), link))
    found.sort(key=lambda pair: pair[0])
    return tuple(link for _, link in found)


def extract_property_links(yaml_text: str) -> tuple[LinkOccurrence, ...]:
    """Wikilinks in a note's frontmatter properties (``categories: ["[[Books]]"]``), which
    Obsidian counts as links of the note; the block starts on the file's line 2. Markdown
    links there are text to Obsidian, and a YAML comment holds none."""
    if "[[" not in yaml_text:
        return ()
    uncommented = _YAML_COMMENT.sub(_blank, yaml_text)
    return tuple(link for link in extract_links(uncommented, 2) if link.style == "wiki")


class _LineCounter:
    """Line numbers of increasing offsets, counting each newline once (not from 0 each time)."""

    def __init__(self, text: str, first_line: int):
        self.text, self.offset, self.line = text, 0, first_line

    def at(self, offset: int) -> int:
        self.line += self.text.count("\n", self.offset, offset)
        self.offset = offset
        return self.line


def _wiki(raw: str, inner: str, line: int) -> LinkOccurrence | None:
    inner = inner.replace("\\|", "|")  # "\|" is how a link is written inside a table
    target, _, display = inner.partition("|")
    target, _, subpath = target.partition("#")
    target = target.strip()
    if not target and not subpath.strip():
        return None
    return LinkOccurrence(
        raw=raw, target=target, subpath=subpath.strip() or None,
        display=display.strip() or None, embed=raw.startswith("!"), style="wiki", line=line,
    )


def _markdown(m: re.Match[str], line: int) -> LinkOccurrence | None:
    href = m.group(3)
    if href.startswith("<") and href.endswith(">"):
        href = href[1:-1]
    if _SCHEME.match(href) or href.startswith("//"):
        return None  # a URL, not a file of the vault
    path, _, subpath = href.partition("#")
    # A query is no part of the file (GitHub's "img.png?raw=true"); split before decoding, so
    # an encoded "%3F" or "%23" stays in the file name
    path = unquote(path.partition("?")[0])
    subpath = unquote(subpath)
    if not path and not subpath:
        return None
    return LinkOccurrence(  # a wrapped link on one line: `links` prints one per line
        raw=_one_line(m.group(0)), target=path.strip(), subpath=subpath.strip() or None,
        display=_one_line(m.group(2)).strip() or None, embed=bool(m.group(1)), style="markdown", line=line,
    )


def _one_line(text: str) -> str:
    return _LINE_BREAK.sub(" ", text) if "\n" in text else text


_LINE_BREAK = re.compile(r"[ \t]*\n[ \t]*")


@dataclass(frozen=True, slots=True)
class Resolution:
    target_path: str | None
    ambiguous: bool = False


def target_key(target: str) -> str:
    """The :func:`name_key` of the last path component a link points at, without ``.md``: the
    index key that finds which links a new, deleted or moved file can change."""
    name = name_key(target.rstrip("/").rsplit("/", 1)[-1])
    return name[:-3] if name.endswith(".md") else name


class LinkResolver:
    """Resolves link targets against the set of notes and attachments of one vault."""

    def __init__(self, note_paths: Iterable[str], attachment_paths: Iterable[str] = ()):
        # Keyed by name_key: "Café" typed in a link finds the "Café" macOS wrote decomposed
        self._notes: dict[str, list[str]] = defaultdict(list)  # stem -> paths
        self._files: dict[str, list[str]] = defaultdict(list)  # file name -> paths
        self._exact: dict[str, str] = {}  # full path -> path
        for path in note_paths:
            self._notes[name_key(note_stem(path))].append(path)
            self._exact[name_key(path)] = path
        for path in attachment_paths:
            self._files[name_key(path.rsplit("/", 1)[-1])].append(path)
            self._exact[name_key(path)] = path

    def resolve(self, link: LinkOccurrence, source: str) -> Resolution:
        """Where ``link``, written in the note at ``source``, points."""
        target = link.target
        if not target:
            return Resolution(source)  # [[#Heading]]: the note itself
        # Obsidian's "relative path" link format writes wikilinks as paths too: [[../Note]]
        if link.style == "markdown" or target.startswith(("./", "../")):
            found = self._by_relative_path(target, source)
            if found:
                return Resolution(found)
        return self._by_name(target.strip("/"), source)

    def _by_relative_path(self, target: str, source: str) -> str | None:
        base = "" if target.startswith("/") else parent_dir(source)
        joined = posixpath.normpath(posixpath.join(base, target.lstrip("/")))
        if joined.startswith("../"):
            return None
        for candidate in (joined, joined + ".md"):
            if name_key(candidate) in self._exact:
                return self._exact[name_key(candidate)]
        return None

    def _by_name(self, target: str, source: str) -> Resolution:
        lowered = name_key(target)
        stem = lowered[:-3] if lowered.endswith(".md") else lowered
        name = stem.rsplit("/", 1)[-1]
        candidates = list(self._notes.get(name, ()))
        if "/" in stem:
            candidates = [p for p in candidates if _suffix_match(name_key(p)[:-3], stem)]
        if not candidates:
            attachment = lowered.rsplit("/", 1)[-1]
            candidates = list(self._files.get(attachment, ()))
            if "/" in lowered:
                candidates = [p for p in candidates if _suffix_match(name_key(p), lowered)]
        if not candidates:
            return Resolution(None)
        if len(candidates) == 1:
            return Resolution(candidates[0])
        return Resolution(_prefer(candidates, parent_dir(source), stem), ambiguous=True)


def _suffix_match(path: str, suffix: str) -> bool:
    return path == suffix or path.endswith("/" + suffix)


def _prefer(candidates: list[str], folder: str, stem: str) -> str:
    """Obsidian's tie-break: the note at the link's own vault path (`[[Note]]` is the root's
    `Note.md`, from any folder), then one in the linking note's folder, then the shortest
    path, as a string (`Archive/Note.md` had been taken over `a/b/Note.md` by its fewer
    folders, and the root's note over `b/Note.md` from `b/` only by chance, qa175)."""
    exact = [p for p in candidates if name_key(p).removesuffix(".md") == stem]
    pool = exact or [p for p in candidates if parent_dir(p) == folder] or candidates
    return min(pool, key=lambda p: (len(p), p))
