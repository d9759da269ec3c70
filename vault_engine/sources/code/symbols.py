"""Parse one source file into its symbols, imports, exports, calls and local bindings.

One tree-sitter parse and one query pass (the grammar's ``tags.scm`` plus the extractor's own
patterns) per file; the extractor turns the captured nodes into definitions and positioned
events, and this driver names the definitions, gives every event its enclosing scope and
folds repeated definitions (overloads, property accessors) into one symbol.
"""

from __future__ import annotations

from types import ModuleType

from vault_engine.sources.code import languages
from vault_engine.sources.code.model import Binding, Call, Import, ParsedSource
from vault_engine.sources.code.syntax import Source, assign_qualnames, enclosing, fold


def _extractor(family: str) -> ModuleType:
    # Imported on demand: a repository of one language never loads the others' extractors.
    if family == "python":
        from vault_engine.sources.code import extract_python
        return extract_python
    if family == "ecma":
        from vault_engine.sources.code import extract_ecma
        return extract_ecma
    from vault_engine.sources.code import extract_static
    return extract_static


def parse_source(path: str, text: str, language: str) -> ParsedSource:
    """Parse ``text`` (the content of ``path``, relative to the code root) as ``language``.

    Raises ``UnsupportedLanguage`` for a language without a grammar. A file with syntax
    errors is still parsed as far as tree-sitter recovers; ``error`` says where the first is.
    """
    spec = languages.spec(language)
    module = _extractor(spec.family)
    src = Source(text.encode("utf-8"))
    tree = languages.parser(language).parse(src.data)
    from tree_sitter import QueryCursor

    caps = QueryCursor(languages.query(language, module.extra_query(language))).captures(tree.root_node)
    found = module.extract(src, caps, language)
    if hasattr(module, "join"):
        assign_qualnames(found.defs, join=module.join)
    else:
        assign_qualnames(found.defs)
    events = sorted(found.events, key=lambda e: e[0])
    scopes = enclosing(found.defs, [e[0] for e in events])
    calls, bindings, imports = [], [], []
    for (_, what, fields), scope in zip(events, scopes):
        owner = scope.qualname if scope is not None else None
        if what == "call":
            calls.append(Call(owner, *fields))
        elif what == "bind":
            bindings.append(Binding(owner, *fields))
        else:
            local, module_name, name, line, aliased, *fallback = fields
            imports.append(Import(local, module_name, name, line, scope=owner, aliased=aliased,
                                  fallback=bool(fallback and fallback[0])))
    # An overload stub's parameters are not bindings of the implementation's scope.
    implemented = {d.qualname for d in found.defs if not d.stub}
    bindings.extend(Binding(d.qualname, name, ln, "param", ann) for d, name, ln, ann in found.params
                    if not (d.stub and d.qualname in implemented))
    exports = list(found.exports)
    if hasattr(module, "reexports"):
        exports.extend(module.reexports(path, imports))
    return ParsedSource(
        path, language, text.count("\n") + (0 if text.endswith("\n") or not text else 1),
        fold(found.defs), tuple(imports), tuple(exports), tuple(calls), tuple(bindings),
        _syntax_error(tree.root_node))


def _syntax_error(root) -> str | None:
    """One line naming the first place tree-sitter could not parse, or None."""
    if not root.has_error:
        return None
    node = root
    while True:  # descend into the first child that holds the error
        bad = next((c for c in node.children if c.has_error or c.is_missing or c.type == "ERROR"), None)
        if bad is None or bad.type == "ERROR" or bad.is_missing:
            node = bad or node
            break
        node = bad
    what = f"missing {node.type}" if node.is_missing else "syntax error"
    return f"{what} at line {node.start_point[0] + 1}: parsed as far as tree-sitter recovers"
