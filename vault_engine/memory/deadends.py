"""Dead ends: list them, and check a proposal against them ("has this been tried before?").

The proposal is the query and every dead end recorded in the vault is the corpus: checkpoint
``## Failed`` items, working-note markers and the options decision records rejected,
extracted at index time into the ledger with what each note records as chosen. With a
project given, rulings of other projects still count but are flagged ``elsewhere``: what
failed on other hardware may not fail here. Scoring is in :mod:`vault_engine.memory.matching`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from vault_engine.errors import ModelUnavailable
from vault_engine.memory.matching import (
    DEFAULT_SETTINGS,
    DeadendSettings,
    Evidence,
    TermWeights,
    content_terms,
    filler_terms,
    lexical_match,
    match_score,
    semantic_match,
    words_evidence,
)
from vault_engine.memory.render import render_interruption
from vault_engine.refs import make_ref
from vault_engine.stores.ledger import Ledger


class RulingArm(Protocol):
    """What a check needs from the embedding side (:class:`RulingEmbeddings` for real)."""

    def cosines(self, proposal: str, texts: Sequence[str]) -> list[float]:
        """Cosine of the proposal with each text."""


@dataclass(frozen=True, slots=True)
class Ruling:
    """One recorded dead end, with how it matched a proposal when it was checked."""

    text: str
    reason: str | None
    project: str | None
    agent: str | None
    when: float | None  # Unix seconds: the note's created date, else its file time
    slug: str
    source: str  # "checkpoint" | "working note" | "decision record"
    ref: str
    path: str
    line: int
    note_id: int = 0
    detail: str | None = None  # its description as written, when a record gives one
    terms: frozenset[str] = frozenset()  # content words of the text
    lead_terms: frozenset[str] = frozenset()  # ...of its description's first sentence
    score: float | None = None
    elsewhere: bool = False
    arms: tuple[str, ...] = ()  # the arms that raised it
    evidence: Evidence | None = None
    chosen: str | None = None  # what its note records as chosen instead, when it says

    def to_json(self) -> dict[str, Any]:
        """The ruling as the JSON contract (README) has it (plus how it matched, if checked)."""
        data: dict[str, Any] = {
            "text": self.text, "reason": self.reason, "project": self.project,
            "agent": self.agent, "when": None if self.when is None else int(self.when),
            "slug": self.slug, "source": self.source, "score": self.score,
            "elsewhere": self.elsewhere, "ref": self.ref, "path": self.path, "line": self.line,
            "chosen": self.chosen,
        }
        if self.evidence is not None:
            e = self.evidence
            data["arms"] = list(self.arms)
            data["scores"] = {"lexical": round(e.words, 4), "semantic": _rounded(e.cosine),
                              "semantic_chosen": _rounded(e.cosine_accepted)}
        return data


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


@dataclass(frozen=True, slots=True)
class DeadendCheck:
    """The answer to ``deadend check``: the rulings it raised and the interruption to show."""

    proposal: str
    project: str | None
    arms: tuple[str, ...]
    rulings: tuple[Ruling, ...]
    rendered: str
    notices: tuple[str, ...] = ()

    @property
    def status(self) -> str:
        """``hit`` when a ruling was raised, else ``miss``."""
        return "hit" if self.rulings else "miss"

    def to_json(self) -> dict[str, Any]:
        """What ``deadend check --json`` prints."""
        return {"proposal": self.proposal, "project": self.project, "status": self.status,
                "arms": list(self.arms), "rulings": [r.to_json() for r in self.rulings],
                "rendered": self.rendered, "notices": list(self.notices)}


def load_rulings(ledger: Ledger, project: str | None = None, note_id: int | None = None) -> list[Ruling]:
    """Every recorded dead end (of one project or one note), in vault order."""
    drop = filler_terms()
    return [Ruling(r.text, r.reason, r.project, r.agent, r.at if r.at is not None else r.mtime_ns / 1e9, r.slug,
                   r.source, make_ref(r.path, r.heading, r.notion_id), r.path, r.line, r.note_id, r.detail,
                   frozenset(r.terms) - drop, frozenset(r.lead_terms) - drop)
            for r in ledger.dead_end_rows(project, note_id)]


def list_dead_ends(ledger: Ledger, project: str | None = None) -> list[Ruling]:
    """``deadend list``: newest first, then by place in the vault."""
    rulings = load_rulings(ledger, project)
    return sorted(rulings, key=lambda r: (-(r.when or 0.0), r.path, r.line))


def check_proposal(proposal: str, rulings: Sequence[Ruling], *, accepted: Accepted | None = None,
                   project: str | None = None, k: int = 3, settings: DeadendSettings = DEFAULT_SETTINGS,
                   semantic: RulingArm | None = None, notices: Sequence[str] = ()) -> DeadendCheck:
    """Score the proposal against every ruling, raise those an arm accepts, best first."""
    notices = list(notices)
    evidence, semantic_ran = gather_evidence(proposal, rulings, semantic, notices, accepted)
    arms = ("lexical", "semantic") if semantic_ran else ("lexical",)
    raised = []
    for ruling, e in zip(rulings, evidence):
        score = match_score(e, settings)
        if score is None:
            continue
        fired = tuple(a for a, ok in (("lexical", lexical_match(e, settings)),
                                     ("semantic", semantic_match(e, settings))) if ok)
        elsewhere = project is not None and ruling.project != project
        raised.append(replace(ruling, score=score, elsewhere=elsewhere, arms=fired, evidence=e))
    raised.sort(key=lambda r: (-(r.score or 0.0), r.elsewhere, -(r.when or 0.0), r.path, r.line))
    top = _with_chosen(raised[:k], accepted)
    return DeadendCheck(proposal, project, arms, top, render_interruption(proposal, top, project, arms),
                        tuple(notices))


@dataclass(frozen=True, slots=True)
class Accepted:
    """What the vault records as chosen, as a check needs it: every statement (for the meaning
    arm's comparison) and, per note, its first one with its heading (shown as what was chosen
    instead when the note states it outright: a Goal, a Decision, a chosen option, not a
    Summary, whose first sentence is usually the problem)."""

    statements: Sequence[str]
    first_of: Callable[[Sequence[int]], Mapping[int, tuple[str, str | None]]]


STATED_CHOICES = frozenset({"goal", "goals", "decision", "decision outcome"})


def accepted_designs(ledger: Ledger) -> Accepted:
    """The vault's accepted designs, from the ledger."""
    return Accepted(ledger.accepted_texts(), ledger.first_accepted_of)


