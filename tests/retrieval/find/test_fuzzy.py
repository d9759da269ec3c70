"""fzf's FuzzyMatchV2, ported (vault_engine/retrieval/find/fuzzy.py).

The cases of ``TestFuzzyMatch``, ``TestNormalize``, ``TestLongString`` and the V2 cases of
``TestEmptyPattern`` in fzf's src/algo/algo_test.go, and ``TestFuzzyMatchV2Backward`` /
``TestFuzzyMatchV2WithPos`` in src/algo/algo_extra_test.go, are carried over with their
expected scores written as fzf writes them (sums of the scoring constants); fzf checks the
first and last matched positions, so do these.
"""

import random

import pytest

from vault_engine.retrieval.find.fuzzy import (
    BONUS_BOUNDARY,
    BONUS_BOUNDARY_DELIMITER,
    BONUS_BOUNDARY_WHITE,
    BONUS_CAMEL123,
    BONUS_CONSECUTIVE,
    BONUS_FIRST_CHAR_MULTIPLIER,
    BONUS_NON_WORD,
    DEFAULT_SCHEME,
    HISTORY_SCHEME,
    PATH_SCHEME,
    SCORE_GAP_EXTENSION,
    SCORE_GAP_START,
    SCORE_MATCH,
    CharClass,
    FuzzyMatch,
    bonus_for,
    char_class,
    fuzzy_match,
    is_case_sensitive,
    normalize_char,
    text_bonuses,
    text_classes,
)

M, GS, GE = SCORE_MATCH, SCORE_GAP_START, SCORE_GAP_EXTENSION
BB, BW, BD = BONUS_BOUNDARY, BONUS_BOUNDARY_WHITE, BONUS_BOUNDARY_DELIMITER
CAMEL, CONSEC, FIRST, NONWORD = BONUS_CAMEL123, BONUS_CONSECUTIVE, BONUS_FIRST_CHAR_MULTIPLIER, BONUS_NON_WORD

# (case sensitive, text, pattern, start, end, score): TestFuzzyMatch, run forward and backward.
FZF_CASES = [
    (False, "fooBarbaz1", "oBZ", 2, 9, M * 3 + CAMEL + GS + GE * 3),
    (False, "foo bar baz", "fbb", 0, 9, M * 3 + BW * FIRST + BW * 2 + 2 * GS + 4 * GE),
    (False, "/AutomatorDocument.icns", "rdoc", 9, 13, M * 4 + CAMEL + CONSEC * 2),
    (False, "/man1/zshcompctl.1", "zshc", 6, 10, M * 4 + BD * FIRST + BD * 3),
    (False, "/.oh-my-zsh/cache", "zshc", 8, 13, M * 4 + BB * FIRST + BB * 2 + GS + BD),
    (False, "ab0123 456", "12356", 3, 10, M * 5 + CONSEC * 3 + GS + GE),
    (False, "abc123 456", "12356", 3, 10, M * 5 + CAMEL * FIRST + CAMEL * 2 + CONSEC + GS + GE),
    (False, "foo/bar/baz", "fbb", 0, 9, M * 3 + BW * FIRST + BD * 2 + 2 * GS + 4 * GE),
    (False, "fooBarBaz", "fbb", 0, 7, M * 3 + BW * FIRST + CAMEL * 2 + 2 * GS + 2 * GE),
    (False, "foo barbaz", "fbb", 0, 8, M * 3 + BW * FIRST + BW + GS * 2 + GE * 3),
    (False, "fooBar Baz", "foob", 0, 4, M * 4 + BW * FIRST + BW * 3),
    (False, "xFoo-Bar Baz", "foo-b", 1, 6, M * 5 + CAMEL * FIRST + CAMEL * 2 + NONWORD + BB),
    (True, "fooBarbaz", "oBz", 2, 9, M * 3 + CAMEL + GS + GE * 3),
    (True, "Foo/Bar/Baz", "FBB", 0, 9, M * 3 + BW * FIRST + BD * 2 + GS * 2 + GE * 4),
    (True, "FooBarBaz", "FBB", 0, 7, M * 3 + BW * FIRST + CAMEL * 2 + GS * 2 + GE * 2),
    (True, "FooBar Baz", "FooB", 0, 4, M * 4 + BW * FIRST + BW * 2 + max(CAMEL, BW)),
    # "Consecutive bonus updated"
    (True, "foo-bar", "o-ba", 2, 6, M * 4 + BB * 3),
]

