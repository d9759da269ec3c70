"""Writing checkpoints (vault_engine/memory/checkpoints.py): template, names, never overwriting."""

import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import FROZEN_NOW, ROOT
from vault_engine.config import parse_config
from vault_engine.errors import BadArgument, ConfigError, VaultError
from vault_engine.memory.checkpoints import (
    CheckpointDraft,
    contained,
    draft_from_json,
    load_template,
    parse_failed,
    prepare_draft,
    render_checkpoint,
    sanitize_name,
    write_checkpoint,
    write_new,
)
from vault_engine.parsing.checkpoints import checkpoint_parts
from vault_engine.parsing.note import parse_note

DRAFT = CheckpointDraft(
    project="drone-audio", agent="claude-7f3", summary="Both mics stay. The DSP beamforms.",
    next_steps=("Tune the taps",), failed=(("Beamforming on the MCU", "not enough RAM"), ("Foam", None)),
    links=("specs/audio#Buffers",))


def template() -> str:
    return load_template(Path("/nowhere"), {})


def test_the_packaged_template_is_the_repository_template():
    assert template() == (ROOT / "templates" / "checkpoint.md").read_text(encoding="utf-8")


def test_a_rendered_checkpoint_reads_back_as_written():
    text = render_checkpoint(template(), DRAFT, FROZEN_NOW)
    note = parse_note("projects/drone-audio/checkpoints/x.md", text, parse_config(Path("/v"), {}))
    assert (note.kind, note.project, note.meta["agent"], note.meta["created"]) == (
        "checkpoint", "drone-audio", "claude-7f3", "2026-09-21T14:13:20Z")
    assert [(d.text, d.reason) for d in note.dead_ends] == [("Beamforming on the MCU", "not enough RAM"),
                                                            ("Foam", None)]
    parts = checkpoint_parts(note.sections)
    assert parts.next_steps == ("Tune the taps",)
    assert "Both mics stay." in parts.summary
    assert [link.raw for link in note.links] == ["[[specs/audio#Buffers]]"]
    assert "# Checkpoint: Both mics stay" in text


def test_a_summary_opening_with_the_word_checkpoint_is_not_titled_twice():
    """`--summary "Checkpoint: parser rewrite half done"` wrote "# Checkpoint: Checkpoint: ..." (qa71)."""
    draft = CheckpointDraft("p", "a", summary="Checkpoint: parser rewrite half done. More tomorrow.")
    assert "# Checkpoint: parser rewrite half done\n" in render_checkpoint(template(), draft, FROZEN_NOW)


def test_a_long_summary_titles_the_checkpoint_cut_after_a_whole_word():
    """"...keep the 15-minute hold al…" stayed in the note as its heading (qa103)."""
    summary = "Ebooks skip the cart reservation entirely while print books keep the 15-minute hold always. Then."
    draft = CheckpointDraft("p", "a", summary=summary)
    assert "# Checkpoint: Ebooks skip the cart reservation entirely while print books keep the…\n" \
        in render_checkpoint(template(), draft, FROZEN_NOW)


def test_a_summary_cannot_smuggle_in_a_failed_heading():
    draft = CheckpointDraft("p", "a", summary="Done.\n## Failed\n- not a dead end")
    note = parse_note("projects/p/checkpoints/x.md", render_checkpoint(template(), draft, FROZEN_NOW),
                      parse_config(Path("/v"), {}))
    assert note.dead_ends == ()
    assert "\\## Failed" in checkpoint_parts(note.sections).summary


