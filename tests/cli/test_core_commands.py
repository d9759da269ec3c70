"""The CLI contract for the core commands (vault_engine/cli/core_commands.py, main.py)."""

import json
import os
import shutil

import pytest

from tests.conftest import SAMPLE_VAULT
from vault_engine import RELEASE
from vault_engine.cli.main import build_parser

NOTES = {
    "specs/auth.md": "---\ntype: spec\n---\n# Auth\nintro\n## Token refresh\nrefresh tokens rotate hourly; see [[session-store]]\n",
    "session-store.md": "# Session store\nsigned cookies, no server state. Back to [[auth#Token refresh]]\n",
    "loose.md": "links to [[nowhere]]\n",
}


@pytest.fixture
def vault(make_vault, cli):
    root = make_vault(NOTES)
    assert cli("--vault", root, "index", "--json").code == 0
    return root


def test_every_command_has_help_text():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    for name, command in sub.choices.items():
        assert command.description, f"{name} has no description"
        helps = [a.help for a in command._actions if a.dest not in ("help",)]
        assert all(helps), f"{name} has an option without help"
    assert {c.dest for c in sub._choices_actions} >= {"init", "index", "search", "show", "links", "status",
                                                      "reinforce", "decay"}


def test_a_command_line_builds_only_its_own_commands_and_help_builds_every_one():
    from vault_engine.cli.main import COMMANDS

    def choices(parser):
        return set(next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction").choices)

    assert choices(build_parser()) == set(COMMANDS)  # the map names every command, and only those
    for command, module in COMMANDS.items():
        built = choices(build_parser(["--vault", "find", "--json", command, "x"]))  # "find" is the vault here
        assert command in built and built <= {c for c, m in COMMANDS.items() if m == module}, command
    assert choices(build_parser(["--help", "find"])) == set(COMMANDS)
    assert choices(build_parser(["nosuchcommand"])) == set(COMMANDS)  # argparse lists them all
    assert choices(build_parser(["--json"])) == set(COMMANDS)


def test_index_json_report(make_vault, cli):
    result = cli("--vault", make_vault(NOTES), "index", "--json")
    data = result.json
    assert (result.code, data["new"], data["sections"], data["skipped"]) == (0, 3, 4, [])


def test_index_counts_notes_and_every_file_still_skipped_as_status_does_on_every_run(make_vault, cli):
    root = make_vault({**{f"n{i}.md": f"# Note {i}\nbody {i}\n" for i in range(10)},
                       "bin.md": b"abc\x00def", "latin1.md": "# Caf\xe9\n".encode("latin-1")})
    (root / "loopa.md").symlink_to("loopb.md")
    (root / "loopb.md").symlink_to("loopa.md")
    skipped = ["bin.md", "latin1.md", "loopa.md", "loopb.md"]
    for run, (new, unchanged) in enumerate([(10, 0), (0, 10), (0, 10)]):
        report = cli("--vault", root, "index", "--no-embed", "--json")
        status = cli("--vault", root, "status", "--json").json
        data = report.json
        assert (data["new"], data["unchanged"], data["modified"], data["deleted"]) == (new, unchanged, 0, 0), run
        assert [s["path"] for s in data["skipped"]] == [s["path"] for s in status["skipped_files"]] == skipped, run
        assert status["notes"] == 10 and status["skipped"] == 4
        assert [line.split(":")[1].strip() for line in report.err.splitlines()] == [f"skipped {p}" for p in skipped]
    text = cli("--vault", root, "index", "--no-embed")
    assert "0 new, 0 modified, 0 moved, 0 deleted, 10 unchanged; 10 sections; 4 skipped (see above)" in text.out
    (root / "latin1.md").write_text("# Cafe\n")  # mended: a new note
    (root / "bin.md").unlink()  # never a note: not a deleted one
    data = cli("--vault", root, "index", "--no-embed", "--json").json
    assert (data["new"], data["deleted"], data["unchanged"]) == (1, 0, 10)
    assert [s["path"] for s in data["skipped"]] == ["loopa.md", "loopb.md"]


def test_search_json_follows_the_contract(vault, cli):
    result = cli("--vault", vault, "search", "refresh tokens", "--lexical", "--json", "-k", "1")
    data = result.json
    assert (result.code, data["status"], data["arms"]) == (0, "hit", ["lexical"])
    (hit,) = data["hits"]
    assert set(hit) >= {"ref", "path", "heading", "kind", "tap", "project", "title", "snippet", "line_start",
                        "line_end", "score", "scores", "links", "via", "ruled_out"}
    assert hit["ruled_out"] == []
    assert set(hit["scores"]) == {"lexical", "semantic", "fused", "decay"}
    assert hit["ref"] == "specs/auth.md#Token refresh" and (hit["line_start"], hit["line_end"]) == (6, 7)
    assert hit["links"] == [{"raw": "[[session-store]]", "ref": "session-store.md", "resolved": True,
                             "ambiguous": False, "section_missing": False}]


def test_every_answer_says_how_confident_it_is(vault, cli):
    sure = cli("--vault", vault, "search", "refresh tokens rotate", "--lexical")
    assert sure.out.splitlines()[0] == "confidence high: the first hit holds every word of the query"
    unsure = cli("--vault", vault, "search", "refresh tokens quarterly", "--lexical", "--json").json
    assert (unsure["status"], unsure["confidence"]) == ("hit", "low")
    # of the first hit: a lower one may hold them all, and "no hit holds" told an agent to stop reading (qa27 F2)
    assert unsure["confidence_reason"] == "the first hit does not hold every word of the query"


def test_an_unknown_kind_or_project_is_a_usage_error_not_a_miss(vault, cli):
    result = cli("--vault", vault, "search", "refresh", "--kind", "specs", "--lexical")
    assert result.code == 1 and result.err.count("\n") == 1 and "kinds are: checkpoint" in result.err


def test_a_miss_filtered_by_a_kind_no_note_is_of_says_so(vault, cli):
    """`--kind decision` on a vault without decision records answered a bare miss."""
    miss = cli("--vault", vault, "search", "refresh", "--kind", "decision", "--lexical", "--json").json
    assert miss["status"] == "miss"
    (notice,) = miss["notices"]
    assert notice.startswith("no note of kind 'decision' is indexed (the vault's notes are of kinds: ")
    code = cli("--vault", vault, "search", "refresh", "--kind", "code", "--lexical", "--json").json
    assert code["status"] == "miss" and code["notices"] == [
        "no source file is indexed: add a code tap ([taps.code] in vault-engine.toml) and run `vault-engine index`"]
    assert code["confidence_reason"] == "no section the filters leave matched the query"  # not "only the meaning matched"


def test_a_code_miss_with_a_code_tap_of_nothing_names_the_tap_not_a_missing_one(make_vault, cli):
    """`--kind code` said "add a code tap" to a vault whose tap matched no file (qa48)."""
    root = make_vault({"notes/a.md": "# A\nrefresh tokens\n"},
                      config='[taps.code]\nsource = "code"\npaths = ["lib/**"]\n')
    cli("--vault", root, "index", "--no-embed")
    code = cli("--vault", root, "search", "refresh", "--kind", "code", "--lexical", "--json").json
    assert code["status"] == "miss" and code["notices"] == [
        "no source file is indexed: the code tap(s) code hold none (their root or paths: `vault-engine index` "
        "names what it skipped)"]


def test_a_miss_filtered_by_filters_no_note_passes_together_says_so(make_vault, cli):
    # `--kind code --project P` can never match, and answered a bare miss (qa24 #5)
    root = make_vault({**NOTES, "projects/p/working/w.md": "# W\nrefresh the cache nightly\n"})
    assert cli("--vault", root, "index").code == 0
    miss = cli("--vault", root, "search", "refresh", "--kind", "spec", "--project", "p", "--lexical", "--json").json
    assert miss["status"] == "miss" and miss["notices"] == [
        "no note is --kind spec and --project p at once: the miss is the filters', not the vault's; drop one of them"]
    alone = cli("--vault", root, "search", "quarterly", "--kind", "spec", "--lexical", "--json").json
    assert alone["status"] == "miss" and alone["notices"] == []  # one filter that holds notes: the vault's miss


def test_json_flag_works_before_the_command_too(vault, cli):
    result = cli("--json", "--vault", vault, "search", "refresh", "--lexical")
    assert result.json["status"] == "hit"


def test_a_miss_is_exit_zero(vault, cli):
    result = cli("--vault", vault, "search", "zebra", "--lexical", "--json")
    assert (result.code, result.json["status"], result.json["hits"]) == (0, "miss", [])
    human = cli("--vault", vault, "search", "zebra", "--lexical")
    # and why, as JSON's confidence_reason says (it was in JSON only, qa105)
    assert human.out == "no match for 'zebra' (lexical): a miss, not a guess (no section matched the query)\n"


@pytest.mark.parametrize("query", ["the and of a to is", "!!!???...,,,"])
def test_a_words_search_for_no_word_is_a_usage_error_not_a_miss(vault, cli, query):
    """Nothing was searched: "a miss, not a guess" told an agent nothing exists."""
    refused = cli("--vault", vault, "search", query, "--lexical", "--json")
    assert refused.code == 2 and "holds no word the words index searches" in refused.err and refused.out == ""


def test_a_miss_on_a_stale_index_says_so_and_what_to_do(vault, cli):
    with (vault / "session-store.md").open("a") as note:
        note.write("## Hedgehogs\nhedgehogs roll up\n")
    miss = cli("--vault", vault, "search", "hedgehogs", "--lexical", "--json")
    assert miss.json["status"] == "miss"
    (notice,) = miss.json["notices"]
    assert notice.startswith("the index is stale: 1 changed, 0 missing since the last index") \
        and notice.endswith("run `vault-engine index` and search again")
    text = cli("--vault", vault, "search", "hedgehogs", "--lexical")
    assert text.err == f"vault-engine: {notice}\n" and "a miss, not a guess" in text.out
    hit = cli("--vault", vault, "search", "signed cookies", "--lexical", "--json").json
    assert hit["status"] == "hit"  # a hit costs no scan of the vault: only its notes are looked at
    assert hit["notices"] == ["1 note(s) of this answer changed since the last index (session-store.md): run "
                              "`vault-engine index` and search again"]
    unchanged = cli("--vault", vault, "search", "rotate", "--lexical", "--json").json
    assert "session-store.md" not in {h["path"] for h in unchanged["hits"]} and unchanged["notices"] == []
    (vault / "loose.md").unlink()
    (notice,) = cli("--vault", vault, "search", "hedgehogs", "--lexical", "--json").json["notices"]
    assert notice.startswith("the index is stale: 1 changed, 1 missing since the last index")
    cli("--vault", vault, "index", "--no-embed")
    assert cli("--vault", vault, "search", "hedgehogs", "--lexical", "--json").json["status"] == "hit"
    fresh = cli("--vault", vault, "search", "wombats", "--lexical", "--json").json
    assert fresh["status"] == "miss" and fresh["notices"] == []  # a miss on a fresh index is the answer


def test_a_skipped_file_touched_copied_or_deleted_leaves_the_index_fresh(vault, cli, tmp_path):
    """An unreadable file holds no answer: its new stat made every miss say "the answer may be
    there; run index", which changed nothing."""
    latin = vault / "latin1.md"
    latin.write_bytes(b"# Caf\xe9\nno UTF-8 here\n")
    cli("--vault", vault, "index", "--no-embed")
    assert [f["path"] for f in cli("--vault", vault, "status", "--json").json["skipped_files"]] == ["latin1.md"]
    os.utime(latin, ns=(1, 1))
    latin.write_bytes(latin.read_bytes() + b"still \xe9\n")  # still not UTF-8: new stat, new bytes
    assert cli("--vault", vault, "status", "--json").json["stale"] == {"changed": 0, "missing": 0, "new": 0, "paths": [], "settings": False}
    miss = cli("--vault", vault, "search", "wombats", "--lexical", "--json").json
    # no "run index" (it changes nothing), but the file the answer may be in, and where to see why (qa70)
    assert miss["status"] == "miss" and miss["notices"] == [
        "1 file(s) were not indexed at the last index (e.g. latin1.md: not UTF-8 (byte 0xe9 on line 1): re-save the "
        "note as UTF-8); the answer may be in them: `vault-engine status` lists them and why"]
    copy = tmp_path / "copy"
    shutil.copytree(vault, copy)  # new times on every file
    assert cli("--vault", copy, "status", "--json").json["stale"] == {"changed": 0, "missing": 0, "new": 0, "paths": [], "settings": False}
    latin.unlink()
    gone = cli("--vault", vault, "status", "--json").json
    assert gone["stale"] == {"changed": 0, "missing": 0, "new": 0, "paths": [], "settings": False} and gone["skipped_files"] == []  # nothing left out
    (copy / "latin1.md").write_text("# Cafe\nwombats, now readable\n", encoding="utf-8")  # fixed: its words count
    assert cli("--vault", copy, "status", "--json").json["stale"] == {"changed": 1, "missing": 0, "new": 0,
                                                                       "paths": ["latin1.md"], "settings": False}


def test_a_miss_under_a_running_watcher_asks_for_no_index(vault, cli, live_watcher):
    live_watcher(vault)
    (vault / "hedgehogs.md").write_text("# Hedgehogs\nhedgehogs roll up\n")
    miss = cli("--vault", vault, "search", "hedgehogs", "--lexical", "--json", "--no-daemon").json
    assert miss["status"] == "miss" and not any("stale" in n for n in miss["notices"])


def test_a_miss_under_a_watcher_whose_last_edit_failed_says_the_index_is_stale(vault, cli, live_watcher):
    # a watcher that could not write its index (read-only) kept "a miss, not a guess" unqualified
    from vault_engine.config import load_config
    from vault_engine.indexing.watch_state import write_health

    live_watcher(vault)
    write_health(load_config(vault), {"pid": 4242, "release": RELEASE, "started": 1.0, "state": "watching",
                                      "last_applied": 5.0,
                                      "errors": [{"at": 9.0, "message": "cannot write ...: permission denied"}]})
    (vault / "hedgehogs.md").write_text("# Hedgehogs\nhedgehogs roll up\n")
    miss = cli("--vault", vault, "search", "hedgehogs", "--lexical", "--json", "--no-daemon").json
    assert miss["status"] == "miss" and any(n.startswith("the index is stale") for n in miss["notices"])


def test_a_miss_while_the_watcher_catches_up_says_so(vault, cli, live_watcher):
    """After a pull, the watcher catching up: a miss said nothing for the whole catch-up (qa39 F1)."""
    from vault_engine.config import load_config
    from vault_engine.indexing.watch_state import write_health

    live_watcher(vault)
    write_health(load_config(vault), {"pid": 4242, "release": RELEASE, "started": 1.0, "state": "catching-up",
                                      "pending": 0})
    (vault / "hedgehogs.md").write_text("# Hedgehogs\nhedgehogs roll up\n")
    miss = cli("--vault", vault, "search", "hedgehogs", "--lexical", "--json", "--no-daemon").json
    assert miss["status"] == "miss"
    assert miss["notices"] == ["the running watcher is catching up on changes made while it was not running "
                               "(the answer may be there): search again in a moment"]


def test_a_miss_while_the_watcher_applies_a_batch_says_so(vault, cli, live_watcher):
    """A watcher busy with a long batch answers `busy`, and the command answers from the index
    as it stands: its miss had said nothing of a note saved just before it (qa161)."""
    from vault_engine.config import load_config
    from vault_engine.indexing.watch_state import write_health

    live_watcher(vault)
    write_health(load_config(vault), {"pid": 4242, "release": RELEASE, "started": 1.0, "state": "watching",
                                      "pending": 124})
    (vault / "hedgehogs.md").write_text("# Hedgehogs\nhedgehogs roll up\n")
    miss = cli("--vault", vault, "search", "hedgehogs", "--lexical", "--json", "--no-daemon").json
    assert miss["status"] == "miss" and miss["notices"] == [
        "the running watcher is applying changes to the index (the answer may be there): search again in a moment"]


def test_no_index_under_a_running_watcher_says_it_is_being_built(vault, cli, live_watcher):
    """The index deleted under a watcher: "run `vault-engine index` first" while it rebuilt (qa39 F3)."""
    import shutil

    from vault_engine.layout import HEALTH_FILE, PID_FILE

    live_watcher(vault)
    for entry in (vault / ".vault-engine").iterdir():
        if entry.name not in (HEALTH_FILE, PID_FILE):  # the watcher's own files stay
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
    done = cli("--vault", vault, "search", "hedgehogs", "--lexical", "--no-daemon")
    assert done.code == 1 and "the running watcher is building it; ask again in a moment" in done.err, done.err
    # once it has begun a new generation (none live yet): still being built, not damage to
    # repair by hand, which started a second writer beside it (qa49)
    building = vault / ".vault-engine" / "index" / "g1790000000-4242"
    building.mkdir(parents=True)
    (building / "vectors.faiss").write_bytes(b"")  # its caches carried over, its ledger not yet
    said = cli("--vault", vault, "status", "--no-daemon")
    assert "the running watcher is building it" in said.err and "damaged" not in said.err, said.err


def test_show_note_and_section(vault, cli):
    section = cli("--vault", vault, "show", "specs/auth.md#token REFRESH", "--json").json
    assert section["heading"] == "Token refresh" and section["text"].startswith("## Token refresh")
    note = cli("--vault", vault, "show", "specs/auth", "--json").json
    assert note["text"] == NOTES["specs/auth.md"] and note["sections"] == ["Auth", "Token refresh"]
    assert NOTES["specs/auth.md"].endswith("\n")  # its last line ends the file: no line after it
    assert (note["line_start"], note["line_end"]) == (1, len(NOTES["specs/auth.md"].splitlines()))
    assert "rotate hourly" in cli("--vault", vault, "show", "specs/auth.md#Token refresh").out


def test_show_says_in_one_line_when_the_file_changed_since_the_last_index(vault, cli):
    ref = "specs/auth.md#Token refresh"
    current = cli("--vault", vault, "show", ref, "--json")
    assert current.err == "" and current.json["notices"] == []
    path = vault / "specs" / "auth.md"
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))
    assert cli("--vault", vault, "show", ref).err == ""  # touched, not changed
    path.write_text(NOTES["specs/auth.md"].replace("hourly", "daily"))
    shown = cli("--vault", vault, "show", ref)
    assert "rotate hourly" in shown.out and "vault-engine:" not in shown.out  # the indexed text; stdout is data
    (line,) = shown.err.splitlines()
    assert line.startswith("vault-engine: specs/auth.md changed since the last index: this section is shown "
                           "as it was indexed; run `vault-engine index`")
    as_json = cli("--vault", vault, "show", ref, "--json")
    assert as_json.json["notices"] == [line.removeprefix("vault-engine: ")]
    whole = cli("--vault", vault, "show", "specs/auth.md", "--json")
    assert "daily" in whole.json["text"] and "the text is the file as it is now" in whole.json["notices"][0]


