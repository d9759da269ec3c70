"""vault-engine.toml parsing and validation (vault_engine/config.py, paths.py)."""

import os
from pathlib import Path

import pytest

from vault_engine.config import check_keys, find_vault, load_config, parse_config
from vault_engine.errors import ConfigError, VaultNotFound
from vault_engine.paths import glob_match, glob_specificity

ROOT = Path("/v")


def taps(**tables):
    return parse_config(ROOT, {"taps": tables})


def test_defaults_without_a_config_file(tmp_path):
    config = load_config(tmp_path)
    assert config.tap_for("anything.md").name == "vault"
    notion = config.tap_for("notion/Page abc.md")
    assert (notion.name, notion.half_life_days, notion.floor) == ("notion", 14.0, 0.1)


def test_most_specific_rule_wins_and_vault_takes_the_rest():
    config = taps(specs={"paths": ["specs/**"], "half_life_days": 30, "floor": 0.2},
                  auth={"paths": ["specs/auth/**"], "half_life_days": 90})
    assert config.tap_for("specs/auth/tokens.md").name == "auth"
    assert config.tap_for("specs/other.md").name == "specs"
    assert config.tap_for("notes/x.md").name == "vault"


@pytest.mark.parametrize("table, key", [
    ({"paths": ["s/**"], "half_life_days": 0}, "taps.t.half_life_days"),
    ({"paths": ["s/**"], "half_life_days": -3}, "taps.t.half_life_days"),
    ({"paths": ["s/**"], "floor": 1.5}, "taps.t.floor"),
    ({"paths": ["s/**"], "floor": -0.1}, "taps.t.floor"),
    ({"paths": ["s/**"], "source": "gopher"}, "taps.t.source"),
    ({"paths": []}, "taps.t.paths"),
    ({"paths": "s/**", "half_life_days": "ten"}, "taps.t.half_life_days"),
])
def test_invalid_taps_name_the_key(table, key):
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        taps(t=table)


def test_overlapping_rules_of_equal_specificity_are_refused():
    with pytest.raises(ConfigError, match=r"taps\.b\.paths rule 'specs/\*\*' overlaps"):
        taps(a={"paths": ["specs/**"]}, b={"paths": ["specs/**"]})
    taps(a={"paths": ["specs/**"]}, b={"paths": ["notes/**"]})  # disjoint: fine


def test_a_code_tap_does_not_compete_with_the_vault_taps_rules():
    # Its globs are relative to its own root (here a repository beside the vault): "src/**"
    # there and "src/**" of a vault tap can never claim the same document.
    config = taps(repo={"source": "code", "root": "../repo", "paths": ["src/**"]},
                  specs={"paths": ["src/**"]})
    assert config.tap_for("src/design.md").name == "specs"
    with pytest.raises(ConfigError, match=r"taps\.b\.paths rule 'src/\*\*' overlaps"):
        taps(repo={"source": "code", "root": "../repo", "paths": ["src/**"]},
             a={"paths": ["src/**"]}, b={"paths": ["src/**"]})


def test_an_overlap_the_static_check_misses_is_caught_on_a_real_path():
    config = taps(a={"paths": ["specs/*"]}, b={"paths": ["*pecs/a"]})
    assert config.tap_for("specs/b").name == "a"
    with pytest.raises(ConfigError, match="both claim specs/a"):
        config.tap_for("specs/a")


def test_broken_toml_is_a_config_error(tmp_path):
    (tmp_path / "vault-engine.toml").write_text("[taps.x\n")
    with pytest.raises(ConfigError, match="vault-engine.toml"):
        load_config(tmp_path)


def test_a_value_nested_too_deeply_is_a_config_error_not_a_traceback(tmp_path):
    """tomllib recurses: 1,000 brackets were a RecursionError, and stopped a watcher (qa137)."""
    (tmp_path / "vault-engine.toml").write_text("a = " + "[" * 1000 + "]" * 1000 + "\n")
    with pytest.raises(ConfigError, match="vault-engine.toml: a value is nested too deeply to read; fix it there"):
        load_config(tmp_path)


