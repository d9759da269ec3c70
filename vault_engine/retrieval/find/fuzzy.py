"""Fuzzy matching: a port of fzf's FuzzyMatchV2 (junegunn/fzf, ``src/algo/algo.go``). Pure.

fzf aligns the pattern with the text in a Smith-Waterman-like dynamic programme where every
pattern character must match, in order (no omission, no mismatch), and keeps the alignment
with the highest score:

* a matched character scores ``SCORE_MATCH``; a gap costs ``SCORE_GAP_START`` for its first
  skipped character and ``SCORE_GAP_EXTENSION`` for each further one;
* a matched character earns the bonus of its position, given by the classes of the character
  before it and its own (``bonus_for``): a word start after white space, a delimiter
  (``/,:;|``) or other punctuation, a camelCase hump, a letter-to-digit step; the first
  pattern character's bonus counts ``BONUS_FIRST_CHAR_MULTIPLIER`` times;
* in a run of consecutive matches each character earns at least ``BONUS_CONSECUTIVE`` and at
  least the bonus of the run's first character, unless a stronger word start begins a new run.

Why a port rather than a scorer of our own: fzf's ranking is the one people expect from a
fuzzy finder, and its tests give exact scores and positions to hold the port to
(tests/retrieval/find/test_fuzzy.py carries them). What is left out, and why, is in
``fuzzy_match``'s docstring.

One alignment costs about 15 microseconds in Python; searching thousands of names goes
through fuzzy_index.py, which keeps the alignment for the names that can match at all.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from enum import IntEnum

SCORE_MATCH = 16
SCORE_GAP_START = -3
SCORE_GAP_EXTENSION = -1
# A word start is worth half a match, so an acronym match loses to a plain one once the gaps
# between its letters pass about 8 characters (fzf's choice, the length of an average word).
BONUS_BOUNDARY = SCORE_MATCH // 2
BONUS_NON_WORD = SCORE_MATCH // 2
# camelCase humps come without the one-character gap a separator costs, hence one point less.
BONUS_CAMEL123 = BONUS_BOUNDARY + SCORE_GAP_EXTENSION
# Consecutive matches would otherwise lose to scattered ones sitting on word starts.
BONUS_CONSECUTIVE = -(SCORE_GAP_START + SCORE_GAP_EXTENSION)
BONUS_FIRST_CHAR_MULTIPLIER = 2
BONUS_BOUNDARY_WHITE = BONUS_BOUNDARY + 2
BONUS_BOUNDARY_DELIMITER = BONUS_BOUNDARY + 1
DELIMITER_CHARS = "/,:;|"
_WHITE_ASCII = " \t\n\v\f\r"
CASE_MODES = ("ignore", "smart", "respect")


class CharClass(IntEnum):
    """fzf's character classes; the order matters (``bonus_for`` compares them)."""

    WHITE = 0
    NON_WORD = 1
    DELIMITER = 2
    LOWER = 3
    UPPER = 4
    LETTER = 5
    NUMBER = 6


_CLASSES = len(CharClass)


@dataclass(frozen=True, slots=True)
class Scheme:
    """fzf's ``--scheme``: the bonuses of word starts and what counts as a delimiter.
    Build one with ``make_scheme``, which precomputes the tables."""

    name: str
    boundary_white: int
    boundary_delimiter: int
    delimiters: str
    initial_class: CharClass  # the class of the character "before" the text
    ascii_table: bytes  # 256 entries: the class of each ASCII code (bytes.translate)
    matrix: bytes  # bonus_for(prev, cls) at prev * len(CharClass) + cls


@dataclass(frozen=True, slots=True)
class FuzzyMatch:
    """A match: fzf's score and the matched character positions in the text, ascending."""

    score: int
    positions: tuple[int, ...]


def bonus_for(prev: CharClass, cls: CharClass, boundary_white: int = BONUS_BOUNDARY_WHITE,
              boundary_delimiter: int = BONUS_BOUNDARY_DELIMITER) -> int:
    """The bonus of a character of class ``cls`` that follows one of class ``prev``."""
    if cls > CharClass.NON_WORD:  # a word character, or a delimiter
        if prev == CharClass.WHITE:
            return boundary_white
        if prev == CharClass.DELIMITER:
            return boundary_delimiter
        if prev == CharClass.NON_WORD:
            return BONUS_BOUNDARY
    if (prev == CharClass.LOWER and cls == CharClass.UPPER
            or prev != CharClass.NUMBER and cls == CharClass.NUMBER):
        return BONUS_CAMEL123
    if cls in (CharClass.NON_WORD, CharClass.DELIMITER):
        return BONUS_NON_WORD
    if cls == CharClass.WHITE:
        return boundary_white
    return 0


