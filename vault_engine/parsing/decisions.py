"""Decisions in notes: what was rejected (rulings) and what was chosen (accepted designs).

Structure only, never sentiment. Three shapes are read:

- **MADR records**: ``## Considered Options`` lists every option, ``## Decision Outcome`` says
  ``Chosen option: "X", because ...`` (or, in prose, which option it chose: "We picked X,
  because ..."); every other option is a ruling, its reason the "Bad, because" lines of its
  part of ``## Pros and Cons of the Options`` (else "the record chose X instead": the chosen
  option's "because" argues for it, not against this one), and the chosen option with its
  justification is the accepted design. A record that does not say which it chose rejects none.
- **RFC / KEP-style alternatives**: a section headed ``Alternatives``, ``Alternatives
  considered``, ``Rejected alternatives``, ``Rejected ideas`` (and the like) holds only what was
  not chosen: each subsection one level down, or else each top-level list item, is a ruling
  whose reason is the text under it. The accepted design is the record's ``Decision``,
  ``Summary`` or ``Proposal``.
- **Checkpoints** record what was chosen in ``## Goal`` or ``## Decision``, else ``## Summary``
  (their rulings, the ``## Failed`` items, are read by parsing/checkpoints.py).

A ruling's text is what was tried or proposed; ``detail`` is its description as written
(the text under an alternative, an option's pros and cons), which ``deadend check`` compares
too: "Pod API" alone says little, the paragraph under it says what it was.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from vault_engine.model import Accepted, DeadEnd
from vault_engine.parsing.checkpoints import (
    GOAL_HEADINGS,
    SUMMARY_HEADINGS,
    ListItem,
    SectionLike,
    body_lines,
    item_reason,
    joined_reasons,
    match_text,
    read_list,
    slugify,
    split_reason,
    split_sentences,
    struck_out,
    unemphasized,
)
from vault_engine.parsing.fences import code_masked
from vault_engine.parsing.readable import links_as_text, unescaped, wikilinks_as_text
from vault_engine.parsing.sections import heading_line, is_list_item, starts_block

SOURCE = "decision record"
DETAIL_CHARS = 600  # of an alternative's description: enough to say what it was

# "Alternatives", "Alternatives considered", "Rejected ideas", "Build location alternatives",
# "Alternatives [optional]" (the KEP template's own words); not "Alternative X", which is one.
_ALTERNATIVES = re.compile(
    r"(?:^|\s)(?:alternatives(?:\s+(?:considered|rejected|not chosen))?|rejected\s+(?:ideas|alternatives|options|"
    r"approaches|designs)|(?:other\s+)?options\s+(?:considered|rejected)|alternative\s+(?:approaches|designs)|"
    r"discarded\s+(?:ideas|alternatives|options))(?:\s*[\[(]optional[\])])?$", re.IGNORECASE)
_CONSIDERED = frozenset({"considered options", "options considered", "considered alternatives"})
_OUTCOME = frozenset({"decision outcome", "decision"})
_PROS_CONS = re.compile(r"^pros and cons", re.IGNORECASE)
_CHOSEN = re.compile(r"chosen (?:option|alternative)\s*:?\**\s*:?\s*(?P<rest>.+)", re.IGNORECASE)
_WORD = re.compile(r"\w")
# "X", because ... or 'X', because ... (single quotes when X itself quotes: MADR 0017)
_QUOTED = re.compile(r"""^(?:["“](?P<double>[^"”]+)["”]|['‘](?P<single>.+?)['’](?=\s*(?:[,.;]|$)))"""
                     r"\s*,?\s*(?P<why>.*)$")
_BAD = re.compile(r"^(?:bad|con)\b[,:]?\s*(?:because\b:?\s*)?", re.IGNORECASE)
_MARKUP = re.compile(r"[*`\"“”]|(?<!\w)_+|_+(?!\w)|\[\[|\]\]")  # an _ inside a word (storage_core.go) stays
_CODE_SPAN = re.compile(r"`([^`]*)`")
_QUOTES = re.compile(r"(?<!\w)['‘’]|['‘’](?!\w)")  # quotes around a name, not an apostrophe
ACCEPTED_IN_CHECKPOINTS = (GOAL_HEADINGS, SUMMARY_HEADINGS)
ACCEPTED_IN_RECORDS = (frozenset({"decision", "decision outcome"}), frozenset({"summary", "proposal"}))


def _holds_alternatives_only(heading: str) -> bool:
    """An ``Alternatives`` heading of an RFC or KEP (each part under it was not chosen); not
    MADR's ``Pros and Cons of the Alternatives``, whose parts include the chosen option."""
    return bool(_ALTERNATIVES.search(heading)) and not _PROS_CONS.match(heading)


def _unmarked(text: str) -> str:
    """``text`` without emphasis, quotes and backticks; what a code span holds kept as written
    (``__annotations__`` lost its underscores as emphasis)."""
    parts = _CODE_SPAN.split(text)  # even: prose, odd: code; a wikilink as its text (qa134)
    return "".join(part if n % 2 else _MARKUP.sub("", wikilinks_as_text(part)) for n, part in enumerate(parts))


def is_madr_record(sections: Sequence[SectionLike]) -> bool:
    """MADR's own two headings, ``Considered Options`` and ``Decision Outcome``: a decision
    record wherever it is kept (no other kind of note is written so)."""
    names = {_name(section) for section in sections}
    return bool(names & _CONSIDERED) and "decision outcome" in names


def _name(section: SectionLike) -> str:
    return _heading_key(section.heading or "")


def _heading_key(heading: str) -> str:
    """A heading as headings are compared here: its words, case aside."""
    return " ".join(heading.split()).casefold()


def plain(text: str) -> str:
    """Markup-free, whitespace-collapsed text, link targets dropped: how options are matched
    with each other ("[Gradle](https://gradle.org/)" is the option "Gradle")."""
    return _as_read(text).strip(" .:").casefold()


def _as_read(text: str) -> str:
    """Text without markup, quotes around names, link targets or extra spaces, case kept."""
    text = _QUOTES.sub("", _MARKUP.sub("", match_text(text)))
    return " ".join(text.replace("[", "").replace("]", "").split())


def record_rulings(sections: Sequence[SectionLike], agent: str | None = None,
                   when: float | None = None) -> tuple[DeadEnd, ...]:
    """Every option a decision record (or a spec) rejected, in reading order."""
    found: list[DeadEnd] = []
    slugs: set[str] = set()
    chosen = chosen_option(sections)
    for section in sections:
        if _name(section) in _CONSIDERED:
            found += _considered(section, sections, chosen, slugs, agent, when)
        elif section.level and _holds_alternatives_only(_name(section)) and not _has_subsections(section, sections):
            found += _listed_alternatives(section, slugs, agent, when)
    found += _alternative_sections(sections, chosen, slugs, agent, when)
    return tuple(sorted(found, key=lambda d: d.line))


