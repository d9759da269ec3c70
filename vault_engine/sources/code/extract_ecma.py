"""TypeScript and JavaScript: definitions, imports, exports, calls and local bindings.

Functions are often values here: an arrow function or function expression bound to a
``const`` is a function symbol named after the constant (``createStoreImpl``), at module level
and inside functions alike, also behind parentheses and a type (``((s) => ...) as CreateStore``,
``... satisfies T``: how zustand declares ``createStore``), and a ``const`` bound by name to a
function of the same scope, wrapped or not (``const persist = persistImpl as unknown as
Persist``: how zustand declares its middlewares). Overload signatures
(``function f(a): A;`` lines, ``m(): void;`` in a class) belong to the implementation that
follows them.
"""

from __future__ import annotations

from typing import Any

from vault_engine.sources.code.model import Export
from vault_engine.sources.code.syntax import (
    LITERAL,
    Extracted,
    RawDef,
    Source,
    as_written,
    collapse,
    deep_callee,
    doc_comment,
    end_line,
    header,
    line,
)

_COMMON = """
(call_expression) @call
(new_expression) @new
(method_definition) @definition.member
(import_statement) @import
(export_statement) @export
(variable_declarator name: (_) @target)
(catch_clause parameter: (_) @target)
(for_in_statement left: (_) @target)
(arrow_function) @params.inline
(function_expression) @params.inline
(variable_declarator value: [(parenthesized_expression) (identifier)]) @definition.function
(variable_declarator value: (class) @definition.class)
(expression_statement (assignment_expression left: (member_expression) @commonjs.left))
(expression_statement (assignment_expression left: (member_expression)
  right: [(function_expression) (arrow_function)]) @definition.function)
"""
_TYPESCRIPT = """
(public_field_definition value: [(arrow_function) (function_expression)]) @definition.field
(type_alias_declaration) @definition.type
(enum_declaration) @definition.enum
(variable_declarator value: [(as_expression) (satisfies_expression) (non_null_expression)]) @definition.function
(internal_module) @definition.namespace
"""

# JavaScript's class field, `handle = () => {...}` (TypeScript's is `public_field_definition`): a
# React class component's handlers had been no symbols, their calls lost (qa162)
_JAVASCRIPT = """
(field_definition value: [(arrow_function) (function_expression)]) @definition.field
"""
_FIELDS = ("public_field_definition", "field_definition")
# A component used as an element, `<Button label="x" />`, is a call of it (React renders it): its
# `callers` had been "no callers", read as dead code (qa162). A lower-case name is an HTML tag.
_JSX = """
(jsx_opening_element name: (identifier) @jsx.call)
(jsx_self_closing_element name: (identifier) @jsx.call)
"""

_FUNCTION_VALUES = ("arrow_function", "function_expression", "generator_function")
_LITERALS = frozenset({"string", "template_string", "number", "array", "object", "regex", "true", "false", "null",
                       "undefined"})
_WRAPPERS = ("parenthesized_expression", "as_expression", "satisfies_expression", "non_null_expression",
             "type_assertion")  # wrap a value without changing what it is
_KINDS = {
    "function_declaration": "function", "generator_function_declaration": "function",
    "function_signature": "function", "variable_declarator": "function",
    "class_declaration": "class", "abstract_class_declaration": "class", "class": "class",
    "interface_declaration": "interface", "type_alias_declaration": "type", "enum_declaration": "enum",
    "method_definition": "method", "method_signature": "method", "abstract_method_signature": "method",
    "public_field_definition": "method", "field_definition": "method", "assignment_expression": "function",
    "internal_module": "module",  # `namespace Validation { ... }`: its members are Validation.check
}
_DEF_CAPTURES = ("definition.function", "definition.method", "definition.class", "definition.interface",
                 "definition.member", "definition.field", "definition.type", "definition.enum",
                 "definition.namespace")


def extra_query(language: str) -> str:
    """The extractor's own patterns; JavaScript's grammar lacks TypeScript's type nodes."""
    return _COMMON + (_TYPESCRIPT if language in ("typescript", "tsx") else _JAVASCRIPT) + \
        (_JSX if language in ("javascript", "tsx") else "")


