"""`vault-engine hook install` (vault_engine/hooks/settings.py): our three hooks merged into
.claude/settings.json beside whatever is there, once however often it runs."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path

import pytest

from vault_engine.errors import VaultError
from vault_engine.hooks.settings import HOOKS, install, merge

OTHERS = Path(__file__).resolve().parents[1] / "fixtures" / "hooks" / "settings-with-other-hooks.json"


@pytest.fixture(autouse=True)
def _hooks_command_on_path(monkeypatch):
    """This install's `vault-engine` on PATH, as for anyone who installed it: without it,
    install rightly warns that the hooks would not run."""
    monkeypatch.setenv("PATH", os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))


def ours(settings: dict) -> dict[str, list[str]]:
    """Claude event -> the vault-engine commands installed for it."""
    return {event: [h["command"] for g in groups for h in g["hooks"] if h["command"].startswith("vault-engine")]
            for event, groups in settings["hooks"].items()}


def test_other_hooks_and_settings_are_kept(tmp_path):
    before = json.loads(OTHERS.read_text())
    merged = merge(before, project="drone-audio", vault=None)
    for event, groups in before["hooks"].items():
        assert merged["hooks"][event][:len(groups)] == groups  # theirs first, untouched
    assert merged["permissions"] == before["permissions"]
    assert ours(merged)["SessionStart"] == ["vault-engine hook session-start --project drone-audio"]
    assert ours(merged)["PostToolUse"] == []
    plan_group = merged["hooks"]["PreToolUse"][-1]
    assert plan_group["matcher"] == HOOKS["PreToolUse"][1] and plan_group["hooks"][0]["timeout"] == 10


def test_installing_twice_changes_nothing_and_a_new_project_replaces_ours(tmp_path):
    once = merge(json.loads(OTHERS.read_text()), project="drone-audio", vault=None)
    assert merge(once, project="drone-audio", vault=None) == once
    moved = merge(once, project="billing-service", vault=str(tmp_path))
    assert len(moved["hooks"]["UserPromptSubmit"]) == 1
    (command,) = ours(moved)["UserPromptSubmit"]
    assert shlex.split(command) == ["vault-engine", "--vault", str(tmp_path.resolve()), "hook",
                                    "user-prompt-submit", "--project", "billing-service"]


def test_install_writes_the_file_and_print_does_not(tmp_path, cli, monkeypatch):
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(OTHERS.read_text())
    monkeypatch.chdir(tmp_path)
    shown = cli("hook", "install", "--project", "drone-audio", "--print")
    assert shown.code == 0 and settings.read_text() == OTHERS.read_text()
    assert ours(json.loads(shown.out))["UserPromptSubmit"] == ["vault-engine hook user-prompt-submit --project drone-audio"]
    done = cli("hook", "install", "--project", "drone-audio")
    assert done.code == 0 and "other hooks kept" in done.out
    assert json.loads(settings.read_text()) == json.loads(shown.out)


def test_a_missing_file_is_created(tmp_path):
    merged, path, changed = install(tmp_path / "new" / "settings.json")
    assert json.loads(path.read_text()) == merged and set(merged["hooks"]) == set(HOOKS) and changed


def test_installing_again_leaves_the_file_untouched_and_says_so(tmp_path, cli):
    settings = tmp_path / "settings.json"
    assert "added vault-engine hooks" in cli("hook", "install", "--settings", settings).out
    os.utime(settings, (1, 1))
    again = cli("hook", "install", "--settings", settings)
    assert again.code == 0 and "already in" in again.out and "left as it is" in again.out
    assert settings.stat().st_mtime == 1  # not rewritten


def test_install_with_a_blank_project_writes_nothing(tmp_path, cli):
    settings = tmp_path / "settings.json"
    refused = cli("hook", "install", "--project", "", "--settings", settings)
    assert refused.code == 2 and "--project must not be empty: name the project the hooks brief" in refused.err and not settings.exists()


@pytest.mark.parametrize("text", ["{not json", "[]", '{"hooks": []}', '{"hooks": {"PreToolUse": {}}}'])
def test_a_settings_file_we_cannot_merge_is_left_alone_with_one_line(tmp_path, text, cli):
    settings = tmp_path / "settings.json"
    settings.write_text(text)
    with pytest.raises(VaultError, match="fix"):
        install(settings)
    assert settings.read_text() == text
    done = cli("hook", "install", "--settings", settings)
    assert done.code == 1 and done.err.count("\n") == 1 and settings.read_text() == text


def test_install_outside_any_vault_says_how_to_point_the_hooks_at_one(tmp_path, cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("VAULT_ENGINE_VAULT", raising=False)
    done = cli("hook", "install", "--settings", tmp_path / "settings.json")
    assert done.code == 0 and "no vault found from" in done.err and "--vault DIR hook install" in done.err
    (tmp_path / "vault-engine.toml").write_text("")
    assert cli("hook", "install", "--settings", tmp_path / "settings.json").err == ""


def test_install_says_when_the_hooks_command_is_on_no_path(tmp_path, cli, monkeypatch):
    """make demo installs into .venv: every hook failed 'command not found', unread (qa54)."""
    monkeypatch.setenv("PATH", str(tmp_path))
    done = cli("hook", "install", "--settings", tmp_path / "settings.json")
    assert done.code == 0 and "`vault-engine` is not on this PATH" in done.err
    assert f"ln -s {Path(sys.executable).parent / 'vault-engine'} ~/.local/bin/" in done.err
    assert "keep `vault-engine watch` running" in done.out


def test_a_symlinked_settings_file_is_written_through_to_its_target(tmp_path):
    dotfiles = tmp_path / "dotfiles" / "settings.json"
    dotfiles.parent.mkdir()
    dotfiles.write_text('{"model": "x"}')
    link = tmp_path / "project" / ".claude" / "settings.json"
    link.parent.mkdir(parents=True)
    link.symlink_to(dotfiles)
    merged, _, _ = install(link, project="drone-audio")
    assert link.is_symlink() and link.resolve() == dotfiles.resolve()
    assert json.loads(dotfiles.read_text()) == merged and merged["model"] == "x"
    assert sorted(p.name for p in dotfiles.parent.iterdir()) == ["settings.json"]  # no temporary left


def test_a_settings_path_that_cannot_be_written_is_one_line_not_a_traceback(tmp_path):
    (tmp_path / ".claude").write_text("a file where the folder goes")
    with pytest.raises(VaultError, match=r"settings\.json: cannot write it \(.*\); fix the path or pass --settings"):
        install(tmp_path / ".claude" / "settings.json", project="drone-audio")
    assert (tmp_path / ".claude").read_text() == "a file where the folder goes"


def test_a_settings_link_into_a_folder_that_does_not_exist_makes_no_folders_there(tmp_path):
    link = tmp_path / ".claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(tmp_path / "nowhere" / "settings.json")  # a typo in a dotfiles link
    with pytest.raises(VaultError, match=r"cannot write it \(it links to .*nowhere/settings\.json, in a folder that"):
        install(link, project="drone-audio")
    assert not (tmp_path / "nowhere").exists()


def test_the_settings_files_mode_is_kept(tmp_path):
    settings = tmp_path / "settings.json"
    settings.write_text('{"env": {"TOKEN": "x"}}')
    settings.chmod(0o600)
    install(settings)
    assert settings.stat().st_mode & 0o777 == 0o600 and "TOKEN" in settings.read_text()


def test_an_unknown_project_is_refused_naming_the_known_ones(indexed_sample, tmp_path, cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    settings = tmp_path / "settings.json"
    done = cli("--vault", indexed_sample, "hook", "install", "--project", "biling-service", "--settings", settings)
    assert done.code == 1 and done.err.count("\n") == 1 and not settings.exists()
    assert ("no project 'biling-service' in the index (did you mean billing-service?); known projects: "
            "billing-service, drone-audio") in done.err
    done = cli("--vault", indexed_sample, "hook", "install", "--project", "billing-service", "--settings", settings)
    assert (done.code, done.err) == (0, "") and "billing-service" in settings.read_text()


def test_no_project_in_a_vault_of_several_says_session_start_will_brief_none(indexed_sample, tmp_path, cli,
                                                                             monkeypatch):
    """Installed silently in a vault of three projects, and no brief came (qa31 N6)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("VAULT_ENGINE_PROJECT", raising=False)
    settings = tmp_path / "settings.json"
    done = cli("--vault", indexed_sample, "hook", "install", "--settings", settings)
    assert done.code == 0 and settings.exists()
    assert "no --project, and the vault holds" in done.err and "pass --project P to name it in the hooks" in done.err
    monkeypatch.setenv("VAULT_ENGINE_PROJECT", "drone-audio")
    assert cli("--vault", indexed_sample, "hook", "install", "--settings", settings).err == ""


