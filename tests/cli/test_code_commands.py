"""The code commands' CLI contract: JSON shapes of DESIGN.md, help text, exit codes."""

import os

from tests.code_vault import CONFIG, FILES, build


def test_callers_json_has_the_contract_fields(make_vault, cli):
    root = build(make_vault)
    done = cli("--vault", root, "callers", "price_of", "--depth", "2", "--exclude-tests", "--json")
    assert done.code == 0
    data = done.json
    assert {"symbol", "direction", "depth", "nodes", "edges", "status"} <= data.keys()
    assert (data["direction"], data["depth"], data["status"]) == ("callers", 2, "hit")
    assert set(data["nodes"][0]) >= {"symbol", "ref", "path", "line_start", "line_end", "hops"}
    assert set(data["edges"][0]) >= {"caller", "callee", "path", "line"}


def test_find_json_and_text(make_vault, cli):
    root = build(make_vault)
    data = cli("--vault", root, "find", "OrdreBook.plcae", "--json").json
    assert set(data) >= {"query", "status", "tier", "hits", "suggestion", "reason"}
    assert (data["status"], data["suggestion"]) == ("junction", "src/shop/orders.py#OrderBook.place")
    hit = cli("--vault", root, "find", "price_of", "--json").json["hits"][0]
    assert set(hit) >= {"ref", "path", "symbol", "kind", "line_start", "line_end", "score", "why"}
    assert "miss:" in cli("--vault", root, "find", "QuantumFluxCapacitor").out


def test_find_says_where_and_how_each_note_names_the_symbol_or_only_its_file(make_vault, cli):
    # three of four why notes named only the file: find listed them as the symbol's alike (qa197)
    root = build(make_vault)
    hit = cli("--vault", root, "find", "OrderBook.place", "--json").json["hits"][0]
    assert hit["why"] == ["memory/orders.md", "projects/shop/checkpoints/2026-09-01T10-00-00Z-agent.md"]
    assert [(w["ref"], w["via"], w["of"]) for w in hit["why_detail"]] == [
        ("memory/orders.md", "mention", "symbol"),
        ("projects/shop/checkpoints/2026-09-01T10-00-00Z-agent.md", "mention", "symbol"),
        ("memory/orders.md", "link", "file")]
    assert [line.strip() for line in cli("--vault", root, "find", "OrderBook.place").out.splitlines()
            if "why" in line] == ["why memory/orders.md:8 (mention `OrderBook.place`)",
                                  "why projects/shop/checkpoints/2026-09-01T10-00-00Z-agent.md:11 "
                                  "(mention `OrderBook.place`)",
                                  "why memory/orders.md:8 (link `[[src/shop/orders.py]]`)"]


def test_show_and_outline_of_code(make_vault, cli):
    root = build(make_vault)
    shown = cli("--vault", root, "show", "src/shop/pricing.py#price_of")
    assert shown.code == 0 and "4  def price_of(sku):" in shown.out
    # the file named by the end of its path, as outline and callers take it ("no note", qa69)
    assert cli("--vault", root, "show", "pricing.py#price_of").out == shown.out
    assert cli("--vault", root, "show", "shop/pricing.py").out == cli("--vault", root, "show", "src/shop/pricing.py").out
    data = cli("--vault", root, "outline", "src/shop/orders.py", "--json").json
    assert [s["symbol"] for s in data["symbols"]][:2] == ["OrderBook", "OrderBook.__init__"]
    # the file's why notes come above its symbols, as the README says: after 152 of them, unseen (qa62)
    text = cli("--vault", root, "outline", "src/shop/orders.py").out.splitlines()
    assert text[1].startswith("why        memory/orders.md:") and "class OrderBook" in text[2]


