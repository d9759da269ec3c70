"""find's four tiers and the junction, over a small indexed repository and its memory note."""

import re

import pytest

from tests.code_vault import build
from vault_engine.errors import BadArgument
from vault_engine.retrieval.find.suggest import Suggester, SuggestRule, looks_like_code
from vault_engine.vault import Vault


@pytest.fixture
def vault(make_vault):
    with Vault(build(make_vault)) as v:
        yield v


def refs(result):
    return [h.ref for h in result.hits]


def test_tier_1_every_definition_ranked_with_def_line(vault):
    found = vault.find("place")
    assert (found.status, found.tier) == ("hit", "symbol")
    assert refs(found) == ["src/shop/pricing.py#place", "src/shop/orders.py#OrderBook.place"]  # top-level first
    assert refs(vault.find("shop.orders:OrderBook.place")) == ["src/shop/orders.py#OrderBook.place"]
    assert refs(vault.find("price_of()")) == ["src/shop/pricing.py#price_of"]
    assert refs(vault.find("src/shop/orders.py#OrderBook.place")) == ["src/shop/orders.py#OrderBook.place"]
    check = vault.find("OrderBook._check").hits[0]
    assert (check.line_start, check.def_line, check.kind) == (11, 12, "method")
    assert vault.find("OrderBook.place").hits[0].to_json()["why"] == [
        "memory/orders.md", "projects/shop/checkpoints/2026-09-01T10-00-00Z-agent.md"]


def test_tier_2_paths_fail_closed(vault):
    assert refs(vault.find("orders.py")) == ["src/shop/orders.py"]
    assert vault.find("shop/orders.py").tier == "path"
    assert vault.find("rders.py").status != "hit"  # never a partial component


def test_tier_3_suggests_and_never_hits(vault):
    typo = vault.find("OrdreBook.plcae")
    assert (typo.status, typo.tier, typo.hits) == ("junction", "fuzzy", ())
    assert typo.suggestion == "src/shop/orders.py#OrderBook.place"
    assert vault.find("prcie_of").suggestion == "src/shop/pricing.py#price_of"
    assert vault.find("shop/ordres.py").suggestion == "src/shop/orders.py"
    # a slip in the extension of a file's name alone, as with its folder (qa135: `core.pyy` missed)
    assert vault.find("orders.pyy").suggestion == vault.find("shop/orders.pyy").suggestion == "src/shop/orders.py"
    assert vault.find("orders.Pricce").suggestion != "src/shop/orders.py"  # a member mistyped, no extension (qa138)
    # a slip in a ref's symbol or file: "none is close enough", and no suggestion from callers (qa139)
    for slipped in ("orders.py#OrderBook.plcae", "shop/orders.pyy#OrderBook.place", "orders.pyy#OrderBook.plcae"):
        assert vault.find(slipped).suggestion == "src/shop/orders.py#OrderBook.place", slipped
        assert vault.calls(slipped).candidates[0] == "src/shop/orders.py#OrderBook.place", slipped
    assert vault.find("pricing.py#OrderBook.place").suggestion is None  # not in the file it names
    assert "(2 edit(s) away)" in vault.find("orders.pyy#OrderBook.plcae").reason  # a slip in each part (qa141)


def test_tier_4_memory_by_words_and_facet(vault):
    found = vault.find("why must the quantity be positive before pricing an order?")
    assert (found.status, found.tier, refs(found)) == ("hit", "memory", ["memory/orders.md"])
    assert found.hits[0].facet == "invariants"
    assert vault.find("why must the quantity be positive before pricing?", facet="lifecycle").status == "miss"
    assert vault.find("quantity").status == "miss"  # a lone token is a name, not a question...
    assert refs(vault.find("quantity", tier="memory")) == ["memory/orders.md"]  # ...unless asked


