"""Locals typed by what certainly made them, and every way a local must stay untyped."""

import textwrap

import pytest

from vault_engine.sources.code.callgraph import resolve
from vault_engine.sources.code.languages import detect_language
from vault_engine.sources.code.symbols import parse_source

CORE = "src/app/core.py"
CLASSES = """\
    import typing as t
    from typing import Self


    class Context:
        def __enter__(self) -> t.Self:
            return self
        def __exit__(self, *exc): pass
        def invoke(self): pass
        def exit(self): pass


    class Parser:
        def parse_args(self): pass


    class Other:
        def invoke(self): pass


    class Plain:
        def __enter__(self):
            return self
        def invoke(self): pass


    class Odd:
        def __new__(cls):
            return Other()
        def invoke(self): pass


    class Base:
        def clone(self) -> Self: ...
        @classmethod
        def create(cls) -> Self: ...
        def invoke(self): pass


    class Child(Base):
        def invoke(self): pass


    def get_current_context(silent: bool = False) -> "Context | None":
        return None


    def untyped():
        return Context()


    def wrap(f):
        return f
    """


def graph_of(body: str, *, extra: dict[str, str] | None = None, **options):
    files = {"src/app/__init__.py": "", CORE: textwrap.dedent(CLASSES) + textwrap.dedent(body), **(extra or {})}
    parsed = {p: parse_source(p, textwrap.dedent(t), detect_language(p)) for p, t in files.items()}
    return resolve(parsed, **options)


def calls_from(graph, caller: str, path: str = CORE) -> set[tuple[str, str]]:
    """(callee qualname, how) of every edge leaving ``caller``."""
    return {(e.callee.split("#", 1)[1], e.how) for e in graph.edges if e.caller == f"{path}#{caller}"}


# ---- the rules: what types a local ------------------------------------------------------

def test_a_constructor_call_types_the_local():
    graph = graph_of("""
        def run():
            ctx = Context()
            ctx.invoke()
        """)
    assert calls_from(graph, "run") == {("Context", "ctor.class"), ("Context.invoke", "local")}


def test_a_constructor_imported_from_another_module_types_the_local():
    graph = graph_of("", extra={"tests/test_cli.py": """\
        import app.core
        from app.core import Context

        def test_runner():
            runner = Context()
            runner.invoke()
            other = app.core.Other()
            other.invoke()
        """})
    assert calls_from(graph, "test_runner", "tests/test_cli.py") == {
        ("Context", "ctor.class"), ("Context.invoke", "local"), ("Other", "ctor.class"), ("Other.invoke", "local")}


def test_an_annotated_return_types_the_local_optional_and_string_too():
    graph = graph_of("""
        def current():
            ctx = get_current_context()
            ctx.invoke()
        """)
    assert calls_from(graph, "current") == {("get_current_context", "name.module"), ("Context.invoke", "local")}


def test_a_method_whose_return_names_a_class_types_the_local():
    graph = graph_of("""
        class Command:
            def make_parser(self) -> Parser:
                return Parser()
            def parse(self):
                parser = self.make_parser()
                parser.parse_args()
        """)
    assert calls_from(graph, "Command.parse") == {("Command.make_parser", "self"), ("Parser.parse_args", "local")}


def test_self_is_the_class_the_method_was_called_on():
    graph = graph_of("""
        def made(child: Child):
            a = child.clone()
            a.invoke()
            b = Child.create()
            b.invoke()
        def unbound(child: Child):
            c = Base.clone(child)  # Self is the argument's class here, not Base
            c.invoke()
        """)
    assert calls_from(graph, "made") == {("Base.clone", "annotation"), ("Child.invoke", "local"),
                                         ("Base.create", "attr.module")}
    assert calls_from(graph, "unbound") == {("Base.clone", "attr.module")}


def test_with_as_takes_what_enter_returns():
    graph = graph_of("""
        def make_context() -> Context:
            return Context()

        def main():
            with make_context() as ctx:
                ctx.exit()
            with Context() as direct:
                direct.invoke()
            with Plain() as plain:  # __enter__ without a return annotation: not known
                plain.invoke()
        """)
    assert calls_from(graph, "main") == {
        ("make_context", "name.module"), ("Context.exit", "local"), ("Context", "ctor.class"),
        ("Context.invoke", "local"), ("Plain", "ctor.class")}


