"""Backticked names and paths in notes: the "why" links of code."""

from vault_engine.parsing.mentions import mention_token, mentions_in


def test_names_paths_and_calls_are_mentions_but_commands_are_not():
    assert mention_token("OrderBook.place()") == "OrderBook.place"
    assert mention_token("src/shop/orders.py") == "src/shop/orders.py"
    assert mention_token("shop.orders:OrderBook") == "shop.orders:OrderBook"
    assert mention_token("git commit -m x") is None
    assert mention_token("a + b") is None
    assert mention_token("42") is None


def test_a_rust_path_is_its_dotted_name_from_the_crate():
    assert mention_token("Ledger::record()") == "Ledger.record"
    assert mention_token("crate::util::fmt::money") == mention_token("self::util::fmt::money") == "util.fmt.money"


def test_a_call_with_its_arguments_names_what_it_calls():
    """`Entry::credit(250)` and `Ledger.record(5)` were no mentions at all (qa58)."""
    assert mention_token("Entry::credit(250)") == "Entry.credit"
    assert mention_token("Ledger.record(&mut self, e: Entry)") == "Ledger.record"
    assert mention_token("a + f(b)") is None and mention_token("(x)") is None


def test_fenced_code_is_not_a_mention_and_lines_are_file_lines():
    text = "See `price_of` here.\n```\n`not_this`\n```\nand `OrderBook.place`."
    assert mentions_in(text, first_line=10) == [("price_of", 10), ("OrderBook.place", 14)]
