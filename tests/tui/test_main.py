"""``python -m tui``: the same app, found the same way as ``vault-engine tui``."""

import subprocess
import sys


def run_module(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tui", *map(str, args)], capture_output=True,
                          text=True, timeout=60)


def test_help_lists_the_options():
    done = run_module("--help")
    assert done.returncode == 0 and "--vault" in done.stdout and "--lexical" in done.stdout


def test_a_missing_vault_is_one_line_and_exit_1(tmp_path):
    done = run_module("--vault", tmp_path / "nowhere")
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "nowhere" in done.stderr


def test_the_app_opens_on_the_vault_given(sample_vault, monkeypatch):
    from tui.__main__ import main
    from tui.app import VaultApp

    opened = []
    monkeypatch.setattr(VaultApp, "run", lambda app: opened.append((app.root, app.semantic)))
    assert main(["--vault", str(sample_vault)]) == 0
    assert opened == [(sample_vault, True)]