def make_scheme(name: str, boundary_white: int, boundary_delimiter: int, delimiters: str,
                initial_class: CharClass) -> Scheme:
    """A scheme with its class and bonus tables precomputed (fzf's ``Init``)."""
    table = bytearray([CharClass.NON_WORD] * 256)
    for code in range(128):
        char = chr(code)
        if "a" <= char <= "z":
            table[code] = CharClass.LOWER
        elif "A" <= char <= "Z":
            table[code] = CharClass.UPPER
        elif "0" <= char <= "9":
            table[code] = CharClass.NUMBER
        elif char in _WHITE_ASCII:
            table[code] = CharClass.WHITE
        elif char in delimiters:
            table[code] = CharClass.DELIMITER
    matrix = bytes(bonus_for(prev, cls, boundary_white, boundary_delimiter)
                   for prev in CharClass for cls in CharClass)
    return Scheme(name, boundary_white, boundary_delimiter, delimiters, initial_class,
                  bytes(table), matrix)


DEFAULT_SCHEME = make_scheme("default", BONUS_BOUNDARY_WHITE, BONUS_BOUNDARY_DELIMITER,
                             DELIMITER_CHARS, CharClass.WHITE)
# fzf's --scheme=path: only "/" delimits, and the text starts as if after one.
PATH_SCHEME = make_scheme("path", BONUS_BOUNDARY, BONUS_BOUNDARY_DELIMITER, "/", CharClass.DELIMITER)
HISTORY_SCHEME = make_scheme("history", BONUS_BOUNDARY, BONUS_BOUNDARY, DELIMITER_CHARS, CharClass.WHITE)


def char_class(char: str, scheme: Scheme = DEFAULT_SCHEME) -> CharClass:
    """fzf's class of one character; outside ASCII, by its Unicode category."""
    if char < "\x80":
        return CharClass(scheme.ascii_table[ord(char)])
    category = unicodedata.category(char)
    if category == "Ll":
        return CharClass.LOWER
    if category == "Lu":
        return CharClass.UPPER
    if category[0] == "N":
        return CharClass.NUMBER
    if category[0] == "L":
        return CharClass.LETTER
    if char.isspace():
        return CharClass.WHITE
    if char in scheme.delimiters:
        return CharClass.DELIMITER
    return CharClass.NON_WORD


# Letters with a stroke have no Unicode decomposition; fzf's table maps these to ASCII too.
_UNDECOMPOSABLE = {"ø": "o", "Ø": "O", "ł": "l", "đ": "d", "ħ": "h", "ß": "s", "ı": "i", "ſ": "s"}


def normalize_char(char: str) -> str:
    """A Latin letter with a diacritic as its ASCII letter (``é`` -> ``e``), else ``char``.
    fzf's range (U+00C0..U+FF61), with Unicode decomposition in place of fzf's table."""
    if char < "\u00c0" or char > "\uff61":
        return char
    base = unicodedata.normalize("NFD", char)[0]
    if base < "\x80" and base.isalpha():
        return base
    return _UNDECOMPOSABLE.get(char, char)


def is_case_sensitive(pattern: str, case: str = "ignore") -> bool:
    """``ignore``: never; ``respect``: always; ``smart``: when the pattern has an upper-case
    letter (fzf's ``--smart-case``)."""
    if case == "ignore":
        return False
    if case == "respect":
        return True
    if case == "smart":
        return _lower_each(pattern) != pattern
    raise ValueError(f"unknown case mode {case!r}: use one of {', '.join(CASE_MODES)}")


def _lower_each(text: str) -> str:
    # One character for one, so positions in the folded text are positions in the original.
    if text.isascii():
        return text.lower()
    return "".join(char.lower()[0] for char in text)  # "İ".lower() is two characters


def fold_pattern(pattern: str, case_sensitive: bool, normalize: bool = True) -> str:
    """The pattern as the matcher compares it: lower-cased unless case-sensitive, accents
    removed when normalizing."""
    if not case_sensitive:
        pattern = _lower_each(pattern)
    if normalize and not pattern.isascii():
        pattern = "".join(map(normalize_char, pattern))
    return pattern


def text_classes(text: str, scheme: Scheme = DEFAULT_SCHEME) -> bytes:
    """The class of every character of ``text``."""
    if text.isascii():
        return text.encode("ascii").translate(scheme.ascii_table)
    return bytes(char_class(char, scheme) for char in text)


def text_bonuses(classes: bytes, scheme: Scheme = DEFAULT_SCHEME) -> bytes:
    """The bonus of a match at every position, from each class and the one before it."""
    matrix = scheme.matrix
    previous = bytes([scheme.initial_class]) + classes[:-1]
    return bytes(matrix[prev * _CLASSES + cls] for prev, cls in zip(previous, classes))


