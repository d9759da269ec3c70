"""The code tap's files: configuration, keys, and which files a scan finds or skips."""

import pytest

from vault_engine.config import parse_config
from vault_engine.errors import ConfigError
from vault_engine.sources.code.files import code_taps, scan_code, tap_of_key


def config_for(root, table: str):
    import tomllib

    return parse_config(root, tomllib.loads(table))


def test_a_typo_in_a_code_tap_is_an_error_naming_the_key(tmp_path):
    config = config_for(tmp_path, '[taps.code]\nsource = "code"\npaths = ["src/**"]\nexlude = ["x"]\n')
    with pytest.raises(ConfigError, match="taps.code.exlude is not a setting.*did you mean exclude"):
        code_taps(config)


def test_keys_are_root_relative_with_the_tap_name_in_front_outside_the_vault(tmp_path):
    vault, repo = tmp_path / "vault", tmp_path / "repo"
    vault.mkdir()
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "a.py").write_text("def f():\n    return 1\n")
    config = config_for(vault, '[taps.repo]\nsource = "code"\nroot = "../repo"\npaths = ["**"]\n')
    scan = scan_code(config)
    assert list(scan.files) == ["repo:pkg/a.py"]
    tap, rel = tap_of_key(code_taps(config), "repo:pkg/a.py")
    assert (tap.name, rel, tap.vault_rel) == ("repo", "pkg/a.py", None)