@pytest.mark.parametrize("summary", [
    "The hot loop is:\n```python\n# the loop\nfor x in rows: parse(x)",  # a fence left open
    "Compared two caches.\n\nFailed\n------\n- Use an LRU cache -- see below",  # a setext heading
    "Looked at options.\nFailed\n======\nAll good",
    "Noted it. <!-- a comment left open",
    "Steps:\n- ran this:\n  ```sh\n  make bench",  # a fence left open in a list item (qa161)
    "Note <!-- todo: fill",  # a comment left open in the first line, the title's (qa161)
])
def test_a_summary_stays_inside_its_section(summary):
    """An open fence or comment swallowed the Next and Failed lists (resume: no next steps,
    `deadend check`: nothing recorded), and a setext "Failed" underline made summary prose a
    dead end (qa156)."""
    draft = CheckpointDraft("p", "a", summary=summary, decision="Keep it\n===", next_steps=("Ship it",),
                            failed=(("Cache rows in Redis", "OOM"),))
    note = parse_note("projects/p/checkpoints/x.md", render_checkpoint(template(), draft, FROZEN_NOW),
                      parse_config(Path("/v"), {}))
    parts = checkpoint_parts(note.sections)
    assert [d.text for d in note.dead_ends] == ["Cache rows in Redis"]
    assert (parts.next_steps, parts.goal) == (("Ship it",), "Keep it\n\\===")
    assert parts.summary.replace("\\", "").startswith(summary.split("\n")[0])  # escaped, not changed


def test_a_summary_keeps_its_closed_code_and_comments_as_written():
    summary = "Loop:\n```\n# not a heading\n---\n<!-- in code\n```\n<!-- note --> done"
    assert contained(summary) == summary


def test_empty_lists_leave_no_placeholder_items():
    text = render_checkpoint(template(), CheckpointDraft("p", "a"), FROZEN_NOW)
    assert "{{" not in text and "- none" not in text
    assert "# Checkpoint: a on p" in text


@pytest.mark.parametrize("given,expected", [
    ("drone-audio", "drone-audio"), ("Drone Audio", "Drone Audio"), ("../../etc", "etc"),
    ("a/b\\c", "a-b-c"), (" .hidden ", "hidden"), ("naïve_1.2", "naïve_1.2"),
])
def test_project_names_are_sanitized(given, expected):
    assert sanitize_name(given, "project") == expected


def test_agent_names_lose_spaces_and_empty_names_are_refused():
    assert sanitize_name("claude 7f3", "agent") == "claude-7f3"
    with pytest.raises(VaultError, match="--agent '...' has no usable characters"):
        sanitize_name("...", "agent")


def test_failed_arguments_split_at_the_dash():
    assert parse_failed("Beamforming on the MCU -- not enough RAM") == ("Beamforming on the MCU", "not enough RAM")
    assert parse_failed("just an approach") == ("just an approach", None)
    for nothing in ("   ", " -- only reason", "— only reason"):  # the second wrote "- -- only reason"
        with pytest.raises(VaultError, match="names no approach"):
            parse_failed(nothing)


def test_a_step_given_as_a_list_item_is_written_once_as_one():
    """`--next "- validate schema drift"` was written "- - validate schema drift" (qa51)."""
    draft = CheckpointDraft("p", "a", next_steps=("- validate schema drift", "2. [ ] ship it", "keep - dashes"),
                            failed=(("* Realm sync", "slow"),))
    prepared = prepare_draft(draft, None)[0]
    assert prepared.next_steps == ("validate schema drift", "[ ] ship it", "keep - dashes")
    assert prepared.failed == (("Realm sync", "slow"),)


def test_a_step_given_ticked_off_stays_ticked_off_for_the_next_agent(make_vault):
    """`--next "- [x] done"` was written "- done": the next brief handed on a finished step (qa59)."""
    from vault_engine.vault import Vault

    root = make_vault({"projects/p/notes.md": "# Notes\n"})
    with Vault(root) as v:
        written = v.checkpoint_new(CheckpointDraft("p", "a", summary="s", next_steps=("- [x] Already done",
                                                                                        "An open step")))
        assert "- [x] Already done\n- An open step" in (root / written.ref).read_text()
        v.index(embed=False)
        brief = v.resume("p").checkpoint
        assert (brief.next_steps, brief.steps_closed) == (("An open step",), 1)