def test_a_declared_type_types_the_local():
    graph = graph_of("""
        def declared():
            ctx: Context = untyped()
            ctx.invoke()
        """)
    assert calls_from(graph, "declared") == {("untyped", "name.module"), ("Context.invoke", "local")}


def test_a_closure_sees_the_enclosing_function_s_local():
    graph = graph_of("""
        def outer():
            ctx = Context()
            def inner():
                ctx.invoke()
            return inner
        """)
    assert calls_from(graph, "outer.inner") == {("Context.invoke", "local")}


def test_assignments_that_all_make_the_same_class_type_the_local():
    graph = graph_of("""
        def twice(flag):
            ctx = Context()
            ctx.invoke()
            if flag:
                ctx = get_current_context()
            ctx.exit()
        """)
    assert calls_from(graph, "twice") == {("Context", "ctor.class"), ("get_current_context", "name.module"),
                                          ("Context.invoke", "local"), ("Context.exit", "local")}


def test_switched_off_nothing_is_typed_and_the_calls_are_counted():
    body = """
        def run():
            ctx = Context()
            ctx.invoke()
        """
    assert calls_from(graph_of(body, local_types=False), "run") == {("Context", "ctor.class")}
    assert calls_from(graph_of(body, annotations=False), "run") == {("Context", "ctor.class"),
                                                                    ("Context.invoke", "local")}


# ---- soundness: a local that could hold something else is never typed -------------------

UNTYPED = {
    "two_classes": """
        def two_classes():
            ctx = Context()
            ctx = Other()
            ctx.invoke()
        """,
    "branch": """
        def branch(flag):
            ctx = Context()
            if flag:
                ctx = Other()
            ctx.invoke()
        """,
    "once_typed_once_not": """
        def once_typed_once_not(flag):
            ctx = Context()
            if flag:
                ctx = untyped()
            ctx.invoke()
        """,
    "reassigned_after_the_call": """
        def reassigned_after_the_call(items):
            for item in items:
                ctx = Context()
                ctx.invoke()
                ctx = Other()
        """,
    "parameter": """
        def parameter(ctx):
            if ctx is None:
                ctx = Context()
            ctx.invoke()
        """,
    "for_target": """
        def for_target(items):
            ctx = Context()
            for ctx in items:
                pass
            ctx.invoke()
        """,
    "augmented": """
        def augmented(more):
            ctx = Context()
            ctx += more
            ctx.invoke()
        """,
    "deleted": """
        def deleted():
            ctx = Context()
            del ctx
            ctx.invoke()
        """,
    "with_target": """
        def with_target(path):
            ctx = Context()
            with open(path) as ctx:
                pass
            ctx.invoke()
        """,
    "tuple_target": """
        def tuple_target():
            ctx, other = get_current_context()
            ctx.invoke()
        """,
    "async_with": """
        async def async_with():
            async with Context() as ctx:  # __aenter__ gives it, not __enter__
                ctx.invoke()
        """,
    "match_capture": """
        def match_capture(value):
            ctx = Context()
            match value:
                case [*ctx]:
                    pass
            ctx.invoke()
        """,
    "rebound_by_a_closure": """
        def rebound_by_a_closure():
            ctx = Context()
            def swap():
                nonlocal ctx
                ctx = Other()
            swap()
            ctx.invoke()
        """,
    "new_may_return_anything": """
        def new_may_return_anything():
            ctx = Odd()
            ctx.invoke()
        """,
    "decorator_may_change_the_return": """
        @wrap
        def wrapped() -> Context:
            return Context()

        def decorator_may_change_the_return():
            ctx = wrapped()
            ctx.invoke()
        """,
    "a_coroutine_is_not_its_result": """
        async def later() -> Context:
            return Context()

        def a_coroutine_is_not_its_result():
            ctx = later()
            ctx.invoke()
        """,
}


@pytest.mark.parametrize("name", sorted(UNTYPED))
def test_a_local_that_could_hold_something_else_is_not_typed(name):
    graph = graph_of(UNTYPED[name])
    assert not {c for c, how in calls_from(graph, name) if c.endswith(".invoke")}
    assert graph.unresolved.get("local", 0) >= 1


def test_a_function_defined_twice_types_nothing():
    """The two definitions' bindings are one scope's: the second `ctx` is the module's."""
    graph = graph_of("""
        import app as ctx

        if ctx:
            def twice():
                ctx = Context()
        else:
            def twice():
                ctx.invoke()
        """)
    assert calls_from(graph, "twice") == {("Context", "ctor.class")}


