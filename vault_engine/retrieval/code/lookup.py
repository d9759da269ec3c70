"""Which definitions a symbol query names, and the notes that say why (pure over the store).

A query is a bare name (``place``), a qualified name (``OrderBook.place``), a module and a
name (``shop.orders:OrderBook.place``, ``shop.orders.OrderBook.place``) or a code ref
(``src/shop/orders.py#OrderBook.place``). Every definition it names is returned, ranked:
non-test before test, top-level before nested, shorter path first. Nothing is completed or
corrected here: that is find's fuzzy tier, which suggests and never answers.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from vault_engine.code_model import CodeSymbol, Why
from vault_engine.sources.code.model import REPEAT
from vault_engine.sources.code.modules import ts_module_path
from vault_engine.sources.code.testpaths import is_test_path
from vault_engine.stores.code_store import CodeStore, SymbolRow

if TYPE_CHECKING:
    from vault_engine.stores.ledger import LinkRow

_EXTENSION = re.compile(r"\.[A-Za-z0-9]+$")
_REPEATS = re.compile(re.escape(REPEAT) + r"\d+")
# a package's own file, by its language: its folder is the module (a Python `mod.py` had been
# its folder's module, as Rust's `mod.rs` is: `find pkg3.lone_py` found `pkg3/mod.py`, qa198)
_INIT = {".py": "__init__", ".pyi": "__init__", ".rs": "mod", ".js": "index", ".jsx": "index", ".mjs": "index",
         ".cjs": "index", ".ts": "index", ".tsx": "index", ".mts": "index", ".cts": "index"}


def rank_key(row: SymbolRow) -> tuple:
    return (is_test_path(row.key), row.qualname.count("."), row.parent is not None,
            len(row.key), row.key, row.line_start)


def split_ref(keys: set[str], query: str) -> tuple[str, str | None] | None:
    """(file key, qualname or None) when ``query`` starts with an indexed file's key."""
    if query in keys:
        return query, None
    cut = query.find("#")
    while cut != -1:
        if query[:cut] in keys:
            return query[:cut], query[cut + 1:] or None
        cut = query.find("#", cut + 1)
    return None


def module_parts(key: str) -> list[str]:
    """The path of a file as module components, without extension or package file name; a
    Go or Java file's module is its folder, the package (``store.Restock`` for
    store/inventory.go, ``com.shop.util.MathUtil.factorial`` for com/shop/util/MathUtil.java)."""
    path = key.split(":", 1)[-1]
    parts = list(PurePosixPath(_EXTENSION.sub("", path)).parts)
    if len(parts) > 1 and (parts[-1] == _INIT.get(PurePosixPath(path).suffix) or path.endswith((".go", ".java"))):
        parts = parts[:-1]
    return parts


def module_matches(key: str, module: str) -> bool:
    """Whether ``module`` (dotted or slashed) names ``key`` by its trailing components."""
    wanted = [p for p in re.split(r"[./]", module) if p]
    have = module_parts(key)
    return bool(wanted) and have[-len(wanted):] == wanted


_PATH_ROOT = re.compile(r"^(?:(?:crate|self|super)::)+")


def rust_path(query: str) -> str:
    """``util::fib`` or ``crate::ledger::Ledger::record`` (how Rust and C++ users write a
    name) as the dotted name the index keeps; anything else as it is."""
    return _PATH_ROOT.sub("", query).replace("::", ".") if "::" in query else query