@pytest.mark.parametrize("how", ["deleted", "moved"])
def test_show_of_a_whole_note_gone_since_the_index_gives_its_indexed_text_as_a_section_does(vault, cli, how):
    path = vault / "specs" / "auth.md"
    if how == "deleted":
        path.unlink()
    else:
        (vault / "specs").rename(vault / "old-specs")
    section = cli("--vault", vault, "show", "specs/auth.md#Token refresh")
    whole = cli("--vault", vault, "show", "specs/auth.md")
    assert whole.code == 0 and "Errno" not in whole.err
    assert "# Auth\nintro\n## Token refresh\nrefresh tokens rotate hourly" in whole.out
    assert whole.err == section.err  # the same one notice
    (line,) = whole.err.splitlines()
    assert line.startswith("vault-engine: specs/auth.md is gone (moved or deleted) since the last index: "
                           "this is its indexed text; run `vault-engine index`")
    as_json = cli("--vault", vault, "show", "specs/auth.md", "--json").json
    assert as_json["notices"] == [line.removeprefix("vault-engine: ")]
    assert (as_json["line_start"], as_json["line_end"]) == (4, 7) and as_json["frontmatter"] == {"type": "spec"}


def test_show_of_a_note_that_cannot_be_read_says_so_not_that_it_is_gone(vault, cli, monkeypatch):
    """`chmod 000` on a note: `show` said it was "gone (moved or deleted)" and to run `index`,
    which then dropped it from the index (qa137). (Patched: root reads any file.)"""
    from pathlib import Path

    path = vault / "specs" / "auth.md"
    os.utime(path, ns=(1, 1))  # its stat no longer what was indexed: its bytes are read
    read_bytes, read_text = Path.read_bytes, Path.read_text

    def denied(reader):
        def read(self, *args, **kwargs):
            if self == path:
                raise PermissionError(13, "Permission denied", str(self))
            return reader(self, *args, **kwargs)
        return read

    monkeypatch.setattr(Path, "read_bytes", denied(read_bytes))
    monkeypatch.setattr(Path, "read_text", denied(read_text))
    section = cli("--vault", vault, "show", "specs/auth.md#Token refresh")
    assert section.code == 0 and "refresh tokens rotate hourly" in section.out
    assert section.err == ("vault-engine: specs/auth.md cannot be read (permission denied): this is its indexed "
                           "text; make it readable again (an `index` meanwhile leaves it out)\n")
    hit = cli("--vault", vault, "search", "refresh tokens rotate", "--lexical", "--json").json
    assert "1 note(s) of this answer cannot be read (permission denied) (specs/auth.md): make them readable " \
           "again" in hit["notices"]


