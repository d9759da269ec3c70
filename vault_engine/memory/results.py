"""The values memory answers with: a dead-end check and its rulings, the resume brief, a
written checkpoint. Plain frozen dataclasses, each with the ``to_json`` the JSON contract
(README) has, used alike by the CLI, the TUI, the daemon's codec (which rebuilds them by
``module:qualname``) and the MCP tools. Nothing here imports another memory module: the
modules that compute these (deadends, resume, checkpoints) and the one that renders them
(render) all import from here.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from vault_engine.constants import CHARS_PER_TOKEN
from vault_engine.dates import utc_date
from vault_engine.refs import printed
from vault_engine.text import shortened


def estimate_tokens(text: str) -> int:
    """About four characters a token, rounded up."""
    return -(-len(text) // CHARS_PER_TOKEN)


@dataclass(frozen=True, slots=True)
class Evidence:
    """What the two arms found for one (proposal, ruling) pair."""

    words: float  # share of the ruling's content words the proposal restates
    words_say_enough: bool = True  # the words in common weigh at least one unique word
    cosine: float | None = None  # with the ruling or its description; None: the arm did not run
    cosine_accepted: float | None = None  # the proposal's best with a chosen design; None: none recorded
    turned_down: float = 0.0  # share of its content words restated by what the proposal turns down
    is_chosen: bool = False  # the proposal is, word for word, a chosen design at least as close to it
    chosen_text: str | None = None  # the design it restates word for word (is_chosen), else the one of cosine_accepted
    chosen_planned: bool = False  # chosen_text is a Next step of the project's latest checkpoint, not a decision
    opposite: bool = False  # the ruling rules out doing without; the proposal says nothing of doing without


@dataclass(frozen=True, slots=True)
class LaterChoice:
    """A later note of a ruling's project that chose what the ruling ruled out."""

    text: str  # the choice as the note states it
    when: float | None
    agent: str | None
    ref: str

    @property
    def said(self) -> str:
        """'on 2026-12-05 claude-b1 chose "..." (ref)', as the CLI, the brief and the TUI say it."""
        text = shortened(" ".join(self.text.split()).rstrip(";,"), 200)  # a statement cut at its `;` (qa179)
        return f'on {utc_date(self.when, "an unknown date")} {self.agent or "a later note"} chose "{text}" ' \
            f"({printed(self.ref)})"

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "when": None if self.when is None else int(self.when), "agent": self.agent,
                "ref": self.ref}


@dataclass(frozen=True, slots=True)
class Ruling:
    """One recorded dead end, with how it matched a proposal when it was checked."""

    text: str
    reason: str | None
    project: str | None
    agent: str | None
    when: float | None  # Unix seconds, as stores.ledger.ruled_out_at dates it (None: a record of no date)
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
    record_title: str | None = None  # a decision record's title: the question it decided
    record_status: str | None = None  # a record no longer in force: "superseded by ADR-0057"
    short_of: str | None = None  # a closest ruling of a miss: why it was not raised
    chosen_since: LaterChoice | None = None  # a later note of its project chose it: it may no longer hold

    @property
    def not_given(self) -> str:
        """What a decision record does not say of its ruling ("date", "authors", "date or
        authors"), "" when it says both; a checkpoint always has a time and an agent's place."""
        if self.source != "decision record":
            return ""
        return " or ".join(what for what, given in (("date", self.when is not None), ("authors", bool(self.agent)))
                           if not given)

    def to_json(self) -> dict[str, Any]:
        """The ruling as the JSON contract (README) has it (plus how it matched, if checked)."""
        data: dict[str, Any] = {
            "text": self.text, "reason": self.reason, "project": self.project,
            "agent": self.agent, "when": None if self.when is None else int(self.when),
            "slug": self.slug, "source": self.source, "score": self.score,
            "elsewhere": self.elsewhere, "ref": self.ref, "path": self.path, "line": self.line,
            "chosen": self.chosen, "record_title": self.record_title, "record_status": self.record_status,
            "chosen_since": None if self.chosen_since is None else self.chosen_since.to_json(),
        }
        if self.evidence is not None:
            e = self.evidence
            data["arms"] = list(self.arms)
            data["scores"] = {"lexical": round(e.words, 4), "semantic": _rounded(e.cosine),
                              "semantic_chosen": _rounded(e.cosine_accepted)}
            data["chosen_closest"] = e.chosen_text
            data["chosen_closest_planned"] = e.chosen_planned
        if self.short_of is not None:
            data["short_of"] = self.short_of
        return data


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


@dataclass(frozen=True, slots=True)
class DeadEndList:
    """`deadend list`: the rulings, newest first (read as a sequence of them), and what an
    answer says beside them: a stale index (a teammate's pulled ruling was left out, and the
    list read as everything, qa90)."""

    rulings: tuple[Ruling, ...]
    notices: tuple[str, ...] = ()

    def __iter__(self) -> Iterator[Ruling]:
        return iter(self.rulings)

    def __len__(self) -> int:
        return len(self.rulings)

    def __getitem__(self, index: int) -> Ruling:
        return self.rulings[index]


