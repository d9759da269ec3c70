"""The class of a function's local variable, when simple scope rules make it certain.

A local is typed only when every binding of its name in the function is a plain assignment
or ``with ... as`` that certainly makes an instance of one and the same class (a parameter,
a ``for`` target, an augmented assignment, ``del``, an import, a nested ``def``, a
``global``/``nonlocal`` declaration, a ``match`` capture, a tuple target: any of them for
that name, and it is not typed), in a function defined once (an ``if``/``else`` pair of
definitions shares one scope), and no function of the file declares the name ``nonlocal``
(which could rebind it from inside a closure). Then whatever the name holds when a method is
called on it is an instance of that class. What an assignment certainly makes:

- ``x = C(...)``: C resolves to an in-repo class (with no in-repo ``__new__``, which could
  return anything);
- ``x = f(...)`` / ``x = obj.m(...)``: the callee resolves to an in-repo function whose
  return annotation names an in-repo class (``C``, ``"C"``, ``C | None``, ``Optional[C]``:
  a method call on None calls nothing; ``Self``: the class it was called on), undecorated
  or with a decorator that keeps the return type;
- ``with f(...) as x``: the class ``f(...)`` makes (as above) has an in-repo ``__enter__``
  whose return annotation names an in-repo class (``Self``: that class);
- else a declared type, ``x: C = ...``, as an annotated parameter's.

A method call on such a local is then an edge labelled ``local``; anything less certain
stays unresolved (reason ``local``), as before. In TypeScript and JavaScript only a
function-wide ``const`` is so bound (``const s = new Store()``, or a declared type,
``const s: Store = ...``, ``let s: Store``): a ``let`` or ``var`` may be assigned again where
the extractor records no binding, and a block's ``const`` is seen inside its block alone (a
name is typed for the bindings seen from the call's line).
"""

from __future__ import annotations

import re

from vault_engine.sources.code.scopes import Miss, callee_parts, non_optional

# Decorators that leave a function's return type as annotated; any other may replace it.
_KEEPS_RETURN = re.compile(
    r"^(?:(?:abc|typing|t|typing_extensions|te)\.)?"
    r"(?:staticmethod|classmethod|abstractmethod|overload|final|override)$"
    r"|^(?:functools\.)?(?:cache|lru_cache(?:\(.*\))?)$")
_SELF = re.compile(r"^(?:(?:typing|t|typing_extensions|te)\.)?Self$")


class LocalTypes:
    """Types the locals of one resolution (the resolver's index is fixed while it lives)."""

    def __init__(self, resolver):
        self.resolver = resolver
        self.index = resolver.index
        self._known: dict[tuple, tuple | None] = {}
        self._busy: set[tuple] = set()
        self._nonlocal: dict[str, set[str]] = {}  # path -> names declared nonlocal in it

    def infer(self, path: str, scope: str, name: str, binds) -> tuple | None:
        """An ("instance", path, class Symbol) entity for ``name`` in function ``scope``,
        whose bindings there are ``binds`` (no definition or import binds it there), or None."""
        # the bindings seen from the call's line too: a block's own `const c` is seen inside the
        # block alone, and the name typed before it had been taken there (qa176)
        key = (path, scope, name, tuple(binds))
        if key in self._known:
            return self._known[key]
        if key in self._busy:  # `a = b.f()` while typing b needs a: neither is certain
            return None
        self._busy.add(key)
        try:
            found = self._infer(path, scope, name, binds)
        finally:
            self._busy.discard(key)
        self._known[key] = found
        return found

    def _infer(self, path: str, scope: str, name: str, binds) -> tuple | None:
        sym = self.index.symbol(path, scope)
        if sym is None or sym.definitions != 1 or name in self._declared_nonlocal(path):
            return None
        assigns = [b for b in binds if b.kind != "declare"]  # `x: C` alone assigns nothing
        found = None
        for bound in assigns:
            typed = self._typed(path, scope, bound) if bound.kind == "assign" else None
            if typed is None or found not in (None, typed):
                return None
            found = typed
        return found

    def _declared_nonlocal(self, path: str) -> set[str]:
        """Names some function of the file declares ``nonlocal``: a closure may rebind them.
        Gathered per file on first need, so resolving one file's calls reads only that file."""
        found = self._nonlocal.get(path)
        if found is None:
            found = self._nonlocal[path] = {b.name for b in self.index.files[path].bindings if b.kind == "nonlocal"}
        return found

    def _typed(self, path: str, scope: str, bound) -> tuple | None:
        """The class one assignment certainly binds its name to, or None."""
        found = self._made_by_call(path, scope, bound.value, bound.entered, bound.line) if bound.value else None
        if found is None and bound.annotation and self.resolver.annotations:
            found = self.resolver.annotated_class(path, scope, bound.annotation)
        return found

    def _made_by_call(self, path: str, scope: str, value: str, entered: bool, line: int) -> tuple | None:
        shape = callee_parts(value)
        if shape is None:
            return None
        try:  # seen from the assignment's line: a class a block declares is the block's alone (qa176)
            entity, receiver, _ = self.resolver.walk(path, scope, shape[1], True, line)
        except Miss:
            return None
        made = self._made(entity, receiver)
        if made is None or not entered:
            return made
        enter = self.resolver.class_member(made[1], made[2], "__enter__")
        return self._returned(enter, made) if enter is not None and enter[0] == "def" else None

    def _made(self, entity, receiver) -> tuple | None:
        """What calling ``entity`` (taken from ``receiver``) gives, when that is certain."""
        if entity[0] != "def":
            return None
        _, tpath, sym = entity
        if sym.kind == "class":
            new = self.resolver.class_member(tpath, sym, "__new__")
            return ("instance", tpath, sym) if new is None else None
        return self._returned(entity, receiver)

    def _returned(self, entity, receiver) -> tuple | None:
        """The in-repo class a function's return annotation names; ``Self`` is the class of
        ``receiver`` (the object or class the method was taken from)."""
        _, tpath, sym = entity
        if (sym.kind not in ("function", "method") or not sym.returns or not self.resolver.annotations
                or sym.signature.startswith("async ") or not all(_KEEPS_RETURN.match(d) for d in sym.decorators)):
            return None
        if _SELF.match(non_optional(sym.returns)):
            # on a class, only a classmethod's Self is that class (``C.m(obj)`` is obj's)
            on_class = receiver is not None and receiver[0] == "def" and "classmethod" in sym.decorators
            if receiver is not None and (receiver[0] in ("instance", "super") or on_class) \
                    and receiver[2].kind == "class":
                return ("instance", receiver[1], receiver[2])
            return None
        return self.resolver.annotated_class(tpath, sym.parent, sym.returns)
