"""show, outline and callers/callees over a small indexed repository."""

import re

import pytest

from tests.code_vault import build
from vault_engine.errors import BadArgument, UnknownRef
from vault_engine.vault import Vault

SRC_TAP = '[taps.code]\nsource = "code"\npaths = ["src/**"]\n[model]\nenabled = false\n'  # a code tap, words only
SRC_AND_TESTS_TAP = SRC_TAP.replace('["src/**"]', '["src/**", "tests/**"]')


@pytest.fixture
def vault(make_vault):
    with Vault(build(make_vault)) as v:
        yield v


def test_show_of_a_file_changed_since_the_index_shows_the_symbol_as_the_file_holds_it_now(vault):
    """Three lines added above a method: its stored span showed the end of the method before
    it, under its name (qa95); a symbol the file no longer defines is said to be gone."""
    source = vault.root / "src/shop/orders.py"
    before = vault.show("src/shop/orders.py#OrderBook.place")
    source.write_text("# one\n# two\n# three\n" + source.read_text())
    now = vault.show("src/shop/orders.py#OrderBook.place")
    assert now.lines == before.lines and now.line_start == before.line_start + 3
    assert now.notices == (f"src/shop/orders.py changed since it was indexed: OrderBook.place is shown as the file "
                           f"holds it now (lines {now.line_start}-{now.line_start + len(now.lines) - 1}, indexed as "
                           f"{before.line_start}-{before.line_start + len(before.lines) - 1}); run `vault-engine index`",)
    source.write_text(source.read_text().replace("def place(", "def put("))
    with pytest.raises(UnknownRef, match="src/shop/orders.py changed since it was indexed and no longer defines "
                                         "'OrderBook.place': run `vault-engine index`"):
        vault.show("src/shop/orders.py#OrderBook.place")


def test_show_of_a_file_with_windows_line_ends_prints_its_lines_without_them(vault):
    """Each line was printed with "\\x0d" at its end, and `--json` kept the "\\r" (qa159)."""
    source = vault.root / "src/shop/orders.py"
    source.write_bytes(source.read_bytes().replace(b"\n", b"\r\n"))
    vault.index(embed=False)
    view = vault.show("src/shop/orders.py#OrderBook.place")
    assert view.lines and not any("\r" in line for line in view.lines)


def test_show_prints_the_symbol_with_its_decorators_and_why(vault):
    view = vault.show("src/shop/orders.py#OrderBook._check")
    assert view.line_start == 11 and view.lines[0].strip() == "@staticmethod"
    assert view.numbered().splitlines()[1] == "12      def _check(qty):"
    place = vault.show("src/shop/orders.py#OrderBook.place")
    assert {w.ref for w in place.why} == {"memory/orders.md", "projects/shop/checkpoints/2026-09-01T10-00-00Z-agent.md"}
    assert {w.via for w in place.why} == {"mention", "link"}
    assert [d["text"] for d in place.dead_ends] == ["Cache prices inside `OrderBook.place`"]
    assert [(w.ref, w.of) for w in place.why] == [  # the notes naming it first, then its file's
        ("memory/orders.md", "symbol"), ("projects/shop/checkpoints/2026-09-01T10-00-00Z-agent.md", "symbol"),
        ("memory/orders.md", "file")]
    assert [w.ref for w in vault.calls("OrderBook.place").why] == [w.ref for w in place.why]  # one why everywhere
    assert vault.find("OrderBook.place").hits[0].why == place.why
    with pytest.raises(UnknownRef, match="defines no symbol 'OrderBook.nope'"):
        vault.show("src/shop/orders.py#OrderBook.nope")
    # a symbol's name alone, as callers and find take it: "no note 'Context.exit'" (qa135)
    assert vault.show("OrderBook._check").ref == "src/shop/orders.py#OrderBook._check"
    with pytest.raises(UnknownRef, match=re.escape("no note 'place', and it names 2 definitions: "
                                                   "src/shop/pricing.py#place, src/shop/orders.py#OrderBook.place")):
        vault.show("place")
    with pytest.raises(UnknownRef, match="no note 'nothing_named_so' in the index"):
        vault.show("nothing_named_so")
    # a slip in the name or the file gets the suggestion callers gives, not talk of notes (qa139)
    for slipped in ("OrderBook._chek", "orders.pyy#OrderBook._check"):
        with pytest.raises(UnknownRef, match=re.escape(f"no note or symbol {slipped!r}: did you mean "
                                                       "src/shop/orders.py#OrderBook._check?")):
            vault.show(slipped)
    whole = vault.show("src/shop/orders.py")  # its last line ends with a newline: no empty line after it
    source = (vault.root / "src/shop/orders.py").read_text()
    assert whole.line_end == len(source.splitlines()) and whole.lines[-1] == source.splitlines()[-1]


