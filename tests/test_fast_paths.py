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
    line = [l for l in done.stderr.splitlines() if l.startswith("PROBE ")][-1]
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
