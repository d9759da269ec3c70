"""Known facts of two real trees (../shared/corpora/code), when that folder is there."""

import re

import pytest

from tests.conftest import CORPORA
from vault_engine.sources.code.callgraph import resolve
from vault_engine.sources.code.languages import detect_language
from vault_engine.sources.code.symbols import parse_source

CODE = CORPORA / "code"
pytestmark = [pytest.mark.corpus, pytest.mark.skipif(not CODE.exists(), reason="no ../shared/corpora/code")]
_STUB = re.compile(r"^\s*@(?:t|typing)\.overload\s*$")


def parse_tree(root):
    out = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if p.is_file() and detect_language(rel):
            out[rel] = parse_source(rel, p.read_text(encoding="utf-8"), detect_language(rel))
    return out


@pytest.fixture(scope="module")
def click():
    return parse_tree(CODE / "click")


@pytest.fixture(scope="module")
def zustand():
    return parse_tree(CODE / "zustand")


def test_click_folds_its_40_overload_stubs_into_their_implementations(click):
    folded = 0
    for path, parsed in click.items():
        if not path.startswith("src/"):
            continue
        lines = (CODE / "click" / path).read_text(encoding="utf-8").split("\n")
        names = [s.qualname for s in parsed.symbols]
        assert len(names) == len(set(names)), path
        for sym in parsed.symbols:
            folded += sum(1 for ln in lines[sym.line_start - 1:sym.def_line - 1] if _STUB.match(ln))
    assert folded == 40
    ctx = click["src/click/globals.py"].symbol("get_current_context")
    assert ctx.line_start < ctx.def_line and ctx.kind == "function"


def test_click_parses_without_errors_and_names_methods_by_class(click):
    assert not [p for p, f in click.items() if f.error]
    core = click["src/click/core.py"]
    assert {"Command.invoke", "Group.invoke", "Context.invoke"} <= {s.qualname for s in core.symbols}


def test_click_call_graph_facts(click):
    graph = resolve(click)
    assert {e.callee for e in graph.edges if e.caller == "src/click/core.py#Context.exit"} == {
        "src/click/core.py#Context.close", "src/click/exceptions.py#Exit.__init__"}
    assert any(e.caller.startswith("tests/") for e in graph.edges if e.callee == "src/click/_compat.py#term_len")


def test_zustand_has_three_shallow_files_and_folds_use_store(zustand):
    shallow = sorted(p for p in zustand if p.endswith("/shallow.ts"))
    assert shallow == ["src/react/shallow.ts", "src/shallow.ts", "src/vanilla/shallow.ts"]
    assert zustand["src/vanilla/shallow.ts"].symbol("shallow").kind == "function"
    assert zustand["src/react/shallow.ts"].symbol("useShallow") is not None
    assert {(e.name, e.module) for e in zustand["src/shallow.ts"].exports} == {
        ("shallow", "./vanilla/shallow.ts"), ("useShallow", "./react/shallow.ts")}
    use = zustand["src/react.ts"].symbol("useStore")
    assert (use.line_start, use.def_line) == (17, 26)
    assert zustand["src/vanilla.ts"].symbol("createStoreImpl").kind == "function"


def test_zustand_resolves_relative_imports(zustand):
    graph = resolve(zustand)
    got = {(e.caller, e.callee) for e in graph.edges}
    assert ("src/react.ts#createImpl.useBoundStore", "src/react.ts#useStore") in got
    assert any(e.how == "import" and e.callee.startswith("tests/test-utils.ts#") for e in graph.edges)