def test_status_counts_notes_and_source_files_apart(vault):
    status = vault.status()
    assert status["notes"] == 2  # memory/orders.md and the checkpoint (src/README.md is the repository's)
    assert status["attachments"] == 0 and status["code"]["files"] > 0


def test_outline_lists_spans_parameters_decorators(vault):
    outline = vault.outline("shop/orders.py")  # a unique ending of the path
    assert outline.path == "src/shop/orders.py"
    rows = {s.symbol: (s.kind, s.line_start, s.def_line, s.parameters, s.decorators) for s in outline.symbols}
    assert rows["OrderBook._check"] == ("method", 11, 12, ("qty",), ("staticmethod",))
    assert rows["unused"][0] == "function"
    assert [w.ref for w in outline.why] == ["memory/orders.md"]  # it links to the file
    # a slip in its name gets find's suggestion, as a symbol's does (qa135: `outline formating.py`)
    with pytest.raises(UnknownRef, match=re.escape("'ordres.py' is not an indexed source file: no such file; "
                                                   "did you mean src/shop/orders.py?")):
        vault.outline("ordres.py")


def test_callers_and_callees_with_depth_and_tests_excluded(vault):
    callers = vault.calls("price_of", depth=1)
    assert callers.status == "hit"
    assert {n.ref for n in callers.nodes} == {"src/shop/cli.py#main", "src/shop/orders.py#OrderBook.place",
                                              "src/tests/test_orders.py#test_price"}
    assert {n.ref for n in vault.calls("price_of", exclude_tests=True).nodes} == {
        "src/shop/cli.py#main", "src/shop/orders.py#OrderBook.place"}
    deep = vault.calls("OrderBook._check", depth=2)
    assert {(n.ref, n.hops) for n in deep.nodes} == {("src/shop/orders.py#OrderBook.place", 1)}
    callees = vault.calls("src/shop/cli.py#main", direction="callees")
    assert {n.ref for n in callees.nodes} == {"src/shop/orders.py#OrderBook.__init__", "src/shop/pricing.py#price_of"}
    # a ref's file by the end of its path, as outline takes it (qa62: "no such symbol")
    for short in ("cli.py#main", "shop/cli.py#main"):
        assert vault.calls(short, direction="callees").nodes == callees.nodes
    assert vault.calls("OrderBook", direction="callers").nodes[0].ref == "src/shop/cli.py#main"  # via __init__
    assert {e.callee for e in vault.calls("web/app.ts#createStore", direction="callees").edges} == {"web/app.ts#helper"}


@pytest.mark.parametrize("name, source", [
    ("fact.py", "def fact(n):\n    return 1 if n <= 1 else n * fact(n - 1)\n\n\ndef use():\n    return fact(3)\n"),
    ("fact.go", "package m\n\nfunc fact(n int) int {\n\tif n <= 1 {\n\t\treturn 1\n\t}\n\treturn n * fact(n-1)\n}\n\n"
                "func use() int { return fact(3) }\n"),
])
def test_a_recursive_function_is_its_own_caller_and_callee(make_vault, name, source):
    # the self-edge was in `edges` while `nodes` was empty and the status said no_callees
    root = make_vault({f"src/{name}": source},
                      config=SRC_TAP)
    with Vault(root) as v:
        v.index(embed=False)
        fact = f"src/{name}#fact"
        assert {(n.ref, n.hops) for n in v.calls("fact").nodes} == {(fact, 1), (f"src/{name}#use", 1)}
        callees = v.calls("fact", direction="callees", depth=3)
        assert (callees.status, [(n.ref, n.hops) for n in callees.nodes]) == ("hit", [(fact, 1)])


