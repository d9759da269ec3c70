"""``vault-engine tui``: a thin shell that opens the app, importing Textual only when it runs."""

import subprocess
import sys

from tests.conftest import run_cli_subprocess

PROBE = """
import sys
from vault_engine.cli.main import main
try:
    main(["tui", "--help"])
except SystemExit:
    pass
print("textual imported:", "textual" in sys.modules, file=sys.stderr)
"""


def test_help_describes_the_command_without_importing_textual():
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60)
    assert "--lexical" in done.stdout and "Open the terminal UI" in done.stdout
    assert "textual imported: False" in done.stderr


def test_json_is_a_usage_error_with_the_usage_and_one_line(sample_vault):
    done = run_cli_subprocess("--vault", sample_vault, "tui", "--json")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("usage: vault-engine tui ")  # as argparse shows its own usage errors
    assert done.stderr.splitlines()[-1].startswith("vault-engine: tui is interactive and has no --json output")


def test_a_missing_vault_is_one_line_and_exit_1(tmp_path):
    done = run_cli_subprocess("--vault", tmp_path / "nowhere", "tui")
    assert done.returncode == 1 and done.stderr.count("\n") == 1 and "nowhere" in done.stderr


def test_the_command_opens_the_app_on_the_vault_it_found(sample_vault, monkeypatch, cli):
    from tui.app import VaultApp

    opened = []
    monkeypatch.setattr(VaultApp, "run", lambda app: opened.append((app.root, app.semantic, app.now)))
    monkeypatch.setenv("VAULT_ENGINE_VAULT", str(sample_vault))
    assert cli("tui", "--lexical").code == 0
    assert opened == [(sample_vault, False, None)]