def test_show_of_a_changed_file_under_a_running_watcher_asks_for_nothing(vault, cli, live_watcher):
    live_watcher(vault)
    (vault / "session-store.md").write_text("# Session store\nserver-side sessions now\n")
    (notice,) = cli("--vault", vault, "show", "session-store.md#Session store", "--json", "--no-daemon").json["notices"]
    assert notice.endswith("the running watcher indexes it in a moment") and "vault-engine index" not in notice
    (vault / "session-store.md").unlink()
    (notice,) = cli("--vault", vault, "show", "session-store.md#Session store", "--json", "--no-daemon").json["notices"]
    assert notice.startswith("session-store.md is gone (moved or deleted) since the last index")


def test_show_of_a_symlink_out_of_the_vault_asks_for_index_even_under_a_watcher(make_vault, cli, live_watcher,
                                                                                  tmp_path):
    # no event of the vault names a file outside it: the watcher never indexes its change
    outside = tmp_path / "elsewhere.md"
    outside.write_text("# Far\nfar away\n")
    root = make_vault({"a.md": "# A\n"}, config="outside_symlinks = true\n[model]\nenabled = false\n")
    (root / "far.md").symlink_to(outside)
    assert cli("--vault", root, "index").code == 0
    live_watcher(root)
    outside.write_text("# Far\nfarther now\n")
    (notice,) = cli("--vault", root, "show", "far.md", "--json", "--no-daemon").json["notices"]
    assert notice.endswith("run `vault-engine index` to bring the index up to date")