def fold_text(text: str, classes: bytes, case_sensitive: bool, normalize: bool = True) -> str:
    """The text as the matcher compares it, one character for one. As in fzf, only
    upper-case letters are lowered and only non-ASCII characters normalized."""
    if text.isascii():
        return text if case_sensitive else text.lower()
    folded = []
    for char, cls in zip(text, classes):
        if not case_sensitive and cls == CharClass.UPPER:
            char = char.lower()[0]
        if normalize and char >= "\x80":
            char = normalize_char(char)
        folded.append(char)
    return "".join(folded)


def fuzzy_match(pattern: str, text: str, *, case: str = "ignore", normalize: bool = True,
                forward: bool = True, scheme: Scheme = DEFAULT_SCHEME) -> FuzzyMatch | None:
    """fzf's FuzzyMatchV2 score of ``pattern`` in ``text`` and the matched positions, or None
    when some pattern character cannot be matched in order. An empty pattern matches with 0.

    ``case`` is ``ignore`` (the default), ``smart`` or ``respect``; ``normalize`` matches
    ``e`` with ``é`` (fzf's default; ``--literal`` turns it off); ``forward=False`` breaks
    ties towards the end of the text, like fzf's backward tiebreak; ``scheme`` is fzf's
    ``--scheme`` (DEFAULT_SCHEME, PATH_SCHEME, HISTORY_SCHEME).

    Not ported: fzf's fallback to its greedy V1 algorithm when pattern length x text length
    outgrows a preallocated slab (names are short, and V1 scores differently); fzf's table of
    accented letters (Unicode decomposition stands in, see ``normalize_char``); the extended
    search syntax (``'exact ^prefix suffix$ !not a|b``), a layer above this matcher. Scores
    are Python ints, where fzf's int16 would overflow on texts of thousands of characters."""
    sensitive = is_case_sensitive(pattern, case)
    classes = text_classes(text, scheme)
    folded = fold_text(text, classes, sensitive, normalize)
    return align(fold_pattern(pattern, sensitive, normalize), folded, text_bonuses(classes, scheme), forward)


def align(pattern: str, text: str, bonuses: bytes, forward: bool = True,
          positions: bool = True) -> FuzzyMatch | None:
    """The best alignment of a folded pattern with a folded text whose per-position bonuses
    are ``bonuses`` (``text_bonuses``): the core of ``fuzzy_match``, for callers that prepare
    texts once. ``positions=False`` skips the backtrace (about a third of the cost) and
    returns no positions, for ranking many texts before placing the few shown."""
    if not pattern:
        return FuzzyMatch(0, ())
    if len(pattern) > len(text):
        return None
    first = _first_occurrences(pattern, text)
    if first is None:
        return None
    last = text.rfind(pattern[-1])  # the alignment can end no later (fzf's lastIdx)
    if len(pattern) == 1:
        return _align_one(pattern, text, bonuses, last, forward)
    scores, runs, best, end = _fill(pattern, text, bonuses, first, last, forward)
    if not positions:
        return FuzzyMatch(best, ())
    return FuzzyMatch(best, _backtrace(pattern, text, scores, runs, first, end))


def _first_occurrences(pattern: str, text: str) -> list[int] | None:
    """Where each pattern character first occurs after the previous one (fzf's F), or None:
    the greedy scan that decides whether there is a match at all."""
    first, index = [], -1
    find = text.find
    for char in pattern:
        index = find(char, index + 1)
        if index < 0:
            return None
        first.append(index)
    return first


def _align_one(pattern: str, text: str, bonuses: bytes, last: int, forward: bool) -> FuzzyMatch:
    """A one-character pattern: the occurrence with the best bonus. Going forward, fzf stops at
    the first word start and does not look for a stronger one later (after white space)."""
    best = best_at = 0
    index = text.find(pattern)
    while 0 <= index <= last:
        bonus = bonuses[index]
        score = SCORE_MATCH + bonus * BONUS_FIRST_CHAR_MULTIPLIER
        if score > best or not forward and score == best:
            best, best_at = score, index
            if forward and bonus >= BONUS_BOUNDARY:
                break
        index = text.find(pattern, index + 1)
    return FuzzyMatch(best, (best_at,))