def test_usage_and_user_errors(make_vault, cli, tmp_path):
    root = build(make_vault)
    assert cli("--vault", root, "callers", "price_of", "--depth", "9").code == 2
    missing = cli("--vault", root, "outline", "nope.py")
    assert missing.code == 1 and missing.err.count("\n") == 1 and "not an indexed source file" in missing.err
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "a.md").write_text("# A\n")
    cli("--vault", plain, "index", "--no-embed")
    none = cli("--vault", plain, "callers", "x")
    assert none.code == 1 and "add a code tap" in none.err


def test_every_code_command_has_help(cli):
    for command in ("outline", "callers", "callees", "find"):
        done = cli(command, "--help")
        assert done.code == 0 and "Example:" in done.out


def test_follow_on_the_cli_json_and_text(make_vault, cli):
    root = build(make_vault)
    data = cli("--vault", root, "callers", "OrderBook.place", "--follow", "1", "--json").json
    assert data["followed"][0]["ref"] == "memory/orders.md#Orders are priced once"
    assert set(data["followed"][0]) >= {"ref", "path", "heading", "line", "how", "via", "hops", "text"}
    assert cli("--vault", root, "callers", "OrderBook.place", "--json").json["followed"] == []
    text = cli("--vault", root, "show", "src/shop/orders.py#OrderBook.place", "--follow", "1").out
    assert "── followed 1: memory/orders.md#Orders are priced once  (memory, mention `OrderBook.place` line 8" in text
    assert "   The quantity must be positive" in text
    assert cli("--vault", root, "find", "price_of", "--follow", "6").code == 2  # usage: 0..5


def test_callers_and_outline_say_when_a_file_changed_since_the_index(make_vault, cli):
    root = build(make_vault)
    before = cli("--vault", root, "callers", "price_of", "--json").json
    assert before["status"] == "hit" and before["notices"] == []
    assert cli("--vault", root, "outline", "src/shop/orders.py", "--json").json["notices"] == []
    orders = root / "src/shop/orders.py"
    orders.write_text("# a line on top: every span below moved\n" + orders.read_text(), encoding="utf-8")
    after = cli("--vault", root, "callers", "price_of", "--json").json
    assert [n for n in after["notices"] if "src/shop/orders.py" in n and "vault-engine index" in n], after["notices"]
    assert len(after["notices"]) == 1  # the answer's own file: no "other" file to speak of
    outline = cli("--vault", root, "outline", "src/shop/orders.py")
    assert "note: 1 of this answer's files changed since the last index (src/shop/orders.py)" in outline.out
    untouched = cli("--vault", root, "outline", "src/shop/pricing.py", "--json").json
    assert untouched["notices"] == []
    none = cli("--vault", root, "callers", "unused", "--json").json  # a call saved since may be anywhere
    assert none["status"] == "no_callers" and any("src/shop/orders.py" in n for n in none["notices"]), none
    cli("--vault", root, "index", "--no-embed")
    assert cli("--vault", root, "callers", "price_of", "--json").json["notices"] == []
    os.utime(orders, ns=(1, 1))  # touched, same bytes (a checkout, a copy): nothing moved
    assert cli("--vault", root, "callers", "unused", "--json").json["notices"] == []
    assert cli("--vault", root, "status", "--json").json["stale"] == {"changed": 0, "missing": 0, "new": 0, "paths": [], "settings": False}
    # A caller saved since in a file of its own: the answer cannot hold it yet, and says so.
    (root / "src/shop/refunds.py").write_text("from shop.pricing import price_of\n\n\n"
                                               "def refund(sku):\n    return -price_of(sku)\n", encoding="utf-8")
    short = cli("--vault", root, "outline", "refunds.py")  # the ending of the new file's path: not "no such file"
    assert short.code == 1 and "src/shop/refunds.py is new or changed since the last index" in short.err
    hit = cli("--vault", root, "callers", "price_of", "--json").json
    assert hit["status"] == "hit" and "refund" not in {n["symbol"] for n in hit["nodes"]}
    assert hit["notices"] == ["1 other source file(s) changed since the last index (e.g. src/shop/refunds.py): "
                              "callers written there since are not known until `vault-engine index`"]
    cli("--vault", root, "index", "--no-embed")
    hit = cli("--vault", root, "callers", "price_of", "--json").json
    assert "refund" in {n["symbol"] for n in hit["nodes"]} and hit["notices"] == []


