"""Parse one Markdown file into a :class:`ParsedNote`: the single entry point of parsing."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from vault_engine.config import Config
from vault_engine.model import KINDS, Accepted, DeadEnd, ParsedNote, Section
from vault_engine.parsing.checkpoints import failed_dead_ends, name_time, note_agent, part_slips
from vault_engine.parsing.decisions import (
    ACCEPTED_IN_CHECKPOINTS,
    ACCEPTED_IN_RECORDS,
    accepted_designs,
    chosen_option,
    is_madr_record,
    record_rulings,
    unlisted_choice,
)
from vault_engine.parsing.fences import comments_blanked
from vault_engine.parsing.frontmatter import as_imported, is_placeholder, parse_time, split_frontmatter
from vault_engine.parsing.links import extract_links, extract_property_links, mask_code
from vault_engine.parsing.markers import marked_dead_ends
from vault_engine.parsing.readable import links_as_text, unescaped
from vault_engine.parsing.sections import parse_blocks, split_sections
from vault_engine.parsing.tags import collect_tags
from vault_engine.paths import glob_match, note_stem
from vault_engine.text import as_named

# Bump when parse_note reads an unchanged file differently (what a ruling or a chosen option
# is, how sections split): the next `index` re-reads every note instead of trusting the ledger.
EXTRACTION_VERSION = "48"  # 5: checkpoints dated by file name, KEPs by kep.yaml; 6: frontmatter slips; 7: Cons:;
# 8: a chosen option matched without spaces; 9: dates such as 2023-9-18, a "because" list;
# 10: alternatives named by label lines ("**Option 2:** ..."), Pros/Cons items are no alternatives;
# 11: Obsidian's properties (wikilinks in them are links, their words are searched, "Tags:" in any
#     case, a template's "{{date}}" a blank), a MADR record is a decision record wherever it is kept;
# 12: a section whose heading repeats in its note is named by its heading path (sections.anchor);
#     a Markdown link's "?query" is no part of its path; every link resolved again by the new rules
#     (relative wikilinks, names compared in Unicode NFC); every frontmatter slip of a note, not
#     only the first
# 13: decision records: a MADR chosen option named by a few of its words, by a Pros and Cons
#     heading marked "(chosen)", or as a list of bold names under the outcome; reasons from
#     "Why not?", "*Cons*", "#### Cons"/"Drawbacks", Bad lines after a sub-heading, no chosen rationale;
#     MADR 4 decision-makers, a "* Deciders:" line; option groups ("When exporting:"), KEP groups of sub-headings;
#     a record's title and status (superseded, on hold, withdrawn, ...) on its rulings
# 14: words lose leading and trailing underscores (`_emphasis_`, `__bold__` were unsearchable)
# 15: a date no calendar has (2026-02-30) is text, not a reason to skip the note; an alias bomb
#     is a YAML error; a lone CR (classic Mac) is a line break
# 16: a list or mapping where project, title, agent or a date is read is a frontmatter slip
# 17: a frontmatter key written twice is listed (the last value is read, as before)
# 18: a `type:` that names no kind (kepano's `type: "[[Shrines]]"`) is a searched property
# 19: a hard-wrapped `Chosen option: "X", because ...` line is read to the end of its sentence
# 20: a Failed or alternatives item struck out from its start (~~...~~) is reversed: no dead end
# 21: a repeated heading written with Markdown is named by the GitHub slug of its rendered text
# 22: a decision record's option with no reason of its own: 'the record chose "X" instead'
# 23: where a record argues a rejected option (its Pros and Cons part), for search hits there
# 24: a ruling's reason has Markdown links as their text and no full stop before a "; "; git
#     conflict markers left in a note are said (status)
# 25: a chosen option's "because" listed below its line runs on ("because the HTTP server ...;
#     no background thread", not "because The HTTP server ...; No background thread"); a date
#     key holding a template's placeholder ("{{date:YYYY-MM-DD}}", "<% tp.date.now() %>") is no slip;
#     a heading inside a %% comment is none (Excalidraw's "## Drawing"); a code span inside a
#     wikilink is part of its target; words lose their accents ("Jürgen" is "jurgen") and a
#     version its "v" ("v7.0.0" is "7.0.0"); the first of a repeated heading path is named
#     by its heading as written; a placeholder is a blank wherever it is a value; a Markdown
#     link's destination may hold balanced parentheses
# 26: a fence closes only with its own character (a ~~~ example inside a ``` block is code: its
#     names were "why" links, the text after the block code); a date YAML reads as a number is
#     a year, a day or milliseconds (`updated: 2026` was 1970)
# 27: a folder's page (README.md, index.md) is titled by its first top-level heading, else its
#     folder; a fence inside an HTML comment block is none (the KEP template's first comment)
# 28: a reference-style link ("[text][label]") reads as its text in titles and reasons
# 29: an alternative its heading marks chosen ("(Now Primary Solution)") is no dead end; "Cons:"
#     over "- Label: text" items is the reason
# 30: a source file's sections are named by their symbols as written (no case-folded anchors); a
#     Python source in the encoding it declares (PEP 263); a Notion page's source and url are
#     no searched properties
# 31: a contraction is its function word, a stop word ("I've", "don't"; "dont" typed without
#     its apostrophe), in the words index and in the rulings' stored words; a dotted name's parts
#     written as code names are words as well ("task.isRecurring" holds "isrecurring"); a note
#     whose name opens with a date (2026-12-03-codex.md) is dated by it when it states none; a
#     marker line under a marked item is no continuation of it; a chosen option's bare "because"
#     wrapped into a sentence keeps the sentence; a checkpoint part that is not read ("## Faild",
#     "**Failed:**") is a slip; a numeric property is searched with its name ("year 1982");
#     "#deadend: why" gives its reason; a chosen option on the line below "Chosen option:" is read
# 32: a single digit is a word ("7 days", "3 retries"), in the words index and the rulings' words;
#     a backticked call with its arguments (`Entry::credit(250)`) mentions what it calls
# 33: a decision record without a frontmatter date is dated by its `Date:` line (or its kep.yaml);
#     a setext heading over several lines is one line; a Failed item that opens with the dash
#     before a reason names no approach; a list item over `- ` is no setext heading
# 34: a MADR option struck out in its Considered Options is no ruling
# 35: a record's title reads its links as their text, its chosen option its backslash escapes as
#     their characters
# 36: the words index reads Chinese and Japanese as pairs of characters, and "ß", "æ", "ø" as
#     people type them without the key ("ss", "ae", "o"); a note named by a date is of that date
# 37: git's conflict marker lines are read as blank lines (no heading, ruling or chosen design)
# 38: a ruling that is a template's placeholder not yet filled in (`- {{rejected}}`) is none; a
#     Markdown link's text and title may wrap onto the next lines
# 39: an alternative's reason: "Disadvantages:" and "Problem:" labels, a sentence saying it was
#     rejected ("Rejected as ..."), never what "* Advantages:" lists; a MADR option argued under
#     a heading a level too high; the chosen option's pros and cons are argued, not stated
# 40: a pro written on its label's line is never a reason; an option at its level after one a
#     level too high is its own
# 41: a checkpoint's Goal or a record's Decision that mentions a "Chosen option:" line is
#     what it chose, not the line; a checkpoint item's reason is no description of what was
#     tried (no lead words); a word's accent written as a mark of its own, and a soft hyphen
#     inside it, split it no more (the index, inline tags, the headings links name)
# 42: a record's outcome in prose names its chosen option, and options may be sub-headings of
#     Considered Options; a Failed item's reason may be its sentences after the first, and bold
#     reads as plain; a wikilink in a ruling reads as its text; a working note's marker struck
#     out is no ruling; what a record no longer in force chose is marked so
# 43: a quote not indented into a list item ends it, one indented reads as its words, and a
#     callout is no part of an item's reason, indented or not: in a checkpoint's Failed list, a
#     ruling of its own too; a YAML error names the line where an unclosed quote or bracket opens
# 44: a Notion page's note as the import wrote it (its body_hash) is known as such: the import's
#     rewrite of it is no edit for decay
# 45: the comments Obsidian hides (`%% %%`, `<!-- -->`) hold no ruling, link or heading, and a
#     `%%` in a code span opens none
# 46: a project's name composed (NFC): "café" from a folder or a property macOS wrote decomposed;
#     a record's labelled Cons list whole (up to 600 characters), no reason ending on a ";"
# 47: a Decision's listed options ("We discussed three options:") and the sentences that turn one
#     down no chosen design; bold around a code span read as plain in a Failed item; of two notes
#     of one name, the link's own vault path first, then the shortest path in characters; rulings
#     dated by `created`, else `date`, before `updated`; a Failed item's title wholly in bold its
#     approach, the lines under it why; an option named whole where a dash gives its reason
# 48: a source file's own section ends at its last line, not one past it (qa196); an alternative's
#     reason its disadvantage, never its advantage, and what a "Reasons for deferring / rejecting"
#     label says (qa191); options considered in a table its rows (qa195)


def newer_extraction(key: str | None) -> str | None:
    """The EXTRACTION_VERSION of an ``extraction_key`` when it is later than this one's (notes
    read by a newer vault-engine, which an older process must not read again its way)."""
    version = (key or "").partition("|")[0]
    return version if version.isdigit() and int(version) > int(EXTRACTION_VERSION) else None


def extraction_key(config: Config) -> str:
    """What a note's ledger rows depend on besides its text: this version of the parser and
    the config it reads (:attr:`Config.reading_key`; a changed ``max_file_mb`` is applied to
    every file, those skipped under the old one too)."""
    return f"{EXTRACTION_VERSION}|{config.reading_key}"


# Frontmatter keys that date a document, in order of preference ("updated, then created").
DATE_KEYS = ("updated", "last_edited_time", "modified", "created", "date", "created_time")

_KIND_ALIASES = {
    "working-note": "working-note", "working_note": "working-note", "working note": "working-note",
    "workingnote": "working-note", "working": "working-note", "specification": "spec",
    "adr": "decision", "decision-record": "decision", "decision record": "decision", "rfc": "decision",
}


def parse_note(rel_path: str, text: str, config: Config, sidecar: str | None = None) -> ParsedNote:
    """Everything vault-engine needs from one note; never raises on bad Markdown or YAML.
    ``sidecar``: the text of a decision record's metadata file beside it (RECORD_SIDECARS)."""
    # A lone CR (classic Mac OS) is a line break too, as Obsidian reads it; the file is not changed
    fm = split_frontmatter(text.replace("\r\n", "\n").replace("\r", "\n"))
    conflict = conflict_slip(text)
    body = without_conflict_markers(fm.body) if conflict else fm.body
    blocks = parse_blocks(body)
    masked = mask_code(body, blocks.code_ranges)
    sections = split_sections(body, blocks, fm.body_line)
    # what the rulings' readers read: the sections without the comments Obsidian hides (qa151)
    shown = comments_blanked(body)
    said = sections if shown == body else split_sections(shown, blocks, fm.body_line)
    kind = note_kind(rel_path, fm.meta, config, sections)
    record = kind in RECORD_KINDS
    meta = {**sidecar_meta(sidecar), **fm.meta} if sidecar and record else fm.meta
    return ParsedNote(
        path=rel_path,
        title=note_title(rel_path, fm.meta, next((text for level, text, _ in blocks.headings if level == 1), None)),
        kind=kind,
        project=note_project(rel_path, fm.meta, config),
        meta=fm.meta,
        tags=collect_tags(fm.meta, masked),
        sections=sections,
        links=extract_property_links(fm.yaml) + extract_links(masked, fm.body_line),
        # a record's age is its decision's: Nygard's `Date:` line, as its rulings are dated (qa59);
        # a daily note's is the date it is named by (`Daily/2023-09-12.md` was new after a copy, qa83)
        doc_time=document_time(meta) or (record_time(said) if record else None) or name_time(rel_path),
        yaml_error="; ".join(filter(None, (fm.error, frontmatter_slip(fm.meta, kind), conflict,
                                           unlisted_choice(said) if record else None,
                                           *(part_slips(said) if kind == "checkpoint" else ())))) or None,
        dead_ends=note_dead_ends(rel_path, kind, meta, said),
        accepted=note_accepted(kind, said, record_status(meta, said) is None if record else True),
        as_imported=as_imported(fm.meta, fm.body),
    )