FZF_NON_MATCHES = [
    (True, "fooBarbaz", "oBZ"),
    (True, "Foo Bar Baz", "fbb"),
    (True, "fooBarbaz", "fooBarbazz"),
]


def span(found: FuzzyMatch) -> tuple[int, int]:
    return found.positions[0], found.positions[-1] + 1


@pytest.mark.parametrize("forward", [True, False])
@pytest.mark.parametrize("sensitive,text,pattern,start,end,score", FZF_CASES)
def test_fzf_fuzzy_match_v2_cases(sensitive, text, pattern, start, end, score, forward):
    found = fuzzy_match(pattern, text, case="respect" if sensitive else "ignore", forward=forward)
    assert found is not None
    assert (span(found), found.score) == ((start, end), score)
    assert len(found.positions) == len(pattern)


@pytest.mark.parametrize("forward", [True, False])
@pytest.mark.parametrize("sensitive,text,pattern", FZF_NON_MATCHES)
def test_fzf_non_matches(sensitive, text, pattern, forward):
    assert fuzzy_match(pattern, text, case="respect" if sensitive else "ignore", forward=forward) is None


def test_the_headline_scores_as_plain_numbers():
    """The constants themselves, checked through four of fzf's cases."""
    assert fuzzy_match("oBZ", "fooBarbaz1").score == 49
    assert fuzzy_match("fbb", "foo bar baz").score == 78
    assert fuzzy_match("rdoc", "/AutomatorDocument.icns").score == 79
    assert fuzzy_match("zshc", "/man1/zshcompctl.1").score == 109


def test_scoring_constants_are_fzfs():
    assert (SCORE_MATCH, SCORE_GAP_START, SCORE_GAP_EXTENSION) == (16, -3, -1)
    assert (BONUS_BOUNDARY, BONUS_NON_WORD, BONUS_CAMEL123, BONUS_CONSECUTIVE) == (8, 8, 7, 4)
    assert (BONUS_FIRST_CHAR_MULTIPLIER, BONUS_BOUNDARY_WHITE, BONUS_BOUNDARY_DELIMITER) == (2, 10, 9)
    assert DEFAULT_SCHEME.delimiters == "/,:;|"


def test_full_positions_of_fzf_cases():
    """fzf's tests pin the span; the positions inside it follow from the scores."""
    assert fuzzy_match("oBZ", "fooBarbaz1").positions == (2, 3, 8)
    assert fuzzy_match("fbb", "foo bar baz").positions == (0, 4, 8)
    assert fuzzy_match("rdoc", "/AutomatorDocument.icns").positions == (9, 10, 11, 12)
    assert fuzzy_match("zshc", "/.oh-my-zsh/cache").positions == (8, 9, 10, 12)
    assert fuzzy_match("12356", "ab0123 456").positions == (3, 4, 5, 8, 9)
    assert fuzzy_match("hw", "hello world").positions == (0, 6)  # algo_extra_test.go


def test_backward_breaks_ties_towards_the_end():
    """TestFuzzyMatchV2Backward: both "fb" score alike; backward picks the later one."""
    text = "foobar fb"
    backward = fuzzy_match("fb", text, forward=False)
    assert (span(backward), backward.score) == ((7, 9), M * 2 + BW * FIRST + BW)
    forward = fuzzy_match("fb", text)
    assert forward.score == backward.score and span(forward) == (7, 9)  # the later one is better
    one_forward, one_backward = fuzzy_match("f", "f_f"), fuzzy_match("f", "f_f", forward=False)
    assert one_forward.positions == (0,) and one_backward.positions == (0,)  # 0 has the white bonus
    assert fuzzy_match("o", "xo_o", forward=True).positions == (3,)  # word start beats a plain o
    assert fuzzy_match("a", "xa_a_a", forward=True).positions == (3,)  # stops at the first start
    assert fuzzy_match("a", "xa_a_a", forward=False).positions == (5,)