def test_links_backlinks_and_all(vault, cli):
    out = cli("--vault", vault, "links", "specs/auth.md", "--json").json["links"]
    assert [(link["raw"], link["target"]) for link in out] == [("[[session-store]]", "session-store.md")]
    back = cli("--vault", vault, "links", "specs/auth.md#Token refresh", "--backlinks", "--json").json["links"]
    assert [(link["source"], link["raw"]) for link in back] == [("session-store.md", "[[auth#Token refresh]]")]
    every = cli("--vault", vault, "links", "--all", "--json").json["links"]
    assert {tuple(sorted(link)) for link in every} == {
        ("ambiguous", "line", "raw", "ref", "resolved", "section_missing", "source", "target")}
    assert [link["raw"] for link in every if not link["resolved"]] == ["[[nowhere]]"]


def test_an_attachment_ref_is_named_as_such_and_its_backlinks_are_listed(make_vault, cli):
    # search lists `Templates/Bases/Books.base` under hits; `show` said "run vault-engine index"
    root = make_vault({"Bases/Books.base": "views: []\n", "Books.md": "# Books\n![[Books.base]]\n",
                       "Templates/Views/Reading.base": "views: []\n"},
                      config="[model]\nenabled = false\n")
    assert cli("--vault", root, "index").code == 0
    shown = cli("--vault", root, "show", "Bases/Books.base")
    assert shown.code == 1 and "Bases/Books.base is an attachment, not a note" in shown.err
    assert "run `vault-engine index`" not in shown.err
    back = cli("--vault", root, "links", "Bases/Books.base", "--backlinks", "--json").json["links"]
    assert [(link["source"], link["raw"]) for link in back] == [("Books.md", "![[Books.base]]")]
    reinforced = cli("--vault", root, "reinforce", "Bases/Books.base")  # not show's "no sections to show"
    assert reinforced.code == 1 and "is an attachment: only notes decay and are reinforced" in reinforced.err
    # a path that drops the first folders names the file it may mean (qa102: kepano keeps
    # it under Templates/, and the README's example said "no such file in the vault")
    partial = cli("--vault", root, "links", "Views/Reading.base", "--backlinks")
    assert partial.code == 1
    assert "no note 'Views/Reading.base' in the index; refs are vault-relative paths: did you mean " \
           "Templates/Views/Reading.base?" in partial.err
    by_name = cli("--vault", root, "links", "reading.base", "--backlinks")  # as a note embeds it
    assert "did you mean Templates/Views/Reading.base?" in by_name.err
    heading_only = cli("--vault", root, "show", "#Books")  # said "no note ''"
    assert heading_only.code == 1 and "the ref names no note: a ref is a note's path, then its #heading" \
        in heading_only.err


@pytest.mark.parametrize("args, said", [
    ([], "one of the arguments ref --all is required"),
    (["specs/auth.md", "--all"], "argument --all: not allowed with argument ref"),  # the REF was ignored
    (["--all", "--backlinks"], "--backlinks takes a REF"),
])
def test_links_refuses_forms_that_would_ignore_part_of_the_command(vault, cli, args, said):
    refused = cli("--vault", vault, "links", *args)
    assert refused.code == 2 and said in refused.err and refused.out == ""
    assert refused.err.startswith("usage: vault-engine links ")  # the handler's own usage errors too


def test_a_link_to_a_missing_heading_or_block_resolves_and_says_so(make_vault, cli):
    root = make_vault({"Dup.md": "# Dup\n## Real\ntext ^here\n",
                       "x.md": "[[Dup#nonexistent heading]] [[Dup#^noblock]] [[Dup#Real]] [[Dup#^here]]\n"})
    assert cli("--vault", root, "index", "--json").code == 0
    out = cli("--vault", root, "links", "x.md", "--json").json["links"]
    assert [(link["target"], link["section_missing"]) for link in out] == [
        ("Dup.md", True), ("Dup.md", True), ("Dup.md", False), ("Dup.md", False)]
    text = cli("--vault", root, "links", "x.md").out
    assert "[[Dup#nonexistent heading]] -> Dup.md#nonexistent heading (no such heading)" in text
    assert "[[Dup#^noblock]] -> Dup.md#^noblock (no such block)" in text
    status = cli("--vault", root, "status", "--json").json
    assert (status["unresolved_links"], status["section_missing_links"]) == (0, 2)
    assert [(item["raw"], item["missing"]) for item in status["section_missing"]] == [
        ("[[Dup#nonexistent heading]]", "heading"), ("[[Dup#^noblock]]", "block")]
    assert "no block   x.md:1 [[Dup#^noblock]]" in cli("--vault", root, "status").out
    assert "── 4 links, 0 unresolved, 2 to a missing heading or block" in cli("--vault", root, "show", "x.md").out
    assert cli("--vault", root, "show", "Dup.md#nonexistent heading").code == 1  # what the flag warns of


def test_status_names_a_memory_note_without_a_facet_as_such(make_vault, cli):
    # "unknown facet None": Python's None in a person's output
    root = make_vault({"memory/a.md": "---\ntype: memory\n---\n# A\nx\n",
                       "memory/b.md": "---\ntype: memory\nfacet: vibes\n---\n# B\ny\n"},
                      config="[model]\nenabled = false\n")
    assert cli("--vault", root, "index").code == 0
    out = cli("--vault", root, "status").out
    assert "memory/a.md: no facet" in out and "memory/b.md: unknown facet 'vibes'" in out and "None" not in out


def test_status_lists_the_first_twenty_memory_notes_without_a_facet_and_counts_the_rest(make_vault, cli):
    """1,000 "no facet" lines buried everything after them (qa82)."""
    root = make_vault({f"memory/m{n:02}.md": "---\ntype: memory\n---\n# M\nx\n" for n in range(25)},
                      config="[model]\nenabled = false\n")
    assert cli("--vault", root, "index").code == 0
    lines = [line for line in cli("--vault", root, "status").out.splitlines() if line.startswith("facet")]
    assert len(lines) == 21 and lines[-1] == "facet      ... and 5 more memory notes with no known facet (--json lists all)"
    assert len(json.loads(cli("--vault", root, "status", "--json").out)["memory"]["unknown_facet"]) == 25


def test_status_names_notes_whose_project_is_not_their_folders(make_vault, cli):
    # `mv projects/mobile-sync projects/field-sync`: the notes kept `project: mobile-sync`, the new
    # name's brief showed none of its history, and nothing said why
    root = make_vault({"projects/field-sync/checkpoints/a.md": "---\nproject: mobile-sync\n---\n# C\n## Summary\ns\n",
                       "projects/field-sync/checkpoints/b.md": "---\nproject: field-sync\n---\n# C\n## Summary\ns\n"},
                      config="[model]\nenabled = false\n")
    assert cli("--vault", root, "index").code == 0
    status = cli("--vault", root, "status", "--json").json
    assert status["project_elsewhere"] == [{"path": "projects/field-sync/checkpoints/a.md",
                                            "project": "mobile-sync", "folder": "field-sync"}]
    assert "1 note(s) under a project folder say another project" in cli("--vault", root, "status").out


