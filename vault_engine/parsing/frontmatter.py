"""YAML frontmatter: split it off, parse it with python-frontmatter, normalize its values.

A note with broken YAML is still indexed (body only); the error and its line are returned so
``status`` can list them. Values are normalized so they survive JSON: dates become ISO 8601
strings, sets and tuples become lists.

A template's placeholder as a value (``created: {{date}}``, ``- {{tag}}``, ``project: "<%
tp.system.prompt() %>"``, as Obsidian's Templates plugin and Templater fill them) is read as a blank: no value until the
template is filled, so a template's title is not "{{title}}". YAML reads ``{{date}}`` as a
mapping whose key is a mapping, which no Python value can be, so such a block is otherwise
only ever an error: reading those values as blanks changes no frontmatter that loads.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import math
import re
import sys
from dataclasses import dataclass
from typing import Any

from vault_engine.constants import KINDS

_FENCE = re.compile(r"^---[ \t]*$")
# A template's placeholder as a value: "{{..." after "key: " or a list dash (never quoted).
_PLACEHOLDER_VALUE = re.compile(r"^([ \t]*(?:-[ \t]+)*(?:[^\s#'\"{-][^:\n]*:[ \t]+)?)(\{\{.*?)[ \t]*$", re.M)


# A value that is only a template's placeholder, quoted or not: "{{date:YYYY-MM-DD}}" (core
# Templates with a format), "<% tp.file.creation_date() %>" (Templater).
_PLACEHOLDER = re.compile(r"^\s*(?:\{\{.*\}\}|<%.*%>)\s*$", re.S)


def is_placeholder(value: str) -> bool:
    """Whether a value is a template's placeholder, not yet filled in."""
    return bool(_PLACEHOLDER.match(value))


@dataclass(frozen=True, slots=True)
class Frontmatter:
    meta: dict[str, Any]
    body: str
    body_line: int  # 1-based line of the file where the body starts
    error: str | None = None
    yaml: str = ""  # the block as written, from the file's line 2 (its wikilinks are links too)


def body_digest(body: str) -> str:
    """The fingerprint of a note's body as a writer wrote it (the Notion import records it as
    ``body_hash``), to tell a later edit made in the vault from the writer's own."""
    return hashlib.blake2b(body.strip().encode(), digest_size=8).hexdigest()


def as_imported(meta: dict[str, Any], body: str) -> bool:
    """Whether a note is a Notion page's as the import wrote it: its body is the one whose
    ``body_hash`` its frontmatter records."""
    return bool(meta.get("notion_id")) and meta.get("body_hash") == body_digest(body)


def split_frontmatter(text: str) -> Frontmatter:
    """Separate the leading ``---`` YAML block (if any) from the body."""
    lines = text.split("\n") if text.startswith("---") else []
    body_line = _body_start(lines) if lines else 1
    if body_line == 1:
        return Frontmatter({}, text, 1)
    yaml_text = "\n".join(lines[1:body_line - 2])
    meta, error = _load_yaml(yaml_text)
    return Frontmatter(meta, "\n".join(lines[body_line - 1:]), body_line, error, yaml_text)


def frontmatter_end(text: str) -> int:
    """The 1-based line where the body starts, past a leading ``---`` block closed by ``---``
    or YAML's ``...`` (1 without one: an opening fence alone is a horizontal rule). Reads no
    YAML: what ``show`` needs to place a whole note's body."""
    return _body_start(text.split("\n")) if text.startswith("---") else 1


def _body_start(lines: list[str]) -> int:
    """:func:`frontmatter_end` of a text already split into lines. Only ``---`` closes the
    block, as in Obsidian: YAML's ``...`` had taken a note opening with a rule for properties,
    and its text was lost to search (qa151)."""
    if not _FENCE.match(lines[0].rstrip("\r")):
        return 1
    for i in range(1, len(lines)):
        if _FENCE.match(lines[i].rstrip("\r")):
            return i + 2
    return 1


