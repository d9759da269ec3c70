"""Go, Rust and Java: definitions, imports, calls and typed local bindings.

These languages declare types where Python and JavaScript do not, so bindings keep the type
as written (a Go receiver, a Rust ``self`` in an ``impl``, a Java parameter or local): the
resolver follows ``recv.M()`` through it. Go methods and Rust ``impl`` methods are named
after their type (``OrderBook.Place``, ``Point.new``), wherever the type is declared.
"""

from __future__ import annotations

from vault_engine.sources.code.syntax import (
    LITERAL,
    Extracted,
    RawDef,
    Source,
    collapse,
    doc_comment,
    end_line,
    header,
    line,
)

_EXTRA = {
    "go": """
(type_alias) @definition.alias
(import_spec) @import
(short_var_declaration left: (_) @target)
(var_spec) @target.spec
(range_clause left: (_) @target)
(type_switch_statement alias: (_) @target)
(func_literal) @params.inline
(call_expression function: (index_expression)) @reference.call
(type_conversion_expression type: (generic_type)) @reference.call
""",
    "rust": """
(impl_item) @definition.impl
(mod_item body: (_)) @definition.mod
(function_signature_item) @definition.sig
(call_expression) @call
(macro_invocation (token_tree) @macro.args)
(use_declaration) @import
(let_declaration pattern: (_) @target)
(closure_expression) @params.inline
(for_expression pattern: (_) @target)
""",
    "java": """
(constructor_declaration) @definition.ctor
(enum_declaration) @definition.enum
(record_declaration) @definition.record
(method_invocation) @call
(object_creation_expression) @call
(object_creation_expression (class_body)) @definition.anon
(enum_constant body: (class_body)) @definition.anon
(explicit_constructor_invocation) @call
(import_declaration) @import
(local_variable_declaration) @target.typed
(field_declaration) @target.typed
(enhanced_for_statement) @target.typed
(catch_formal_parameter name: (_) @target)
(lambda_expression) @params.inline
""",
}
_DEF_CAPTURES = ("definition.function", "definition.method", "definition.class", "definition.interface",
                 "definition.type", "definition.alias", "definition.impl", "definition.mod", "definition.sig",
                 "definition.ctor", "definition.enum", "definition.record", "definition.anon")
_KINDS = {
    "function_declaration": "function", "method_declaration": "method", "type_alias": "type",
    "function_item": "function", "function_signature_item": "method", "struct_item": "struct",
    "union_item": "struct", "enum_item": "enum", "type_item": "type", "trait_item": "trait",
    "impl_item": "impl", "mod_item": "module", "class_declaration": "class",
    "interface_declaration": "interface", "enum_declaration": "enum", "record_declaration": "class",
    "constructor_declaration": "constructor",
}
_DOC = {"go": ("//",), "rust": ("///", "/**"), "java": ("/**",)}
_CALLS = {"go": "reference.call", "rust": "call", "java": "call"}


def extra_query(language: str) -> str:
    """The extractor's own patterns for one of its languages."""
    return _EXTRA[language]


def extract(src: Source, caps: dict, language: str) -> Extracted:
    """Everything one Go, Rust or Java file declares, binds and calls."""
    out = Extracted()
    seen = set()
    nodes = [n for c in _DEF_CAPTURES for n in caps.get(c, [])]
    for node in sorted(nodes, key=lambda n: n.start_byte):
        if node.id not in seen:
            seen.add(node.id)
            d = _definition(src, node, language, out)
            if d is not None:
                out.defs.append(d)
    for node in caps.get(_CALLS[language], []):
        callee = _callee(src, node, language)
        if callee:
            out.events.append((node.start_byte, "call", (callee, line(node), _arguments(node, language))))
    for node in caps.get("macro.args", []):  # `write!(f, "{}", self.value())`: tokens, not a call_expression
        for callee, at in _macro_calls(src, node):
            out.events.append((at.start_byte, "call", (callee, line(at))))
    for node in caps.get("import", []):
        for fields in _imports(src, node, language):
            out.events.append((node.start_byte, "import", fields))
    _bindings(src, caps, language, out)
    return out