def test_empty_pattern_matches_with_zero_and_no_positions():
    assert fuzzy_match("", "foobar") == FuzzyMatch(0, ())
    assert fuzzy_match("", "") == FuzzyMatch(0, ())


def test_pattern_longer_than_text_or_absent_text_does_not_match():
    assert fuzzy_match("abc", "ab") is None
    assert fuzzy_match("a", "") is None
    assert fuzzy_match("xyz", "hello world") is None


@pytest.mark.parametrize("text,pattern,start,end,score", [
    ("Só Danço Samba", "So", 0, 2, 62),
    ("Só Danço Samba", "sodc", 0, 7, 97),
    ("Danço", "danco", 0, 5, 140),
])
def test_fzf_normalize_cases(text, pattern, start, end, score):
    found = fuzzy_match(pattern, text)
    assert (span(found), found.score) == ((start, end), score)


def test_normalization_can_be_turned_off_like_literal():
    assert fuzzy_match("danco", "Danço", normalize=False) is None
    assert fuzzy_match("danço", "Danço", normalize=False).score == 140
    assert fuzzy_match("é", "cafe").score == fuzzy_match("e", "cafe").score  # the pattern too


def test_long_string():
    """TestLongString: indices past 65,535 (fzf's int16/int32 boundary) stay right."""
    text = ["x"] * (65535 * 2)
    text[65535] = "z"
    found = fuzzy_match("zx", "".join(text), case="respect")
    assert (span(found), found.score) == ((65535, 65537), M * 2 + CONSEC)


def test_tie_between_alignments_prefers_the_one_continuing_a_run():
    """"hello world" / "elo wo": l at 2 or 3 both score 127; fzf's backtrace takes the l that
    continues "el" (checked by hand against the recurrence)."""
    found = fuzzy_match("elo wo", "hello world")
    assert found == FuzzyMatch(127, (1, 2, 4, 5, 6, 7))


def test_case_modes():
    assert fuzzy_match("FB", "foo bar") is not None  # ignore by default
    assert fuzzy_match("FB", "foo bar", case="smart") is None
    assert fuzzy_match("fb", "Foo Bar", case="smart") is not None
    assert fuzzy_match("fb", "Foo Bar", case="respect") is None
    assert (is_case_sensitive("abc", "smart"), is_case_sensitive("aBc", "smart")) == (False, True)
    with pytest.raises(ValueError, match="unknown case mode"):
        is_case_sensitive("x", "sometimes")


def test_non_ascii_upper_case_is_lowered_and_classed_by_unicode():
    assert char_class("É") == CharClass.UPPER and char_class("é") == CharClass.LOWER
    assert char_class("٣") == CharClass.NUMBER and char_class("中") == CharClass.LETTER
    assert char_class("\u00a0") == CharClass.WHITE and char_class("—") == CharClass.NON_WORD
    found = fuzzy_match("éb", "aÉtéB")  # É lowered to é, B to b
    assert found.positions == (1, 4)
    assert fuzzy_match("ib", "İb").positions == (0, 1)  # İ lowers to two characters: keeps one


def test_char_classes_and_bonus_matrix():
    assert [char_class(c) for c in " _/aA1"] == [CharClass.WHITE, CharClass.NON_WORD, CharClass.DELIMITER,
                                                  CharClass.LOWER, CharClass.UPPER, CharClass.NUMBER]
    assert [char_class(c) for c in ",:;|"] == [CharClass.DELIMITER] * 4
    assert bonus_for(CharClass.WHITE, CharClass.LOWER) == BW
    assert bonus_for(CharClass.DELIMITER, CharClass.UPPER) == BD
    assert bonus_for(CharClass.NON_WORD, CharClass.NUMBER) == BB
    assert bonus_for(CharClass.WHITE, CharClass.DELIMITER) == BW  # a delimiter counts as > non-word
    assert bonus_for(CharClass.LOWER, CharClass.UPPER) == CAMEL
    assert bonus_for(CharClass.LETTER, CharClass.NUMBER) == CAMEL
    assert bonus_for(CharClass.NUMBER, CharClass.NUMBER) == 0
    assert bonus_for(CharClass.LOWER, CharClass.NON_WORD) == NONWORD
    assert bonus_for(CharClass.LOWER, CharClass.DELIMITER) == NONWORD
    assert bonus_for(CharClass.LOWER, CharClass.WHITE) == BW
    assert bonus_for(CharClass.UPPER, CharClass.LOWER) == 0
    assert list(text_bonuses(text_classes("a/bC d"))) == [BW, NONWORD, BD, CAMEL, BW, BW]


