"""Tier 3 of ``find``: what a mistyped symbol or path probably meant. Pure.

Two signals, each measured against the part of a name a typo lives in:
- optimal string alignment distance (retrieval/typos.py: a transposition is one edit) between the
  query and a qualified name, a bare name, or a file's basename (its folders must then match
  the query's folders whole: ``middleware/persits.ts`` never suggests ``react/persist.ts``);
- fzf's FuzzyMatchV2 score (fuzzy.py) for a query that drops characters (``createjsonstorag``),
  accepted only when its score per query character shows a tight match, not a scatter.

Whatever they find is a suggestion for the agent to confirm, never a hit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import cached_property

PATH_LIKE = re.compile(r"[/\\]|\.(?:py|pyi|ts|tsx|js|jsx|mjs|cjs|go|rs|java)$", re.IGNORECASE)
SYMBOL_LIKE = re.compile(r"^[\w$#.:/\\@~-]+$")  # ~: a repeat, `getchar~2`
MAX_FUZZY_CANDIDATES = 3000  # past this many subsequence matches the pattern says too little


@dataclass(frozen=True, slots=True)
class SuggestRule:
    """How close is close enough (chosen leaving one corpus out: bench/find_lab.py)."""

    max_edits_short: int = 1  # queries of up to ``long_from - 1`` characters
    max_edits_long: int = 2
    long_from: int = 9
    min_fuzzy_per_char: float = 22.0  # fzf points per query character (a match alone is 16)
    min_length: int = 4  # shorter queries are too close to too many names

    def max_edits(self, length: int) -> int:
        return self.max_edits_long if length >= self.long_from else self.max_edits_short


DEFAULT_RULE = SuggestRule()


@dataclass(frozen=True, slots=True)
class Suggestion:
    target: str  # a code ref (path#Qualified.name) or a file path
    distance: int | None  # edits, when the typo signal found it
    fuzzy: int | None  # fzf's score, when the fuzzy signal found it
    rank: tuple


def looks_like_code(query: str) -> bool:
    """One token of name or path characters: the junction sends it to the fuzzy tier."""
    return bool(SYMBOL_LIKE.match(query.strip()))



_EXTENSIONS = ("py", "pyi", "ts", "tsx", "js", "jsx", "mjs", "cjs", "go", "rs", "java")


def _slipped_extension(query: str) -> bool:
    """``core.pyy``: a name whose last part is a slip of a source file's extension, not a
    member (``types.Pth`` is the class ``types.Path`` mistyped, qa138)."""
    from vault_engine.retrieval.typos import osa_distance

    stem, dot, ext = query.rpartition(".")
    return bool(dot and stem) and ext.islower() and any(osa_distance(ext, known, 1) <= 1 for known in _EXTENSIONS)

class Suggester:
    """The names and paths of one index generation, indexed on first use."""

    def __init__(self, symbols: list[tuple[str, str, bool]], paths: list[tuple[str, bool]]):
        self.symbols = symbols  # (ref, qualname, is_test), in a stable order
        self.paths = paths  # (path, is_test)

    # The indexes are built on first use, their modules imported then: a query answered by
    # an exact tier never pays for them.
    @cached_property
    def _qualnames(self):
        from vault_engine.retrieval.typos import build_typo_index

        return build_typo_index(q for _, q, _ in self.symbols)

    @cached_property
    def _names(self):
        from vault_engine.retrieval.typos import build_typo_index

        return build_typo_index(q.rsplit(".", 1)[-1] for _, q, _ in self.symbols)

    @cached_property
    def _basenames(self):
        from vault_engine.retrieval.typos import build_typo_index

        return build_typo_index(p.rsplit("/", 1)[-1] for p, _ in self.paths)

    @cached_property
    def _fuzzy(self):
        from vault_engine.retrieval.find.fuzzy_index import build_fuzzy_index

        return build_fuzzy_index(q for _, q, _ in self.symbols)

    def suggest(self, query: str, rule: SuggestRule = DEFAULT_RULE) -> list[Suggestion]:
        """Suggestions for ``query``, best first (empty: nothing close enough)."""
        query = query.strip()
        if len(query) < rule.min_length:
            return []
        if "#" in query:
            path, _, name = query.replace("\\", "/").partition("#")
            return self._in_a_file(path, name, rule)
        if PATH_LIKE.search(query):
            paths = self._paths(query.replace("\\", "/"), rule)
            # no folder, and no file near: a member named like an extension, `Stor.go` (qa141)
            return paths if paths or "/" in query or "\\" in query else self._symbols(query, rule)
        symbols = self._symbols(query.replace(":", ".").replace("#", "."), rule)
        # a file's name with a slip in its extension: `click/core.pyy` was a junction, `core.pyy` a miss (qa135)
        return symbols if symbols or not _slipped_extension(query) else self._paths(query, rule)

    def _in_a_file(self, path: str, name: str, rule: SuggestRule) -> list[Suggestion]:
        """A ref with a slip in its file or its symbol: the symbol named (or the nearest) in the
        file the path names by its end, else in the nearest files (`find shapes.py#Widget.rendr`
        had found nothing close, and `callers shapes.pyy#Widget.render` suggested nothing, qa139)."""
        path = path.strip("/")
        named = {p for p, _ in self.paths if p.rpartition(":")[2] == path or p.endswith("/" + path)}
        near = {s.target: s.distance or 0 for s in self._paths(path, rule)} if path and not named else {}
        files = dict.fromkeys(named, 0) | near  # file -> the edits its path is away
        in_them = [Suggestion(ref, files[ref.partition("#")[0]], None,
                              (files[ref.partition("#")[0]], is_test, len(ref), ref))
                   for ref, qualname, is_test in self.symbols if qualname == name and ref.partition("#")[0] in files]
        if in_them:
            return sorted(in_them, key=lambda s: s.rank)
        # a slip in each part is two edits away, not one (qa141)
        return sorted((replace(s, distance=(s.distance or 0) + files[s.target.partition("#")[0]])
                       for s in self._symbols(name, rule) if s.target.partition("#")[0] in files),
                      key=lambda s: ((s.distance or 0), s.rank))

    def _paths(self, query: str, rule: SuggestRule) -> list[Suggestion]:
        folders, _, base = query.strip("/").rpartition("/")
        wanted = [f for f in folders.split("/") if f and f != "."]
        found = {}
        from vault_engine.retrieval.typos import typo_search

        for hit in typo_search(self._basenames, base, rule.max_edits(len(base))):
            path, is_test = self.paths[hit.index]
            # its folders with its tap's prefix or as the tap's own, `src/click/` of
            # `click:src/click/core.py` (qa138)
            held = (path.split("/")[:-1], path.rpartition(":")[2].split("/")[:-1])
            if wanted and all(have[-len(wanted):] != wanted for have in held):
                continue
            found[path] = Suggestion(path, hit.distance, None, (hit.distance, is_test, len(path), path))
        return sorted(found.values(), key=lambda s: s.rank)

    def _symbols(self, query: str, rule: SuggestRule) -> list[Suggestion]:
        from vault_engine.retrieval.typos import osa_distance, typo_search

        found: dict[str, Suggestion] = {}
        limit = rule.max_edits(len(query))
        qualified = "." in query
        index = self._qualnames if qualified else self._names
        for hit in typo_search(index, query, limit):
            ref, qualname, is_test = self.symbols[hit.index]
            nested = qualname.count(".") if not qualified else 0
            # of names as near but for case, the one written as the query is: `createStor` meant the
            # function `createStore`, not the type `CreateStore` (qa95)
            as_written = osa_distance(query, qualname if qualified else qualname.rsplit(".", 1)[-1])
            found.setdefault(ref, Suggestion(ref, hit.distance, None,
                                             (hit.distance, is_test, as_written, nested, len(ref), ref)))
        if not found:
            for ref, score, is_test in self._fuzzy_hits(query, rule):  # of equal scores, a test's after (qa197)
                found[ref] = Suggestion(ref, None, score, (limit + 1, -score, is_test, len(ref), ref))
        return sorted(found.values(), key=lambda s: s.rank)

    def _fuzzy_hits(self, query: str, rule: SuggestRule) -> list[tuple[str, int, bool]]:
        from vault_engine.retrieval.find.fuzzy import fold_pattern
        from vault_engine.retrieval.find.fuzzy_index import candidates, fuzzy_search

        index = self._fuzzy
        # A broad pattern matches thousands of names and says little: decline it before scoring.
        if len(candidates(index, fold_pattern(query, query != query.lower()))) > MAX_FUZZY_CANDIDATES:
            return []
        hits = fuzzy_search(index, query, case="smart", limit=5)
        floor = rule.min_fuzzy_per_char * len(query)
        return [(self.symbols[h.index][0], h.score, self.symbols[h.index][2]) for h in hits if h.score >= floor]
