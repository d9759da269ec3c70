"""Does a proposal restate a recorded dead end? Pure scoring for ``deadend check``.

Two arms, either sufficient:

- **lexical containment**: the proposal holds nearly every content word of the ruling, or the
  ruling holds nearly every content word of the proposal (case, punctuation, stop words and
  word endings normalized; words weighted by how rare they are among the vault's dead ends);
- **semantic similarity**: the cosine of the two sentence embeddings.

Topic overlap is not a match. "keep sessions in signed cookies" shares its topic with the
rejected "keep sessions in a shared Redis": the decision sits in the words that differ. So the
semantic arm looks at how the two share words (:func:`relation`):

- nothing shared: a paraphrase in other words; the cosine decides;
- a **substitution** (each side has words the other lacks): the differing words are compared
  on their own ("signed cookies" vs "shared Redis": 0.12, vetoed; "main microcontroller" vs
  "MCU": 0.40, accepted), and a proposal whose differing words name a design the team
  recorded as accepted is never raised (see :mod:`vault_engine.memory.accepted`);
- the proposal **within** the ruling: the ruling must not say much more ("keep sessions in
  signed cookies" does not restate "JWT signed with RS256 as the session cookie").

Thresholds live in ``[deadend]`` of vault-engine.toml; README.md says how they were calibrated.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from functools import lru_cache
from itertools import chain

from vault_engine.errors import ConfigError
from vault_engine.parsing.checkpoints import match_text
from vault_engine.stores.lexical import STOP_WORDS, stem

_WORD = re.compile(r"\w+(?:[.'’]\w+)*", re.UNICODE)  # as stores.lexical tokenizes

# Words that frame a proposal or a ruling without naming a choice ("let's try", "use", "keep
# X in Y", "add a Z", "per", "rather"). They count neither as shared topic nor as a difference.
# "one" is not among them: "one shard per tenant" is a decision.
FILLER_WORDS = frozenset("""
use uses used using try tries tried trying let lets instead rather maybe perhaps approach idea
ideas plan propose proposed proposal want wanted going go get make put keep store save move run
take do done add apply give every everything new way thing things still really again simply
actually per via onto upon within across behind whether
""".split())

NOTHING_SHARED = "none"
SUBSTITUTION = "substitution"
PROPOSAL_WITHIN = "proposal within ruling"
RULING_WITHIN = "ruling within proposal"  # also: the same content words


@dataclass(frozen=True, slots=True)
class DeadendSettings:
    """``[deadend]`` in vault-engine.toml; the defaults were calibrated by bench/eval_deadend.py."""

    lexical_min: float = 0.9  # containment of the ruling in the proposal or the other way
    coverage_floor: float = 0.65  # ...while the contained side restates this much of the other
    semantic_min: float = 0.55  # cosine of proposal and ruling
    residual_min: float = 0.15  # cosine of the differing words of a substitution
    accepted_share: float = 0.6  # of those words an accepted statement must hold to veto
    candidates: int = 20  # rulings per check the semantic arm looks at, closest first
    bearing_min: float = 0.5  # resume: a dead end elsewhere bears on a next step (words only)

    @classmethod
    def from_config(cls, table: Mapping[str, object]) -> DeadendSettings:
        """Validate ``[deadend]``; every key optional, each named in its error."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(table) - known)
        if unknown:
            raise ConfigError(f"deadend.{unknown[0]} is not a setting: use one of {', '.join(sorted(known))}")
        for name in known & set(table):
            value = table[name]
            if name == "candidates":
                if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 1000:
                    raise ConfigError("deadend.candidates must be a whole number within [1, 1000]")
            elif isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
                raise ConfigError(f"deadend.{name} must be a number within [0, 1]")
        return cls(**{name: table[name] for name in known & set(table)})


@dataclass(frozen=True, slots=True)
class Words:
    """The content words of a text, in order: (as written, stem)."""

    pairs: tuple[tuple[str, str], ...]

    @property
    def terms(self) -> frozenset[str]:
        """The distinct stems."""
        return frozenset(s for _, s in self.pairs)

    def leftover(self, other: frozenset[str]) -> str:
        """The words the other side does not have, in order ("shared Redis")."""
        return " ".join(word for word, term in self.pairs if term not in other)