def _load_yaml(yaml_text: str) -> tuple[dict[str, Any], str | None]:
    import yaml
    from frontmatter.default_handlers import YAMLHandler

    loader = _frontmatter_loader()
    try:
        try:
            loaded = YAMLHandler().load(yaml_text, Loader=loader)
        except yaml.YAMLError:
            blanked = _PLACEHOLDER_VALUE.sub(r"\1null", yaml_text)
            if blanked == yaml_text:
                raise
            loaded = YAMLHandler().load(blanked, Loader=loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = _where_it_opens(exc) or mark
        line = f" at line {at.line + 2}" if at is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        fix = next((fix for said, fix in _YAML_FIXES if said in problem), "fix it")
        if _character_at(yaml_text, mark) == "\t":  # libyaml names no character: "found character that
            fix = _TAB_FIX  # cannot start any token" was a tab, and the quotes advice misled (qa83)
        return {}, f"invalid YAML frontmatter{line}: {problem}: {fix}; its properties are ignored until then"
    if loaded is None:
        return {}, None
    if not isinstance(loaded, dict):
        return {}, f"frontmatter is a {type(loaded).__name__}, not a mapping of keys to values"
    meta = {str(k): normalize_value(v) for k, v in loaded.items()}
    repeated = getattr(loaded, "repeated", ())  # Obsidian refuses such a block; the last value is read here
    return meta, "; ".join(f"{key!r} is written twice (line {line}): the last value is read; remove the other"
                           for key, line in repeated) or None


# What to do about YAML's commonest complaints, as a person writing a note reads them (a tab
# had been named without a word of what to do, qa70)
_YAML_FIXES = (("tab", "indent with spaces, not tabs"),
               ("mapping values are not allowed", 'put a value that holds ": " in quotes'),
               ("undefined alias", 'put a value that starts with "*" in quotes'),
               ("alias bomb", "write the values out"),
               ("alphabetic or numeric character", 'put a value that starts with "*" or "&" in quotes'),
               ("cannot start any token", 'put a value that starts with "@", "`" or "%" in quotes'),
               ("end of stream", "close the quotation mark the value opens"))


_TAB_FIX = _YAML_FIXES[0][1]


def _where_it_opens(exc: Any) -> Any:
    """Where the value YAML was reading when it failed opens (a quote, a flow "[" or "{"),
    None for other errors: an unclosed quote is found where the text ends, and the line named
    was the block's last, not the one to fix (qa140)."""
    context = getattr(exc, "context", None) or ""
    opened = context.startswith(("while scanning a quoted", "while scanning a simple key", "while parsing a flow"))
    return getattr(exc, "context_mark", None) if opened else None


def _character_at(text: str, mark: Any) -> str:
    """The character a YAML error's mark points at ("" when it points nowhere)."""
    lines = text.split("\n")
    if mark is None or not 0 <= mark.line < len(lines):
        return ""
    line = lines[mark.line]
    return line[mark.column] if 0 <= mark.column < len(line) else ""


class _Repeating(dict):
    """A frontmatter mapping that wrote some keys more than once: ``repeated`` (key, line)."""

    def __init__(self, loaded: dict, repeated: list[tuple[str, int]]):
        super().__init__(loaded)
        self.repeated = repeated


def _repeated_keys(node: Any) -> list[tuple[str, int]]:
    """The top-level keys written again, with the file line of the repeat (the block starts
    on the note's line 2, after ``---``)."""
    from yaml.nodes import MappingNode, ScalarNode

    if not isinstance(node, MappingNode):
        return []
    seen: set[str] = set()
    repeated = []
    for key, _ in node.value:
        if isinstance(key, ScalarNode):
            if key.value in seen:
                repeated.append((key.value, key.start_mark.line + 2))
            seen.add(key.value)
    return repeated


@functools.cache
def _frontmatter_loader() -> type:
    """python-frontmatter's YAML loader, with one change: a value YAML reads as a timestamp
    but no calendar has (``2026-02-30``, ``25:61``, an offset of ``+99:00``) stays the text
    as written, as ``created: yesterday-ish`` does, instead of failing the whole note (PyYAML
    raises ValueError from ``datetime``). ``frontmatter_slip`` lists it when it dates the note.
    And a block whose aliases repeat more than ALIAS_REPEATS values is an error, checked on
    the composed nodes before any value is built."""
    from frontmatter.default_handlers import SafeLoader
    from yaml.constructor import ConstructorError, SafeConstructor

    class FrontmatterLoader(SafeLoader):  # type: ignore[valid-type,misc]
        def construct_document(self, node: Any) -> Any:
            if _alias_repeats(node) > ALIAS_REPEATS:
                raise ConstructorError(None, None, f"its aliases repeat over {ALIAS_REPEATS:,} values "
                                       "(an alias bomb?)")
            loaded = super().construct_document(node)
            twice = _repeated_keys(node)
            return _Repeating(loaded, repeated=twice) if twice and isinstance(loaded, dict) else loaded

        def timestamp_or_text(self, node: Any) -> Any:
            try:
                return SafeConstructor.construct_yaml_timestamp(self, node)
            except ValueError:
                return self.construct_scalar(node)

    FrontmatterLoader.add_constructor("tag:yaml.org,2002:timestamp", FrontmatterLoader.timestamp_or_text)
    # YAML 1.2's words for true and false, and its integers, as Obsidian reads properties:
    # PyYAML's 1.1 read `title: No` as false, `tags: [on, yes]` as two trues, `project: 0755`
    # as 493 and `at: 10:30` as 630 (qa151). A number with a leading zero stays as written.
    FrontmatterLoader.yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in resolvers if tag not in (_BOOL, _INT)]
        for first, resolvers in SafeLoader.yaml_implicit_resolvers.items()}
    FrontmatterLoader.add_implicit_resolver(_BOOL, _YAML12_BOOL, list("tTfF"))
    FrontmatterLoader.add_implicit_resolver(_INT, _YAML12_INT, list("-+0123456789"))
    FrontmatterLoader.add_constructor(_INT, lambda loader, node: int(loader.construct_scalar(node), 0))
    return FrontmatterLoader