def test_find_of_a_name_written_since_the_index_says_so_not_only_miss(make_vault, cli):
    root = build(make_vault)
    assert cli("--vault", root, "find", "discount_of", "--json").json["notices"] == []  # nothing changed
    pricing = root / "src/shop/pricing.py"
    pricing.write_text(pricing.read_text() + "\n\ndef discount_of(sku):\n    return 0\n", encoding="utf-8")
    missed = cli("--vault", root, "find", "discount_of", "--json").json
    assert missed["status"] == "miss" and missed["notices"] == [
        "1 source file(s) changed since the last index (e.g. src/shop/pricing.py): a symbol written there "
        "since is not known until `vault-engine index`"]
    assert "\nnote: 1 source file(s) changed" in cli("--vault", root, "find", "discount_of").out
    cli("--vault", root, "index", "--no-embed")
    assert cli("--vault", root, "find", "discount_of", "--json").json["status"] == "hit"


def test_find_of_a_renamed_symbol_names_the_notes_that_still_name_it(make_vault, cli):
    root = build(make_vault)
    pricing = root / "src/shop/pricing.py"
    pricing.write_text(pricing.read_text().replace("price_of", "unit_price"), encoding="utf-8")
    for path in (root / "src").rglob("*.py"):  # its callers follow the rename; the notes do not
        path.write_text(path.read_text().replace("price_of", "unit_price"), encoding="utf-8")
    cli("--vault", root, "index", "--no-embed")
    missed = cli("--vault", root, "find", "price_of", "--json").json
    assert missed["status"] == "miss" and missed["notices"] == [
        "`price_of` is named in 1 note(s) (memory/orders.md) but defined nowhere in the indexed code: "
        "renamed or removed since they were written?"]
    assert cli("--vault", root, "find", "never_named_anywhere", "--json").json["notices"] == []


def test_find_of_a_symbol_renamed_to_a_close_name_suggests_it_and_still_names_the_notes(make_vault, cli):
    """A suggestion is a miss too: the notes' warning came only with `--tier symbol` (qa69)."""
    root = build(make_vault)
    for path in (root / "src").rglob("*.py"):
        path.write_text(path.read_text().replace("price_of", "price_of_item"), encoding="utf-8")
    cli("--vault", root, "index", "--no-embed")
    suggested = cli("--vault", root, "find", "price_of", "--json").json
    assert suggested["status"] == "junction" and suggested["notices"] == [
        "`price_of` is named in 1 note(s) (memory/orders.md) but defined nowhere in the indexed code: "
        "renamed or removed since they were written?"], suggested


def test_find_of_a_modules_constant_says_where_the_code_writes_it_not_that_it_was_removed(make_vault, cli):
    """`PRICES = {...}` is no symbol: "renamed or removed since?" was said of notes that are right (qa35 A2)."""
    root = build(make_vault, {"memory/prices.md": "---\ntype: memory\n---\n# Prices\n\n`PRICES` maps a sku to its price.\n"})
    missed = cli("--vault", root, "find", "PRICES", "--json").json
    assert missed["status"] == "miss" and missed["notices"] == [
        "`PRICES` is named in 1 note(s) (memory/prices.md) and is assigned at src/shop/pricing.py:1, where it is no "
        "symbol find indexes (a module's constant or a class attribute)"]


CONSTANTS = '''from shop.pricing import PRICES


def first():
    return PRICES


class Box:
    size = 3


LONG = """
a
"""
TAIL = 2
QUIET = 0
'''