def test_every_call_on_an_untyped_local_is_counted():
    calls = "\n".join(f"    {name}.invoke()" for name in ("a", "b", "c"))
    graph = graph_of("def counted(a, flag):\n    b = Context()\n    b = Other()\n    c = untyped()\n" + calls + "\n")
    assert calls_from(graph, "counted") == {("Context", "ctor.class"), ("Other", "ctor.class"),
                                            ("untyped", "name.module")}
    assert graph.unresolved["local"] == 3


# ---- TypeScript and JavaScript: a function-wide const, or a declared type ------------------

STORE_TS = """\
    export class Store {
      save(): void {}
    }
    export class Other {
      save(): void {}
    }
    """


def ecma_calls(body: str, path: str = "src/use.ts") -> tuple[set[tuple[str, str]], object]:
    files = {"src/store.ts": STORE_TS, path: 'import { Store, Other } from "./store";\n' + body}
    parsed = {p: parse_source(p, textwrap.dedent(t), detect_language(p)) for p, t in files.items()}
    graph = resolve(parsed)
    return {(e.caller.split("#", 1)[1], e.callee.split("#", 1)[1]) for e in graph.edges
            if e.caller.startswith(path) and e.how == "local"}, graph


@pytest.mark.parametrize("path", ["src/use.ts", "src/use.js"])
def test_a_const_made_by_new_types_the_local(path):
    found, _ = ecma_calls("""\
        export function run() {
          const store = new Store();
          store.save();
        }
        """, path)
    assert found == {("run", "Store.save")}


def test_a_declared_type_types_a_typescript_local_let_too():
    found, _ = ecma_calls("""\
        export function run(flag: boolean) {
          const a: Store = pick();
          let b: Other;
          b = pick();
          a.save();
          b.save();
        }
        """)
    assert found == {("run", "Store.save"), ("run", "Other.save")}


def test_a_let_a_var_or_a_block_s_own_const_stays_untyped():
    """`let s = new Store()` may be assigned another thing where no binding is recorded; a
    block's own `const c` is no Store, and after the block `c` is the function's again."""
    found, graph = ecma_calls("""\
        export function run(flag: boolean) {
          let a = new Store();
          var b = new Store();
          const c = new Store();
          if (flag) {
            const c = new Other();
            c.save();
          }
          a = pick();
          a.save();
          b.save();
          c.save();
        }
        """)
    typed = {(e.callee, e.line) for e in graph.edges if e.how == "local"}
    assert typed == {("src/store.ts#Store.save", 13)}  # the last c.save(): a, b and the block's c untyped
    assert graph.unresolved["local"] >= 3


def test_a_class_a_block_declares_types_no_local_outside_it():
    """`const s = new Store()` after an `if` block declaring its own `Store` had typed `s` by the
    block's class: `s.save()` an edge to it, the imported one's left with no callers (qa176)."""
    _, graph = ecma_calls("""\
        if (Math.random() > 2) {
          class Store { save() {} }
        }
        export function run() {
          const s = new Store();
          s.save();
        }
        """)
    assert {e.callee for e in graph.edges if e.caller == "src/use.ts#run"} == {"src/store.ts#Store",
                                                                            "src/store.ts#Store.save"}


def test_a_class_expression_a_block_binds_types_no_local_outside_it():
    """`const Store = class {...}` in an `if` block had been seen function-wide: `new Store()`
    after the block built it, and the module's `Store.save` had no callers (qa188)."""
    graph = resolve({p: parse_source(p, textwrap.dedent(t), detect_language(p)) for p, t in {"src/a.ts": """\
        class Store { save() { return 1; } }
        export function f(x: boolean) {
          if (x) {
            const Store = class { save() { return 2; } };
          }
          const s = new Store();
          s.save();
        }
        """}.items()})
    assert {e.callee for e in graph.edges if e.caller == "src/a.ts#f"} == {"src/a.ts#Store", "src/a.ts#Store.save"}


def test_a_const_a_block_binds_again_is_not_the_one_typed_before_the_block():
    """`c.save()` inside a block whose own `const c = new Other()` had been an edge to
    `Store.save`, typed once for the function before the block (qa176)."""
    _, graph = ecma_calls("""\
        export function run(flag: boolean) {
          const c = new Store();
          c.save();
          if (flag) {
            const c = new Other();
            c.save();
          }
        }
        """)
    assert ("src/store.ts#Store.save", 7) not in {(e.callee, e.line) for e in graph.edges}