def test_a_bom_is_let_pass_and_a_config_not_in_utf8_says_where_as_a_note_does(tmp_path):
    """A Windows editor's BOM was "Invalid statement (at line 1, column 1)", Latin-1 Python's
    codec wording (qa70)."""
    config = tmp_path / "vault-engine.toml"
    config.write_bytes(b'\xef\xbb\xbfexclude = ["private/**"]\n')
    assert load_config(tmp_path).exclude == ("private/**",)
    config.write_bytes(b"# caf\xe9\n")
    with pytest.raises(ConfigError) as refused:
        load_config(tmp_path)
    assert str(refused.value) == f"{config}: not UTF-8 (byte 0xe9 on line 1): re-save it as UTF-8"


@pytest.mark.parametrize("make, said", [
    (lambda p: p.symlink_to(p.name), "a link that leads nowhere"),  # a loop
    (lambda p: p.symlink_to(p.parent / "dotfiles" / "missing.toml"), "a link that leads nowhere"),
    (lambda p: p.mkdir(), "a folder"),
    (lambda p: os.mkfifo(p), r"a named pipe \(FIFO\)"),  # had been "a link that leads to no file" (qa139)
])
def test_a_config_that_is_no_file_is_refused_not_ignored(tmp_path, make, said):
    """Ignored, its `exclude` stopped applying and private notes were indexed."""
    make(tmp_path / "vault-engine.toml")
    assert find_vault(None, cwd=tmp_path) == tmp_path  # still marks the vault
    with pytest.raises(ConfigError, match=f"vault-engine.toml is {said}.*make it a file, or remove it"):
        load_config(tmp_path)


def test_globs():
    assert glob_match("specs/**", "specs/a/b.md")
    assert glob_match("**/*.md", "a.md") and glob_match("**/*.md", "x/y/a.md")
    assert not glob_match("specs/*.md", "specs/a/b.md")
    assert glob_match("projects/*/checkpoints/**", "projects/p/checkpoints/1.md")
    assert glob_specificity("specs/auth/**") > glob_specificity("specs/**")


def test_find_vault_order(tmp_path, monkeypatch):
    deep = tmp_path / "v" / "a" / "b"
    deep.mkdir(parents=True)
    (tmp_path / "v" / "vault-engine.toml").write_text("")
    monkeypatch.delenv("VAULT_ENGINE_VAULT", raising=False)
    assert find_vault(cwd=deep) == (tmp_path / "v").resolve()
    monkeypatch.setenv("VAULT_ENGINE_VAULT", str(tmp_path))
    assert find_vault(cwd=deep) == tmp_path.resolve()
    assert find_vault(str(deep)) == deep.resolve()
    with pytest.raises(VaultNotFound, match="does not exist"):
        find_vault(str(tmp_path / "missing"))
    with pytest.raises(VaultNotFound, match="--vault is empty"):  # `--vault "$VAULT"`, VAULT unset: not the cwd
        find_vault("", cwd=deep)


def template_settings() -> str:
    """The settings `init` writes commented out, uncommented: every `# key = value` and
    `# [table]` line of the template (prose lines are not of that shape)."""
    import re

    from vault_engine.config import DEFAULT_CONFIG_TEXT

    shaped = re.compile(r"# (\[[\w.-]+\]|[\w-]+ = \S.*)$")
    return "\n".join(m.group(1) for line in DEFAULT_CONFIG_TEXT.splitlines() if (m := shaped.match(line)))


def test_the_init_template_lists_every_table_and_is_valid_uncommented(tmp_path):
    import tomllib

    from vault_engine.config import TOP_LEVEL
    from vault_engine.vault import validate_settings

    raw = tomllib.loads(template_settings())
    assert sorted(raw) == sorted(TOP_LEVEL)
    assert {"specs", "notion", "code"} <= set(raw["taps"])
    validate_settings(parse_config(tmp_path, raw))  # every key is a setting, every value valid