def test_find_of_constants_anywhere_in_a_file_names_where_they_are_assigned(make_vault, cli):
    """A multi-line value, one after the last function, a class attribute: each was "renamed or
    removed?", and an importer was named where the assignment is (qa36 N1)."""
    note = "---\ntype: memory\n---\n# Names\n\n`LONG`, `TAIL`, `Box.size`, `PRICES` and `first_gone`.\n"
    root = build(make_vault, {"src/shop/consts.py": CONSTANTS, "memory/names.md": note})
    for name, where in (("LONG", "src/shop/consts.py:12"), ("TAIL", "src/shop/consts.py:15"),
                        ("Box.size", "src/shop/consts.py:9"), ("PRICES", "src/shop/pricing.py:1")):
        [notice] = cli("--vault", root, "find", name, "--json").json["notices"]
        assert f"and is assigned at {where}, where" in notice, (name, notice)
    [gone] = cli("--vault", root, "find", "first_gone", "--json").json["notices"]
    assert "defined nowhere in the indexed code" in gone
    # named in no note: where it is assigned all the same (qa37 N4)
    assert cli("--vault", root, "find", "QUIET", "--json").json["notices"] == [
        "`QUIET` is assigned at src/shop/consts.py:16, where it is no symbol find indexes "
        "(a module's constant or a class attribute)"]


def test_find_says_a_file_changed_and_a_deleted_file_is_missing_not_changed(make_vault, cli):
    root = build(make_vault)
    assert cli("--vault", root, "find", "price_of", "--json").json["notices"] == []
    pricing = root / "src/shop/pricing.py"
    pricing.write_text("# moved\n" + pricing.read_text(), encoding="utf-8")
    found = cli("--vault", root, "find", "price_of")
    assert "note: 1 of this answer's files changed since the last index (src/shop/pricing.py)" in found.out
    (root / "src/shop/orders.py").unlink()
    data = cli("--vault", root, "find", "OrderBook", "--json").json
    assert data["notices"] == ["1 of this answer's files are missing (deleted or moved since the last index: "
                               "src/shop/orders.py): run `vault-engine index`"]
    assert "missing" in cli("--vault", root, "outline", "src/shop/orders.py").out
    show = cli("--vault", root, "show", "src/shop/orders.py#OrderBook")
    assert show.code == 1 and "vanished while indexing" not in show.err and "is missing" in show.err


def test_index_counts_notes_and_source_files_apart_as_status_does(make_vault, cli):
    root = make_vault(FILES, CONFIG)
    done = cli("--vault", root, "index", "--no-embed", "--json").json
    notes = cli("--vault", root, "status", "--json").json["notes"]
    sources = sum(1 for path in FILES if not path.endswith(".md"))
    assert (done["new"], done["source_files"]) == (notes, sources) and sources > 0  # "70 new" for 6 notes
    text = cli("--vault", root, "index", "--no-embed", "--rebuild").out
    assert f"{notes} new, " in text and f"; {sources} source files new, changed, moved or deleted" in text


SHELLS = '''class Shell:
    def complete(self):
        return self.format_item("x")

    def format_item(self, item):
        return item


class Zsh(Shell):
    def format_item(self, item):
        return item.replace(":", "\\\\:")


class Fish(Shell):
    def format_item(self, item):
        return item.replace("\\t", " ")


class Lone:
    def format_item(self, item):
        return item


class Base:
    def hint(self):
        return ""


class Loud(Base):
    def hint(self):
        return super().hint() + "!"


class Quiet(Base):
    def hint(self):
        return ""


def escape_one():
    shell = Zsh()
    return shell.format_item("a:b")
'''


