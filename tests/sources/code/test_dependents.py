"""Incremental resolution gives the very edges a full resolution gives."""

import pytest

from tests.conftest import needs_corpus
from vault_engine.sources.code.callgraph import resolve
from vault_engine.sources.code.dependents import affected, identity
from vault_engine.sources.code.languages import detect_language
from vault_engine.sources.code.symbols import parse_source


def parse_all(texts):
    return {p: parse_source(p, t, detect_language(p)) for p, t in texts.items()}


def incremental(old_files, new_files, changed):
    """Edges after a change: the old graph's edges outside the affected files, plus the
    affected files' edges resolved again (what indexing/code_sync.py stores)."""
    only = affected(new_files, changed)
    kept = {e for e in resolve(old_files).edges if e.path not in only | set(changed)}
    return kept | set(resolve(new_files, only=only).edges)


def test_identity_of_package_files():
    assert identity("src/shop/__init__.py") == {"shop", "__init__"}
    assert identity("src/vanilla/shallow.ts") == {"shallow"}


SHOP = {
    "shop/__init__.py": "from .pricing import price_of\n",
    "shop/pricing.py": "def price_of(sku):\n    return 1\n",
    "shop/base.py": "from shop.pricing import price_of\n\nclass Base:\n    def total(self):\n        return price_of(1)\n",
    "shop/orders.py": "from shop.base import Base\n\nclass Orders(Base):\n    def run(self):\n        return self.total()\n",
    "shop/cli.py": "from shop import price_of\n\ndef main():\n    return price_of('a')\n",
    "other.py": "def alone():\n    return 1\n",
}


@pytest.mark.parametrize("path, old, new", [
    ("shop/pricing.py", "def price_of(sku)", "def cost_of(sku)"),  # through the package's re-export
    ("shop/base.py", "    def total(self)", "    def grand_total(self)"),  # through a base class
    ("shop/orders.py", "self.total()", "self.run()"),
])
def test_a_change_reaches_every_file_whose_calls_it_changes(path, old, new):
    before = parse_all(SHOP)
    after_texts = {**SHOP, path: SHOP[path].replace(old, new)}
    after = parse_all(after_texts)
    assert set(resolve(after).edges) != set(resolve(before).edges)  # the change matters
    assert incremental(before, after, {path}) == set(resolve(after).edges)


def test_a_removed_file_leaves_no_edge_into_it():
    before = parse_all(SHOP)
    after = parse_all({p: t for p, t in SHOP.items() if p != "shop/pricing.py"})
    assert incremental(before, after, {"shop/pricing.py"}) == set(resolve(after).edges)


def test_on_click_every_file_changed_alone_gives_the_full_graph():
    root = needs_corpus("code") / "click"
    texts = {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8")
             for p in sorted((root / "src").rglob("*.py"))}
    before = parse_all(texts)
    for path in ("src/click/formatting.py", "src/click/_compat.py", "src/click/globals.py"):
        # every definition renamed: each call into the file must move or vanish
        changed = texts[path].replace("def ", "def renamed_")
        after = {**before, path: parse_source(path, changed, "python")}
        assert set(resolve(after).edges) != set(resolve(before).edges)
        assert incremental(before, after, {path}) == set(resolve(after).edges), path


def test_a_body_only_edit_keeps_the_surface_and_needs_only_its_own_calls():
    from vault_engine.sources.code.dependents import surface

    before = parse_all(SHOP)
    edited = SHOP["shop/base.py"].replace("        return price_of(1)", "        x = 2\n        return price_of(x) + len('a')")
    after = {**before, "shop/base.py": parse_source("shop/base.py", edited, "python")}
    assert surface(before["shop/base.py"]) == surface(after["shop/base.py"])
    only = affected(after, set(), local={"shop/base.py"})
    assert only == {"shop/base.py"}
    kept = {e for e in resolve(before).edges if e.path not in only}
    assert kept | set(resolve(after, only=only).edges) == set(resolve(after).edges)
    renamed = SHOP["shop/base.py"].replace("def total", "def sum_total")
    assert surface(before["shop/base.py"]) != surface(parse_source("shop/base.py", renamed, "python"))


@pytest.mark.parametrize("language", ["typescript", "javascript"])
def test_a_class_and_its_method_on_one_line_have_a_surface(language):
    """`class G { h() { return 1 } }` binds `G` and `G.h` on line 1: ordering them compared None
    with "G", and every `index` after an edit of the file failed with a traceback (qa141)."""
    from vault_engine.sources.code.dependents import surface

    one, two = (parse_source("g.ts", f"class G {{ h() {{ return {n} }} }}\n", language) for n in (1, 2))
    assert surface(one) == surface(two)


KIT = {
    "kit/models.py": "class Cart:\n    def pay(self):\n        return 1\n",
    "kit/factory.py": "from kit.models import Cart\n\ndef new_cart() -> Cart:\n    return Cart()\n",
    "app.py": "from kit.factory import new_cart\n\ndef checkout():\n    cart = new_cart()\n    return cart.pay()\n",
}


@pytest.mark.parametrize("path, old, new", [
    ("kit/models.py", "def pay", "def settle"),  # app.py never imports models.py
    ("kit/factory.py", "-> Cart", "-> int"),
])
def test_a_local_typed_through_another_file_follows_its_changes(path, old, new):
    """``cart``'s class comes from factory.py's return annotation, which names a class of
    models.py: a change to either reaches app.py."""
    from vault_engine.sources.code.dependents import surface

    before = parse_all(KIT)
    after = parse_all({**KIT, path: KIT[path].replace(old, new)})
    assert ("app.py#checkout", "kit/models.py#Cart.pay") in {(e.caller, e.callee) for e in resolve(before).edges}
    assert set(resolve(after).edges) != set(resolve(before).edges)
    assert surface(before[path]) != surface(after[path])  # not a body-only edit
    assert incremental(before, after, {path}) == set(resolve(after).edges)


GO_SHOP = {
    "shop/make.go": "package shop\n\nfunc NewStore() *Store { return &Store{} }\n",
    "shop/types.go": "package shop\n\ntype Store struct{}\ntype Cart struct{}\n\n"
                     "func (s *Store) Put() {}\nfunc (c *Cart) Put() {}\n",
    "shop/use.go": "package shop\n\nfunc Use() {\n\ts := NewStore()\n\ts.Put()\n}\n",
}


def test_a_return_type_read_from_the_signature_is_part_of_the_surface():
    """Go's return type is read from the signature, which the surface left out: changing
    `NewStore() *Store` to `*Cart` was a body-only edit, and `s.Put()` kept its edge to
    `Store.Put` until `index --rebuild` (qa147)."""
    from vault_engine.sources.code.dependents import surface

    path = "shop/make.go"
    before = parse_all(GO_SHOP)
    after = parse_all({**GO_SHOP, path: GO_SHOP[path].replace("*Store { return &Store{}", "*Cart { return &Cart{}")})
    callees = {e.callee for e in resolve(after).edges if e.caller == "shop/use.go#Use"}
    assert "shop/types.go#Cart.Put" in callees and "shop/types.go#Store.Put" not in callees
    assert surface(before[path]) != surface(after[path])
    assert incremental(before, after, {path}) == set(resolve(after).edges)