RECORD_KINDS = ("decision", "spec")  # notes whose Alternatives / Considered Options are read
# A record's metadata kept in a file beside it (a KEP's kep.yaml next to its README.md): its
# authors and creation date, when the record's own frontmatter does not give them.
RECORD_SIDECARS = ("kep.yaml",)


def sidecar_meta(text: str) -> dict:
    """``authors`` and ``created`` from a record's metadata file, as frontmatter keys."""
    meta = split_frontmatter(f"---\n{text}\n---\n").meta
    found = {"authors": meta.get("authors"), "created": meta.get("creation-date") or meta.get("created"),
             "status": meta.get("status"), "title": meta.get("title")}
    return {key: value for key, value in found.items() if value}


def note_dead_ends(rel_path: str, kind: str, meta: dict, sections) -> tuple[DeadEnd, ...]:
    """A checkpoint's ``## Failed`` items, a working note's explicit markers, or the options a
    decision record (or a spec) rejected; else none. A template's option not yet filled in
    (``- {{rejected}}``) is no dead end."""
    return tuple(d for d in _dead_ends_of(rel_path, kind, meta, sections) if not is_placeholder(d.text))


def _dead_ends_of(rel_path: str, kind: str, meta: dict, sections) -> tuple[DeadEnd, ...]:
    when = decided_time(meta) or (record_time(sections) if kind in RECORD_KINDS else None) or \
        document_time(meta) or name_time(rel_path)
    if kind == "checkpoint":
        return failed_dead_ends(sections, note_agent(rel_path, meta), when)
    if kind == "working-note":
        return marked_dead_ends(sections, note_agent(rel_path, meta), when)
    if kind in RECORD_KINDS:
        rulings = record_rulings(sections, record_authors(meta) or top_field(sections, _DECIDERS), when)
        title, status = record_title(rel_path, meta, sections), record_status(meta, sections)
        return tuple(replace(d, record_title=title, record_status=status) for d in rulings)
    return ()