def join(parent: RawDef, d: RawDef) -> str:
    """A Rust method is named after its ``impl``'s type, not after the ``impl`` block."""
    return f"{parent.extra.get('type', parent.qualname)}.{d.name}"


def _definition(src: Source, node, language: str, out: Extracted) -> RawDef | None:
    t = node.type
    if t == "type_spec":
        kind = {"struct_type": "struct", "interface_type": "interface"}.get(
            node.child_by_field_name("type").type, "type")
    elif t in _KINDS:
        kind = _KINDS[t]
    elif t in ("object_creation_expression", "enum_constant"):  # Java's anonymous class, `new Comparator<T>()
        # { ... }`, or an enum constant's body, `A { area() ... }`: its methods, `this` and `super` are its
        # own, not the class around it's (qa162, qa165)
        kind = "class"
    else:
        return None
    outer = node.parent if t in ("type_spec", "type_alias") and len(node.parent.named_children) == 1 else node
    decorators = _decorators(src, node, language)
    first = decorators[0] if decorators and language == "rust" else outer
    body = node.child_by_field_name("body") or next((c for c in node.named_children if c.type == "class_body"), None)
    keyword = node
    if language == "java":  # the annotations sit in the modifiers: the header starts after them
        keyword = next((c for c in node.children if c.type != "modifiers"), node)
    name = _name(src, node, t)
    bases = _bases(src, node)
    if t == "object_creation_expression":  # named `$Comparator` after what it implements, as its base
        bases = (_type_name(src, node.child_by_field_name("type")),)
        name = f"${bases[0]}"
    elif t == "enum_constant":  # `Kind.A`, a kind of its enum
        enum = node.parent.parent if node.parent is not None else None
        bases = (src.text(enum.child_by_field_name("name")),) if enum is not None and enum.type == "enum_declaration" \
            else ()
    d = RawDef(node, name, kind, line(first), line(keyword), end_line(node),
               header(src, keyword.start_byte, body.start_byte if body is not None else node.end_byte).rstrip(";"),
               (node.start_byte, node.end_byte), doc_comment(src, first, _DOC[language]),
               decorators=tuple(_decorator_text(src, x) for x in decorators), bases=bases)
    if t == "impl_item":
        d.extra["type"] = _in_modules(src, node) + _type_name(src, node.child_by_field_name("type"))
    if t == "method_declaration" and language == "go":
        receiver = node.child_by_field_name("receiver")
        decl = next((c for c in receiver.named_children if c.type == "parameter_declaration"), None)
        rtype = _type_name(src, decl.child_by_field_name("type")) if decl is not None else "?"
        d.qualname, d.parent = f"{rtype}.{name}", rtype
        if decl is not None and decl.child_by_field_name("name") is not None:
            out.params.append((d, src.text(decl.child_by_field_name("name")), line(node), rtype))
    if language == "rust" and t == "function_item" and _enclosing_impl_type(src, node) is not None:
        d.kind = "method"
    if language == "rust" and t == "function_item" and node.parent is not None and node.parent.type == "block" \
            and node.parent.parent is not None and node.parent.parent.type != "function_item":
        d.visible = (line(node.parent), end_line(node.parent))  # a `fn` in an inner block is seen there (qa167)
    if t == "type_spec":
        typ = node.child_by_field_name("type")
        d.signature = (header(src, outer.start_byte, typ.start_byte) + " " + typ.type[:-5]
                       if kind in ("struct", "interface") else collapse(src.span(outer.start_byte, node.end_byte)))
    params = node.child_by_field_name("parameters")
    if params is not None and t not in ("record_declaration",):
        found = _parameters(src, params, language)
        result = node.child_by_field_name("result") if language == "go" else None
        if result is not None and result.type == "parameter_list":  # Go's named results bind too (qa162)
            out.params.extend((d, n, line(result), a) for n, a in _parameters(src, result, language))
        d.parameters = tuple(n for n, _ in found)
        self_type = _enclosing_impl_type(src, node) if language == "rust" else None
        out.params.extend((d, n, line(params), self_type if n == "self" else a) for n, a in found)
    return d