MAX_JUSTIFICATION_ITEMS = 2


def _chosen_line(text: str) -> re.Match[str] | None:
    """The ``Chosen option:`` line's match where it opens ``text`` (after marks, not words):
    `Leave line headings such as "Chosen option:" unformatted` names no option (qa128)."""
    m = _CHOSEN.search(text)
    return m if m and not _WORD.search(text[:m.start()]) else None


def chosen_option(sections: Sequence[SectionLike]) -> tuple[str, str] | None:
    """(option, justification) from a ``Chosen option: "X", because ...`` line. A line that
    names no option but opens a list of bold names (``Chosen option: A prioritized set ...``
    then ``1. **OCRmyPDF** (Primary engine)``) chose each of them: they are the option."""
    for section in sections:
        if _name(section) not in _OUTCOME:
            continue
        lines = body_lines(section)
        for n, line in enumerate(lines):
            m = _chosen_line(line)
            if m:
                rest = m.group("rest").strip()
                after: Sequence[str] = lines[n + 1:]
                if not rest.strip(" :*"):  # `Chosen option:` with the quoted option on the next line
                    # (read as the option ":", qa53: "the record chose ':' instead")
                    rest, after = _quoted_below(after, rest)
                # read with code spans masked: `Use `"strict": true``'s own quote had ended the option (qa188)
                quoted = _QUOTED.match(code_masked(rest))
                if quoted:
                    named_as = "double" if quoted.group("double") is not None else "single"
                    option = rest[quoted.start(named_as):quoted.end(named_as)].strip(" ,;")
                    why = rest[quoted.start("why"):]
                else:
                    named = _bold_names(after)
                    if len(named) >= 2:
                        return CHOSEN_JOIN.join(named), rest.rstrip(".")
                    option, _, why = rest.partition(",")
                    option = option.strip(' *"')
                return option, _justification(why.strip(), after)
    return None


def _quoted_below(after: Sequence[str], rest: str) -> tuple[str, Sequence[str]]:
    """The next line as the chosen option's line when it opens with a quote, and the lines
    after it; else ``rest`` and ``after`` as they were (a list of bold names may follow)."""
    below = next((i for i, line in enumerate(after) if line.strip()), None)
    if below is not None and after[below].lstrip()[:1] in ("\"", "“", "'", "‘"):
        return after[below].strip(), after[below + 1:]
    return rest, after


def unlisted_choice(sections: Sequence[SectionLike]) -> str | None:
    """Why a MADR record's ``Chosen option`` names none of its Considered Options, or None:
    every option is then read as rejected, the chosen design too when the name is a typo
    (``"Braille dots"`` among Hash marks, Unicode blocks and a spinner, qa24 #6). A record
    whose outcome is prose naming none of them has no option read as rejected, and says so."""
    chosen = chosen_option(sections)
    options = _considered_options(sections)
    if not options or _said_chosen(options, sections, chosen):
        return None
    if chosen is None:
        if _outcome_lead(sections) is None:  # no outcome yet: every option still open
            return None
        return ("its outcome names none of the options it considered: no option is read as rejected; "
                'write `Chosen option: "X", because ...` there, with X as listed')
    return (f"its Chosen option {chosen[0]!r} names none of its Considered Options: every option is read as "
            "rejected; fix the name if it is a typo")


# Where a prose outcome stops saying what was chosen: "We picked structlog over loguru, because ..."
_CHOICE_ENDS = re.compile(r"[,;:]?\s+(?:because|since|over|rather\s+than|instead\s+of|not|but|than)\b", re.IGNORECASE)


# Saying what was chosen: "we picked", "we will use", "the team went with" (not "we will not use")
_CHOICE_VERB = re.compile(
    r"\b(?:we|I|the\s+team)\s+(?:(?:will|shall|have|had|['’]ll|['’]ve|decided\s+to)\s+)?"
    r"(?:use|pick(?:ed)?|cho(?:se|ose|sen)|select(?:ed)?|go\s+with|gone\s+with|went\s+with|adopt(?:ed)?|"
    r"settled\s+on|opt(?:ed)?\s+for)\b", re.IGNORECASE)


def _outcome_lead(sections: Sequence[SectionLike]) -> str | None:
    """What a record's outcome (``## Decision Outcome``, ``## Decision``) says it chose: in its
    first paragraph, what follows "we picked", "we will use" and the like, else its first
    sentence; up to where it stops naming the choice. "Loguru was tempting, but we picked
    structlog" had named loguru (qa133)."""
    for section in sections:
        if _name(section) in _OUTCOME:
            for _, paragraph in _paragraphs(body_lines(section)):
                if not _WORD.search(paragraph):
                    continue
                said = _CHOICE_VERB.search(paragraph)
                # a sentence saying what was turned down names no choice ("Loguru was rejected because ...", qa134)
                lead = paragraph[said.end():] if said else next(
                    (s for s in split_sentences(paragraph) if not _SAYS_TURNED_DOWN.search(s)), "")
                return _CHOICE_ENDS.split(lead, maxsplit=1)[0]  # "": an outcome that names no choice
    return None


# Saying that something was turned down ("Loguru was rejected", "we ruled out polling"): one
# reading for a record's outcome and for a proposal's scene (memory/matching.py)
TURNED_DOWN_SAYING = (r"(?:(?:was|were|is|are|got|been|being)\s+|(?:we|I|they)\s+(?:have\s+|had\s+|['’]ve\s+)?)"
                      r"(?:rejected|ruled\s+out|turned\s+down|vetoed|discarded|discounted|decided\s+against)")
_SAYS_TURNED_DOWN = re.compile(rf"\b{TURNED_DOWN_SAYING}\b", re.IGNORECASE)


def outcome_names(options: Sequence[str], sections: Sequence[SectionLike],
                  chosen: tuple[str, str] | None) -> set[int]:
    """Without a ``Chosen option`` line, the options the outcome names where it says what it
    chose (:func:`_outcome_lead`): each whose words it nearly all holds, as :func:`chosen_among`
    reads a line that words an option otherwise ("We will use structlog and loguru" chose both:
    a name it starts with had been taken for the one, qa134). "We picked structlog, because
    ..." had left structlog among the rejected, and a proposal of it raised it (qa132)."""
    lead = _outcome_lead(sections) if chosen is None else None
    if not lead:
        return set()
    said = _words(lead)
    return {n for n, words in enumerate(map(_words, options)) if words and len(words & said) >= NEARLY_ALL * len(words)}


CHOSEN_JOIN = "; "  # between the names of several chosen options
_BOLD_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s+(?:\*\*|__)(?P<name>[^*_]+?)(?:\*\*|__)")


