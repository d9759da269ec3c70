"""How sure a search is of its answer, and when the answer is a miss. Pure functions.

**Confidence is agreement of independent evidence**, not a score threshold (cosines and BM25
scores move from vault to vault and query to query; agreement does not):

- both arms ran: ``high`` when the lexical arm's best section and the semantic arm's best
  section belong to the same note, and that note is the first hit shown (decay may put a
  newer note first), and the question comes closer in meaning to some section than
  off-topic questions do: words and meaning, found independently, point at one place. Over
  every question of the search evaluation, the first hit was right for 85% of ``high``
  answers and 40% of ``low`` ones (bench/RESULTS.md, ``python bench/eval_search.py``);
- one arm ran: ``high`` when its best hit holds every informative word of the query as
  written (a word the words arm read as another, a slip away, is a guess);
- either way, a query of a few keywords is ``low`` when a word of it is in no note at all, and
  so is a longer question when a name it writes is in none ("sync with Todoist", "our Grafana
  dashboard": a word capitalized where no sentence opens, or with a capital inside it); the
  reason names them, so that an agent reads "no note holds 'Todoist'" beside related hits.

Anything else is ``low``: a hit worth a glance, not a fact to act on.

**A miss only when nothing is there** (a miss is a miss, never a guess). For an
agent a false miss loses the answer, a weak hit costs a glance, so a search is a miss only
when every signal is weak at once: the arms disagree, no candidate holds a third of the
query's informative words, and the question comes no closer in meaning to any section than
a typical question about the weather or a pizza place does (the vault's off-topic levels,
measured at index time by indexing/offtopic.py; a cosine means different things in different
vaults). Each claim takes the strict side of those questions: ``high`` must come closer than
the best of them, a miss no closer than the typical one; but when no note holds most of the
query's words, the words testify to absence: then no agreement of the arms on the rest vouches
for a note, and meaning must come closer than off-topic questions can be expected to (the
probes' upper fence: "how do I replace the brake pads on a road bike?" on a vault of decision
records, whose "replace" both arms found, qa104; "what is the capital city of Australia?" over
the best of twenty probes, qa105).
``[search] miss_cosine_floor`` and ``miss_term_coverage`` override the miss's two levels.

Questions on a vault's topic that the vault happens not to answer mostly come back as
``low`` hits, not misses: on the evaluation's four corpora, thresholds on the best cosine
and coverage chosen leaving one corpus out came out between 0.20 and 0.44 and lost answers
on the held-out corpus (bench/RESULTS.md); no fixed floor tells them apart.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from vault_engine.config import check_keys
from vault_engine.errors import ConfigError

HIGH, LOW = "high", "low"
DEFAULT_TERM_COVERAGE = 1 / 3
ALL_WORDS = 0.999  # coverage at which a section holds every informative word (float sums)
# A query of this many informative words or fewer is keywords: each names what it wants, and one
# no note holds ("HTTP 429", "kafka avro") leaves the answer low whatever the arms agree on (qa28
# F3). A longer question's words are partly context ("I'm", "got", "weekends"), which a small
# vault never holds: counted there, 59 of the 106 right `high` answers of the evaluation went low.
KEYWORD_TERMS = 4


@dataclass(frozen=True, slots=True)
class Evidence:
    """What the arms found, boiled down to what confidence and the miss rule read."""

    arms: tuple[str, ...]
    lexical_top: str | None = None  # where the lexical arm's best section is: its note (code: path#symbol)
    semantic_top: str | None = None  # the same for the semantic arm's
    best_cosine: float | None = None  # among the candidates
    best_coverage: float = 0.0  # the largest share of the query's informative words any candidate holds
    top_coverage: float = 0.0  # that share for the first hit
    first_hit: str | None = None  # the same for the first hit shown, after decay
    unheld: tuple[str, ...] = ()  # words of the query no section holds (both arms ran), as written
    unheld_names: tuple[str, ...] = ()  # those of them written as names ("Todoist", "GDPR", "iOS")
    terms: int = 0  # the query's informative terms
    decayed: bool = False  # decay weighed the first hit above the note both arms found first
    filtered: bool = False  # --kind, --project, --tap or --exclude-tests left sections out
    lexical_top_named: str | None = None  # lexical_top as the hits name it (a Notion page by its ref and title)
    semantic_top_named: str | None = None  # the same for semantic_top
    read_as: tuple[tuple[str, str], ...] = ()  # words the words arm read otherwise: (as written, as read)
    unread: str = ""  # pictographs of the query, which neither arm reads ("what does ⏳ mean")
    phrase_unheld: bool = False  # no words hit holds the query's "quoted phrase": its words searched without it

    @property
    def arms_agree(self) -> bool:
        return self.lexical_top is not None and self.lexical_top == self.semantic_top

    @property
    def mostly_unheld(self) -> bool:
        """Whether no note holds most of the query's informative words (all of them, or none
        to search by, when the words arm found nothing). Counted with ``--semantic`` too: it
        answered "chocolate chip cookie recipe" where hybrid search said a miss (qa104)."""
        most = 2 * len(self.unheld) > self.terms > 0
        return most or ("lexical" in self.arms and self.lexical_top is None)


def judged_miss(any_candidate: bool, e: Evidence | None = None) -> tuple[str, str]:
    """A miss's confidence and why: nothing matched, or the miss rule's weak signals (said as
    they were: "words and meaning disagree" was said of a query no note holds a word of)."""
    if not any_candidate:
        return LOW, "no section the filters leave matched the query" if e is not None and e.filtered \
            else "no section matched the query"
    # most words in no note, which meaning only names too (the words arm of hybrid search found
    # none, or some: said as it was)
    absent = e is not None and bool(e.unheld) and e.mostly_unheld
    if e is not None and e.lexical_top is None and not (absent and "lexical" not in e.arms):
        than = "off-topic questions do" if e.mostly_unheld else _TYPICAL
        return LOW, f"{_no_words(e)}, and none comes closer in meaning than {than}"
    if e is not None and absent:
        return LOW, (f"no note holds most of the query's words ({_quoted(e.unheld)}), and none comes closer in "
                     "meaning than off-topic questions do")
    return LOW, ("words and meaning disagree, no section holds a third of the query's informative words, "
                 f"and none comes closer in meaning than {_TYPICAL}")


_TYPICAL = "a typical off-topic question does"


def _no_words(e: Evidence) -> str:
    """Why the words found nothing: no note holds them, or there were none to search by
    ("the", "how do I": every note holds "the", qa29); or they were not searched."""
    if not e.terms:  # "?!", "#", a zero-width space: no stop word among them (qa127), with --semantic too (qa128)
        return f"the query has {NO_WORD}"
    if "lexical" not in e.arms:  # --semantic: a miss had said "no note holds the query's words"
        return "the words were not searched (meaning only)"
    # test code that holds them, left out by --exclude-tests, is no "no note" (qa37 N6)
    return "no section the filters leave holds the query's words" if e.filtered else "no note holds the query's words"


def judged(e: Evidence, offtopic: float = 0.0) -> tuple[str, str]:
    """The confidence and, in a few words, why. With both arms, meaning vouches only when the
    question comes closer to some section than any off-topic question does (``offtopic``, the
    vault's best off-topic level): words and a cosine of 0.23 "agreed" on kepano's Readme.md
    for a question about iCloud sync, which no note answers. A low answer also names the
    words of the query no note holds that it counts (:func:`_unheld_said`)."""
    level, why = _judged(e, offtopic)
    unheld = _unheld_said(e) if e.lexical_top is not None else ()
    if level == HIGH and unheld:
        return LOW, f"no note holds {_quoted(unheld)}: the hit may be about something else"
    if level == HIGH and e.unread:  # "what does ⏳ mean" had been `high` on a note about meaning (qa112)
        return LOW, f"the query's {e.unread!r} was read by neither arm (its words: {why})"
    if level == HIGH and e.phrase_unheld:
        return LOW, f"no section holds the quoted phrase as written (its words: {why})"
    if level == LOW and unheld:
        why += f"; no note holds {_quoted(unheld)}"
    return level, why


def _unheld_said(e: Evidence) -> tuple[str, ...]:
    """The words no note holds that tell of something the vault lacks: each of a few keywords,
    and the names of a longer question (its other words are partly context: "weekends")."""
    return e.unheld if e.terms <= KEYWORD_TERMS else e.unheld_names


def _quoted(words: tuple[str, ...]) -> str:
    return ", ".join(repr(w) for w in words[:3])


NO_WORD = "no word to search by (only stop words or punctuation)"


def _judged(e: Evidence, offtopic: float) -> tuple[str, str]:
    if len(e.arms) == 1 and not e.terms:  # `--semantic "how do I"`: no word it could fail to hold (qa127)
        return LOW, f"the query has {NO_WORD}: meaning alone answered"
    if len(e.arms) == 1:
        if e.top_coverage >= ALL_WORDS and e.read_as:  # a reading is a guess: "chore" read as "core" (qa79)
            read = ", ".join(f"{word!r} as {meant!r}" for word, meant in e.read_as)
            return LOW, f"the first hit holds every word of the query as read ({read}), not as written"
        if e.top_coverage >= ALL_WORDS:
            return HIGH, "the first hit holds every word of the query"
        return LOW, "the first hit does not hold every word of the query"
    if e.lexical_top is None:
        return LOW, f"only the meaning matched: {_no_words(e)}"
    if not e.arms_agree:
        # each arm's note named: a user could not tell which disagreement was meant (qa131)
        return LOW, (f"words and meaning disagree on the best note (words: {e.lexical_top_named or e.lexical_top}, "
                     f"meaning: {e.semantic_top_named or e.semantic_top})")
    if e.first_hit != e.lexical_top:
        # a section of the note that says nothing places it lower too: decay is named only
        # when it weighed the other way (qa36 N4: said of --no-decay)
        # the note is named, and how to see it first: it may not be among the hits shown (qa75)
        named = e.lexical_top_named or e.lexical_top
        return LOW, (f"the note words and meaning found first ({named}) is not the first hit"
                     + (" (decay moved another above it; `--no-decay` ranks it as found)" if e.decayed else ""))
    if e.best_cosine is None or e.best_cosine <= offtopic:
        return LOW, "words found a note, but the question is no closer in meaning to it than off-topic questions are"
    return HIGH, "words and meaning found the same note first"  # unless it names what no note holds (judged)


@dataclass(frozen=True, slots=True)
class MissRule:
    """When a search with the semantic arm answers ``miss``: ``[search] miss_cosine_floor``
    and ``miss_term_coverage``. (Words alone: a miss is no section sharing a word.)"""

    cosine_floor: float = 0.0  # the vault's typical off-topic level, see from_config
    term_coverage: float = DEFAULT_TERM_COVERAGE
    wordless_floor: float = 0.0  # its off-topic ceiling: when no note holds most words of the query

    @classmethod
    def from_config(cls, table: Mapping[str, Any], typical: float | None = None,
                    ceiling: float | None = None) -> MissRule:
        """Validate ``[search]``; an out-of-range value names its key. Without a
        ``miss_cosine_floor`` the floor is the vault's typical off-topic level, or its ceiling
        (as close as off-topic questions come) when no note holds most of the query's words
        (indexing/offtopic.py); before they are measured, meaning never calls a miss."""
        check_keys(table, "search.", ("miss_cosine_floor", "miss_term_coverage"))
        coverage = _unit_float(table, "miss_term_coverage", DEFAULT_TERM_COVERAGE)
        if "miss_cosine_floor" in table:
            floor = _unit_float(table, "miss_cosine_floor", 0.0)
            return cls(floor, coverage, floor)
        typical = typical or 0.0
        return cls(typical, coverage, max(typical, ceiling or 0.0))

    def is_miss(self, e: Evidence) -> bool:
        """Every signal weak at once: no candidate holds enough of the query's words, none is
        close in meaning (no candidate with vectors: meaning cannot vouch for any), and the
        arms disagree. Words that found something leave meaning the typical off-topic
        question to beat: two right answers of a personal vault sat under its best one (qa42).
        Words no note holds, most of the query's, are evidence of absence ("zxqv blorp fnord"
        came closer than the typical one, qa43): meaning must then beat the off-topic ceiling,
        and the arms agreeing on a note that holds the rest ("German" of a tax question) is
        chance. Of the 282 answerable questions of bench/eval_search.py and qa104, four have
        most of their words in no note; each comes 0.11 or more above its vault's ceiling."""
        if "semantic" not in e.arms or e.best_coverage >= self.term_coverage:
            return False
        if e.mostly_unheld:
            return e.best_cosine is None or e.best_cosine <= self.wordless_floor
        return not e.arms_agree and (e.best_cosine is None or e.best_cosine <= self.cosine_floor)


def _unit_float(table: Mapping[str, Any], key: str, default: float) -> float:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
        raise ConfigError(f"search.{key} must be a number within [0, 1]")
    return float(value)