def test_a_file_the_scan_leaves_out_says_why_not_to_run_index(make_vault):
    # "new or changed since the last index: run `vault-engine index`", which skips it again
    root = make_vault({"src/.gitignore": "ignored.ts\n", "src/ignored.ts": "export const a = 1;\n",
                       "src/target/x.rs": "fn x() {}\n", "src/ok.ts": "export const b = 2;\n"},
                      config=SRC_TAP)
    with Vault(root) as v:
        v.index(embed=False)
        with pytest.raises(UnknownRef, match=r"skipped when indexed \(ignored by \.gitignore\)"):
            v.outline("src/ignored.ts")
        with pytest.raises(UnknownRef, match=r"inside src/target/, build output: never indexed"):
            v.outline("src/target/x.rs")
        (root / "src/new.ts").write_text("export const c = 3;\n")
        with pytest.raises(UnknownRef, match="new or changed since the last index"):
            v.outline("src/new.ts")


def test_a_rust_path_names_what_its_dotted_form_names(make_vault):
    # `find util::fib`, `Ledger::record`: "no symbol" while `util.fib` hit
    root = make_vault({"src/util.rs": "pub fn fib(n: u64) -> u64 { n }\n",
                       "src/ledger.rs": "pub struct Ledger {}\nimpl Ledger {\n    fn validate(&self) {}\n"
                                        "    pub fn record(&self) { self.validate() }\n}\n",
                       # a note names Rust code as Rust writes it (qa57: linked to none of it)
                       "memory/ledger.md": "# Ledger\n`Ledger::record` validates first; `crate::util::fib` is pure.\n"},
                      config=SRC_TAP)
    with Vault(root) as v:
        v.index(embed=False)
        for query, ref in (("util::fib", "src/util.rs#fib"), ("crate::util::fib", "src/util.rs#fib"),
                           ("Ledger::record", "src/ledger.rs#Ledger.record")):
            assert [h.ref for h in v.find(query).hits] == [ref], query
        assert [n.ref for n in v.calls("Ledger::validate").nodes] == ["src/ledger.rs#Ledger.record"]
        for symbol in ("Ledger::record", "util::fib"):
            assert [w.ref for w in v.calls(symbol).why] == ["memory/ledger.md"], symbol


def test_the_end_of_a_nested_definitions_name_names_it(make_vault):
    # `callers Catalog.defaultPrice` (Java's Order.Catalog) said "no symbol" while find suggested it
    root = make_vault({"src/order.py": "class Order:\n    class Catalog:\n        def default_price(self):\n"
                                       "            return 1\n\n    def add(self):\n"
                                       "        return Order.Catalog().default_price()\n"},
                      config=SRC_TAP)
    with Vault(root) as v:
        v.index(embed=False)
        assert [h.ref for h in v.find("Catalog.default_price").hits] == ["src/order.py#Order.Catalog.default_price"]
        assert v.calls("Catalog.default_price").start == "src/order.py#Order.Catalog.default_price"


def test_a_go_import_inside_the_module_of_a_go_mod_below_the_root_resolves(make_vault):
    # with src/go.mod (`module example.com/shop`), every cross-package call was "external"
    root = make_vault({"src/go.mod": "module example.com/shop\n\ngo 1.21\n",
                       "src/pricing/pricing.go": "package pricing\n\nfunc Price(n int) int { return n }\n",
                       "src/main.go": 'package main\n\nimport "example.com/shop/pricing"\n\n'
                                      "func run() int { return pricing.Price(2) }\n"},
                      config=SRC_TAP)
    with Vault(root) as v:
        v.index(embed=False)
        assert [n.ref for n in v.calls("Price").nodes] == ["src/main.go#run"]
        # a Go package is its folder: `store.Restock` for store/inventory.go was a clean miss
        (root / "src/pricing/discount.go").write_text("package pricing\n\nfunc Discount(n int) int { return n }\n")
        v.index(embed=False)
        assert [h.ref for h in v.find("pricing.Discount").hits] == ["src/pricing/discount.go#Discount"]
        assert v.find("discount.Discount").tier != "symbol"  # no package is named discount