def _bold_names(after: Sequence[str]) -> list[str]:
    """The bold names opening the items of the list right below a chosen-option line."""
    names: list[str] = []
    for line in after:
        if not line.strip():
            if names:
                break
            continue
        m = _BOLD_ITEM.match(line)
        if not m:
            break
        names.append(m.group("name").strip())
    return names


def chosen_names(sections: Sequence[SectionLike], chosen: tuple[str, str] | None) -> list[str]:
    """What the record says it chose, as names to find among its options: the outcome's
    option (each of several), and each ``Pros and Cons`` heading marked ``(chosen)``."""
    names = chosen[0].split(CHOSEN_JOIN) if chosen else []
    for title in _option_parts(sections):
        marked = _CHOSEN_MARK.search(title)
        if marked:
            names.append(title[:marked.start()])
    return names


_CHOSEN_MARK = re.compile(r"\s*[(\[]\s*(?:chosen|selected|accepted)\s*[)\]]\s*$", re.IGNORECASE)
# An alternative its heading says was chosen after all, anywhere in the heading (a KEP kept
# "Alternative 3: (Now Primary Solution): Recreate Strategy" among its alternatives, qa47)
_CHOSEN_HERE = re.compile(r"[(\[]\s*(?:now\s+)?(?:the\s+)?(?:chosen|selected|accepted|adopted|"
                          r"primary(?:\s+(?:solution|approach|option))?)\b[^)\]]*[)\]]", re.IGNORECASE)


def _justification(why: str, after: Sequence[str]) -> str:
    """``because ...`` as written; a bare ``because`` continued as a list below the line
    (jabref/0000) takes the list's first items, and continued as a sentence wrapped after it
    (jabref/0032) that sentence ("Chosen instead: In local user folder, because" ended there)."""
    if why.rstrip(":").casefold() not in ("because", ""):
        return " ".join([why, *_rest_of_sentence(why, after)])
    items = [_run_on(item.text.rstrip(". ")) for item in read_list(after)][:MAX_JUSTIFICATION_ITEMS]
    if items and why:
        return f"because {'; '.join(items)}"
    return " ".join([why, *_rest_of_sentence(why, after)]) if why else why


def _run_on(item: str) -> str:
    """A list item as a clause run on after "because" or ";": its capital in lower case
    ("because the HTTP server ...; no background thread", not "because The HTTP server"), a
    name's capitals kept ("HTTP", "WatchService", "`WatchService`")."""
    first = item.split(" ", 1)[0]
    if first[:1].isupper() and first[1:].islower():
        return item[0].lower() + item[1:]
    return item


_SENTENCE_END = re.compile(r"[.!?][)\]\"'*_]*$")


def _rest_of_sentence(said: str, lines: Sequence[str]) -> list[str]:
    """The lines that finish a sentence an editor hard-wrapped (``Chosen option: "X",
    because it runs in our Python workers without`` / ``a browser, ...``; cut at the break,
    the reason read as another one), within its paragraph. A finished sentence is not
    continued: the next one may say something else ("Exception: ... we use the HTML comment
    option")."""
    out: list[str] = []
    for line in lines:
        if _SENTENCE_END.search((out[-1] if out else said).strip()) or not line.strip() or starts_block(line):
            break
        out.append(line.strip())
    return out


def _listed(section: SectionLike) -> list[tuple[ListItem, str]]:
    """A Considered Options section's items, each with the option it names; with no list, the
    rows of a table of them, each named by its cell under a header such as "Option" (a table
    of options with columns of pros and cons had read as a record of no option, and rejected
    none, qa195; a comparison matrix, its options as columns, or a column of row numbers, is
    no list of options: its criteria and its numbers had been rejected options, qa198)."""
    lines = body_lines(section)
    items = [(item, item_reason(item)[0]) for item in _options(read_list(lines))]
    return items or [(ListItem(cell, offset, 0), cell) for offset, cell in _option_cells(lines)]


_TABLE_RULE = re.compile(r"^\s{0,3}\|?\s*:?-+:?\s*(?:\|\s*:?-*:?\s*)*\|?\s*$")
_OPTION_HEADER = re.compile(r"(?:considered\s+)?(?:options?|alternatives?|approach(?:es)?|choices?|candidates?)",
                            re.IGNORECASE)


def _cells(line: str) -> list[str] | None:
    """A table row's cells as read, or None when the line is no row."""
    if "|" not in line:
        return None
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    return [_as_read(cell) for cell in re.split(r"(?<!\\)\|", inner)]


def _option_cells(lines: Sequence[str]) -> list[tuple[int, str]]:
    """The cells of the first table in ``lines`` under its column headed as options ("Option",
    "Alternatives", ...), with their line offsets; [] when there is no such table."""
    start = next((n for n in range(1, len(lines)) if _TABLE_RULE.match(lines[n]) and _cells(lines[n - 1])), None)
    header = _cells(lines[start - 1]) if start is not None else None
    column = next((n for n, name in enumerate(header or ()) if _OPTION_HEADER.fullmatch(name)), None)
    found: list[tuple[int, str]] = []
    if start is None or column is None:
        return found
    for offset in range(start + 1, len(lines)):
        row = _cells(lines[offset])
        if row is None:
            break
        if column < len(row) and row[column]:
            found.append((offset, row[column]))
    return found


def _picked(options: Sequence[str], sections: Sequence[SectionLike], chosen: tuple[str, str] | None) -> set[int]:
    """Which of ``options`` the record says it chose."""
    return set().union(*(chosen_among(options, name) for name in chosen_names(sections, chosen)))


def _considered_options(sections: Sequence[SectionLike]) -> list[str]:
    """Every option a record lists under ``Considered Options`` (or ``Options Considered``):
    its list items, and its sub-headings (qa133)."""
    listed = [text for s in sections if _name(s) in _CONSIDERED for _, text in _listed(s) if text]
    return listed + [_alternative_name(s.heading) for s in sections
                     if s.heading and len(s.heading_path) >= 2 and _considered_heading(s.heading_path[-2])]


def _said_chosen(options: Sequence[str], sections: Sequence[SectionLike], chosen: tuple[str, str] | None) -> set[int]:
    """Which of ``options`` the record says it chose, by its ``Chosen option`` line or its prose."""
    return _picked(options, sections, chosen) | outcome_names(options, sections, chosen)


def _considered(section, sections, chosen, slugs, agent, when) -> list[DeadEnd]:
    """MADR: every listed option but the chosen one; none when the record does not say which
    was chosen where it is read (:func:`outcome_names`)."""
    pros_cons = _option_parts(sections)
    items = _listed(section)
    options = [text for _, text in items]
    picked = _said_chosen(options, sections, chosen)
    if chosen is None and not _said_chosen(_considered_options(sections), sections, chosen):
        return []  # which one was chosen is not said (status says so, unlisted_choice)
    chose = _chose(chosen, options, picked)
    out = []
    for n, (item, text) in enumerate(items):
        if not text or n in picked or struck_out(item):  # struck out: it holds no more (qa76)
            continue
        out.append(_rejected_option(text, [], pros_cons, chose, section.line_start + item.offset, section.heading,
                                    slugs, agent, when))
    return out


