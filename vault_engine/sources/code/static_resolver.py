"""Resolve Go, Rust and Java calls as far as their syntax shows, never further.

Go: a package is a folder; ``F()`` is a package-level function of it, ``r.M()`` a method of
``r``'s declared type (receiver, parameter, ``var``) in the package; an import of an
in-repo folder (by the ``go.mod`` above it, else its path ends with the folder) reaches that
package's functions. Rust: the same file (``f()``, ``Type::m()``, ``Self::m()``, ``self.m()``),
then the crate's other modules by their files (``src/shapes/circle.rs`` is
``shapes::circle``): a name a ``use`` binds, ``crate::``, ``self::``, ``super::``, a module
below this one or the crate root's, down to a function or ``Type::method``. Java: methods of the
enclosing class and its in-repo bases, ``new C()`` to C's constructor, ``x.m()`` through
x's declared type; classes by simple name in the file, its package folder (with the same
package's folder in the project's other Maven or Gradle source sets), or an import, and a bare
call by a static import too. A Go type of another package (``st.Ledger``) is led through the
file's import; a Rust type by its ``use``, on through a module's ``pub use`` re-exports.
A local's type is what its binding declares, or makes: a literal of a type (``Ledger { .. }``,
``&Inventory{}``, ``var c = new Catalog()``), or a call whose definition's signature returns
one plain type (``Ledger::new()`` returning ``Self``, ``store.NewInventory()`` ``*Inventory``).
"""

from __future__ import annotations

import contextlib
import re
from collections import defaultdict
from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import Any

from vault_engine.sources.code.scopes import (
    CLASS_KINDS,
    ON_ONE_CALL,
    Index,
    Miss,
    Redefined,
    callee_parts,
    unparsed,
)

# Maven's and Gradle's source sets: `<project>src/<set>/java/<package path>` (main, test, ...)
_SOURCE_SET = re.compile(r"^(|.*/)src/([^/]+)/java((?:/.*)?)$")
# The one plain type a signature returns: Rust's `-> Self` or `-> Ledger` before any `where`,
# Go's `) *Inventory`. A qualified name (another module's type), several results, generics
# and references return none the resolver can place.
_RETURNS = re.compile(r"(?:->\s*|\)\s*\*?)([A-Za-z_]\w*)\s*(?:where\b.*)?$")


