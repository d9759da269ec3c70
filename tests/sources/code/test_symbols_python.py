"""Python shapes: decorators (multi-line too), overloads, properties, nesting, imports, calls."""

import textwrap

import pytest

from vault_engine.sources.code.symbols import parse_source

SOURCE = textwrap.dedent('''\
    """Module doc."""
    import os.path
    import numpy as np
    from . import sibling
    from ..pkg.core import Command as Cmd, helper
    from typing import *

    __all__ = ["OrderBook", "place"]


    @dataclass
    @register(
        "orders",
        strict=True,
    )
    class OrderBook(Base, metaclass=Meta):
        """Keeps orders."""

        limit = compute_limit()

        def __init__(self, size: int = default_size()):
            self.size = size

        @property
        def count(self) -> int:
            return len(self.orders)

        @count.setter
        def count(self, value):
            self.reset(value)

        @typing.overload
        def place(self, order: int) -> int: ...
        @typing.overload
        def place(self, order: str) -> str: ...
        def place(self, order):
            """Place one order."""
            def check(x):
                return validate(x)
            for item in items:
                check(item)
            return super().place(order)


    def outer(a, *args, b=1, **kw):
        def inner():
            return helper()
        return inner()
    ''')


@pytest.fixture(scope="module")
def parsed():
    return parse_source("src/shop/orders.py", SOURCE, "python")


def test_symbols_get_qualified_names_and_kinds(parsed):
    got = [(s.qualname, s.kind) for s in parsed.symbols]
    assert got == [("OrderBook", "class"), ("OrderBook.__init__", "method"), ("OrderBook.count", "property"),
                   ("OrderBook.place", "method"), ("OrderBook.place.check", "function"),
                   ("outer", "function"), ("outer.inner", "function")]


def test_a_decorated_class_starts_at_its_first_multi_line_decorator(parsed):
    cls = parsed.symbol("OrderBook")
    assert (cls.line_start, cls.def_line, cls.line_end) == (11, 16, 42)
    assert cls.decorators == ("dataclass", 'register(\n    "orders",\n    strict=True,\n)')
    assert cls.bases == ("Base",) and cls.docstring == "Keeps orders."
    assert cls.signature == "class OrderBook(Base, metaclass=Meta)"


def test_overload_stubs_fold_into_the_implementation(parsed):
    place = parsed.symbol("OrderBook.place")
    assert (place.line_start, place.def_line, place.line_end) == (32, 36, 42)
    assert place.docstring == "Place one order." and place.parameters == ("self", "order")
    assert [s.qualname for s in parsed.symbols].count("OrderBook.place") == 1


def test_a_property_getter_and_setter_are_one_symbol(parsed):
    prop = parsed.symbol("OrderBook.count")
    assert (prop.kind, prop.line_start, prop.line_end) == ("property", 24, 30)
    assert prop.decorators == ("property", "count.setter")
    assert prop.signature == "def count(self) -> int"


def test_parameters_and_parent(parsed):
    outer = parsed.symbol("outer")
    assert outer.parameters == ("a", "args", "b", "kw")
    assert parsed.symbol("outer.inner").parent == "outer"


def test_imports_keep_the_module_as_written(parsed):
    got = {(i.local, i.module, i.name, i.aliased) for i in parsed.imports}
    assert got == {("os", "os.path", None, False), ("np", "numpy", None, True), ("sibling", ".", "sibling", False),
                   ("Cmd", "..pkg.core", "Command", True), ("helper", "..pkg.core", "helper", False),
                   ("*", "typing", "*", False)}


def test_all_is_an_export(parsed):
    assert [(e.name, e.module) for e in parsed.exports] == [("OrderBook", None), ("place", None)]