_BOOL, _INT = "tag:yaml.org,2002:bool", "tag:yaml.org,2002:int"
_YAML12_BOOL = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
_YAML12_INT = re.compile(r"^(?:[-+]?(?:0|[1-9][0-9]*)|0o[0-7]+|0x[0-9a-fA-F]+)$")


# How many values a frontmatter block's aliases may repeat in all (``*a`` where ``&a`` holds 9
# values repeats 9). Nine nested lists of nine aliases each (an "alias bomb", 300 bytes) expand
# to 387 million values: the loader shares them, but every reader of the values (normalizing,
# tags, property words) walks each repeat, and one note took 23 GB before it was killed.
ALIAS_REPEATS = 10_000


def _alias_repeats(root: Any) -> int:
    """How many more values than nodes the YAML node graph ``root`` expands to: what its
    aliases repeat. An alias inside its own anchor (a value that contains itself) never ends
    and counts as unbounded. Iterative: a deep block must not exhaust the stack here."""
    sizes: dict[int, int] = {}  # id(node) -> values it expands to
    on_path: set[int] = set()
    stack = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        children = [n for pair in node.value for n in (pair if isinstance(pair, tuple) else (pair,))] \
            if isinstance(node.value, list) else []
        if children_done:
            sizes[id(node)] = 1 + sum(sizes[id(child)] for child in children)
            on_path.discard(id(node))
        elif id(node) in on_path:
            return sys.maxsize
        elif id(node) not in sizes:
            on_path.add(id(node))
            stack.append((node, True))
            stack.extend((child, False) for child in children if id(child) not in sizes)
    return sizes[id(root)] - len(sizes)


def normalize_value(value: Any) -> Any:
    """Make a YAML value JSON-safe and predictable."""
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=dt.UTC)
        return value.isoformat().replace("+00:00", "Z")
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): normalize_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [normalize_value(v) for v in value]
    if isinstance(value, str) and is_placeholder(value):
        return None  # a template's placeholder, quoted or Templater's: a blank (qa29 N4: it became a project)
    if isinstance(value, float) and not math.isfinite(value):  # JSON has no infinity: SQLite refused the
        return {math.inf: ".inf", -math.inf: "-.inf"}.get(value, ".nan")  # ledger's every note (qa70)
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


MILLISECONDS_FROM = 1e11  # as seconds, the year 5138: no note's date
EARLIEST = 315_532_800.0  # 1980-01-01: a number read as an earlier time is no date a note was written
LATEST = 253_402_300_799.0  # 9999-12-31: beyond it a number is no date either (it was ignored unsaid, qa71)


def _number_time(number: float) -> float | None:
    """A date YAML read as a number: a year (``updated: 2026``), a date without dashes
    (``20261114``), Unix milliseconds (an export's) or seconds; any other number (``12``,
    ``202611``), or one read as a time before 1980, is no date. A year read as seconds dated
    the note 1970 (qa33 R3, qa34 N4). YAML's ``.inf`` and ``.nan`` are no date (``.inf`` had
    stopped every index of the vault, qa70)."""
    if not math.isfinite(number):
        return None
    if number == int(number) and 1000 <= number <= 9999:
        when = dt.datetime(int(number), 1, 1, tzinfo=dt.UTC).timestamp()
    elif number == int(number) and 10_000_000 <= number <= 99_999_999:
        try:
            when = dt.datetime.strptime(str(int(number)), "%Y%m%d").replace(tzinfo=dt.UTC).timestamp()
        except ValueError:
            return None
    else:
        when = float(number) / 1000 if number >= MILLISECONDS_FROM else float(number)
    return when if EARLIEST <= when <= LATEST else None