def _chose(chosen: tuple[str, str] | None, options: Sequence[str], picked: set[int]) -> str:
    """The chosen option's name, as a ruling's reason gives it: the ``Chosen option`` line's,
    or the option it picks when that says less ("1", or prose)."""
    chose = chosen[0] if chosen else ""
    if (not chose or _BY_NUMBER.fullmatch(plain(chose))) and len(picked) == 1:
        chose = _as_read(options[min(picked)])
    return chose


def _rejected_option(text: str, own: Sequence[str], pros_cons: dict[str, _Part], chose: str, line: int,
                     heading: str | None, slugs: set[str], agent: str | None, when: float | None,
                     said: str = "") -> DeadEnd:
    """A MADR option not chosen: its reason its "Bad, because" lines (``own``, as a sub-heading
    option argues itself, and its part of ``Pros and Cons``), never a pro (a sub-heading option
    had been given its Good lines, qa134), else what its text ``said`` against it; none: "the
    record chose X instead", since the chosen option's "because" argues for that one, not
    against this."""
    titles = list(pros_cons)
    parts = sorted(_part_of([_CHOSEN_MARK.sub("", title) for title in titles], text))
    part = pros_cons[titles[parts[0]]] if parts else _Part(0, [])
    bad = [_BAD.sub("", line).strip() for line in [*own, *part.lines] if _BAD.match(line)]
    reason = joined_reasons(bad) or said or (f'the record chose "{chose}" instead' if chose else None)
    shown = _as_listed(text)
    return DeadEnd(shown, reason, SOURCE, line, heading, slugify(shown, slugs), agent, when,
                   " ".join([text, *own, *part.lines])[:DETAIL_CHARS], described_at=part.line or None)


def _as_listed(option: str) -> str:
    """An option as a reader sees it listed: a link as its text, bold as plain (code spans,
    whose backticks say "this is a name", stay): "Use [Lingohub](https://lingohub.com/)" is
    "Use Lingohub"."""
    return unemphasized(option, functools.partial(links_as_text, wikilinks=True))


def _options(items: Iterable) -> Iterable:
    """The listed options; a label item ending in ":" with items nested under it ("When
    exporting:") is a group of options, not one."""
    for item in items:
        if item.text.endswith(":") and item.children:
            yield from _options(item.children)
        else:
            yield item


class _Part(NamedTuple):
    """Where a record argues one option, and its pros and cons."""

    line: int  # 1-based: the option's own heading, or its item in a Pros and Cons list
    lines: list[str]


def _option_parts(sections: Sequence[SectionLike]) -> dict[str, _Part]:
    """Option title -> its part, from the subsections of ``Pros and Cons of the Options``;
    a sub-heading under an option (``#### Examples``, then its "Bad, because" lines) is still
    that option's. After it, a heading that slipped a level is an option too (JabRef's 0050 and
    0053 write "## Use palantir-java-format" after "### Use prettier-java": their Bad lines had
    been no reason, qa123), and so is one at an option's level under it (``## Fastly`` then
    ``### CloudFront``: qa124); a heading that names no option is matched to none."""
    parts: dict[str, _Part] = {}
    depth: int | None = None  # the Pros and Cons heading's, once it is passed: options are one deeper
    for section in sections:
        path = [" ".join(h.split()) for h in section.heading_path]
        if path and _PROS_CONS.match(path[-1]):  # options as list items, their pros and cons nested
            depth = len(path)
            for item in _options(read_list(body_lines(section))):
                if item.text and item.children and _argued(item):
                    part = parts.setdefault(item.text, _Part(section.line_start + item.offset, []))
                    part.lines.extend(_with_children(child) for child in item.children)
            continue
        top = next((n for n, heading in enumerate(path[:-1]) if _PROS_CONS.match(heading)), None)
        if top is not None:
            depth = top + 1
        elif depth is None or len(path) < depth:
            continue
        if not section.heading:
            continue
        # an option's own heading (a slipped one included), else the option's it is under
        option = section.heading if len(path) <= depth + 1 else section.heading_path[depth]
        lines = [_with_children(item) for item in read_list(body_lines(section)) if item.text]
        parts.setdefault(option, _Part(section.line_start, [])).lines.extend(lines)
    return parts


def _argued(item) -> bool:
    """Whether a list item's nested items are its pros and cons (a Good or Bad line among them)."""
    return any(_BAD.match(child.text) or _GOOD.match(child.text) for child in item.children)


_GOOD = re.compile(r"^(?:good|pro|neutral)\b", re.IGNORECASE)


def _part_of(titles: Sequence[str], option: str) -> set[int]:
    """Which ``Pros and Cons`` heading is the option's: one naming it, else the one heading
    whose words the option nearly all holds ("Special-case only `convert`" for "Special-case
    URL handling only in the `convert` command")."""
    named = _named(titles, option)
    if named:
        return named
    said = _words(option)
    held = [n for n, words in enumerate(map(_words, titles)) if words and len(words & said) >= 0.75 * len(words)]
    return set(held) if len(held) == 1 else set()


def _with_children(item) -> str:
    """A list item's text; "Bad, because:" goes on in the items nested under it."""
    if not item.text.endswith(":") or not item.children:
        return item.text
    return f"{item.text} {'; '.join(child.text.rstrip('.') for child in item.children)}"


def chosen_among(options: Sequence[str], chosen: str) -> set[int]:
    """Which listed options the ``Chosen option`` line names. Records rarely copy the option
    word for word ("Migrate to Picocli" for the option "Picocli", ``mix of "A" and "B"``,
    other quotes), so: the options :func:`_named` so; else every option whose words the line
    nearly all holds; else the one option holding every word of the line; else the one
    option holding most of them, when at least half and no other holds as many. A chosen
    option missed here would be kept as a ruling, and a proposal of the chosen design would
    raise it."""
    same = _named(options, chosen)
    if same:
        return same
    number = _BY_NUMBER.fullmatch(plain(chosen))  # `Chosen option: 1` of a numbered list
    if number and 1 <= int(number.group("n")) <= len(options):
        return {int(number.group("n")) - 1}
    said = _words(chosen)
    shares = [len(words & said) / len(words) if words else 0.0 for words in map(_words, options)]
    nearly_all = {n for n, share in enumerate(shares) if share >= NEARLY_ALL}
    if nearly_all or not shares:
        return nearly_all
    holding = [n for n, words in enumerate(map(_words, options)) if said and said <= words]
    if len(holding) == 1:  # "Add a new divider": only "Add a divider with label ..." holds all its words
        return set(holding)
    best = max(shares)
    return {shares.index(best)} if best >= 0.5 and shares.count(best) == 1 else set()