class StaticResolver:
    def __init__(self, index: Index, go_modules: Mapping[str, str] | None = None):
        self.index = index
        self.go_modules = dict(go_modules or {})  # module path -> folder of its go.mod
        self.folders: dict[tuple[str, str], list[str]] = defaultdict(list)  # (language, dir) -> paths
        # (project, package path) -> the paths of that package in all its source sets
        self.java_packages: dict[tuple[str | Any, ...], list[str]] = defaultdict(list)
        for path, parsed in index.files.items():
            folder = str(PurePosixPath(path).parent)
            self.folders[(parsed.language, folder)].append(path)
            if parsed.language == "java" and (layout := _SOURCE_SET.match(folder)) is not None:
                self.java_packages[layout.group(1, 3)].append(path)
        self.java_files: dict[str, list[str]] = defaultdict(list)  # `Box.java` -> the paths of that name
        for path, parsed in index.files.items():
            if parsed.language == "java":
                self.java_files[PurePosixPath(path).name].append(path)
        # (file, type) -> the traits its top-level `impl Trait for Type` blocks name: read once, not per call
        self.rust_traits: dict[tuple[str, str], list[str]] = defaultdict(list)
        for path, parsed in index.files.items():
            for sym in parsed.symbols if parsed.language == "rust" else ():
                if sym.kind == "impl" and sym.parent is None and " for " in sym.name:
                    self.rust_traits[(path, sym.name.rpartition(" for ")[2])].extend(sym.bases)
        self.rust_module_of, self.rust_files = _rust_modules(
            [p for p, parsed in index.files.items() if parsed.language == "rust"])
        self._returning: set[tuple] = set()  # calls whose return type is being read (cycles)

    def resolve(self, path: str, caller: str | None, callee: str, line: int | None = None) -> tuple[str, str, str]:
        """(callee path, callee qualname, how) or raises ``Miss`` (``line``: for the dynamic
        resolver's callbacks; a Go, Rust or Java scope is always named)."""
        shape = callee_parts(callee)
        language = self.index.files[path].language
        if shape is None:
            built = ON_ONE_CALL.match(callee) if language == "java" else None
            if built is not None and built[1] and built[3].count(".") == 1:
                return self._java_built(path, caller, built[2], built[3][1:])
            raise unparsed(callee)
        is_new, parts = shape
        if language == "java":
            return self._java(path, caller, is_new, parts)
        if len(parts) == 1:
            self._not_local(path, caller, parts[0])
            try:
                if language == "rust":
                    return self._rust_item(path, caller, parts[0], line)
                return self._package_function(path, parts[0], language)
            except Miss as own_scope:
                if language != "rust":
                    raise
                return self._rust_import(path, parts, own_scope)  # `use crate::util::helper;` then `helper()`
        if language == "rust" and parts[0] in ("self", "super", "crate"):
            found, parts = self._rust_relative(path, caller, parts)
            if found is not None:
                return found
        head, name = ".".join(parts[:-1]), parts[-1]
        if language == "rust" and head == "Self":
            owner = self.index.symbol(path, caller)
            head = owner.parent if owner is not None and owner.parent else head
        typ = self._declared_type(path, caller, head) if "." not in head else None
        if typ is not None:
            try:
                return self._method(path, typ, name, language, "receiver")
            except Miss as own_scope:
                if language != "rust" or typ == "?" or "#" in typ:
                    raise
                # `l: &mut Ledger`, `Ledger { .. }` of a type a `use` brings in (qa159)
                return self._rust_import(path, [typ, name], own_scope, "receiver")
        if language == "rust":
            try:
                return self._rust_type_member(path, caller, head, name)
            except Miss as own_scope:
                return self._rust_import(path, parts, own_scope)  # `util::helper()`, `Entry::credit()` elsewhere
        if head[:1].isupper():
            return self._method(path, head, name, language, "type")
        return self._go_import(path, caller, head, name)

    def _not_local(self, path, caller, name):
        for scope in self.index.chain(path, caller):
            if scope is not None and name in self.index.bindings.get((path, scope), {}):
                raise Miss("local")

    def _declared_type(self, path, caller, name) -> str | None:
        """The type of local ``name`` seen from ``caller``: what each of its bindings declares
        or makes, when they agree; "?" when they do not or one says nothing; None when no
        scope binds it."""
        for scope in self.index.chain(path, caller):
            binds = self.index.bindings.get((path, scope), {}).get(name)
            if binds:
                return _agreed({b.annotation or self._returned(path, scope, b.value) for b in binds})
        return None

    def _returned(self, path, scope, callee) -> str | None:
        """The type a call returns by its definition's signature (``fn new() -> Self`` in
        ``impl Ledger``, ``func NewInventory() *Inventory``), when it names one plain type;
        None for anything else (``Option<T>``, several results, a call that does not resolve)."""
        if callee is None or (path, scope, callee) in self._returning:
            return None  # `let x = x.clone()`: typing x needs x
        self._returning.add((path, scope, callee))
        try:
            tpath, qualname, _ = self.resolve(path, scope, callee)
        except (Miss, Redefined):
            return None
        finally:
            self._returning.discard((path, scope, callee))
        sym = self.index.symbol(tpath, qualname)
        if sym is not None and sym.kind == "struct":  # a Rust tuple struct built: `Square(2.0)` (qa159)
            return f"{tpath}#{qualname}"
        found = _RETURNS.search(sym.signature) if sym is not None and sym.kind in ("function", "method") else None
        if sym is None or found is None:
            return None
        typ = sym.parent if found[1] == "Self" else found[1]
        if typ and found[1] != "Self" and self.index.files[tpath].language == "rust":
            typ = next((f"{m}.{typ}" for m in self._rust_modules_around(tpath, qualname)[:-1]
                        if self.index.symbol(tpath, f"{m}.{typ}") is not None), typ)  # `-> Thing` in `mod inner`
        return f"{tpath}#{typ}" if typ else None  # its methods are beside the function that returns it

    def _same_package(self, path, language) -> list[str]:
        if language == "go":
            return sorted(self.folders[(language, str(PurePosixPath(path).parent))])
        return [path]

    def _package_function(self, path, name, language, how="package"):
        for p in self._same_package(path, language):
            sym = self.index.children.get((p, None), {}).get(name)
            if sym is not None:
                if sym.kind in CLASS_KINDS or sym.kind == "type":
                    raise Miss("conversion")
                return p, self.index.only_definition(p, sym).qualname, how if p != path else "name.module"
        raise Miss("builtin_or_global")

    def _method(self, path, typ, name, language, how, seen=None):
        """``typ.name`` in the package of ``path``, or of the file a returned type names
        (``<file>#Type``, see :meth:`_returned`); a Go struct's also through the structs it
        embeds, in its package (a promoted method: `d.Hello()` of `Base`, qa147)."""
        if typ == "?":
            raise Miss("local")
        where, _, typ = typ.rpartition("#")
        if language == "go" and "." in typ:  # `l *st.Ledger`, `&st.Ledger{}`: the package the file imports (qa159)
            alias, _, typ = typ.partition(".")
            packages = sorted(self.folders[("go", self._go_folder(path, alias))])
        else:
            packages = self._same_package(where or path, language)
        for p in packages:
            sym = self.index.symbol(p, f"{typ}.{name}")
            if sym is not None:
                return p, self.index.only_definition(p, sym).qualname, how
        seen = seen if seen is not None else set()
        for p in packages if language == "rust" else ():
            found = self._rust_default(p, typ, name, how)
            if found is not None:
                return found
        declared = [sym for p in packages if (sym := self.index.symbol(p, typ)) is not None]
        if any(sym.kind == "interface" for sym in declared):  # `p.Price(s)` with `p Pricer`: any type's
            raise Miss("interface")  # `Price` that implements it, listed under each (qa159)
        if not declared:  # a type the syntax names but no file of its package declares
            raise Miss("unplaced")
        for p in packages:
            struct = self.index.symbol(p, typ)
            for base in struct.bases if struct is not None and struct.kind == "struct" and language == "go" else ():
                if "." not in base and (p, base) not in seen:
                    seen.add((p, base))
                    try:
                        return self._method(path, f"{p}#{base}", name, language, how, seen)
                    except Miss:
                        pass
        raise Miss("no_such_member")

    def _rust_default(self, file: str, typ: str, name: str, how: str) -> tuple[str, str, str] | None:
        """A trait's default method ``name``, of a trait ``typ`` implements in ``file``
        (``impl Greet for P``: `p.hello()` of `Greet`, in this file or where its ``use`` leads;
        it had been dropped as a method `P` lacks, qa162)."""
        for trait in self.rust_traits.get((file, typ), ()):
            own = self.index.symbol(file, f"{trait}.{name}")
            if own is not None:
                return file, self.index.only_definition(file, own).qualname, how
            with contextlib.suppress(Miss):
                return self._rust_import(file, [*trait.split("::"), name], Miss("no_such_member"), how)
        return None

    def _go_import(self, path, caller, head, name):
        for p in sorted(self.folders[("go", self._go_folder(path, head))]):
            sym = self.index.children.get((p, None), {}).get(name)
            if sym is not None and sym.kind == "function":
                return p, self.index.only_definition(p, sym).qualname, "import"
        raise Miss("no_such_member")

    def _go_folder(self, path, alias) -> str:
        """The folder of the in-repo package ``path`` imports as ``alias``, or ``Miss``."""
        imports = self.index.imports.get((path, None), {}).get(alias)
        if not imports:
            raise Miss("attribute")
        spec = imports[-1].module
        # by the end of its path only a folder no go.mod covers: in a module, an import the
        # module does not name is from outside (`net/http` had been the repo's own `http/`, qa147)
        matches = self._in_module(spec) or [
            folder for (language, folder) in self.folders if language == "go"
            and folder != "." and (spec == folder or spec.endswith("/" + folder)) and not self._in_a_module(folder)]
        if len(matches) != 1:
            raise Miss("external")
        return matches[0]

    def _in_a_module(self, folder: str) -> bool:
        """Whether a folder of the tap is inside a module (under a ``go.mod``)."""
        return any(root in ("", ".") or folder == root or folder.startswith(root + "/")
                   for root in self.go_modules.values())

    def _in_module(self, spec: str) -> list[str]:
        """The folder an import names inside a module of the tap (its ``go.mod``), or []."""
        for module, root in self.go_modules.items():
            if spec == module or spec.startswith(module + "/"):
                folder = str(PurePosixPath(root or ".", spec[len(module):].lstrip("/")))
                return [folder] if ("go", folder) in self.folders else []
        return []

    # ---- Rust modules -----------------------------------------------------------------------
    def _rust_modules_around(self, path: str, caller: str | None) -> list[str | None]:
        """The inline ``mod`` blocks around ``caller``, innermost first, then the file's top:
        where a bare name or a type is looked up (a `mod tests`' `setup()` called by its own
        tests had been a name no definition answers)."""
        parts = (caller or "").split(".")
        mods: list[str | None] = [m for m in (".".join(parts[:i]) for i in range(len(parts) - 1, 0, -1))
                                  if (sym := self.index.symbol(path, m)) is not None and sym.kind == "module"]
        return [*mods, None]

    def _rust_item(self, path: str, caller: str | None, name: str, line: int | None = None):
        """A bare name: an item of the function around the call (a `fn` declared in its body,
        which shadows the file's of that name: it had lost to it, qa165), else of the module
        around it, else of one further out (Rust asks a ``use super::*`` for that; a call the
        file's top answers is taken as before)."""
        scope = self.index.symbol(path, caller)
        while scope is not None and scope.kind in ("function", "method"):
            own = self.index.children.get((path, scope.qualname), {}).get(name)
            seen = own is not None and (own.visible is None or line is None or own.visible[0] <= line <= own.visible[1])
            if own is not None and own.kind == "function" and seen:
                return path, self.index.only_definition(path, own).qualname, "name.local"
            scope = self.index.symbol(path, scope.parent)
        for module in self._rust_modules_around(path, caller):
            sym = self.index.children.get((path, module), {}).get(name)
            if sym is None or sym.kind == "module":  # `mod f` beside `fn f`: two namespaces, one table
                continue
            found = self._rust_called(path, sym, "name.module")
            if found is None:
                raise Miss("conversion")
            return found
        raise Miss("builtin_or_global")

    def _rust_called(self, file: str, sym, how: str) -> tuple[str, str, str] | None:
        """What a Rust call of ``sym`` reaches: a function or method, or a tuple struct built
        (`Sq(2.0)`, ``ctor.class`` as Python's `IntRange(...)`: it had been a Go conversion, no
        edge and no word, qa147), in its file, by a path or after a ``use`` (qa148); None else."""
        if sym.kind not in ("function", "method", "struct"):
            return None
        return file, self.index.only_definition(file, sym).qualname, "ctor.class" if sym.kind == "struct" else how

    def _rust_relative(self, path: str, caller: str | None, parts: list[str]) -> tuple[tuple | None, list[str]]:
        """``self::f()``, ``super::f()`` and ``crate::f()`` said inside an inline ``mod``: an item
        of this file, or the path left for the crate's other files once the ``super``s the file's
        own modules take are spent (`super::setup()` in a `mod tests` had been no call, qa152)."""
        mods = self._rust_modules_around(path, caller)[:-1]  # innermost first
        rest = list(parts)
        if rest[0] == "crate":
            here = self.rust_module_of.get(path)
            if here is None or here[1]:  # a file below the crate's root: its other files say
                return None, parts
            base: str | None = None
            rest = rest[1:]
        else:
            ups = 0
            while rest and rest[0] in ("self", "super"):
                ups += rest[0] == "super"
                rest = rest[1:]
            if ups > len(mods):  # out of this file: the file's module, less what was climbed here
                return None, ["super"] * (ups - len(mods)) + rest
            base = [*mods, None][ups]
        sym = self.index.symbol(path, ".".join([base, *rest] if base else rest)) if rest else None
        found = self._rust_called(path, sym, "name.module") if sym is not None else None
        return found, parts

    def _rust_type_member(self, path: str, caller: str | None, head: str, name: str):
        """``Type::m()`` or ``module::f()`` as seen from the module around the call, else
        from further out."""
        for module in self._rust_modules_around(path, caller)[:-1]:
            try:
                return self._method(path, f"{module}.{head}", name, "rust", "type")
            except Miss:
                pass
        return self._method(path, head, name, "rust", "type")

    def _rust_import(self, path: str, parts: list[str], own_scope: Miss, how: str = "import",
                     seen: frozenset[tuple[str, str]] = frozenset()):
        """A name or path of another module of the crate: its first segment a name a ``use``
        binds, ``crate``, ``self``, ``super``, or a module below this one or the crate's root;
        its last ones a function, or ``Type`` and a method (``Entry::credit``), in the module's
        file or where that file's own ``use`` leads (``pub use circle::Circle;`` in
        ``shapes/mod.rs``: a re-export, qa159). When none is found, the miss of the file's own
        scope stands (``builtin_or_global`` for ``Some``)."""
        here = self.rust_module_of.get(path)
        if here is None or (path, parts[0]) in seen:
            raise own_scope
        root, module = here
        imported = self.index.imports.get((path, None), {}).get(parts[0])
        if imported and imported[-1].name not in (None, "*"):
            parts = imported[-1].module.split("::") + [imported[-1].name] + parts[1:]
        starts: list[tuple[str, ...]]
        if parts[0] == "crate":
            starts, parts = [()], parts[1:]
        elif parts[0] in ("self", "super"):
            base = module
            while parts and parts[0] in ("self", "super"):
                base = base[:-1] if parts[0] == "super" else base
                parts = parts[1:]
            starts = [base]
        else:
            starts = [module, ()]  # a child module of this one, else one of the crate's root
        for start in starts:
            for cut in range(len(parts) - 1, -1, -1):
                file = self.rust_files.get((root, start + tuple(parts[:cut])))
                item = parts[cut:]
                if file is None or (file == path and not cut):  # this file's own names were tried
                    continue
                sym = self.index.symbol(file, ".".join(item))
                found = self._rust_called(file, sym, how) if sym is not None else None
                if found is None and sym is None and len(item) == 2:  # a default of a trait the type
                    found = self._rust_default(file, item[0], item[1], how)  # implements there (qa164)
                if found is not None:
                    return found
                if sym is None and file != path:  # re-exported: `pub use circle::Circle;`, `pub use poly::*;`
                    onward = [item] if self.index.imports.get((file, None), {}).get(item[0]) else []
                    onward += [[*star.module.split("::"), *item] for star in self.index.stars.get((file, None), ())
                               if star.module]
                    for further in onward:
                        with contextlib.suppress(Miss):
                            return self._rust_import(file, further, own_scope, how, seen | {(path, parts[0])})
        raise own_scope

    # ---- Java ---------------------------------------------------------------------------
    def _java(self, path, caller, is_new, parts):
        cls = self._enclosing_class(path, caller)
        if is_new:
            found = self._java_class(path, ".".join(parts), caller)
            if found is None:
                raise Miss("external")
            ctor = self.index.symbol(found[0], f"{found[1].qualname}.{found[1].name}")
            if ctor is None:
                return found[0], found[1].qualname, "ctor.class"
            return found[0], self.index.only_definition(found[0], ctor).qualname, "ctor.init"
        if len(parts) == 1:
            if parts[0] in ("super", "this"):  # an explicit constructor invocation
                target = cls if parts[0] == "this" else self._first_base(*cls) if cls else None
                if target is None:
                    raise Miss("super")
                ctor = self.index.symbol(target[0], f"{target[1].qualname}.{target[1].name}")
                if ctor is None:
                    raise Miss("super")
                ctor = self.index.only_definition(target[0], ctor)
                return target[0], ctor.qualname, "super" if parts[0] == "super" else "self"
            if cls is None:
                raise Miss("builtin_or_global")
            try:
                return self._java_outward(cls, parts[0])
            except Miss:
                # `import static com.shop.util.MathUtil.factorial;` then `factorial(5)` (qa159)
                for imp in (*self._imported(path, parts[0]), *self.index.stars.get((path, None), ())):
                    package, _, owner = imp.module.rpartition(".")
                    found = self._imported_class(package, owner)
                    if found is not None:
                        with contextlib.suppress(Miss):
                            return self._java_member(found, parts[0], "import")
                raise
        head, name = ".".join(parts[:-1]), parts[-1]
        if head in ("this", "super()"):
            if cls is None:
                raise Miss("this")
            return self._java_member(cls, name, "self" if head == "this" else "super", skip_first=head != "this")
        field = head.removeprefix("this.") if head.startswith("this.") else None
        typ = self._declared_type(path, caller, head) if "." not in head else None
        if typ is None and cls is not None and "." not in (field or head):  # a field: `catalog.lookup()`
            typ = self._field_type(cls, field or head)
        target = self._java_class(path, typ if typ else head, caller)
        if target is None and typ is None and "." in head:  # `Kind.B.area()`: a constant of an enum, an
            enum = self._java_class(path, head.rpartition(".")[0], caller)  # instance of it (qa165)
            if enum is not None and enum[1].kind == "enum":
                return self._java_member(enum, name, "receiver")
        if target is None or typ == "?":
            raise Miss("local" if typ == "?" else "external")
        return self._java_member(target, name, "receiver" if typ else "type")

    def _field_type(self, cls, name) -> str | None:
        """The declared type of a field of ``cls`` or of a class it extends, "?" when declared
        twice another way, None when no class of its line declares it."""
        for cpath, c in self._java_mro(*cls):
            binds = self.index.bindings.get((cpath, c.qualname), {}).get(name)
            if binds:
                return _agreed({b.annotation for b in binds})
        return None

    def _enclosing_class(self, path, caller):
        current = self.index.symbol(path, caller)
        while current is not None and current.kind not in CLASS_KINDS:
            current = self.index.symbol(path, current.parent)
        return (path, current) if current is not None else None

    def _java_built(self, path, caller, name, method):
        """A method called on the instance a constructor call builds, `new K().h()`: an edge, as
        TypeScript's `new Store().go()` is (it had been listed under every `h`, qa148)."""
        built = self._java_class(path, name, caller)
        if built is None:
            raise Miss("call_result")
        return self._java_member(built, method, "constructed")

    def _java_outward(self, cls, name):
        """A bare call in a class: a method of it or of a class it extends, else of a class
        around it (an inner class's `helper()` of its outer class had been no call, qa147)."""
        while True:
            try:
                return self._java_member(cls, name, "self")
            except Miss:
                path, current = cls
                outer = self._enclosing_class(path, current.parent) if current.parent else None
                if outer is None:
                    raise
                cls = outer

    def _java_member(self, cls, name, how, skip_first=False):
        for cpath, c in self._java_mro(*cls)[1 if skip_first else 0:]:
            sym = self.index.symbol(cpath, f"{c.qualname}.{name}")
            if sym is not None:
                return cpath, self.index.only_definition(cpath, sym).qualname, how
        raise Miss("no_such_member")

    def _java_mro(self, path, cls, seen=None):
        seen = seen if seen is not None else set()
        if (path, cls.qualname) in seen:
            return []
        seen.add((path, cls.qualname))
        out = [(path, cls)]
        for base in cls.bases:
            found = self._java_class(path, base.split("<")[0].strip(), cls.parent)
            if found is not None:
                base_path, base_cls = found
                out += [c for c in self._java_mro(base_path, base_cls, seen) if c not in out]
        return out

    def _first_base(self, path, cls):
        for base in cls.bases[:1]:
            return self._java_class(path, base.split("<")[0].strip(), cls.parent)
        return None

    def _java_class(self, path, name, within=None):
        """A class by name as written in ``within`` (a qualified name in ``path``): nested in it
        or in a class around it, innermost first (of two nested `Builder`s the file's first had
        been taken wherever it was named, qa147); else by its name from the top level of this
        file, its package folder, or an import."""
        scope = within
        while scope:
            nested = self.index.symbol(path, f"{scope}.{name}")
            if nested is not None and nested.kind in CLASS_KINDS:
                return path, nested
            scope = scope.rpartition(".")[0]
        # else from the top level of the file or its package (`Outer.Inner` by its path): a class
        # nested elsewhere in the file is not in scope here (`new Item()` had been `Order.Line.Item`,
        # not the package's `Item`), and a scan of the file's symbols for each call was quadratic (qa162)
        for p in [path, *self._folder(path)]:
            found = self.index.symbol(p, name)
            if found is not None and found.kind in CLASS_KINDS:
                return p, found
        head = name.split(".")[0]
        for imp in self._imported(path, head):
            imported = self._imported_class(imp.module, head)
            found = self.index.symbol(imported[0], name) if imported is not None else None
            if imported is not None and found is not None and found.kind in CLASS_KINDS:
                return imported[0], found
        if "." in name:  # a fully qualified name, `new com.z.K(4)` (qa167)
            package, _, simple = name.rpartition(".")
            return self._imported_class(package, simple)
        return None

    def _imported(self, path, name):
        return self.index.imports.get((path, None), {}).get(name, ())

    def _imported_class(self, package: str, simple: str):
        """Class ``simple`` of Java package ``package``, by the file its name makes."""
        want = f"{package.replace('.', '/')}/{simple}.java"
        for p in self.java_files.get(f"{simple}.java", ()):
            if p == want or p.endswith("/" + want):
                found = self.index.children.get((p, None), {}).get(simple)
                if found is not None:
                    return p, found
        return None

    def _folder(self, path):
        """The files of a Java file's package: its folder's, and under Maven's and Gradle's
        layout the same package's folder in the project's other source sets (a test in
        ``src/test/java/com/shop/`` calls ``src/main/java/com/shop/``'s classes unimported:
        its callers had lost every such test, qa159)."""
        folder = str(PurePosixPath(path).parent)
        layout = _SOURCE_SET.match(folder)
        return sorted(self.folders[("java", folder)] if layout is None else self.java_packages[layout.group(1, 3)])


