"""Checkpoints: the ``## Summary``, ``## Next`` and ``## Failed`` parts of an agent's check-in.

Each top-level item of ``## Failed`` is one dead end. Its reason is a nested ``Reason:`` item,
or the text after `` — `` / `` -- `` on the same line, else its sentences after the first;
other nested items are kept as detail after the reason, so nothing written under an item is
dropped. ``[[links]]`` stay as written.

The list reader and the text helpers here (the sentences of a ruling, what ``deadend check``
compares of it: :func:`match_text`, :func:`lead_sentence`) serve the working notes' markers
and the decision records too (:mod:`~vault_engine.parsing.markers`,
:mod:`~vault_engine.parsing.decisions`). They work on the text of sections (parsed now or read
back from the ledger), so ``resume`` can read a checkpoint's Summary and Next from the index
without opening the file.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from vault_engine.model import DeadEnd
from vault_engine.parsing.fences import TEXT, code_masked, fence_roles
from vault_engine.parsing.readable import links_as_text, wikilinks_as_text
from vault_engine.parsing.sections import rendered_heading, section_body, starts_block
from vault_engine.text import shortened

SUMMARY_HEADINGS = frozenset({"summary"})
GOAL_HEADINGS = frozenset({"goal", "goals", "decision"})  # what the session chose
NEXT_HEADINGS = frozenset({"next", "next steps"})
FAILED_HEADINGS = frozenset({"failed", "failed approaches", "dead ends", "ruled out"})
SOURCE = "checkpoint"  # a Failed item's, as a ruling names where it was recorded

_ITEM = re.compile(r"^(?P<indent>[ \t]*)(?:[-*+]|\d{1,9}[.)])(?:[ \t]+(?P<text>.*))?$")
_CHECKBOX = re.compile(r"^\[([ xX/-])\][ \t]+")
_REASON = re.compile(r"^[*_]{0,2}(?:reason|why(?:[ \t]+(?:rejected|not(?:[ \t]+chosen)?))?|rejected[ \t]+because)"
                     r"[*_]{0,2}[ \t]*:[ \t]*[*_]{0,2}[ \t]*(?P<rest>.*)$", re.IGNORECASE)
# A reason follows an em dash, an en dash or a double hyphen with spaces around it.
_DASH = re.compile(r"[ \t]+(?:—|–|--)[ \t]+")
_LEADING_DASH = re.compile(r"^(?:—|–|--)(?:[ \t]|$)")
_LINK_OR_CODE = re.compile(r"\[\[[^\]]*\]\]|`[^`]*`")
_SLUG_WORD = re.compile(r"[a-z0-9]+")
_DATED_NAME = re.compile(r"(\d{4})-(\d{2})-(\d{2})(?!\d)")
_TIMESTAMPED_NAME = re.compile(r"^(?P<stamp>\d{4}-?\d{2}-?\d{2}T[\d:-]*Z)-(?P<agent>.+)$")
_POSSESSIVE = re.compile(r"(?<=\w)['’]s\b")
# a line that is only a link (a list item or not): under the Summary, the checkpoint's links,
# which the brief lists as linked notes; they read as its prose (`checkpoint new --link` writes
# them there: qa118)
_LINK_LINE = re.compile(r"^[ \t]*(?:[-*+][ \t]+)?(?:!?\[\[[^\]\n]*\]\]|\[[^\]\n]*\]\([^)\n]*\))[ \t]*$\n?", re.M)
_LINK_TARGET = re.compile(r"\]\([^)\s]*\)|<?https?://\S+")  # a Markdown link's target, a bare URL


class SectionLike(Protocol):
    """A parsed :class:`~vault_engine.model.Section` or a ledger section row (read-only
    members: both are frozen dataclasses)."""

    @property
    def heading(self) -> str | None: ...
    @property
    def heading_path(self) -> tuple[str, ...]: ...
    @property
    def level(self) -> int: ...
    @property
    def line_start(self) -> int: ...
    @property
    def text(self) -> str: ...


@dataclass(slots=True)
class ListItem:
    """One list item: its text (continuation lines joined) and its nested items."""

    text: str
    offset: int  # line offset within the lines it was read from
    indent: int
    children: list[ListItem] = field(default_factory=list)
    closed: bool = False  # a task ticked off or cancelled: "- [x] ...", "- [-] ..."
    lead: int | None = None  # the length of its first paragraph's text, when another follows

    def descendants(self) -> Iterable[ListItem]:
        """Every nested item, depth first. Iterative: a list nested a thousand deep is an
        odd note, not a reason to stop indexing."""
        stack = list(reversed(self.children))
        while stack:
            item = stack.pop()
            yield item
            stack.extend(reversed(item.children))


@dataclass(frozen=True, slots=True)
class CheckpointParts:
    """What ``resume`` shows of a checkpoint besides its dead ends."""

    summary: str
    next_steps: tuple[str, ...]  # those still open: a step ticked off ("- [x] ...") is done, no plan
    goal: str = ""  # its Goal or Decision: what was chosen, which `deadend check` weighs rulings against
    closed_steps: tuple[str, ...] = ()  # the Next items ticked off or cancelled, left out
    goal_heading: str = "Goal"  # the goal's heading as written ("Decision" was shown as "Goal", qa74)


def item_body(line: str) -> str:
    """A line's text after its list marker, a checkbox kept ("- [x] validate" is "[x]
    validate"); the line itself when it is no list item."""
    m = _ITEM.match(line)
    return (m.group("text") or "").strip() if m else line