def test_callers_of_an_override_name_the_base_method_whose_callers_reach_it(make_vault, cli):
    """`self.format_item(...)` in Shell.complete runs Zsh.format_item: "no callers" alone read
    as dead code (qa35 A1). A method of a class that names no such base says nothing more."""
    root = build(make_vault, {"src/shop/shells.py": SHELLS})
    answer = cli("--vault", root, "callers", "Zsh.format_item", "--json").json
    overrides = ("it overrides src/shop/shells.py#Shell.format_item, whose callers reach it through an instance of "
                 "its class (`vault-engine callers src/shop/shells.py#Shell.format_item`)")
    assert answer["status"] == "hit" and answer["notices"] == [overrides]  # beside its own callers (qa37 N8)
    assert f"note: {overrides}" in cli("--vault", root, "callers", "Zsh.format_item").out
    fish = cli("--vault", root, "callers", "Fish.format_item", "--json").json
    assert fish["status"] == "no_callers" and fish["reason"].endswith("; " + overrides)
    lone = cli("--vault", root, "callers", "Lone.format_item", "--json").json
    assert lone["status"] == "no_callers" and "overrides" not in lone["reason"]
    # Base.hint's one caller is Loud's super() call: no caller that reaches Quiet.hint (qa36 N2)
    quiet = cli("--vault", root, "callers", "Quiet.hint", "--json").json
    assert quiet["status"] == "no_callers" and "overrides" not in quiet["reason"]


def test_a_memory_hit_that_holds_part_of_the_question_points_at_the_code(make_vault, cli):
    """The memory tier answered "where is zsh completion implemented" with a note sharing one
    word, and named no way to the code (qa35 A4)."""
    root = build(make_vault)
    partial = cli("--vault", root, "find", "where is an order priced in the shell", "--json").json
    assert partial["status"] == "hit" and partial["tier"] == "memory"
    assert partial["notices"][-1] == (
        "memory notes only, none holding every word of the question; the code itself: "
        "`vault-engine search 'where is an order priced in the shell' --kind code`")


def test_search_can_leave_out_test_code_as_callers_does(make_vault, cli):
    """`search --kind code` put tests above the implementation, with no way to leave them out (qa35 A7)."""
    root = build(make_vault)
    every = cli("--vault", root, "search", "price_of", "--kind", "code", "--lexical", "--json").json
    assert "src/tests/test_orders.py" in {h["path"] for h in every["hits"]}
    code = cli("--vault", root, "search", "price_of", "--kind", "code", "--lexical", "--exclude-tests", "--json").json
    paths = {h["path"] for h in code["hits"]}
    assert "src/tests/test_orders.py" not in paths and "src/shop/pricing.py" in paths



def test_exclude_tests_fills_the_arms_with_code_past_the_tests_that_outrank_it(make_vault, cli):
    """Tests were dropped after each arm's 100: a test-heavy tree left 1 to 4 hits (qa37 N1), and
    a miss said no note holds the words that the tests hold (qa37 N6)."""
    tests = {f"src/tests/test_price_{i}.py": f"def test_price_{i}():\n    assert price_of('a') == price_of('a')\n"
             for i in range(120)}
    root = build(make_vault, tests)
    code = cli("--vault", root, "search", "price_of", "--kind", "code", "--lexical", "--exclude-tests", "-k", "3",
               "--json").json
    assert "src/shop/pricing.py" in {h["path"] for h in code["hits"]}
    only = cli("--vault", root, "search", "test_price_7", "--lexical", "--exclude-tests", "--json").json
    assert (only["status"], only["confidence_reason"]) == ("miss", "no section the filters leave matched the query")


def test_no_callers_in_text_keeps_the_why_notes_the_json_carries(make_vault, cli):
    """A symbol nothing calls still has its notes: the text said only "no callers" (qa57)."""
    root = build(make_vault, {"memory/unused.md": "# Unused\n`unused` stays for the plugin API.\n"})
    data = cli("--vault", root, "callers", "unused", "--json").json
    assert data["status"] == "no_callers" and data["why"]
    text = cli("--vault", root, "callers", "unused", "--follow", "1").out
    assert text.startswith("no callers: ") and "why        memory/unused.md:2 (mention `unused`)" in text
    assert "followed 1: memory/unused.md#Unused" in text


def test_an_outline_names_a_rust_impl_once(make_vault, cli):
    root = build(make_vault, {"src/ledger.rs": "pub struct Entry;\nimpl Entry {\n    pub fn credit(n: u32) {}\n}\n"})
    text = cli("--vault", root, "outline", "src/ledger.rs").out
    assert "    2-4     impl Entry\n" in text and "impl impl" not in text