@pytest.mark.parametrize("failure", ["disk full", "read-only lock"])
def test_a_checkpoint_written_where_the_index_cannot_take_it_says_it_is_written(make_vault, monkeypatch, failure):
    """The file was written, then the index's full disk (or a read-only `.vault-engine/`, whose
    lock raised a plain OSError, qa188) made the command exit 1 saying "nothing of yours was
    changed": an agent that retried wrote it again each time (qa173)."""
    import errno

    from vault_engine.errors import disk_is_full
    from vault_engine.vault import Vault

    root = make_vault({"projects/p/notes.md": "# Notes\n"})
    raised = disk_is_full("index/lexical") if failure == "disk full" else \
        OSError(errno.EROFS, "Read-only file system", str(root / ".vault-engine/write.lock"))
    with Vault(root) as v:
        v.index(embed=False)

        def refused(*args, **kwargs):
            raise raised

        monkeypatch.setattr(Vault, "index_paths", refused)
        written = v.checkpoint_new(CheckpointDraft("p", "a", summary="s"))
    assert (root / written.ref).is_file() and len(list((root / "projects/p/checkpoints").iterdir())) == 1
    [notice] = written.notices
    said = "the disk is full writing index/lexical" if failure == "disk full" else "[Errno 30] Read-only file system"
    assert notice.startswith(f"{written.ref} is written but not indexed yet ({said}")
    assert "do not write it again" in notice and "nothing of yours" not in notice


def test_a_link_holding_brackets_is_refused_and_a_whole_wikilink_is_read_as_its_ref():
    draft = CheckpointDraft("p", "a", summary="s", links=("[[specs/a.md]]",))
    assert prepare_draft(draft, None)[0].links == ("specs/a",)  # the target [[specs/a]], not [[[[specs/a]]]]
    with pytest.raises(VaultError, match=r"holds \[\[ or \]\]"):  # would write "[[]]evil[[]]"
        prepare_draft(CheckpointDraft("p", "a", summary="s", links=("]]evil[[",)), None)


@pytest.mark.parametrize("given", ["Report Export", "Report-Export", "report_export"])
def test_a_project_named_like_a_known_one_is_refused_naming_it(make_vault, given):
    """`--project "Report Export"` started a second project beside report-export without a word;
    then with a notice an agent did not read, and resume of either never showed the other's (qa98)."""
    from vault_engine.vault import Vault

    root = make_vault({"projects/report-export/checkpoints/20261101T000000Z-a.md": "# C\n## Summary\ns\n"})
    with Vault(root) as v:
        v.index(embed=False)
        with pytest.raises(VaultError, match=f"no project is named '{given}', but 'report-export' is: pass "
                                             "--project report-export to continue it"):
            prepare_draft(CheckpointDraft(given, "a", summary="s"), v.ledger)
        assert prepare_draft(CheckpointDraft("report-export", "a", summary="s"), v.ledger)[1] == []


@pytest.mark.parametrize(("given", "name"), [("projects/hostile", "hostile"), ("/v/projects/hostile/", "hostile"),
                                             ("../../etc", "etc"), ("a\\b", "b")])
def test_a_project_given_as_a_path_is_refused_naming_its_name(given, name):
    """`--project projects/hostile` had started the project `projects-hostile`, exit 0, and the
    real project's brief never showed the hand-off (qa195); `./hostile` is the name hostile."""
    with pytest.raises(VaultError, match=re.escape(f"--project takes a project's name, not a path ({given!r}): "
                                                   f"pass --project {name}")):
        prepare_draft(CheckpointDraft(given, "a", summary="s"), None)
    assert prepare_draft(CheckpointDraft("./hostile", "a", summary="s"), None)[0].project == "hostile"


def test_an_empty_checkpoint_is_refused_it_would_hide_the_real_hand_off():
    """Only project and agent: it became the project's latest and resume showed nothing."""
    with pytest.raises(BadArgument, match="needs a summary, a decision, a next step or a failed approach"):
        prepare_draft(CheckpointDraft("p", "a", summary="  ", links=("specs/a.md",)), None)