def note_accepted(kind: str, sections, in_force: bool = True) -> tuple[Accepted, ...]:
    """What the note records as chosen (parsing/decisions.py), for the notes that have rulings;
    a record no longer in force chose it once (``in_force`` False), rulings of its own or none:
    its status had been read from its rulings, and one with none still counted as chosen (qa132)."""
    if kind == "checkpoint":
        return accepted_designs(sections, ACCEPTED_IN_CHECKPOINTS)
    if kind in RECORD_KINDS:
        chosen = accepted_designs(sections, ACCEPTED_IN_RECORDS, chosen_option(sections))
        return chosen if in_force else tuple(replace(a, in_force=False) for a in chosen)
    return ()


def record_authors(meta: dict) -> str | None:
    """Who decided: frontmatter ``deciders`` (MADR 2-3), ``decision-makers`` (MADR 4),
    ``authors``, ``author`` or ``owner``."""
    for key in ("deciders", "decision-makers", "authors", "author", "owner"):
        value = meta.get(key)
        if isinstance(value, list):
            value = ", ".join(str(v) for v in value if str(v).strip())
        if isinstance(value, (str, int)) and str(value).strip():
            return str(value).strip()
    return None


# MADR 2 keeps its metadata in the body, above the first section: "* Deciders: Oliver Kopp",
# "* Status: superseded by ADR-0005".
_DECIDERS = "deciders|decision-makers|authors?"  # a PEP's `Author:` header too
_DATED = "date|created"
_STATUS = "status"
# A status saying the record no longer holds (not "accepted", "proposed", "implementable").
# ("accepted; supersedes ADR-0045" is in force: it is the other record that no longer holds.)
_NOT_IN_FORCE = re.compile(r"\b(?:superseded|on[ -]hold|withdrawn|deprecated|rejected|obsolete|replaced|abandoned)\b",
                           re.IGNORECASE)


