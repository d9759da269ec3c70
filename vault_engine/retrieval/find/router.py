"""``find``: where is it? Four tiers, first answer wins (frogmouth's omnibox cascade).

1. symbol: every definition the query names exactly (bare, qualified, module:name, ref);
2. path: an indexed file by its full path or whole trailing components (fail-closed);
then the discovery junction, decided by the query's shape:
3. fuzzy (one token of name or path characters): a close symbol or path as a ``junction``
   with a ``suggestion`` to confirm, never a hit;
4. memory (a question in words; a token only with ``--tier memory`` or ``--facet``): memory
   notes by BM25 words and facet.
Nothing clean anywhere is a ``miss`` with its reason. The same index and query always give
the same answer: every step is deterministic and every ranking has a total order.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from vault_engine.code_model import FindHit, FindResult
from vault_engine.constants import FIND_TIERS
from vault_engine.errors import BadArgument
from vault_engine.retrieval.code.lookup import definitions, module_matches, split_ref
from vault_engine.retrieval.find.facets import DEFAULT_MIN_COVERAGE, DEFAULT_RANKING, FACETS

# suggest.py is light: the fuzzy and typo indexes it builds are imported on first use
from vault_engine.retrieval.find.suggest import (
    DEFAULT_RULE,
    PATH_LIKE,
    SuggestRule,
    looks_like_code,
)

if TYPE_CHECKING:  # memory.py (BM25 over Whoosh) is imported when the memory tier runs
    from vault_engine.stores.ledger import Ledger
    from vault_engine.stores.lexical import WhooshIndex


TIERS = FIND_TIERS
MODULE_NAME = re.compile(r"[A-Za-z_$][\w$-]*(?:\.[A-Za-z_$][\w$-]*)*")  # `core`, `click.core`, `test-utils`: no path


def find(query: str, *, code, ledger: Ledger, lexical: WhooshIndex | Callable[[], WhooshIndex], k: int = 10,
         tier: str | None = None, facet: str | None = None, rule: SuggestRule = DEFAULT_RULE,
         min_coverage: float = DEFAULT_MIN_COVERAGE, rank_by: str = DEFAULT_RANKING) -> FindResult:
    """The answer of the first tier that has one (or of ``tier`` alone). ``code`` is the
    index's CodeQueries, None when no code is indexed (then only memory can answer);
    ``lexical`` the Whoosh index, or a function that opens it (only the memory tier does).
    ``rule``, ``min_coverage`` and ``rank_by``: the thresholds, for bench/find_lab.py."""
    query = query.strip()
    if tier is not None and tier not in TIERS:
        raise BadArgument(f"no tier {tier!r}: use one of {', '.join(TIERS)}")
    if facet is not None and facet not in FACETS:
        raise BadArgument(f"no facet {facet!r}: use one of {', '.join(FACETS)}")
    if not query:
        raise BadArgument("find needs a symbol, a path or a question")
    code_query = query[:-2] if query.endswith("()") else query  # "echo()" names echo
    token = looks_like_code(code_query)
    wanted = (tier,) if tier else TIERS
    tried = []
    if code is not None and token and facet is None:
        for name, step in (("symbol", _symbol), ("path", _path), ("fuzzy", _fuzzy)):
            if name in wanted:
                tried.append(name)
                found = step(code, code_query, k, rule)
                if found is not None and name == "fuzzy" and "symbol" in tried:  # only what was looked up
                    # a suggestion is a miss too: the notes still naming a renamed symbol say so (qa69)
                    found = replace(found, reason=f"nothing is named {query!r}; {found.reason}",
                                    notices=found.notices + _named_in_notes(code, code_query))
                if found is not None:
                    return found
    # The junction goes by the query's shape: a token that resembles a symbol or path is not a
    # question for the memory notes (unless asked for with --tier memory or --facet), and not
    # opening Whoosh for it keeps a cold miss fast.
    if "memory" in wanted and (not token or code is None or tier == "memory" or facet is not None):
        tried.append("memory")
        found = _memory(query, ledger, lexical, k, facet, min_coverage, rank_by)
        named = _named_symbols(code, query, k) if code is not None and not token and facet is None else None
        if found is not None and code is not None and max((h.coverage or 0.0) for h in found.hits) < 1:
            # "where is zsh completion implemented" found a note sharing "implemented": the
            # memory tier reads memory notes only, and the code answers by meaning (qa35 A4)
            found = replace(found, notices=found.notices + (
                (_where_named(*named),) if named is not None else
                (f"memory notes only, none holding every word of the question; the code itself: "
                 f"`vault-engine search {shlex.quote(query)} --kind code`",)))
        if found is None and named is not None and tier is None:  # the names it holds are no guess
            return replace(named[1], reason=f"no memory note answers the question; {named[1].reason}")
        if found is not None and named is not None and tier is None and not _naming(code, named, found):
            # "what calls measure_table" had been two notes sharing "call" (qa135): notes that never
            # name what the question asks about do not answer it, its definitions do
            name, symbols = named
            return replace(symbols, reason=f"no memory note names {name!r} (notes sharing its other words: "
                                           f"`vault-engine find {shlex.quote(query)} --tier memory`); {symbols.reason}",
                           notices=(_follow_calls(name),))
        if found is not None:
            return found
    return FindResult(query, "miss", None, reason=_miss_reason(query, tried, code, token, facet, tier),
                      notices=_stale_notice(code) + _named_in_notes(code, query) if "symbol" in tried else ())


# A word of a question shaped as only code is: "what calls measure_columns" was answered with
# memory notes sharing "calls" (qa48). Snake case, camel case or dotted, `()` allowed after it.
_CODE_NAME = re.compile(r"""
    (?<![\w.$])                     # a whole word
    [A-Za-z_$][\w$]*
    (?: _[\w$]+                     # measure_columns
      | [a-z0-9][A-Z][\w$]*         # createStore
      | \.[A-Za-z_$][\w$]* )+      # click.echo, OrderBook.place
    (?=\(\)|[^\w.$]|\.?$)           # echo(), or the word's end (a sentence's full stop too)