def test_without_an_index_the_project_is_installed_with_a_warning_that_it_was_not_checked(tmp_path, cli):
    (tmp_path / "vault").mkdir()
    settings = tmp_path / "settings.json"
    done = cli("--vault", tmp_path / "vault", "hook", "install", "--project", "new-thing", "--settings", settings)
    assert done.code == 0 and "new-thing" in settings.read_text()
    assert "no index in" in done.err and "--project new-thing is not checked until then" in done.err


def test_our_command_beside_another_hook_in_one_group_is_refreshed_there_never_duplicated():
    theirs = {"type": "command", "command": "~/bin/log.sh"}
    old = {"type": "command", "command": "vault-engine --vault /old hook user-prompt-submit --project billing-service",
           "timeout": 10}
    before = {"hooks": {"UserPromptSubmit": [{"hooks": [theirs, old]},
                                             {"hooks": [{"type": "command", "command": old["command"]}]}]}}
    merged = merge(before, project="drone-audio", vault=None)
    assert merged["hooks"]["UserPromptSubmit"] == [{"hooks": [theirs, {
        "type": "command", "command": "vault-engine hook user-prompt-submit --project drone-audio", "timeout": 10}]}]
    assert merge(merged, project="drone-audio", vault=None) == merged


def test_a_timeout_raised_by_hand_is_kept_by_the_next_install():
    """A user's 30 s on our entry became 10 again (qa96)."""
    once = merge({}, project="p", vault=None)
    once["hooks"]["SessionStart"][0]["hooks"][0]["timeout"] = 30
    again = merge(once, project="p", vault=None)
    assert again["hooks"]["SessionStart"][0]["hooks"][0]["timeout"] == 30
    assert again["hooks"]["UserPromptSubmit"][0]["hooks"][0]["timeout"] == 10


