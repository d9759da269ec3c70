"""The CLI contract of ``notion import`` and ``notion sync`` (vault_engine/cli/notion_commands.py)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import run_cli_subprocess
from tests.sources.notion.fake_notion import FakeNotion, block, page, text

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "notion" / "export" / "Team Space"
NO_MODEL = "[model]\nenabled = false\n"
PAGE_ID = "9e" * 16


def test_import_json_is_the_report_and_stdout_holds_only_it(make_vault, cli):
    root = make_vault({}, config=NO_MODEL)
    result = cli("--vault", root, "notion", "import", FIXTURE, "--json")
    data = result.json
    assert result.code == 0 and result.err == ""
    assert set(data) >= {"action", "source", "into", "pages", "databases", "new", "updated",
                         "unchanged", "renamed", "gone", "pruned", "attachments", "links",
                         "problems", "notices", "index"}
    assert (data["action"], data["into"], data["pages"], data["databases"]) == ("import", "notion", 4, 1)
    assert data["links"]["relative"] == 10 and len(data["links"]["unresolved"]) == 1
    assert data["index"]["new"] == 5


def test_import_human_output_summarises_and_lists_unresolved_links(make_vault, cli):
    root = make_vault({}, config=NO_MODEL)
    out = cli("--vault", root, "notion", "import", FIXTURE).out.splitlines()
    assert out[0] == ("imported Team Space into notion/: 4 pages, 1 databases; 5 new, 0 updated, "
                      "0 unchanged, 0 renamed, 1 attachments written")
    assert out[1] == "links: 9 of 10 relative links resolved"
    assert out[2] == "1 unresolved link(s):" and "Archive page" in out[3]
    assert out[-1].startswith("indexed in ")


def test_import_problems_go_to_stderr_one_line_each(make_vault, cli, tmp_path):
    export = tmp_path / "Space"
    export.mkdir()
    (export / "No id here.md").write_text("# x\n")
    (export / f"Fine {PAGE_ID}.md").write_text("# Fine\n")
    result = cli("--vault", make_vault({}, config=NO_MODEL), "notion", "import", export, "--json")
    assert result.code == 0 and result.json["new"] == ["notion/Fine 9e9e9e9e.md"]
    [line] = result.err.splitlines()
    assert line.startswith("vault-engine: Space/No id here.md: no Notion id in the file name")


def test_a_notes_folder_outside_the_vault_is_one_line_naming_the_flag(make_vault, cli):
    root = make_vault({}, config=NO_MODEL)
    result = cli("--vault", root, "notion", "import", FIXTURE, "--into", "../elsewhere")
    assert (result.code, result.out) == (1, "")
    assert result.err == ("vault-engine: --into: the folder for notes '../elsewhere' must name a folder "
                          "inside the vault, e.g. notion (no absolute path, no '..', not .vault-engine/.obsidian/.git/.trash)\n")
    assert not (root.parent / "elsewhere").exists()


def test_a_corrupt_zip_exits_1_with_one_line_and_no_traceback(make_vault, tmp_path):
    broken = tmp_path / "Export.zip"
    broken.write_bytes(b"not a zip")
    result = run_cli_subprocess("--vault", make_vault({}, config=NO_MODEL), "notion", "import", broken)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "Export.zip: not a readable zip" in result.stderr


def test_sync_json_and_a_rejected_token(make_vault, cli, monkeypatch):
    with FakeNotion() as fake:
        fake.pages[PAGE_ID] = page(PAGE_ID, "Runbook", "2026-11-20T10:00:00.000Z")
        fake.children[PAGE_ID] = [block("01" * 16, "paragraph", {"rich_text": [text("Drain first.")]})]
        config = (f'{NO_MODEL}[taps.notion]\npage_ids = ["{PAGE_ID}"]\nbase_url = "{fake.url}"\n'
                  'token_env = "TEAM_NOTION_TOKEN"\n')
        root = make_vault({}, config=config)
        monkeypatch.setenv("TEAM_NOTION_TOKEN", fake.token)
        result = cli("--vault", root, "notion", "sync", "--json")
        assert result.code == 0, result.err
        assert (result.json["action"], result.json["new"]) == ("sync", ["notion/Runbook 9e9e9e9e.md"])
        again = cli("--vault", root, "notion", "sync")
        assert "1 not fetched (unchanged in Notion)" in again.out
        monkeypatch.setenv("TEAM_NOTION_TOKEN", "ntn_revoked")
        rejected = cli("--vault", root, "notion", "sync")
    assert rejected.code == 1 and rejected.out == ""
    assert rejected.err.strip() == ("vault-engine: Notion rejected the token from $TEAM_NOTION_TOKEN "
                                    "(401 unauthorized): create a new integration token and export it again")


def test_notion_help_names_both_actions():
    result = run_cli_subprocess("notion", "--help")
    assert result.returncode == 0 and "import" in result.stdout and "sync" in result.stdout
    assert "notion_client" not in result.stderr


def test_import_loads_neither_notion_client_nor_torch(make_vault):
    root = make_vault({}, config=NO_MODEL)
    code = ("import sys; from vault_engine.cli.main import main; "
            f"code = main(['--vault', {str(root)!r}, 'notion', 'import', {str(FIXTURE)!r}, '--json']); "
            "print(code, 'notion_client' in sys.modules, 'torch' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.stdout.strip().splitlines()[-1] == "0 False False", result.stderr


def test_import_into_an_existing_file_is_one_line_and_exit_1(make_vault, cli):
    root = make_vault({}, config=NO_MODEL)
    result = cli("--vault", root, "notion", "import", FIXTURE, "--into", "vault-engine.toml")
    assert result.code == 1 and "Traceback" not in result.err
    [line] = result.err.splitlines()
    assert "vault-engine.toml is a file: pick another folder" in line


def test_prune_says_an_edited_note_of_a_vanished_page_was_kept_because_it_was_edited(make_vault, cli, tmp_path):
    root = make_vault({}, config=NO_MODEL)
    export = tmp_path / "Team Space"
    shutil.copytree(FIXTURE, export)
    cli("--vault", root, "notion", "import", export)
    mine = root / "notion" / "Audit log c6d7e8f9.md"
    mine.write_text(mine.read_text() + "\nMy own line.\n")
    next(export.rglob("Audit log *.md")).unlink()
    result = cli("--vault", root, "notion", "import", export, "--prune")
    out = result.out.splitlines()
    at = out.index("1 note(s) of vanished pages kept: edited in the vault (or not written by this import), so --prune never deletes them:")
    assert out[at + 1] == "  notion/Audit log c6d7e8f9.md"
    assert "--prune deletes them" not in result.out and mine.read_text().endswith("My own line.\n")
    data = cli("--vault", root, "notion", "import", export, "--prune", "--json").json
    assert (data["gone"], data["pruned"], data["kept_edited"], data["prune"]) == (
        ["notion/Audit log c6d7e8f9.md"], [], ["notion/Audit log c6d7e8f9.md"], True)