""", re.VERBOSE)


def _named_symbols(code, query: str, k: int) -> tuple[str, FindResult] | None:
    """The first code-shaped word of a question that names definitions, and those, as the
    symbol tier answers them; None when it names none."""
    for name in dict.fromkeys(m.group(0) for m in _CODE_NAME.finditer(query)):
        found = _symbol(code, name, k, None)
        if found is not None:
            return name, replace(found, query=query, reason=f"the question names {name!r}: {found.reason}")
    return None


def _where_named(name: str, named: FindResult) -> str:
    """The notice beside memory notes: where the symbol the question names is, and its calls."""
    more = f" and {len(named.hits) - 3} more" if len(named.hits) > 3 else ""
    return (f"memory notes only, none holding every word of the question; it names {name!r}, defined at "
            f"{', '.join(h.ref for h in named.hits[:3])}{more}: {_follow_calls(name)}")


def _follow_calls(name: str) -> str:
    return (f"`vault-engine callers {shlex.quote(name)}` lists what calls it, "
            f"`vault-engine callees {shlex.quote(name)}` what it calls")


def _naming(code, named: tuple[str, FindResult], found: FindResult) -> bool:
    """Whether a memory note found names a symbol the question names (a why note of the symbol
    itself: one naming only its file had kept "who calls Context.invoke" on notes sharing "call",
    qa138)."""
    naming = {w.ref for symbol in named[1].hits for w in code.why_of_ref(symbol.ref) if w.of == "symbol"}
    return any(h.ref in naming for h in found.hits)


def _named_in_notes(code, query: str) -> tuple[str, ...]:
    """On a symbol missed: the notes that still name it in backticks (after a rename, the
    notes and dead ends that explain the old name say nothing until someone looks), unless
    the code assigns it where no symbol is (a module's constant, a class attribute: "renamed
    or removed?" was said of notes naming click's FORCED_WIDTH, qa35 A2)."""
    notes = list(dict.fromkeys(path for path, _, _ in code.store.mentioning([query])))
    shown = ", ".join(notes[:3]) + (f" and {len(notes) - 3} more" if len(notes) > 3 else "")
    named = f" is named in {len(notes)} note(s) ({shown}) and" if notes else ""
    assigned = _assigned_in_code(code.store, query)  # named in no note too: `find CYGWIN` (qa37 N4)
    if assigned:
        return (f"`{query}`{named} is assigned at {assigned}, where it is no symbol find indexes "
                "(a module's constant or a class attribute)",)
    if not notes:
        return ()
    return (f"`{query}` is named in {len(notes)} note(s) ({shown}) but defined nowhere in the indexed code: "
            "renamed or removed since they were written?",)


def _assigned_in_code(store, query: str) -> str | None:
    """``path:line`` where the code assigns ``query`` in a module or a class body (``Owner.name``:
    in a class of that name), from the bindings the code tap keeps; None when it does not."""
    owner, _, name = query.rpartition(".")
    for key, parsed in sorted(store.parsed(store.files_holding(name)).items()):
        for b in parsed.bindings:
            if b.name != name or b.kind not in ("assign", "declare"):
                continue
            scope = parsed.symbol(b.scope) if b.scope else None
            in_class = scope is not None and scope.kind == "class"
            if (b.scope is None and not owner) or (in_class and (not owner or b.scope.endswith(owner))):
                return f"{key}:{b.line}"
    return None


def _stale_notice(code) -> tuple[str, ...]:
    """On a symbol missed: the source files saved since the last index, where the name may
    have been written since (an agent must not read "does not exist")."""
    from vault_engine.retrieval.code.service import written_since

    return written_since(code.stale_files(), "a symbol written there since is")


def _symbol(code, query: str, k: int, _rule) -> FindResult | None:
    # a ref's file by the end of its path or without its tap's prefix, as callers and show take it (qa135)
    rows = definitions(code.store, code.keys, code.with_file_key(query))
    if not rows:
        return None
    hits = tuple(FindHit(r.ref, r.key, r.qualname, r.kind, r.line_start, r.line_end, 1.0, r.def_line,
                         code.why_of(r)) for r in rows[:k])
    more = f" (first {k} of {len(rows)})" if len(rows) > k else ""
    return FindResult(query, "hit", "symbol", hits, reason=f"{len(rows)} definition(s) named {query!r}{more}")


def _path(code, query: str, k: int, _rule) -> FindResult | None:
    from vault_engine.retrieval.find.paths import AMBIGUOUS, lookup_path

    seen = code.key_seen_from_vault(query)  # `../jsrepo/src/cart.js`: a tap beside the vault
    match = lookup_path(code.path_index, seen or query)
    paths, reason = match.paths, (f"{len(match.paths)} indexed files end with {query!r}" if match.status == AMBIGUOUS
                                  else f"the indexed file {match.paths[0]}" if match.paths else "")
    if not paths and MODULE_NAME.fullmatch(query):  # `core`, `click.core`: a module by its import name
        paths = tuple(sorted((key for key in code.keys if module_matches(key, query)),
                             key=lambda key: (key.count("/"), key)))
        reason = f"{len(paths)} indexed file(s) are the module {query!r}" if paths else ""
    if not paths:
        paths, reason = _in_folder(code.keys, query, k)
    if not paths:
        return None
    hits = []
    for path in paths[:k]:
        info = code.store.file_info(path)
        hits.append(FindHit(path, path, None, "file", 1, info[2] if info else 1, 1.0, None,
                            code.why_file(path)))
    return FindResult(query, "hit", "path", tuple(hits), reason=reason)


def _in_folder(keys: set[str], query: str, k: int) -> tuple[tuple[str, ...], str]:
    """The indexed files under the folders whose path ends with ``query``'s whole components
    (`tests`, `src/click`): `find tests` had suggested a test's nested function named `test`,
    and `find src/click` was a miss (qa48). The files nearest the folder first."""
    wanted = [part for part in query.strip("/").split("/") if part]
    if not wanted or any(part in (".", "..") for part in wanted):
        return (), ""
    folders: dict[str, list[str]] = {}
    for key in keys:
        tap, _, path = key.rpartition(":")
        parts = path.split("/")[:-1]
        for end in range(len(wanted), len(parts) + 1):
            if parts[end - len(wanted):end] == wanted:
                folders.setdefault(f"{tap + ':' if tap else ''}{'/'.join(parts[:end])}/", []).append(key)
                break
    if not folders:
        return (), ""
    inside = sorted({key for found in folders.values() for key in found}, key=lambda key: (key.count("/"), key))
    more = f" (the first {k})" if len(inside) > k else ""
    named = ", ".join(sorted(folders)[:3]) + (f" and {len(folders) - 3} more" if len(folders) > 3 else "")
    return tuple(inside), f"{len(inside)} indexed file(s) under the folder(s) {named}{more}"


def _fuzzy(code, query: str, k: int, rule: SuggestRule) -> FindResult | None:
    found = code.suggester.suggest(query, rule)
    if not found:
        return None
    best = found[0]
    how = f"{best.distance} edit(s) away" if best.distance is not None else f"a fuzzy match (fzf score {best.fuzzy})"
    if best.distance == 0:  # the same letters: say which kind each such name is (`persist` vs `Persist`)
        same = [s.target for s in found[1:k] if s.distance == 0]
        how = f"a {_kind_of(code, best.target)} " + (
            "of exactly that name" if re.split(r"[#/]", best.target)[-1] == query.rsplit("/", 1)[-1]
            else "whose name differs only in case") + "".join(f"; so does {t}, a {_kind_of(code, t)}" for t in same)
    return FindResult(query, "junction", "fuzzy", suggestion=best.target,
                      alternatives=tuple(s.target for s in found[1:k]),
                      reason=f"did you mean {best.target} ({how})? Confirm it before acting on it")


def _kind_of(code, target: str) -> str:
    """What a suggested ref names: a symbol's kind, or "file"."""
    ref = split_ref(code.keys, target)
    row = code.store.symbol(*ref) if ref is not None and ref[1] else None
    return row.kind if row is not None else "file" if ref is not None and ref[1] is None else "symbol"


def _memory(query: str, ledger: Ledger, lexical: WhooshIndex | Callable[[], WhooshIndex], k: int, facet: str | None,
            min_coverage: float, rank_by: str) -> FindResult | None:
    from vault_engine.retrieval.find.memory import facet_of, memory_hits

    found = memory_hits(query, ledger, lexical() if callable(lexical) else lexical, facet=facet, k=k,
                        min_coverage=min_coverage, rank_by=rank_by)
    if not found:
        return None
    hits = tuple(FindHit(h.note.path, h.note.path, None, "memory", h.line_start, h.line_end, h.score,
                         facet=facet_of(h.note), title=h.note.title, coverage=h.coverage) for h in found)
    low, high = min(h.coverage for h in found), max(h.coverage for h in found)
    share = f"{high:.0%}" if f"{low:.0%}" == f"{high:.0%}" else f"{low:.0%} to {high:.0%}"
    return FindResult(query, "hit", "memory", hits,
                      reason=f"{len(hits)} memory note(s) each hold {share} of the question's informative words")


def _named_alone(code, query: str) -> str:
    """For a qualified name missed (`zustand.create`: a package no file path names), the
    definitions its last part names alone, to confirm: never taken for the answer."""
    if "/" in query and "#" not in query:  # a path: its extension is no name
        return ""
    qualifier, _, name = query.rpartition(".") if "." in query else query.rpartition(":")
    name = name.rsplit("#", 1)[-1]
    rows = definitions(code.store, code.keys, name) if qualifier and name else []
    if not rows:
        return ""
    more = f" and {len(rows) - 3} more" if len(rows) > 3 else ""
    return (f"; {name!r} alone names {len(rows)} definition(s): {', '.join(r.ref for r in rows[:3])}{more} "
            f"(`vault-engine find {shlex.quote(name)}`): confirm it is the one meant")


def _miss_reason(query: str, tried: list[str], code, token: bool, facet: str | None, tier: str | None) -> str:
    if code is None and token:
        return (f"no code is indexed, and no memory note answers {query!r}: add a code tap "
                "([taps.code] in vault-engine.toml) and run `vault-engine index`")
    scope = f" of facet {facet}" if facet else ""
    path = query.split("#", 1)[0]
    unindexed = code.not_indexed_reason(path) if code is not None and token and PATH_LIKE.search(path) else None
    if unindexed:  # on disk but not in the index: say so, an agent must not read "absent"
        return f"{path} is not indexed: {unindexed}"
    broken = (code.syntax_error_note(query) + _named_alone(code, query)) if code is not None and token else ""
    if token and (tier is not None or facet is not None):  # some tiers were not asked: say which were
        said = {"symbol": f"no symbol is named {query!r}", "path": f"no indexed file is named {query!r}",
                "fuzzy": "no symbol or file is close enough to suggest",
                "memory": f"no memory note{scope} answers it"}
        asked = f"--tier {tier}" if tier is not None else f"--facet {facet} asks the memory notes only"
        return (f"{'; '.join(said[t] for t in tried) or 'nothing was searched'} (tiers tried: "
                f"{', '.join(tried) or 'none'}: {asked}); every tier: `vault-engine find {shlex.quote(query)}`"
                f"{broken if 'symbol' in tried else ''}")
    if token and "memory" not in tried:
        return (f"no symbol or indexed file is named {query!r} and none is close enough to suggest "
                f"(a question in words goes to the memory notes){broken}")
    if token:
        return (f"no symbol or indexed file is named {query!r}, none is close enough to suggest, "
                f"and no memory note{scope} answers it{broken}")
    from vault_engine.stores.lexical import analyze

    if not analyze(query):  # "the of and": no note could hold its words (qa40)
        return "the question has no word to search by (only stop words or punctuation): ask with content words"
    by_meaning = (f"; code by what it does: `vault-engine search {shlex.quote(query)} --kind code`"
                  if code is not None else "")
    return f"no memory note{scope} holds enough of the question's words (tiers tried: {', '.join(tried)}){by_meaning}"