def extract(src: Source, caps: dict, language: str) -> Extracted:
    """Everything one TypeScript or JavaScript file declares, binds, exports and calls."""
    out = Extracted()
    seen = set()
    nodes = [n for c in _DEF_CAPTURES for n in caps.get(c, []) if n.type in _KINDS]
    for node in sorted(nodes, key=lambda n: n.start_byte):
        if node.id in seen:
            continue
        seen.add(node.id)
        d = _definition(src, node, out)
        if d is not None:
            out.defs.append(d)
    out.defs = _keep_aliases_of_functions(out.defs)
    _constructors_as_classes(out.defs)
    _seen_only_in_callbacks(out.defs)
    aliases = {getattr(d.node, "id", None) for d in out.defs if "alias" in d.extra}
    for node in caps.get("call", []) + caps.get("new", []):
        # a method's line is its name's: `.then()` calls chained over lines were each dated to the first (qa138)
        function = node.child_by_field_name("function")
        named_at = function.child_by_field_name("property") if function is not None and \
            function.type == "member_expression" else node
        out.events.append((node.start_byte, "call", (deep_callee(_callee, src, node), line(named_at))))
    for node in caps.get("jsx.call", []):
        if src.text(node)[:1].isupper():
            out.events.append((node.start_byte, "call", (src.text(node), line(node))))
    for node in caps.get("import", []):
        for fields in _imports(src, node):
            out.events.append((node.start_byte, "import", fields))
    exported = {(x.name, x.target, x.module) for x in out.exports}
    offered = [e for node in caps.get("export", []) if not _in_namespace(node) for e in _exports(src, node)]
    offered += [e for node in caps.get("commonjs.left", []) for e in _commonjs_exports(src, node)]
    for e in offered:  # overload signatures export one name several times
        if (e.name, e.target, e.module) not in exported:  # a set: a list scan was quadratic
            exported.add((e.name, e.target, e.module))
            out.exports.append(e)
    for node in caps.get("target", []):
        if node.parent is None or node.parent.id not in aliases:
            _bind_target(src, node, out)
    bound_functions = {value.id for d in out.defs if (value := _function_value(d.node)) is not None}
    for node in caps.get("params.inline", []):
        # the function's parameters, not the function: `(api) => api.chain()` had bound nothing,
        # and a call on `api` read as a name bound nowhere (qa138)
        params = node.child_by_field_name("parameters") or node.child_by_field_name("parameter")
        if node.id not in bound_functions and params is not None:
            for name, _ in _parameters(src, params):
                out.events.append((node.start_byte, "bind", (name, line(node), "inline", None, None, False,
                                                              end_line(node))))
    return out


def _definition(src: Source, node, out: Extracted) -> RawDef | None:
    t = node.type
    value = None
    if t in ("variable_declarator", *_FIELDS):
        value = _function_value(node)
        if value is None:
            return _alias(src, node)
    if t in ("method_signature", "abstract_method_signature") and \
            node.parent.type not in ("class_body", "interface_body"):
        return None  # a member of an object type literal, not a declaration
    owner = None
    if t == "assignment_expression":  # CommonJS: `exports.summarize = function (values) {...}`
        name, value = _commonjs_name(src, node), node.child_by_field_name("right")
        if name is None:
            owner, name = _prototype_member(src, node)
        if name is None:
            return None
    else:  # a class expression is named by the const it is bound to: `const Repo = class {...}` (qa139)
        name_node = node.child_by_field_name("name") if t != "class" else node.parent.child_by_field_name("name")
        name_node = node.child_by_field_name("property") if t == "field_definition" else name_node
        if name_node is None or name_node.type in ("object_pattern", "array_pattern"):
            return None
        name = src.text(name_node)
    kind = _KINDS[t]
    if t == "method_definition":
        if name == "constructor":
            kind = "constructor"
        elif any(c.type in ("get", "set") for c in node.children[:3]):
            kind = "property"
    declaration = node.parent if t in ("variable_declarator", "assignment_expression") else \
        node.parent.parent if t == "class" else node
    outer = declaration.parent if declaration.parent is not None and declaration.parent.type == "export_statement" \
        else declaration
    decorators = _decorators(node, outer)
    start = min([line(outer)] + [line(dec) for dec in decorators])
    function = value or node
    body = function.child_by_field_name("value" if t == "type_alias_declaration" else "body")
    head_end = body.start_byte if body is not None else function.end_byte
    scope = _scope_range(function, t, body)
    keyword = next((c for c in declaration.children if c.type != "decorator"), declaration)
    d = RawDef(node, name, kind, start, line(keyword), end_line(node),
               header(src, keyword.start_byte, head_end).rstrip(";"), scope,
               doc_comment(src, outer if not decorators else decorators[0], ("/**",)),
               decorators=tuple(src.text(dec)[1:].strip() for dec in decorators),
               bases=_bases(src, node), stub=t in ("function_signature", "method_signature"))
    if owner is not None:  # the constructor's method, as a class's is: `Bus.publish`
        d.kind, d.qualname, d.parent = "method", f"{owner}.{name}", owner
    params = function.child_by_field_name("parameters") or function.child_by_field_name("parameter")
    if params is not None:
        found = _parameters(src, params)
        d.parameters = tuple(n for n, _ in found)
        out.params.extend((d, n, line(params), a) for n, a in found)
    return d