def test_a_code_hit_shows_its_lines_as_written(make_vault, cli):
    """The index holds a symbol's words once each: the snippet drawn from them read "measure
    table widths dict int for row rows idx" (qa88)."""
    root = build(make_vault)
    hit = cli("--vault", root, "search", "place one order", "--kind", "code", "--lexical", "--json").json["hits"][0]
    assert hit["ref"] == "src/shop/orders.py#OrderBook.place"
    assert hit["snippet"].startswith("def place(self, sku, qty): \"\"\"Place one order.\"\"\"")
    assert "total = price_of(sku) * qty" in hit["snippet"]


def test_exclude_tests_leaves_out_the_tests_of_a_repository_beside_the_vault(tmp_path, cli):
    """Its keys carry the tap's name (`repo:tests/...`): they were kept as if in a folder named
    `repo:tests` (qa88)."""
    repo, vault = tmp_path / "repo", tmp_path / "vault"
    for rel, text in {"src/pricing.py": "def price_of(sku):\n    return 1\n",
                      "tests/helpers.py": "def price_of(sku):\n    return 2\n"}.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    vault.mkdir()
    (vault / "vault-engine.toml").write_text('[model]\nenabled = false\n[taps.repo]\nsource = "code"\n'
                                             'root = "../repo"\npaths = ["**"]\n')
    assert cli("--vault", vault, "index").code == 0
    every = cli("--vault", vault, "search", "price_of", "--kind", "code", "--lexical", "--json").json
    assert {h["path"] for h in every["hits"]} == {"repo:src/pricing.py", "repo:tests/helpers.py"}
    kept = cli("--vault", vault, "search", "price_of", "--kind", "code", "--lexical", "--exclude-tests", "--json").json
    assert {h["path"] for h in kept["hits"]} == {"repo:src/pricing.py"}
    callers = cli("--vault", vault, "callers", "price_of", "--exclude-tests", "--json").json
    assert callers["status"] != "ambiguous"


def test_an_excluded_file_of_a_tap_beside_the_vault_is_said_excluded(tmp_path, cli):
    """Named without the tap's prefix, as indexed files may be, it was "no such file" (qa87)."""
    repo, vault = tmp_path / "repo", tmp_path / "vault"
    for rel in ("src/core.py", "src/_compat.py"):
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text("def f():\n    return 1\n")
    vault.mkdir()
    (vault / "vault-engine.toml").write_text('[model]\nenabled = false\n[taps.code]\nsource = "code"\n'
                                             'root = "../repo"\npaths = ["src/**"]\nexclude = ["src/_compat.py"]\n')
    assert cli("--vault", vault, "index").code == 0
    for named in ("src/_compat.py", "code:src/_compat.py"):
        said = cli("--vault", vault, "outline", named)
        assert said.code != 0 and "is not an indexed source file: excluded (taps.code.exclude" in said.err, named
    assert cli("--vault", vault, "outline", "src/core.py").code == 0


def test_a_name_defined_only_in_tests_says_so_under_exclude_tests(make_vault, cli):
    """215 test definitions of `cli` were candidates to choose from, the flag unsaid (qa91)."""
    root = make_vault({"tests/test_a.py": "def helper():\n    return 1\n",
                       "tests/test_b.py": "def helper():\n    return 2\n"},
                      config='[model]\nenabled = false\n[taps.code]\nsource = "code"\npaths = ["**"]\n')
    assert cli("--vault", root, "index").code == 0
    answer = cli("--vault", root, "callers", "helper", "--exclude-tests", "--json").json
    assert answer["status"] == "ambiguous" and "each is in test code, which --exclude-tests leaves out" \
        in answer["reason"]
    plain = cli("--vault", root, "callers", "helper", "--json").json
    assert plain["status"] == "ambiguous" and "test code" not in plain["reason"]