def _name(src: Source, node, t: str) -> str:
    if t == "impl_item":
        trait = node.child_by_field_name("trait")
        own = _type_name(src, node.child_by_field_name("type"))
        return f"impl {src.text(trait)} for {own}" if trait is not None else f"impl {own}"
    name = node.child_by_field_name("name")
    return src.text(name) if name is not None else "?"


def _type_name(src: Source, node, qualified: bool = False) -> str:
    """``*T``, ``T[K]``, ``T<U>``, ``&mut T``, ``pkg::T``: the type's own name; ``qualified``,
    a Go type of another package keeps its package's name (``st.Ledger``), which the resolver
    leads through the file's imports (qa159)."""
    while node is not None and node.type in ("pointer_type", "generic_type", "reference_type",
                                             "scoped_type_identifier", "qualified_type"):
        if qualified and node.type == "qualified_type":
            return src.text(node)
        # Java's `Box<Integer>` names no field: the type comes first, its arguments last (qa159)
        node = node.child_by_field_name("type") or node.child_by_field_name("name") or \
            node.named_children[0 if node.type == "generic_type" else -1]
    return src.text(node) if node is not None else "?"


def _enclosing_impl_type(src: Source, node) -> str | None:
    parent = node.parent
    if parent is not None and parent.type == "declaration_list" and parent.parent is not None:
        owner = parent.parent
        if owner.type == "impl_item":
            return _in_modules(src, owner) + _type_name(src, owner.child_by_field_name("type"))
        if owner.type == "trait_item":
            return _in_modules(src, owner) + src.text(owner.child_by_field_name("name"))
    return None


def _in_modules(src: Source, node) -> str:
    """``outer.inner.`` for an item in Rust's inline ``mod outer { mod inner { .. } }``: an
    ``impl`` there is of the type declared beside it (`inner.Thing`), whose methods had been
    named as if at the file's top (`Thing.go` beside `inner.Thing`)."""
    names = []
    while (node := node.parent) is not None:
        if node.type == "mod_item" and (name := node.child_by_field_name("name")) is not None:
            names.append(src.text(name))
    return "".join(f"{n}." for n in reversed(names))


def _decorators(src: Source, node, language: str) -> list:
    if language == "java":
        modifiers = next((c for c in node.children if c.type == "modifiers"), None)
        return [c for c in modifiers.named_children if c.type.endswith("annotation")] if modifiers else []
    if language != "rust":
        return []
    found: list = []
    prev = node.prev_named_sibling
    while prev is not None and prev.type == "attribute_item":
        found.insert(0, prev)
        prev = prev.prev_named_sibling
    return found


def _decorator_text(src: Source, node) -> str:
    text = src.text(node)
    return text[2:-1].strip() if text.startswith("#[") else text.lstrip("@").strip()


def _bases(src: Source, node) -> tuple[str, ...]:
    bases: list[str] = []
    for field in ("superclass", "interfaces"):
        clause = node.child_by_field_name(field)
        if clause is not None:
            for child in clause.named_children:
                items = child.named_children if child.type == "type_list" else [child]
                bases.extend(src.text(x) for x in items)
    for child in node.named_children:
        if child.type == "extends_interfaces":
            for tl in child.named_children:
                bases.extend(src.text(x) for x in tl.named_children)
    bases += _embedded(src, node)
    trait = node.child_by_field_name("trait") if node.type == "impl_item" else None
    return tuple(bases) + ((src.text(trait),) if trait is not None else ())


def _embedded(src: Source, node) -> list[str]:
    """The structs a Go struct embeds (`type Derived struct{ Base }`): their methods are its
    own, and `d.Hello()` of `Base` had been no call at all (qa147)."""
    struct = node.child_by_field_name("type") if node.type == "type_spec" else None
    if struct is None or struct.type != "struct_type":
        return []
    return [src.text(typ).lstrip("*") for fields in struct.named_children for f in fields.named_children
            if f.type == "field_declaration" and f.child_by_field_name("name") is None
            and (typ := f.child_by_field_name("type")) is not None]