def test_a_question_naming_a_symbol_says_where_it_is_and_how_to_follow_its_calls(vault):
    """"what calls measure_columns" answered with memory notes sharing "calls" (qa48)."""
    beside = vault.find("what calls price_of when the order quantity is positive?")
    assert (beside.status, beside.tier, refs(beside)) == ("hit", "memory", ["memory/orders.md"])
    assert beside.notices == (
        "memory notes only, none holding every word of the question; it names 'price_of', defined at "
        "src/shop/pricing.py#price_of: `vault-engine callers price_of` lists what calls it, "
        "`vault-engine callees price_of` what it calls",)
    alone = vault.find("who uses createStore these days?")  # no memory note answers: its definition does
    assert (alone.status, alone.tier, refs(alone)) == ("hit", "symbol", ["web/app.ts#createStore"])
    assert alone.reason == ("no memory note answers the question; the question names 'createStore': "
                            "1 definition(s) named 'createStore'")
    assert vault.find("who uses createStore these days?", tier="memory").status == "miss"  # as asked
    # notes that share the question's other words but never say why of the symbol it names do
    # not answer it: "what calls measure_table" had been two notes sharing "call" (qa135)
    unnamed = vault.find("when is createStore called if the order quantity is positive?")
    assert (unnamed.status, unnamed.tier, refs(unnamed)) == ("hit", "symbol", ["web/app.ts#createStore"])
    assert unnamed.reason.startswith("no memory note names 'createStore' (notes sharing its other words: ")
    assert unnamed.notices == ("`vault-engine callers createStore` lists what calls it, "
                               "`vault-engine callees createStore` what it calls",)
    assert refs(vault.find("when is createStore called if the order quantity is positive?",
                           tier="memory")) == ["memory/orders.md"]
    # nor does a note naming only its file: one had kept "who calls Context.invoke" on notes (qa138)
    assert [(w.ref, w.of) for w in vault.show("src/shop/orders.py#OrderBook._check").why] == [
        ("memory/orders.md", "file")]
    assert vault.find("when is OrderBook._check called for a positive quantity?").tier == "symbol"
    for question in ("what calls QuantumFlux_capacitor?", "how do I place an order?"):  # names nothing defined
        assert vault.find(question).tier != "symbol"


def test_a_qualified_name_missed_points_at_its_last_part_not_at_a_broken_file_that_uses_it(make_vault):
    """`find zustand.create` blamed react.ts's syntax error, though `create` is indexed there,
    and never said where `create` is (qa48)."""
    broken = "import { price_of } from './prices' // see prices.ts\nexport const total = price_of(grand_total(\n"  # never closed
    with Vault(build(make_vault, {"web/broken.ts": broken})) as v:
        miss = v.find("billing.price_of")
        assert miss.status == "miss" and "not parsed whole" not in miss.reason, miss.reason
        assert miss.reason.endswith("; 'price_of' alone names 1 definition(s): src/shop/pricing.py#price_of "
                                    "(`vault-engine find price_of`): confirm it is the one meant")
        # a name defined nowhere, which the broken file names: its error may hide the definition
        assert "web/broken.ts names 'grand_total' but was not parsed whole" in v.find("grand_total").reason
        # a file name: its extension names nothing (the `ts` of a deleted `combine.ts` blamed
        # a file that writes `ts`, qa69); `.ts` in the broken file's import is what it would find
        assert "not parsed whole" not in v.find("prices.ts").reason


def test_a_skipped_file_named_by_the_end_of_its_path_is_said_skipped(make_vault):
    """`outline nul_mod.py` said "no such file" where the whole key said "skipped" (qa48)."""
    from vault_engine.errors import UnknownRef

    with Vault(build(make_vault, {"src/shop/nul_mod.py": b"x = 1\x00\x00"})) as v:
        skipped = ("src/shop/nul_mod.py was skipped when indexed (binary content in a .py file: rename it if "
                   "it is not a source file)")
        assert v.find("nul_mod.py").reason == f"nul_mod.py is not indexed: {skipped}"
        with pytest.raises(UnknownRef, match=re.escape(f"'shop/nul_mod.py' is not an indexed source file: {skipped}")):
            v.outline("shop/nul_mod.py")


def test_a_folder_is_found_as_the_files_under_it(vault):
    """`find tests` suggested a test's nested function named `test`; `find src/click` was a miss (qa48)."""
    found = vault.find("src/shop")
    assert (found.status, found.tier) == ("hit", "path")
    assert refs(found) == ["src/shop/__init__.py", "src/shop/cli.py", "src/shop/orders.py", "src/shop/pricing.py"]
    assert found.reason == "4 indexed file(s) under the folder(s) src/shop/"
    assert refs(vault.find("shop")) == ["src/shop/__init__.py"]  # a package is its module first
    assert refs(vault.find("tests")) == ["src/tests/test_orders.py"]
    assert refs(vault.find("src/shop", k=2)) == ["src/shop/__init__.py", "src/shop/cli.py"]
    assert vault.find("src/shop", k=2).reason == "4 indexed file(s) under the folder(s) src/shop/ (the first 2)"
    assert vault.find("rc/shop").status != "hit"  # whole components only, as for files