def test_a_java_name_qualified_by_its_package_names_its_method(make_vault):
    # `find com.shop.util.MathUtil.factorial` was a clean miss (the module was read as MathUtil)
    root = make_vault({"src/main/java/com/shop/util/MathUtil.java":
                       "package com.shop.util;\npublic class MathUtil {\n"
                       "    public static long factorial(int n) { return n <= 1 ? 1 : n * factorial(n - 1); }\n}\n"},
                      config=SRC_TAP)
    with Vault(root) as v:
        v.index(embed=False)
        for query in ("com.shop.util.MathUtil.factorial", "util.MathUtil.factorial", "MathUtil.factorial"):
            assert [h.ref for h in v.find(query).hits] == [
                "src/main/java/com/shop/util/MathUtil.java#MathUtil.factorial"], query


def test_callers_of_a_java_class_are_those_of_its_constructors_not_ambiguous(make_vault):
    # the class and its constructor share the name: "ambiguous: names 2 definitions"
    root = make_vault({"src/Svc.java": "class Svc {\n    Svc(int n) {}\n}\n",
                       "src/App.java": "class App {\n    static void main() { new Svc(5); }\n}\n"},
                      config=SRC_TAP)
    with Vault(root) as v:
        v.index(embed=False)
        answer = v.calls("Svc")
        assert (answer.status, [n.ref for n in answer.nodes]) == ("hit", ["src/App.java#App.main"])


def test_the_four_not_founds_are_told_apart(vault, make_vault):
    assert vault.calls("unused").status == "no_callers"
    ambiguous = vault.calls("place")
    assert ambiguous.status == "ambiguous"
    assert set(ambiguous.candidates) == {"src/shop/orders.py#OrderBook.place", "src/shop/pricing.py#place"}
    assert vault.calls("no_such_thing").status == "no_such_symbol"
    assert vault.calls("src/shop/orders.py#missing").status == "no_such_symbol"
    file = vault.calls("src/shop/orders.py")  # a file, not a symbol: say so, and how to list its symbols
    assert file.status == "no_such_symbol" and "None" not in file.reason
    assert "is a file" in file.reason and "outline src/shop/orders.py" in file.reason
    (vault.root / "src/shop/later.py").write_text("def later():\n    return 1\n")
    answer = vault.calls("src/shop/later.py#later")
    assert answer.status == "not_indexed" and "run `vault-engine index`" in answer.reason
    assert vault.calls("later").status == "not_indexed"  # a bare name, while a file is new: not "no such"
    with pytest.raises(BadArgument):
        vault.calls("price_of", depth=6)


def test_a_long_lived_vault_sees_code_indexed_after_it_first_asked(make_vault):
    root = build(make_vault)
    with Vault(root) as reader:
        assert reader.find("later").status == "miss"
        (root / "src/shop/later.py").write_text("def later():\n    return 1\n")
        with Vault(root) as writer:
            writer.index_paths(["src/shop/later.py"])
        assert reader.find("later").hits[0].ref == "src/shop/later.py#later"
        assert reader.find("shop/later.py").tier == "path"


def test_a_call_answers_reason_counts_in_words(vault):
    assert vault.calls("price_of").reason == "3 direct callers"
    assert vault.calls("OrderBook._check").reason == "1 direct caller"  # was "1 callers within 1 call(s)"
    assert vault.calls("price_of", depth=2).reason.endswith("within 2 calls")


def test_callers_carry_the_dead_ends_that_name_the_symbol_as_show_does(vault):
    answer = vault.calls("OrderBook.place", direction="callees")
    assert [d["text"] for d in answer.dead_ends] == ["Cache prices inside `OrderBook.place`"]
    assert answer.to_json()["dead_ends"][0]["reason"] == "stale prices after an update"
    ref = answer.dead_ends[0]["ref"]  # opens what it names: the ruling's section, as deadend check's ref
    assert ref == "projects/shop/checkpoints/2026-09-01T10-00-00Z-agent.md#Failed", ref
    assert "Cache prices inside" in vault.show(ref).text
    assert answer.dead_ends[0]["slug"] == "cache-prices-inside-orderbook-place"
    assert vault.calls("price_of").dead_ends == ()  # no dead end names it
    listed = {r.text: r.when for r in vault.deadend_list()}  # dated as `deadend list` dates it, an int
    assert answer.to_json()["dead_ends"][0]["when"] == int(listed["Cache prices inside `OrderBook.place`"])
    assert isinstance(answer.to_json()["dead_ends"][0]["when"], int)


