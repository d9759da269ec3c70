"""Fast where agents wait: these commands must never import torch (a fresh interpreter each)."""

import json
import subprocess
import sys

import pytest

PROBE = (
    "import sys, json\n"
    "from vault_engine.cli.main import main\n"
    "try:\n    code = main(sys.argv[1:])\nexcept SystemExit as e:\n    code = e.code\n"
    "heavy = sorted(m for m in ('torch', 'sentence_transformers', 'transformers', 'textual') if m in sys.modules)\n"
    "sys.stderr.write('\\nPROBE ' + json.dumps([code, heavy]) + '\\n')\n"
)

NOTES = {"specs/auth.md": "# Auth\n## Token refresh\nrotate hourly [[b]]\n", "b.md": "# B\nback to [[auth]]\n"}


def probe(*args):
    done = subprocess.run([sys.executable, "-c", PROBE, *map(str, args)], capture_output=True, text=True, timeout=120)
    line = [line_ for line_ in done.stderr.splitlines() if line_.startswith("PROBE ")][-1]
    return json.loads(line[6:])


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    from vault_engine.vault import Vault

    root = tmp_path_factory.mktemp("fast")
    for rel, text in NOTES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    with Vault(root) as v:
        v.index()
    return root


@pytest.mark.parametrize("args", [
    ["--help"],
    ["search", "token", "--lexical", "--json"],
    ["search", "zzqxjv", "--lexical", "--json"],  # a miss: the vault is scanned for stale files too
    ["show", "specs/auth.md#Token refresh"],
    ["links", "specs/auth.md", "--backlinks"],
    ["status", "--json"],
    ["decay"],
])
def test_agent_paths_never_import_torch(indexed, args):
    code, heavy = probe("--vault", indexed, *args) if args != ["--help"] else probe(*args)
    assert code == 0
    assert heavy == []


def test_code_commands_never_import_torch(make_vault):
    from tests.code_vault import build

    root = build(make_vault)
    for args in (["find", "OrderBook.place", "--json"], ["find", "why must the quantity be positive?"],
                 ["callers", "price_of", "--depth", "3"], ["outline", "src/shop/orders.py"],
                 ["show", "src/shop/orders.py#OrderBook.place"]):
        code, heavy = probe("--vault", root, "--no-daemon", *args)
        assert (args[0], code, heavy) == (args[0], 0, [])


# What a cold code command has no use for: the search side, the model's settings and
# stores, Whoosh (only find's memory tier reads it), the Notion and watcher modules, the
# daemon protocol when no watcher runs, the grammars (the index already parsed the code),
# and the second parser of every other command.
NOT_FOR_CODE = ("whoosh", "numpy", "faiss", "onnxruntime", "tree_sitter", "vault_engine.retrieval.search",
                "vault_engine.stores.embedder", "vault_engine.stores.vectors", "vault_engine.stores.lexical",
                "vault_engine.sources.notion.api", "vault_engine.indexing.watcher", "vault_engine.daemon.protocol",
                "vault_engine.retrieval.find.memory", "vault_engine.cli.memory_commands", "ctypes")
LOADED = (
    "import sys, json\n"
    "from vault_engine.cli.main import main\n"
    "code = main(sys.argv[2:])\n"
    "loaded = sorted(m for m in json.loads(sys.argv[1]) if m in sys.modules)\n"
    "sys.stderr.write('\\nLOADED ' + json.dumps([code, loaded]) + '\\n')\n"
)


def test_cold_code_commands_load_only_what_they_use(make_vault):
    from tests.code_vault import build

    root = build(make_vault)
    # find reads only the code store and the ledger: not even the notes' values; callers and
    # callees also stat the code taps' files (a call saved since the index is not in the
    # answer, and its notices say so), which loads the scan's record types, never the notes'
    no_notes = NOT_FOR_CODE + ("vault_engine.sources.vault.files", "vault_engine.parsing")
    graph_only = no_notes + ("vault_engine.model",)
    for args, unused in ((["find", "OrderBook.place", "--json"], graph_only), (["find", "src/shop/orders.py"], graph_only),
                         (["find", "OrdreBook.plcae"], graph_only), (["callers", "price_of", "--depth", "3", "--json"], no_notes),
                         (["callees", "src/shop/cli.py#main"], no_notes), (["outline", "src/shop/orders.py"], NOT_FOR_CODE),
                         (["show", "src/shop/orders.py#OrderBook.place", "--follow", "2"], NOT_FOR_CODE)):
        done = subprocess.run([sys.executable, "-c", LOADED, json.dumps(unused), "--vault", str(root), *args],
                              capture_output=True, text=True, timeout=120)
        line = [line_ for line_ in done.stderr.splitlines() if line_.startswith("LOADED ")][-1]
        assert json.loads(line[7:]) == [0, []], args
    # a question goes to the memory notes: Whoosh's side is opened then, and only then
    done = subprocess.run([sys.executable, "-c", LOADED, json.dumps(["vault_engine.stores.lexical"]), "--vault",
                           str(root), "find", "why must the quantity be positive?"], capture_output=True, text=True)
    assert json.loads([line for line in done.stderr.splitlines() if line.startswith("LOADED ")][-1][7:]) == \
        [0, ["vault_engine.stores.lexical"]]