def test_json_drafts_are_validated_field_by_field():
    draft = draft_from_json({"summary": "s", "next": ["a"], "failed": [{"text": "x", "reason": "y"}, "u -- v"],
                             "links": ["specs/a.md"]}, "p", "a")
    assert draft.failed == (("x", "y"), ("u", "v")) and draft.next_steps == ("a",)
    with pytest.raises(VaultError, match=r"next must be a list \(or one string\)"):
        draft_from_json({"next": {"a": 1}}, "p", "a")
    # one string is that one item, as the MCP tool takes it: it had been refused here alone (qa140)
    one = draft_from_json({"next": "Cap the backoff", "failed": "Retry inline -- ran twice", "links": "a.md"}, "p", "a")
    assert (one.next_steps, one.failed, one.links) == (("Cap the backoff",), (("Retry inline", "ran twice"),), ("a.md",))
    with pytest.raises(VaultError, match="each failed item"):
        draft_from_json({"failed": [{"reason": "no text"}]}, "p", "a")
    with pytest.raises(VaultError, match="expects a JSON object"):
        draft_from_json([1], "p", "a")
    # a reason of another type had been written as Python wrote it: "Reason: ['a']", "inf" (qa137)
    for reason in (["a"], 5, float("inf")):
        with pytest.raises(VaultError, match="the reason of a failed item of a checkpoint must be a string"):
            draft_from_json({"failed": [{"text": "x", "reason": reason}]}, "p", "a")


def test_text_no_utf_8_can_write_is_refused_and_leaves_no_file(tmp_path):
    """JSON's "\\ud800" alone is a lone surrogate: it had raised a traceback after the note's file
    was created, leaving an empty note each retry (qa137)."""
    draft = draft_from_json({"summary": "ok \ud800"}, "drone-audio", "qa")
    with pytest.raises(VaultError, match="the checkpoint's summary holds half of a UTF-16 pair .* U\\+D800"):
        prepare_draft(draft, None)
    with pytest.raises(UnicodeEncodeError):
        write_new(tmp_path, "20260921T141320Z-qa", "ok \ud800")
    assert list(tmp_path.iterdir()) == []


def test_a_decision_is_its_own_section_and_what_its_rulings_were_chosen_against(make_vault):
    """The template had no Decision, and `checkpoint new` no way to write one: a checkpoint it
    wrote never said what was chosen instead of its Failed items (qa80)."""
    draft = CheckpointDraft("billing", "claude", summary="Looked at retries.", decision="Retry from the outbox.",
                            failed=(("Retry inside the request handler", "timeouts cascaded"),))
    text = render_checkpoint(template(), draft, FROZEN_NOW)
    assert "\n## Decision\nRetry from the outbox.\n## Next\n" in text
    assert "## Decision" not in render_checkpoint(template(), DRAFT, FROZEN_NOW)  # no empty heading without one
    parts = checkpoint_parts(parse_note("projects/billing/checkpoints/x.md", text, parse_config(Path("/v"), {})).sections)
    assert (parts.goal, parts.goal_heading) == ("Retry from the outbox.", "Decision")
    assert draft_from_json({"decision": "Retry from the outbox."}, "p", "a").decision == "Retry from the outbox."
    with pytest.raises(ConfigError, match="has no {{decision}}"):  # a vault's own template, written before it
        render_checkpoint("# {{title}}\n{{summary}}\n## Failed\n{{failed}}\n", draft, FROZEN_NOW)
    from vault_engine.vault import Vault

    with Vault(make_vault({"a.md": "# A\n"}, config="[model]\nenabled = false\n")) as vault:
        vault.index(embed=False)
        vault.checkpoint_new(draft, now=FROZEN_NOW)
        (ruling,) = vault.deadend_check("retry inside the request handler", lexical_only=True).rulings
        assert ruling.chosen == "Retry from the outbox."


def test_write_new_never_overwrites(tmp_path):
    first = write_new(tmp_path, "20260921T141320Z-a", "one")
    second = write_new(tmp_path, "20260921T141320Z-a", "two")
    assert (first.name, second.name) == ("20260921T141320Z-a.md", "20260921T141320Z-a-2.md")
    assert first.read_text() == "one" and second.read_text() == "two"


def test_write_checkpoint_path(tmp_path):
    rel = write_checkpoint(tmp_path, "projects", DRAFT, template(), FROZEN_NOW)
    assert rel == "projects/drone-audio/checkpoints/20260921T141320Z-claude-7f3.md"