@dataclass(frozen=True, slots=True)
class DeadendCheck:
    """The answer to ``deadend check``: the rulings it raised and the interruption to show."""

    proposal: str
    project: str | None
    arms: tuple[str, ...]
    rulings: tuple[Ruling, ...]
    rendered: str
    notices: tuple[str, ...] = ()
    matched: int = 0  # rulings raised before the first k were kept
    closest: tuple[Ruling, ...] = ()  # on a miss: the nearest rulings, each with why it was not raised
    closest_rendered: str = ""  # ...as text

    @property
    def status(self) -> str:
        """``hit`` when a ruling was raised, else ``miss``."""
        return "hit" if self.rulings else "miss"

    @property
    def printed(self) -> str:
        """What ``deadend check`` prints in text, and the TUI's proposal box shows: the
        interruption or miss, then a miss's closest rulings (qa55: the box left them out)."""
        return "\n\n".join(filter(None, (self.rendered, self.closest_rendered)))

    def to_json(self) -> dict[str, Any]:
        """What ``deadend check --json`` prints."""
        return {"proposal": self.proposal, "project": self.project, "status": self.status,
                "arms": list(self.arms), "rulings": [r.to_json() for r in self.rulings],
                "matched": max(self.matched, len(self.rulings)), "rendered": self.rendered,
                "notices": list(self.notices), "closest": [r.to_json() for r in self.closest]}


@dataclass(frozen=True, slots=True)
class CheckpointBrief:
    ref: str
    path: str
    title: str
    agent: str | None
    created: float | None
    summary: str
    next_steps: tuple[str, ...]  # still open
    failed: tuple[Ruling, ...]
    goal: str = ""  # its Goal or Decision: what the session chose
    closed_steps: tuple[str, ...] = ()  # Next items ticked off or cancelled ("- [x] ..."), not listed
    goal_heading: str = "Goal"  # as the checkpoint heads it: Goal or Decision

    @property
    def steps_closed(self) -> int:
        return len(self.closed_steps)

    def to_json(self) -> dict[str, Any]:
        """The JSON contract's shape (times as Unix seconds)."""
        return {"ref": self.ref, "path": self.path, "title": self.title, "agent": self.agent,
                "created": None if self.created is None else int(self.created),
                "summary": self.summary, "goal": self.goal, "next": list(self.next_steps),
                "next_closed": self.steps_closed, "failed": [r.to_json() for r in self.failed]}


@dataclass(frozen=True, slots=True)
class WorkingNoteBrief:
    ref: str
    path: str
    title: str
    agent: str | None
    changed: float
    dead_ends: tuple[Ruling, ...]
    excerpt: str

    def to_json(self) -> dict[str, Any]:
        """The JSON contract's shape (times as Unix seconds)."""
        return {"ref": self.ref, "path": self.path, "title": self.title, "agent": self.agent,
                "changed": int(self.changed), "dead_ends": [r.to_json() for r in self.dead_ends],
                "excerpt": self.excerpt}


@dataclass(frozen=True, slots=True)
class LinkedBrief:
    ref: str
    path: str
    title: str
    kind: str
    tap: str
    decay: float
    age_days: float
    excerpt: str
    missing: str | None = None  # the #heading or #^block the link names and the note lacks (ref: the note)

    def to_json(self) -> dict[str, Any]:
        """The JSON contract's shape (times as Unix seconds)."""
        return {"ref": self.ref, "path": self.path, "title": self.title, "kind": self.kind,
                "tap": self.tap, "decay": round(self.decay, 4), "age_days": round(self.age_days, 2),
                "excerpt": self.excerpt, "section_missing": self.missing}


@dataclass(frozen=True, slots=True)
class ResumeBrief:
    """The whole brief; ``markdown`` and ``cut`` are set by fitting it into a token budget."""

    project: str
    checkpoint: CheckpointBrief | None
    working_notes: tuple[WorkingNoteBrief, ...] = ()
    linked: tuple[LinkedBrief, ...] = ()
    elsewhere: tuple[Ruling, ...] = ()
    more_working_notes: int = 0  # changed working notes beyond MAX_WORKING_NOTES
    earlier: tuple[Ruling, ...] = ()  # the project's other dead ends: older checkpoints, records
    more_earlier: int = 0  # beyond MAX_EARLIER
    team_wide_unshown: int = 0  # dead ends of no project bearing on no next step: counted, not listed
    max_tokens: int = 2000
    cut: tuple[str, ...] = ()
    markdown: str = ""
    bears_on: dict[str, str] = field(default_factory=dict)  # ruling ref#slug -> next step
    alongside: tuple[CheckpointBrief, ...] = ()  # checkpoints written with the latest (parallel sessions)
    notices: tuple[str, ...] = ()  # said first in the brief: an index staler than the vault

    def to_json(self) -> dict[str, Any]:
        """The JSON contract's shape (times as Unix seconds)."""
        return {"project": self.project, "notices": list(self.notices),
                "checkpoint": self.checkpoint.to_json() if self.checkpoint else None,
                "checkpoints_alongside": [c.to_json() for c in self.alongside],
                "working_notes": [w.to_json() for w in self.working_notes],
                "specs": [s.to_json() for s in self.linked],
                "dead_ends_earlier": [r.to_json() for r in self.earlier],
                "team_wide_dead_ends_not_listed": self.team_wide_unshown,
                "dead_ends_elsewhere": [dict(r.to_json(), bears_on=self.bears_on.get(ruling_key(r)))
                                        for r in self.elsewhere],
                "markdown": self.markdown, "max_tokens": self.max_tokens,
                "tokens": estimate_tokens(self.markdown), "cut": list(self.cut)}


def ruling_key(r: Ruling) -> str:
    """What names a ruling in a brief's ``bears_on``: its note's ref and its slug."""
    return f"{r.ref}#{r.slug}"


@dataclass(frozen=True, slots=True)
class CheckpointWritten:
    """The new checkpoint's ref, and the names it was written under."""

    ref: str
    project: str
    agent: str
    notices: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """What ``checkpoint new --json`` prints."""
        return {"ref": self.ref, "path": self.ref, "project": self.project, "agent": self.agent,
                "notices": list(self.notices)}