def test_schemes():
    """--scheme=path: only "/" delimits and a path starts as after one; history: flat."""
    assert char_class(",", PATH_SCHEME) == CharClass.NON_WORD and char_class("/", PATH_SCHEME) == CharClass.DELIMITER
    assert list(text_bonuses(text_classes("a b/c"), PATH_SCHEME)) == [BD, BB, BB, NONWORD, BD]
    assert list(text_bonuses(text_classes("a b/c"), HISTORY_SCHEME)) == [BB] * 5
    assert fuzzy_match("src", "src/daemon.ts", scheme=PATH_SCHEME).score == M * 3 + BD * FIRST + BD * 2


def test_normalize_char():
    assert [normalize_char(c) for c in "éÉçñøßaZ"] == list("eEcnosaZ")
    assert normalize_char("中") == "中" and normalize_char("€") == "€"


def brute_force_best(pattern: str, text: str) -> int:
    """Every in-order alignment scored with fzf's rules (its calculateScore), maximised."""
    classes = text_classes(text)
    bonuses = text_bonuses(classes)
    lowered = text.lower()
    best = None

    def score(positions):
        total, run_bonus = 0, 0
        for k, pos in enumerate(positions):
            bonus = bonuses[pos]
            if k and pos == positions[k - 1] + 1:
                if bonus >= BB and bonus > run_bonus:
                    run_bonus = bonus
                bonus = max(bonus, run_bonus, CONSEC)
            else:
                run_bonus = bonus
            total += M + bonus * (FIRST if k == 0 else 1)
            if k:
                gap = pos - positions[k - 1] - 1
                total += (GS + GE * (gap - 1)) if gap else 0
        return total

    def walk(k, start, chosen):
        nonlocal best
        if k == len(pattern):
            value = score(chosen)
            best = value if best is None else max(best, value)
            return
        for pos in range(start, len(text)):
            if lowered[pos] == pattern[k]:
                walk(k + 1, pos + 1, chosen + [pos])

    walk(0, 0, [])
    return best


def test_scores_never_exceed_the_best_alignment_and_usually_reach_it():
    """fzf's dynamic programme is a heuristic: a one-character pattern stops at the first word
    start going forward, and row 0 restarts at every occurrence of the first pattern character
    (" aBaB Bb/" / "a " scores 39, not 57). On short texts (no gap long enough to clamp a
    score at 0) it never scores above the best alignment by fzf's own rules, and mostly
    reaches it: a check that the port computes real alignments' scores."""
    rng = random.Random(7)
    reached = total = 0
    for _ in range(1500):
        text = "".join(rng.choice("ab_/ B1") for _ in range(rng.randint(1, 10)))
        pattern = "".join(rng.choice("ab/ 1") for _ in range(rng.randint(1, 3)))
        found = fuzzy_match(pattern, text)
        best = brute_force_best(pattern, text)
        assert (found is None) == (best is None)
        if found is None:
            continue
        total += 1
        assert found.score <= best
        assert len(found.positions) == len(pattern) and list(found.positions) == sorted(set(found.positions))
        assert all(text.lower()[p] == c for p, c in zip(found.positions, pattern))
        reached += found.score == best
    assert total > 400 and reached / total > 0.9
    assert fuzzy_match("a ", " aBaB Bb/") == FuzzyMatch(39, (1, 5))  # fzf's own answer, by hand