def test_the_vaults_own_folders_are_left_out_without_a_word(tmp_path):
    """A tap over the vault's root had said "skipped .vault-engine/: the vault-engine index:
    never indexed" at every index (qa113); .git and .obsidian are the vault's own too."""
    for rel in ("a.py", ".git/hooks/pre-commit.py", ".vault-engine/index/x.py", ".obsidian/plugin.js",
                "node_modules/dep/b.js"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x = 1\n")
    scan = scan_code(config_for(tmp_path, '[taps.code]\nsource = "code"\npaths = ["**"]\n'))
    assert sorted(scan.files) == ["a.py"]
    assert [p.path for p in scan.problems] == ["node_modules/"]  # a dependency folder is still said


def test_scan_skips_dependency_ignored_and_excluded_paths_and_says_why(tmp_path):
    files = {"src/a.py": "x = 1\n", "src/node_modules/dep/b.js": "x\n", "src/gen/c.py": "x\n",
             "src/d.tmp.py": "x\n", "src/e.txt": "not code\n", "src/tests/test_a.py": "x\n",
             "src/skip/f.py": "x\n", "src/.venv/pyvenv.cfg": "", "src/.venv/g.py": "x\n"}
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    (tmp_path / "src" / ".gitignore").write_text("gen/\n*.tmp.py\n")
    config = config_for(tmp_path, '[taps.code]\nsource = "code"\npaths = ["src/**"]\nexclude = ["src/skip/**"]\n')
    scan = scan_code(config)
    assert sorted(scan.files) == ["src/a.py", "src/tests/test_a.py"]
    reasons = {p.path: p.reason for p in scan.problems}
    assert reasons == {"src/node_modules/": "a dependency folder: never indexed",
                       "src/gen/": "ignored by .gitignore", "src/d.tmp.py": "ignored by .gitignore",
                       "src/.venv/": "a virtualenv: never indexed"}


def test_a_partial_scan_sees_only_the_paths_asked_for(tmp_path):
    for rel in ("src/a.py", "src/b.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x = 1\n")
    config = config_for(tmp_path, '[taps.code]\nsource = "code"\npaths = ["src/**"]\n')
    assert list(scan_code(config, {"src/b.py"}).files) == ["src/b.py"]
    assert scan_code(config, {"notes/x.md"}).files == {}


def test_the_vault_wide_exclude_applies_to_code_taps_inside_and_beside_the_vault(tmp_path):
    vault = tmp_path / "vault"
    for rel in ("vault/src/a.py", "vault/src/vendor/v.py", "vault/src/gen/g.py",
                "repo/pkg/b.py", "repo/pkg/generated/h.py", "repo/archive/w.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("def f():\n    return 1\n")
    config = config_for(vault, 'exclude = ["src/vendor/**", "**/generated/**", "archive/**", "src/gen/g.py"]\n'
                               '[taps.code]\nsource = "code"\npaths = ["src/**"]\n'
                               '[taps.repo]\nsource = "code"\nroot = "../repo"\npaths = ["**"]\n')
    # "archive/**" is the vault's own archive/ folder, not the repository's: globs are vault-relative
    assert sorted(scan_code(config).files) == ["repo:archive/w.py", "repo:pkg/b.py", "src/a.py"]
    tap, _ = tap_of_key(code_taps(config), "src/a.py")
    assert tap.excluded("src/vendor/") and not tap.owns("src/gen/g.py") and tap.owns("src/a.py")
    repo_tap = next(t for t in code_taps(config) if t.name == "repo")
    assert repo_tap.seen_from_vault == "../repo" and repo_tap.excluded("pkg/generated/h.py")


def vault_error(vault, path):
    from vault_engine.errors import UnknownRef

    try:
        vault.outline(path)
    except UnknownRef as exc:
        return str(exc)
    return ""


def test_a_source_file_is_skipped_in_the_words_of_code_and_a_symlink_loop_is_reported(make_vault):
    from vault_engine.vault import Vault

    root = make_vault({"src/latin.py": "# caf\xe9\ndef f():\n    pass\n".encode("latin-1"),
                       "src/bin.py": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "src/ok.py": "def ok():\n    pass\n"},
                      config='[taps.code]\nsource = "code"\npaths = ["src/**"]\n')
    (root / "src" / "loop.py").symlink_to("loop.py")
    (root / "src" / "link.py").symlink_to("ok.py")  # left out without a word, `outline` saying "run index" (qa159)
    (root / "src" / "sub").mkdir()
    (root / "src" / "sub" / "ok.py").write_text("def ok2():\n    pass\n")
    (root / "src" / "linked").symlink_to("sub")
    with Vault(root) as vault:
        skipped = {s.path: s.reason for s in vault.index(embed=False).skipped}
        left_out = vault_error(vault, "src/linked/ok.py")
    assert skipped == {"src/bin.py": "binary content in a .py file: rename it if it is not a source file",
                       "src/latin.py": "not UTF-8 (byte 0xe9 on line 1): re-save the source file as UTF-8",
                       "src/loop.py": "symlink loop: the link leads back to itself and never reaches a file; "
                                      "point it at a file or remove it",
                       "src/link.py": "a symbolic link: the code tap reads source files where they are, and what it "
                                      "leads to under its own path (a link may lead out of the repository)",
                       "src/linked/": "a symbolic link: the code tap reads source files where they are, and what it "
                                      "leads to under its own path (a link may lead out of the repository)",
                       # the vault's own scan, the tap being inside the vault, says it its way
                       "src/linked": "symlink loop: this folder is already indexed through another path; not followed "
                                     "again"}
    # a file under the linked folder says why, where it had said "run index" after every index (qa161)
    assert "skipped when indexed (inside src/linked/, a symbolic link" in left_out


def test_a_python_source_in_the_encoding_it_declares_is_read_as_python_reads_it(make_vault):
    """A valid Python file declaring latin-1 (PEP 263) was skipped as "not UTF-8", its
    symbols and calls gone (qa48); one declaring nothing, or wrongly, still is."""
    from vault_engine.vault import Vault

    declared = "# -*- coding: latin-1 -*-\n\"\"\"Caf\xe9.\"\"\"\n\n\ndef caf\xe9_menu():\n    return plain()\n\n\n" \
               "def plain():\n    return '\xe9t\xe9'\n"
    root = make_vault({"src/declared.py": declared.encode("latin-1"),
                       "src/lying.py": "# coding: utf-8\n# caf\xe9\n".encode("latin-1")},
                      config='[taps.code]\nsource = "code"\npaths = ["src/**"]\n')
    with Vault(root) as vault:
        skipped = {s.path: s.reason for s in vault.index(embed=False).skipped}
        assert skipped == {"src/lying.py": "not UTF-8 (byte 0xe9 on line 2): re-save the source file as UTF-8"}
        assert [h.ref for h in vault.find("caf\xe9_menu").hits] == ["src/declared.py#caf\xe9_menu"]
        assert [n.ref for n in vault.calls("plain").nodes] == ["src/declared.py#caf\xe9_menu"]


def test_a_code_tap_whose_paths_match_nothing_says_so_and_a_missing_root_names_its_tap(make_vault):
    """A tap of nothing was accepted without a word, and `search --kind code` then said "add a
    code tap" (qa48); a missing root was reported as "code:: taps.code.root ..."."""
    from vault_engine.vault import Vault

    root = make_vault({"src/a.py": "def f():\n    pass\n"},
                      config='[taps.code]\nsource = "code"\npaths = ["lib/**"]\n'
                             '[taps.gone]\nsource = "code"\nroot = "../nowhere"\npaths = ["**"]\n')
    with Vault(root) as vault:
        skipped = {s.path: s.reason for s in vault.index(embed=False).skipped}
    assert skipped == {
        "taps.code": f'paths "lib/**" match no source file under {root}: fix paths (globs under root) in '
                     "vault-engine.toml",
        "taps.gone": f"root {(root / '../nowhere').resolve()} is not a folder: fix root in vault-engine.toml"}