def test_a_name_a_package_re_exports_is_found_where_it_is_defined(vault):
    """`shop.OrderBook` as the package's users write it: `src/shop/__init__.py` imports it."""
    hit = vault.find("shop.OrderBook.place")
    assert hit.status == "hit" and [h.ref for h in hit.hits] == ["src/shop/orders.py#OrderBook.place"]
    assert [h.ref for h in vault.find("shop.OrderBook").hits] == ["src/shop/orders.py#OrderBook"]
    assert vault.find("shop.price_of").status != "hit"  # the package does not import it: no guess


def test_a_misspelt_symbol_gets_finds_suggestion_from_callers_callees_and_show(vault):
    # `find Context.exti` said "did you mean ...Context.exit", `callers` and `show` nothing (qa24 #8)
    meant = "src/shop/orders.py#OrderBook.place"
    for asked in ("OrderBook.plase", "src/shop/orders.py#OrderBook.plase"):
        answer = vault.calls(asked, direction="callers")
        assert answer.status == "no_such_symbol" and answer.candidates[0] == meant
        assert answer.reason.endswith(f"did you mean {meant}? Confirm it before acting on it")
    with pytest.raises(UnknownRef, match=f"defines no symbol 'OrderBook.plase': did you mean {meant}\\?"):
        vault.show("src/shop/orders.py#OrderBook.plase")
    assert vault.calls("nothing_like_this_at_all", direction="callers").candidates == ()


def test_callers_of_a_method_name_the_calls_of_its_name_the_syntax_cannot_confirm(make_vault, cli):
    """`other.record()` on a local bound by a call of no known return: "no callers" read as
    dead code (qa57). `Ledger::new()` returns `Self`: its local is a Ledger, an edge."""
    root = make_vault({"src/ledger.rs": "pub struct Ledger {}\nimpl Ledger {\n    pub fn new() -> Self { Ledger {} }\n"
                                        "    pub fn record(&mut self) {}\n    pub fn total(&self) {}\n}\n",
                       "src/main.rs": "mod ledger;\nfn main() {\n    let mut book = ledger::Ledger::new();\n"
                                      "    book.record();\n    let mut other = make();\n    other.record();\n}\n",
                       "tests/it.rs": "fn check() { let mut l = make(); l.record(); }\n"},
                      config=SRC_AND_TESTS_TAP)
    with Vault(root) as v:
        v.index(embed=False)
        answer = v.calls("Ledger.record")
        assert [n.ref for n in answer.nodes] == ["src/main.rs#main"] and answer.unconfirmed == (
            {"caller": "src/main.rs#main", "path": "src/main.rs", "line": 6, "reason": "local", "source": ""},
            {"caller": "tests/it.rs#check", "path": "tests/it.rs", "line": 1, "reason": "local", "source": ""})
        assert [u["path"] for u in v.calls("Ledger.record", exclude_tests=True).unconfirmed] == ["src/main.rs"]
        assert v.calls("Ledger.total").unconfirmed == ()  # no call of its name: nothing more to say
        assert v.calls("main", direction="callees").unconfirmed == ()  # callers only
    text = cli("--vault", root, "callers", "Ledger.record").out
    assert ("note: 2 calls of a method named `record` on a receiver whose type the syntax does not give, not "
            "counted above (it may be this method, or another of that name): src/main.rs:6 in main, "
            "tests/it.rs:1 in check") in text


