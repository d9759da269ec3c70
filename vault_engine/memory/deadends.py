"""Dead ends: list them, and check a proposal against them ("has this been tried before?").

The proposal is the query and every dead end recorded in the vault is the corpus: checkpoint
``## Failed`` items and working-note markers, extracted at index time into the ledger. With a
project given, rulings of other projects still count but are flagged ``elsewhere``: what
failed on other hardware may not fail here. Scoring is in :mod:`vault_engine.memory.matching`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from vault_engine.errors import ModelUnavailable
from vault_engine.memory.matching import (
    SUBSTITUTION, DeadendSettings, Evidence, TermWeights, Words, containment, content_words,
    filler_terms, leftovers, lexical_match, match_score, relation, semantic_match,
)
from vault_engine.memory.render import render_interruption
from vault_engine.refs import make_ref
from vault_engine.stores.ledger import Ledger


class SemanticArm(Protocol):
    """What a check needs from the embedding side (:class:`RulingEmbeddings` for real)."""

    def cosines(self, proposal: str, rulings: Sequence[str]) -> list[float]:
        """Cosine of the proposal with each ruling text."""

    def pair_cosines(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """Cosine of each pair of texts."""


class AcceptedLookup(Protocol):
    """Where accepted designs are found (:class:`AcceptedDesigns` for real)."""

    def statement_naming(self, differing: Sequence[str], differing_terms: frozenset[str],
                         topic_terms: frozenset[str], ruled_out_terms: frozenset[str]) -> str | None:
        """An accepted-design sentence naming the proposal's differing words, or None."""


@dataclass(frozen=True, slots=True)
class Ruling:
    """One recorded dead end, with how it matched a proposal when it was checked."""

    text: str
    reason: str | None
    project: str | None
    agent: str | None
    when: float | None  # Unix seconds: the note's created date, else its file time
    slug: str
    source: str  # "checkpoint" | "working note"
    ref: str
    path: str
    line: int
    terms: frozenset[str] = frozenset()
    score: float | None = None
    elsewhere: bool = False
    arms: tuple[str, ...] = ()  # the arms that raised it
    evidence: Evidence | None = None

    def to_json(self) -> dict[str, Any]:
        """The ruling as DESIGN.md's JSON contract has it (plus how it matched, if checked)."""
        data = {
            "text": self.text, "reason": self.reason, "project": self.project,
            "agent": self.agent, "when": None if self.when is None else int(self.when),
            "slug": self.slug, "source": self.source, "score": self.score,
            "elsewhere": self.elsewhere, "ref": self.ref, "path": self.path, "line": self.line,
        }
        if self.evidence is not None:
            e = self.evidence
            data["arms"] = list(self.arms)
            data["scores"] = {"lexical": round(e.lexical_score, 4),
                              "semantic": None if e.cosine is None else round(e.cosine, 4),
                              "residual": None if e.residual_cosine is None else round(e.residual_cosine, 4)}
        return data


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
    rulings = []
    for (text, reason, source, line, heading, slug, agent, at, terms, path, proj, mtime_ns,
         notion_id, _) in ledger.dead_end_rows(project, note_id):
        rulings.append(Ruling(
            text, reason, proj, agent, at if at is not None else mtime_ns / 1e9, slug, source,
            make_ref(path, heading, notion_id), path, line, frozenset(terms.split()) - drop))
    return rulings


def list_dead_ends(ledger: Ledger, project: str | None = None) -> list[Ruling]:
    """``deadend list``: newest first, then by place in the vault."""
    rulings = load_rulings(ledger, project)
    return sorted(rulings, key=lambda r: (-(r.when or 0.0), r.path, r.line))


def check_proposal(proposal: str, rulings: Sequence[Ruling], *, project: str | None = None,
                   k: int = 3, settings: DeadendSettings = DeadendSettings(),
                   semantic: SemanticArm | None = None, accepted: AcceptedLookup | None = None,
                   notices: Sequence[str] = ()) -> DeadendCheck:
    """Score the proposal against every ruling, raise those an arm accepts, best first."""
    notices = list(notices)
    evidence, semantic_ran = gather_evidence(proposal, rulings, settings, semantic, notices, accepted)
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
    raised.sort(key=lambda r: (-r.score, r.elsewhere, -(r.when or 0.0), r.path, r.line))
    top = tuple(raised[:k])
    return DeadendCheck(proposal, project, arms, top, render_interruption(proposal, top, project, arms),
                        tuple(notices))


def gather_evidence(proposal: str, rulings: Sequence[Ruling], settings: DeadendSettings,
                    semantic: SemanticArm | None, notices: list[str],
                    accepted: AcceptedLookup | None = None) -> tuple[list[Evidence], bool]:
    """What both arms measure for every ruling, and whether the semantic arm ran: it is
    skipped, with a notice, when the model cannot be used."""
    words = content_words(proposal)
    terms = words.terms - filler_terms()
    weights = TermWeights(r.terms for r in rulings)
    # Most rulings share no word with the proposal: (0, 0) without weighing anything.
    lexical = [containment(terms, r.terms, weights) if terms & r.terms else (0.0, 0.0) for r in rulings]
    semantic_scores: dict[int, Evidence] = {}
    if semantic is not None and rulings:
        try:
            semantic_scores = _semantic_scores(proposal, words, rulings, settings, semantic, accepted)
        except ModelUnavailable as exc:
            notices.append(f"{exc}: only the lexical arm ran")
            semantic = None
    out = []
    for i, (covers_ruling, covers_proposal) in enumerate(lexical):
        found = semantic_scores.get(i)
        out.append(replace(found, covers_ruling=covers_ruling, covers_proposal=covers_proposal)
                   if found else Evidence(covers_ruling, covers_proposal))
    return out, semantic is not None


def _semantic_scores(proposal: str, words: Words, rulings: Sequence[Ruling], settings: DeadendSettings,
                     semantic: SemanticArm, accepted: AcceptedLookup | None) -> dict[int, Evidence]:
    """The semantic evidence of the ``candidates`` rulings closest to the proposal (the rest
    are not semantic candidates). Where both sides substitute words ("signed cookies" for
    "shared Redis"), the differing words are compared, and looked up among accepted designs."""
    cosines = semantic.cosines(proposal, [r.text for r in rulings])
    close = sorted(range(len(rulings)), key=lambda i: -cosines[i])[: settings.candidates]
    relations: dict[int, str] = {}
    pairs: dict[int, tuple[str, str]] = {}
    chosen: dict[int, str] = {}
    for i in close:
        ruling_words = content_words(rulings[i].text)
        relations[i] = relation(words, ruling_words)
        if relations[i] != SUBSTITUTION or cosines[i] < settings.semantic_min:
            continue
        pairs[i] = leftovers(words, ruling_words)
        if accepted is not None:
            statement = accepted.statement_naming(
                pairs[i][0].split(), words.terms - ruling_words.terms,
                words.terms & ruling_words.terms, ruling_words.terms - words.terms)
            if statement:
                chosen[i] = statement
    residuals = dict(zip(pairs, semantic.pair_cosines(list(pairs.values()))))
    return {i: Evidence(0.0, 0.0, cosines[i], relations[i], residuals.get(i), chosen.get(i))
            for i in close}