def _parameters(src: Source, params, language: str) -> list[tuple[str, str | None]]:
    """(name, type as written) of each parameter."""
    found: list[tuple[str, str | None]] = []
    for p in params.named_children:
        if p.type == "self_parameter":
            found.append(("self", None))
            continue
        annotation = p.child_by_field_name("type")
        ann = _type_name(src, annotation, qualified=True) if annotation is not None else None
        if language == "go":  # `a, b int`: several names share a type
            found.extend((src.text(n), ann) for n in p.children_by_field_name("name"))
            continue
        target = p.child_by_field_name("pattern") or p.child_by_field_name("name")
        if target is None:
            target = next((c for c in p.named_children if c.type == "identifier"), None)
        for n in _names(src, target):
            found.append((n, ann))
    return found


def _initializer(target):
    """The one expression a Rust ``let``, a Go ``:=`` or ``var x = ...`` binds its one target to, or None."""
    statement = target.parent
    if statement is None:
        return None
    if statement.type == "let_declaration":
        return statement.child_by_field_name("value")
    right = statement.child_by_field_name("right") if statement.type == "short_var_declaration" else \
        statement.child_by_field_name("value") if statement.type == "var_spec" else None
    values = right.named_children if right is not None else []
    return values[0] if len(values) == 1 else None


def _made(src: Source, value, language: str) -> tuple[str | None, str | None]:
    """What a local is bound to, when that says its type: (the type a literal or ``new`` makes
    as written, the callee of a call whose declared return the resolver reads), else Nones.
    ``Ledger { .. }``, ``&Inventory{..}`` and ``new Catalog()`` make their type; ``Ledger::new()``
    and ``store.NewInventory()`` make what their signature returns (static_resolver.py)."""
    if value is None:
        return None, None
    if value.type in ("reference_expression", "unary_expression") and src.text(value)[:1] == "&":
        value = value.named_children[-1] if value.named_children else None
        if value is None:
            return None, None
    if value.type in ("struct_expression", "composite_literal", "object_creation_expression"):
        typ = value.child_by_field_name("name" if value.type == "struct_expression" else "type")
        return (_type_name(src, typ, qualified=True), None) if typ is not None else (None, None)
    if value.type == "call_expression":
        return None, _callee(src, value, language)
    return None, None


def _names(src: Source, node):
    if node is None:
        return
    if node.type in ("identifier", "shorthand_field_identifier"):
        yield src.text(node)
    elif node.type in ("expression_list", "tuple_pattern", "struct_pattern", "tuple_struct_pattern",
                       "mut_pattern", "ref_pattern", "field_pattern", "slice_pattern", "variable_declarator",
                       "reference_pattern"):
        for child in node.named_children:
            if child.type not in ("type_identifier", "scoped_type_identifier", "field_identifier"):
                yield from _names(src, child)


_PATH_TOKENS = ("identifier", "self", "crate", "super")


def _macro_calls(src: Source, tree):
    """The calls written in a Rust macro's arguments, which the grammar keeps as tokens:
    ``self.value()``, ``util::helper(2)``, ``other(x)`` (a path of names, then ``(``), in
    nested groups too; a macro's own name (``vec![...]``) is none. (``format!``, ``write!``
    and ``assert!`` hold many of a program's calls: ``callers`` said none.)"""
    children = tree.children
    for n, child in enumerate(children):
        if child.type != "token_tree":
            continue
        yield from _macro_calls(src, child)
        if not child.children or child.children[0].type != "(":
            continue
        parts, k, whole = [], n - 1, False  # the path read backwards from the `(`
        while k >= 0 and children[k].type in _PATH_TOKENS:
            parts.append(src.text(children[k]))
            if k >= 1 and children[k - 1].type in (".", "::"):
                k -= 2
            else:
                whole = True  # it starts here; `x.0.foo()` (a field of a number) is no call we can name
                break
        if whole:
            yield ".".join(reversed(parts)), children[n - 1]