def test_unconfirmed_calls_are_of_the_methods_language_and_each_line_once(make_vault):
    """A Java method listed a JavaScript `cart.add()` and a Python call (qa58); two calls on
    one line were listed twice."""
    root = make_vault({"src/Order.java": "class Order {\n  void add(String s) {}\n}\n",
                       "src/app.js": "function main(cart) { cart.add(1); }\n",
                       "src/use.py": "def use(o):\n    o.add(1)\n",
                       "src/Shop.java": "class Shop {\n  void go() { var o = make(); o.add(\"a\"); o.add(\"b\"); }\n}\n"},
                      config=SRC_TAP)
    with Vault(root) as v:
        v.index(embed=False)
        assert [(u["path"], u["line"]) for u in v.calls("Order.add").unconfirmed] == [("src/Shop.java", 2)]


def test_callers_name_the_calls_of_a_name_imported_from_outside_or_left_by_a_rename(make_vault, cli):
    """zustand's tests call `persist` imported from the package's own name, which no
    package.json maps: `callers persist` said a bare "no callers"; after `def _split_opt` was
    renamed, `callers _split_opt` said "no such symbol" and nothing of the calls still naming it
    (qa95)."""
    root = make_vault({"src/middleware/persist.ts": "export function persist(x: number) { return x }\n",
                       "tests/persist.test.ts": "import { persist } from 'pkg/middleware'\npersist(1)\n",
                       "src/parser.py": "def _split_option(o):\n    return o\n",
                       "src/core.py": "from parser import _split_opt\n\ndef main():\n    return _split_opt('-x')\n"},
                      config=SRC_TAP.replace('["src/**"]', '["src/**", "tests/**"]'))
    with Vault(root) as v:
        v.index(embed=False)
        answer = v.calls("persist")
        assert answer.status == "no_callers" and answer.unconfirmed == (
            {"caller": "tests/persist.test.ts", "path": "tests/persist.test.ts", "line": 2, "reason": "external",
             "source": "pkg/middleware"},)
        assert v.calls("persist", exclude_tests=True).unconfirmed == ()
        gone = v.calls("_split_opt")
        assert gone.status == "no_such_symbol" and [(u["path"], u["line"]) for u in gone.unconfirmed] == [
            ("src/core.py", 4)]
        assert v.calls("_split_option").unconfirmed == ()  # the new name: nothing unbound calls it
    assert ("note: 1 call of `persist` imported from outside the indexed code (pkg/middleware), not counted above "
            "(if that is this code under its package's name, they call it): tests/persist.test.ts:2 in module code"
            ) in cli("--vault", root, "callers", "persist").out
    assert ("note: 1 call of `_split_opt`, a name no indexed definition answers where it is called (a rename leaves "
            "such calls behind): src/core.py:4 in main") in cli("--vault", root, "callers", "_split_opt").out


def test_a_bare_name_answered_by_a_closure_still_names_the_calls_a_rename_left_behind(make_vault):
    """`callers echo --exclude-tests` after click's `echo` was renamed: a test's closure named
    `echo` answered "no callers outside tests", and the 25 calls the rename left in src/ went
    unsaid (qa135)."""
    root = make_vault({"src/pkg/util.py": "def echo_out(m):\n    return m\n",
                       "src/pkg/core.py": "from .util import echo\n\n\ndef main():\n    echo(1)\n",
                       "tests/test_x.py": "def test_a():\n    def echo(m):\n        return m\n    echo(2)\n"},
                      config=SRC_AND_TESTS_TAP)
    with Vault(root) as v:
        v.index(embed=False)
        answer = v.calls("echo", exclude_tests=True)
        assert answer.start == "tests/test_x.py#test_a.echo" and answer.status == "no_callers"
        assert [(u["path"], u["line"]) for u in answer.unconfirmed] == [("src/pkg/core.py", 5)]
        assert "1 call of `echo`, a name no indexed definition answers where it is called" in answer.notices[0]
        assert v.calls("test_a.echo").unconfirmed == ()  # a qualified name asks for that definition alone