def record_time(sections: Sequence[Section]) -> float | None:
    """A record's date in its text: Nygard's `Date: 2017-06-30`, MADR 2's `* Date:`."""
    return parse_time(top_field(sections, _DATED))


def top_field(sections: Sequence[Section], names: str) -> str | None:
    """The value of a ``* Name: value`` line at the record's top (its title's section)."""
    line_re = re.compile(rf"^\s*(?:[-*+]\s+)?[*_]{{0,2}}(?:{names})[*_]{{0,2}}\s*:[*_]{{0,2}}\s*(?P<v>\S.*)$",
                         re.IGNORECASE)
    for section in sections[:2]:
        for line in section.text.splitlines():
            m = line_re.match(line)
            if m:
                return m.group("v").strip().rstrip(".") or None
    return None


def record_status(meta: dict, sections: Sequence[Section]) -> str | None:
    """A decision record's status when it says the record no longer holds ("superseded by
    ADR-0057", "on hold", "withdrawn"): frontmatter (or kep.yaml) ``status``, else a MADR 2
    ``* Status:`` line, else a Nygard ``## Status`` section; None for a record in force or
    without a status."""
    status = meta.get("status")
    status = str(status).strip() if isinstance(status, (str, int)) else \
        top_field(sections, _STATUS) or _status_section(sections)
    return " ".join(status.split()) if status and _NOT_IN_FORCE.search(status) else None