_FUNCTIONS = (*_FUNCTION_VALUES, "function", "function_declaration", "generator_function_declaration",
              "method_definition")


# Seen by no call of its bare name (Symbol.visible): an object literal's method, a nameless class's
NO_NAME = (0, -1)


def _bound_by_no_name(method) -> bool:
    """Whether a method is an object literal's (`const api = { save() {} }`) or a nameless
    class's (`export default class { run() {} }`): no bare `save()` calls it, and one had been
    an edge to it (qa147). A class expression bound to a const is named by it."""
    holder = method.parent
    if holder is None:
        return False
    if holder.type == "object":
        return True
    cls = holder.parent if holder.type == "class_body" else None
    return (cls is not None and cls.child_by_field_name("name") is None
            and (cls.parent is None or cls.parent.type != "variable_declarator"))


def _seen_only_in_callbacks(defs: list[RawDef]) -> None:
    """Mark each definition whose nearest enclosing function is no definition (a callback:
    ``it('...', () => { const createStore = ... })``) as seen only between its lines. The
    qualified name stays its scope's (a callback has no name); calls from elsewhere had been
    tied to it (qa135)."""
    named = {getattr(d.node, "id", None) for d in defs}
    named |= {value.id for d in defs if (value := _function_value(d.node)) is not None}
    for d in defs:
        if getattr(d.node, "type", None) == "method_definition" and _bound_by_no_name(d.node):
            d.visible = NO_NAME
            continue
        node = getattr(d.node, "parent", None)
        while node is not None and node.type not in _FUNCTIONS:
            node = node.parent
        if node is not None and node.id not in named:
            d.visible = (line(node), end_line(node))
        elif getattr(d.node, "type", None) == "variable_declarator" and \
                (block := _block_around(d.node.child_by_field_name("name"))) is not None:  # type: ignore[attr-defined]
            d.visible = (line(block), end_line(block))  # a `const f = () => ...` in an `if` block (qa165)
        elif (block := _block_holding(d.node)) is not None:  # `function run() {}` in an `if` block (qa174)
            d.visible = (line(block), end_line(block))


def _function_value(node):
    """The function a ``const`` or class field holds, through wrappers that keep it one; None
    when it holds something else (or ``node`` is no declarator)."""
    if node.type not in ("variable_declarator", *_FIELDS):
        return None
    value = node.child_by_field_name("value")
    value = _ungrouped(value) if value is not None else None
    return value if value is not None and value.type in _FUNCTION_VALUES else None


def _class_value(declarator) -> bool:
    """Whether a ``const`` holds a class expression: the class symbol its name is."""
    value = declarator.child_by_field_name("value") if declarator.type == "variable_declarator" else None
    return value is not None and value.type == "class"


def _alias(src: Source, node) -> RawDef | None:
    """``const persist = persistImpl as unknown as Persist``: a definition to keep when
    ``persistImpl`` turns out to be a function of the same scope (``_keep_aliases_of_functions``)."""
    value = node.child_by_field_name("value")
    value = _ungrouped(value) if value is not None else None
    name_node = node.child_by_field_name("name")
    if node.type != "variable_declarator" or value is None or value.type != "identifier" \
            or name_node is None or name_node.type != "identifier" or node.parent.type != "lexical_declaration" \
            or src.text(node.parent).split(None, 1)[0] != "const":
        return None
    declaration = node.parent
    outer = declaration.parent if declaration.parent is not None and declaration.parent.type == "export_statement" \
        else declaration
    d = RawDef(node, src.text(name_node), "function", line(outer), line(declaration), end_line(node),
               collapse(src.text(declaration)).rstrip(";"), (node.end_byte, node.end_byte),
               doc_comment(src, outer, ("/**",)))
    d.extra["alias"] = src.text(value)
    return d


