"""Decay: relevance that fades with age unless a document keeps being used. Pure functions.

``decayed = score * max(floor, 0.5 ** (age_days / half_life_days))``; no half-life, no decay.
Age counts from the newest of the document's own date and its last reinforcement; the file's
mtime is used only when the document has no date, or one later than the file was written (a git
checkout resets mtimes, so a date written in the note wins). A time in the future counts as age 0.
A Notion page its export gives no date was written by the import, which is no date of the page:
it is as old as its tap's typical dated page (the median), and as old as its file only when the
tap has none.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from vault_engine.config import TapConfig
from vault_engine.dates import SECONDS_PER_DAY, first_believable
from vault_engine.model import DecayRow
from vault_engine.refs import make_ref
from vault_engine.stores.ledger import NoteRow
from vault_engine.stores.reinforcements import Reinforced


def age_days(now: float, doc_time: float | None, reinforced_at: float | None,
             mtime: float | None) -> float:
    """Days since the document was last written (its own date, else its file time) or
    reinforced, whichever is newer (never negative). A reinforcement never makes a note older:
    an undated note edited yesterday and reinforced 100 days ago is a day old (qa33 R1)."""
    written = doc_time if doc_time is not None else mtime
    dated = [t for t in (written, reinforced_at) if t is not None]
    if not dated:
        return 0.0
    return max(0.0, (now - max(dated)) / SECONDS_PER_DAY)


def note_age(now: float, note: NoteRow, reinforced_at: float | None, typical: float | None = None) -> float:
    """Days since a note was last written or reinforced: its own date when it can be when the
    file was written (:func:`dates.believable`: a 2062 typo was "new" forever), unless an index
    has read an edit of it since (a file time is no such edit: a checkout resets it), else its
    file time;
    for an undated Notion page, ``typical`` (its tap's :func:`typical_time`) before its file's:
    dated by the import, a workspace's undated pages were new and outranked, under the notion
    tap's decay, the pages that answered, dated 2024 (qa75)."""
    mtime = note.mtime_ns / 1e9
    stated = first_believable((note.doc_time,), mtime)
    if stated is None and undated_page(note) and typical is not None:
        stated = typical
    if stated is not None and note.edited_at is not None and note.edited_at > stated:
        stated = note.edited_at  # edited since its date, as an index read it (qa81: a spec edited
        # now kept its frontmatter's old date, and what it had just been given ranked 16th)
    return age_days(now, stated, reinforced_at, mtime)


def typical_time(times: Iterable[float]) -> float | None:
    """The median of the dated notes' times of a tap, for its undated Notion pages."""
    ordered = sorted(times)
    return ordered[len(ordered) // 2] if ordered else None


def undated_page(note: NoteRow) -> bool:
    """A Notion page with no date of its own (an export's plain page): its file's time is the import's."""
    return note.notion_id is not None and note.doc_time is None


def decay_multiplier(tap: TapConfig, age: float) -> float:
    """The tap's multiplier for a document of this age (1.0 for a tap without half-life)."""
    if tap.half_life_days is None:
        return 1.0
    return max(tap.floor, 0.5 ** (max(0.0, age) / tap.half_life_days))


def decay_rows(notes: Iterable[NoteRow], reinforced: Mapping[str, Reinforced],
               taps: Iterable[TapConfig], now: float) -> list[DecayRow]:
    """Every note of a decaying tap with its age and multiplier, most faded first."""
    decaying = {tap.name: tap for tap in taps if tap.half_life_days is not None}
    notes = [note for note in notes if note.tap in decaying]
    typical = {name: typical_time(n.doc_time for n in notes if n.tap == name and n.doc_time is not None)
               for name in decaying}
    rows = []
    for note in notes:
        tap = decaying[note.tap]
        if tap.half_life_days is None:  # (never None here: says so to the type checker)
            continue
        was = reinforced.get(note.path)
        age = note_age(now, note, was.last_at if was else None, typical[note.tap])
        rows.append(DecayRow(make_ref(note.path, None, note.notion_id), note.path, note.title,
                             tap.name, age, decay_multiplier(tap, age), tap.half_life_days,
                             tap.floor, was.last_at if was else None, was.count if was else 0))
    rows.sort(key=lambda r: (r.multiplier, r.path))
    return rows