def test_status_json(vault, cli):
    data = cli("--vault", vault, "status", "--json").json
    assert (data["notes"], data["sections"], data["unresolved_links"]) == (3, 4, 1)
    assert data["stale"] == {"changed": 0, "missing": 0, "new": 0, "paths": [], "settings": False} and data["lexical"]["agrees"]
    (vault / "new.md").write_text("fresh")
    assert cli("--vault", vault, "status", "--json").json["stale"] == {"changed": 1, "missing": 0, "new": 1,
                                                                       "paths": ["new.md"], "settings": False}
    (vault / "loose.md").unlink()  # after a pull, which files: the counts alone left a team guessing (qa25 #9)
    assert cli("--vault", vault, "status", "--json").json["stale"]["paths"] == ["loose.md", "new.md"]
    # a file written since is new, not changed (a brief's notice called a teammate's pulled notes "changed")
    assert "stale      1 new, 0 changed, 1 missing since the last index: loose.md, new.md" in \
        cli("--vault", vault, "status").out
    (vault / "session-store.md").write_text("# Session store\nedited since the last index\n")
    assert "stale      1 new, 1 changed, 1 missing since the last index: loose.md, new.md, session-store.md" in \
        cli("--vault", vault, "status").out


def test_reinforce_and_decay(vault, cli):
    done = cli("--vault", vault, "reinforce", "specs/auth.md#Token refresh", "--by", "me", "--why", "useful", "--json")
    assert done.code == 0 and done.json["path"] == "specs/auth.md"
    line = json.loads((vault / ".vault-engine/ledger/reinforcements.jsonl").read_text())
    assert (line["path"], line["by"], line["why"]) == ("specs/auth.md", "me", "useful")
    assert cli("--vault", vault, "decay", "--json").json == {"documents": []}  # no decaying tap configured
    # ...so the note's rank is as before, and the answer says so: "its age starts again" (qa74)
    assert (done.json["tap"], done.json["decays"]) == ("vault", False)
    said = cli("--vault", vault, "reinforce", "specs/auth.md", "--by", "me", "--why", "again").out
    assert said == "reinforced specs/auth.md: recorded, but its tap (vault) does not decay: its rank is as before\n"


def test_decay_names_a_notion_page_by_its_title_beside_its_id(tmp_path, cli):
    """Rows of `notion://918f...` named no page a person knows (qa68)."""
    root = tmp_path / "sample"
    shutil.copytree(SAMPLE_VAULT, root)
    cli("--vault", root, "index", "--no-embed")
    rows = {row["ref"]: row for row in cli("--vault", root, "decay", "--json").json["documents"]}
    ref, row = next((ref, row) for ref, row in rows.items() if ref.startswith("notion://"))
    line = next(line for line in cli("--vault", root, "decay").out.splitlines() if ref in line)
    assert f"{ref}  {row['title']}  " in line, line
    done = cli("--vault", root, "reinforce", ref, "--by", "qa", "--why", "t")  # its confirmation too (qa71)
    assert done.out == f"reinforced {ref}  {row['title']}: its age starts again from now\n", done.out


def test_errors_are_one_line_with_exit_one(vault, cli):
    result = cli("--vault", vault, "show", "nope.md")
    assert result.code == 1 and result.out == ""
    assert result.err.count("\n") == 1 and result.err.startswith("vault-engine: no note 'nope.md'")


def test_usage_errors_exit_two(vault, cli):
    assert cli("--vault", vault, "links").code == 2
    assert cli("--vault", vault, "search").code == 2
    assert cli("frobnicate").code == 2