def test_a_clean_miss_says_why_and_the_answer_is_deterministic(vault):
    miss = vault.find("QuantumFluxCapacitor")
    assert (miss.status, miss.tier, miss.suggestion) == ("miss", None, None) and "close enough" in miss.reason
    question = vault.find("how are database migrations rolled back after a failed deploy?")
    assert question.status == "miss"
    # a question no memory note answers points at the code by what it does
    assert question.reason.endswith("`vault-engine search 'how are database migrations rolled back after a failed "
                                    "deploy?' --kind code`")
    assert vault.find("place").to_json() == vault.find("place").to_json()
    (vault.root / "src/shop/fresh.py").write_text("def fresh():\n    return 1\n")
    unindexed = vault.find("src/shop/fresh.py")
    assert unindexed.status == "miss" and "not indexed" in unindexed.reason and "vault-engine index" in unindexed.reason
    with pytest.raises(BadArgument, match="no tier"):
        vault.find("x", tier="guess")


def test_a_question_of_stop_words_says_it_has_no_word_to_search_by(vault):
    """"the of and" was "no memory note holds enough of the question's words" (qa40)."""
    miss = vault.find("the of and")
    assert miss.status == "miss" and miss.reason.startswith("the question has no word to search by"), miss.reason


def test_the_junction_reads_the_query_shape():
    assert looks_like_code("OrderBook.place") and looks_like_code("src/a.py") and looks_like_code("a:b")
    assert not looks_like_code("where do orders get priced?")


def test_suggester_rules_short_queries_and_folders():
    s = Suggester([("a.py#run", "run", False), ("a.py#Runner.start", "Runner.start", False)],
                  [("src/react/persist.ts", False), ("src/middleware/persist.ts", False)])
    assert s.suggest("rnu") == []  # under min_length: too close to too many names
    assert s.suggest("Runer.start")[0].target == "a.py#Runner.start"
    assert [x.target for x in s.suggest("middleware/persits.ts")] == ["src/middleware/persist.ts"]
    assert s.suggest("Runer.start", SuggestRule(max_edits_short=0, max_edits_long=0, min_fuzzy_per_char=99)) == []
    # a member named like a source extension, no file near it: `Stor.go` had suggested nothing (qa141)
    go = Suggester([("src/store.ts#Store.go", "Store.go", False)], [("src/store.ts", False)])
    assert [x.target for x in go.suggest("Stor.go")] == ["src/store.ts#Store.go"]
    assert [x.target for x in go.suggest("src/stor.go")] == []  # a path: its folder says so


def test_of_names_as_near_but_for_case_the_suggestion_is_the_one_written_as_asked():
    """`createStor` suggested the type `CreateStore` (first by its ref) over the function
    `createStore` (qa95); a test's helper of the name comes after both."""
    s = Suggester([("tests/a.test.ts#createStore", "createStore", True), ("src/v.ts#CreateStore", "CreateStore", False),
                   ("src/v.ts#createStore", "createStore", False)], [])
    assert [x.target for x in s.suggest("createStor")] == [
        "src/v.ts#createStore", "src/v.ts#CreateStore", "tests/a.test.ts#createStore"]
    assert s.suggest("CreateStor")[0].target == "src/v.ts#CreateStore"


def test_of_fuzzy_matches_scored_alike_a_tests_definition_comes_after_the_others():
    """`find isolated` suggested click's `test_isolated_runner` (a shorter ref, the same fzf
    score) before `CliRunner.isolated_filesystem` (qa197), where typo matches put tests after."""
    s = Suggester([("tests/test_testing.py#test_isolated_runner", "test_isolated_runner", True),
                   ("src/testing.py#CliRunner.isolated_filesystem", "CliRunner.isolated_filesystem", False)], [])
    found = s.suggest("isolated")
    assert found[0].fuzzy == found[1].fuzzy
    assert [x.target for x in found] == ["src/testing.py#CliRunner.isolated_filesystem",
                                         "tests/test_testing.py#test_isolated_runner"]


