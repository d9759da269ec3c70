"""A parsed source file as an index document: a section per symbol, decorators included."""

from vault_engine.sources.code.sections import code_note, identifier_words
from vault_engine.sources.code.symbols import parse_source

SOURCE = '''"""Module doc."""
import os


class OrderBook:
    """A book."""

    @property
    def size(self):
        return 1

    def place_order(self, sku):
        return os.path.join(sku)
'''


def test_each_symbol_is_a_section_with_its_qualified_name_and_span():
    note = code_note("src/orders.py", parse_source("src/orders.py", SOURCE, "python"), SOURCE, "code")
    assert (note.kind, note.path, note.meta["tap"], note.meta["language"]) == ("code", "src/orders.py", "code", "python")
    spans = {s.heading: (s.line_start, s.line_end) for s in note.sections}
    assert spans == {None: (1, 4), "OrderBook": (5, 13), "OrderBook.size": (8, 10),
                     "OrderBook.place_order": (12, 13)}
    place = next(s for s in note.sections if s.heading == "OrderBook.place_order")
    assert "order book place order" in place.text and place.text.endswith("return path join sku")  # each word once
    book = next(s for s in note.sections if s.heading == "OrderBook")
    assert "members: size, place_order" in book.text and "return 1" not in book.text


def test_identifier_words_split_camel_and_snake_case():
    assert identifier_words("HTTPServer.place_order2") == "http server place order 2"


def test_a_one_line_definition_gives_its_body_words_too():
    """`def g(): return persist_order()` gave search no word of its body: the body was read
    from the line after the header (qa147)."""
    source = "def f():\n    return persist_order()\n\n\ndef g(): return persist_order()\n"
    note = code_note("src/o.py", parse_source("src/o.py", source, "python"), source, "code")
    bodies = {s.heading: s.text.rsplit("\n", 1)[-1] for s in note.sections if s.heading}
    assert "persist_order" in bodies["f"] and "persist_order" in bodies["g"]


def test_a_file_of_no_symbols_is_one_section_ending_at_its_last_line():
    """zustand's index.ts, two lines and a newline: its section had ended on a line 3 that
    `show` and `outline` do not have (qa196)."""
    source = "export * from './vanilla.ts'\nexport * from './react.ts'\n"
    note = code_note("src/index.ts", parse_source("src/index.ts", source, "typescript"), source, "code")
    assert [(s.line_start, s.line_end) for s in note.sections] == [(1, 2)]
