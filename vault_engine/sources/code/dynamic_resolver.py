"""Resolve Python and TypeScript/JavaScript calls by their scope rules, or not at all.

What a name denotes is looked up outward through the scopes (a local assignment or parameter
shadows everything further out, so such a call stays unresolved); imports are followed
through packages' re-exports and TS ``export``s with a cycle guard; ``self.m()``/``this.m()``
look in the enclosing class and then its in-repo bases (left to right, depth first, first
occurrence kept); a parameter annotated with an in-repo class is an instance of that class,
and so is a local whose one binding makes it certain (local_types.py).

Entities: ("def", path, Symbol) | ("module", key) | ("instance", path, class Symbol) |
("super", path, class Symbol) | ("external", what). A Python module key is its dotted name;
a TS module key is its path.
"""

from __future__ import annotations

import re

from vault_engine.sources.code.local_types import LocalTypes
from vault_engine.sources.code.model import Symbol
from vault_engine.sources.code.modules import ts_module_path
from vault_engine.sources.code.scopes import (
    CLASS_KINDS,
    ON_ONE_CALL,
    Index,
    Miss,
    Redefined,
    callee_parts,
    non_optional,
    python_module,
    unparsed,
)

_GENERIC_ARGS = re.compile(r"<.*>$")


class DynamicResolver:
    def __init__(self, index: Index, annotations: bool = True, local_types: bool = True):
        self.index = index
        self.annotations = annotations
        self.locals = LocalTypes(self) if local_types else None
        self._mro: dict[tuple, list] = {}

    # ---- a call site --------------------------------------------------------------------
    def resolve(self, path: str, caller: str | None, callee: str, line: int | None = None) -> tuple[str, str, str]:
        """(callee path, callee qualname, how) of a call at ``line``, or raises ``Miss``."""
        shape = callee_parts(callee)
        python = self.index.files[path].language == "python"
        if shape is None:
            on_one_call = ON_ONE_CALL.match(callee)
            if on_one_call is not None:
                return self._on_what_a_call_built(path, caller, on_one_call, python, line)
            raise unparsed(callee)
        is_new, parts = shape
        if not python and parts == ["super"]:
            return self._super_constructor(path, caller)
        entity, _, how = self.walk(path, caller, parts, python, line)
        return self._target(entity, how, is_new or python)

    def walk(self, path: str, caller: str | None, parts: list[str], python: bool, line: int | None = None):
        """(entity, receiver, how) of a dotted name seen from ``caller``: what it denotes,
        what its last part was taken from (None for a bare name), how; raises ``Miss``."""
        try:
            entity, how = self._head(path, caller, parts[0], python, line)
        except Redefined:
            if len(parts) == 1:
                raise  # a call of the name itself: an edge to each definition
            # `cli.main()` after two `def cli`: which one holds `main` is not in the syntax, and
            # it is no call of `cli` (it was an edge to each definition, qa62)
            raise Miss("redefined") from None
        receiver = None
        for at, part in enumerate(parts[1:], 2):
            try:
                receiver, entity = entity, self.member(entity, part)
            except Miss as miss:
                # an attribute the class does not bind in its body (`self.store = Store()` in
                # __init__, `this.store = new Store()`) is a receiver the syntax does not type
                # when the call goes on through it: `self.store.save()` had been a call of a
                # member no class has, and `callers Store.save` said "no callers" (qa147: 114
                # calls of click, `self.command.get_help(self)` among them)
                if miss.reason == "no_such_member" and at < len(parts) and entity[0] in ("instance", "super"):
                    raise Miss("attribute") from None
                raise
            how = how if how in ("self", "super", "annotation", "local") else "attr." + how.split(".")[-1]
        return entity, receiver, how

    def _on_what_a_call_built(self, path: str, caller: str | None, call: re.Match, python: bool,
                              line: int | None):
        """A method called on what one call returns: an instance of the class the call builds
        (`Option('+p').add_to_parser`, TS `new Store().go`; not a Python class with an in-repo
        ``__new__``, which may build anything, as local_types.py has it), else a receiver the
        syntax does not type (`make().run`), kept by the method's name (qa135: neither, they had
        read as no call at all). Of a chain of calls only the first is typed (qa138)."""
        is_new, head, members = call.groups()
        try:
            built, _, _ = self.walk(path, caller, head.split("."), python, line)
        except Miss:
            raise Miss("call_result") from None
        if built[0] != "def" or built[2].kind not in CLASS_KINDS or not (python or is_new) or \
                (python and self.class_member(built[1], built[2], "__new__") is not None):
            raise Miss("call_result")
        entity = ("instance", built[1], built[2])
        for part in members[1:].split("."):
            entity = self.member(entity, part)
        return self._target(entity, "constructed", False)

    def _target(self, entity, how: str, construct: bool):
        if entity[0] != "def":
            raise Miss("external", entity[1]) if entity[0] == "external" else Miss("not_callable")
        _, tpath, sym = entity
        if sym.kind in CLASS_KINDS and construct:
            python = self.index.files[tpath].language == "python"
            init = self.class_member(tpath, sym, "__init__" if python else "constructor")
            own = init is not None and init[0] == "def" and (init[1], init[2].parent) == (tpath, sym.qualname)
            if init is None or (init[0] == "def" and not own):
                # no constructor of its own: the edge goes to the class, so `callers IntRange`
                # finds `IntRange(...)` (an inherited __init__ would hide which class was built)
                return tpath, sym.qualname, "ctor.class"
            if own:
                return init[1], init[2].qualname, "ctor.init"
            raise Miss("ctor_assigned")
        return tpath, sym.qualname, how

    def _head(self, path: str, caller: str | None, name: str, python: bool, line: int | None):
        if name == "super()":
            return self._super(path, caller, python), "super"
        if name == "this" and not python:
            cls = self._this_class(path, caller)
            if cls is None:
                raise Miss("this")
            # in a static method `this` is the class: `this.convert()` there is the static one (qa164)
            in_static = _is_static(self._method_around(path, caller, cls))
            return ("def" if in_static else "instance", path, cls), "self"
        return self.lookup(path, caller, name, line)

    # ---- names --------------------------------------------------------------------------
    def lookup(self, path: str, scope: str | None, name: str, line: int | None = None):
        """(entity, how) of a bare name seen from ``scope`` (at ``line``: a callback's own
        definitions are seen only inside it); raises ``Miss``."""
        idx = self.index
        chain = idx.chain(path, scope)
        # Python's module and class bodies run in order: a call there sees what is bound above it
        # (`early = helper()` above `from pkg.other import helper` ran the `def` above, qa162)
        in_order = line is not None and idx.files[path].language == "python" and \
            all(s is None or idx.is_class(path, s) for s in chain)
        for s in chain:
            if s is not None and not idx.is_class(path, s):
                found = self._in_function(path, s, name, line)
                if found == "global":
                    return self._in_module_scope(path, name)
                if found is not None:
                    return found
                continue
            if s is None and line is not None and any(
                    b.kind == "inline" and b.until is not None and b.line <= line <= b.until
                    for b in idx.bindings.get((path, None), {}).get(name, ())):
                # inside a module-level callback whose parameter it is: `app.use((req, res, next) =>
                # next())` had been a call of the file's `next` (qa162)
                raise Miss("local")
            found = idx.last_binding(path, s, name, line, before=line if in_order else None)
            if found is None and in_order and s is None:  # bound only below: a NameError when run,
                found = idx.last_binding(path, s, name, line)  # read as the binding it would reach
            if found is not None:
                return self._binding_entity(path, s, found)
        if any(b.kind == "inline" for b in idx.bindings.get((path, None), {}).get(name, ())):
            raise Miss("local")  # a module-level callback's parameter: `items.map(item => item.save())`
        return self._star(path, name)

    def _in_function(self, path: str, scope: str, name: str, line: int | None = None):
        idx = self.index
        # a callback's own parameter or const binds inside the callback alone: elsewhere in the
        # function the name is the module's (each such call had been "local", unlisted, qa162)
        binds = [b for b in idx.bindings.get((path, scope), {}).get(name, ())
                 if b.until is None or line is None or b.line <= line <= b.until]
        kinds = {b.kind for b in binds}
        if "global" in kinds:
            return "global"
        if "nonlocal" in kinds:
            return None
        sym = idx.children.get((path, scope), {}).get(name)
        # a definition a callback holds is seen only inside that callback, in a function as at
        # module level: two `it` blocks' own `make` had each had both blocks' calls (qa147)
        seen = idx.seen_from(path, sym, line) if sym is not None else []
        if sym is not None and not seen:
            sym = None
        imports = idx.preferred_imports((path, scope), name)
        if binds:
            # Parameters of one symbol's several definitions (a property's getter and
            # setter) are alternatives, not a rebinding.
            if sym is None and not imports and all(b.kind == "param" for b in binds):
                found = self._param(path, scope, binds[0])
                if found is not None:
                    return found
            if self.locals is not None and sym is None and not imports:
                typed = self.locals.infer(path, scope, name, binds)
                if typed is not None:
                    return typed, "local"
            raise Miss("local")
        if sym is not None and imports:
            raise Miss("local")  # bound two ways: which one wins depends on the path taken
        if sym is not None:
            if len(seen) > 1:
                raise Redefined(path, seen)
            return ("def", path, seen[0]), "name.local"
        if imports:
            return self._import_entity(path, imports[-1], set()), "import"
        return None

    def _in_module_scope(self, path: str, name: str):
        """A name declared ``global``: the module's binding, else a star import."""
        found = self.index.last_binding(path, None, name)
        if found is None:
            return self._star(path, name)
        return self._binding_entity(path, None, found)

    def _binding_entity(self, path: str, scope: str | None, found):
        what, value = found
        if what == "def":
            return ("def", path, value), "name.module" if scope is None else "name.class"
        if what == "import":
            return self._import_entity(path, value, set()), "import"
        raise Miss("assigned")

    def _param(self, path: str, scope: str, binding):
        """``self``/``cls`` of a method, or a parameter annotated with an in-repo class."""
        idx = self.index
        sym = idx.symbol(path, scope)
        owner = idx.symbol(path, sym.parent) if sym is not None else None
        if (sym is not None and owner is not None and owner.kind == "class" and sym.parameters
                and sym.parameters[0] == binding.name and "staticmethod" not in sym.decorators
                and idx.files[path].language == "python"):
            # a classmethod's `cls` is the class: `cls(oid)` builds one (it had been "not callable", qa165)
            return ("def" if "classmethod" in sym.decorators else "instance", path, owner), "self"
        if self.annotations and binding.annotation:
            cls = self.annotated_class(path, sym.parent if sym is not None else None, binding.annotation)
            if cls is not None:
                return cls, "annotation"
        return None

    def annotated_class(self, path: str, scope: str | None, annotation: str):
        # a TypeScript generic's arguments say what it holds, not what it is: `Repository<T>`
        # is a Repository (Python writes its generics with [], as `list[C]`, which is no C)
        text = _GENERIC_ARGS.sub("", non_optional(annotation))
        if not re.fullmatch(r"[\w.]+", text):
            return None
        try:
            parts = text.split(".")
            entity, _ = self.lookup(path, scope, parts[0])
            for part in parts[1:]:
                entity = self.member(entity, part)
        except Miss:
            return None
        if entity[0] == "def" and entity[2].kind in ("class", "interface"):
            return ("instance", entity[1], entity[2])
        return None

    def _star(self, path: str, name: str):
        if not name.startswith("_"):
            for imp in self.index.stars.get((path, None), ()):
                module = self._module_key(path, imp.module)
                if module is None:
                    continue
                try:
                    return self._module_member(module, name, set()), "import"
                except Miss:
                    continue
        raise Miss("builtin_or_global")

    # ---- imports and modules ------------------------------------------------------------
    def _module_key(self, path: str, spec: str) -> str | None:
        """The module an import names, from the importing file: a Python dotted name, a TS
        path; None when it points outside the repository (or above its root)."""
        if self.index.files[path].language == "python":
            if not spec.startswith("."):
                return spec
            level = len(spec) - len(spec.lstrip("."))
            name, is_package = python_module(path, self.index.package_dirs)
            parts = name.split(".") if name else []
            if not is_package:
                parts = parts[:-1]
            if level - 1 > len(parts):
                return None
            base = parts[:len(parts) - (level - 1)] + ([spec.lstrip(".")] if spec.lstrip(".") else [])
            return ".".join(base) or None
        if not spec.startswith("."):
            return None  # a package from node_modules: outside the repository
        files = self.index.files
        return ts_module_path(lambda p: p in files and files[p].language != "python", path, spec)

    def _import_entity(self, path: str, imp, seen: set):
        module = self._module_key(path, imp.module)
        if module is None:
            return ("external", imp.module)
        python = self.index.files[path].language == "python"
        if imp.name is None:
            if python and not imp.aliased:
                return ("module", imp.local)  # `import a.b` binds the package a
            return ("module", module)
        return self._module_member(module, imp.name, seen)

    def _module_member(self, module: str, name: str, seen: set):
        if (module, name) in seen:
            raise Miss("reexport_cycle")
        seen.add((module, name))
        idx = self.index
        if module in idx.files and idx.files[module].language != "python":
            return self._ts_export(module, name, seen)
        path = idx.modules.get(module)
        if path is not None:
            found = idx.last_binding(path, None, name)
            while found is not None and found[0] == "import" and self._imports_itself(path, module, name, found[1]):
                # rich's live.py ends `if __name__ == "__main__": from .live import Live as Live`: the
                # name stays what it was; read as a binding, it was a cycle, and every call of
                # `Live` in the package was dropped without a word (qa194)
                found = idx.last_binding(path, None, name, before=found[1].line - 1)
            if found is not None and found[0] != "assign":
                if found[0] == "def":
                    return ("def", path, found[1])
                entity = self._import_entity(path, found[1], seen)
                if entity[0] != "external" or not _is_submodule(idx, module, name):
                    return entity
            if found is not None and found[0] == "assign" and not _is_submodule(idx, module, name):
                # a module's instance, `default_store = Store()` imported and called: a call on a
                # receiver the syntax does not type, listed under its methods (it had been a member
                # the module lacks, and `callers Store.save` said nothing, qa165)
                raise Miss("assigned")
            if found is None and not name.startswith("_"):
                for imp in idx.stars.get((path, None), ()):
                    key = self._module_key(path, imp.module)
                    if key is None:
                        continue
                    try:
                        return self._module_member(key, name, seen)
                    except Miss:
                        continue
        if _is_submodule(idx, module, name):
            return ("module", f"{module}.{name}")
        if path is None:
            return ("external", f"{module}.{name}")
        raise Miss("no_such_member")

    def _imports_itself(self, path: str, module: str, name: str, imp) -> bool:
        """Whether ``imp``, in the module ``module`` at ``path``, imports that module's own ``name``."""
        return imp.name == name and self._module_key(path, imp.module) == module

    def _ts_export(self, path: str, name: str, seen: set):
        parsed = self.index.files[path]
        for exp in parsed.exports:
            if exp.name != name:
                continue
            if exp.module is None:
                found = self.index.last_binding(path, None, exp.target) if exp.target is not None else None
                if found is None:
                    raise Miss("no_such_member")
                return self._binding_entity(path, None, found)[0]
            key = self._module_key(path, exp.module)
            if key is None:
                return ("external", exp.module)
            return ("module", key) if exp.target is None else self._module_member(key, exp.target, seen)
        found_there: Miss | None = None  # what a module `export *` reaches says of the name
        for exp in parsed.exports:
            if exp.name == "*" and exp.module is not None:
                key = self._module_key(path, exp.module)
                if key is not None:
                    try:
                        return self._module_member(key, name, seen)
                    except Miss as miss:  # found, but as an instance (`export const cartApi = new
                        # CartApi()`): said so, where "not exported" had hidden the call (qa165)
                        if miss.reason not in ("not_exported", "no_such_member", "reexport_cycle"):
                            found_there = found_there or miss
        raise found_there or Miss("not_exported")

    # ---- classes ------------------------------------------------------------------------
    def member(self, entity, name: str):
        kind = entity[0]
        if kind == "module":
            return self._module_member(entity[1], name, set())
        if kind == "def" and entity[2].kind == "module":  # a TypeScript namespace: its members
            member = self.index.symbol(entity[1], f"{entity[2].qualname}.{name}")
            if member is None:
                raise Miss("no_such_member")
            return ("def", entity[1], self.index.only_definition(entity[1], member))
        if kind in ("def", "instance", "super") and entity[2].kind in CLASS_KINDS:
            try:
                found = self.class_member(entity[1], entity[2], name, skip_first=kind == "super")
            except Redefined as twice:
                # a static and an instance method of one name: the class calls its static one, an
                # instance (`this`) its own (`this.convert()` had been an edge to both, qa162)
                kept = [(p, q) for p, q in twice.targets
                        if (kind == "def") == _is_static(self.index.symbol(p, q))]
                if len(kept) != 1 or len(kept) == len(twice.targets):
                    raise
                found = ("def", kept[0][0], self.index.symbol(*kept[0]))
            if found is None:
                raise Miss("no_such_member")
            if found[0] != "def":
                raise Miss("assigned")
            return found
        if kind == "external":
            return ("external", f"{entity[1]}.{name}")
        raise Miss("attribute")

    def class_member(self, path: str, cls, name: str, skip_first: bool = False):
        """("def", path, Symbol) | ("other",) from the first class of the MRO that binds
        ``name``; None when none does."""
        for cpath, c in self.mro(path, cls)[1 if skip_first else 0:]:
            found = self.index.last_binding(cpath, c.qualname, name)
            if found is not None:
                return ("def", cpath, found[1]) if found[0] == "def" else ("other",)
        return None

    def mro(self, path: str, cls) -> list[tuple[str, Symbol]]:
        """In-repo classes, left to right, depth first, first occurrence kept."""
        key = (path, cls.qualname)
        if key in self._mro:
            return self._mro[key]
        self._mro[key] = [(path, cls)]  # a guard while the bases are resolved (cycles)
        out = [(path, cls)]
        for base in cls.bases:
            base = re.sub(r"[<\[].*$", "", base).strip()
            try:
                parts = base.split(".")
                entity, _ = self.lookup(path, cls.parent, parts[0])
                for part in parts[1:]:
                    entity = self.member(entity, part)
            except Miss:
                continue
            if entity[0] == "def" and entity[2].kind in CLASS_KINDS:
                out += [c for c in self.mro(entity[1], entity[2]) if c not in out]
        self._mro[key] = out
        return out

    def _super(self, path: str, caller: str | None, python: bool):
        sym = self.index.symbol(path, caller)
        if not python:
            cls = self._this_class(path, caller)
            if cls is None:
                raise Miss("super")
            return ("super", path, cls)
        owner = self.index.symbol(path, sym.parent) if sym is not None else None
        if owner is None or owner.kind != "class":
            raise Miss("super")  # zero-argument super() works only directly in a method
        return ("super", path, owner)

    def _super_constructor(self, path: str, caller: str | None):
        cls = self._this_class(path, caller)
        if cls is None:
            raise Miss("super")
        found = self.class_member(path, cls, "constructor", skip_first=True)
        bases = self.mro(path, cls)[1:]
        if found is None and bases:  # no base declares one: `super()` builds the base, as `new Base()` does (qa174)
            return bases[0][0], bases[0][1].qualname, "ctor.class"
        if found is None or found[0] != "def":
            raise Miss("super")
        return found[1], found[2].qualname, "super"

    def _method_around(self, path: str, caller: str | None, cls: Symbol) -> Symbol | None:
        """The member of ``cls`` the call sits in (through the arrow functions inside it)."""
        current = self.index.symbol(path, caller)
        while current is not None and current.parent != cls.qualname:
            current = self.index.symbol(path, current.parent)
        return current

    def _this_class(self, path: str, caller: str | None):
        """The class ``this`` is in: up through arrow functions, not through a ``function``,
        nor out of an object literal's method (``this`` is the object: `reset() { this.clear() }`
        in a literal a method returns had been the method's class's `clear`, qa147)."""
        idx = self.index
        current = idx.symbol(path, caller)
        while current is not None:
            owner = idx.symbol(path, current.parent)
            if owner is not None and owner.kind == "class" and current.kind in ("method", "constructor", "property"):
                return owner
            if current.kind == "method" and (owner is None or owner.kind not in CLASS_KINDS):
                return None  # a method no class holds: an object literal's
            if current.signature.startswith(("function", "async function")) or "= function" in current.signature:
                return None
            current = owner
        return None


_STATIC = re.compile(r"(?:(?:public|private|protected|readonly|override|abstract)\s+)*static\b")


def _is_static(sym: Symbol | None) -> bool:
    """A TypeScript or JavaScript class member declared ``static``."""
    return sym is not None and bool(_STATIC.match(sym.signature))


def _is_submodule(index: Index, module: str, name: str) -> bool:
    """Whether ``module.name`` is a module of the code, or a package some module lies in (a
    set, not a scan of every module name per call: 2,000 files took 13 s, qa162)."""
    sub = f"{module}.{name}"
    return sub in index.modules or sub in index.module_parents