def _command_lines(parser, words=()):
    """(prog, argv) for every command and action of the CLI, positionals and required
    options filled in."""
    sub = next((a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction"), None)
    if sub is not None:
        for name, child in sub.choices.items():
            yield from _command_lines(child, (*words, name))
        return
    filled = [str(next(iter(a.choices))) if a.choices else "1" for a in parser._actions
              if not a.option_strings and a.nargs not in ("?", "*")]
    filled += [word for a in parser._actions if a.option_strings and a.required for word in (a.option_strings[0], "1")]
    for group in parser._mutually_exclusive_groups:  # `links`: a REF or --all, one of them
        first = group._group_actions[0]
        filled += [first.option_strings[0]] if group.required and first.option_strings else []
        filled += ["1"] if group.required and not first.option_strings else []
    yield parser.prog, [*words, *filled]


def test_an_unknown_option_of_a_command_shows_that_commands_usage(cli):
    lines = list(_command_lines(build_parser()))
    assert len(lines) > 20  # every command and action: deadend check, notion import...
    for prog, argv in lines:
        result = cli(*argv, "--bogus")
        assert "unrecognized arguments: --bogus" in result.err, argv
        if argv[0] == "hook":  # never blocks the person: its own one line, exit 0
            assert result.code == 0 and "vault-engine hook" in result.err
        else:
            assert result.code == 2 and f"usage: {prog} " in result.err, (argv, result.err)
    before = cli("--bogus", "search", "x")  # before the command it is the top level's
    assert before.code == 2 and "usage: vault-engine [-h]" in before.err


def test_a_query_that_starts_with_a_dash_is_told_to_follow_the_double_dash(vault, cli):
    """`search "--list-marker-color"` (a CSS variable) said only that the query was missing (qa28 F9)."""
    dashed = cli("--vault", vault, "search", "--list-marker-color")
    assert dashed.code == 2 and dashed.err.rstrip().endswith(
        "the following arguments are required: query (a query that starts with '-' goes after '--': "
        "vault-engine search -- --list-marker-color)")
    assert cli("--vault", vault, "search", "--lexical", "--", "--list-marker-color").code == 0
    with_options = cli("--vault", vault, "search", "-k", "2", "--list-marker-color", "--lexical")  # kept (qa53)
    assert with_options.err.rstrip().endswith("goes after '--': vault-engine search -k 2 --lexical -- --list-marker-color)")
    typo = cli("--vault", vault, "search", "tokens", "--bogus")  # a query given: an unknown option, no hint
    assert typo.err.rstrip().endswith("unrecognized arguments: --bogus")


def test_a_query_of_several_unquoted_words_is_told_to_quote_them(vault, cli):
    """`search retry webhooks` said only "unrecognized arguments: webhooks" (qa48)."""
    words = cli("--vault", vault, "search", "retry", "--lexical", "the", "webhooks", "-k", "3")
    assert words.code == 2 and words.err.rstrip().endswith(  # its options kept (--lexical had been dropped, qa157)
        "unrecognized arguments: the webhooks (a query of several words goes in quotes: "
        f"vault-engine --vault {vault} search --lexical -k 3 'retry the webhooks')")  # --vault too (qa161)
    proposal = cli("--vault", vault, "deadend", "check", "retry", "inline")
    assert proposal.err.rstrip().endswith("(a proposal of several words goes in quotes: "
                                          f"vault-engine --vault {vault} deadend check 'retry inline')")
    assert cli("--vault", vault, "show", "a.md", "b.md").err.rstrip().endswith("unrecognized arguments: b.md")
    # after "--" an option is the query's word: it goes before "--", not into the quotes (qa52)
    dashed = cli("--vault", vault, "search", "--", "--list-marker-color", "-k", "2")
    assert dashed.code == 2 and dashed.err.rstrip().endswith(
        "unrecognized arguments: -k 2 (options go before '--': vault-engine search -k 2 -- --list-marker-color)")


def test_search_before_index_says_what_to_do(make_vault, cli):
    result = cli("--vault", make_vault({"a.md": "x"}), "search", "x", "--lexical")
    assert result.code == 1 and "run `vault-engine index` first" in result.err


def test_init_writes_a_commented_config_once(tmp_path, cli):
    assert cli("init", tmp_path).code == 0
    text = (tmp_path / "vault-engine.toml").read_text()
    assert "[taps.specs]" in text and "half_life_days = 30" in text
    assert cli("init", tmp_path).code == 1  # never overwrites
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "vault-engine.toml").mkdir()  # "already exists: edit it" had been said of a folder (qa137)
    assert cli("init", tmp_path / "b").err == (f"vault-engine: {tmp_path / 'b' / 'vault-engine.toml'} is a folder "
                                               "where vault-engine keeps its settings file: move it aside, then run "
                                               "init again\n")


def test_init_in_a_git_repository_says_how_to_keep_the_index_out_of_it(tmp_path, cli):
    """`git status` listed `.vault-engine/` after the first index, and nothing said what to do (qa90)."""
    (tmp_path / ".git").mkdir()
    vault = tmp_path / "notes"
    vault.mkdir()
    said = cli("init", str(vault))
    assert said.code == 0 and "`.vault-engine/*` and `!.vault-engine/ledger/`" in said.err
    for written in ("# keep .vault-engine out someday\n", ".vault-engine/index/\n"):  # neither keeps it out (qa92)
        (tmp_path / ".gitignore").write_text(written)
        (vault / "vault-engine.toml").unlink()
        assert "`.vault-engine/*`" in cli("init", str(vault)).err, written
    (tmp_path / ".gitignore").write_text(".vault-engine/*\n!.vault-engine/ledger/\n")
    (vault / "vault-engine.toml").unlink()
    assert "git" not in cli("init", str(vault)).err  # already kept out
    (vault / "vault-engine.toml").unlink()
    (tmp_path / ".git").rmdir()
    assert "git" not in cli("init", str(vault)).err
    assert not (vault / ".gitignore").exists()  # never written for the user


def test_init_of_a_blank_folder_is_a_usage_error_never_the_current_folder(tmp_path, cli, monkeypatch):
    monkeypatch.chdir(tmp_path)  # `init "$DIR"` with DIR unset, from the home folder, made it a vault
    refused = cli("init", "")
    assert refused.code == 2 and "init's folder must not be empty" in refused.err
    assert not (tmp_path / "vault-engine.toml").exists()


def test_a_subfolder_of_a_vault_is_made_a_vault_of_its_own_only_with_a_word_about_it(vault, cli):
    """`--vault specs index` and `init specs` silently made a nested vault, and commands run
    from specs/ then answered for it; `--vault specs status` advised the index that does it."""
    (vault / "drafts").mkdir()
    missing = cli("--vault", vault / "specs", "status")
    assert missing.code == 1 and f"it lies inside the vault {vault}: pass --vault {vault}" in missing.err
    said = f"lies inside the vault {vault}, which holds its notes too: it becomes a vault of its own; " \
           f"to use the enclosing one, pass --vault {vault}"
    indexed = cli("--vault", vault / "specs", "index", "--no-embed")
    assert indexed.code == 0 and said in indexed.err
    assert said not in cli("--vault", vault / "specs", "index", "--no-embed").err  # said once, at its first index
    inited = cli("init", vault / "drafts")
    assert inited.code == 0 and said in inited.err


def test_debug_shows_the_traceback(vault, cli):
    from vault_engine.errors import UnknownRef

    with pytest.raises(UnknownRef):
        cli("--vault", vault, "--debug", "show", "nope.md")


@pytest.mark.parametrize("command", [("search", " "), ("deadend", "check", ""), ("find", "\t")])
def test_a_blank_query_or_proposal_is_a_usage_error_not_a_miss(vault, cli, command):
    done = cli("--vault", vault, *command)
    assert done.code == 2 and done.out == ""
    assert done.err.strip().splitlines()[-1].endswith("must not be empty")


def test_a_long_query_is_quoted_back_in_short(vault, cli):
    done = cli("--vault", vault, "search", "zzqx " * 1000, "--lexical")
    assert done.code == 0 and done.out.startswith("no match for 'zzqx zzqx") and len(done.out) < 300


def test_an_empty_vault_indexes_and_then_answers(tmp_path, cli):
    assert cli("init", tmp_path).code == 0
    assert cli("--vault", tmp_path, "index", "--no-embed").out.startswith("indexed in")
    status = cli("--vault", tmp_path, "status", "--json")
    assert status.code == 0 and status.json["notes"] == 0
    miss = cli("--vault", tmp_path, "search", "anything", "--lexical", "--json")
    assert (miss.code, miss.json["status"]) == (0, "miss")
    written = cli("--vault", tmp_path, "checkpoint", "new", "--project", "first", "--agent", "me",
                  "--failed", "Try A -- it broke")
    assert written.code == 0, written.err
    assert "Try A — it broke" in cli("--vault", tmp_path, "resume", "--project", "first").out


def test_a_ref_to_a_skipped_file_or_a_bare_name_says_what_it_could_be(vault, cli):
    (vault / "latin1.md").write_bytes("caf\xe9\n".encode("latin-1"))
    cli("--vault", vault, "index", "--no-embed")
    skipped = cli("--vault", vault, "show", "latin1.md")
    assert skipped.code == 1 and skipped.err.startswith("vault-engine: latin1.md was not indexed: not UTF-8")
    bare = cli("--vault", vault, "show", "auth")  # the note is specs/auth.md
    assert bare.code == 1 and bare.err.strip().endswith("did you mean specs/auth.md?")
    # a skipped note in a folder, by its name: "no such file in the vault" had been said (qa172)
    (vault / "specs/legacy.md").write_bytes("caf\xe9\n".encode("latin-1"))
    cli("--vault", vault, "index", "--no-embed")
    for name in ("legacy", "Legacy.md"):
        by_name = cli("--vault", vault, "show", name)
        assert by_name.code == 1 and by_name.err.startswith("vault-engine: specs/legacy.md was not indexed: not UTF-8")


def test_a_ref_to_a_symlink_index_skipped_says_why_and_what_to_do(vault, cli, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "out.md").write_text("# Out\n")
    (vault / "linkout.md").symlink_to(outside / "out.md")
    (vault / "dangling.md").symlink_to("missing.md")
    (vault / "loopa.md").symlink_to("loopb.md")
    (vault / "loopb.md").symlink_to("loopa.md")
    indexed = cli("--vault", vault, "index", "--no-embed")
    assert ("vault-engine: skipped dangling.md: broken symlink to missing.md: nothing is there; point it at an "
            "existing note or remove it") in indexed.err.splitlines()
    for name, reason in [("dangling.md", "broken symlink to missing.md: "), ("linkout.md", "a symlink to a file "
                         "outside the vault"), ("loopa.md", "symlink loop: "), ("loopb", "symlink loop: ")]:
        for command in ("show", "links"):
            result = cli("--vault", vault, command, name)
            full = name if name.endswith(".md") else name + ".md"
            assert result.code == 1 and result.err.startswith(f"vault-engine: {full} was not indexed: {reason}"), \
                (command, result.err)
            assert "run `vault-engine index`" not in result.err  # index skips it again: no use
    for outside_ref in ("../outside/out.md", "../../etc/passwd"):  # never looked up outside the vault
        assert cli("--vault", vault, "show", outside_ref).err.startswith(f"vault-engine: no note {outside_ref!r}")
    (vault / "missing.md").write_text("# Missing\nfound again\n")  # the link leads somewhere now
    assert cli("--vault", vault, "show", "dangling.md").err == \
        "vault-engine: dangling.md was not indexed: it is new since the last index: run `vault-engine index`\n"
    assert cli("--vault", vault, "show", "renamed.md").err == (
        "vault-engine: no note 'renamed.md' in the index, and no such file in the vault (renamed or deleted?): check "
        "the path (vault-relative, e.g. specs/auth.md); `vault-engine search` finds a note by its words\n")


def test_a_vault_path_that_is_a_file_or_comes_from_the_environment_says_so(vault, cli, monkeypatch):
    assert "is a file: the vault is the folder" in cli("--vault", vault / "loose.md", "status").err
    monkeypatch.setenv("VAULT_ENGINE_VAULT", str(vault / "nope"))
    assert "($VAULT_ENGINE_VAULT) does not exist" in cli("status").err


def test_a_folder_this_user_cannot_write_is_one_line_not_a_traceback(vault, cli, monkeypatch):
    """Run as root, chmod cannot stand in for a read-only mount: the error is injected where a
    read-only vault raises it (making the index folder, opening the ledger for writing)."""
    import sqlite3

    from vault_engine.stores.ledger.connection import LedgerConnection
    from vault_engine.vault import Vault

    monkeypatch.setattr(Vault, "index", lambda self, **kw: (_ for _ in ()).throw(
        PermissionError(13, "Permission denied", str(self.root / ".vault-engine"))))
    done = cli("--vault", vault, "index")
    assert done.code == 1 and done.err == (f"vault-engine: cannot write {vault / '.vault-engine'}: permission denied. "
                                           "vault-engine keeps its index in the vault's .vault-engine folder, which "
                                           "must be writable by this user (nothing of yours was changed)\n")

    def readonly(self):
        raise sqlite3.OperationalError("attempt to write a readonly database")

    monkeypatch.setattr(LedgerConnection, "_migrate", readonly)
    done = cli("--vault", vault, "search", "token", "--lexical")
    assert done.code == 1 and "cannot write" in done.err and "damaged" not in done.err


def as_a_user_who_cannot_write(*args) -> list[str]:
    """The CLI command line, run without root's power to write anything (as the QA did)."""
    import shutil
    import sys

    command = [sys.executable, "-m", "vault_engine", *map(str, args)]
    if os.geteuid() != 0:
        return command
    if not shutil.which("setpriv"):
        pytest.skip("run as root without setpriv: cannot drop the power to write")
    caps = "-dac_override,-dac_read_search,-fowner"
    return ["setpriv", f"--inh-caps={caps}", f"--bounding-set={caps}", *command]


@pytest.mark.parametrize("command", [("search", "refresh", "--lexical", "--json"), ("status", "--json"),
                                     ("show", "specs/auth.md", "--json")])
def test_an_index_folder_no_one_here_may_write_still_answers_reads(vault, command):
    import subprocess

    state = vault / ".vault-engine"
    folders = [state, *(p for p in state.rglob("*") if p.is_dir())]
    for folder in folders:
        folder.chmod(0o555)
    try:
        done = subprocess.run(as_a_user_who_cannot_write("--vault", vault, *command), capture_output=True,
                              text=True, timeout=120, env={**os.environ, "VAULT_ENGINE_NO_DAEMON": "1"})
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)
        wrote = subprocess.run(as_a_user_who_cannot_write("--vault", vault, "index"), capture_output=True, text=True)
        assert wrote.returncode == 1 and "cannot write" in wrote.stderr
    finally:
        for folder in folders:
            folder.chmod(0o755)