def _keep_aliases_of_functions(defs: list[RawDef]) -> list[RawDef]:
    """The aliases whose name is a function defined in their own scope, with its parameters."""
    functions = {(d.name, _scope_id(d.node)): d for d in defs if d.kind == "function" and "alias" not in d.extra}
    kept = []
    for d in defs:
        if "alias" in d.extra:
            target = functions.get((d.extra["alias"], _scope_id(d.node)))
            if target is None:
                continue
            d.parameters = target.parameters
        kept.append(d)
    return kept


_SCOPES = ("program", "statement_block", "class_body", "arrow_function", "function_expression",
           "function_declaration", "method_definition", "generator_function_declaration")


def _scope_id(node) -> int:
    """The node of the block or function a declaration binds its name in."""
    current = node.parent
    while current is not None and current.type not in _SCOPES:
        current = current.parent
    return current.id if current is not None else -1


def _scope_range(function, t: str, body) -> tuple[int, int]:
    """Calls in a class's heritage and decorators run outside it; a function's parameter
    defaults run inside it."""
    if t in ("class_declaration", "abstract_class_declaration", "class", "interface_declaration", "internal_module"):
        return (body.start_byte, body.end_byte) if body is not None else (function.end_byte, function.end_byte)
    params = function.child_by_field_name("parameters") or function.child_by_field_name("parameter")
    start = params.start_byte if params is not None else function.start_byte
    return start, function.end_byte


def _decorators(node, outer) -> list:
    found = [c for c in node.children if c.type == "decorator"]
    if outer is not node:  # `@dec export class X`: the export statement holds the decorator
        found = [c for c in outer.children if c.type == "decorator"] + found
    prev = outer.prev_named_sibling
    while prev is not None and prev.type == "decorator":  # a class member's decorators
        found.insert(0, prev)
        prev = prev.prev_named_sibling
    return found


def _bases(src: Source, node) -> tuple[str, ...]:
    bases: list[str] = []
    for child in node.named_children:
        if child.type == "class_heritage":
            clauses = [c for c in child.named_children if c.type in ("extends_clause", "implements_clause")]
            for clause in clauses or [child]:
                bases.extend(src.text(v) for v in clause.named_children if v.type != "type_arguments")
        elif child.type == "extends_type_clause":
            bases.extend(src.text(v) for v in child.named_children)
    return tuple(bases)


def _parameters(src: Source, params) -> list[tuple[str, str | None]]:
    """(name, type annotation) of each parameter; destructured ones give each bound name."""
    if params.type == "identifier":
        return [(src.text(params), None)]
    found: list[tuple[str, str | None]] = []
    for p in params.named_children:
        pattern = p.child_by_field_name("pattern") if p.type in ("required_parameter", "optional_parameter") else p
        annotation = p.child_by_field_name("type")
        ann = src.text(annotation).lstrip(":").strip() if annotation is not None else None
        found.extend((n, ann) for n in _pattern_names(src, pattern))
    return found


def _pattern_names(src: Source, node):
    if node is None:
        return
    t = node.type
    if t in ("identifier", "shorthand_property_identifier_pattern"):
        yield src.text(node)
    elif t == "assignment_pattern":
        yield from _pattern_names(src, node.child_by_field_name("left"))
    elif t == "pair_pattern":
        yield from _pattern_names(src, node.child_by_field_name("value"))
    elif t in ("object_pattern", "array_pattern", "rest_pattern", "object_assignment_pattern"):
        for child in node.named_children:
            yield from _pattern_names(src, child)


def _callee(src: Source, node) -> str:
    """``f``, ``a.b.c``, ``this.m``, ``super().m`` (``super.m``), ``super`` (``super(...)``),
    ``new C``, ``new ns.C``, ``make().run``; any other shape keeps its text."""
    if node.type == "new_expression":
        target = node.child_by_field_name("constructor")
        return "new " + (_dotted(src, target) or collapse(src.text(target))[:160])
    fn = node.child_by_field_name("function")
    if fn.type == "super":
        return "super"
    found = _members(src, fn)  # the chain walked once for every reading of it
    if found is not None and (named := _named(src, *found) or _of_literal(*found) or _on_a_call(src, *found)):
        return named
    member = fn.child_by_field_name("property") if fn.type == "member_expression" else None
    return as_written(src.text(fn), src.text(member) if member else "")