def item_text(line: str) -> str:
    """A line's text as a list item reads, its marker and checkbox left out ("- [ ] validate"
    is "validate"); the line itself when it is no list item."""
    items = read_list([line])
    return items[0].text if items else line


def body_lines(section: SectionLike) -> list[str]:
    """The section's lines after its heading lines, fenced code blanked (offsets kept)."""
    lines = section.text.split("\n")
    body = section_body(section.text, section.heading)
    heading_lines = len(lines) - len(body.split("\n")) if body else len(lines)  # only headings
    return blank_code([""] * heading_lines + lines[heading_lines:])


def blank_code(lines: list[str]) -> list[str]:
    """Blank the lines of fenced code blocks: nothing inside code is a dead end or a step."""
    return [line if role == TEXT else "" for line, role in zip(lines, fence_roles(lines))]


def read_list(lines: Sequence[str]) -> list[ListItem]:
    """The list items in ``lines`` as a tree; paragraphs outside a list are ignored."""
    roots: list[ListItem] = []
    stack: list[ListItem] = []
    after_blank = False
    for offset, raw in enumerate(lines):
        if not raw.strip():
            after_blank = True
            continue
        indent = _indent(raw)
        m = _ITEM.match(raw)
        if m:
            while stack and stack[-1].indent >= indent:
                stack.pop()
            text = (m.group("text") or "").strip()
            box = _CHECKBOX.match(text)  # ticked off ([x]) or cancelled ([-]): closed
            item = ListItem(text[box.end():] if box else text, offset, indent,
                            closed=box is not None and box.group(1) in "xX-")
            (stack[-1].children if stack else roots).append(item)
            stack.append(item)
        elif stack and (indent > stack[0].indent or not after_blank and not _INTERRUPTS.match(raw)):
            while len(stack) > 1 and after_blank and indent <= stack[-1].indent:
                stack.pop()
            # a quote inside the item: its words, not its `>` nor a callout's `[!note]` (qa142, qa143)
            quoted = QUOTE.match(raw)
            words = _CALLOUT_TYPE.sub("", quoted.group("rest").strip()) if quoted else raw.strip()
            # a paragraph after a blank line, or a line under a title wholly in bold (`1. **Expose
            # the delay as a status field**`, then why on the next line, qa179): its first part
            if stack[-1].lead is None and (after_blank or _WHOLLY_BOLD.fullmatch(stack[-1].text)):
                stack[-1].lead = len(stack[-1].text)
            stack[-1].text = f"{stack[-1].text} {words}".strip()
        else:
            stack = []  # a paragraph after a blank line ends the list
        after_blank = False
    return roots


_WHOLLY_BOLD = re.compile(r"\*\*[^*]+\*\*|__[^_]+__")

# A block that ends a list item's paragraph unless indented into the item, as Markdown reads it:
# "- X -- why #deadend" then "> [!failed] Y" on the next line is two rulings, and Y's callout
# had become the end of X's reason (qa140).
_INTERRUPTS = re.compile(r"^[ \t]*(?:>|#{1,6}(?:[ \t]|$)|(?:[-*_][ \t]*){3,}$)")