def test_uninstall_takes_out_ours_alone(tmp_path, cli, monkeypatch):
    """There was no way but editing the JSON by hand (qa96)."""
    from vault_engine.hooks.settings import remove

    before = json.loads(OTHERS.read_text())
    assert remove(merge(before, project="p", vault=None)) == before
    assert remove({"hooks": {}}) == {} and remove({"model": "x"}) == {"model": "x"}
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps(merge(before, project="p", vault=None)))
    monkeypatch.chdir(tmp_path)
    done = cli("hook", "uninstall")
    assert done.code == 0 and done.out == f"took the vault-engine hooks out of {settings.resolve()} (other hooks kept)\n"
    assert json.loads(settings.read_text()) == before
    assert cli("hook", "uninstall").out == f"no vault-engine hooks in {settings.resolve()}: left as it is\n"


def test_install_from_a_subfolder_writes_the_projects_settings(tmp_path, cli, monkeypatch):
    """Run in src/deep, it made src/deep/.claude and left the repository's settings alone (qa96)."""
    from vault_engine.hooks.settings import settings_file_of

    (tmp_path / ".git").mkdir()
    deep = tmp_path / "src" / "deep"
    deep.mkdir(parents=True)
    assert settings_file_of(deep) == tmp_path.resolve() / ".claude" / "settings.json"  # the repository's root
    (tmp_path / "src" / ".claude").mkdir()
    assert settings_file_of(deep) == tmp_path.resolve() / "src" / ".claude" / "settings.json"  # the nearest .claude
    monkeypatch.chdir(deep)
    done = cli("hook", "install", "--project", "p")
    assert done.code == 0 and (tmp_path / "src" / ".claude" / "settings.json").is_file()
    assert not (deep / ".claude").exists()