NEARLY_ALL = 0.75  # of an option's words a line holds that names it in its own words


_BY_NUMBER = re.compile(r"(?:option|alternative)?\s*+(?:no\.?|#)?\s*+(?P<n>\d{1,2})")
_STOP = frozenset("a an and as at be by for from in into is it of on or that the to with".split())


def _words(text: str) -> frozenset[str]:
    """The words that name an option, for telling which one a line names."""
    return frozenset(w for w in re.findall(r"[a-z0-9]+", plain(text)) if w not in _STOP)


def _named(options: Sequence[str], name: str) -> set[int]:
    """The options called ``name``: exactly, else in one of :func:`_same_option`'s ways ("Open
    a dialog" is not the one called "Open a dialog if ..." when that one is listed too)."""
    key = _key(name)
    exact = {n for n, option in enumerate(options) if option and _key(option) == key}
    return exact or {n for n, option in enumerate(options) if option and _same_option(option, name)}


@functools.lru_cache(maxsize=8192)
def _key(option: str) -> str:
    """Spaces, hyphens and underscores dropped: "Preview panel" is the option "PreviewPanel".
    Kept for the options of a record: each is matched against every part's title (a record of
    2,000 options had taken 13.7 s to read, qa151)."""
    return re.sub(r"[\s_-]+", "", plain(option).strip(" ,;"))


def _same_option(a: str, b: str) -> bool:
    """One option named twice: the same words, one the start of the other, or one the label in
    parentheses at the end of the other ("Compare ... per call (mtime polling)")."""
    a, b = _key(a), _key(b)
    if not (a and b):
        return False
    return a == b or a.startswith(b) or b.startswith(a) or a.endswith(f"({b})") or b.endswith(f"({a})")


def _has_subsections(section: SectionLike, sections: Sequence[SectionLike]) -> bool:
    """Whether any section lies under this one (then its list is an introduction's, its
    alternatives are the subsections)."""
    path = tuple(section.heading_path)
    return any(len(s.heading_path) > len(path) and tuple(s.heading_path[:len(path)]) == path for s in sections)


def _alternative_sections(sections, chosen, slugs, agent, when) -> list[DeadEnd]:
    """Each subsection one level under an alternatives heading is one alternative; deeper
    parts describe the alternative above them. A subsection that only introduces sub-headings
    (a short intro, or none: ``### Alternative design proposals`` -> ``#### Proposal A``) is a
    group and opens to them, as does a group named so (``Staging alternatives``); an
    ``Appendix`` is none. In a group, or under a heading ending in ":", a subsection that is
    only a list names one alternative an item. Under ``Considered Options`` (or ``Options
    Considered``) the option the record chose is none, as in a list of them (:func:`_considered`):
    sub-headings had all been read as rejected, the chosen one too (qa133). (Read from heading
    paths: a heading with nothing under it is folded into the section after it.)"""
    opened: dict[tuple[str, ...], str] = {}  # heading path -> "named" (Staging alternatives), "intro", "empty"
    groups: list[tuple[tuple[str, ...], list[SectionLike]]] = []  # (the alternative's heading path, parts)
    out: list[DeadEnd] = []
    for section in sections:
        path = _path(section)
        while (root := _opened_root(path, opened)) is not None:
            head = path[:root + 2]  # the alternative (or group) the section is or lies under
            if _APPENDIX.match(head[-1]):
                break
            if groups and groups[-1][0] == head:
                groups[-1][1].append(section)
            elif head != path and _holds_alternatives(head, sections):  # an empty heading over sub-headings
                opened[head] = "empty"
                continue
            elif head == path and _holds_alternatives_only(head[-1]):
                opened[head] = "named"
            elif head == path and _is_group(section, sections):
                opened[head] = "intro"
            elif head == path and (opened.get(path[:-1]) == "empty" or head[-1].endswith(":")) \
                    and _only_a_list(section) and not _has_subsections(section, sections):
                out += _listed_alternatives(section, slugs, agent, when)
            else:
                groups.append((head, [section]))
            break
    named = []
    for head, group in groups:
        if _CHOSEN_HERE.search(head[-1]):  # "Alternative 3: (Now Primary Solution): Recreate" was chosen
            continue
        named.append((head, group, _alternative_name(head[-1])))
    considered = [n for n, (head, _, _) in enumerate(named) if any(_considered_heading(h) for h in head[:-1])]
    picked = {considered[i] for i in _said_chosen([named[n][2] for n in considered], sections, chosen)}
    # which one was chosen is not said, among these or the options listed beside them (qa134)
    everything = _considered_options(sections)
    said = _said_chosen(everything, sections, chosen)
    unsaid = chosen is None and not said
    chose, pros_cons = _chose(chosen, everything, said), _option_parts(sections) if considered else {}
    for n, (head, group, text) in enumerate(named):
        if n in picked or (n in considered and unsaid):
            continue
        lines = [line for line in _headed_lines(head, group) if line.strip()]
        if n in considered:  # a MADR option, argued as one: by its Bad lines (qa134)
            own = [_with_children(item) for item in read_list(lines) if item.text]
            prose = _prose_of(line for line in lines if not _HEADING.match(line))
            against = links_as_text(_labelled_reason(lines) or _said_rejected(prose))
            out.append(_rejected_option(text, own, pros_cons, chose, heading_line(group[0]), group[0].heading,
                                        slugs, agent, when, against))
        else:
            out.append(_described(text, lines, heading_line(group[0]), group[0].heading, slugs, agent, when))
    return sorted(out, key=lambda d: d.line)


def _alternative_name(heading: str) -> str:
    """What an alternative's heading names it: "2. Alternative: Duck Typed CRDs" names "Duck
    Typed CRDs"."""
    text = _NUMBERED.sub("", " ".join(_unmarked(heading).split()))
    label = _ALTERNATIVE_LABEL.match(text)
    return label.group("name") if label and label.group("name") else text


def _considered_heading(heading: str) -> bool:
    """``Considered Options`` and its like: every option listed there, the chosen one too."""
    return _heading_key(heading) in _CONSIDERED


_APPENDIX = re.compile(r"^appendi(?:x|ces)\b", re.IGNORECASE)
INTRO_CHARS = 400  # of prose above a group's sub-headings: an introduction, not a description


def _path(section: SectionLike) -> tuple[str, ...]:
    return _spaced(tuple(section.heading_path))


@functools.lru_cache(maxsize=8192)
def _spaced(path: tuple[str, ...]) -> tuple[str, ...]:
    """A heading path with its spacing folded; kept, as each section's path is asked for every
    section under an alternatives heading (2,000 alternatives had taken 4.6 s, qa151)."""
    return tuple(" ".join(h.split()) for h in path)