def _indent(line: str) -> int:
    prefix = line[: len(line) - len(line.lstrip(" \t"))]
    return len(prefix.expandtabs(4))


_EMPHASIS = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_CODE_SPAN = re.compile(r"`([^`]*)`")


def unemphasized(text: str, prose: Callable[[str], str] = lambda part: part) -> str:
    """``text`` with bold as plain, as a reader sees it, and ``prose`` applied outside code
    spans (whose backticks say "this is a name", and stay)."""
    # bold found with code spans masked, so it may hold one: ``**Keep sessions in `Redis`**`` had
    # kept its stars (qa169)
    masked = code_masked(text, "\0")
    marks = {i for m in _EMPHASIS.finditer(masked) for start in (m.start(), m.end(2)) for i in (start, start + 1)}
    plain = "".join(ch for i, ch in enumerate(text) if i not in marks)
    parts = _CODE_SPAN.split(plain)  # even: prose, odd: code
    return "`".join(part if n % 2 else prose(part) for n, part in enumerate(parts))


def split_reason(text: str) -> tuple[str, str | None]:
    """``"approach -- reason"`` -> ``("approach", "reason")``; a dash inside a [[link]] or a
    code span does not split."""
    shielded = _LINK_OR_CODE.sub(lambda m: "x" * len(m.group()), text)
    m = _DASH.search(shielded)
    if m is None:
        return text.strip(), None
    approach, reason = text[: m.start()].strip(), text[m.end():].strip()
    if not approach:
        return text.strip(), None
    return approach, reason or None


def item_reason(item: ListItem) -> tuple[str, str | None]:
    """An item's approach and reason: the dash part, then nested ``Reason:`` items, then any
    other nested items as detail, joined with ``; ``."""
    text, dashed = split_reason(item.text)
    reasons, details = [], []
    for child in item.descendants():
        m = _REASON.match(child.text)
        if m:
            reasons.append(m.group("rest").strip())
        elif child.text:
            details.append(child.text)
    return text, joined_reasons(([dashed] if dashed else []) + reasons + details)


_CLOSING_STOP = re.compile(r"(?<!\.)\.$")  # a sentence's full stop, not an ellipsis


def joined_reasons(parts: Iterable[str]) -> str | None:
    """Reasons as one line, joined with "; ": Markdown links as their text (a URL read aloud
    or paid for in a brief's tokens says nothing), and no full stop before a "; " ("need
    synchronization.; WatchService ..."). None when there is none."""
    said = [links_as_text(p).strip() for p in parts if p and p.strip()]
    return "; ".join([_CLOSING_STOP.sub("", p) for p in said[:-1]] + said[-1:]) or None


