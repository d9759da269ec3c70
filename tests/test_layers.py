"""Architecture rules of docs/architecture.md, enforced by walking the AST of every module.

1. Imports point down the layers only.
2. Heavy libraries are never imported at module level in the core.
3. The core never imports the TUI (only the CLI's `tui` command, inside its function); the
   TUI uses only the public API.
4. Rooms of one layer that must not lean on each other (retrieval answers from the stores,
   never through the indexer; the indexer's steps, reading (each key by its tap's reader) and
   code_sync, never lean on the indexer; each tap in sources/ is a sub-package of its own, and
   only the code tap reads files through the vault tap's safe reader; memory's result types
   lean on no other memory module, and rendering not on what computes the results), and SQL
   only in stores/.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "vault_engine"

# Top to bottom; a module may import its own layer or any layer below it.
LAYERS = [
    ["vault_engine.cli", "vault_engine.__main__", "vault_engine.mcp", "vault_engine.hooks"],
    ["vault_engine.daemon"],
    ["vault_engine.operations"],
    ["vault_engine.vault_thread"],  # a Vault on its own thread: daemon, MCP and TUI run on it
    ["vault_engine.vault", "vault_engine.status", "vault_engine.drift"],  # the facade, and what it words for it
    ["vault_engine.memory"],
    ["vault_engine.retrieval"],
    ["vault_engine.indexing"],
    ["vault_engine.sources"],
    ["vault_engine.stores"],
    ["vault_engine.parsing"],
    ["vault_engine.model", "vault_engine.errors", "vault_engine.config", "vault_engine.paths",
     "vault_engine.refs", "vault_engine.locks", "vault_engine.layout", "vault_engine.dates", "vault_engine.text",
     "vault_engine"],
]
HEAVY = {"torch", "sentence_transformers", "faiss", "whoosh", "watchdog", "textual", "notion_client",
         "numpy", "tree_sitter", "transformers", "rich", "mcp"}
# (importer, imported): not even lazily, though the layers would allow it.
APART = [
    ("vault_engine.retrieval", "vault_engine.indexing"),
    ("vault_engine.indexing.reading", "vault_engine.indexing.indexer"),
    ("vault_engine.indexing.code_sync", "vault_engine.indexing.indexer"),
    ("vault_engine.sources.vault", "vault_engine.sources.notion"),
    ("vault_engine.sources.vault", "vault_engine.sources.code"),
    ("vault_engine.sources.notion", "vault_engine.sources.code"),
    ("vault_engine.sources.code", "vault_engine.sources.notion"),
    ("vault_engine.memory.results", "vault_engine.memory"),  # the values: every memory module imports them
    ("vault_engine.memory.render", "vault_engine.memory.deadends"),
    ("vault_engine.memory.render", "vault_engine.memory.resume"),
]
TAPS = {"vault", "notion", "code"}  # config.SOURCES: one sub-package of sources/ each
PUBLIC_API = {"vault_engine.vault", "vault_engine.vault_thread", "vault_engine.model", "vault_engine.errors",
              "vault_engine.refs", "vault_engine.config", "vault_engine.dates"}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer_of(name: str) -> int | None:
    best = None
    for rank, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if name == prefix or name.startswith(prefix + "."):
                if best is None or len(prefix) > best[1]:
                    best = (rank, len(prefix))
    return best[0] if best else None


def imports(tree: ast.AST, module: str):
    """(imported module, is at module level) for every import in a file."""
    top_level = set()
    for node in tree.body:
        for sub in ast.walk(node) if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else ():
            top_level.add(id(sub))
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for sub in ast.walk(node):
                top_level.discard(id(sub))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, id(node) in top_level
        elif isinstance(node, ast.ImportFrom) and node.module:
            base = node.module
            if node.level:
                base = ".".join(module.split(".")[: -node.level] + [node.module])
            yield base, id(node) in top_level


def core_files():
    return sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", core_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_point_down_and_heavy_ones_are_lazy(path):
    module = module_name(path)
    own = layer_of(module)
    tree = ast.parse(path.read_text())
    for target, at_top in imports(tree, module):
        root = target.split(".")[0]
        if root in ("tui", "textual"):  # only the `tui` command may, lazily
            assert module.startswith("vault_engine.cli.") and not at_top, f"{module} imports {target}"
        if at_top:
            assert root not in HEAVY, f"{module} imports {target} at module level: import it inside the function"
        if target.startswith("vault_engine"):
            theirs = layer_of(target)
            assert theirs is not None and theirs >= own, f"{module} (layer {own}) imports {target} (layer {theirs}): imports must point down"


def within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


@pytest.mark.parametrize("path", core_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_rooms_kept_apart_stay_apart(path):
    module = module_name(path)
    for target, _ in imports(ast.parse(path.read_text()), module):
        for importer, imported in APART:
            assert not (within(module, importer) and within(target, imported)), \
                f"{module} imports {target}: {importer} must not use {imported}"


def test_sources_holds_one_sub_package_per_tap():
    from vault_engine.config import SOURCES

    sources = PACKAGE / "sources"
    assert set(SOURCES) == TAPS
    assert {p.name for p in sources.iterdir() if p.is_dir() and (p / "__init__.py").exists()} == TAPS
    loose = [p.name for p in sources.glob("*.py") if p.name != "__init__.py"]
    assert not loose, f"sources/ {loose}: a module belongs to its tap's sub-package"


@pytest.mark.parametrize("path", [p for p in core_files() if "stores" not in p.relative_to(PACKAGE).parts],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_sql_lives_in_stores(path):
    tree = ast.parse(path.read_text())
    for target, _ in imports(tree, module_name(path)):
        assert target != "sqlite3", f"{path.relative_to(ROOT)} imports sqlite3: give a store a method"
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            assert node.func.attr not in ("execute", "executemany", "executescript"), \
                f"{path.relative_to(ROOT)}:{node.lineno} runs SQL: give a store a method"


def test_the_tui_uses_only_the_public_api():
    tui = ROOT / "tui"
    for path in tui.rglob("*.py"):
        for target, _ in imports(ast.parse(path.read_text()), "tui"):
            if target.startswith("vault_engine"):
                assert any(target == p or target.startswith(p + ".") for p in PUBLIC_API), \
                    f"{path.relative_to(ROOT)} imports {target}: use the Vault API"


def test_the_apart_rule_catches_retrieval_using_the_indexer():
    tree = ast.parse("def f():\n    from vault_engine.indexing.embedding import MODEL_META\n")
    (target, at_top), = imports(tree, "vault_engine.retrieval.semantic")
    assert not at_top and within(target, APART[0][1]) and within("vault_engine.retrieval.semantic", APART[0][0])


def test_the_apart_rule_catches_the_results_leaning_on_a_memory_module():
    tree = ast.parse("if TYPE_CHECKING:\n    from vault_engine.memory.render import fit_brief\n")
    (target, _), = imports(tree, "vault_engine.memory.results")
    assert any(within("vault_engine.memory.results", a) and within(target, b) for a, b in APART)


def test_the_rule_catches_an_upward_import(tmp_path):
    tree = ast.parse("from vault_engine.vault import Vault\n")
    (target, _), = imports(tree, "vault_engine.stores.ledger")
    assert layer_of(target) < layer_of("vault_engine.stores.ledger")