def _opened_root(path: tuple[str, ...], opened: dict) -> int | None:
    """The index in ``path`` of the deepest heading above the section that holds alternatives
    (an alternatives heading, or a group opened), if any."""
    for n in range(len(path) - 2, -1, -1):
        if path[:n + 1] in opened or _holds_alternatives_only(path[n]) or _considered_heading(path[n]):
            return n
    return None


def _argues(heading: str) -> bool:
    """A "Pros" / "Cons" / "Drawbacks" sub-heading: a part of an alternative, not one."""
    return bool(_ARGUMENT_LABEL.match(heading.strip()) or _WHY_LABEL.match(heading))


def _is_group(section: SectionLike, sections: Sequence[SectionLike]) -> bool:
    """Whether the section only introduces the alternatives under it: above them no list and
    no more than a short intro, and they hold no parts of their own (:func:`_holds_alternatives`)."""
    lines = [line for line in body_lines(section) if line.strip()]
    prose = " ".join(map(_prose, lines))
    return not any(map(is_list_item, lines)) and len(prose) <= INTRO_CHARS \
        and _holds_alternatives(_path(section), sections)


def _holds_alternatives(path: tuple[str, ...], sections: Sequence[SectionLike]) -> bool:
    """Sub-headings under ``path`` that read as alternatives, one level deep: two or more,
    none of them "Pros" / "Cons" / "Drawbacks", none with sub-headings of its own (a design
    written out in "Goals", "API", "Test plan" parts is one alternative, not several)."""
    below = {_path(s)[len(path):] for s in sections if len(_path(s)) > len(path) and _path(s)[:len(path)] == path}
    names = {rest[0] for rest in below}
    return len(names) >= 2 and all(len(rest) == 1 for rest in below) and not any(map(_argues, names))


def _only_a_list(section: SectionLike) -> bool:
    """A body that is a list of two or more items and nothing else ("Pros:" items argue)."""
    lines = body_lines(section)
    items = read_list(lines)
    blank_before = True
    for line in lines:
        if line.strip() and blank_before and not is_list_item(line) and not line[:1].isspace():
            return False  # a paragraph
        blank_before = not line.strip()
    return len(items) >= 2 and not any(_ARGUMENT_LABEL.match(item.text) for item in items)


def _headed_lines(head: tuple[str, ...], group: Sequence[SectionLike]) -> list[str]:
    """The lines of an alternative and its parts, each part led by the headings above it
    (``#### Cons``, ``##### Drawbacks:`` label what follows as a line label would; an empty
    ``#### Drawbacks`` is only in the heading path of the ``##### ...`` part it holds)."""
    lines: list[str] = []
    shown = {head}
    for part in group:
        path = _path(part)
        for d in range(len(head), len(path)):
            if path[:d + 1] not in shown:
                shown.add(path[:d + 1])
                lines.append(f"{'#' * min(d + 1, 6)} {path[d]}")
        lines += body_lines(part)
    return lines


REASON_CHARS = 600  # of a labelled reason: a Cons list whole, an essay under `Why not?` its opening


def _described(text: str, lines: Sequence[str], line: int, heading: str | None, slugs: set[str],
               agent: str | None, when: float | None) -> DeadEnd:
    """One alternative named ``text`` and described by ``lines``: its reason is what a "Cons:"
    label says, else the sentences saying it was rejected, else those naming its disadvantage,
    else the description's first sentences before any "Pros:" (a Pro is never why it was
    rejected, nor is a sentence naming its advantage: KEP-3077's "Per-component logger" had
    been rejected for "It has the advantage that ...", its next paragraph's "The disadvantage
    is ..." left out, qa191)."""
    described = _prose_of(line for line in lines if not _HEADING.match(line))
    # "* Advantages:" as a list item argues too, and "Advantages: ..." with its text on the line:
    # its pros had been given as the reason (KEP-3203, qa123, qa124)
    argued = next((n for n, line in enumerate(lines) if _argues_from(_prose(_HEADING.sub("", line)))), len(lines))
    lead = _prose_of(line for line in lines[:argued] if not _HEADING.match(line))
    # a labelled `Cons:` list, up to the next label, as long as it holds short items (its 4th had
    # been cut, qa163); else the first sentences; never ending on the ";" of a cut list item
    labelled = split_sentences(_labelled_reason(lines))
    kept = [part for n, part in enumerate(labelled) if n == 0 or sum(map(len, labelled[:n + 1])) <= REASON_CHARS]
    said = _said_rejected(described) or _said_against(described) or _without_pros(lead)
    reason = links_as_text(" ".join(kept or split_sentences(said)[:3])).rstrip(" ;,")
    return DeadEnd(text, reason or None, SOURCE, line, heading, slugify(text, slugs), agent, when,
                   f"{text}. {described}"[:DETAIL_CHARS])


# A sentence saying the alternative was rejected, and why: "Rejected as PSP was recently
# deprecated ...", after paragraphs describing it (KEP-3141's reasons were its description, qa123)
_REJECTED_SAYING = re.compile(r"^(?:(?:this|it|that)(?: \w+)? (?:was|is) )?(?:rejected|discarded|not chosen)"
                              r"(?:[:,.]|\s+(?:as|because|due|since|for|in|during|by|after|when|once)\b)",
                              re.IGNORECASE)  # not "Rejected requests are retried ..."


def _said_rejected(described: str) -> str:
    """The description from its first sentence that says the alternative was rejected, up to
    what argues for it ("Advantages: ..."), or ""."""
    return _sentences_from(described, _REJECTED_SAYING, _PROS_SAID)


def _sentences_from(described: str, first: re.Pattern[str], until: re.Pattern[str]) -> str:
    """The description's sentences from the first that ``first`` matches, up to the next that
    ``until`` matches; "" when none matches ``first``."""
    sentences = split_sentences(described)
    start = next((n for n, s in enumerate(sentences) if first.match(s)), None)
    if start is None:
        return ""
    end = next((n for n in range(start + 1, len(sentences)) if until.match(sentences[n])), len(sentences))
    return " ".join(sentences[start:end])


# A sentence naming the alternative's own disadvantage ("The disadvantage is that ...", "The
# main drawback is ..."; not "One downside is ...", which KEP-4214 says of the design it
# prefers, after its reason, qa199), or an advantage ("It has the advantage that ...")
_AGAINST_SAID = re.compile(r"^(?:the|its)\s+(?:\w+\s+)?(?:disadvantages?|drawbacks?|downsides?)\b", re.IGNORECASE)
_FOR_SAID = re.compile(r"^(?:(?:it|this(?:\s+\w+)?)\s+has\s+(?:the\s+|an?\s+)?(?:\w+\s+)?"
                       r"(?:advantages?|benefits?|upsides?)|(?:the|an?|one|its|another)\s+(?:\w+\s+)?"
                       r"(?:advantages?|benefits?|upsides?))\b", re.IGNORECASE)