_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+(?=[\w\"'(`*\[])|\n+")


# A piece ending so is no sentence: "(i.e." and "e.g." go on; "1." alone is a list's number.
_NOT_AN_END = re.compile(r"(?:(?<![\w.])(?:i\.e|e\.g|cf|vs)\.|^\(?\d{1,3}[.)])$", re.IGNORECASE)


def unwrapped(text: str) -> str:
    """Prose with its hard-wrapped lines joined: a line that starts no block (a list item, a
    heading, a quote, a table row) goes on the line of text above it, a list item's too, unless
    that is a heading."""
    out: list[str] = []
    for line in text.split("\n"):
        above = out[-1].lstrip() if out else ""
        if above and not above.startswith("#") and line.strip() and not starts_block(line):
            out[-1] = f"{out[-1].rstrip()} {line.strip()}"
        else:
            out.append(line)
    return "\n".join(out)


def split_sentences(text: str) -> list[str]:
    """Sentences of prose (hard-wrapped lines already joined), stripped; empty ones dropped."""
    out: list[str] = []
    for piece in (s.strip() for s in _SENTENCE_END.split(text)):
        if not piece:
            continue
        if out and _NOT_AN_END.search(out[-1]):
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    return out


def match_text(text: str) -> str:
    """The text ``deadend check`` compares: link targets and URLs dropped ("[Maven](https://
    maven.apache.org/)" says Maven, "[[billing-spec#Refund window|refund window]]" says refund
    window), possessives too, so "the client's header" and "the client" share the word client."""
    return _POSSESSIVE.sub("", _LINK_TARGET.sub("]", wikilinks_as_text(text)))


def lead_sentence(detail: str | None, text: str, source: str) -> str | None:
    """The first sentence of a ruling's description after its own text: what a record says
    the option was, the sentence a near-verbatim restatement copies. A checkpoint's Failed
    item has no description: its detail is the item and why it failed, and restating that
    reason ("Crowdin shows translators what is left" for "... -- Crowdin does not support
    that") restates no ruling (qa125). A record's is read whatever its reason: a KEP's
    alternative is described by the text that follows it, which is its reason too, and
    leaving that out lost three near-verbatim restatements by words alone (qa128's try)."""
    if not detail or source == SOURCE:
        return None
    rest = detail[len(text):].lstrip(". ") if detail.startswith(text) else detail
    # the first sentence that says something ("See https://..." does not)
    return next((s for s in split_sentences(rest) if len(match_text(s).split()) >= 4), None)


def slugify(text: str, taken: set[str] | None = None) -> str:
    """A short lower-case slug of the first words, unique among ``taken`` (which it extends)."""
    plain = text.replace("[[", "").replace("]]", "").casefold()
    words = _SLUG_WORD.findall(plain)[:6]
    base = "-".join(words)[:60].strip("-") or "dead-end"
    slug, n = base, 2
    while taken is not None and slug in taken:
        slug, n = f"{base}-{n}", n + 1
    if taken is not None:
        taken.add(slug)
    return slug


PART_NAMES = SUMMARY_HEADINGS | GOAL_HEADINGS | NEXT_HEADINGS | FAILED_HEADINGS
_LABEL = re.compile(r"^[ \t]*+[*_]{1,2}(?P<name>[^*_:]+?)[ \t]*+:?[ \t]*+[*_]{1,2}[ \t]*+:?[ \t]*+$")  # `*+`: qa151
# ... and one that goes on with what it says: "**Decision:** keep the per-node cap" (qa179)
_LABEL_THEN_TEXT = re.compile(r"^[ \t]*+[*_]{2}(?P<name>[^*_:]+?)[ \t]*+(?::[ \t]*+[*_]{2}|[*_]{2}[ \t]*+:)[ \t]*+\S")


def part_slips(sections: Sequence[SectionLike]) -> list[str]:
    """A checkpoint's parts written so they are not read: a heading one typo from a part
    (``## Faild``), and a bold label line (``**Failed:**``) where a heading is read. Their items
    were left out of the dead ends and the brief without a word (qa51)."""
    import difflib

    slips = []
    for section in sections:
        heading = " ".join((section.heading or "").split())
        name = part_name(heading)
        if heading and name not in PART_NAMES:
            close = difflib.get_close_matches(name, sorted(PART_NAMES), n=1, cutoff=0.8)
            named = _NAMES_A_PART.search(heading)  # "What failed" (qa152)
            if close or named:
                meant = close[0] if close or named is None else _PART_OF_WORD[named.group().casefold()[:4]]
                slips.append(f"heading {heading!r} is no part of a checkpoint (did you mean "
                             f"{meant.capitalize()}?): what it lists is not read")
        if in_part(section, FAILED_HEADINGS):
            for item in read_list(body_lines(section)):
                if not _approach(item) and (item.text or item.children) and not struck_out(item):
                    what = repr(item.text.strip()) if item.text.strip() else "an empty item"
                    slips.append(f"the Failed item at line {section.line_start + item.offset} names no approach "
                                 f"({what}): write '- APPROACH -- REASON' for it to be read as a dead end")
        for line in body_lines(section):
            label = _LABEL.match(line)
            if label and label.group("name").strip().casefold() in PART_NAMES:
                slips.append(f"{line.strip()!r} is a bold line, not a heading: write "
                             f"'## {label.group('name').strip().capitalize()}' for what it lists to be read")
            elif (label := _LABEL_THEN_TEXT.match(line)) and label.group("name").strip().casefold() in PART_NAMES \
                    and part_name(heading) != label.group("name").strip().casefold():  # under its own heading: read
                slips.append(f"{shortened(line.strip(), 60)!r} opens with a bold label, not a heading: write "
                             f"'## {label.group('name').strip().capitalize()}' over it for what it says to be read")
    return slips


def in_part(section: SectionLike, names: frozenset[str]) -> bool:
    """Whether the section is one of ``names`` (headings as :data:`PART_NAMES` spell them),
    or under one."""
    return part_heading(section, names) is not None


def part_heading(section: SectionLike, names: frozenset[str]) -> str | None:
    """The heading of ``names`` the section is, or is under, as written; None when none."""
    return next((h for h in section.heading_path if part_name(h) in names), None)


def part_name(heading: str) -> str:
    """A heading as the name of a part: as a page draws it (``**Failed**`` is Failed), without
    a sign before it or what follows a colon, a dash, a slash or a parenthesis (``❌ Failed``,
    ``Failed (2)``, ``Failed: see below``, ``Failed — this session``), case and spacing folded.
    A bold Failed heading, and one with words after it, had lost every ruling without a word
    (qa151, qa152)."""
    name = _SIGNS_BEFORE.sub("", rendered_heading(heading))
    return " ".join(_SAID_AFTER.sub("", name).split()).casefold()


_PART_OF_WORD = {"fail": "failed", "dead": "dead ends", "rule": "ruled out", "next": "next steps", "goal": "goal",
                 "deci": "decision", "summ": "summary"}
_SIGNS_BEFORE = re.compile(r"^[^\w(\[]+")
_SAID_AFTER = re.compile(r"\s*(?:[:(|/—–]|\s-\s).*$")
_NAMES_A_PART = re.compile(r"\b(?:failed|failures?|dead ?ends?|ruled out|next steps?|goals?|decision|summary)\b",
                           re.IGNORECASE)


def struck_out(item: ListItem) -> bool:
    """An item struck through from its start (``- ~~Full CRDT library -- ...~~ works now with
    Automerge 2``): the team reversed it, and it is no ruling any more."""
    return item.text.lstrip().startswith("~~")


# An Obsidian callout marking a dead end, in a working note or a checkpoint's Failed list:
# ``> [!failed] Title`` (``+``/``-`` fold signs allowed), its quoted body the reason; also
# Obsidian's own failure type (``[!failure]``, ``[!fail]``), and one nested in another callout
# (``> > [!failed]``: it had been no ruling, qa151).
CALLOUT = re.compile(r"^[ \t]*(?P<depth>(?:>[ \t]*)+)\[!(?:deadend|failed|failure|fail)\][+-]?[ \t]*(?P<title>.*)$",
                     re.IGNORECASE)
QUOTE = re.compile(r"^[ \t]*>[ \t]?(?P<rest>.*)$")
_CALLOUT_TYPE = re.compile(r"^\[![\w-]+\][+-]?[ \t]*")  # `[!note]` opening a callout of any other type
_REASON_PREFIX = re.compile(r"^[*_]{0,2}(?:reason|why)[*_]{0,2}[ \t]*:[ \t]*[*_]{0,2}[ \t]*", re.IGNORECASE)


def callout_blocks(lines: list[str]) -> list[tuple[int, int, str]]:
    """Each ``> [!deadend] Title`` callout: its first line, its last (the quoted body's), its title."""
    return [(offset, end, title) for offset, end, title, _ in _callout_blocks(lines)]


def _callout_blocks(lines: list[str]) -> list[tuple[int, int, str, int]]:
    """:func:`callout_blocks`, each with how deep its quote is (``> > [!failed]``: 2)."""
    blocks = []
    for offset, line in enumerate(lines):
        if m := CALLOUT.match(line):
            depth, end = m.group("depth").count(">"), offset
            while (end + 1 < len(lines) and _quoted(lines[end + 1], depth) is not None
                   and not CALLOUT.match(lines[end + 1])):
                end += 1
            blocks.append((offset, end, m.group("title").strip(), depth))
    return blocks


def _quoted(line: str, depth: int) -> str | None:
    """The line's text inside ``depth`` quote marks, or None when it is quoted less deep."""
    for _ in range(depth):
        quoted = QUOTE.match(line)
        if quoted is None:
            return None
        line = quoted.group("rest")
    return line


def callouts(lines: list[str]) -> list[tuple[int, str, str | None]]:
    """``> [!deadend] Title`` with its quoted body as the reason."""
    found = []
    for offset, end, title, depth in _callout_blocks(lines):
        body = [_REASON_PREFIX.sub("", rest) for following in lines[offset + 1:end + 1]
                if (rest := (_quoted(following, depth) or "").strip())]
        if not title and body:  # no title: the first body line is the approach
            title, body = body[0], body[1:]
        if not title.startswith("~~"):  # struck out, as a Failed item is: reversed, no ruling any more (qa132)
            found.append((offset, title, " ".join(body) or None))
    return found


def failed_dead_ends(sections: Sequence[SectionLike], agent: str | None = None,
                     when: float | None = None) -> tuple[DeadEnd, ...]:
    """Every top-level item under a ``Failed`` heading (subsections included)."""
    found: list[DeadEnd] = []
    slugs: set[str] = set()
    for section in sections:
        if not in_part(section, FAILED_HEADINGS):
            continue
        lines = body_lines(section)
        read: list[tuple[int, str, str | None]] = []
        for item in read_list(without_callouts(lines)):
            text, reason = item_reason(item)
            if not _approach(item) or struck_out(item):
                continue
            if item.lead and len(text) > item.lead and split_reason(item.text)[1] is None:
                # "**Keep sessions in Redis**", then a paragraph of why: glued to it, the ruling read
                # as one run-on and "(no reason written)" (qa151); a ` -- ` further on gives the
                # reason, the lines before it go on with the approach (qa189); a `Why:` label is no reason
                why = text[item.lead:].strip()
                label = _REASON.match(why)
                text, reason = _CLOSING_STOP.sub("", text[:item.lead].strip()), joined_reasons(
                    [label.group("rest") if label else why, reason or ""])
            elif reason is None:  # "Keep sessions in a shared Redis. The failover logged out every user."
                text, reason = _sentence_then_why(text)
            read.append((item.offset, text, reason))
        # a callout in the list is a ruling of its own, as in a working note: indented into an
        # item, its markup had been the end of the item's reason, and it no ruling (qa142)
        for offset, text, reason in sorted(read + callouts(lines)):
            # shown as a record's option is: "**Postgres locks**" kept its stars (qa132), and so did its reason (qa133)
            text, reason = unemphasized(text), unemphasized(reason) if reason else None
            found.append(DeadEnd(text, reason, SOURCE, section.line_start + offset,
                                 section.heading, slugify(text, slugs), agent, when,
                                 f"{text} -- {reason}" if reason else None))
    return tuple(found)


def without_callouts(lines: list[str]) -> list[str]:
    """``lines`` with each callout's lines blank (offsets kept): no list item continues into one."""
    apart = list(lines)
    for start, end, _ in callout_blocks(lines):
        apart[start:end + 1] = [""] * (end + 1 - start)
    return apart


def _sentence_then_why(text: str) -> tuple[str, str | None]:
    """An item of no dash and no ``Reason:`` as its first sentence, the approach, and the
    sentences after it, why: read as all approach, its reason had been words a word-for-word
    restatement must repeat (40%: a miss by words alone) and the list said "no reason written"
    (qa132). A decision record's alternative listed with its reason is read much so too
    (parsing/decisions.py, its first sentence the alternative)."""
    pieces = split_sentences(text) or [text]
    # a sentence opens with a capital, after no abbreviation: "Run approx. 50 workers" and "the
    # St. Louis region" had been cut there (qa133)
    cut = next((n for n in range(1, len(pieces))
                if pieces[n][:1].isupper() and pieces[n - 1].endswith((".", "!", "?"))
                and not _ABBREVIATION.search(pieces[n - 1])), None)
    if cut is None:
        return text, None
    return _CLOSING_STOP.sub("", " ".join(pieces[:cut])), " ".join(pieces[cut:])


_ABBREVIATION = re.compile(r"(?<![\w.])(?:approx|etc|incl|esp|fig|no|vs|cf|ca|st|dr|mr|mrs|ms|jr|sr|inc|ltd|co|"
                           r"min|max|avg|vol|ver|(?:[a-z]\.)+[a-z])\.$", re.IGNORECASE)  # and U.S., a.m., e.g.


def _approach(item: ListItem) -> str:
    """The approach a Failed item names; empty for an empty item and for one that opens with
    the dash before a reason (`- -- only reason` was a dead end named "-- only reason", qa60)."""
    text = item_reason(item)[0]
    return "" if _LEADING_DASH.match(text) else text


def checkpoint_parts(sections: Sequence[SectionLike]) -> CheckpointParts:
    """The Summary text, the Next items and the Goal of a checkpoint (empty when absent); a
    line of a link alone is no prose of the Summary (a Decision may be one link, to its record)."""
    summary: list[str] = []
    goal: list[str] = []
    goal_heading = "Goal"
    steps: list[str] = []
    closed: list[str] = []
    for section in sections:
        prose = summary if in_part(section, SUMMARY_HEADINGS) else goal if in_part(section, GOAL_HEADINGS) else None
        if prose is not None:
            text = "\n".join(body_lines(section))
            text = (_LINK_LINE.sub("", text) if prose is summary else text).strip()
            if text:
                if prose is goal and not goal:
                    goal_heading = part_heading(section, GOAL_HEADINGS) or goal_heading
                prose.append(text)
        elif in_part(section, NEXT_HEADINGS):
            items = [item for item in read_list(body_lines(section)) if item.text]
            steps += [item.text for item in items if not item.closed]
            closed += [item.text for item in items if item.closed]
    return CheckpointParts("\n\n".join(summary), tuple(steps), "\n\n".join(goal), tuple(closed), goal_heading)


def note_agent(rel_path: str, meta: dict) -> str | None:
    """The agent who wrote a note: frontmatter ``agent:``, else the ``<timestamp>-<agent>``
    file name of a checkpoint."""
    declared = meta.get("agent")
    if isinstance(declared, (str, int)) and not isinstance(declared, bool) and str(declared).strip():
        return str(declared).strip()
    m = _timestamped(rel_path)
    return m.group("agent") if m else None


def name_time(rel_path: str) -> float | None:
    """Unix seconds of a ``<timestamp>-<agent>`` file name (``20261021T143000Z-codex.md``):
    when ``checkpoint new`` wrote it, a better date than a file time a copy or a pull reset.
    A name that opens with a date only (``2026-12-03-codex.md``, as people name notes) gives
    that day's start: a checkpoint so named with a ``created`` no date reads was dated by its
    file time, and became the latest over those written after it (qa51)."""
    m = _timestamped(rel_path)
    if m:
        day, _, clock = m.group("stamp").replace("-", "").replace(":", "").rstrip("Z").partition("T")
    else:
        dated = _DATED_NAME.match(rel_path.rsplit("/", 1)[-1])
        if not dated:
            return None
        day, clock = "".join(dated.groups()), ""
    try:  # 2026-02-30 is no day
        stamp = dt.datetime.strptime(day + clock.ljust(6, "0")[:6], "%Y%m%d%H%M%S")
    except ValueError:
        return None
    return stamp.replace(tzinfo=dt.UTC).timestamp()


def name_order(rel_path: str) -> tuple[str, int]:
    """A checkpoint file name as an order: ``...Z-codex.md`` before ``...Z-codex-2.md``
    (a second checkpoint in the same second), which a plain string order reverses."""
    stem = rel_path.rsplit("/", 1)[-1].removesuffix(".md")
    m = re.fullmatch(r"(.*?)-(\d+)", stem)
    return (m.group(1), int(m.group(2))) if m else (stem, 1)


def _timestamped(rel_path: str) -> re.Match[str] | None:
    name = rel_path.rsplit("/", 1)[-1]
    return _TIMESTAMPED_NAME.match(name[:-3] if name.lower().endswith(".md") else name)


# The template titles a checkpoint "Checkpoint: X"; some write "Checkpoint - X" or "Checkpoint — X"
_CHECKPOINT_WORD = re.compile(r"^checkpoint\s*[:\-–—]\s*", re.IGNORECASE)


def without_checkpoint_word(title: str) -> str:
    """A checkpoint's title without the word "Checkpoint" that opens it ("Last checkpoint:
    Checkpoint: X", qa68; "# Checkpoint: Checkpoint: X" from a summary that opened so, qa71)."""
    return _CHECKPOINT_WORD.sub("", title) or title
