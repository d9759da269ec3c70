"""Does a proposal restate a recorded dead end? Pure scoring for ``deadend check``.

The decision sits between what was rejected and what was chosen. A ruling (a Failed item, a
working-note marker, an option a decision record turned down) is raised by either of two arms:

- **meaning**: the proposal's cosine with the ruling (as written, or its description when a
  record gives one: "Pod API" alone says little) reaches ``semantic_min`` *and* beats by
  ``semantic_margin`` its cosine with everything the vault records as chosen (checkpoint
  Goals and Decisions, else Summaries; records' chosen options, else their Decision, Summary
  or Proposal; each project's plan, the latest checkpoint's Next steps: memory/plans.py). A
  proposal of a chosen design shares its topic with the rejected ones, often its words too,
  but it is closer to what was chosen, so it stays quiet; where nothing chosen is recorded, closeness alone decides.
- **words**: the proposal restates ``lexical_min`` of the ruling's content words (its text,
  or the first sentence of its description), weighted by how rare each is among the vault's
  rulings, and the words in common say at least as much as one word no other ruling uses.
  Framing words ("let's", "use", "call", "name", "instead") are not content, so a near
  word-for-word restatement is caught without any model. When the model runs too, words
  defer to meaning in one case: a proposal far closer in meaning to a chosen design than to
  the ruling (by ``words_defer``) is that design naming the rejected option's words ("do the
  beamforming on the Pi, the MCU only forwards frames" holds all of "Beamforming on the
  MCU"), and stays quiet.

Neither arm raises a ruling when the proposal is, word for word, a chosen design
(:func:`closeness`, the design read up to its "because") whose wording is at least as close to
it as the ruling's: "Amazon SQS standard queue with an idempotent consumer", the option a
record chose, holds all of "Amazon SQS standard queue", the option the record it superseded
turned down; "Section X after Y", a chosen option, holds all of the rejected "Section X before
Y" ("before" and "after" are stop words, but words of the wording).

Neither arm raises a ruling the proposal turns down ("Use Gradle, not Maven" agrees with a
ruling that Maven failed): what follows ", not", "rather than" or "instead of" is refused, and
so is a sentence opening "Don't", "Never" or "Not" and a clause saying what it names was
rejected ("The badge idea was rejected", "so that's out"); a ruling whose distinguishing words
it restates is left out (:func:`refusal`). A hedge ("Not sure if ...") refuses nothing, nor
does a sentence opening "Instead of" that no comma ends.

Both thresholds and the margin were chosen leaving one corpus out over four real decision
histories (bench/deadend_lab.py; figures in bench/RESULTS.md). Comparing with the chosen design
helped the meaning arm on every corpus; for the words arm, comparing words with the chosen
design's words helped on none, and the deferral to meaning changes nothing on the dev splits
and removes false alarms of short rulings ("CC0", "Using a feature gate") elsewhere
(bench/RESULTS.md says how it was chosen). Thresholds live in ``[deadend]`` of vault-engine.toml.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, fields
from functools import lru_cache
from itertools import chain

from vault_engine.config import check_keys
from vault_engine.errors import ConfigError
from vault_engine.memory.results import Evidence
from vault_engine.parsing.checkpoints import match_text
from vault_engine.parsing.decisions import TURNED_DOWN_SAYING
from vault_engine.stores.lexical import analyze, stem
from vault_engine.text import shortened

# Words that frame a proposal or a ruling without naming a choice ("let's try", "use", "call
# it X", "keep X in Y", "add a Z", "instead"). They count neither as shared nor as missing.
# "one" is not among them: "one shard per tenant" is a decision.
FILLER_WORDS = frozenset("""
use uses used using try tries tried trying let lets instead rather maybe perhaps approach idea
ideas plan propose proposed proposal suggest want wanted going go get make put keep store save
move run take do done add apply give every everything new way thing things still really again
simply just actually per via onto upon within across behind whether call calls called calling
name names named naming rename label labelled dub pick choose switch adopt introduce implement
support create build write have having since literally basically probably option options
alternative alternatives solution see based
cannot never
""".split())  # the negations last: a ruling "Don't do it." was raised by every "don't" (qa31 N1;
# "don't" and the other contractions are stop words of the lexical index)


@dataclass(frozen=True, slots=True)
class DeadendSettings:
    """``[deadend]`` in vault-engine.toml; the defaults were chosen by bench/deadend_lab.py."""

    semantic_min: float = 0.40  # cosine of proposal and ruling (or its description)
    semantic_margin: float = 0.06  # ...and that much above its best cosine with a chosen design
    lexical_min: float = 0.9  # share of the ruling's content words the proposal restates
    words_defer: float = 0.10  # ...unless its cosine with a chosen design is this much above the ruling's
    bearing_min: float = 0.5  # resume: a dead end elsewhere bears on a next step (words only)

    def words_met(self, share: float, enough: bool) -> bool:
        """The words arm's bar: ``lexical_min`` of a ruling's content words restated, and the
        words in common saying enough (:func:`words_evidence`)."""
        return share >= self.lexical_min and enough

    @classmethod
    def from_config(cls, table: Mapping[str, object]) -> DeadendSettings:
        """Validate ``[deadend]``; every key optional, each named in its error."""
        known = {f.name for f in fields(cls)}
        check_keys(table, "deadend.", known)
        given: dict[str, float] = {}
        for name in known & set(table):
            value = table[name]
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
                raise ConfigError(f"deadend.{name} must be a number within [0, 1]")
            given[name] = value
        return cls(**given)


DEFAULT_SETTINGS = DeadendSettings()  # frozen: one instance serves as every default


@lru_cache(maxsize=1)
def filler_terms() -> frozenset[str]:
    """The stems of :data:`FILLER_WORDS`, to drop from terms the ledger stored."""
    return frozenset(stem(w) for w in FILLER_WORDS)


def content_terms(text: str) -> frozenset[str]:
    """The stemmed content words of a text, as the lexical index analyzes them (possessives
    dropped), framing words left out."""
    return frozenset(analyze(match_text(text))) - filler_terms()


# What a proposal turns down: "X, not Y" (or "never Y", after a comma, a dash, "and" or "but"),
# "X (not Y)", "X rather than Y", "X instead of Y", "Instead of Y, X", and a sentence that opens
# "Don't Y", "Do not Y", "Never Y" or "Not Y" ("Don't keep tokens in localStorage, use a
# cookie" states the lesson). Y runs to the end of its clause (or its parenthesis); "not" and
# "never" count only so ("why not Y" and "so clients never refresh" propose what they say).
# opening a sentence, or a line after a list item's or a comment's mark ("- Do not ...", "# Never
# drop the second microphone": an agent writing the lesson down was told it repeated it, qa96)
# A hedge is no refusal: "Not sure if this was tried, but ...", "Don't know if anyone tried ...",
# "not only X" (each had turned down every ruling it named, qa132).
_HEDGE = r"(?!\s+(?:sure|certain|know|knowing|only|just|yet)\b)"
_SENTENCE_NEGATION = (r"(?:(?:[-*+]|\d{1,3}[.)]|#{1,6}|//+|/\*+|<!--)\s*)?(?:don['’]?t|do not|never|not)\b"
                      + _HEDGE)
_TURNED_DOWN = re.compile(r"\(\s*not\b[^)]*\)|(?:(?:,|--|[—–]|\band\b|\bbut\b)\s*(?:not|never)\b" + _HEDGE
                          + r"|\brather than\b"
                          r"|\binstead of\b|(?:^|[.;:!?])\s*" + _SENTENCE_NEGATION + r")"
                          r"(?:[^,;:!?.()\n]|\.(?=\S))*", re.I | re.M)
_OPENS_REFUSING = re.compile(r"\s*" + _SENTENCE_NEGATION, re.I)


def opens_refusing(text: str) -> bool:
    """Whether a text opens by turning something down ("Don't keep tokens in localStorage"):
    all of it may be refused, where an "Instead of" without a comma is only unended."""
    return bool(_OPENS_REFUSING.match(text))


# A quotation is mentioned, not said: 'e.g. "# 2. Do not use numbers in headings"' quotes a
# record's title, and its "Do not" turns nothing down.
_QUOTED = re.compile(r'"[^"\n]*"|“[^”\n]*”')


# A clause that says what it names was turned down: "The shields.io badge idea was rejected.",
# "SnakeYAML Engine only gives us generic maps, so that's out." An agent sets such a scene
# before its plan, and the ruling it named had been raised by it (qa129: 4 of 8 such messages).
# Only verbs that say nothing else: "we dropped the second microphone" may report doing it.
_CLAUSE = r"(?:[^.;!?\n]|\.(?=\S))"
# ...to the end of the sentence, or to a clause that goes on to something else: "Signed cookies
# were rejected by the security review, so we'll keep sessions in a shared Redis" (qa132)
_NEXT_CLAUSE = r"(?:,?\s+(?:so|but|then|because|since)|,\s*and\s+(?:we|I|they|so|then))\b"
# A clause opens a line or follows a stop with a space: one opening at every dot of a dotted
# name or a stack trace's frames ran to the clause's end each time (24 KB: 34 s, qa156).
_SAID_OUT = re.compile(
    rf"(?:^|(?<=[.;!?])(?=\s)){_CLAUSE}*?\b(?:{TURNED_DOWN_SAYING}"
    rf"|(?:that|this|it)(?:['’]s|\s+is)\s+out|(?:is|are)(?:\s+not|n['’]t)\s+(?:the\s+answer|an\s+option))\b"
    rf"(?:(?!{_NEXT_CLAUSE}){_CLAUSE})*",
    re.I | re.M)
# "Instead of Y X" with no comma to end Y: where Y ends cannot be told, and the whole sentence
# read as refused hid the ruling it proposes ("Instead of signed cookies keep sessions in a
# shared Redis"), also when another sentence follows ("... Redis. I'll add tests.", qa132)
_UNENDED = re.compile(r"(?:instead\s+of|rather\s+than)\b(?:[^,;:!?.()\n]|\.(?=\S))*[.;!?]?\s*$", re.I)
_SENTENCE_START = re.compile(r"(?:^|[.;!?]\s+|\n)\s*$")
_SENTENCE_STOP = re.compile(r"[.;!?](?=\s|$)|\n")


def _refusals(text: str) -> list[tuple[int, int]]:
    """Where ``text`` turns something down, in order, overlaps joined; a refusal never opens
    inside quotation marks, though it may run over them ("Don't use "Redis" here")."""
    masked = _QUOTED.sub(lambda m: m.group()[0] + " " * (len(m.group()) - 2) + m.group()[-1], text)
    spans = sorted(m.span() for pattern in (_TURNED_DOWN, _SAID_OUT) for m in pattern.finditer(masked)
                   if not _unended(masked, *m.span()))
    joined: list[tuple[int, int]] = []
    for start, end in spans:
        if joined and start <= joined[-1][1]:
            joined[-1] = (joined[-1][0], max(end, joined[-1][1]))
        else:
            joined.append((start, end))
    return joined


def _unended(text: str, start: int, end: int) -> bool:
    """Whether the refusal at ``start:end`` is a whole sentence opening "Instead of" or
    "Rather than": nothing ended what it turns down (:data:`_UNENDED`)."""
    sentence_end = _SENTENCE_STOP.search(text, end)
    rest = text[start:sentence_end.end() if sentence_end else len(text)]
    return bool(_SENTENCE_START.search(text[:start])) and bool(_UNENDED.match(rest))


def turned_down(text: str) -> str:
    """What a text turns down (", not Maven" in "Use Gradle, not Maven"); "" when nothing."""
    return " ".join(text[start:end] for start, end in _refusals(text))


def proposed_part(text: str) -> str:
    """The text without what it turns down ("Use Gradle")."""
    kept, at = [], 0
    for start, end in _refusals(text):
        kept.append(text[at:start])
        at = end
    return "".join(kept) + text[at:]


# What an agent says it will do, after saying what it is working on: "Working on the stuck
# StatefulSet rollout bug now. My plan is to add a new update strategy ..." The scene set first
# sits as near the design that was chosen for the same problem as the one ruled out, and had
# kept restatements quiet in the meaning arm's margin (qa114, qa116: 24 -> 29 of 36 found).
_WILL_DO = re.compile(r"\b(?:I['’]m going to|I am going to|we['’]re going to|going to|I['’]ll|I will|we['’]ll|we will"
                      r"|let['’]s|(?:my|the|our) plan is|plan:|(?:I|we) plan to|I propose|we could|how about|what if"
                      r"|I want to|I['’]d like to|we should|the fix is to|going with|next,? I['’]m)", re.I)


def what_it_will_do(text: str) -> str:
    """The proposal from where it first says what the agent will do, when a scene comes before
    (a sentence, or a clause: "In our payments service, let's ..."); else the whole text."""
    said = _WILL_DO.search(text)
    return text[said.start():] if said is not None and text[:said.start()].strip() else text


# A ruling may rule out doing without: MADR's "No license", "Do not add status", "Don't do it."
# A proposal that restates its words without saying it goes without proposes the opposite: "We
# need to track the status of each ADR" had raised "Do not track status" (qa117), "Put the
# status in the front matter" "Do not add status", and "adopt the Checker Framework" "No
# nullness analysis (status quo)". (A negation is no word a ruling is matched by.)
_DOES_WITHOUT = re.compile(r"\s*(?:[-*+]\s+)?(?:no|none|without|never|don['’]?t|do not)\b", re.I)
_SAYS_WITHOUT = re.compile(r"\b(?:no|not|none|nothing|never|neither|nor|without|skip\w*|drop\w*|omit\w*|avoid\w*"
                           r"|stop\w*|remov\w*|forgo|abandon\w*|leave\b[^.;:!?\n]{0,40}?\bout|status quo)\b"
                           r"|n['’]t\b", re.I)


def rules_out_doing_without(ruling: str) -> bool:
    """Whether what a ruling rules out is doing without something ("No license")."""
    return bool(_DOES_WITHOUT.match(ruling))


def says_doing_without(proposal: str) -> bool:
    """Whether a proposal says anything of not doing, dropping or keeping things as they are."""
    return bool(_SAYS_WITHOUT.search(proposal))


@dataclass(frozen=True, slots=True)
class ProposalReading:
    """What a check reads of a proposal, once, before any ruling: its content words, what it
    turns down and what else it proposes, and whether that refusal counts."""

    text: str
    terms: frozenset[str]
    refused: frozenset[str]
    proposed: frozenset[str]
    refusing: bool  # what it turns down is refused (read_proposal says when)
    says_without: bool  # it speaks of not doing, dropping or keeping things as they are

    @property
    def only_refusing(self) -> bool:
        """Only turning something down ("Don't use Redis Redlock for invoice runs") proposes
        nothing to check: the meaning arm raised "Storing idempotency keys in Redis" (qa51)."""
        return self.refusing and not self.proposed

    @property
    def for_meaning(self) -> str:
        """What the meaning arm compares: what it proposes, when it also turns something down."""
        return proposed_part(self.text) if self.refusing and self.proposed else self.text

    def refusal_of(self, ruling: str, lead: str, does_without: bool, weights: TermWeights) -> float:
        """How much of a ruling (as written, and its description's lead) the proposal turns
        down (:func:`refusal`); a ruling of doing without ("do not track status") is restated
        by saying to do without, and refusing is then how it is restated, not a turning down."""
        if not self.refusing or (self.says_without and does_without):
            return 0.0
        return 1.0 if self.only_refusing else refusal(self.refused, self.proposed, (ruling, lead), weights)


def read_proposal(proposal: str) -> ProposalReading:
    """A proposal as every ruling is weighed against it. What it turns down counts only when
    it proposes something besides ("Signed cookies were rejected." states a ruling), or opens
    by refusing ("Don't keep refresh tokens in localStorage": qa31 N2); an "Instead of" no
    comma ends refuses nothing in the first place (:func:`_unended`)."""
    refused, proposed = content_terms(turned_down(proposal)), content_terms(proposed_part(proposal))
    return ProposalReading(proposal, content_terms(proposal), refused, proposed,
                           bool(refused) and (bool(proposed) or opens_refusing(proposal)),
                           says_doing_without(proposal))


def ruling_core(text: str) -> frozenset[str]:
    """The content words of what a ruling rules out, without what it compares it with ("Use a
    ConfigMap rather than defining a new type"); empty when that is none of it. Restating the
    rest had read as 35% of that ruling (qa76). (An aside in parentheses left out too raised a
    false alarm on the evaluation's KEPs, and nothing more: it stays a word to restate.)"""
    core = proposed_part(text)
    return content_terms(core) if core != text else frozenset()


def refusal(refused: frozenset[str], proposed: frozenset[str], texts: Iterable[str], weight: TermWeights) -> float:
    """How much of a ruling (its texts: as written, its description's lead) the proposal
    turns down: the share of the words that set the ruling apart from what the proposal
    proposes (the ruling's own turned-down part left out) that its ``refused`` words restate.
    "Keep sessions in each pod, not in a shared Redis" turns down all of "Keep sessions in a
    shared Redis" that is not its own topic."""
    best = 0.0
    for text in texts:
        apart = content_terms(proposed_part(text)) - proposed
        if apart:
            best = max(best, restated(refused, apart, weight))
    return best


class TermWeights:
    """How much a word says, from how many rulings use it (smoothed inverse frequency):
    "redis" in one ruling of fifty weighs more than "session" in ten."""

    def __init__(self, n: int, df: Mapping[str, int],
                 counts: Callable[[Iterable[str]], Mapping[str, int]] | None = None):
        self.n = n  # how many rulings
        self.df = df  # how many of them use a word (absent: none, unless ``counts`` says)
        # a word index's count, for a word df lacks when it is first weighed: df read for the
        # shared rulings' words alone had weighed a chosen design's other words as if no ruling
        # used them, and the check disagreed with a scan of every ruling (qa121)
        self._counts = counts
        self._memo: dict[str, float] = {}

    @classmethod
    def of(cls, documents: Iterable[frozenset[str]]) -> TermWeights:
        """The weights of words among these rulings' words."""
        documents = list(documents)
        return cls(len(documents), Counter(chain.from_iterable(documents)))

    def __call__(self, term: str) -> float:
        weight = self._memo.get(term)
        if weight is None:
            used = self.df.get(term)
            if used is None:
                used = self._counts((term,)).get(term, 0) if self._counts is not None else 0
            weight = self._memo[term] = math.log((self.n + 1) / (used + 0.5)) + 1.0
        return weight

    def total(self, terms: Iterable[str]) -> float:
        """The summed weight of these terms."""
        return sum(self(t) for t in terms)

    @property
    def unique(self) -> float:
        """The weight of a word only one ruling uses: what words in common must at least say
        before they alone raise a ruling ("field" shared with "Alternative names for field"
        says nothing; "Maven" shared with the option "Maven" does)."""
        return math.log((self.n + 1) / 1.5) + 1.0


def restated(proposal: frozenset[str], other: frozenset[str], weight: TermWeights) -> float:
    """The share of ``other``'s content weight that the proposal holds (0 when it has none)."""
    of_other = weight.total(other)
    return weight.total(proposal & other) / of_other if of_other else 0.0


def closeness(proposal: frozenset[str], other: frozenset[str], weight: TermWeights) -> float:
    """How close two texts' content words are, both ways (their weighted Dice coefficient): 1
    for the same words, less for each word either has alone. A long statement that holds a
    short proposal's words among many others is not close to it."""
    both = weight.total(proposal) + weight.total(other)
    return 2 * weight.total(proposal & other) / both if both else 0.0


def wording_closeness(text: str, other: str) -> float:
    """How close two texts are in every word they write, stop words included (Dice of their
    word sets): where content words tie, "before" and "after" still differ."""
    words, others = frozenset(_WORDING.findall(text.lower())), frozenset(_WORDING.findall(other.lower()))
    return 2 * len(words & others) / (len(words) + len(others)) if words or others else 0.0


_WORDING = re.compile(r"[^\W_]+")
# What a chosen design is, without why: "Use JSON format, with Jackson, because ..." and a
# record's "Use JSON format Good, because ..." are the design "Use JSON format, with Jackson".
_JUSTIFIED = re.compile(r"(?:\b(?:good|bad|neutral)\s*,?\s*)?\bbecause\b", re.I)


def chosen_lead(statement: str) -> str:
    """A chosen design up to its justification."""
    found = _JUSTIFIED.search(statement)
    return statement[:found.start()] if found else statement


def words_evidence(proposal: frozenset[str], texts: Iterable[frozenset[str]],
                   weight: TermWeights) -> tuple[float, bool]:
    """The best share of a ruling's content words (its text, or its description's lead
    sentence) the proposal restates, and whether the words in common say enough on their own
    (at least :attr:`TermWeights.unique`)."""
    best, enough = 0.0, False
    for terms in texts:
        shared = proposal & terms
        if shared:
            share = restated(proposal, terms, weight)
            if share > best:
                best, enough = share, weight.total(shared) >= weight.unique - 1e-9
    return best, enough


def design_terms(statement: str) -> frozenset[str]:
    """The content words of what a chosen design proposes: up to its "because", without
    what it turns down."""
    return content_terms(proposed_part(chosen_lead(statement)))


def lexical_match(e: Evidence, s: DeadendSettings) -> bool:
    """Nearly every content word of the ruling restated, and saying enough; unless the model
    ran and finds the proposal far closer to a chosen design than to the ruling."""
    if not s.words_met(e.words, e.words_say_enough):
        return False
    return e.cosine is None or e.cosine_accepted is None or e.cosine_accepted - e.cosine < s.words_defer


def semantic_match(e: Evidence, s: DeadendSettings) -> bool:
    """Close in meaning to the ruling, and closer to it than to the chosen design."""
    if e.cosine is None or e.cosine < s.semantic_min:
        return False
    return e.cosine_accepted is None or e.cosine - e.cosine_accepted >= s.semantic_margin


# A ruling is turned down when what the proposal refuses restates at least half of what sets
# the ruling apart, by weight: "Use signed cookies, not a shared Redis" refuses "shared Redis"
# of "Keep sessions in a shared Redis", whose "sessions" the proposal never mentions, and the
# meaning arm raised it (the words arm's 0.9 had been asked of the refusal too: qa30 F1).
REFUSED_SHARE = 0.5


def vetoed(e: Evidence) -> str | None:
    """Why no arm may raise the ruling whatever its scores, or None: the proposal turns it
    down (a ruling that Maven failed agrees with "Use Gradle, not Maven", which raised it, and
    the prompt hook interrupted the person: qa24 #2), it rules out doing without and the
    proposal does not say to do without, or the proposal is a chosen design word for word."""
    if e.turned_down >= REFUSED_SHARE:
        return "the proposal turns it down"
    if e.opposite:
        return "it rules out doing without; the proposal does not say to do without"
    if e.is_chosen:
        return f"the proposal is {_chosen(e)}, word for word{_named(e.chosen_text)}"
    return None


def short_of(e: Evidence, s: DeadendSettings) -> str:
    """Why neither arm raised a ruling, in the rules' own numbers (a miss's closest rulings:
    "nothing close" and "just below the bar" looked the same, qa35 A5)."""
    veto = vetoed(e)
    if veto:
        return veto
    if e.words < s.lexical_min:
        said = [f"its words {e.words:.0%} restated ({s.lexical_min:.0%} raises it)"]
    elif not e.words_say_enough:
        said = [f"its words {e.words:.0%} restated, but only common ones"]
    else:  # the words defer to meaning: a chosen design is far closer
        said = [f"its words {e.words:.0%} restated, but {_chosen(e)} is closer in meaning"]
    if e.cosine is not None and e.cosine < s.semantic_min:  # 0.398 is no 0.40 (qa47): three places then
        places = 2 if round(e.cosine, 2) < round(s.semantic_min, 2) else 3
        said.append(f"meaning {e.cosine:.{places}f} ({s.semantic_min:.{places}f} raises it)")
    elif e.cosine is not None and e.cosine_accepted is not None and e.cosine_accepted >= e.cosine:
        said.append(f"meaning {e.cosine:.2f}, but {_chosen(e)} is as close or closer ({e.cosine_accepted:.2f}"
                    f"{_named(e.chosen_text)})")
    elif e.cosine is not None and e.cosine_accepted is not None:  # three places: 0.0588 is no 0.06 (qa37 N2)
        said.append(f"meaning {e.cosine:.3f}, only {e.cosine - e.cosine_accepted:.3f} above {_chosen(e)}'s "
                    f"{e.cosine_accepted:.3f}{_named(e.chosen_text)} ({s.semantic_margin:.3f} above raises it)")
    return "; ".join(said)


def _chosen(e: Evidence) -> str:
    """What kept a ruling quiet: a design the vault chose, or a step its project's latest
    checkpoint plans next (a to-do, "add the defaulting in the namespace strategy", had been
    called a chosen design: qa114)."""
    return "a planned next step" if e.chosen_planned else "a chosen design"


def _named(chosen: str | None) -> str:
    """Which chosen design kept a ruling quiet, so an agent can check it (qa53: "a chosen
    design is as close or closer" named none)."""
    if not chosen:
        return ""
    text = " ".join(chosen.split()).rstrip(",;: ")  # a lead cut before its "because" keeps its comma
    return f': "{shortened(text, 80)}"'


def match_score(e: Evidence, s: DeadendSettings) -> float | None:
    """The score a raised ruling is ranked by (0-1: a word-for-word restatement's share of
    words, else its cosine), or None when neither arm raises it or it is :func:`vetoed`."""
    if vetoed(e):
        return None
    scores = [score for score, raised in ((e.words, lexical_match(e, s)), (e.cosine, semantic_match(e, s)))
              if raised and score is not None]
    return round(max(scores), 4) if scores else None