def test_a_name_defined_twice_is_found_shown_and_outlined_twice(make_vault):
    """click's ``getchar`` under ``if``/``else``: the second is ``getchar~2``, with its own lines."""
    term = ('import sys\nif sys.platform == "win32":\n    def getchar():\n        return 1\nelse:\n'
            '    def getchar():\n        return 2\n')
    with Vault(build(make_vault, {"src/shop/term.py": term})) as vault:
        assert refs(vault.find("getchar")) == ["src/shop/term.py#getchar", "src/shop/term.py#getchar~2"]
        assert refs(vault.find("term.getchar")) == refs(vault.find("getchar"))
        assert refs(vault.find("src/shop/term.py#getchar~2")) == ["src/shop/term.py#getchar~2"]
        # the name as outline prints it: a hit, not "nothing is named 'getchar~2'; did you mean getchar~2"
        assert (vault.find("getchar~2").tier, refs(vault.find("getchar~2"))) == ("symbol", ["src/shop/term.py#getchar~2"])
        assert vault.calls("getchar~2").status != "no_such_symbol"
        later = vault.find("getchar").hits[1]
        assert (later.line_start, later.line_end) == (6, 7)
        assert vault.calls("getchar").status == "ambiguous"


def test_a_middleware_bound_through_a_cast_is_found_and_a_case_only_suggestion_says_so(make_vault):
    """zustand: ``export const persist = persistImpl as unknown as Persist``; the type
    ``Devtools`` is no answer to ``devtools``, and the junction says it differs only in case."""
    mw = ("type Persist = number\ntype Devtools = number\nconst persistImpl = (a: number) => a\n"
          "export const persist = persistImpl as unknown as Persist\n")
    with Vault(build(make_vault, {"web/mw.ts": mw})) as vault:
        assert refs(vault.find("persist")) == ["web/mw.ts#persist"]
        typo = vault.find("devtools")
        assert (typo.status, typo.suggestion) == ("junction", "web/mw.ts#Devtools")
        assert "(a type whose name differs only in case)" in typo.reason and "0 edit" not in typo.reason


def test_a_re_export_from_a_path_with_its_extension_resolves_as_the_call_graph_does(make_vault):
    """zustand's middleware.ts: ``export { ssrSafe as unstable_ssrSafe } from './middleware/ssrSafe.ts'``."""
    barrel = ("export { createStore as viaTs } from './app.ts'\nexport { createStore as viaJs } from './app.js'\n"
              "export { createStore as viaBare } from './app'\nexport { createStore as nowhere } from './gone.ts'\n")
    with Vault(build(make_vault, {"web/barrel.ts": barrel})) as vault:
        for name in ("viaTs", "viaJs", "viaBare"):
            assert refs(vault.find(f"barrel.{name}")) == ["web/app.ts#createStore"], name
        assert vault.find("barrel.nowhere").status != "hit"
        # the bare name a barrel gives it (`find unstable_ssrSafe`) names the definition too
        assert refs(vault.find("viaBare")) == ["web/app.ts#createStore"]
        assert vault.find("nowhere").status != "hit"


def test_a_name_a_package_re_exports_through_a_star_is_found_as_its_users_name_it(make_vault):
    """httpx's ``__init__``: ``from ._api import *``: `find httpx.get` and `callers httpx.get`
    had said no such symbol, though the call graph follows the star (qa194)."""
    files = {"src/net/__init__.py": "from ._api import *\nfrom ._listed import *\n",
             "src/net/_api.py": "def get(url):\n    return url\n\ndef _private():\n    return 1\n",
             "src/net/_listed.py": '__all__ = ["put"]\n\ndef put():\n    return 1\n\ndef post():\n    return 2\n',
             "web/index.ts": "export * from './app'\nexport * from './inner'\n",
             "web/inner.ts": "export function named() { return 1 }\nfunction internalOnly() { return 2 }\n"}
    with Vault(build(make_vault, files)) as vault:
        assert refs(vault.find("net.get")) == ["src/net/_api.py#get"]
        assert vault.calls("net.get").status != "no_such_symbol"
        assert vault.find("net._private").status != "hit"  # a star leaves a private name behind
        # and what `__all__` leaves out, or a TS module does not export (qa198)
        assert refs(vault.find("net.put")) == ["src/net/_listed.py#put"] and vault.find("net.post").status != "hit"
        assert refs(vault.find("web.named")) == ["web/inner.ts#named"]
        assert vault.find("web.internalOnly").status != "hit"
        assert refs(vault.find("web.createStore")) == ["web/app.ts#createStore"]  # `export * from`, a folder index


