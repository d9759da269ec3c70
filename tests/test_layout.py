"""The names under .vault-engine/ live in one module (vault_engine/layout.py)."""

import ast
from pathlib import Path

from vault_engine import layout

PACKAGE = Path(__file__).resolve().parent.parent / "vault_engine"
FILE_NAMES = {value for name, value in vars(layout).items()
              if name.isupper() and isinstance(value, str) and "." in value}


def literals(tree: ast.AST) -> set[str]:
    """Every string constant of a module that is not a docstring."""
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    return {node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings}


def test_the_file_names_are_spelled_only_in_layout():
    assert {"ledger.sqlite", "vectors.faiss", "write.lock", "daemon.sock", ".vault-engine"} <= FILE_NAMES
    spelled = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "layout.py":
            continue
        found = literals(ast.parse(path.read_text())) & FILE_NAMES
        if found:
            spelled[str(path.relative_to(PACKAGE))] = sorted(found)
    assert not spelled, f"import these names from vault_engine.layout: {spelled}"


def test_the_layout_imports_nothing():  # the daemon client reads it on its fast path
    tree = ast.parse((PACKAGE / "layout.py").read_text())
    assert not [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]


def test_the_release_names_the_formats_it_writes():
    """A watcher says which release it is, and a command of another one neither asks it nor
    indexes under it (qa99): a format changed without its release's name would pass as the same."""
    from vault_engine import FORMATS
    from vault_engine.parsing.note import EXTRACTION_VERSION
    from vault_engine.stores.code_store import VERSION
    from vault_engine.stores.ledger.schema import SCHEMA_VERSION

    assert FORMATS == f"ledger {SCHEMA_VERSION}, extraction {EXTRACTION_VERSION}, code {VERSION}"


def test_a_state_folder_is_never_made_where_the_vault_is_gone(tmp_path):
    """A watcher's write in flight when its vault was moved or deleted had made the old path
    again, holding only index files (qa137): every store makes its folder through this."""
    import pytest

    from vault_engine.layout import STATE_DIR
    from vault_engine.paths import make_state_folder
    from vault_engine.stores.reinforcements import ReinforcementLog

    gone = tmp_path / "moved-away"
    with pytest.raises(FileNotFoundError, match="the vault folder is gone"):
        make_state_folder(gone / STATE_DIR / "index" / "g1")
    with pytest.raises(FileNotFoundError):
        ReinforcementLog(gone / STATE_DIR / "ledger" / "reinforcements.jsonl").append({"event": "reinforce"})
    assert not gone.exists()
    (tmp_path / "vault").mkdir()
    # nor the state folder on the way to a folder inside it: removed under a watcher's batch,
    # it had come back holding an empty index/ (qa198)
    with pytest.raises(FileNotFoundError, match="the vault's state folder was removed"):
        make_state_folder(tmp_path / "vault" / STATE_DIR / "index" / "g1")
    assert not (tmp_path / "vault" / STATE_DIR).exists()
    make_state_folder(tmp_path / "vault" / STATE_DIR)  # itself: a first index, a watcher's pid lock
    make_state_folder(tmp_path / "vault" / STATE_DIR / "index" / "g1")
    assert (tmp_path / "vault" / STATE_DIR / "index" / "g1").is_dir()
    make_state_folder(tmp_path / "elsewhere" / "cache")  # no vault's state: made as asked
    assert (tmp_path / "elsewhere" / "cache").is_dir()
