"""Accepted designs: does a proposal name what the team chose instead of a dead end?

The hard case of ``deadend check`` is a proposal of the *accepted* design, which shares its
topic with the rejected one ("keep sessions in signed cookies" next to the ruled-out "keep
sessions in a shared Redis"). Teams write down what they chose: a checkpoint's Summary, a
spec, an architectural memory note. When the words a proposal has and the ruling lacks
("signed cookies") appear in such a statement about the same topic ("Decision: keep sessions
in signed cookies"), the proposal restates the accepted design, and the dead end is not raised.

Statements come from checkpoint Summary sections, specs and memory notes, never from a
section about what failed or was rejected, and never from working notes (first impressions).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from vault_engine.parsing.checkpoints import SUMMARY_HEADINGS
from vault_engine.parsing.sections import section_body
from vault_engine.stores.ledger import Ledger, NoteRow, SectionRow
from vault_engine.stores.lexical import WhooshIndex, analyze

ACCEPTED_KINDS = ("checkpoint", "spec", "memory")
SEARCH_LIMIT = 30  # sections holding the differing words, best BM25 first
_REJECTED_HEADING = re.compile(r"fail|reject|alternativ|dead.?end|ruled out|tried|not chosen|risk",
                               re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\n+")
_WRAPPED_LINE = re.compile(r"\n(?![ \t]*(?:[-*+>|#]|\d{1,9}[.)])[ \t]|[ \t]*\n)")  # not a new block


def statements(note: NoteRow, section: SectionRow) -> list[str]:
    """The sentences of a section that state accepted design ('' list when it is not one)."""
    if note.kind not in ACCEPTED_KINDS:
        return []
    headings = [" ".join(h.split()).casefold() for h in section.heading_path]
    if note.kind == "checkpoint" and not any(h in SUMMARY_HEADINGS for h in headings):
        return []
    if any(_REJECTED_HEADING.search(h) for h in headings):
        return []
    body = _WRAPPED_LINE.sub(" ", section_body(section.text, section.heading))  # hard-wrapped prose is one paragraph
    return [s.strip() for s in _SENTENCE_END.split(body) if s.strip()]


class AcceptedDesigns:
    """Finds accepted statements through the lexical index (no model needed)."""

    def __init__(self, ledger: Ledger, lexical: WhooshIndex, min_share: float):
        self.ledger = ledger
        self.lexical = lexical
        self.min_share = min_share

    def statement_naming(self, differing: Iterable[str], differing_terms: frozenset[str],
                         topic_terms: frozenset[str], ruled_out_terms: frozenset[str]) -> str | None:
        """An accepted sentence holding ``min_share`` of the proposal's differing terms and at
        least one term of the shared topic, while naming less than half of what the ruling
        differs in (a sentence naming both is about the choice, not the answer), or None."""
        if not differing_terms or not topic_terms:
            return None
        hits = self.lexical.search(" ".join(differing), SEARCH_LIMIT)
        sections = self.ledger.sections_by_ids(i for i, _ in hits)
        notes = self.ledger.notes_by_ids(s.note_id for s in sections.values())
        for section_id, _ in hits:
            section = sections.get(section_id)
            note = notes.get(section.note_id) if section else None
            if note is None:
                continue
            for sentence in statements(note, section):
                terms = set(analyze(sentence))
                share = len(differing_terms & terms) / len(differing_terms)
                mentions_ruled_out = len(ruled_out_terms & terms) >= max(1, len(ruled_out_terms)) / 2
                if share >= self.min_share and terms & topic_terms and not mentions_ruled_out:
                    return sentence
        return None
