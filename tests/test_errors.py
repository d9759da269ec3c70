"""The error tree (vault_engine/errors.py): the library names arguments, the CLI names flags."""

import pytest

from vault_engine.cli.main import describe
from vault_engine.errors import NotionError, VaultError, VaultNotFound


def test_the_cli_leads_with_the_flag_of_the_argument_at_fault():
    assert describe(VaultError("k must be at least 1")) == "k must be at least 1"
    exc = NotionError("'..' must name a folder inside the vault", argument="max_tokens")
    assert str(exc) == "'..' must name a folder inside the vault"
    assert describe(exc) == "--max-tokens: '..' must name a folder inside the vault"


def test_a_missing_vault_folder_names_no_flag(tmp_path):
    from vault_engine.vault import Vault

    with pytest.raises(VaultNotFound) as caught:
        Vault(tmp_path / "nope")
    assert caught.value.argument == "vault" and "--" not in str(caught.value)


def test_a_permission_error_says_read_for_a_file_that_is_there_and_write_for_one_being_made(tmp_path, monkeypatch):
    import os

    from vault_engine.errors import permission_denied

    config = tmp_path / "vault-engine.toml"
    config.write_text("")
    monkeypatch.setattr(os, "access", lambda path, mode: False)  # chmod 000 (root reads everything)
    assert str(permission_denied(str(config))) == (f"cannot read {config}: permission denied: make it readable "
                                                   "by this user (nothing of yours was changed)")
    assert str(permission_denied(str(tmp_path / "new.md"))).startswith(f"cannot write {tmp_path / 'new.md'}: ")
    # what to do, outside the index too: a checkpoint into a `chmod 555` folder said only "denied" (qa137)
    assert str(permission_denied(str(tmp_path / "new.md"))) == (
        f"cannot write {tmp_path / 'new.md'}: permission denied. Make its folder writable by this user, and run "
        "the command again (nothing of yours was changed)")


def test_a_message_quoting_something_huge_is_cut_in_the_middle_to_one_line():
    """A 1.1 MB ref made a 1.1 MB error (the CLI's stderr, an MCP tool error)."""
    from vault_engine.errors import MAX_MESSAGE_CHARS, one_line

    huge = one_line(f"no note {'a' * 100_000!r} in the index:\n run `vault-engine index`")
    assert len(huge) < MAX_MESSAGE_CHARS + 60 and "\n" not in huge
    assert huge.startswith("no note 'aaa") and huge.endswith("run `vault-engine index`")
    assert "characters cut" in huge and one_line("short  one") == "short one"

