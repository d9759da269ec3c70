"""Python: definitions, imports, calls and local bindings from one query pass over the tree.

Scope follows Python's rules where they decide what a call means: decorators (a decorator
without arguments is a call too: ``@cache`` calls ``cache(f)``), parameter defaults,
annotations and class bases run in the enclosing scope, so a definition's calls and
bindings are those inside its body; a class body's own statements belong to the class.
"""

from __future__ import annotations

import inspect
import re

from vault_engine.sources.code.model import Export, Import
from vault_engine.sources.code.syntax import (
    LITERAL,
    Extracted,
    RawDef,
    Source,
    as_written,
    collapse,
    deep_callee,
    end_line,
    header,
    line,
)

EXTRA = """
(import_statement) @import
(import_from_statement) @import
(assignment left: (_) @target)
(augmented_assignment left: (_) @target)
(for_statement left: (_) @target)
(for_in_clause left: (_) @target.inline)
(named_expression name: (_) @target)
(as_pattern alias: (_) @target)
(delete_statement) @unbind
(match_statement) @unbind
(global_statement) @global
(nonlocal_statement) @nonlocal
(lambda parameters: (_) @params.inline)
(decorator (identifier) @decorator.call)
(decorator (attribute) @decorator.call)
"""

_ACCESSOR = re.compile(r"^\w+\.(setter|getter|deleter)$")
_PROPERTIES = ("property", "cached_property", "functools.cached_property")
_PATTERNS = ("pattern_list", "tuple_pattern", "list_pattern", "tuple", "list", "parenthesized_expression",
             "list_splat_pattern", "as_pattern_target", "list_splat")


def extra_query(language: str) -> str:
    """The extractor's own patterns, run in the same pass as the grammar's tags query."""
    return EXTRA


def extract(src: Source, caps: dict, language: str = "python") -> Extracted:
    """Everything one Python file declares, binds and calls."""
    out = Extracted()
    for node in sorted(caps.get("definition.function", []) + caps.get("definition.class", []),
                       key=lambda n: n.start_byte):
        out.defs.append(_definition(src, node, out))
    callees: dict[int, str] = {}  # call node id -> its callee, for the names bound to a call
    for call in caps.get("reference.call", []):
        function = call.child_by_field_name("function")
        callees[call.id] = deep_callee(callee, src, function)
        # a method's line is its name's: `.then()` calls chained over lines were each dated to the first (qa138)
        named_at = function.child_by_field_name("attribute") if function.type == "attribute" else call
        out.events.append((call.start_byte, "call", (callees[call.id], line(named_at))))
    # `@pass_context` calls pass_context(f), in the scope that defines f: it was never a
    # caller, where `@click.option(...)` was (qa62: 44 uses, "no callers ... resolved")
    for node in caps.get("decorator.call", []):
        out.events.append((node.start_byte, "call", (callee(src, node), line(node))))
    for node in caps.get("import", []):
        fallback = _in_except(node)
        for fields in _imports(src, node):
            out.events.append((node.start_byte, "import", (*fields, fallback)))
    for capture, kind in (("target", "assign"), ("target.inline", "inline")):
        for node in caps.get(capture, []):
            _bind_target(src, node, kind, out, callees)
    for node in caps.get("unbind", []):
        for name in _deleted_or_captured(node):
            out.events.append((name.start_byte, "bind", (src.text(name), line(name), "assign", None)))
    for capture in ("global", "nonlocal"):
        for node in caps.get(capture, []):
            for name in node.named_children:
                out.events.append((node.start_byte, "bind", (src.text(name), line(node), capture, None)))
    for node in caps.get("params.inline", []):  # a lambda's parameters, bound to its body's end (qa166)
        lambda_ = node.parent if node.parent is not None else node
        for name, _ in _parameters(src, node):
            out.events.append((node.start_byte, "bind", (name, line(node), "inline", None, None, False,
                                                          end_line(lambda_))))
    return out


# statements a class body may define its methods under (`if sys.version_info >= ...:`, `try:`)
_COMPOUND = frozenset({"if_statement", "elif_clause", "else_clause", "try_statement", "except_clause",
                       "finally_clause", "with_statement"})


def _in_class_body(block) -> bool:
    """Whether a definition's block is a class's body, directly or under an ``if``, ``try``
    or ``with`` there: a method defined under ``if True:`` had been a function (qa147)."""
    while block is not None and block.type == "block":
        up = block.parent
        if up is not None and up.type == "class_definition":
            return True
        while up is not None and up.type in _COMPOUND:
            up = up.parent
        block = up
    return False