def content_words(text: str) -> Words:
    """Lower-cased, stemmed content words of :func:`match_text` (as the ledger stores a
    ruling's terms); stop words and framing words left out."""
    pairs = []
    for m in _WORD.finditer(match_text(text)):
        word = m.group()
        lower = word.lower()
        if len(lower) > 1 and lower not in STOP_WORDS and lower not in FILLER_WORDS:
            pairs.append((word, stem(lower)))
    return Words(tuple(pairs))


@lru_cache(maxsize=1)
def filler_terms() -> frozenset[str]:
    """The stems of :data:`FILLER_WORDS`, to drop from terms the ledger stored."""
    return frozenset(stem(w) for w in FILLER_WORDS)


def relation(proposal: Words, ruling: Words) -> str:
    """How two texts share content words (see the module docstring)."""
    p_terms, r_terms = proposal.terms, ruling.terms
    if not p_terms & r_terms:
        return NOTHING_SHARED
    if p_terms - r_terms and r_terms - p_terms:
        return SUBSTITUTION
    return PROPOSAL_WITHIN if r_terms - p_terms else RULING_WITHIN


def leftovers(proposal: Words, ruling: Words) -> tuple[str, str]:
    """The words of each side that the other lacks: ("signed cookies", "shared Redis")."""
    return proposal.leftover(ruling.terms), ruling.leftover(proposal.terms)


class TermWeights:
    """How much a word says, from how many dead ends use it (smoothed inverse frequency):
    "redis" in one ruling of fifty weighs more than "session" in ten."""

    def __init__(self, documents: Iterable[frozenset[str]]):
        documents = list(documents)
        self.n = len(documents)
        self.df = Counter(chain.from_iterable(documents))
        self._memo: dict[str, float] = {}

    def __call__(self, term: str) -> float:
        weight = self._memo.get(term)
        if weight is None:
            weight = self._memo[term] = math.log((self.n + 1) / (self.df.get(term, 0) + 0.5)) + 1.0
        return weight

    def total(self, terms: Iterable[str]) -> float:
        """The summed weight of these terms."""
        return sum(self(t) for t in terms)


def containment(proposal: frozenset[str], ruling: frozenset[str],
                weight: TermWeights) -> tuple[float, float]:
    """(share of the ruling's weight the proposal holds, share of the proposal's weight the
    ruling holds); 0 for an empty side."""
    shared = weight.total(proposal & ruling)
    of_ruling = weight.total(ruling)
    of_proposal = weight.total(proposal)
    return (shared / of_ruling if of_ruling else 0.0, shared / of_proposal if of_proposal else 0.0)


@dataclass(frozen=True, slots=True)
class Evidence:
    """Everything the arms measured for one (proposal, ruling) pair."""

    covers_ruling: float  # lexical: how much of the ruling the proposal restates
    covers_proposal: float  # lexical: how much of the proposal the ruling restates
    cosine: float | None = None  # semantic: None when the arm did not look at this ruling
    relation: str = NOTHING_SHARED
    residual_cosine: float | None = None  # of the differing words, for a substitution
    accepted: str | None = None  # an accepted design the proposal's differing words name

    @property
    def lexical_score(self) -> float:
        """The better of the two containments."""
        return max(self.covers_ruling, self.covers_proposal)


def lexical_match(e: Evidence, s: DeadendSettings) -> bool:
    """Near word-for-word containment either way, the other way still mostly covered."""
    return e.lexical_score >= s.lexical_min and min(e.covers_ruling, e.covers_proposal) >= s.coverage_floor


def semantic_match(e: Evidence, s: DeadendSettings) -> bool:
    """The same idea in other words, unless the words that differ carry another decision."""
    if e.cosine is None or e.cosine < s.semantic_min or e.accepted is not None:
        return False
    if e.relation == SUBSTITUTION:
        return e.residual_cosine is not None and e.residual_cosine >= s.residual_min
    if e.relation == PROPOSAL_WITHIN:
        return e.covers_ruling >= s.coverage_floor
    return True


def match_score(e: Evidence, s: DeadendSettings) -> float | None:
    """The score a raised ruling is ranked by (0-1), or None when neither arm raises it."""
    scores = []
    if lexical_match(e, s):
        scores.append(e.lexical_score)
    if semantic_match(e, s):
        scores.append(e.cosine)
    return round(max(scores), 4) if scores else None
