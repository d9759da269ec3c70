"""TypeScript and JavaScript shapes: overloads, arrow-function consts, #private, classes, exports."""

import textwrap

import pytest

from vault_engine.sources.code.symbols import parse_source

SOURCE = textwrap.dedent('''\
    import React, { useState as useLocal } from "react"
    import * as util from "./util"
    import { createStore } from "./vanilla.ts"
    export { shallow } from "./shallow"
    export * from "./types"

    /** Read a store. */
    export function useStore<S>(api: S): S
    export function useStore<S, U>(api: S, selector: (s: S) => U): U
    export function useStore(api: any, selector = identity) {
      return React.useSyncExternalStore(api.subscribe, () => selector(api.getState()))
    }

    export const createImpl = <T,>(createState: T) => {
      const api = createStore(createState)
      const useBound = (selector?: any) => useStore(api, selector)
      return useBound
    }

    export interface Api extends Base { get(): number }
    export type Listener = (state: number) => void
    enum Color { Red }

    @sealed
    export class Store extends BaseStore implements Api {
      #count = 0
      static create = () => new Store(1)
      constructor(n: number) { super(n); this.#bump() }
      #bump(): void { this.#count += 1 }
      get(): number;
      get(key?: string): number { return util.read(this, key) }
    }
    export default Store
    ''')


@pytest.fixture(scope="module")
def parsed():
    return parse_source("src/react.ts", SOURCE, "typescript")


def test_symbols_and_kinds(parsed):
    got = [(s.qualname, s.kind) for s in parsed.symbols]
    assert got == [("useStore", "function"), ("createImpl", "function"), ("createImpl.useBound", "function"),
                   ("Api", "interface"), ("Api.get", "method"), ("Listener", "type"), ("Color", "enum"),
                   ("Store", "class"), ("Store.create", "method"), ("Store.constructor", "constructor"),
                   ("Store.#bump", "method"), ("Store.get", "method")]


def test_overload_signatures_fold_into_the_implementation(parsed):
    use = parsed.symbol("useStore")
    assert (use.line_start, use.def_line, use.line_end) == (8, 10, 12)
    assert use.docstring == "Read a store."
    assert use.signature == "function useStore(api: any, selector = identity)"
    assert use.parameters == ("api", "selector")
    method = parsed.symbol("Store.get")
    assert (method.line_start, method.def_line) == (30, 31)


def test_an_arrow_function_const_is_a_function(parsed):
    impl = parsed.symbol("createImpl")
    assert (impl.line_start, impl.line_end, impl.parameters) == (14, 18, ("createState",))
    assert impl.signature == "const createImpl = <T,>(createState: T) =>"


def test_a_decorated_class_with_bases(parsed):
    store = parsed.symbol("Store")
    assert (store.line_start, store.def_line) == (24, 25)
    assert store.decorators == ("sealed",) and store.bases == ("BaseStore", "Api")
    assert parsed.symbol("Api").bases == ("Base",)


def test_imports_and_exports(parsed):
    got = {(i.local, i.module, i.name) for i in parsed.imports}
    assert got == {("React", "react", "default"), ("useLocal", "react", "useState"), ("util", "./util", None),
                   ("createStore", "./vanilla.ts", "createStore")}
    exports = {(e.name, e.target, e.module) for e in parsed.exports}
    assert {("shallow", "shallow", "./shallow"), ("*", None, "./types"), ("useStore", "useStore", None),
            ("createImpl", "createImpl", None), ("default", "Store", None), ("Store", "Store", None)} <= exports


def test_calls_are_normalized(parsed):
    calls = {(c.caller, c.callee) for c in parsed.calls}
    assert {("useStore", "React.useSyncExternalStore"), ("useStore", "selector"), ("createImpl", "createStore"),
            ("createImpl.useBound", "useStore"), ("Store.create", "new Store"), ("Store.constructor", "super"),
            ("Store.constructor", "this.#bump"), ("Store.get", "util.read")} <= calls


def test_javascript_commonjs_require_binds_like_an_import():
    parsed = parse_source("a.js", 'const x = require("./x")\nconst { a, b: c } = require("../a")\n'
                          "function f() { return x.run() }\n", "javascript")
    assert {(i.local, i.module, i.name) for i in parsed.imports} == {("x", "./x", None), ("a", "../a", "a"),
                                                                     ("c", "../a", "b")}
    assert [s.qualname for s in parsed.symbols] == ["f"]