def definitions(store: CodeStore, keys: set[str], query: str) -> list[SymbolRow]:
    """Every definition ``query`` names, ranked (see the module docstring)."""
    query = rust_path(query.strip())
    if not query:
        return []
    ref = split_ref(keys, query)
    if ref is not None:
        key, qualname = ref
        row = store.symbol(key, qualname) if qualname else None
        return [row] if row else []
    if ":" in query:
        module, _, qualname = query.rpartition(":")
        found = [r for r in by_qualname(store, qualname) if module_matches(r.key, module)]
        return sorted(found, key=rank_key)
    # a bare name with its repeat mark (`getchar~2`, as refs and outline print it) names that repeat
    found = by_qualname(store, query) if "." in query or REPEAT in query else store.symbols_where("name", query)
    if not found and "." in query:  # module.Qualified.name: the longest qualname that fits
        parts = query.split(".")
        for cut in range(1, len(parts)):
            module, qualname = ".".join(parts[:cut]), ".".join(parts[cut:])
            found = [r for r in by_qualname(store, qualname) if module_matches(r.key, module)]
            if found:
                break
    if not found and "." in query:
        found = _reexported(store, keys, query.split(".")) or _nested(store, query)
    elif not found and REPEAT not in query:
        found = _renamed_export(store, keys, query)
    return sorted(found, key=rank_key)


def by_qualname(store: CodeStore, qualname: str) -> list[SymbolRow]:
    """The symbols of this qualified name, and its repeats: ``test_x.cmd`` is also
    ``test_x.cmd~2`` (a name defined again in one scope), unless the query names one."""
    found = store.symbols_where("qualname", qualname)
    if REPEAT in qualname:
        return found
    name = qualname.rsplit(".", 1)[-1]
    found += [r for r in store.symbols_where("name", name)
              if r.qualname != qualname and _REPEATS.sub("", r.qualname) == qualname]
    return found


def _nested(store: CodeStore, qualname: str) -> list[SymbolRow]:
    """``Catalog.defaultPrice`` for ``Order.Catalog.defaultPrice``: the end of a nested
    definition's qualified name, as code outside its outer class writes it."""
    tail = "." + qualname
    return [r for r in store.symbols_where("name", qualname.rsplit(".", 1)[-1])
            if _REPEATS.sub("", r.qualname).endswith(tail)]


def _reexported(store: CodeStore, keys: set[str], parts: list[str]) -> list[SymbolRow]:
    """``click.echo``: a name a package or module re-exports (a package ``__init__``'s import,
    TS/JS ``export { a as b }``), followed one hop to the definition it names."""
    for cut in range(len(parts) - 1, 0, -1):
        module, name, rest = ".".join(parts[:cut]), parts[cut], parts[cut + 1:]
        found = _exported_as(store, keys, [k for k in keys if module_matches(k, module)], name, rest)
        if found:
            return found
    return []


def _renamed_export(store: CodeStore, keys: set[str], name: str) -> list[SymbolRow]:
    """``unstable_ssrSafe``: a bare name no definition has, which some file exports under it
    (``export { ssrSafe as unstable_ssrSafe } from ...``, ``from .x import a as b``). Only
    the files whose stored form holds the name are read."""
    return _exported_as(store, keys, [k for k in store.files_holding(name) if k in keys], name, [])


def _exported_as(store: CodeStore, keys: set[str], owners: list[str], name: str,
                 rest: list[str]) -> list[SymbolRow]:
    """The definitions that the files ``owners`` export as ``name`` (``rest``: the dotted
    path below it, ``Class.method``) name, one hop on: by name, or through a star (httpx's
    ``from ._api import *`` makes ``httpx.get``, which had been a miss, qa194) where the star
    carries it (:func:`_star_carries`)."""
    found: list[SymbolRow] = []
    for key, parsed in store.parsed(owners).items():
        python = parsed.language == "python"
        named = [(export.module, export.target, False) for export in parsed.exports
                 if export.name == name and export.target]
        stars = [(imp.module, name, True) for imp in parsed.imports
                 if python and imp.name == "*" and imp.scope is None]
        stars += [(export.module, name, True) for export in parsed.exports if export.name == "*" and export.module]
        for module, target, star in named + ([] if python and name.startswith("_") else stars):
            qualname = ".".join([target, *rest])
            if module is None:  # renamed on the way out of this very file
                rows = [r for r in [store.symbol(key, qualname)] if r is not None]
            elif not python and module.startswith("."):  # "./middleware/ssrSafe.ts"
                source_key = _ts_module_key(keys, key, module)
                rows = [r for r in [store.symbol(source_key, qualname) if source_key else None] if r is not None]
            else:
                source = re.sub(r"^[./]+", "", module)  # ".utils", "click.utils"
                tree = key.split("/", 1)[0] + "/"  # the definition lives in the same source tree
                rows = [r for r in store.symbols_where("qualname", qualname)
                        if module_matches(r.key, source) and r.key.startswith(tree)]
            found += [r for r in rows if not star or _star_carries(store, r.key, name)]
    return list({r.ref: r for r in found}.values())