def test_calls_belong_to_the_scope_that_runs_them(parsed):
    calls = {(c.caller, c.callee) for c in parsed.calls}
    assert (None, "register") in calls  # a decorator runs in the enclosing scope
    # ...and one without arguments is a call too: `@dataclass` is dataclass(OrderBook), and
    # `@count.setter` count.setter(f) (qa62: `@pass_context` had no callers)
    assert (None, "dataclass") in calls and ("OrderBook", "property") in calls
    assert ("OrderBook", "count.setter") in calls
    assert ("OrderBook", "compute_limit") in calls  # the class body
    assert ("OrderBook", "default_size") in calls  # a default runs where the def is: the class body
    assert ("OrderBook.count", "self.reset") in calls
    assert ("OrderBook.place", "super().place") in calls
    assert ("OrderBook.place.check", "validate") in calls
    assert ("outer.inner", "helper") in calls and ("outer", "inner") in calls


def test_bindings_record_parameters_loop_targets_and_annotations(parsed):
    got = {(b.scope, b.name, b.kind, b.annotation) for b in parsed.bindings}
    assert ("OrderBook.__init__", "size", "param", "int") in got
    assert ("OrderBook.place", "item", "assign", None) in got
    assert ("OrderBook", "limit", "assign", None) in got
    assert not any(b.scope == "OrderBook.place" and b.annotation == "str" for b in parsed.bindings), \
        "an overload stub's parameters are not the implementation's"


def test_a_syntax_error_is_reported_and_the_rest_still_parsed():
    parsed = parse_source("bad.py", "def ok():\n    pass\n\ndef broken(:\n    pass\n\ndef after():\n    pass\n", "python")
    assert parsed.error is not None and " at line 4:" in parsed.error
    assert {"ok", "after"} <= {s.qualname for s in parsed.symbols}


def test_init_reexports_what_it_imports():
    parsed = parse_source("src/pkg/__init__.py", "from .core import Command\nimport os\n", "python")
    assert [(e.name, e.target, e.module) for e in parsed.exports] == [("Command", "Command", ".core"), ("os", None, "os")]


def test_each_definition_of_a_repeated_name_is_its_own_symbol_with_its_own_calls():
    """``if``/``else`` definitions of one name, and a second ``helper`` far below, are each a
    symbol (``name~2``), spanning their own lines only; calls and nested definitions in a later
    body belong to it, never to the first definition's span (click's ``getchar``)."""
    parsed = parse_source("m.py", textwrap.dedent('''\
        import sys
        if sys.platform == "win32":
            def enc():
                return mbcs()

        else:

            def enc():
                return utf8()


        def helper():
            return 1


        def other():
            return 3


        def helper():
            def cmd():
                return first()
            def cmd():
                return second()
            return cmd()
        '''), "python")
    spans = {s.qualname: (s.line_start, s.line_end) for s in parsed.symbols}
    assert spans == {"enc": (3, 4), "enc~2": (8, 9), "helper": (12, 13), "other": (16, 17),
                     "helper~2": (20, 25), "helper~2.cmd": (21, 22), "helper~2.cmd~2": (23, 24)}
    assert {s.qualname: s.name for s in parsed.symbols}["helper~2.cmd~2"] == "cmd"
    calls = {(c.callee, c.caller, c.line) for c in parsed.calls}
    assert {("mbcs", "enc", 4), ("utf8", "enc~2", 9), ("first", "helper~2.cmd", 22),
            ("second", "helper~2.cmd~2", 24), ("cmd", "helper~2", 25)} <= calls


def test_a_method_under_an_if_or_a_try_of_its_class_body_is_a_method():
    """`Cmd.b` defined under `if True:` in the class body had been a function (qa147); a
    function inside a method, under an `if` there too, stays one."""
    source = ("class Cmd:\n    if True:\n        def b(self):\n            return 1\n    try:\n"
              "        def c(self):\n            return 2\n    except ImportError:\n        pass\n\n"
              "    def d(self):\n        if True:\n            def inner():\n                return 3\n        return inner\n")
    kinds = {s.qualname: s.kind for s in parse_source("n.py", source, "python").symbols}
    assert kinds == {"Cmd": "class", "Cmd.b": "method", "Cmd.c": "method", "Cmd.d": "method",
                     "Cmd.d.inner": "function"}