def test_a_symlinked_project_folder_outside_the_vault_is_refused(tmp_path):
    vault, outside = tmp_path / "vault", tmp_path / "outside"
    (vault / "projects").mkdir(parents=True)
    outside.mkdir()
    os.symlink(outside, vault / "projects" / "drone-audio")
    with pytest.raises(VaultError, match="outside the vault"):
        write_checkpoint(vault, "projects", DRAFT, template(), FROZEN_NOW)
    assert list(outside.rglob("*")) == []  # not even its folder, made before the refusal (qa137)


def test_a_vault_may_configure_its_own_template(tmp_path):
    (tmp_path / "mine.md").write_text("custom {{project}} {{unknown}}")
    assert load_template(tmp_path, {"template": "mine.md"}) == "custom {{project}} {{unknown}}"
    assert render_checkpoint("custom {{project}} {{unknown}}", DRAFT, FROZEN_NOW) == "custom drone-audio {{unknown}}"
    with pytest.raises(ConfigError, match="checkpoint.template"):
        load_template(tmp_path, {"template": "missing.md"})


WRITER = """
import sys
from pathlib import Path
from vault_engine.memory.checkpoints import CheckpointDraft, load_template, write_checkpoint
root, who = Path(sys.argv[1]), sys.argv[2]
template = load_template(root, {})
for i in range(15):
    draft = CheckpointDraft("race", "agent", summary=f"{who} {i}", failed=((f"{who} approach {i}", "why"),))
    write_checkpoint(root, "projects", draft, template, 1790000000.0)
"""


def test_two_processes_writing_in_the_same_second_both_survive(tmp_path):
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), who]) for who in ("left", "right")]
    assert [p.wait(timeout=60) for p in procs] == [0, 0]
    files = sorted((tmp_path / "projects" / "race" / "checkpoints").glob("*.md"))
    assert len(files) == 30
    summaries = {f.read_text().split("## Summary\n")[1].split("\n")[0] for f in files}
    assert summaries == {f"{who} {i}" for who in ("left", "right") for i in range(15)}


def test_the_template_ships_in_the_built_wheel(tmp_path):
    """The CLI must find its template when installed, not only from this checkout."""
    for name in ("pyproject.toml", "README.md"):
        (tmp_path / name).write_bytes((ROOT / name).read_bytes())
    for package in ("vault_engine", "tui"):
        subprocess.run(["cp", "-r", str(ROOT / package), str(tmp_path / package)], check=True)
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                           "-q", "-w", str(tmp_path / "dist"), str(tmp_path)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    [wheel] = (tmp_path / "dist").glob("*.whl")
    assert "vault_engine/memory/templates/checkpoint.md" in zipfile.ZipFile(wheel).namelist()


def test_a_link_is_written_by_name_unless_another_note_has_that_name(make_vault):
    # [[specs/webhook-delivery]] broke when a teammate moved the note, and resume lost the spec (qa25 #7)
    from vault_engine.vault import Vault

    root = make_vault({"specs/webhook-delivery.md": "# Webhooks\n## Retries\nbackoff\n",
                       "specs/readme.md": "# Specs\n", "projects/p/readme.md": "# P\n"})
    with Vault(root) as v:
        v.index(embed=False)
        ledger = v.ledger
        draft = CheckpointDraft("p", "a", summary="s", links=("specs/webhook-delivery.md#Retries", "specs/readme.md"))
        assert prepare_draft(draft, ledger)[0].links == ("webhook-delivery#Retries", "specs/readme")
        # a bare name, as a wikilink gives it, names the one note of that name (qa30 F10)
        named = CheckpointDraft("p", "a", summary="s", links=("[[webhook-delivery]]", "webhook-delivery#Retries",
                                                              "readme"))
        links, notices = prepare_draft(named, ledger)
        assert links.links == ("webhook-delivery", "webhook-delivery#Retries", "readme")
        assert notices == ["the link 'readme' names 2 notes (projects/p/readme.md, specs/readme.md): give its path; "
                           "written as [[readme]] anyway"]