def _of_literal(parts: list[str], base) -> str | None:
    """``<literal>.join``: a literal's own method, its type's (qa141, qa142)."""
    return ".".join([LITERAL, *parts]) if parts and base.type in _LITERALS else None


def _on_a_call(src: Source, parts: list[str], base) -> str | None:
    """``make().run``, ``new Store().go``, ``toThenable()().then``: members of what a call
    returns, the calls' arguments left out (a callback's body had been the callee's text)."""
    while base.type in ("parenthesized_expression", "await_expression") and base.named_children:
        base = base.named_children[0]  # `(await make()).go`
    if not parts or base.type not in ("call_expression", "new_expression"):
        return None
    return _callee(src, base) + "()." + ".".join(parts)


def _dotted(src: Source, node) -> str | None:
    found = _members(src, node)
    return _named(src, *found) if found is not None else None


def _named(src: Source, parts: list[str], base) -> str | None:
    """``a.b.c``, ``this.m``, ``super().m``: a chain that starts from a name."""
    if base.type in ("identifier", "this"):
        return ".".join([src.text(base), *parts])
    if base.type == "super" and parts:
        return ".".join(["super()", *parts])
    return None


def _members(src: Source, node) -> tuple[list[str], Any] | None:
    """The names of a chain of members (``a.b.c``: ``["b", "c"]``) and what the chain starts
    from; None when a member is computed (``a[k]``)."""
    parts = []
    while (node := _ungrouped(node)).type == "member_expression":
        prop = node.child_by_field_name("property")
        if prop.type not in ("property_identifier", "private_property_identifier"):
            return None
        parts.append(src.text(prop))
        node = node.child_by_field_name("object")
    return parts[::-1], node


def _ungrouped(node):
    """The value inside its wrappers (:data:`_WRAPPERS`): ``(api).go``, ``api!.go``, ``(api as
    Api).go`` and ``(<Api>api).go`` are calls of ``api.go`` (they had been no call of any method,
    qa139); ``<Api>api`` holds its value last, after the type (qa141)."""
    while node.type in _WRAPPERS and node.named_children:
        node = node.named_children[-1 if node.type == "type_assertion" else 0]
    return node


def _string(src: Source, node) -> str:
    return "".join(src.text(c) for c in node.named_children if c.type == "string_fragment")


def _imports(src: Source, node):
    """(local, module, name, line, aliased) for each name an import statement binds."""
    source = node.child_by_field_name("source")
    clause = next((c for c in node.named_children if c.type == "import_clause"), None)
    if source is None or clause is None:
        return
    module, ln = _string(src, source), line(node)
    for part in clause.named_children:
        if part.type == "identifier":
            yield src.text(part), module, "default", ln, False
        elif part.type == "namespace_import":
            yield src.text(part.named_children[0]), module, None, ln, True
        elif part.type == "named_imports":
            for spec in part.named_children:
                if spec.type != "import_specifier":
                    continue
                name = src.text(spec.child_by_field_name("name"))
                alias = spec.child_by_field_name("alias")
                yield (src.text(alias) if alias else name), module, name, ln, alias is not None


def _exports(src: Source, node) -> list[Export]:
    ln = line(node)
    default = any(c.type == "default" for c in node.children)
    source = node.child_by_field_name("source")
    module = _string(src, source) if source is not None else None
    declaration = node.child_by_field_name("declaration")
    if declaration is not None and declaration.type == "ambient_declaration" and declaration.named_children:
        declaration = declaration.named_children[0]  # `export declare function f(): T;` (qa174)
    if declaration is not None:
        named = declaration.named_children if declaration.type in ("lexical_declaration", "variable_declaration") \
            else [declaration]
        names = [src.text(n.child_by_field_name("name")) for n in named
                 if n.child_by_field_name("name") is not None]
        return [Export("default" if default else n, n, None, ln) for n in names]
    value = node.child_by_field_name("value")
    if value is not None:
        return [Export("default", src.text(value), None, ln)] if value.type == "identifier" else []
    found = []
    for child in node.named_children:
        if child.type == "export_clause":
            for spec in child.named_children:
                if spec.type != "export_specifier":  # a comment inside the braces
                    continue
                name = src.text(spec.child_by_field_name("name"))
                alias = spec.child_by_field_name("alias")
                found.append(Export(src.text(alias) if alias else name, name, module, ln))
        elif child.type == "namespace_export":
            found.append(Export(src.text(child.named_children[0]), None, module, ln))
    if not found and module is not None:
        found.append(Export("*", None, module, ln))
    return found