def test_a_closure_handed_out_as_a_member_names_the_calls_of_its_name_on_untyped_receivers(make_vault):
    """zustand's `createStoreImpl.setState` is returned in an object and called as
    `store.setState(...)` 87 times: "no callers" said nothing of them (qa135)."""
    root = make_vault({"src/vanilla.ts": "export const createStore = () => {\n  const setState = (v) => v\n"
                                         "  return { setState }\n}\n",
                       "src/use.ts": "import { createStore } from './vanilla'\nconst store = createStore()\n"
                                     "store.setState(1)\n"}, config=SRC_TAP)
    with Vault(root) as v:
        v.index(embed=False)
        answer = v.calls("createStore.setState")
        assert answer.status == "no_callers"
        assert [(u["path"], u["line"], u["reason"]) for u in answer.unconfirmed] == [("src/use.ts", 3, "assigned")]


def test_a_tests_own_definition_is_never_what_a_package_import_names(make_vault):
    """A closure inside an `it` callback was given 142 calls of `createStore` imported from
    `zustand/vanilla`, "if that is this code under its package's name, they call it" (qa138)."""
    root = make_vault({"src/use.ts": "import { createStore } from 'zustand/vanilla'\ncreateStore(1)\n",
                       "tests/a.test.ts": "it('x', () => {\n  const createStore = () => 1\n  createStore()\n})\n",
                       "src/lib.ts": "export function createStore() { return 2 }\n"},
                      config=SRC_AND_TESTS_TAP)
    with Vault(root) as v:
        v.index(embed=False)
        assert v.calls("tests/a.test.ts#createStore").unconfirmed == ()
        assert [u["path"] for u in v.calls("src/lib.ts#createStore").unconfirmed] == ["src/use.ts"]


def test_a_call_whose_typed_receiver_lacks_a_name_is_no_call_of_a_function_of_that_name(make_vault):
    """`ctx.make_formatter()` on a class that lacks it is kept for `callers make_formatter` after a
    rename (qa100); a module-level function `make_formatter` it cannot reach does not list it."""
    root = make_vault({"src/core.py": "class Context:\n    def help(self):\n        return 1\n\n\n"
                                      "def show(ctx: Context):\n    return ctx.make_formatter()\n",
                       "src/fmt.py": "def make_formatter():\n    return 2\n"}, config=SRC_TAP)
    with Vault(root) as v:
        v.index(embed=False)
        answer = v.calls("make_formatter")
        assert answer.status == "no_callers" and answer.unconfirmed == ()


def test_a_java_overload_of_another_arity_is_no_override(make_vault):
    """`price(Order, long)` was said to override the interface's `price(Order)`, whose callers
    cannot reach it (qa58)."""
    root = make_vault({"src/PriceService.java": "interface PriceService {\n  long price(String o);\n}\n",
                       "src/Impl.java": "class Impl implements PriceService {\n  public long price(String o) { return 1; }\n"
                                        "  public long price(String o, long n) { return n; }\n}\n",
                       "src/App.java": "class App {\n  static void main(PriceService s) { s.price(\"x\"); }\n}\n"},
                      config=SRC_TAP)
    with Vault(root) as v:
        v.index(embed=False)
        assert "overrides" in v.calls("src/Impl.java#Impl.price").reason
        assert "overrides" not in v.calls("src/Impl.java#Impl.price~2").reason


def test_a_file_of_a_tap_beside_the_vault_is_named_by_its_path_from_the_vault(make_vault):
    """`outline ../jsrepo/src/cart.js` said it is "not one of taps.code.paths" though indexed
    under `web:` (qa58); its absolute path names it too."""
    root = make_vault({"src/a.py": "def a():\n    return 1\n",
                       "../jsrepo/src/cart.js": "export class Cart {\n  add(x) { return x; }\n}\n"},
                      config='[taps.code]\nsource = "code"\npaths = ["src/**"]\n'
                             '[taps.web]\nsource = "code"\nroot = "../jsrepo"\npaths = ["src/**"]\n[model]\nenabled = false\n')
    with Vault(root) as v:
        v.index(embed=False)
        absolute = str((root / "../jsrepo/src/cart.js").resolve())
        for path in ("../jsrepo/src/cart.js", absolute, "src/cart.js"):
            assert v.outline(path).path == "web:src/cart.js", path
            assert [h.ref for h in v.find(path).hits] == ["web:src/cart.js"], path
        with pytest.raises(UnknownRef, match="no such file"):
            v.outline("../jsrepo/src/nosuch.js")
        # a symbol's ref without the tap's prefix, or by the end of its path, as callers and
        # show take it: find said "src/cart.js is not indexed ... run index", which never helped (qa135)
        for ref in ("src/cart.js#Cart.add", "cart.js#Cart.add"):
            assert [h.ref for h in v.find(ref).hits] == ["web:src/cart.js#Cart.add"], ref
        missed = v.find("src/cart.js#Cart.remove")
        assert missed.status == "miss" and "not indexed" not in missed.reason
        # a slip in the path as its tap writes it gets a suggestion, as with the prefix (qa138)
        assert v.find("src/crat.js").suggestion == v.find("web:src/crat.js").suggestion == "web:src/cart.js"
        with pytest.raises(UnknownRef, match="did you mean web:src/cart.js"):
            v.outline("src/crat.js")