def _status_section(sections: Sequence[Section]) -> str | None:
    """The first line of a Nygard record's ``## Status`` section ("Superseded by [31. Use
    Redis](0031-use-redis.md)": adr-tools writes a supersession so), links read as their text."""
    for section in sections:
        if (section.heading or "").strip().casefold() == "status":
            lines = [line.strip() for line in section.text.splitlines()[1:] if line.strip()]
            return links_as_text(lines[0], wikilinks=True) if lines else None
    return None


def record_title(rel_path: str, meta: dict, sections: Sequence[Section]) -> str:
    """The question a record decided: a ``Title:`` line at its top (a PEP's header, whose
    first heading is "Abstract"), else its first top-level heading ("# KEP-2161: Default
    labels"), else its ``title`` (frontmatter, kep.yaml), else its file name."""
    titled = top_field(sections, "title")
    if titled:
        return titled
    for section in sections[:3]:  # an empty "# Title" is folded into the section after it
        for line in section.text.splitlines():
            m = _H1.match(line)
            if m:  # as a reader reads it: "[KEP-3077](https://...): contextual logging" (qa76)
                return " ".join(unescaped(links_as_text(m.group("title"), wikilinks=True)).split())
    return note_title(rel_path, meta)


_H1 = re.compile(r"^#\s+(?P<title>\S.*?)\s*#*\s*$")


# File names that say where a page sits, not what it is about: a folder's page in a docs
# repository (GitHub's README, MkDocs' index, Hugo's _index). Every KEP was titled "README".
_FOLDER_PAGES = frozenset({"readme", "index", "_index"})


def note_title(rel_path: str, meta: dict, heading: str | None = None) -> str:
    """Its ``title`` property, else its file name as Obsidian shows it; a folder's page
    (``README.md``) by its first top-level ``heading`` (links read as their text), else by
    its folder's name."""
    title = meta.get("title")
    if isinstance(title, (str, int, float)) and str(title).strip():
        return str(title).strip()
    stem = note_stem(rel_path)
    if stem.casefold() not in _FOLDER_PAGES:
        return stem
    if heading and links_as_text(heading).strip():
        return " ".join(links_as_text(heading).split())
    folder = rel_path.rsplit("/", 2)
    return folder[-2] if len(folder) > 1 else stem


def note_kind(rel_path: str, meta: dict, config: Config, sections: Sequence[Section] = ()) -> str:
    """Frontmatter ``type:``, else the folder rules, else ``decision`` for a MADR record kept
    anywhere (its own headings say so), else ``note``."""
    declared = meta.get("type")
    if isinstance(declared, str):
        kind = declared.strip().casefold()
        kind = _KIND_ALIASES.get(kind, kind)
        if kind in KINDS:
            return kind
    for pattern, kind in config.kind_rules:
        if glob_match(pattern, rel_path):
            return kind
    return "decision" if is_madr_record(sections) else "note"