def _definition(src: Source, node, out: Extracted) -> RawDef:
    holder = node.parent
    decorated = holder is not None and holder.type == "decorated_definition"
    decorators = tuple(src.text(d)[1:].strip() for d in holder.named_children
                       if d.type == "decorator") if decorated else ()
    container = holder.parent if decorated else holder
    in_class = _in_class_body(container)
    body = node.child_by_field_name("body")
    name = src.text(node.child_by_field_name("name"))
    if node.type == "class_definition":
        kind = "class"
        supers = node.child_by_field_name("superclasses")
        bases = tuple(src.text(b) for b in supers.named_children if b.type != "keyword_argument") if supers else ()
    else:
        kind = "method" if in_class else "function"
        if in_class and any(d in _PROPERTIES or _ACCESSOR.match(d) for d in decorators):
            kind = "property"
        bases = ()
    d = RawDef(node, name, kind, line(holder if decorated else node), line(node), end_line(node),
               header(src, node.start_byte, body.start_byte if body else node.end_byte),
               (body.start_byte, body.end_byte) if body else (node.end_byte, node.end_byte),
               docstring(src, body), decorators=decorators, bases=bases,
               stub=any(x == "overload" or x.endswith(".overload") for x in decorators))
    returns = node.child_by_field_name("return_type")
    d.returns = src.text(returns) if returns is not None else None
    params = node.child_by_field_name("parameters")
    if params is not None:
        found = _parameters(src, params)
        d.parameters = tuple(n for n, _ in found)
        out.params.extend((d, n, line(params), a) for n, a in found)
    return d


def docstring(src: Source, body) -> str | None:
    """The string a body opens with, cleaned like ``inspect.cleandoc`` (escapes not processed)."""
    if body is None or not body.named_children:
        return None
    first = body.named_children[0]
    if first.type != "expression_statement" or not first.named_children:
        return None
    string = first.named_children[0]
    if string.type != "string":
        return None
    text = "".join(src.text(c) for c in string.named_children if c.type == "string_content")
    return inspect.cleandoc(text) or None


def _parameters(src: Source, params) -> list[tuple[str, str | None]]:
    """(name, annotation as written) of each parameter."""
    found: list[tuple[str, str | None]] = []
    for p in params.named_children:
        t = p.type
        if t == "identifier":
            found.append((src.text(p), None))
            continue
        annotation = p.child_by_field_name("type")
        target = p.child_by_field_name("name")
        if target is None:  # typed_parameter, *args, **kwargs: the identifier is a child
            target = next((c for c in p.named_children if c.type in
                           ("identifier", "list_splat_pattern", "dictionary_splat_pattern")), None)
        while target is not None and target.type != "identifier":
            target = next((c for c in target.named_children if c.type == "identifier"), None)
        if target is not None:
            found.append((src.text(target), src.text(annotation) if annotation else None))
    return found


def callee(src: Source, fn) -> str:
    """A call's function in normalized form: ``f``, ``a.b.c``, ``self.m``, ``super().m``,
    ``make().run`` (a method of what a call returns)."""
    parts = []
    node = fn
    while (node := _ungrouped(node)).type == "attribute":
        parts.append(src.text(node.child_by_field_name("attribute")))
        node = node.child_by_field_name("object")
    if node.type == "identifier":
        parts.append(src.text(node))
    elif (node.type == "call" and parts and src.text(node.child_by_field_name("function")) == "super"
          and not node.child_by_field_name("arguments").named_children):
        parts.append("super()")
    elif node.type in _LITERALS and parts:
        parts.append(LITERAL)
    elif node.type == "call" and parts:
        # on what a call returns: `Option().add`, its arguments left out; `(make()).run` too, but
        # not `(await Widget()).run`: awaiting gives what `__await__` returns, not the Widget (qa139)
        parts.append(callee(src, node.child_by_field_name("function")) + "()")
    else:
        return as_written(src.text(fn), ".".join(reversed(parts)))
    return ".".join(reversed(parts))


_LITERALS = frozenset({"string", "concatenated_string", "integer", "float", "list", "dictionary", "set", "tuple",
                       "list_comprehension", "dictionary_comprehension", "set_comprehension",
                       "generator_expression", "none", "true", "false"})


def _ungrouped(node):
    """What parentheses hold: ``(obj).render`` is a call of ``obj.render`` (qa139)."""
    while node.type == "parenthesized_expression" and node.named_children:
        node = node.named_children[0]
    return node


def _in_except(node) -> bool:
    """Whether an import runs only when the one above it failed: in an ``except`` clause,
    ``try: from .fast import parse`` / ``except ImportError: from .slow import parse`` (the
    fallback had taken every call, and `callers fast.parse` said "no callers", qa165)."""
    while (node := node.parent) is not None and node.type not in ("function_definition", "class_definition"):
        if node.type == "except_clause":
            return True
    return False


