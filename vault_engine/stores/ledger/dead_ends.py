"""Dead ends (approaches ruled out: a checkpoint's Failed items, working-note markers, the
options a decision record rejected) and what notes record as chosen instead (``accepted``)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from vault_engine.stores.ledger.connection import LedgerConnection
from vault_engine.stores.sql import rows_in

if TYPE_CHECKING:
    from vault_engine.model import ParsedNote

DEAD_END_COLUMNS = ("d.text, d.reason, d.source, d.line, d.heading, d.slug, d.agent, d.at, d.detail, d.terms,"
                    " d.lead_terms, n.id, n.path, n.project, n.mtime_ns, n.notion_id, d.record_title, d.record_status")


@dataclass(frozen=True, slots=True)
class DeadEndRow:
    """A recorded dead end with what ``deadend check`` needs of its note."""

    text: str
    reason: str | None
    source: str
    line: int
    heading: str | None
    slug: str
    agent: str | None
    at: float | None
    detail: str | None
    terms: tuple[str, ...]
    lead_terms: tuple[str, ...]
    note_id: int
    path: str
    project: str | None
    mtime_ns: int
    notion_id: str | None
    record_title: str | None = None
    record_status: str | None = None

    @property
    def when(self) -> float | None:
        """When it was ruled out (:func:`ruled_out_at`)."""
        return ruled_out_at(self.at, self.path, self.mtime_ns, self.source)


def ruled_out_at(at: float | None, path: str, mtime_ns: int, source: str) -> float | None:
    """When a dead end was ruled out: its note's own date, else the time in a checkpoint's file
    name, as ``resume`` dates the checkpoint (plans.created_time; the ruling said the day of a
    clone where the brief said the name's day, qa24 #1); else a checkpoint's or working note's
    file time (written when its session ended); a decision record without a date has none: its
    file time is when it was copied or pulled, not when anyone decided. A date later than the
    file was written is a typo (dates.believable), and no date: "ruled out on 2062-11-25"
    topped every list."""
    from vault_engine.dates import first_believable, on_its_day
    from vault_engine.parsing.checkpoints import name_time

    written, named = mtime_ns / 1e9, name_time(path)
    stated = first_believable((on_its_day(at, named), named), written)
    if stated is not None:
        return stated
    return None if source == "decision record" else written


class DeadEndWords(NamedTuple):
    """What a check compares of a recorded dead end, read in bulk without the rest of it: a
    check reads every ruling of the vault and raises a handful (those it reads in full)."""

    id: int
    project: str | None
    text: str
    detail: str | None
    terms: str  # space-separated, as stored
    lead_terms: str
    at: float | None  # its note's own date, for when it was ruled out (ruled_out_at)
    path: str
    mtime_ns: int
    source: str


def dead_end_row(r: tuple) -> DeadEndRow:
    """A row of ``DEAD_END_COLUMNS``; the two term lists are stored space-separated."""
    text, reason, source, line, heading, slug, agent, at, detail, terms, lead_terms = r[:11]
    note_id, path, project, mtime_ns, notion_id, record_title, record_status = r[11:]
    return DeadEndRow(text, reason, source, line, heading, slug, agent, at, detail, tuple(terms.split()),
                      tuple(lead_terms.split()), note_id, path, project, mtime_ns, notion_id, record_title,
                      record_status)


def _terms(text: str) -> str:
    """What ``deadend check`` compares of a text, stored once: analyzed content words."""
    from vault_engine.parsing.checkpoints import match_text
    from vault_engine.stores.lexical import analyze

    return " ".join(analyze(match_text(text)))


def insert_dead_ends(db: sqlite3.Connection, note_id: int, note: ParsedNote) -> None:
    """The dead ends of a note being written (NoteQueries.upsert_note), their terms analyzed
    once, and each of their words in the word index."""
    from vault_engine.parsing.checkpoints import lead_sentence

    sections = db.execute("SELECT heading, anchor, line_start, line_end FROM sections WHERE note_id = ?"
                          " AND anchor IS NOT NULL", (note_id,)).fetchall() if note.dead_ends else []
    for i, d in enumerate(note.dead_ends):
        terms, lead_terms = _terms(d.text), _terms(lead_sentence(d.detail, d.text, d.source) or "")
        # the heading as its ref names it: a KEP's `#Job API` under Alternatives had opened the
        # chosen design's `Design Details#Job API` above it (qa163)
        heading = next((anchor for name, anchor, start, end in sections
                        if name == d.heading and start <= d.line <= end), d.heading)
        dead_end_id = db.execute(
            "INSERT INTO dead_ends(note_id, ord, text, reason, source, line, heading, slug, agent, at, detail,"
            " terms, lead_terms, record_title, record_status, described_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (note_id, i, d.text, d.reason, d.source, d.line, heading, d.slug, d.agent, d.when, d.detail,
             terms, lead_terms, d.record_title, d.record_status, d.described_at)).lastrowid
        db.executemany("INSERT INTO ruling_words(dead_end_id, term, lead) VALUES (?,?,?)",
                       [(dead_end_id, t, 0) for t in dict.fromkeys(terms.split())]
                       + [(dead_end_id, t, 1) for t in dict.fromkeys(lead_terms.split())])


def insert_accepted(db: sqlite3.Connection, note_id: int, note: ParsedNote) -> None:
    """What a note being written records as chosen (NoteQueries.upsert_note)."""
    db.executemany(
        "INSERT INTO accepted(note_id, ord, text, line, heading, in_force) VALUES (?,?,?,?,?,?)",
        [(note_id, i, a.text, a.line, a.heading, a.in_force) for i, a in enumerate(note.accepted)],
    )


class DeadEndQueries(LedgerConnection):
    def dead_end_rows(self, project: str | None = None, note_id: int | None = None) -> list[DeadEndRow]:
        """Recorded dead ends joined with their notes, in vault order; a project's include
        those of no project (a team-wide decision record holds for every project)."""
        sql = f"SELECT {DEAD_END_COLUMNS} FROM dead_ends d JOIN notes n ON n.id=d.note_id"
        if note_id is not None:
            rows = self.db.execute(f"{sql} WHERE n.id=? ORDER BY d.ord", (note_id,))
        elif project is not None:
            rows = self.db.execute(f"{sql} WHERE n.project=? OR n.project IS NULL ORDER BY n.path, d.ord", (project,))
        else:
            rows = self.db.execute(f"{sql} ORDER BY n.path, d.ord")
        return [dead_end_row(r) for r in rows]

    def rulings_in_sections(self, section_ids: Iterable[int]) -> dict[int, list[str]]:
        """Section id -> the dead ends its note records or argues within it (search hits'
        sections): a Failed list, a record's options, one rejected option's pros and cons."""
        sql = ("SELECT s.id, d.text FROM sections s JOIN dead_ends d ON d.note_id = s.note_id"
               " AND (d.line BETWEEN s.line_start AND s.line_end OR d.described_at BETWEEN s.line_start AND s.line_end)"
               " WHERE s.id IN ({marks}) ORDER BY d.ord")
        found: dict[int, list[str]] = {}
        for section_id, text in rows_in(self.db, sql, set(section_ids)):
            found.setdefault(section_id, []).append(text)
        return found

    def has_dead_ends(self) -> bool:
        """Any dead end is recorded (cheaper than reading them)."""
        return self.db.execute("SELECT 1 FROM dead_ends LIMIT 1").fetchone() is not None

    def dead_ends_by_id(self, ids: Iterable[int]) -> dict[int, DeadEndRow]:
        """These recorded dead ends (an id no longer recorded is absent)."""
        sql = f"SELECT d.id, {DEAD_END_COLUMNS} FROM dead_ends d JOIN notes n ON n.id=d.note_id " \
              "WHERE d.id IN ({marks})"
        return {r[0]: dead_end_row(r[1:]) for r in rows_in(self.db, sql, ids)}

    # The word index of dead ends: a check reads the rulings that share a word with the
    # proposal, and how rare each word is, instead of every ruling of the vault.

    def dead_end_words(self, ids: Iterable[int] | None = None) -> list[DeadEndWords]:
        """Recorded dead ends as a check compares them (all, or those ``ids``), in no order."""
        sql = ("SELECT d.id, n.project, d.text, d.detail, d.terms, d.lead_terms, d.at, n.path, n.mtime_ns, d.source"
               " FROM dead_ends d JOIN notes n ON n.id=d.note_id")
        rows = self.db.execute(sql) if ids is None else rows_in(self.db, sql + " WHERE d.id IN ({marks})", ids)
        return list(map(DeadEndWords._make, rows))

    def dead_ends_sharing(self, terms: Iterable[str], besides: str | None = None) -> list[int]:
        """The dead ends (not of project ``besides``) that use any of these words."""
        scope, params = _besides("dead_end_id", besides)
        sql = f"SELECT DISTINCT dead_end_id FROM ruling_words WHERE 1{scope} AND term IN ({{marks}})"
        return sorted(r[0] for r in rows_in(self.db, sql, sorted(set(terms)), params))

    def dead_end_word_counts(self, terms: Iterable[str], besides: str | None = None) -> tuple[int, dict[str, int]]:
        """How many dead ends there are (not of project ``besides``), and how many of them use
        each of these words in their text."""
        scope, params = _besides("id", besides)
        n = self.db.execute(f"SELECT COUNT(*) FROM dead_ends WHERE 1{scope}", params).fetchone()[0]
        return n, self.dead_end_term_counts(terms, besides)

    def dead_end_term_counts(self, terms: Iterable[str], besides: str | None = None) -> dict[str, int]:
        """How many dead ends (not of project ``besides``) use each of these words in their
        text (0 for a word none uses: asked once, it is not asked again)."""
        scope, params = _besides("dead_end_id", besides)
        sql = f"SELECT term, COUNT(*) FROM ruling_words WHERE lead=0{scope} AND term IN ({{marks}}) GROUP BY term"
        asked = sorted(set(terms))
        return dict.fromkeys(asked, 0) | dict(rows_in(self.db, sql, asked, params))

    def accepted_texts(self) -> list[str]:
        """Every statement of what a note records as chosen, each once; none of a record no
        longer in force (superseded, withdrawn): what a superseded record chose hid the
        rejection of it by the record that superseded it (qa53)."""
        return [r[0] for r in self.db.execute("SELECT DISTINCT text FROM accepted WHERE in_force ORDER BY text")]

    def choices_of(self, project: str | None) -> list[tuple[int, str, str | None]]:
        """(note id, statement, heading) of what the notes of one project (None: of no project)
        record as chosen, in note order; none of a record no longer in force."""
        scope, params = ("n.project IS NULL", ()) if project is None else ("n.project = ?", (project,))
        return [(note_id, text, heading) for note_id, text, heading in self.db.execute(
            "SELECT a.note_id, a.text, a.heading FROM accepted a JOIN notes n ON n.id = a.note_id"
            f" WHERE {scope} AND a.in_force"
            " ORDER BY a.note_id, a.ord", params)]

    def accepted_of(self, note_ids: Iterable[int]) -> dict[int, list[tuple[str, str | None]]]:
        """The sentences of what each of these notes records as chosen, in note order, with the
        heading each was written under (None: a record's ``Chosen option`` line). Statements are
        stored cut at semicolons too (each is compared on its own); shown, a sentence is whole:
        "capped at `col_max` (30);" left out what was decided (qa24 #9)."""
        rows = rows_in(self.db, "SELECT note_id, text, heading FROM accepted WHERE note_id IN ({marks}) "
                       "ORDER BY note_id, ord", sorted(set(note_ids)))
        said: dict[int, list[tuple[str, str | None]]] = {}
        for note_id, text, heading in rows:
            sentences = said.setdefault(note_id, [])
            if sentences and sentences[-1][0].endswith(";") and sentences[-1][1] == heading:
                sentences[-1] = (f"{sentences[-1][0]} {text}", heading)
            else:
                sentences.append((text, heading))
        return said


def _besides(column: str, project: str | None) -> tuple[str, tuple]:
    """The SQL condition (and its parameter) leaving out the dead ends of one project, when
    one is given: ``column`` holds a dead end's id."""
    if project is None:
        return "", ()
    return (f" AND {column} NOT IN (SELECT d.id FROM dead_ends d JOIN notes n ON n.id=d.note_id"
            " WHERE n.project = ?)", (project,))
