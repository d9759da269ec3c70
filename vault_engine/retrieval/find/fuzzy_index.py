"""Fuzzy search over many names (symbol qualnames, file paths): fzf's matcher behind a
prefilter. Pure.

One alignment by fuzzy.py costs about 15 microseconds, so 20,000 names could never all be
scored in a few milliseconds. Most names cannot match at all, and two cheap steps find the
ones that can, exactly:

1. pattern characters present: one bitset per character (bit k set when name k holds it),
   ANDed as Python ints, microseconds for 20,000 names. Only the pattern's rarest characters
   need one (rarity from a sample of the names), plus those already computed and more while
   many names are left: step 2 checks the rest, so a first query pays for about three
   bitsets, not one per character;
2. every character present, in order (fzf's ``asciiFuzzyIndex`` idea): a possessive regular
   expression on each name left, which holds exactly when the alignment exists.

The survivors are scored without positions, ranked, and only the hits returned are aligned
again for their positions. Bitsets and bonuses are computed on first use and kept (the only
state; results never depend on it), so building an index costs folding the names and
counting the characters of a sample, and a one-shot call pays for what it asks about.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from vault_engine.retrieval.find.fuzzy import (
    DEFAULT_SCHEME,
    Scheme,
    align,
    fold_pattern,
    fold_text,
    is_case_sensitive,
    text_bonuses,
    text_classes,
)

_SAMPLE_EVERY = 8  # one name in 8 tells which characters are rare
_NEW_BITSETS = 3  # bitsets a query computes if missing: its rarest characters
# ... and more while more names than this are left: building a bitset (one test per name)
# costs about what the regular expression costs on this many names.
_WORTH_A_BITSET = 2000


@dataclass(frozen=True, slots=True)
class FuzzyHit:
    """One name that matched: its position in the index, fzf's score, the matched positions."""

    index: int
    name: str
    score: int
    positions: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class FuzzyIndex:
    """Names folded once for case-insensitive and case-sensitive patterns (``build_fuzzy_index``)."""

    names: tuple[str, ...]
    normalize: bool
    scheme: Scheme
    folded: tuple[str, ...]  # lowered (and normalized): for case-insensitive patterns
    exact: tuple[str, ...]  # normalized only: for case-sensitive ones
    frequency: dict[str, int]  # folded character -> count in a sample of the names
    _bitsets: dict[tuple[bool, str], int] = field(default_factory=dict, repr=False, compare=False)
    _bonuses: dict[int, bytes] = field(default_factory=dict, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.names)


def build_fuzzy_index(names: Iterable[str], *, normalize: bool = True,
                      scheme: Scheme = DEFAULT_SCHEME) -> FuzzyIndex:
    """An index of ``names`` for ``fuzzy_search``; ``normalize`` and ``scheme`` as in
    ``fuzzy_match`` (PATH_SCHEME suits file paths)."""
    names = tuple(names)
    folded, exact = [], []
    for name in names:
        if name.isascii():  # the common case: no classes needed to fold
            folded.append(name.lower())
            exact.append(name)
            continue
        classes = text_classes(name, scheme)
        folded.append(fold_text(name, classes, False, normalize))
        exact.append(fold_text(name, classes, True, normalize))
    frequency = Counter("".join(folded[::_SAMPLE_EVERY]))
    return FuzzyIndex(names, normalize, scheme, tuple(folded), tuple(exact), dict(frequency))


def candidates(index: FuzzyIndex, folded_pattern: str, case_sensitive: bool = False) -> list[int]:
    """The names (ascending indices) that hold every character of the folded pattern in order:
    exactly those ``align`` matches. The prefilter of ``fuzzy_search``."""
    if not folded_pattern:
        return list(range(len(index.names)))
    rarest = sorted(set(folded_pattern), key=lambda char: (index.frequency.get(char.lower(), 0), char))
    mask = -1
    for rank, char in enumerate(rarest):
        if (rank >= _NEW_BITSETS and (case_sensitive, char) not in index._bitsets
                and mask.bit_count() <= _WORTH_A_BITSET):
            continue  # not worth a scan of every name: the regular expression checks it
        mask &= _bitset(index, case_sensitive, char)
        if not mask:
            return []
    bits = bin(mask)[:1:-1]  # bit k at position k
    found, k = [], bits.find("1")
    while k >= 0:
        found.append(k)
        k = bits.find("1", k + 1)
    if len(folded_pattern) == 1:
        return found  # one character: presence is the whole condition
    in_order = _subsequence_regex(folded_pattern).match
    forms = index.exact if case_sensitive else index.folded
    return [k for k in found if in_order(forms[k])]


def fuzzy_search(index: FuzzyIndex, pattern: str, *, case: str = "ignore", forward: bool = True,
                 limit: int | None = None) -> list[FuzzyHit]:
    """The names that ``pattern`` matches, best first: by fzf's score, then the shorter name,
    then index order (fzf's default ``--tiebreak=length``). ``case`` and ``forward`` as in
    ``fuzzy_match``; ``limit`` keeps the first hits (positions are computed for those only)."""
    sensitive = is_case_sensitive(pattern, case)
    folded_pattern = fold_pattern(pattern, sensitive, index.normalize)
    forms = index.exact if sensitive else index.folded
    ranked = []
    for k in candidates(index, folded_pattern, sensitive):
        found = align(folded_pattern, forms[k], _bonuses(index, k), forward, positions=False)
        if found is not None:  # always, by the prefilter's contract; kept as a guard
            ranked.append((-found.score, len(index.names[k]), k))
    ranked.sort()
    if limit is not None:
        ranked = ranked[:max(limit, 0)]
    hits = []
    for negative_score, _, k in ranked:
        found = align(folded_pattern, forms[k], _bonuses(index, k), forward)
        assert found is not None  # it matched above, on the same inputs
        hits.append(FuzzyHit(k, index.names[k], -negative_score, found.positions))
    return hits


def _bitset(index: FuzzyIndex, case_sensitive: bool, char: str) -> int:
    key = (case_sensitive, char)
    bitset = index._bitsets.get(key)
    if bitset is None:
        forms = index.exact if case_sensitive else index.folded
        # Name k is bit k: the binary literal is written from the last name down.
        bitset = int("".join(["1" if char in form else "0" for form in reversed(forms)]) or "0", 2)
        index._bitsets[key] = bitset
    return bitset


def _bonuses(index: FuzzyIndex, k: int) -> bytes:
    bonuses = index._bonuses.get(k)
    if bonuses is None:
        bonuses = text_bonuses(text_classes(index.names[k], index.scheme), index.scheme)
        index._bonuses[k] = bonuses
    return bonuses


def _subsequence_regex(pattern: str) -> re.Pattern[str]:
    # "[^a]*+a[^b]*+b...": each character at its first occurrence after the previous one,
    # possessive so that a name that fails is never rescanned.
    return re.compile("".join(f"[^{re.escape(char)}]*+{re.escape(char)}" for char in pattern))