def test_a_link_to_a_heading_its_note_lacks_names_the_note_and_says_so(make_vault):
    """It said the note was missing and wrote the link by its path (qa94)."""
    from vault_engine.vault import Vault

    root = make_vault({"specs/ingest-schema.md": "# Ingest schema\n## Fields\nid\n"})
    with Vault(root) as v:
        v.index(embed=False)
        draft = CheckpointDraft("p", "a", summary="s", links=("specs/ingest-schema.md#Nonexistent heading",))
        links, notices = prepare_draft(draft, v.ledger)
    assert links.links == ("ingest-schema#Nonexistent heading",)
    assert len(notices) == 1 and "has no heading 'Nonexistent heading'" in notices[0]
    assert notices[0].endswith("written as [[ingest-schema#Nonexistent heading]] anyway")
    assert "names no note" not in notices[0]


def test_a_link_to_a_repeated_heading_names_the_section_asked_for(make_vault):
    """`--link specs/auth.md#Rollout#Tokens` wrote [[auth#Tokens]], which opens the first
    Tokens, and resume handed the next agent the Design section's text (qa156)."""
    from vault_engine.vault import Vault

    root = make_vault({"specs/auth.md": "# Auth\n## Design\n### Tokens\nJWT.\n## Rollout\n### Tokens\nweekly\n"})
    with Vault(root) as v:
        v.index(embed=False)
        draft = CheckpointDraft("p", "a", summary="s", links=("specs/auth.md#Rollout#Tokens", "auth#Tokens"))
        assert prepare_draft(draft, v.ledger)[0].links == ("auth#Rollout#Tokens", "auth#Design#Tokens")
        # a block by its id, as `show` names it: its section had been written, and quoted whole (qa161)
        (v.root / "specs/auth.md").write_text(v.root.joinpath("specs/auth.md").read_text() + "\nKeys expire. ^ttl\n")
        v.index(embed=False)
        block = CheckpointDraft("p", "a", summary="s", links=("specs/auth.md#^ttl",))
        assert prepare_draft(block, v.ledger)[0].links == ("auth#^ttl",)


def test_a_link_to_a_source_file_keeps_its_path(make_vault):
    # `[[orders.py#OrderBook.place]]` resolved to no symbol: a file name names many files (qa26 N5)
    from tests.code_vault import build
    from vault_engine.vault import Vault

    with Vault(build(make_vault)) as v:
        draft = CheckpointDraft("p", "a", summary="s", links=("src/shop/orders.py#OrderBook.place",))
        assert prepare_draft(draft, v.ledger)[0].links == ("src/shop/orders.py#OrderBook.place",)


def test_a_name_typed_decomposed_continues_the_project_it_names(make_vault):
    """macOS hands "café" over decomposed: checkpoint new started a second project "cafe",
    wrote the agent "Renée" as "Rene-e", and resume refused the name it listed as known (qa157)."""
    import unicodedata

    from vault_engine.vault import Vault

    nfd = unicodedata.normalize("NFD", "café")
    root = make_vault({f"projects/{nfd}/notes.md": "# Notes\nthe café project\n"})  # a folder written decomposed
    with Vault(root) as v:
        v.index(embed=False)
        assert v.projects() == ["café"]
        draft = CheckpointDraft(nfd, unicodedata.normalize("NFD", "Renée"), summary="s",
                                failed=(("Cache rows in Redis", "OOM"),))
        prepared, notices = prepare_draft(draft, v.ledger)
        assert (prepared.project, prepared.agent, notices) == ("café", "Renée", [])
        v.checkpoint_new(draft)
        v.index(embed=False)
        assert v.resume(nfd).checkpoint is not None
        assert [r.project for r in v.deadend_list(nfd)] == ["café"]
        assert v.search("café", project=nfd, lexical_only=True).hits
        # the folder on disk stays the project's: no second one beside it, no "renamed folder?" (qa161)
        assert [d.name for d in (root / "projects").iterdir()] == [nfd]
        assert not any("renamed project folder" in n for n in v.resume("café").notices)
        assert v.status()["project_elsewhere"] == []  # nor in status (qa164)