def _arguments(node, language: str) -> int | None:
    """How many arguments a Java call passes (what picks an overload); None elsewhere."""
    arguments = node.child_by_field_name("arguments") if language == "java" else None
    if arguments is None:
        return None
    return sum(1 for c in arguments.named_children if c.type not in ("line_comment", "block_comment"))


def _new_of(src: Source, node) -> str:
    """``new K`` of a Java ``new K<T>(...)``; ``new Line.Item`` keeps its path: which ``Item``
    it is (qa162)."""
    typ = node.child_by_field_name("type")
    typ = typ.named_children[0] if typ is not None and typ.type == "generic_type" else typ
    return "new " + (src.text(typ) if typ is not None and typ.type == "scoped_type_identifier"
                     else _type_name(src, typ))


def _callee(src: Source, node, language: str) -> str | None:
    t = node.type
    if t == "object_creation_expression":
        return _new_of(src, node)
    if t == "explicit_constructor_invocation":
        return src.text(node.child_by_field_name("constructor"))  # super | this
    if t == "method_invocation":
        name = src.text(node.child_by_field_name("name"))
        obj = node.child_by_field_name("object")
        if obj is None:
            return name
        base = "super()" if obj.type == "super" else LITERAL if obj.type in _LITERALS else _dotted(src, obj)
        if obj.type == "object_creation_expression" and not any(c.type == "class_body" for c in obj.named_children):
            base = f"{_new_of(src, obj)}()"  # `new K(2).h()`, its arguments left out as other calls' (qa165)
        return f"{base}.{name}" if base else f"{collapse(src.text(obj))[:120]}.{name}"
    if t == "type_conversion_expression":  # Go's `First[int](x)`: a generic function called (qa165)
        typ = node.child_by_field_name("type")
        return src.text(typ.child_by_field_name("type")) if typ is not None else None
    fn = node.child_by_field_name("function")
    if fn is None:
        return None
    if fn.type == "generic_function":
        fn = fn.child_by_field_name("function")
    if fn.type == "index_expression":  # Go's `store.NewRepo[Order]()`
        fn = fn.child_by_field_name("operand")
    value = fn.child_by_field_name("operand") or fn.child_by_field_name("value")  # a Go selector, a Rust field
    if fn.type in ("selector_expression", "field_expression") and value is not None and value.type in _LITERALS:
        return f"{LITERAL}.{src.text(fn.child_by_field_name('field'))}"  # `"x".to_string()`: the type's
    return _dotted(src, fn) or collapse(src.text(fn))[:160]


# literals, whose methods are their types': Rust's, Go's and Java's (a struct literal of the
# code's own type, `Inventory{n: 1}.Restock()`, is none of them)
_LITERALS = frozenset({"string_literal", "raw_string_literal", "char_literal", "integer_literal", "float_literal",
                       "boolean_literal", "array_expression", "tuple_expression", "interpreted_string_literal",
                       "int_literal", "rune_literal", "character_literal", "decimal_integer_literal",
                       "decimal_floating_point_literal", "hex_integer_literal", "text_block", "true", "false",
                       "null_literal"})


def _dotted(src: Source, node) -> str | None:
    """``a.b.c`` for Go selectors, Rust paths (``A::b``) and fields, Java field access."""
    t = node.type
    if t in ("identifier", "this", "self", "crate", "super", "field_identifier", "type_identifier",
             "package_identifier"):
        return src.text(node)
    pairs = {"selector_expression": ("operand", "field"), "scoped_identifier": ("path", "name"),
             "field_expression": ("value", "field"), "field_access": ("object", "field")}
    if t not in pairs:
        return None
    left, right = (node.child_by_field_name(f) for f in pairs[t])
    if right is None:
        return None
    base = _dotted(src, left) if left is not None else ""
    return f"{base}.{src.text(right)}" if base else (None if left is not None else src.text(right))