def _said_against(described: str) -> str:
    """The description from its first sentence naming the alternative's disadvantage, up to
    one naming an advantage, or ""."""
    return _sentences_from(described, _AGAINST_SAID, _FOR_SAID)


def _without_pros(described: str) -> str:
    """The description without the sentences naming the alternative's advantage."""
    return " ".join(s for s in split_sentences(described) if not _FOR_SAID.match(s))


# "Advantages: fewer requests ...", a pro with its text on the label's line
_PROS_SAID = re.compile(r"^[*_]{0,2}(?:pros?|advantages?|benefits?|upsides?)[*_]{0,2}\s*:", re.IGNORECASE)


def _argues_from(line: str) -> bool:
    """Whether the arguments start at this line of an alternative's description: a label
    alone ("Pros:", "Cons:"), or a pro with its text after it."""
    return bool(_ARGUMENT_LABEL.match(line) or _PROS_SAID.match(line))


def _prose_of(lines: Iterable[str]) -> str:
    """Lines as prose; each list item ends as a sentence does ("1. brittle 2. slow" is two
    reasons, not one run-on, and is never cut at its "2.")."""
    out: list[str] = []
    for line in lines:
        text = _prose(line)
        if not text:
            continue
        if out and is_list_item(line) and not out[-1].endswith((".", "!", "?", ";", ":")):
            out[-1] += ";"
        out.append(text)
    return " ".join(out)


_NUMBERED = re.compile(r"^(?:\d{1,3}[.)]|[A-Z][.)])\s+")  # "1. LIFO release", "B) Polling"
_LABEL = re.compile(r"^\s*+(?:[-*+]|\d{1,9}[.)])?\s*+(?:description|summary|idea)\s*:\s*", re.IGNORECASE)
_HEADING = re.compile(r"^#{1,6}\s+")


# "Cons:", "**Why Rejected**:", "Drawbacks:", "**Why not?**:", "*Cons*" alone on its line, a
# "#### Cons" heading: what follows it (up to the next label at its level, "Pros:", or the
# next heading) is why it was not chosen.
_WHY_LABEL = re.compile(r"^(?P<indent>\s*+)(?:#{1,6}\s++)?(?:[-*+]|\d{1,9}[.)])?\s*+[*_]*+\s*+(?:cons|drawbacks?|"
                        r"disadvantages?|problems?|"
                        r"downsides?|why (?:it was )?(?:rejected|not chosen)|why not\??|rejected because|"
                        r"reasons? for (?:(?:deferring|deferral)\s*/\s*)?reject(?:ion|ing))"
                        r"\s*+[*_]*+\s*+(?::\s*[*_]*|$)",
                        re.IGNORECASE)  # "**Reasons for deferring / rejecting**": 12 of the KEPs (qa191)
_ANY_LABEL = re.compile(r"^(?P<indent>\s*+)(?:[-*+]|\d{1,9}[.)])?\s*+\**+\s*+[A-Za-z][\w ]{0,30}\**\s*:")
# (`*+`: a run of spaces is one run: three adjacent `\s*` had tried every split of a line of
# 1,000 spaces, 14 s for one line, qa151)


def _labelled_reason(lines: Sequence[str]) -> str:
    """The text under an alternative's "Cons:" / "Why rejected:" label, as prose ("" if none)."""
    for n, line in enumerate(lines):
        m = _WHY_LABEL.match(line)
        if not m:
            continue
        taken = [line[m.end():]]
        level = _level(line) or 7  # a "#### Drawbacks" heading holds its "##### ..." parts
        for after in lines[n + 1:]:
            # a hard-wrapped sentence's next line ("...with the error\nto potentially ignore
            # errors:") goes on with it, no label (the reason had stopped mid-sentence, qa166)
            wrapped = after[:1].islower() and taken[-1].strip() and taken[-1].rstrip()[-1] not in ".:!?" \
                and not is_list_item(taken[-1]) and not _ARGUMENT_LABEL.match(_prose(after))  # `pros:` ends it
            other = None if wrapped else _ANY_LABEL.match(after)
            # An item written "- Complexity: needs ..." under a "Cons:" line of its own is one
            # con, not the next label (a KEP's reason fell back to its description, qa47)
            con = is_list_item(after) and not is_list_item(line) and not _WHY_LABEL.match(after) \
                and not _ARGUMENT_LABEL.match(_prose(after))
            if (other and len(other.group("indent")) <= len(m.group("indent")) and not con) \
                    or 0 < _level(after) <= level or _ARGUMENT_LABEL.match(_HEADING.sub("", after).strip()):
                break
            taken.append(f"{_HEADING.sub('', after).rstrip(':')}:" if _level(after) else after)
        return _prose_of(taken)
    return ""


def _level(line: str) -> int:
    """A heading line's level (``#### Cons``: 4), else 0."""
    m = _HEADING.match(line)
    return len(line) - len(line.lstrip("#")) if m else 0


def _prose(line: str) -> str:
    """A line of an alternative's description as prose: list marker, emphasis and a
    "Description:" label dropped."""
    return " ".join(_LABEL.sub("", _unmarked(_LIST_NUMBER.sub("", line))).lstrip("-*+> ").split())


_LIST_NUMBER = re.compile(r"^\s*\d{1,9}[.)]\s+")


# A line naming an alternative as a heading would ("**Option 2:** Top-level bags",
# "Alternative Considered: No typechecking", "Approach B: polling"); not a list item.
_ALTERNATIVE_LABEL = re.compile(
    r"^(?:\*\*|__)?(?:(?:rejected\s+)?alternative(?:\s+considered)?|option|approach)"
    r"(?:\s+(?:[A-Z]|#?\d{1,2}))?(?:\*\*|__)?\s*:\s*(?:\*\*|__)?\s*(?P<name>.*)$", re.IGNORECASE)
# "Pros:", "**Cons**", "Advantages:": the list under it argues, it names no alternative.
_ARGUMENT_LABEL = re.compile(r"^[*_]{0,2}(?:pros?|cons?|advantages?|disadvantages?|benefits?|drawbacks?|"
                             r"downsides?|upsides?)[*_]{0,2}\s*:?\s*[*_]{0,2}\s*:?$", re.IGNORECASE)


