"""Typos: the optimal string alignment distance, with an early cutoff, and an index that finds
the names within a few edits of a query. Pure. ``find`` suggests names with it
(find/suggest.py); search reads a misspelt query word as the vault's word (spelling.py).

fzf (find/fuzzy.py) needs every pattern character, in order, so a transposed or wrong letter
loses the match: "OrdreBook.plcae" never finds "OrderBook.place", nor "make_pass_decorater"
"make_pass_decorator". The optimal string alignment (OSA) distance counts insertions,
deletions, substitutions and transpositions of two adjacent characters, one each, with no
stretch edited twice: "OrdreBook.plcae" is 2 from "OrderBook.place". (Full Damerau-Levenshtein
would also let a transposed pair be edited again, "ca" -> "abc" in 2 instead of 3; a typo is
one slip, and OSA keeps a plain three-row recurrence.)

Scoring 20,000 names one by one would take far too long in Python, and nearly all of them are
far away. A name within k edits of the query is within k of its length, and shares at least
``len(grams) - 3 k`` of the query's distinct padded bigrams (one edit touches at most three).
So ``typo_search`` looks only at names of those lengths and adds up which of the query's
bigrams each holds (one integer per bigram and length, a byte per name, so adding them counts)
before computing any distance.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

_START, _END = "\x02", "\x03"  # padding, so the first and last characters weigh like the rest
_GRAMS_PER_EDIT = 3  # a transposition touches the bigrams across both characters


def osa_distance(a: str, b: str, max_distance: int | None = None) -> int:
    """The optimal string alignment distance between ``a`` and ``b`` (case-sensitive). With
    ``max_distance``, any distance beyond it is reported as ``max_distance + 1``, as soon as
    that is certain: lengths further apart say so at once, only cells within ``max_distance``
    of the diagonal are computed, and the rows stop when none below can come back within it."""
    if max_distance is not None and max_distance < 0:
        raise ValueError(f"max_distance must be 0 or more, not {max_distance}")
    if a == b:
        return 0
    # A shared prefix or suffix can be set aside: some optimal alignment leaves it untouched
    # (the tests check this against the plain recurrence).
    start = 0
    while start < len(a) and start < len(b) and a[start] == b[start]:
        start += 1
    end_a, end_b = len(a), len(b)
    while end_a > start and end_b > start and a[end_a - 1] == b[end_b - 1]:
        end_a -= 1
        end_b -= 1
    a, b = a[start:end_a], b[start:end_b]
    if len(a) < len(b):
        a, b = b, a
    limit = len(a) if max_distance is None else max_distance
    if len(a) - len(b) > limit:
        return limit + 1
    if not b:
        return len(a)
    return _banded(a, b, limit)


def _banded(a: str, b: str, limit: int) -> int:
    """The OSA recurrence over rows of ``a`` and columns of ``b`` (len(b) <= len(a)), inside the
    band |i - j| <= limit; cells outside count as limit + 1."""
    over = limit + 1
    width = len(b)
    before = [over] * (width + 1)  # row i - 2
    above = [min(j, over) for j in range(width + 1)]  # row i - 1, starting with row 0
    for i in range(1, len(a) + 1):
        row = [over] * (width + 1)
        if i <= limit:
            row[0] = i
        char = a[i - 1]
        for j in range(max(1, i - limit), min(width, i + limit) + 1):
            cost = 0 if char == b[j - 1] else 1
            best = above[j - 1] + cost
            if above[j] + 1 < best:
                best = above[j] + 1
            if row[j - 1] + 1 < best:
                best = row[j - 1] + 1
            if (cost and i > 1 and j > 1 and char == b[j - 2] and a[i - 2] == b[j - 1]
                    and before[j - 2] + 1 < best):
                best = before[j - 2] + 1  # the two characters swapped
            row[j] = best if best < over else over
        # A later row's cell comes from this row, or (swap) from the one above plus one.
        if min(row) > limit and min(above) >= limit:
            return over
        before, above = above, row
    return above[width] if above[width] < over else over


def default_max_distance(length: int) -> int:
    """How many edits a query of ``length`` characters may be off: none up to 2, one up to 5,
    else two (the rule of Lucene's and Elasticsearch's ``fuzziness: AUTO``), so a short query
    does not come within reach of every short name."""
    if length <= 2:
        return 0
    return 1 if length <= 5 else 2


@dataclass(frozen=True, slots=True)
class TypoHit:
    """A name within the allowed distance of the query."""

    index: int  # the name's position in the index
    name: str
    distance: int


@dataclass(frozen=True, slots=True)
class TypoIndex:
    """Names ready for ``typo_search`` (``build_typo_index``): folded, and grouped by length."""

    names: tuple[str, ...]
    case_sensitive: bool
    forms: tuple[str, ...]  # the names as compared (lower-cased unless case-sensitive)
    by_length: dict[int, tuple[int, ...]]  # length -> indices of the names of that length
    forms_by_length: dict[int, tuple[str, ...]]  # length -> those names' forms, in that order
    # (length, bigram) -> an integer whose byte j is 1 when the j-th name of that length holds
    # the bigram; built on first use (results never depend on it).
    _grams: dict[tuple[int, str], int] = field(default_factory=dict, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.names)


def build_typo_index(names: Iterable[str], *, case_sensitive: bool = False) -> TypoIndex:
    """An index of ``names`` for ``typo_search``; case-insensitive unless asked."""
    names = tuple(names)
    forms = names if case_sensitive else tuple(name.lower() for name in names)
    by_length: dict[int, list[int]] = {}
    for k, form in enumerate(forms):
        by_length.setdefault(len(form), []).append(k)
    return TypoIndex(names, case_sensitive, forms, {n: tuple(ks) for n, ks in by_length.items()},
                     {n: tuple(forms[k] for k in ks) for n, ks in by_length.items()})


def typo_search(index: TypoIndex, query: str, max_distance: int | None = None,
                limit: int | None = None) -> list[TypoHit]:
    """The names within ``max_distance`` edits of ``query`` (``default_max_distance`` of its
    length when None), nearest first, then shorter, then in index order."""
    form = query if index.case_sensitive else query.lower()
    k = default_max_distance(len(form)) if max_distance is None else max_distance
    if k < 0:
        raise ValueError(f"max_distance must be 0 or more, not {k}")
    hits = []
    for i in _candidates(index, form, k):
        distance = osa_distance(form, index.forms[i], k)
        if distance <= k:
            hits.append(TypoHit(i, index.names[i], distance))
    hits.sort(key=lambda hit: (hit.distance, len(hit.name), hit.index))
    return hits if limit is None else hits[:max(limit, 0)]


def _candidates(index: TypoIndex, form: str, k: int) -> list[int]:
    """The names of a length within ``k`` of the query's that hold enough of its bigrams to be
    within ``k`` edits, ascending."""
    lengths = range(max(0, len(form) - k), len(form) + k + 1)
    if k == 0:
        return [i for i in index.by_length.get(len(form), ()) if index.forms[i] == form]
    grams = _bigrams(form)
    need = len(grams) - _GRAMS_PER_EDIT * k
    if need <= 0 or len(grams) > 255:  # no bound to use (or a byte could overflow): lengths only
        return sorted(i for n in lengths for i in index.by_length.get(n, ()))
    reached_table = bytes(1 if count >= need else 0 for count in range(256))
    found = []
    for n in lengths:
        ids = index.by_length.get(n)
        if not ids:
            continue
        counts = sum(_gram_bytes(index, n, gram) for gram in grams).to_bytes(len(ids), "little")
        reached = counts.translate(reached_table)
        j = reached.find(1)
        while j >= 0:
            found.append(ids[j])
            j = reached.find(1, j + 1)
    found.sort()
    return found


def _bigrams(form: str) -> set[str]:
    padded = f"{_START}{form}{_END}"
    return {padded[i:i + 2] for i in range(len(padded) - 1)}


def _gram_bytes(index: TypoIndex, length: int, gram: str) -> int:
    """Which names of ``length`` hold ``gram`` once padded, a byte each (1 or 0), as one integer."""
    key = (length, gram)
    found = index._grams.get(key)
    if found is None:
        forms = index.forms_by_length[length]
        if gram == _START + _END:
            holds = [not form for form in forms]
        elif gram[0] == _START:
            holds = [form.startswith(gram[1]) or gram in form for form in forms]
        elif gram[1] == _END:
            holds = [form.endswith(gram[0]) or gram in form for form in forms]
        else:
            holds = [gram in form for form in forms]
        found = int.from_bytes(bytes(holds), "little")
        index._grams[key] = found
    return found