def _fill(pattern: str, text: str, bonuses: bytes, first: list[int], last: int,
          forward: bool) -> tuple[list[list[int]], list[list[int]], int, int]:
    """fzf's score matrix H and run-length matrix C, one row per pattern character over the
    columns first[0]..last, with the best score of the last row and its column.

    Cells are fzf's, computed over a narrower region: row i from first[i] (all 0 before, as in
    fzf) to the last column from which the last row can still be reached (no later cell feeds
    a later row or the backtrace). Between two occurrences of the row's character a cell only
    decays through the gap, so those stretches are filled by ``_decay`` in one slice. The loop
    is written out (no helper per cell, no max()) because it is the hot path of every search."""
    f0, final = first[0], len(pattern) - 1
    width = last - f0 + 1
    find = text.find
    row, runs_row = [0] * width, [0] * width
    left, in_gap, filled = 0, False, f0 - 1
    j = f0
    while 0 <= j <= last - final:  # row 0: a match scores with its bonus doubled
        if j - filled > 1:
            _decay(row, filled + 1 - f0, j - filled - 1, left, in_gap)
        left, in_gap, filled = SCORE_MATCH + bonuses[j] * BONUS_FIRST_CHAR_MULTIPLIER, False, j
        row[j - f0] = left
        runs_row[j - f0] = 1
        j = find(pattern[0], j + 1)
    _decay(row, filled + 1 - f0, last - final - filled, left, in_gap)
    scores, runs = [row], [runs_row]
    best = best_at = 0
    for i in range(1, final + 1):
        above, above_runs = row, runs_row
        row, runs_row = [0] * width, [0] * width
        char, end = pattern[i], last - final + i
        left, in_gap, filled = 0, False, first[i] - 1  # the cell left of first[i] counts 0
        j = first[i]
        while 0 <= j <= end:
            if j - filled > 1:  # cells in between: only the gap runs on
                left, in_gap = _decay(row, filled + 1 - f0, j - filled - 1, left, in_gap)
            col = j - f0
            # Skip here: extend the gap from the left. Match here: extend the diagonal's run.
            gap = left + (SCORE_GAP_EXTENSION if in_gap else SCORE_GAP_START)
            matched = above[col - 1] + SCORE_MATCH
            bonus = bonuses[j]
            run = above_runs[col - 1] + 1
            if run > 1:
                run_bonus = bonuses[j - run + 1]  # the bonus where the run started
                if bonus >= BONUS_BOUNDARY and bonus > run_bonus:
                    run = 1  # a stronger word start begins a new run
                else:
                    if run_bonus > bonus:
                        bonus = run_bonus
                    if BONUS_CONSECUTIVE > bonus:
                        bonus = BONUS_CONSECUTIVE
            if matched + bonus < gap:
                matched += bonuses[j]
                run = 0
            else:
                matched += bonus
            in_gap = matched < gap
            left = matched if matched >= gap else gap  # matched > 0, so max(matched, gap, 0)
            row[col] = left
            runs_row[col] = run
            if i == final and (left > best or not forward and left == best):
                best, best_at = left, j
            filled = j
            j = find(char, j + 1)
        _decay(row, filled + 1 - f0, end - filled, left, in_gap)
        scores.append(row)
        runs.append(runs_row)
    return scores, runs, best, best_at


def _decay(row: list[int], start: int, count: int, left: int, in_gap: bool) -> tuple[int, bool]:
    """Fill ``count`` cells from ``start`` where the text does not match: each costs a gap
    start after a match, an extension inside a gap, and no score falls below 0 (where the gap
    state resets, as in fzf). Returns the last cell's score and gap state."""
    if count <= 0:
        return left, in_gap
    first = left + (SCORE_GAP_EXTENSION if in_gap else SCORE_GAP_START)
    if first <= 0:
        return 0, False  # the row already holds zeros
    positive = count if count < first else first
    row[start:start + positive] = range(first, first - positive, -1)
    last = first - count + 1
    return (last, True) if last > 0 else (0, False)


def _backtrace(pattern: str, text: str, scores: list[list[int]], runs: list[list[int]],
               first: list[int], end: int) -> tuple[int, ...]:
    """The matched positions, walking back from the best cell of the last row: a cell is taken
    when it beats the diagonal and the cell to its left; on a tie with the left, fzf takes it
    when the walk comes from a run (``prefer_match``).

    A cell whose text character is not the row's pattern character can never be taken (its
    score is at most its left neighbour's, and 0 on a tie), so the walk jumps between
    occurrences; of the skipped cells only the leftmost one's run information matters."""
    f0, rows = first[0], len(scores)
    i, j = rows - 1, end
    prefer_match = True
    positions = []
    while True:
        col = j - f0
        row = scores[i]
        here = row[col]
        diagonal = scores[i - 1][col - 1] if i > 0 and j >= first[i] else 0
        left = row[col - 1] if j > first[i] else 0
        visited_row = i
        if here > diagonal and (here > left or here == left and prefer_match):
            positions.append(j)
            if i == 0:
                break
            i -= 1
        prefer_match = (runs[visited_row][col] > 1
                        or visited_row + 1 < rows and runs[visited_row + 1][col + 1] > 0)
        # Found at first[i] at the latest: the walk always takes row i's cell there.
        previous = text.rfind(pattern[i], first[i], j)
        if previous < j - 1:  # cells previous+1 .. j-1 are skipped: the leftmost one decides
            prefer_match = i + 1 < rows and runs[i + 1][previous + 2 - f0] > 0
        j = previous
    positions.reverse()
    return tuple(positions)