def frontmatter_slip(meta: dict, kind: str = "note") -> str | None:
    """Every frontmatter value vault-engine would otherwise ignore without a word: a ``type``
    one typo from a kind (``chekpoint``; ``type: book`` is someone else's field, not a slip),
    and each date it cannot read, joined by "; " (fixing one must not reveal the next only
    at the next index). Shown by ``status`` beside YAML errors; the note is indexed anyway."""
    import difflib

    slips = []
    declared = meta.get("type")
    if isinstance(declared, str) and declared.strip():
        typed = declared.strip().casefold()
        if _KIND_ALIASES.get(typed, typed) not in KINDS:
            close = difflib.get_close_matches(typed, [*KINDS, *_KIND_ALIASES], n=1, cutoff=0.8)
            if close:
                meant = _KIND_ALIASES.get(close[0], close[0])
                read = "read as a note" if kind == "note" else f"read as a {kind} by where it is kept"
                slips.append(f"type {declared!r} is not a kind (did you mean {meant}?): {read}")
    for key in DATE_KEYS:
        value = meta.get(key)
        if isinstance(value, str) and value.strip() and parse_time(value) is None:
            slips.append(f"{key} {value!r} is not a date (write 2026-03-14 or 2026-03-14T10:22:00Z): ignored")
    for key in ("project", "title", "agent", *DATE_KEYS):  # each read as one value (a `type:` list is
        value = meta.get(key)                              # someone else's field, an empty one a blank)
        if isinstance(value, (list, dict)) and value:
            shape = "a list" if isinstance(value, list) else "a mapping"
            slips.append(f"{key} is {shape} where one value is read (write {key}: value): ignored")
    for key in ("project", "agent"):  # `project: 3.10` is the number 3.1 to YAML: no name (qa152)
        value = meta.get(key)
        if isinstance(value, (float, bool)):
            what = "true or false" if isinstance(value, bool) else "a number"
            slips.append(f"{key} {value!r} is {what} to YAML, not a name: write it in quotes "
                         f"({key}: '...') for it to be read")
    return "; ".join(slips) or None


CONFLICT_MARKERS = "unresolved git conflict markers"  # how a note's slip names them (status, Vault)
_CONFLICT_START = re.compile(r"^<{7}(?: |$)", re.MULTILINE)
_CONFLICT_END = re.compile(r"^>{7}(?: |$)", re.MULTILINE)


def conflict_slip(text: str) -> str | None:
    """Git's conflict markers left in a note (a merge not resolved): both sides are indexed,
    the markers as blank lines (:func:`without_conflict_markers`), and ``status`` says so: a
    merge half done is the note's author's to finish (qa25 #4)."""
    start = _CONFLICT_START.search(text)
    if start is None or not _CONFLICT_END.search(text, start.end()):
        return None
    line = text.count("\n", 0, start.start()) + 1
    return (f"{CONFLICT_MARKERS} from line {line}: both sides are indexed as written, the marker "
            "lines as blank ones; resolve the merge")


_MARKER_LINE = re.compile(r"^(?:[<>|]{7}(?: .*)?|={7})$", re.MULTILINE)


def without_conflict_markers(body: str) -> str:
    """The body of a note in a merge not resolved, its marker lines blank (the others keep
    their numbers): both sides are read as written, and no marker is part of a ruling, a
    chosen design or a section. A marker had stuck to the item before it ("Foam windscreens
    <<<<<<< HEAD") and ended reasons the hook quoted (qa90), and ``=======`` made the line
    above it a heading, so a Decision with both sides was empty in `resume` (qa92).
    ``status`` names the note."""
    return _MARKER_LINE.sub("", body)


def note_project(rel_path: str, meta: dict, config: Config) -> str | None:
    """Frontmatter ``project:``, else ``projects/<project>/``, else none."""
    declared = meta.get("project")
    if isinstance(declared, (str, int)) and not isinstance(declared, bool) and str(declared).strip():
        return as_named(str(declared).strip())
    return folder_project(rel_path, config)


def folder_project(rel_path: str, config: Config) -> str | None:
    """The project a note's folder names: ``projects/<project>/...``, read composed as names
    are (a folder macOS wrote decomposed names its project, not a renamed one, qa161)."""
    prefix = config.projects_dir + "/"
    if rel_path.startswith(prefix):
        rest = rel_path[len(prefix):]
        if "/" in rest:
            return as_named(rest.split("/", 1)[0])
    return None


def decided_time(meta: dict) -> float | None:
    """When a note says it was made: its ``created``, else its ``date``; None when it says
    neither. A record's ``updated`` is when it was last edited, and had dated every ruling and
    the choice of a record edited since (qa178), its rulings before its `Date:` line too (qa188).
    Its age stays its last edit's (:func:`document_time`): a spec updated last week is fresh."""
    for key in ("created", "date", "created_time"):
        when = parse_time(meta.get(key))
        if when is not None:
            return when
    return None


def document_time(meta: dict) -> float | None:
    """The document's own date, Unix seconds: the first of DATE_KEYS that parses."""
    for key in DATE_KEYS:
        when = parse_time(meta.get(key))
        if when is not None:
            return when
    return None