def _in_namespace(node) -> bool:
    """An ``export`` inside ``namespace X { ... }`` offers a member of X, not of the file."""
    parent = node.parent
    while parent is not None:
        if parent.type == "internal_module":
            return True
        parent = parent.parent
    return False


def _constructors_as_classes(defs: list[RawDef]) -> None:
    """A top-level function given methods through its prototype is a class: `new Bus()` is
    its construction, and `this` in `Bus.prototype.publish` is a Bus."""
    owners = {d.parent for d in defs if d.kind == "method" and getattr(d.node, "type", None) == "assignment_expression"}
    for d in defs:
        if d.kind == "function" and d.name in owners and getattr(d.node, "parent", None) is not None \
                and _top_level(d.node):
            d.kind = "class"


def _top_level(node) -> bool:
    """Whether a declaration sits in the module itself (or its export), in no function or block."""
    parent = node.parent
    while parent is not None and parent.type in ("lexical_declaration", "variable_declaration", "export_statement"):
        parent = parent.parent
    return parent is not None and parent.type == "program"


def _prototype_member(src: Source, assignment) -> tuple[str | None, str | None]:
    """``(Bus, publish)`` of ``Bus.prototype.publish = function ...``, a method before classes
    (it had been no symbol, and `bus.publish()` no call of it); ``(None, None)`` otherwise."""
    parts = (_dotted(src, assignment.child_by_field_name("left")) or "").split(".")
    if len(parts) == 3 and parts[1] == "prototype" and parts[0] not in ("this", "super()"):
        return parts[0], parts[2]
    return None, None


def _commonjs_name(src: Source, assignment) -> str | None:
    """``x`` of ``exports.x = ...`` or ``module.exports.x = ...``; None for any other target."""
    head, _, name = (_dotted(src, assignment.child_by_field_name("left")) or "").rpartition(".")
    return name if head in ("module.exports", "exports") else None


def _commonjs_exports(src: Source, left) -> list[Export]:
    """CommonJS's exports, as ``export`` states them: ``module.exports = { a, b: c }``,
    ``module.exports.a = a`` and ``exports.a = a`` (a name of this file), ``module.exports = f``
    (its default). What ``require`` binds resolves through them: a require-d module's
    functions were "not exported"."""
    target, right = _dotted(src, left), left.parent.child_by_field_name("right")
    if target is None or right is None:
        return []
    ln = line(left)
    if target == "module.exports":
        if right.type == "identifier":
            return [Export("default", src.text(right), None, ln)]
        found = []
        for part in right.named_children if right.type == "object" else ():
            if part.type == "shorthand_property_identifier":
                found.append(Export(src.text(part), src.text(part), None, ln))
            elif part.type == "pair" and part.child_by_field_name("value").type == "identifier":
                key = part.child_by_field_name("key")
                found.append(Export(src.text(key), src.text(part.child_by_field_name("value")), None, ln))
        return found
    name = _commonjs_name(src, left.parent)
    if name is not None and right.type == "identifier":
        return [Export(name, src.text(right), None, ln)]
    if name is not None and right.type in _FUNCTION_VALUES:  # defined right there, by that name
        return [Export(name, name, None, ln)]
    return []


