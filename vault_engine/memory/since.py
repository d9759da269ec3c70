"""Dead ends chosen since: a later note of a ruling's project chose what the ruling ruled out.

A Failed item retried and kept stays a ruling in its checkpoint: ``deadend check`` handed it
back and ``resume`` listed it right below the Decision that contradicts it, with nothing saying
so (qa74). A choice is what a note states outright (a Goal, a Decision, a record's chosen
option; not a Summary, whose sentences are often the problem), made later than the ruling by
another note of the same project, or by a team-wide record (of no project). It chose the ruling when
it restates it as the words arm reads a restatement: ``lexical_min`` of the ruling's content
words by weight, saying enough, and what the choice turns down left out ("Keep X rather than Y"
chooses none of Y). The ruling stays a ruling, said to be chosen since: the agent reads both.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from vault_engine.memory.matching import (
    DEFAULT_SETTINGS,
    DeadendSettings,
    TermWeights,
    design_terms,
    ruling_core,
    words_evidence,
)
from vault_engine.memory.plans import stated_time
from vault_engine.memory.results import LaterChoice, Ruling
from vault_engine.parsing.checkpoints import note_agent
from vault_engine.parsing.note import RECORD_KINDS, record_authors
from vault_engine.parsing.readable import links_as_text
from vault_engine.refs import make_ref
from vault_engine.stores.ledger import Ledger, NoteRow

# The headings under which a note states its choice outright (None: a record's Chosen option)
STATED_CHOICES = frozenset({"goal", "goals", "decision", "decision outcome"})


def stated_outright(heading: str | None) -> bool:
    """Whether a statement of what a note chose was written as its choice, not as its context."""
    return heading is None or " ".join(heading.split()).casefold() in STATED_CHOICES


@dataclass(frozen=True, slots=True)
class _Choice:
    note_id: int
    terms: frozenset[str]
    said: LaterChoice


def with_chosen_since(ledger: Ledger, rulings: Sequence[Ruling],
                      settings: DeadendSettings = DEFAULT_SETTINGS) -> tuple[Ruling, ...]:
    """These rulings, each dated one with the latest later choice of its project that restates
    it (None where none does)."""
    dated = [r for r in rulings if r.when is not None]
    if not dated:
        return tuple(rulings)
    # a team-wide record's choice (of no project) holds for every project, as it keeps a word-for-word
    # restatement quiet (qa85)
    team_wide = _choices(ledger, None)
    choices = {project: _choices(ledger, project) + team_wide if project else team_wide
               for project in {r.project for r in dated}}
    words = set().union(*(r.terms for r in dated))
    weights = TermWeights(*ledger.dead_end_word_counts(words), ledger.dead_end_term_counts)
    found = [None if r.when is None else _latest_restating(r, choices[r.project], weights, settings) for r in rulings]
    # most rulings were chosen since by nothing: a copy of each had cost `deadend list` 0.2 s at 5,510 of them
    return tuple(r if later is None else replace(r, chosen_since=later) for r, later in zip(rulings, found))


def _choices(ledger: Ledger, project: str | None) -> list[_Choice]:
    found = []
    for note, text, heading in _statements(ledger, project):
        if stated_outright(heading):
            said = links_as_text(text, wikilinks=True)
            # who chose: a record names its authors, as its rulings do ("a later note" had been said, qa133)
            agent = record_authors(note.meta) if note.kind in RECORD_KINDS else note_agent(note.path, note.meta)
            ref = make_ref(note.path, heading, note.notion_id)
            found.append(_Choice(note.id, design_terms(said), LaterChoice(said, _chosen_at(note), agent, ref)))
    return found


def dated_choices(ledger: Ledger, project: str | None) -> list[tuple[str, float | None]]:
    """What the notes of one project (None: of no project) record as chosen, each statement
    with when its note chose it (:func:`_chosen_at`)."""
    return [(text, _chosen_at(note)) for note, text, _ in _statements(ledger, project)]


def _statements(ledger: Ledger, project: str | None) -> list[tuple[NoteRow, str, str | None]]:
    """Each statement of what a note of the project chose, with its note and its heading."""
    rows = ledger.choices_of(project)
    notes = ledger.notes_by_ids({note_id for note_id, _, _ in rows})
    return [(notes[note_id], text, heading) for note_id, text, heading in rows if note_id in notes]


def _chosen_at(note: NoteRow) -> float | None:
    """When a note made its choice, as its rulings are dated (stores.ledger.ruled_out_at): its
    ``created``, else its own date, else the time in its name (:func:`plans.stated_time`); else
    a checkpoint's or working note's file time, and no time for a record or a spec (its file
    time is when it was copied, not when anyone decided). A record had been dated by its
    ``updated`` for its choice and by its ``created`` for its rulings, a spec by the day it was
    copied, each then "chosen since" its own project's failures (qa132)."""
    stated = stated_time(note)
    return stated if stated is not None or note.kind in RECORD_KINDS else note.mtime_ns / 1e9


def chosen_after(at: float | None, ruling_when: float | None) -> bool:
    """Whether a choice made ``at`` was made at or after a ruling of ``ruling_when``: always
    after a ruling that states no time, never, stating none itself, after one that does (a
    check had read an undated record's choice as after a dated failure, `deadend list` as not,
    qa132)."""
    return ruling_when is None or (at is not None and at >= ruling_when)


def restates(design: frozenset[str], ruling_terms: frozenset[str], ruling_text: str, weights: TermWeights,
             settings: DeadendSettings) -> bool:
    """Whether a chosen design (its :func:`~matching.design_terms`) chose what a ruling ruled
    out: it restates the ruling as the words arm reads a restatement. The one reading for
    "chosen since" and for a check's chosen design that may not keep its own ruling quiet."""
    return bool(design & ruling_terms) and settings.words_met(
        *words_evidence(design, (ruling_terms, ruling_core(ruling_text)), weights))


def _latest_restating(ruling: Ruling, choices: Sequence[_Choice], weights: TermWeights,
                      settings: DeadendSettings) -> LaterChoice | None:
    later = [choice.said for choice in choices
             if choice.note_id != ruling.note_id and chosen_after(choice.said.when, ruling.when)
             and restates(choice.terms, ruling.terms, ruling.text, weights, settings)]
    return max(later, key=lambda said: said.when or 0.0, default=None)