@pytest.mark.parametrize("table, typo, right", [
    ("model", "thread", "threads"), ("search", "miss_cosine", "miss_cosine_floor"),
    ("deadend", "semantic_mn", "semantic_min"), ("checkpoint", "templat", "template"),
    ("watch", "debounce", "debounce_ms"), ("kinds", "specs", "spec"),
])
def test_every_table_refuses_an_unknown_key_naming_the_close_one(tmp_path, table, typo, right):
    from vault_engine.vault import validate_settings

    raw = {"model": {"enabled": False}}
    raw.setdefault(table, {})[typo] = 1
    with pytest.raises(ConfigError, match=rf"{table}\.{typo} is not a setting \(did you mean {right}\?\)"):
        validate_settings(parse_config(tmp_path, raw))


@pytest.mark.parametrize("source, typo, right", [
    ("vault", "half_life", "half_life_days"), ("notion", "page_id", "page_ids"), ("code", "roots", "root")])
def test_every_tap_refuses_an_unknown_key_naming_the_close_one(tmp_path, source, typo, right):
    from vault_engine.vault import validate_settings

    taps = {"t": {"source": source, "paths": ["t/**"], typo: 1}}
    with pytest.raises(ConfigError, match=rf"taps\.t\.{typo} is not a setting \(did you mean {right}\?\)"):
        validate_settings(parse_config(tmp_path, {"taps": taps}))


def test_the_vault_tap_is_the_vault_s_own_notes():
    with pytest.raises(ConfigError, match=r"taps\.vault\.source is 'code': the vault tap is the vault's own notes"):
        taps(vault={"source": "code"})
    assert taps(vault={"source": "vault", "half_life_days": 90}).tap("vault").half_life_days == 90


@pytest.mark.parametrize("value", [5, "", "/", ["projects"], "/tmp/abs_pd", "../outside", "work/../../x"])
def test_a_projects_dir_that_is_no_folder_name_is_refused(value):
    """An absolute one used to be read as relative (checkpoints went to vault/tmp/abs_pd/...),
    and one with ".." made its folders outside the vault before the write was refused."""
    with pytest.raises(ConfigError, match="projects_dir must be a folder name"):
        parse_config(ROOT, {"projects_dir": value})
    assert parse_config(ROOT, {"projects_dir": "work/"}).projects_dir == "work"


@pytest.mark.parametrize("table", [{"exclude": ["../**"]}, {"exclude": [""]}, {"exclude": ["/abs/**"]},
                                   {"kinds": {"spec": ["../specs/**"]}},
                                   {"taps": {"specs": {"paths": ["/specs/**"]}}}])
def test_a_glob_that_can_match_nothing_in_the_vault_is_refused(table):
    with pytest.raises(ConfigError, match="which matches nothing: globs are relative to the vault"):
        parse_config(ROOT, table)


def test_a_mistyped_key_of_a_notes_tap_is_named():
    """`path = [...]` said "taps.specs.paths is empty", not the key that was mistyped."""
    with pytest.raises(ConfigError, match=r"taps\.specs\.path is not a setting \(did you mean paths\?\)"):
        parse_config(ROOT, {"taps": {"specs": {"path": ["specs/**"]}}})


def test_a_code_tap_without_its_source_says_to_name_it():
    """`[taps.code]` with `root` but no `source = "code"` is a tap of notes, where `root` is
    no setting: the message said only that, and the README's own key looked wrong."""
    with pytest.raises(ConfigError, match=r'taps\.code\.root is not a setting.*name its source: source = "code"'):
        parse_config(ROOT, {"taps": {"code": {"root": "../repo", "paths": ["src/**"]}}})
    with pytest.raises(ConfigError, match=r"use one of floor, half_life_days, paths, source$"):
        parse_config(ROOT, {"taps": {"specs": {"source": "vault", "path": ["specs/**"]}}})
    with pytest.raises(ConfigError, match=r"did you mean paths\?\): use one of floor, half_life_days, paths, source$"):
        parse_config(ROOT, {"taps": {"specs": {"path": ["specs/**"]}}})  # a typo, not a missing source


def test_a_top_level_key_written_under_a_table_says_where_it_belongs():
    """`exclude` appended at the end of the file lands in the last table (qa87)."""
    with pytest.raises(ConfigError, match=r"model\.exclude is not a setting: use one of .*; exclude is a "
                                          r"top-level setting: move it above the first \[section\]"):
        check_keys({"enabled": False, "exclude": ["private/**"]}, "model.", ("enabled", "path"))