def test_tsx_parses_jsx():
    parsed = parse_source("App.tsx", "export const App = () => <div onClick={() => go()}>hi</div>\n", "tsx")
    assert parsed.error is None and parsed.symbol("App").kind == "function"
    assert ("App", "go") in {(c.caller, c.callee) for c in parsed.calls}


def test_a_comment_inside_export_braces_is_not_an_export():
    parsed = parse_source("a.js", "function a() {}\nexport {\n  // the one\n  a,\n}\n", "javascript")
    assert [(e.name, e.target) for e in parsed.exports] == [("a", "a")]


def test_a_function_behind_parentheses_and_a_type_is_still_a_function():
    """zustand declares ``createStore`` as ``((createState) => ...) as CreateStore``."""
    parsed = parse_source("src/vanilla.ts", textwrap.dedent('''\
        const createStoreImpl = (createState) => createState
        export const createStore = ((createState) =>
          createState ? createStoreImpl(createState) : createStoreImpl) as CreateStore
        export const inc = ((x: number) => x + 1) satisfies (x: number) => number
        export const config = { a: 1 } satisfies object
        '''), "typescript")
    got = [(s.qualname, s.kind, s.line_start, s.line_end, s.parameters) for s in parsed.symbols]
    assert got == [("createStoreImpl", "function", 1, 1, ("createState",)),
                   ("createStore", "function", 2, 3, ("createState",)), ("inc", "function", 4, 4, ("x",))]
    assert ("createStore", "createStoreImpl") in {(c.caller, c.callee) for c in parsed.calls}
    js = parse_source("a.js", "const f = (function (y) { return g(y) })\n", "javascript")
    assert [s.qualname for s in js.symbols] == ["f"] and ("f", "g") in {(c.caller, c.callee) for c in js.calls}


def test_a_const_bound_by_name_to_a_function_of_its_scope_is_a_function():
    """zustand's middlewares: ``export const persist = persistImpl as unknown as Persist``."""
    parsed = parse_source("src/persist.ts", textwrap.dedent('''\
        const persistImpl = (config: any, options: any) => config
        type Persist = any
        /** Persist a store. */
        export const persist = persistImpl as unknown as Persist
        export const plain = persistImpl
        const three = 3
        export const notAFunction = three as unknown as number
        export const outside = imported as any
        function outer() {
          const inner = (a: number) => a
          const alias = (inner as any)!
          return alias(1)
        }
        '''), "typescript")
    got = [(s.qualname, s.kind, s.line_start, s.line_end, s.parameters) for s in parsed.symbols]
    assert got == [("persistImpl", "function", 1, 1, ("config", "options")), ("Persist", "type", 2, 2, ()),
                   ("persist", "function", 4, 4, ("config", "options")),
                   ("plain", "function", 5, 5, ("config", "options")), ("outer", "function", 9, 13, ()),
                   ("outer.inner", "function", 10, 10, ("a",)), ("outer.alias", "function", 11, 11, ("a",))]
    assert parsed.symbol("persist").docstring == "Persist a store."
    assert parsed.symbol("persist").signature == "const persist = persistImpl as unknown as Persist"
    assert {b.name for b in parsed.bindings if b.kind == "assign"} == {"three", "notAFunction", "outside"}
    js = parse_source("a.js", "function f(x) { return x }\nexport const g = f\n", "javascript")
    assert [s.qualname for s in js.symbols] == ["f", "g"]


@pytest.mark.parametrize("language", ["typescript", "javascript"])
def test_a_class_expression_bound_to_a_const_is_a_class_of_that_name(language):
    """`const Repo = class { save() {} }`: `save` had been a top-level `#save`, `find Repo.save`
    a miss, and `new Repo().save()` no edge (qa139)."""
    parsed = parse_source("a.ts", "export const Repo = class extends Base {\n  save() { return 1 }\n}\n"
                                  "const n = 1, Local = class { go() {} }\n", language)
    assert [(s.qualname, s.kind, s.line_start, s.line_end) for s in parsed.symbols] == [
        ("Repo", "class", 1, 3), ("Repo.save", "method", 2, 2), ("Local", "class", 4, 4), ("Local.go", "method", 4, 4)]
    assert parsed.symbols[0].bases == ("Base",)