def test_a_method_is_named_by_its_name_alone_when_no_other_symbol_has_it(make_vault):
    """A note about `find_object(T)` explained no method of click's: only a function's bare
    name was a mention of it (qa62). A name two symbols share names neither."""
    note = "# Guards\nThe `_check(qty)` guard refuses a zero quantity; `place` is called once per order.\n"
    with Vault(build(make_vault, {"memory/guards.md": note})) as v:
        v.index(embed=False)
        assert "memory/guards.md" in {w.ref for w in v.show("src/shop/orders.py#OrderBook._check").why}
        assert "memory/guards.md" not in {w.ref for w in v.show("src/shop/orders.py#OrderBook.place").why}


def test_a_note_named_in_capitals_is_no_changed_source_file(make_vault):
    """"Is this path a note?" was asked four ways: a code tap's staleness check asked it case
    by case, so `NOTES.MD`, a note to the scan, was "1 source file changed since the last
    index" right after `index` (qa109)."""
    root = build(make_vault)
    (root / "NOTES.MD").write_text("# Notes\nThe order book keeps every order.\n")
    with Vault(root) as v:
        v.index(embed=False)
        answer = v.calls("no_such_thing")
        assert answer.status == "no_such_symbol" and "changed since" not in answer.reason


def test_depth_walks_that_many_calls_away_each_way(make_vault):
    """The product's walk (retrieval/code/graph.py) at depth 2 and 5: the sample repository's
    calls are one deep, so walking one level less than asked had passed every test (qa110)."""
    chain = "def a(): b()\ndef b(): c()\ndef c(): d()\ndef d(): e()\ndef e(): f()\ndef f(): g()\ndef g(): pass\n"
    with Vault(build(make_vault, {"src/chain.py": chain})) as v:
        v.index(embed=False)
        two = v.calls("src/chain.py#a", direction="callees", depth=2)
        assert {(n.ref, n.hops) for n in two.nodes} == {("src/chain.py#b", 1), ("src/chain.py#c", 2)}
        five = v.calls("src/chain.py#a", direction="callees", depth=5)
        assert sorted(n.hops for n in five.nodes) == [1, 2, 3, 4, 5]
        three = v.calls("src/chain.py#g", direction="callers", depth=3)
        assert {(n.ref, n.hops) for n in three.nodes} == {("src/chain.py#f", 1), ("src/chain.py#e", 2),
                                                          ("src/chain.py#d", 3)}


def test_a_note_a_code_tap_claims_is_said_so_not_new_since_the_index(make_vault):
    """`paths = ["**"]` claims the vault's Markdown too, which is then neither a note nor code:
    `show notes.md` had said "new since the last index: run vault-engine index", after every
    index (qa111)."""
    root = make_vault({"notes.md": "# Notes\nSome notes.\n", "tools.py": "def tool():\n    return 1\n"},
                      config='[model]\nenabled = false\n[taps.code]\nsource = "code"\npaths = ["**"]\n')
    with Vault(root) as v:
        v.index(embed=False)
        with pytest.raises(UnknownRef, match=r"the code tap 'code' claims it \(\[taps.code\] paths\)"):
            v.show("notes.md")
        # and status says so beside "notes 0" (qa113)
        assert v.status()["code"]["claimed_notes"] == ["notes.md"]