def test_a_packages_own_file_is_its_languages_not_every_languages(make_vault):
    """A Python `mod.py` had been its folder's module, as Rust's `mod.rs` is: `find pkg3.lone_py`
    found `pkg3/mod.py#lone_py`, a name Python has no way to write (qa198)."""
    files = {"src/pkg3/__init__.py": "", "src/pkg3/mod.py": "def lone_py():\n    return 1\n"}
    with Vault(build(make_vault, files)) as vault:
        assert vault.find("pkg3.lone_py").status != "hit"
        assert refs(vault.find("pkg3.mod.lone_py")) == ["src/pkg3/mod.py#lone_py"]


def test_a_bare_name_a_python_package_exports_under_another_name_is_found(make_vault):
    files = {"src/shop/__init__.py": "from .orders import place as place_order\n",
             "src/shop/orders.py": "def place():\n    return 1\n"}
    with Vault(build(make_vault, files)) as vault:
        assert refs(vault.find("place_order")) == ["src/shop/orders.py#place"]


def test_a_miss_restricted_to_some_tiers_names_the_tiers_tried_not_absence(vault):
    """``OrderBook.place`` exists: a miss with --facet or --tier must not say nothing is named so."""
    for found, tried in ((vault.find("OrderBook.place", facet="lifecycle"), "memory"),
                         (vault.find("OrderBook.place", tier="path"), "path"),
                         (vault.find("orders.py", tier="symbol"), "symbol")):
        assert found.status == "miss"
        assert "no symbol or indexed file" not in found.reason and f"(tiers tried: {tried}:" in found.reason
        assert "every tier: `vault-engine find " in found.reason
    exact = vault.find("orders.py", tier="fuzzy")
    assert exact.status == "junction" and "nothing is named" not in exact.reason


def test_a_memory_hit_states_each_note_coverage_not_the_best_one_for_all(make_vault):
    """Five notes answered and only the first held every word: "5 notes cover 100% or more" was false."""
    notes = {f"memory/n{i}.md": f"---\ntype: memory\nfacet: lifecycle\n---\n# N{i}\n{text}\n"
             for i, text in enumerate(["The user object lives in the context.", "Where the user is stored.",
                                       "An object of any kind."])}
    with Vault(build(make_vault, notes)) as vault:
        found = vault.find("where does the user object live", tier="memory")
        coverages = [h.coverage for h in found.hits]
        assert found.status == "hit" and len(coverages) >= 2 and max(coverages) > min(coverages)
        assert f"each hold {min(coverages):.0%} to {max(coverages):.0%} of" in found.reason
        assert "or more" not in found.reason
        assert found.to_json()["hits"][0]["coverage"] == round(found.hits[0].coverage, 6)


def test_a_module_named_by_its_import_name_is_its_file(make_vault):
    """`find core` was a fuzzy junction to `Command.__repr__` and `find click.core` a miss:
    a name that is no symbol but a module's import name is that file (path tier)."""
    with Vault(build(make_vault)) as vault:
        assert "orders" not in {h.ref.rsplit("#", 1)[-1] for h in vault.find("OrderBook").hits}
        for query in ("orders", "shop.orders"):
            found = vault.find(query)
            assert (found.status, found.tier, refs(found)) == ("hit", "path", ["src/shop/orders.py"]), query
            assert found.reason == f"1 indexed file(s) are the module {query!r}"
        assert vault.find("nosuchmodule").tier != "path"
    # a module's name holding a dash, as TypeScript's often do: `find test-utils` had missed (qa174)
    with Vault(build(make_vault, {"web/test-utils.ts": "export const x = 1;\n"})) as vault:
        found = vault.find("test-utils")
        assert (found.status, found.tier, refs(found)) == ("hit", "path", ["web/test-utils.ts"])


def test_a_path_part_too_long_for_the_file_system_is_no_such_file_not_a_traceback(vault):
    """Asking the code taps why `src/<300 a>.py` is not indexed raised OSError: File name too long."""
    from vault_engine.errors import UnknownRef

    long_path = "src/" + "a" * 300 + ".py"
    with pytest.raises(UnknownRef, match="is not an indexed source file: no such file"):
        vault.outline(long_path)
    assert vault.find(long_path).status == "miss"
    assert vault.calls(long_path + "#f").status == "no_such_symbol"

