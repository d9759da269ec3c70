"""The indexer's code step: source files indexed in place, kept fresh file by file, and a
lost code store rebuilt from the ledger's documents."""

import time

from tests.code_vault import build
from vault_engine.stores.code_store import CODE_FILE, CodeStore
from vault_engine.vault import Vault


def edges(root):
    store = CodeStore(root / ".vault-engine" / "index" / "current" / CODE_FILE)
    try:
        return {(e.caller, e.callee) for e in store.edges_touching(
            [k + "#" + q for k, q in store.symbol_names()] + store.file_keys(), "caller")}
    finally:
        store.close()


def test_source_files_are_documents_of_kind_code_and_markdown_in_the_code_paths_is_not(make_vault):
    root = build(make_vault)
    with Vault(root) as vault:
        paths = {n.path: (n.kind, n.tap) for n in vault.ledger.notes()}
        hits = vault.search("place one order", lexical_only=True, kind="code", k=3).hits
    assert paths["src/shop/orders.py"] == ("code", "code") and paths["web/app.ts"] == ("code", "code")
    assert "src/README.md" not in paths  # neither a note nor code
    assert hits[0].ref == "src/shop/orders.py#OrderBook.place" and hits[0].kind == "code"
    assert hits[0].to_json()["why"] == ["memory/orders.md", "projects/shop/checkpoints/2026-09-01T10-00-00Z-agent.md"]


def test_saving_one_file_reparses_it_and_the_edges_into_it(make_vault):
    root = build(make_vault)
    assert ("src/shop/cli.py#main", "src/shop/pricing.py#price_of") in edges(root)
    pricing = root / "src/shop/pricing.py"
    pricing.write_text(pricing.read_text().replace("def price_of(sku)", "def cost_of(sku)"))
    with Vault(root) as vault:
        report = vault.index_paths(["src/shop/pricing.py"])
        assert (report.modified, report.source_files) == (0, 1)  # a source file, counted apart from notes
        assert vault.find("cost_of").status == "hit"
    found = edges(root)
    assert ("src/shop/cli.py#main", "src/shop/pricing.py#price_of") not in found  # the edge into it is gone
    cli = root / "src/shop/cli.py"
    cli.write_text(cli.read_text().replace("price_of", "cost_of"))
    with Vault(root) as vault:
        vault.index_paths(["src/shop/cli.py"])
    assert ("src/shop/cli.py#main", "src/shop/pricing.py#cost_of") in edges(root)


def test_a_deleted_file_leaves_the_graph_and_a_lost_store_is_rebuilt(make_vault):
    root = build(make_vault)
    (root / "src/shop/cli.py").unlink()
    with Vault(root) as vault:
        vault.index(embed=False)
    assert not any(caller.startswith("src/shop/cli.py") for caller, _ in edges(root))
    store_path = root / ".vault-engine" / "index" / "current" / CODE_FILE
    before = edges(root)
    store_path.unlink()
    with Vault(root) as vault:
        vault.index(embed=False)  # nothing changed on disk: the store is rebuilt from the ledger
        assert vault.status()["code"]["files"] == 5
    assert edges(root) == before


def test_a_syntax_error_is_indexed_as_far_as_it_parses_with_one_notice(make_vault):
    root = build(make_vault, {"src/shop/broken.py": "def broken(:\n    pass\n\n\ndef fine():\n    return zebra_hook()\n"})
    with Vault(root) as vault:
        time.sleep(0)  # the fixture indexed already; its notice went to that report
        status = vault.status()["code"]
        assert [e["path"] for e in status["syntax_errors"]] == ["src/shop/broken.py"]
        assert vault.find("fine").hits[0].ref == "src/shop/broken.py#fine"
        # a name tree-sitter could not recover is a miss that names the broken file, not "absent"
        for reason in (vault.find("zebra_hook").reason, vault.calls("shop.zebra_hook").reason):
            assert "src/shop/broken.py names 'zebra_hook' but was not parsed whole: " in reason
        # ...and only where the file names it: another name's miss is not explained by that error
        for reason in (vault.find("NoSuchThing").reason, vault.calls("NoSuchThing").reason):
            assert "syntax" not in reason and "parsed whole" not in reason
        # a folder is no name a syntax error hides (`find src/store` blamed `package store`'s file)
        assert "parsed whole" not in vault.find("src/zebra_hook").reason


def test_a_miss_in_code_without_syntax_errors_says_nothing_of_them(make_vault):
    root = build(make_vault)
    with Vault(root) as vault:
        assert "syntax" not in vault.find("NoSuchThing").reason
        assert "syntax" not in vault.calls("NoSuchThing").reason


def test_the_vault_wide_exclude_keeps_source_files_out_and_says_so(make_vault):
    from tests.code_vault import CONFIG, FILES

    root = make_vault(FILES, 'exclude = ["src/tests/**"]\n' + CONFIG)
    with Vault(root) as vault:
        vault.index(embed=False)
        assert "src/tests/test_orders.py" not in {n.path for n in vault.ledger.notes()}
        assert {n.ref for n in vault.calls("price_of").nodes} == {"src/shop/cli.py#main",
                                                                  "src/shop/orders.py#OrderBook.place"}
        answer = vault.calls("src/tests/test_orders.py#test_price")
        assert answer.status == "not_indexed" and "excluded" in answer.reason