def _imports(src: Source, node, language: str):
    """(local, module, name, line, aliased) for each name an import binds."""
    ln = line(node)
    if language == "go":
        path = src.text(node.child_by_field_name("path")).strip('"`')
        name = node.child_by_field_name("name")
        local = src.text(name) if name is not None else path.rsplit("/", 1)[-1]
        yield local, path, None, ln, name is not None
    elif language == "java":
        target = next((c for c in node.named_children if c.type in ("scoped_identifier", "identifier")), None)
        if target is None:
            return
        dotted = src.text(target)
        if any(c.type == "asterisk" for c in node.named_children):
            yield "*", dotted, "*", ln, False
        else:
            module, _, name = dotted.rpartition(".")
            yield name, module, name, ln, False
    else:
        yield from _rust_uses(src, node.child_by_field_name("argument"), "", ln)


def _rust_uses(src: Source, node, prefix: str, ln: int):
    if node is None:
        return
    t = node.type
    if t in ("identifier", "self", "crate", "super"):
        yield src.text(node), prefix, src.text(node), ln, False
    elif t == "scoped_identifier":
        path = node.child_by_field_name("path")
        full = "::".join(x for x in (prefix, src.text(path) if path is not None else "") if x)
        name = src.text(node.child_by_field_name("name"))
        yield name, full, name, ln, False
    elif t == "use_as_clause":
        inner = list(_rust_uses(src, node.child_by_field_name("path"), prefix, ln))
        alias = src.text(node.child_by_field_name("alias"))
        for _, module, name, _, _ in inner[:1]:
            yield alias, module, name, ln, True
    elif t == "scoped_use_list":
        path = node.child_by_field_name("path")
        full = "::".join(x for x in (prefix, src.text(path) if path is not None else "") if x)
        yield from _rust_uses(src, node.child_by_field_name("list"), full, ln)
    elif t == "use_list":
        for child in node.named_children:
            yield from _rust_uses(src, child, prefix, ln)
    elif t == "use_wildcard":
        star = node.named_children[0] if node.named_children else None
        yield "*", "::".join(x for x in (prefix, src.text(star) if star else "") if x), "*", ln, False


def _bindings(src: Source, caps: dict, language: str, out: Extracted) -> None:
    for node in caps.get("target", []):
        bound = list(_names(src, node))
        made = _made(src, _initializer(node), language) if len(bound) == 1 else (None, None)
        for name in bound:
            out.events.append((node.start_byte, "bind", (name, line(node), "assign", *made)))
    for node in caps.get("target.spec", []):  # Go `var a, b T = ...`
        ann = node.child_by_field_name("type")
        names = node.children_by_field_name("name")
        # `var s = NewStore()` types `s` as `s := NewStore()` does (it had not, qa148)
        made = _made(src, _initializer(names[0]), language) if len(names) == 1 and ann is None else (None, None)
        for name in names:
            out.events.append((node.start_byte, "bind", (src.text(name), line(node), "assign",
                                                          _type_name(src, ann, True) if ann else made[0], made[1])))
    for node in caps.get("target.typed", []):  # Java `T x = ...;`, `for (T x : xs)`, a field `T x;`
        ann = node.child_by_field_name("type")
        declared = _type_name(src, ann) if ann is not None and src.text(ann) != "var" else None
        if ann is not None and declared is None:  # `var x = new T(...)`
            value = next((d.child_by_field_name("value") for d in node.children_by_field_name("declarator")), None)
            declared = _made(src, value, language)[0]
        for child in node.children_by_field_name("declarator") or node.children_by_field_name("name"):
            for name in ([src.text(child)] if child.type == "identifier" else _names(src, child)):
                out.events.append((node.start_byte, "bind", (name, line(node), "assign", declared)))
    for node in caps.get("params.inline", []):
        params = node.child_by_field_name("parameters")
        if params is None:
            continue
        names = _names(src, params) if params.type == "identifier" else (
            n for p in params.named_children for n in
            (_names(src, p.child_by_field_name("pattern") or p.child_by_field_name("name") or p)))
        for name in names:
            out.events.append((node.start_byte, "bind", (name, line(node), "inline", None, None, False,
                                                          end_line(node))))