def _imports(src: Source, node):
    """(local, module, name, line, aliased) for each name an import statement binds."""
    ln = line(node)
    if node.type == "import_statement":
        for item in node.children_by_field_name("name"):
            if item.type == "aliased_import":
                module = src.text(item.child_by_field_name("name"))
                yield src.text(item.child_by_field_name("alias")), module, None, ln, True
            else:
                module = src.text(item)
                yield module.split(".")[0], module, None, ln, False
        return
    module = collapse(src.text(node.child_by_field_name("module_name")))
    if any(c.type == "wildcard_import" for c in node.named_children):
        yield "*", module, "*", ln, False
        return
    for item in node.children_by_field_name("name"):
        if item.type == "aliased_import":
            name = src.text(item.child_by_field_name("name"))
            yield src.text(item.child_by_field_name("alias")), module, name, ln, True
        else:
            name = src.text(item)
            yield name, module, name, ln, False


def _bind_target(src: Source, node, kind: str, out: Extracted, callees: dict[int, str]) -> None:
    parent = node.parent
    if kind == "assign" and parent.type == "assignment" and parent.child_by_field_name("right") is None:
        kind = "declare"  # `x: int` binds nothing outside a function
    value, entered = _bound_call(node, callees) if kind == "assign" else (None, False)
    # a comprehension's loop variable is bound inside the comprehension only: all its lines, its
    # element written above its `for` too (qa166)
    within = parent.parent if kind == "inline" and parent.parent is not None else None
    until = end_line(within) if within is not None else None
    for name in _target_names(src, node):
        annotation = parent.child_by_field_name("type") if parent.type == "assignment" else None
        out.events.append((node.start_byte, "bind", (name, line(within) if within is not None else line(node), kind,
                                                     src.text(annotation) if annotation else None,
                                                     value, entered, until)))
        if name == "__all__" and parent.parent is not None and parent.parent.parent is not None \
                and parent.parent.parent.type == "module":
            _all_exports(src, parent.child_by_field_name("right"), out)


def _bound_call(node, callees: dict[int, str]) -> tuple[str | None, bool]:
    """(callee, entered) when one plain name is bound to a call's result: ``x = f(...)``
    gives ("f", False), ``with f(...) as x`` ("f", True); else (None, False). The resolver
    may type the name by what that call makes; ``x = y = f()``, ``a, b = f()``, ``await``,
    ``async with`` and a walrus are left alone."""
    parent = node.parent
    if parent.type == "assignment" and node.type == "identifier":
        value = parent.child_by_field_name("right")
    elif (parent.type == "as_pattern" and node.type == "as_pattern_target" and parent.parent.type == "with_item"
          and [c.type for c in node.named_children] == ["identifier"]
          and parent.parent.parent.parent.children[0].type != "async"):
        value = parent.named_children[0]
    else:
        return None, False
    found = callees.get(value.id) if value is not None else None  # a call the tags query captured
    return (found, parent.type == "as_pattern") if found is not None else (None, False)


def _deleted_or_captured(node):
    """The names a ``del`` unbinds or a ``match``'s patterns capture (``case [x, *rest]``,
    ``case P(k=v) as p``), as identifier nodes: bindings like any other. Two cheap query
    patterns and this walk over the rare statements cost less than a pattern per shape."""
    if node.type == "delete_statement":
        targets = node.named_children
        if len(targets) == 1 and targets[0].type == "expression_list":
            targets = targets[0].named_children
        return [t for t in targets if t.type == "identifier"]
    found = []
    stack = [p for clause in node.child_by_field_name("body").named_children if clause.type == "case_clause"
             for p in clause.named_children if p.type == "case_pattern"]
    while stack:
        current = stack.pop()
        if current.type == "identifier":
            parent = current.parent
            if parent.type in ("splat_pattern", "as_pattern") or (
                    parent.type == "dotted_name" and parent.named_child_count == 1
                    and parent.parent.type in ("case_pattern", "keyword_pattern")):
                found.append(current)
        stack.extend(current.named_children)
    return sorted(found, key=lambda n: n.start_byte)


def _target_names(src: Source, node):
    if node.type == "identifier":
        yield src.text(node)
    elif node.type in _PATTERNS:
        for child in node.named_children:
            yield from _target_names(src, child)


def _all_exports(src: Source, value, out: Extracted) -> None:
    """``__all__ = ["a", "b"]`` (or ``+=``): the names a star import takes."""
    if value is None or value.type not in ("list", "tuple"):
        return
    for item in value.named_children:
        if item.type == "string":
            name = "".join(src.text(c) for c in item.named_children if c.type == "string_content")
            out.exports.append(Export(name, name, None, line(item)))


def reexports(path: str, imports: list[Import]) -> list[Export]:
    """A package's ``__init__.py`` offers what it imports at module level."""
    if not path.endswith("__init__.py"):
        return []
    return [Export(i.local, i.name, i.module, i.line) for i in imports
            if i.scope is None and i.local != "*"]