def _agreed(types: set[str | None]) -> str:
    """The type every binding of a name gives, or "?" when they differ or one gives none."""
    agreed = types.pop() if len(types) == 1 else None
    return agreed if agreed is not None else "?"


def _rust_modules(paths: list[str]) -> tuple[dict[str, tuple[str, tuple[str, ...]]], dict[tuple, str]]:
    """Each Rust file's crate root (the folder of the ``main.rs`` or ``lib.rs`` above it) and
    module path (``src/shapes/circle.rs``: ``shapes::circle``; ``mod.rs`` names its folder),
    and the file of each (root, module path)."""
    roots = sorted({str(PurePosixPath(p).parent) for p in paths if PurePosixPath(p).name in ("main.rs", "lib.rs")},
                   key=len, reverse=True)
    module_of: dict[str, tuple[str, tuple[str, ...]]] = {}
    files: dict[tuple, str] = {}
    for path in paths:
        root = next((r for r in roots if r == "." or path.startswith(r + "/")), None)
        if root is None:
            continue
        rel = PurePosixPath(path if root == "." else path[len(root) + 1:])
        segments = [*rel.parent.parts, rel.stem]
        if segments[-1] == "mod" or (len(segments) == 1 and segments[0] in ("main", "lib")):
            segments = segments[:-1]
        module_of[path] = (root, tuple(segments))
        files.setdefault((root, tuple(segments)), path)
    return module_of, files