def test_a_vault_inside_the_repository_is_named_by_the_hooks_run_from_its_root(tmp_path, cli, monkeypatch):
    """Installed from repo/vault, the hooks ran from repo, found no vault upward, and every
    prompt went unchecked without a word (qa157)."""
    (tmp_path / ".git").mkdir()
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "vault-engine.toml").write_text("")
    monkeypatch.chdir(vault)
    monkeypatch.delenv("VAULT_ENGINE_VAULT", raising=False)
    done = cli("hook", "install", "--project", "p")
    commands = json.dumps(json.loads((tmp_path / ".claude" / "settings.json").read_text()))
    assert done.code == 0 and f"vault-engine --vault {vault.resolve()} hook user-prompt-submit" in commands
    assert f"the hooks run from {tmp_path.resolve()}, where no vault is found upward" in done.err
    assert f"`--settings {tmp_path.resolve() / '.claude' / 'settings.local.json'}` keeps it out" in done.err
    (vault / ".claude").mkdir()  # the vault is the project: the hooks find it from there
    cli("hook", "install", "--project", "p")
    assert "--vault" not in (vault / ".claude" / "settings.json").read_text()


def test_a_vault_path_written_into_shared_settings_is_said(tmp_path, cli, monkeypatch):
    """`--vault /tmp/...` went into the team's `.claude/settings.json` without a word (qa96)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "vault").mkdir()
    shared = cli("--vault", tmp_path / "vault", "hook", "install", "--project", "p")
    local_file = tmp_path.resolve() / ".claude" / "settings.local.json"  # by its whole path (qa161)
    assert shared.code == 0 and f"--settings {local_file}` keeps it out of the shared" in shared.err
    local = cli("--vault", tmp_path / "vault", "hook", "install", "--project", "p",
                "--settings", ".claude/settings.local.json")
    assert local.code == 0 and "settings.local.json" not in local.err


def test_our_command_run_through_env_or_uvx_is_ours_and_one_in_a_pipeline_is_theirs():
    """`env ... vault-engine hook ...` had been installed a second time (every prompt checked
    twice), and a person's `vault-engine hook ... | tee log` replaced as ours (qa150)."""
    wrapped = {"type": "command", "command": "env VAULT_ENGINE_PROJECT=p vault-engine hook user-prompt-submit"}
    piped = {"type": "command", "command": "vault-engine hook session-start --project p | tee -a hook.log"}
    echoed = {"type": "command", "command": "echo vault-engine hook session-start"}
    before = {"hooks": {"UserPromptSubmit": [{"hooks": [wrapped]}], "SessionStart": [{"hooks": [piped, echoed]}]}}
    merged = merge(before, project="p", vault=None)
    assert [h["command"] for g in merged["hooks"]["UserPromptSubmit"] for h in g["hooks"]] == [
        "vault-engine hook user-prompt-submit --project p"]  # refreshed where it was, not added
    session = [h["command"] for g in merged["hooks"]["SessionStart"] for h in g["hooks"]]
    assert session[:2] == [piped["command"], echoed["command"]] and len(session) == 3


def test_the_settings_files_indent_is_kept(tmp_path):
    """A file written with 4 spaces had come back with 2: every line showed in the team's diff (qa150)."""
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"permissions": {"allow": ["Bash(ls)"]}}, indent=4) + "\n")
    install(path, project="p")
    assert '\n    "permissions": {\n        "allow": [' in path.read_text()
    tabbed = tmp_path / "tabbed.json"
    tabbed.write_text(json.dumps({"model": "x", "env": {"A": "1"}}, indent="\t") + "\n")
    install(tabbed, project="p")
    assert '\n\t"env": {\n\t\t"A": "1"' in tabbed.read_text()