def parse_time(value: Any) -> float | None:
    """Unix seconds from a normalized frontmatter date (ISO string or number), else None."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return _number_time(value)
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip().replace("Z", "+00:00")
    # "2023-9-18" (a KEP's kep.yaml): pad the month and day ISO wants two digits for
    text = re.sub(r"^(\d{4})-(\d{1,2})-(\d{1,2})(?=$|[ T])",
                  lambda m: f"{m.group(1)}-{int(m.group(2)):02d}-{int(m.group(3)):02d}", text)
    try:
        parsed = dt.datetime.fromisoformat(text)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=dt.UTC)
    return parsed.timestamp()


# Properties whose words the index holds already (title, tags; the kind: _names_a_kind) or that are no words
# (Obsidian's CSS classes, a publish flag, the ids and digest `notion import` records).
_UNSEARCHED_KEYS = frozenset({"title", "tags", "tag", "cssclasses", "cssclass", "publish",
                              "notion_id", "parent_id", "notion_object", "body_hash",
                              "attachment_hashes"})
# And on a page `notion import` or `notion sync` wrote (it carries a notion_id): where it came
# from, which every page of an export shares ("source: import_test.zip" was the snippet, and the
# hit, of empty pages for a search of that name, qa50), and its address.
_IMPORT_KEYS = frozenset({"source", "url"})
_WIKILINK = re.compile(r"\[\[([^\[\]|#]*)(?:#[^\[\]|]*)?(?:\|([^\[\]]*))?\]\]")


def property_words(meta: dict[str, Any]) -> str:
    """A note's properties as the words a question names them by: text values (an alias,
    an author, a status), a link as what it names (``"[[E. M. Forster]]"`` reads "E. M.
    Forster"), a number with its name (``year: 1982`` reads "year 1982": a bare 7 says
    nothing, "rating 7" does; kepano's films were found by no search for their year or
    rating, qa52). Dates and flags say nothing a question asks by word."""
    return " ".join(word for key, values in searched_properties(meta)
                    for word in ([key, *values] if _numbers(values) else values))


def property_lines(meta: dict[str, Any]) -> str:
    """The searched properties and the tags as a hit shows them (``author: Quentin Blake;
    tags: to-read``): the text of a note that is all properties (an Obsidian Bases template)."""
    tags = frontmatter_tags(meta)
    shown = searched_properties(meta) + ([("tags", tags)] if tags else [])
    readable = [(key, [v for v in values if not _BARE_URL.match(v)]) for key, values in shown]
    return "; ".join(f"{key}: {', '.join(values)}" for key, values in readable if values)


def _numbers(values: list[str]) -> bool:
    return bool(values) and all(_NUMBER.match(v) for v in values)


_NUMBER = re.compile(r"^-?\d+(?:\.\d+)?(?:e[+-]?\d+)?$")
_BARE_URL = re.compile(r"^\s*[a-z][a-z0-9+.-]*://\S*\s*$", re.I)  # a cover image's address: nothing to read


def searched_properties(meta: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """Each searched property with its text values, links read as what they name."""
    def values(value: Any) -> list[str]:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return [f"{value:g}" if isinstance(value, float) else str(value)]
        if isinstance(value, str):
            keep = value.strip() and parse_time(value) is None
            return [_WIKILINK.sub(lambda m: " ".join(filter(None, m.groups())), value)] if keep else []
        if isinstance(value, list):
            return [v for item in value for v in values(item)]
        if isinstance(value, dict):
            return [v for item in value.values() for v in values(item)]
        return []

    unsearched = _UNSEARCHED_KEYS | _IMPORT_KEYS if meta.get("notion_id") else _UNSEARCHED_KEYS
    found = [(str(key), values(value)) for key, value in meta.items()
             if str(key).casefold() not in unsearched and not _names_a_kind(str(key), value)]
    return [(key, words) for key, words in found if words]


def _names_a_kind(key: str, value: Any) -> bool:
    """``type: checkpoint``: the note's kind, which the index holds already. Any other ``type``
    is someone else's field and searched (kepano's ``type: "[[Shrines]]"``, ``type: book``)."""
    return key.casefold() == "type" and isinstance(value, str) and value.strip().casefold() in KINDS


def frontmatter_tags(meta: dict[str, Any]) -> list[str]:
    """The values of ``tags`` and ``tag``, whatever their case: Obsidian reads ``Tags:`` as
    tags too (152 notes of data-engineering-wiki write it so)."""
    return [tag for key, value in meta.items() if key.casefold() in ("tags", "tag") for tag in as_list(value)]


def as_list(value: Any) -> list[str]:
    """A frontmatter field that may be a list or a comma/space separated string."""
    if value is None:
        return []
    if isinstance(value, list):
        return [str(v).strip() for v in value if v is not None and str(v).strip()]
    return [part for part in re.split(r"[,\s]+", str(value)) if part]