def _bind_target(src: Source, node, out: Extracted) -> None:
    parent = node.parent
    if node.type == "identifier" and (_function_value(parent) is not None or _class_value(parent)):
        return  # a function or class symbol, not a plain binding (`const C = class {}` in a function, qa174)
    value = parent.child_by_field_name("value") if parent.type == "variable_declarator" else None
    ln = line(node)
    if value is not None and value.type == "call_expression" and _is_require(src, value):
        module = _string(src, value.child_by_field_name("arguments").named_children[0])
        if node.type == "identifier":
            out.events.append((node.start_byte, "import", (src.text(node), module, None, ln, True)))
            return
        if node.type == "object_pattern":  # `const { a, b: c } = require(...)`
            for part in node.named_children:
                if part.type == "shorthand_property_identifier_pattern":
                    name = src.text(part)
                    out.events.append((node.start_byte, "import", (name, module, name, ln, False)))
                elif part.type == "pair_pattern" and part.child_by_field_name("value").type == "identifier":
                    local = src.text(part.child_by_field_name("value"))
                    name = src.text(part.child_by_field_name("key"))
                    out.events.append((node.start_byte, "import", (local, module, name, ln, True)))
            return
    # bound there alone: inside a callback handed to a call (qa164), or a `const`/`let` in a block
    # (an `if`'s: `const save` there had taken the imported `save(4)` after the block, qa165)
    within = _callback_around(node) or _block_around(node) or \
        (node.parent if node.parent is not None and node.parent.type == "catch_clause" else None)
    for name in _pattern_names(src, node):
        if within is not None:
            out.events.append((node.start_byte, "bind", (name, ln, "inline", None, None, False, end_line(within))))
        else:
            out.events.append((node.start_byte, "bind", (name, ln, "assign", *_declared(src, node))))


def _declared(src: Source, target) -> tuple[str | None, str | None]:
    """(the declared type, the ``new`` that makes the value) of ``const x: T = new C()``, what
    local_types.py may type a local by. ``new C`` only for a ``const``: a ``let``/``var`` may be
    assigned again where no binding is recorded; a declared type holds for every assignment."""
    declarator = target.parent
    if target.type != "identifier" or declarator is None or declarator.type != "variable_declarator":
        return None, None
    annotation = declarator.child_by_field_name("type")
    declared = src.text(annotation).lstrip(":").strip() if annotation is not None else None
    value = declarator.child_by_field_name("value")
    keyword = declarator.parent.child(0) if declarator.parent is not None else None
    made = _callee(src, value) if value is not None and value.type == "new_expression" and keyword is not None \
        and keyword.type == "const" else None
    return declared, made


def _block_around(node):
    """The block a ``const`` or ``let`` is declared in when that is no function's body (an
    ``if``'s, a loop's, a bare ``{ }``), or the loop whose header declares it (``for (const
    x of xs)``, ``for (let i = 0; ...)``: its name had been seen function-wide, qa167); else None."""
    loop = node.parent
    if loop is not None and loop.type == "for_in_statement" and \
            (kind := loop.child_by_field_name("kind")) is not None and kind.type in ("const", "let"):
        return loop
    declaration = node.parent.parent if node.parent is not None else None
    if declaration is None or declaration.type != "lexical_declaration":
        return None
    if declaration.parent is not None and declaration.parent.type == "for_statement":
        return declaration.parent
    block = declaration.parent
    if block is None or block.type != "statement_block" or block.parent is None:
        return None
    return None if block.parent.type in (*_FUNCTIONS, "class_static_block") else block


def _block_holding(declaration):
    """The block a function or class declaration is written in when that is no function's body
    (an ``if``'s, a loop's): a module's code is strict, where such a declaration is the block's
    alone; else None."""
    if getattr(declaration, "type", None) == "class" and declaration.parent is not None \
            and declaration.parent.type == "variable_declarator":  # `const Store = class {...}` in an `if` (qa188)
        return _block_around(declaration.parent.child_by_field_name("name"))
    block = getattr(declaration, "parent", None)
    if getattr(declaration, "type", None) not in ("function_declaration", "generator_function_declaration",
                                                   "class_declaration") or block is None \
            or block.type != "statement_block" or block.parent is None:
        return None
    return None if block.parent.type in (*_FUNCTIONS, "class_static_block") else block


def _callback_around(node):
    """The function a binding lies in when that is a callback handed to a call
    (`test('renders', () => { const render = ...; render(); })`), else None: its `render()`
    had been a call of the file's `render` (qa164)."""
    while (node := node.parent) is not None and node.type not in (*_FUNCTIONS, "class_body"):
        pass
    return node if node is not None and node.type in ("arrow_function", "function_expression") and \
        node.parent is not None and node.parent.type == "arguments" else None


def _is_require(src: Source, call) -> bool:
    """``require("./x")``: CommonJS binds the module like an import does."""
    fn = call.child_by_field_name("function")
    args = call.child_by_field_name("arguments")
    return (fn is not None and fn.type == "identifier" and src.text(fn) == "require" and args is not None
            and len(args.named_children) == 1 and args.named_children[0].type == "string")