def literal_v2(pattern: str, text: str, forward: bool = True):
    """fzf's FuzzyMatchV2 transcribed phase by phase over flat arrays, on the whole text (no
    ASCII window, no band, no jumps): the reference the optimised port must equal."""
    bonuses = text_bonuses(text_classes(text))
    T, m = text.lower(), len(pattern)
    if m == 0:
        return 0, ()
    n = len(T)
    if m > n:
        return None
    H0, C0, F = [0] * n, [0] * n, [0] * m
    best = best_at = pidx = last = prev_h0 = 0
    pchar, in_gap = pattern[0], False
    for off in range(n):
        char, bonus = T[off], bonuses[off]
        if char == pchar:
            if pidx < m:
                F[pidx] = off
                pidx += 1
                pchar = pattern[min(pidx, m - 1)]
            last = off
        if char == pattern[0]:
            score = M + bonus * FIRST
            H0[off], C0[off] = score, 1
            if m == 1 and (forward and score > best or not forward and score >= best):
                best, best_at = score, off
                if forward and bonus >= BB:
                    break
            in_gap = False
        else:
            H0[off] = max(prev_h0 + (GE if in_gap else GS), 0)
            C0[off], in_gap = 0, True
        prev_h0 = H0[off]
    if pidx != m:
        return None
    if m == 1:
        return best, (best_at,)
    f0, width = F[0], last - F[0] + 1
    H, C = [0] * (width * m), [0] * (width * m)
    H[:width], C[:width] = H0[f0:last + 1], C0[f0:last + 1]
    for i in range(1, m):
        f, row, in_gap = F[i], i * width, False
        H[row + f - f0 - 1] = 0
        for col in range(f, last + 1):
            off = col - f0
            s2 = H[row + off - 1] + (GE if in_gap else GS)
            s1 = consecutive = 0
            if pattern[i] == T[col]:
                s1 = H[row - width + off - 1] + M
                b = bonuses[col]
                consecutive = C[row - width + off - 1] + 1
                if consecutive > 1:
                    fb = bonuses[col - consecutive + 1]
                    if b >= BB and b > fb:
                        consecutive = 1
                    else:
                        b = max(b, CONSEC, fb)
                if s1 + b < s2:
                    s1 += bonuses[col]
                    consecutive = 0
                else:
                    s1 += b
            C[row + off] = consecutive
            in_gap = s1 < s2
            score = max(s1, s2, 0)
            if i == m - 1 and (forward and score > best or not forward and score >= best):
                best, best_at = score, col
            H[row + off] = score
    positions, i, j, prefer = [], m - 1, best_at, True
    while True:
        I, j0 = i * width, j - f0  # noqa: E741 - fzf's own names, kept to compare line by line
        s = H[I + j0]
        s1 = H[I - width + j0 - 1] if i > 0 and j >= F[i] else 0
        s2 = H[I + j0 - 1] if j > F[i] else 0
        if s > s1 and (s > s2 or s == s2 and prefer):
            positions.append(j)
            if i == 0:
                break
            i -= 1
        prefer = C[I + j0] > 1 or I + width + j0 + 1 < len(C) and C[I + width + j0 + 1] > 0
        j -= 1
    return best, tuple(sorted(positions))


@pytest.mark.parametrize("seed", range(4))
def test_the_port_equals_fzfs_recurrence_transcribed_literally(seed):
    """Window, band, jumps between occurrences and slice-filled gaps change no score and no
    position, forward or backward, on texts with every character class and long gaps."""
    rng = random.Random(seed)
    alphabet = "aab_/ B1.-x"
    matched = 0
    for _ in range(600):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 40)))
        if rng.random() < 0.2:
            text = text[:5] + "x" * rng.randint(10, 40) + text[5:]  # gaps long enough to clamp at 0
        pattern = "".join(rng.choice("ab_/ 1x.") for _ in range(rng.randint(1, 6)))
        for forward in (True, False):
            found = fuzzy_match(pattern, text, forward=forward)
            actual = None if found is None else (found.score, found.positions)
            assert actual == literal_v2(pattern, text, forward), (pattern, text, forward)
            matched += found is not None
    assert matched > 300
