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
