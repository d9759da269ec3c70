"""code.sqlite: a reader never changes it; a writer rebuilds one of another version empty."""

import pytest

from vault_engine.errors import IndexMissing
from vault_engine.sources.code.symbols import parse_source
from vault_engine.stores.code_store import CodeStore


def test_a_reader_refuses_another_version_and_a_writer_starts_it_over(tmp_path):
    path = tmp_path / "code.sqlite"
    store = CodeStore(path)
    store.put_file("a.py", "code", parse_source("a.py", "def f():\n    return 1\n", "python"), "h1")
    store.set_meta("version", "0")  # as an older release left it
    store.close()
    with pytest.raises(IndexMissing, match="run `vault-engine index`"):
        CodeStore(path, writer=False)
    writer = CodeStore(path)
    assert writer.fresh and writer.file_keys() == []
    writer.close()
    assert CodeStore(path, writer=False).file_keys() == []


def test_symbols_and_edges_round_trip(tmp_path):
    from vault_engine.stores.code_store import EdgeRow

    store = CodeStore(tmp_path / "code.sqlite")
    parsed = parse_source("a.py", "@dec\ndef f(x):\n    '''Doc.'''\n    return g(x)\n\n\ndef g(y):\n    return y\n", "python")
    store.put_file("a.py", "code", parsed, "h1")
    row = store.symbol("a.py", "f")
    assert (row.line_start, row.def_line, row.parameters, row.decorators, row.docstring) == (1, 2, ("x",), ("dec",), "Doc.")
    store.replace_edges("code", None, [EdgeRow("a.py#f", "a.py#g", "a.py", 4, "name.module")], {"a.py": {"builtin": 1}})
    assert [e.caller for e in store.edges_touching(["a.py#g"], "callee")] == ["a.py#f"]
    assert store.counts() == {"files": 1, "symbols": 2, "edges": 1, "unresolved_calls": 1}
    store.replace_edges("code", ["a.py"], [], {})
    assert store.counts()["edges"] == 0