def test_one_section_is_one_section(make_vault, cli):
    done = cli("--vault", make_vault({"a.md": "# A\nalpha\n"}), "index", "--no-embed")
    assert done.out.rstrip().endswith("; 1 section")


def test_mcp_help_names_every_tool(capsys):
    from vault_engine.operations import OPERATIONS

    with pytest.raises(SystemExit):
        build_parser(["mcp", "--help"]).parse_args(["mcp", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert all(op.name in text for op in OPERATIONS) and len(OPERATIONS) == 14


def test_off_a_terminal_a_long_index_says_it_is_alive_and_a_short_one_says_nothing():
    import io

    from vault_engine.cli.render import progress_lines

    now = [0.0]
    out = io.StringIO()
    update = progress_lines(out, clock=lambda: now[0])
    update("read", 10, 100)  # in the first 10 s: quiet
    now[0] = 12.0
    update("embed:onnxruntime", 50, 4000)
    now[0] = 20.0
    update("embed:onnxruntime", 900, 4000)  # within 30 s of the last line: quiet
    now[0] = 43.0
    update("embed:onnxruntime", 2000, 4000)
    now[0] = 50.0
    update("embed:onnxruntime", 4000, 4000)  # a stage that spoke says when it is done
    now[0] = 51.0
    update("embed:onnxruntime", 4000, 4000)  # ...once: the phase's end reports it again
    assert out.getvalue().splitlines() == [
        "vault-engine: embedding sections (onnxruntime): 50/4,000 (1%), 12 s",
        "vault-engine: embedding sections (onnxruntime): 2,000/4,000 (50%), 43 s",
        "vault-engine: embedding sections (onnxruntime): 4,000/4,000 (100%), 50 s"]


def test_a_heading_holding_a_hash_is_opened_by_the_ref_search_gives(make_vault, cli):
    root = make_vault({"n.md": "# Issue #1 fix\nalpha one\n## C# notes\nalpha two\n"})
    cli("--vault", root, "index", "--no-embed")
    refs = [h["ref"] for h in cli("--vault", root, "search", "alpha", "--lexical", "--json").json["hits"]]
    assert sorted(refs) == ["n.md#C# notes", "n.md#Issue #1 fix"]
    for ref in refs:
        shown = cli("--vault", root, "show", ref, "--json")
        assert shown.code == 0 and shown.json["ref"] == ref, shown.err


@pytest.mark.parametrize("command", [("search", "x", "--project", ""), ("search", "x", "--kind", " "),
                                     ("search", "x", "--tap", ""), ("deadend", "check", "redis", "--project", ""),
                                     ("deadend", "list", "--project", ""), ("decay", "--tap", "")])
def test_a_blank_filter_is_a_usage_error_as_the_mcp_tools_answer_it(vault, cli, command):
    """`deadend check --project ""` (an unset $P) flagged every ruling as another project's."""
    done = cli("--vault", vault, *command)
    assert done.code == 2 and done.out == ""
    assert done.err.strip().splitlines()[-1].endswith("must not be empty: leave it out instead")


def test_search_text_says_what_a_hit_rules_out(make_vault, cli):
    root = make_vault({"projects/api/checkpoints/20261101T100000Z-a1.md":
                       "---\ntype: checkpoint\nproject: api\n---\n# Checkpoint\n## Failed\n"
                       "- Retry webhooks inline in the request handler -- the provider timed out\n"})
    assert cli("--vault", root, "index").code == 0
    out = cli("--vault", root, "search", "retry webhooks inline", "--lexical").out
    assert "    ruled out here: Retry webhooks inline in the request handler\n" in out


def test_a_word_deep_in_a_long_section_counts_for_confidence(make_vault, cli):
    """Coverage read a section's first 20,000 characters: the only hit, holding the only word
    22,000 characters in, was `low: no hit holds every word of the query` (qa27 F1)."""
    filler = " ".join(["alpha beta gamma delta epsilon zeta"] * 700)  # 26,000 characters
    root = make_vault({"long.md": f"# Long\n\n{filler} uniqueword.\n", "other.md": "# Other\n\nalpha\n"})
    assert cli("--vault", root, "index", "--no-embed").code == 0
    found = cli("--vault", root, "search", "uniqueword", "--lexical", "--json").json
    assert [h["path"] for h in found["hits"]] == ["long.md"] and found["confidence"] == "high"


def test_operators_of_other_search_boxes_are_said_to_be_words(vault, cli):
    """"kafka -debezium" put Debezium first, high, and the user took it for excluded (qa28 F4)."""
    found = cli("--vault", vault, "search", "tokens -rotate NOT path:specs", "--lexical", "--json").json
    assert found["notices"] == ['searched as words, not operators: -rotate, NOT, path:specs (search takes words '
                                'and "quoted phrases"; narrow with --kind, --project or --tap)']
    plain = cli("--vault", vault, "search", "on-call e-mail tokens", "--lexical", "--json").json
    assert plain["notices"] == []


def test_a_query_of_tags_only_is_searched_by_words(make_vault, cli):
    """"#incubating": the meaning arm filled 4 of 5 places with notes not tagged so (qa28 F6)."""
    root = make_vault({"a.md": "---\ntags: [incubating]\n---\n# A\nbody\n", "b.md": "# B\nother\n"})
    assert cli("--vault", root, "index", "--no-embed").code == 0
    tagged = cli("--vault", root, "search", "#incubating", "--json").json
    assert (tagged["arms"], [h["path"] for h in tagged["hits"]]) == (["lexical"], ["a.md"])
    assert tagged["notices"] == ["a query of tags only is searched by words: a tag means nothing to the model"]
    number = cli("--vault", root, "search", "#42", "--json").json  # no tag in Obsidian (qa29 N11): both arms
    assert "a query of tags only is searched by words: a tag means nothing to the model" not in number["notices"]
    worded = cli("--vault", root, "search", "#incubating body", "--json").json  # a word besides: both arms
    assert "a query of tags only is searched by words: a tag means nothing to the model" not in worded["notices"]


def test_a_k_beyond_what_the_arms_give_says_so(make_vault, cli):
    """`-k 1000 --lexical` gave 100 hits without a word, where 245 notes hold the word (qa28 M1)."""
    root = make_vault({f"n{i}.md": f"# Note {i}\nthe lake number {i}\n" for i in range(120)})
    assert cli("--vault", root, "index", "--no-embed").code == 0
    many = cli("--vault", root, "search", "lake", "-k", "500", "--lexical", "--json").json
    assert len(many["hits"]) == 100 and many["notices"] == [
        "each arm gives at most 100 candidates: 100 hits of the 500 asked for (narrow with --kind, --project or --tap)"]
    assert cli("--vault", root, "search", "lake", "-k", "50", "--lexical", "--json").json["notices"] == []


def test_show_of_a_file_the_scan_leaves_out_says_which_rule(make_vault, cli):
    """`show .hidden.md` said "no such file in the vault (renamed or deleted?)" (qa30 F5)."""
    root = make_vault({"a.md": "# A\n", ".hidden.md": "# H\n", "note.md~": "# B\n", "drafts/x.md": "# X\n"},
                      config='exclude = ["drafts/**"]\n')
    assert cli("--vault", root, "index", "--no-embed").code == 0
    said = {ref: cli("--vault", root, "show", ref).err.strip() for ref in (".hidden.md", "note.md~", "drafts/x.md")}
    assert said == {
        ".hidden.md": "vault-engine: .hidden.md was not indexed: a name that starts with a dot is never indexed, "
                      "as Obsidian leaves it out",
        "note.md~": "vault-engine: note.md~ was not indexed: an editor's backup or autosave (name~, #name#) is never "
                    "indexed",
        "drafts/x.md": "vault-engine: drafts/x.md was not indexed: vault-engine.toml's exclude leaves it out"}
    (root / "dir.md").mkdir()  # "no such file in the vault" (qa70)
    assert cli("--vault", root, "show", "dir.md").err == \
        "vault-engine: dir.md was not indexed: it is a folder, not a note: name a note in it\n"


def test_a_notion_hits_further_sections_are_named_by_their_headings(sample_vault, cli):
    """A Notion page's hit listed `notion://<id>#Timeline` under "also in this note" (qa127)."""
    assert cli("--vault", sample_vault, "index", "--no-embed").code == 0
    out = cli("--vault", sample_vault, "search", "incident review checkout logouts timeline", "--lexical",
              "--no-decay", "-k", "1").out
    assert out.splitlines()[1].startswith(" 1. notion://2b6e9d14c3a84f57b0e1d2c3f4a59687#")
    (also,) = [line for line in out.splitlines() if "also in this note:" in line]
    assert "#What happened" in also and "notion://" not in also


def test_search_text_names_a_hits_further_sections_and_each_link_once(make_vault, cli):
    """A note linking PostgreSQL twice listed it twice under its hit (qa52)."""
    root = make_vault({
        "tart.md": "# Tart\n## Directions\nBake the quince tart in the oven, quince quince. See [[pg]] and [[pg]].\n"
                   "## Tips\nA quince tart bakes longer in an oven without a fan.\n",
        "pie.md": "# Pie\nA quince pie, baked in the oven, quince again.\n", "pg.md": "# PG\nPostgres.\n"})
    assert cli("--vault", root, "index", "--no-embed").code == 0
    out = cli("--vault", root, "search", "quince tart oven", "--lexical", "-k", "1").out
    assert "    also in this note: #Tips\n" in out
    assert "    links: pg.md" in out and "pg.md, pg.md" not in out
    data = cli("--vault", root, "--json", "search", "quince tart oven", "--lexical", "-k", "1").json
    assert data["hits"][0]["also"] == ["tart.md#Tips"]


def test_a_hits_links_line_says_how_many_more_json_lists(make_vault, cli):
    """The links line showed 6 of 19 targets without a word (qa53)."""
    files = {f"t{i}.md": f"# T{i}\nx\n" for i in range(8)}
    files["hub.md"] = "# Hub\nquokka " + " ".join(f"[[t{i}]]" for i in range(8)) + "\n"
    root = make_vault(files)
    assert cli("--vault", root, "index", "--no-embed").code == 0
    out = cli("--vault", root, "search", "quokka", "--lexical").out
    assert "    links: t0.md, t1.md, t2.md, t3.md, t4.md, t5.md (+2 more: --json lists them)" in out


def test_a_hits_links_line_counts_its_unresolved_links_and_no_backlinks_says_so(make_vault, cli):
    """A property's "[[Nobody Else]]" was left out of the links line without a word, and `links
    --backlinks` of a note nobody links to said "no links" (qa72)."""
    root = make_vault({"a.md": "# A\njackfruit [[b]] [[Nobody Else]] [[Ghost]]\n", "b.md": "# B\nx\n",
                       "c.md": "# C\njackfruit only [[Ghost]]\n"})
    assert cli("--vault", root, "index", "--no-embed").code == 0
    out = cli("--vault", root, "search", "jackfruit", "--lexical").out
    assert "    links: b.md (2 unresolved)\n" in out and "    links: 1 unresolved" in out
    assert cli("--vault", root, "links", "a.md", "--backlinks").out.strip() == "no backlinks"


def test_a_hits_ambiguous_link_says_so_as_links_does(make_vault, cli):
    """Ten pages' [[Data Warehouse]] resolved to a two-line note of that name in another folder:
    `links` said "(ambiguous)", a search hit's links nothing (qa83)."""
    root = make_vault({"Wiki/Data Warehouse.md": "# DW\nthe real page\n", "Inbox/Data Warehouse.md": "# DW\nmine\n",
                       "Wiki/Lake.md": "# Lake\ncolumnar storage, see [[Data Warehouse]] and [[Inbox]]\n"},
                      config="[model]\nenabled = false\n")
    assert cli("--vault", root, "index").code == 0
    hit = cli("--vault", root, "search", "columnar storage", "--lexical", "--json").json["hits"][0]
    assert [(link["raw"], link["ambiguous"]) for link in hit["links"]] == [("[[Data Warehouse]]", True),
                                                                           ("[[Inbox]]", False)]
    assert "(ambiguous)" in cli("--vault", root, "search", "columnar storage", "--lexical").out