def _listed_alternatives(section, slugs, agent, when) -> list[DeadEnd]:
    """An alternatives section without subsections: alternatives named by label lines, as
    headings would name them (when two or more are), else each top-level list item that is
    not an argument under a "Pros:" or "Cons:" label."""
    lines = body_lines(section)
    labelled = _labelled_alternatives(section, lines, slugs, agent, when)
    if labelled:
        return labelled
    arguments = _argument_offsets(lines)
    out = []
    for item in read_list(lines):
        if item.offset in arguments or struck_out(item):
            continue
        text, reason = item_reason(item)
        first, *rest = split_sentences(_unmarked(text)) or [text]
        # "Self-hosted Harbor: scanning is good, but one more service"; not where a dash gives the
        # reason: "RestartPolicy: Rapid -- ..." names the option whole (qa179)
        named = _NAME_THEN_WHY.match(first) if split_reason(item.text)[1] is None else None  # nested lines too (qa189)
        if named and len(named.group("name").split()) <= NAME_WORDS:
            first, rest = named.group("name").strip(), [named.group("why").strip(), *rest]
        if not first:
            continue
        reason = links_as_text(" ".join([*rest, reason or ""]).strip()) or None
        out.append(DeadEnd(first, reason, SOURCE, section.line_start + item.offset, section.heading,
                           slugify(first, slugs), agent, when, text[:DETAIL_CHARS]))
    return out


# An alternative listed as its name, a colon, then what speaks against it (a name of at most
# six words, not a label such as "Pros:", which _argument_offsets leaves out).
_NAME_THEN_WHY = re.compile(r"^(?P<name>[^\s:.;!?](?:[^\s:.;!?]|\s(?!\s*:)){0,59}?)\s*:\s+(?P<why>\S.*)$")
NAME_WORDS = 6


def _labelled_alternatives(section, lines: list[str], slugs, agent, when) -> list[DeadEnd]:
    """Alternatives opened by label lines, each described by the lines up to the next one; a
    label with nothing after its colon is named by the first sentence that follows it."""
    starts = [(n, m) for n, line in enumerate(lines) if (m := _ALTERNATIVE_LABEL.match(line))]
    if len(starts) < 2:
        return []
    out = []
    for (n, label), (end, _) in zip(starts, [*starts[1:], (len(lines), None)]):
        described = [line for line in lines[n + 1:end] if line.strip()]
        name = _prose(label.group("name"))
        first, *more = split_sentences(name) or [name]
        if more:  # "**Option 2:** Lock it to one device. Cons: a technician" (wrapped): named by its first sentence
            name, described = first, [" ".join(more), *described]
        if not name and described:  # "**Option 7:**" alone: its paragraph's first sentence names it
            after = itertools.dropwhile(lambda line: not line.strip(), lines[n + 1:end])
            paragraph = list(itertools.takewhile(str.strip, after))
            name, *rest = split_sentences(" ".join(map(_prose, paragraph))) or [""]
            described = [" ".join(rest), *described[len(paragraph):]]
        if name:
            out.append(_described(name, described, section.line_start + n, section.heading, slugs, agent, when))
    return out


def _argument_offsets(lines: Sequence[str]) -> set[int]:
    """Offsets of the list items under a "Pros:" / "Cons:" label, up to the next paragraph."""
    found: set[int] = set()
    arguing = False
    for n, line in enumerate(lines):
        if _ARGUMENT_LABEL.match(line.strip()):
            arguing = True
        elif arguing and line.strip() and not line[:1].isspace() and not is_list_item(line):
            arguing = False  # a paragraph: the arguments are over
        elif arguing and line.strip():
            found.add(n)
    return found


def accepted_designs(sections: Sequence[SectionLike], headings=ACCEPTED_IN_RECORDS,
                     chosen: tuple[str, str] | None = None) -> tuple[Accepted, ...]:
    """What a note records as chosen: the first group of ``headings`` present (the MADR
    chosen option first of all), sentence by sentence; at most a few paragraphs' worth."""
    found: list[Accepted] = []
    if chosen:
        found.append(Accepted(unescaped(f"{chosen[0]}, {chosen[1]}".strip(" ,")), 0, None))
        # ...and described as each rejected option is (its name and its pros and cons), so a
        # check compares a proposal with both sides of the decision by the same measure; under
        # its own heading, as argued, not stated: "Chosen instead" had shown its Good and Bad lines (qa123)
        parts = _option_parts(sections)
        titles = list(parts)
        bare = [_CHOSEN_MARK.sub("", title) for title in titles]
        for n in sorted(set().union(*(chosen_among(bare, name) for name in chosen_names(sections, chosen)))):
            found.append(Accepted(" ".join([titles[n], *parts[titles[n]].lines])[:DETAIL_CHARS], 0, titles[n]))
    for names in headings:
        for section in sections:
            if _name(section) in names:
                found += _statements(section, said_apart=chosen is not None)
        if found:
            break
    return tuple(found[:MAX_ACCEPTED])


MAX_ACCEPTED = 24  # statements per note: a KEP's Proposal runs for pages


def _statements(section: SectionLike, said_apart: bool) -> Iterable[Accepted]:
    """The section's sentences of three words or more; without the ``Chosen option`` line when
    that was read apart (``said_apart``). A checkpoint's Goal that only mentions one ("Leave
    line headings such as "Chosen option:" unformatted") had been left out, and its Summary's
    question shown as what was chosen (qa125)."""
    lines = body_lines(section)
    weighing = False
    for offset, paragraph in _paragraphs(lines):
        listed = is_list_item(lines[offset])
        if weighing and listed:
            continue  # "We discussed three options: 1. ... 2. ...": what was weighed, not chosen (qa169)
        # an intro that states the choice lists what was chosen: "we settled on these two:" (qa189)
        weighing = bool(_WEIGHS.search(paragraph)) and not _STATES_CHOICE.search(paragraph)
        if weighing:
            continue
        for sentence in split_sentences(paragraph):
            # "Option 2 was discounted as ...": what was turned down is no statement of the choice,
            # unless the sentence states one too ("We ruled out Redis and will keep ...", qa189)
            if len(sentence.split()) >= 3 and not (said_apart and _chosen_line(sentence)) \
                    and not (_SAYS_TURNED_DOWN.search(sentence) and not _STATES_CHOICE.search(sentence)):
                yield Accepted(sentence, section.line_start + offset, section.heading)


_ITEM_MARKER = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s+")  # its end: where the item's text starts
# a line that introduces the options weighed: "We discussed three options:", "Alternatives considered:"
_WEIGHS = re.compile(r"\b(?:options|alternatives|approaches)\b[^.:]*:\s*$", re.IGNORECASE)
_STATES_CHOICE = re.compile(r"\b(?:will|shall|cho(?:se|ose|sen)|settled|instead|in\s+favou?r\s+of|opted|went\s+with|"
                            r"go(?:ing)?\s+with|picked|adopt(?:ed)?)\b", re.IGNORECASE)


def _paragraphs(lines: list[str]) -> Iterable[tuple[int, str]]:
    """(offset of its first line, text) of each block of non-blank lines; a list item starts
    its own paragraph."""
    start, block = 0, list[str]()
    for offset, line in enumerate(lines + [""]):
        item = _ITEM_MARKER.match(line)
        if (not line.strip() or item) and block:
            yield start, " ".join(block)
            block = []
        if line.strip():
            if not block:
                start = offset
            block.append(line[item.end():].strip() if item else line.strip())