def _star_carries(store: CodeStore, key: str, name: str) -> bool:
    """Whether a star import of the file ``key`` carries ``name``: a Python module's names, or
    only those its ``__all__`` lists when it has one; a TS/JS module's named exports, never its
    default nor what it does not export (qa198: `pkg.post` outside `__all__` and a TS module's
    unexported `internalOnly` had been found as the package's)."""
    parsed = store.parsed([key]).get(key)
    if parsed is None:
        return True
    listed = {e.name for e in parsed.exports if e.module is None and e.name != "default"}
    if parsed.language == "python":
        return not listed or name in listed
    return name in listed


def _ts_module_key(keys: set[str], key: str, spec: str) -> str | None:
    """The key of the file a relative TS/JS specifier in file ``key`` names, as the call
    graph resolves it (``./x.ts``, ``./x``, ``./x.js`` for ``x.ts``, a folder's index)."""
    path = key.split(":", 1)[-1]
    prefix = key[:len(key) - len(path)]  # "<tap>:" or ""
    found = ts_module_path(lambda p: prefix + p in keys and not p.endswith((".py", ".pyi")), path, spec)
    return prefix + found if found is not None else None


def code_symbol(row: SymbolRow, why: tuple[Why, ...] = ()) -> CodeSymbol:
    return CodeSymbol(row.ref, row.key, row.qualname, row.name, row.kind, row.line_start, row.def_line,
                      row.line_end, row.signature, row.parameters, row.decorators, row.parent,
                      row.docstring, why)


# -- why links --------------------------------------------------------------------------------

def file_tokens(key: str) -> list[str]:
    """How a note can name a file in backticks: its key, and its trailing paths of two
    components or more (a bare basename like ``core.py`` names too many files)."""
    path = key.split(":", 1)[-1]
    parts = path.split("/")
    return [key, *("/".join(parts[i:]) for i in range(len(parts) - 1))]


def symbol_tokens(key: str, qualname: str) -> list[str]:
    """How a note can name a symbol in backticks: its qualified name, its ref, and the name
    after a module or package path (``click.core.Command.invoke``, ``click.echo``)."""
    tokens = [qualname, f"{key}#{qualname}"]
    parts = module_parts(key)
    tokens += [".".join([*parts[i:], qualname]) for i in range(len(parts))]
    tokens += [f"{p}.{qualname}" for p in dict.fromkeys(parts[:-1])]
    tokens += [f"{'.'.join(parts[i:])}:{qualname}" for i in range(len(parts))]
    return list(dict.fromkeys(tokens))


def why_links(store: CodeStore, link_rows: Iterable[LinkRow], tokens: Iterable[str], of: str) -> tuple[Why, ...]:
    """The notes linking to the file (``link_rows``: the ledger's backlinks) and those naming
    any of ``tokens`` in backticks, in path order; ``of`` says whether they name a "symbol" or
    its "file"."""
    found = {(r.source, r.line, "link", r.raw, of) for r in link_rows}
    found |= {(path, line, "mention", token, of) for path, token, line in store.mentioning(tokens)}
    return tuple(Why(*f) for f in sorted(found))