def gather_evidence(proposal: str, rulings: Sequence[Ruling], semantic: RulingArm | None, notices: list[str],
                    accepted: Accepted | None = None) -> tuple[list[Evidence], bool]:
    """Both arms' evidence for every ruling, and whether the semantic arm ran (it is
    skipped, with a notice, when the model cannot be used)."""
    terms = content_terms(proposal)
    weights = TermWeights(r.terms for r in rulings)
    words = [words_evidence(terms, (r.terms, r.lead_terms), weights) for r in rulings]
    cosines: Sequence[float | None] = [None] * len(rulings)
    best_chosen = None
    if semantic is not None and rulings:
        try:
            cosines = _ruling_cosines(proposal, rulings, semantic)
            statements = accepted.statements if accepted else ()
            best_chosen = max(semantic.cosines(proposal, statements), default=None) if statements else None
        except ModelUnavailable as exc:
            notices.append(f"{exc}: only the lexical arm ran")
            semantic = None
    return ([Evidence(share, enough, cosine, best_chosen) for (share, enough), cosine in zip(words, cosines)],
            semantic is not None and bool(rulings))


def _with_chosen(rulings: Sequence[Ruling], accepted: Accepted | None) -> tuple[Ruling, ...]:
    """The raised rulings, each with what its note records as chosen instead (when it does)."""
    if not rulings or accepted is None:
        return tuple(rulings)
    first = {note: text for note, (text, heading) in accepted.first_of([r.note_id for r in rulings]).items()
             if heading is None or " ".join(heading.split()).casefold() in STATED_CHOICES}
    return tuple(replace(r, chosen=first.get(r.note_id)) for r in rulings)


def _ruling_cosines(proposal: str, rulings: Sequence[Ruling], semantic: RulingArm) -> list[float]:
    """Each ruling's cosine with the proposal: the better of its text and its description."""
    texts = [r.text for r in rulings]
    described = [(i, r.detail) for i, r in enumerate(rulings) if r.detail]
    scores = semantic.cosines(proposal, texts + [detail for _, detail in described])
    best = scores[:len(texts)]
    for n, (i, _) in enumerate(described):
        best[i] = max(best[i], scores[len(texts) + n])
    return best
