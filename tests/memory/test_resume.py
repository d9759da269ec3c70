"""The arriving agent's brief (vault_engine/memory/resume.py, fitted by memory/render.py)."""

import datetime as dt
import json
import os

import pytest

from tests.conftest import FROZEN_NOW
from vault_engine.errors import BadArgument, UnknownProject
from vault_engine.memory.checkpoints import CheckpointDraft
from vault_engine.memory.plans import live_plans
from vault_engine.memory.results import estimate_tokens
from vault_engine.vault import Vault

DAY = 86_400
CONFIG = '[taps.specs]\nsource = "vault"\npaths = ["specs/**"]\nhalf_life_days = 30\nfloor = 0.2\n'


def checkpoint(created: str, summary: str, next_steps=(), failed=(), links=()) -> str:
    lines = ["---", "type: checkpoint", "project: drone", "agent: claude-7f3", f"created: {created}", "---",
             f"# Checkpoint: {summary}", "## Summary", summary, *links, "## Next",
             *[f"- {s}" for s in next_steps], "## Failed", *[f"- {f}" for f in failed], ""]
    return "\n".join(lines)


FILES = {
    "projects/drone/checkpoints/20260901T000000Z-claude-7f3.md": checkpoint(
        "2026-09-01T00:00:00Z", "Older round.", failed=["Old idea -- old reason"]),
    "projects/drone/checkpoints/20260101T000000Z-claude-7f3.md": checkpoint(  # named early, created last
        "2026-09-10T00:00:00Z", "Both mics stay.", next_steps=["Run the noise suppression model on the companion computer"],
        failed=["Beamforming on the MCU -- not enough RAM"], links=["See [[audio#Buffers]] and [[drop-test]]."]),
    "projects/drone/working/gemini-killed.md": "---\nagent: gemini-5d2\n---\n# Killed mid-run\n"
                                               "Found the codec clips at 3 dB.\nDEADEND: Raise the PGA gain -- it clips\n",
    "projects/drone/working/codex-old.md": "# Old notes\nnothing new here\n",
    "specs/audio.md": "---\ncreated: 2026-07-23T14:13:20Z\n---\n# Audio\n## Buffers\nTwo 16 kHz buffers of 4 KB.\n",
    "drop-test.md": "# Drop test\nFrom 1.2 m onto concrete.\n",
    "projects/search/checkpoints/20260801T000000Z-codex.md": "---\ntype: checkpoint\nproject: search\n"
        "created: 2026-08-01T00:00:00Z\n---\n# C\n## Failed\n- Run the noise suppression model on the flight "
        "controller -- loop jitter\n- Shard by date -- hot shard\n",
}


def set_mtime(root, rel, when):
    os.utime(root / rel, (when, when))


@pytest.fixture
def vault(make_vault):
    root = make_vault(FILES, config=CONFIG)
    set_mtime(root, "projects/drone/working/codex-old.md", FROZEN_NOW - 30 * DAY)  # before the checkpoint
    set_mtime(root, "projects/drone/working/gemini-killed.md", FROZEN_NOW - 1 * DAY)  # after it
    with Vault(root) as v:
        v.index(embed=False, now=FROZEN_NOW)
        yield v


def test_the_latest_checkpoint_by_created_not_by_name(vault):
    brief = vault.resume("drone", now=FROZEN_NOW)
    c = brief.checkpoint
    assert c.path == "projects/drone/checkpoints/20260101T000000Z-claude-7f3.md"
    assert (c.title, c.agent) == ("Checkpoint: Both mics stay.", "claude-7f3")
    assert c.summary == "Both mics stay.\nSee [[audio#Buffers]] and [[drop-test]]."
    assert c.next_steps == ("Run the noise suppression model on the companion computer",)
    assert [(r.text, r.reason) for r in c.failed] == [("Beamforming on the MCU", "not enough RAM")]
    assert "## Last checkpoint: Both mics stay.\n" in brief.markdown  # not "Checkpoint: Checkpoint:" (qa68)
    from vault_engine.parsing.checkpoints import without_checkpoint_word
    assert [without_checkpoint_word(t) for t in ("checkpoint - Lexer work", "Checkpoint — Lexer", "Checkpoint")] == \
        ["Lexer work", "Lexer", "Checkpoint"]  # (qa71)


def test_ties_on_created_go_to_the_later_file_name(make_vault):
    files = {f"projects/p/checkpoints/{name}.md": checkpoint("2026-09-10T00:00:00Z", name)
             for name in ("20260910T000000Z-a", "20260910T000000Z-b")}
    with Vault(make_vault(files)) as v:
        v.index(embed=False, now=FROZEN_NOW)
        assert v.resume("drone", now=FROZEN_NOW).checkpoint.summary == "20260910T000000Z-b"


def test_a_created_time_after_the_file_was_written_is_a_typo_not_the_latest_forever(make_vault):
    """`created: 2099-...` for 2026 made that checkpoint "the last one" even after new ones."""
    files = {"projects/p/checkpoints/20990101T000000Z-a.md": checkpoint("2099-01-01T00:00:00Z", "typo"),
             "projects/p/checkpoints/20260910T000000Z-b.md": checkpoint("2026-09-10T00:00:00Z", "real")}
    root = make_vault(files)
    set_mtime(root, "projects/p/checkpoints/20990101T000000Z-a.md", FROZEN_NOW - 100 * DAY)  # written before b
    set_mtime(root, "projects/p/checkpoints/20260910T000000Z-b.md", FROZEN_NOW - 10 * DAY)
    with Vault(root) as v:
        v.index(embed=False, now=FROZEN_NOW)
        assert v.resume("drone", now=FROZEN_NOW).checkpoint.summary == "real"


def test_a_local_time_written_as_utc_is_no_time_it_was_written(make_vault):
    """`created: 22:00Z` saved at 21:17Z (Maya's local time) stayed "the latest" over a
    checkpoint written at 21:18Z; its rulings said "ruled out on 2062-..." when typed so, and a
    working note `updated: 2062` was "changed since the checkpoint" after every checkpoint."""
    written = FROZEN_NOW - 10 * DAY
    ahead = written + 43 * 60
    files = {"projects/p/checkpoints/slip.md": checkpoint(iso(ahead), "slip", failed=["Use Redis -- too costly"]),
             "projects/p/checkpoints/next.md": checkpoint(iso(written + 90), "written after it"),
             "projects/p/checkpoints/old.md": checkpoint("2062-11-25T18:30:00Z", "old", failed=["Use Kafka -- ops"]),
             "projects/p/working/w.md": "---\nupdated: 2062-11-26T17:00:00Z\n---\n# W\nwork\n"}
    root = make_vault(files)
    set_mtime(root, "projects/p/checkpoints/slip.md", written)
    set_mtime(root, "projects/p/checkpoints/next.md", written + 90)
    set_mtime(root, "projects/p/checkpoints/old.md", written - 20 * DAY)
    set_mtime(root, "projects/p/working/w.md", written - 30 * DAY)
    with Vault(root) as v:
        v.index(embed=False, now=FROZEN_NOW)
        brief = v.resume("drone", now=FROZEN_NOW)
        assert brief.checkpoint.summary == "written after it" and brief.working_notes == ()
        dates = {r.text: r.when for r in v.deadend_list()}
        assert dates == {"Use Redis": written, "Use Kafka": written - 20 * DAY}


def test_a_ruling_is_dated_as_the_brief_dates_its_checkpoint(make_vault):
    """`created: 2099-...` (a typo) in a checkpoint named for 2026-11-22: the brief dated it by
    its name, its ruling by the file time, the day of a clone (qa24 #1)."""
    name = "projects/p/checkpoints/20261122T080000Z-dana.md"
    root = make_vault({name: checkpoint("2099-11-22T08:00:00Z", "typo", failed=["Use compadd -d -- breaks"])})
    named = 1795334400.0  # 2026-11-22T08:00:00Z
    set_mtime(root, name, named + 13 * DAY)  # cloned since
    with Vault(root) as v:
        v.index(embed=False, now=FROZEN_NOW)
        brief = v.resume("drone", now=FROZEN_NOW)
        assert brief.checkpoint.created == named
        assert [r.when for r in brief.checkpoint.failed] == [named]
        assert [r.when for r in v.deadend_list()] == [named]


@pytest.mark.parametrize("empty", ["", "---\ntype: checkpoint\nproject: drone\n---\n# Checkpoint\n## Summary\n## Next\n"])
def test_an_empty_checkpoint_file_hands_nothing_on_and_is_not_the_latest(make_vault, empty):
    # a `touch` in checkpoints/ (or an unfilled template) hid the real hand-off's summary and next steps
    files = {"projects/drone/checkpoints/20260901T000000Z-a.md": checkpoint("2026-09-01T00:00:00Z", "real",
                                                                            next_steps=["Ship it"]),
             "projects/drone/checkpoints/20261121T154500Z-tomas.md": empty}
    with Vault(make_vault(files)) as v:
        v.index(embed=False, now=FROZEN_NOW)
        brief = v.resume("drone", now=FROZEN_NOW)
        assert (brief.checkpoint.summary, brief.checkpoint.next_steps) == ("real", ("Ship it",))


def iso(ts: float) -> str:
    import datetime as dt

    return dt.datetime.fromtimestamp(ts, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_a_checkpoint_written_alongside_the_latest_hands_on_its_plan_too(make_vault):
    """Two agents checking in on one project at once: the other session's Next steps were
    nowhere in the brief. One written an hour earlier is an earlier checkpoint, not alongside."""
    files = {"projects/p/checkpoints/20260910T090000Z-a.md": checkpoint("2026-09-10T09:00:00Z", "older",
                                                                       next_steps=["Old plan"]),
             "projects/p/checkpoints/20260910T095900Z-b.md": checkpoint("2026-09-10T09:59:00Z", "gemini's",
                                                                       next_steps=["Paginate long tables"]),
             "projects/p/checkpoints/20260910T100000Z-c.md": checkpoint("2026-09-10T10:00:00Z", "claude's",
                                                                       next_steps=["Embed photos at 150 dpi"])}
    with Vault(make_vault(files)) as v:
        v.index(embed=False, now=FROZEN_NOW)
        brief = v.resume("drone", now=FROZEN_NOW)
        assert brief.checkpoint.summary == "claude's"
        assert [(c.summary, c.next_steps) for c in brief.alongside] == [("gemini's", ("Paginate long tables",))]
        assert "## Checkpointed at the same time" in brief.markdown and "- Paginate long tables" in brief.markdown
        assert "Old plan" not in brief.markdown
        assert brief.to_json()["checkpoints_alongside"][0]["next"] == ["Paginate long tables"]
        full = estimate_tokens(brief.markdown)
        tight = v.resume("drone", max_tokens=full - 5, now=FROZEN_NOW)  # it goes before the earlier dead ends
        assert "Paginate" not in tight.markdown and tight.cut[0].startswith("checkpoint alongside")
        assert {p: [s.text for s in steps] for p, steps in live_plans(v.ledger).items()} == {
            "drone": ["Embed photos at 150 dpi", "Paginate long tables"]}


def test_a_step_the_latest_ticks_off_is_not_handed_on_by_one_written_alongside(make_vault):
    """dana's checkpoint ticked "Retry a failed render 3 times" off; claude's, written beside it,
    still handed it on as a step to take (qa74)."""
    files = {"projects/p/checkpoints/20260910T095900Z-b.md": checkpoint(
                 "2026-09-10T09:59:00Z", "claude's", next_steps=["Paginate long tables", "Retry a failed  render 3 times"]),
             "projects/p/checkpoints/20260910T100000Z-c.md": checkpoint(
                 "2026-09-10T10:00:00Z", "dana's", next_steps=["[x] Retry a failed render 3 times", "Ship it"])}
    with Vault(make_vault(files)) as v:
        v.index(embed=False, now=FROZEN_NOW)
        brief = v.resume("drone", now=FROZEN_NOW)
    assert brief.checkpoint.summary == "dana's" and brief.checkpoint.next_steps == ("Ship it",)
    assert [c.next_steps for c in brief.alongside] == [("Paginate long tables",)]


def test_a_checkpoint_the_latest_links_to_is_before_it_not_alongside(make_vault):
    """A session restarted 8 s later links the checkpoint it continues: its plan, ticked off
    since, read as another session's (qa54)."""
    files = {"projects/p/checkpoints/20260910T095952Z-a.md": checkpoint("2026-09-10T09:59:52Z", "first",
                                                                       next_steps=["Add XLSX export"]),
             "projects/p/checkpoints/20260910T100000Z-b.md": checkpoint(
                 "2026-09-10T10:00:00Z", "restarted", next_steps=["Stream CSV parts"],
                 links=["Continues [[20260910T095952Z-a]]."])}
    with Vault(make_vault(files)) as v:
        v.index(embed=False, now=FROZEN_NOW)
        brief = v.resume("drone", now=FROZEN_NOW)
        assert brief.checkpoint.summary.startswith("restarted") and brief.alongside == ()
        assert "Add XLSX export" not in brief.markdown
    # restarted twice: C links B, B links A; A is no other session either (qa58)
    files["projects/p/checkpoints/20260910T100500Z-c.md"] = checkpoint(
        "2026-09-10T10:05:00Z", "again", next_steps=["Zip the parts"], links=["Continues [[20260910T100000Z-b]]."])
    with Vault(make_vault(files)) as v:
        v.index(embed=False, now=FROZEN_NOW)
        brief = v.resume("drone", now=FROZEN_NOW)
        assert brief.checkpoint.summary.startswith("again") and brief.alongside == ()


def test_a_second_checkpoint_in_the_same_second_is_the_later_one(make_vault):
    """`checkpoint new` names it `-2`, which a plain string order puts before the first."""
    files = {f"projects/p/checkpoints/{name}.md": checkpoint("2026-09-10T00:00:00Z", name)
             for name in ("20260910T000000Z-a", "20260910T000000Z-a-2", "20260910T000000Z-a-3")}
    with Vault(make_vault(files)) as v:
        v.index(embed=False, now=FROZEN_NOW)
        assert v.resume("drone", now=FROZEN_NOW).checkpoint.summary == "20260910T000000Z-a-3"


def test_a_dated_working_note_is_judged_by_its_date_not_its_file_time(make_vault):
    """A git clone gives every file a new mtime: the note's own date must decide."""
    files = {**FILES, "projects/drone/working/dated-old.md": "---\nupdated: 2026-09-05\n---\n# Old\nold\n"}
    root = make_vault(files, config=CONFIG)
    set_mtime(root, "projects/drone/working/dated-old.md", FROZEN_NOW)  # "cloned" just now
    with Vault(root) as v:
        v.index(embed=False, now=FROZEN_NOW)
        assert "projects/drone/working/dated-old.md" not in [w.path for w in v.resume("drone", now=FROZEN_NOW).working_notes]


def test_a_working_note_dated_the_checkpoints_day_without_a_time_counts_as_changed(make_vault):
    """`created: 2026-09-10` (midnight) on the day of the 10:00 checkpoint it was written for
    was "older" and its conclusion hidden; a date is the whole day, up to the file's write."""
    files = {**FILES, "projects/drone/working/same-day.md": "---\ncreated: 2026-09-10\n---\n# Leaning\nkeep it\n"}
    root = make_vault(files, config=CONFIG)
    set_mtime(root, "projects/drone/working/same-day.md", FROZEN_NOW)  # "cloned" just now
    with Vault(root) as v:
        v.index(embed=False, now=FROZEN_NOW)
        assert "projects/drone/working/same-day.md" in [w.path for w in v.resume("drone", now=FROZEN_NOW).working_notes]


def test_a_working_note_its_agent_never_checked_in_stays_in_the_brief(make_vault):
    """An agent killed mid-note left "migration 0042 is NOT applied yet": the note left the
    brief as soon as another agent checked in on something else (qa160). A note its agent
    checked in after, or a checkpoint links to, was handed over."""
    def note(agent, updated, text):
        return f"---\nagent: {agent}\nupdated: {updated}\n---\n# {text}\n{text}\n"

    files = {**FILES,
             "projects/drone/working/killed.md": note("codex-r9", "2026-09-08T00:00:00Z", "Migration 0042 not applied"),
             "projects/drone/working/handed.md": note("claude-7f3", "2026-09-08T00:00:00Z", "Handed over"),
             "projects/drone/working/linked.md": note("gemini", "2026-09-08T00:00:00Z", "Linked"),
             # its agent written decomposed, checked in as written composed (qa161)
             "projects/drone/working/zoe.md": note("Zoe\u0308", "2026-09-08T00:00:00Z", "Zoe's"),
             "projects/drone/checkpoints/20260910T000200Z-zoe.md": checkpoint("2026-09-10T00:02:00Z", "Zoe's round.")
             .replace("agent: claude-7f3", "agent: Zo\u00eb"),
             "projects/drone/checkpoints/20260910T000100Z-claude-7f3.md": checkpoint(
                 "2026-09-10T00:01:00Z", "Later round.", links=["See [[linked]]."])}
    with Vault(make_vault(files, config=CONFIG)) as v:
        v.index(embed=False, now=FROZEN_NOW)
        brief = v.resume("drone", now=FROZEN_NOW)
    ours = {"projects/drone/working/killed.md", "projects/drone/working/handed.md", "projects/drone/working/linked.md",
            "projects/drone/working/zoe.md"}
    assert [w.path for w in brief.working_notes if w.path in ours] == ["projects/drone/working/killed.md"]
    assert "## Working notes still open" in brief.markdown and "Migration 0042 not applied" in brief.markdown


def test_a_working_note_changed_after_the_checkpoint_appears_with_its_dead_ends(vault):
    brief = vault.resume("drone", now=FROZEN_NOW)
    assert [w.path for w in brief.working_notes] == ["projects/drone/working/gemini-killed.md"]
    killed = brief.working_notes[0]
    assert [(r.text, r.reason, r.source) for r in killed.dead_ends] == [("Raise the PGA gain", "it clips", "working note")]
    assert "Found the codec clips at 3 dB." in killed.excerpt
    assert "PGA" not in killed.excerpt  # listed as a dead end just above: not again in the excerpt
    assert "## Working notes still open (changed since the checkpoint" in brief.markdown
    assert "Raise the PGA gain" in brief.markdown
    # a paragraph of its own: the TUI's Markdown ran it into the "changed ..." line (qa22 F13)
    assert "\n\nDead ends marked here (a working note: possibly a first impression):\n- Raise" in brief.markdown


def test_linked_notes_come_with_their_decay(vault):
    brief = vault.resume("drone", now=FROZEN_NOW)
    linked = {n.ref: n for n in brief.linked}
    assert set(linked) == {"specs/audio.md#Buffers", "drop-test.md"}
    assert linked["specs/audio.md#Buffers"].decay == pytest.approx(0.25, abs=1e-6)  # 60 days, half-life 30
    assert linked["specs/audio.md#Buffers"].excerpt == "Two 16 kHz buffers of 4 KB."
    assert linked["drop-test.md"].decay == 1.0
    vault.reinforce("specs/audio.md", now=FROZEN_NOW - DAY)
    again = {n.ref: n for n in vault.resume("drone", now=FROZEN_NOW).linked}
    assert again["specs/audio.md#Buffers"].decay == pytest.approx(0.5 ** (1 / 30), abs=1e-6)


def test_a_linked_note_reads_as_a_reader_reads_it_past_a_first_section_of_one_line(make_vault):
    """A Nygard record's first body is its `Date:` line, and a MADR record opens with an HTML
    comment: the excerpts were "<!-- markdownlint-disable ... -->" and "Date: 2017-09-04" (qa59)."""
    record = ("# 2. Use Redis for sessions\n\nDate: 2017-09-04\n\n## Status\n\nAccepted\n\n"
              "## Decision\n\nSessions live in [Redis](https://redis.io), one key per user.\n")
    madr = "<!-- markdownlint-disable-next-line MD025 -->\n# Log format\n\nWe write JSON lines.\n"
    root = make_vault({"decisions/0002-redis.md": record, "decisions/0003-logs.md": madr,
                       "projects/p/checkpoints/20260901T000000Z-a.md": checkpoint(
                           "2026-09-01T00:00:00Z", "Round.", links=["See [[0002-redis]] and [[0003-logs]]."])
                       .replace("project: drone", "project: p")})
    with Vault(root) as v:
        v.index(embed=False, now=FROZEN_NOW)
        linked = {n.path: n.excerpt for n in v.resume("p", now=FROZEN_NOW).linked}
    assert linked["decisions/0002-redis.md"] == ("Date: 2017-09-04 · Status: Accepted · "
                                                 "Decision: Sessions live in Redis, one key per user.")
    assert linked["decisions/0003-logs.md"] == "We write JSON lines."


def test_a_linked_block_reads_as_the_block_alone(make_vault):
    """`[[spec#^key-ttl]]` quoted the block's whole section, where `show` opens the block (qa156)."""
    spec = "# Spec\n## Storage\nKeys live in their own table.\n\nKeys expire after 24 hours. ^key-ttl\n\nThe rest.\n"
    root = make_vault({"spec.md": spec, "projects/p/checkpoints/20260901T000000Z-a.md": checkpoint(
        "2026-09-01T00:00:00Z", "Round.", links=["See [[spec#^key-ttl]]."]).replace("project: drone", "project: p")})
    with Vault(root) as v:
        v.index(embed=False, now=FROZEN_NOW)
        linked = {n.ref: n.excerpt for n in v.resume("p", now=FROZEN_NOW).linked}
    assert linked == {"spec.md#^key-ttl": "Keys expire after 24 hours."}


def test_dead_ends_of_other_projects_that_bear_on_the_next_steps(vault):
    brief = vault.resume("drone", now=FROZEN_NOW)
    assert [(r.text, r.project, r.elsewhere) for r in brief.elsewhere] == [
        ("Run the noise suppression model on the flight controller", "search", True)]
    data = brief.to_json()
    assert data["dead_ends_elsewhere"][0]["bears_on"] == "Run the noise suppression model on the companion computer"
    assert "what failed there may not fail here" in brief.markdown


def test_no_checkpoint_says_so_and_still_shows_working_notes(make_vault):
    files = {"projects/fresh/working/a-notes.md": "# Notes\nDEADEND: X -- y\n"}
    with Vault(make_vault(files)) as v:
        v.index(embed=False, now=FROZEN_NOW)
        brief = v.resume("fresh", now=FROZEN_NOW)
    assert brief.checkpoint is None and brief.to_json()["checkpoint"] is None
    assert "No checkpoint yet for fresh hands anything on." in brief.markdown
    assert [w.path for w in brief.working_notes] == ["projects/fresh/working/a-notes.md"]


def test_a_project_whose_only_checkpoint_is_an_unfilled_template_says_so(make_vault):
    """"No checkpoint yet: nobody has checked in. Its working notes follow", over no notes at
    all, of a project someone had checked in to with an empty template (qa94)."""
    template = "---\ntype: checkpoint\nproject: tmpl\n---\n# Checkpoint\n## Summary\n## Next\n## Failed\n"
    with Vault(make_vault({"projects/tmpl/checkpoints/20261201T000000Z-a.md": template})) as v:
        v.index(embed=False, now=FROZEN_NOW)
        brief = v.resume("tmpl", now=FROZEN_NOW)
    assert brief.checkpoint is None and "follow" not in brief.markdown and "nobody" not in brief.markdown
    assert brief.notices == ("1 checkpoint(s) hold nothing under their headings "
                             "(projects/tmpl/checkpoints/20261201T000000Z-a.md): an empty file, an unfilled "
                             "template or a write cut off hands nothing on; if its agent handed something on, ask "
                             "it to write it again",)


def test_newer_checkpoints_holding_nothing_are_named_beside_the_one_handed_on(make_vault):
    """A checkpoint of 0 bytes and one cut off mid-heading, newer than the last hand-off, were
    passed over without a word: the 1 December one was handed on as the last (qa195)."""
    good = "---\ntype: checkpoint\nproject: p\n---\n# Checkpoint one\n## Summary\nDone.\n"
    cut = "---\ntype: checkpoint\nproject: p\ncreated: 2026-12-07T10:00:00Z\n---\n# Checkpoint: cut\n## Summ"
    files = {"projects/p/checkpoints/20261201T100000Z-a1.md": good,
             "projects/p/checkpoints/20261206T100000Z-a2.md": "",
             "projects/p/checkpoints/20261207T100000Z-a3.md": cut}
    with Vault(make_vault(files)) as v:
        v.index(embed=False, now=FROZEN_NOW)
        brief = v.resume("p", now=FROZEN_NOW)
    assert brief.checkpoint.path == "projects/p/checkpoints/20261201T100000Z-a1.md"
    assert brief.notices[0].startswith("2 checkpoint(s) newer than the one handed on hold nothing under their "
                                       "headings (projects/p/checkpoints/20261207T100000Z-a3.md, "
                                       "projects/p/checkpoints/20261206T100000Z-a2.md): ")


@pytest.mark.parametrize("unfilled", [
    "# Checkpoint: {{title}}\n## Summary\n{{summary}}\n\n{{links}}\n{{decision}}## Next\n{{next}}\n## Failed\n{{failed}}\n",
    "# Checkpoint: comments\n## Summary\n<!-- what you did -->\n## Next\n- \n## Failed\n- [ ] \n"])
def test_a_newer_checkpoint_copied_from_a_template_and_never_filled_is_passed_over(make_vault, unfilled):
    """The template copied as it ships, or with comments and empty items only: handed on as the
    last checkpoint, its `{{summary}}` shown as what was done, the real hand-off hidden (qa198)."""
    good = "---\ntype: checkpoint\nproject: p\n---\n# Checkpoint one\n## Summary\nDone.\n"
    files = {"projects/p/checkpoints/20261201T100000Z-a1.md": good,
             "projects/p/checkpoints/20261202T100000Z-a4.md": "---\ntype: checkpoint\nproject: p\n---\n" + unfilled}
    with Vault(make_vault(files)) as v:
        v.index(embed=False, now=FROZEN_NOW)
        brief = v.resume("p", now=FROZEN_NOW)
    assert brief.checkpoint.path == "projects/p/checkpoints/20261201T100000Z-a1.md"
    assert "(projects/p/checkpoints/20261202T100000Z-a4.md)" in brief.notices[0]


def test_an_unknown_project_lists_the_known_ones(vault):
    with pytest.raises(UnknownProject, match="known projects: drone, search"):
        vault.resume("dron", now=FROZEN_NOW)


@pytest.mark.parametrize("budget", [2000, 200, 120, 40])
def test_the_brief_stays_within_its_budget_and_says_what_was_cut(vault, budget):
    brief = vault.resume("drone", max_tokens=budget, now=FROZEN_NOW)
    assert estimate_tokens(brief.markdown) <= budget
    full = vault.resume("drone", max_tokens=100_000, now=FROZEN_NOW)
    if estimate_tokens(full.markdown) > budget:
        assert brief.cut and brief.to_json()["cut"] == list(brief.cut)
    else:
        assert brief.cut == ()


def test_least_important_parts_go_first(vault):
    full = vault.resume("drone", max_tokens=100_000, now=FROZEN_NOW)
    tight = vault.resume("drone", max_tokens=estimate_tokens(full.markdown) - 20, now=FROZEN_NOW)
    assert tight.cut[0].startswith("excerpt of ")  # a linked note's excerpt, the most faded first
    assert tight.cut[0] == "excerpt of specs/audio.md#Buffers"
    assert tight.checkpoint.failed == full.checkpoint.failed
    assert "_Cut to fit" in tight.markdown


def test_a_new_checkpoint_is_seen_by_resume_at_once(vault):
    written = vault.checkpoint_new(CheckpointDraft("drone", "claude-9", summary="Fresh round.",
                                                   failed=(("Glue the mic", "hum"),)), now=FROZEN_NOW)
    brief = vault.resume("drone", now=FROZEN_NOW + 1)
    assert brief.checkpoint.path == written.ref
    assert [r.text for r in brief.checkpoint.failed] == ["Glue the mic"]


def test_a_brief_crosses_the_daemon_socket_unchanged(vault):
    """The warm daemon answers `resume` for the CLI: the brief must survive its codec."""
    from vault_engine.daemon import protocol

    brief = vault.resume("drone", now=FROZEN_NOW)
    assert protocol.decode(protocol.encode(brief)) == brief


def test_the_projects_earlier_dead_ends_follow_the_latest_checkpoint(vault):
    """The latest checkpoint lists only its own session's Failed items: what an older checkpoint
    ruled out must still reach the arriving agent, and nothing is shown twice."""
    brief = vault.resume("drone", now=FROZEN_NOW)
    assert [r.text for r in brief.checkpoint.failed] == ["Beamforming on the MCU"]
    assert [(r.text, r.reason, r.source) for r in brief.earlier] == [("Old idea", "old reason", "checkpoint")]
    assert "## Ruled out earlier on this project\n- Old idea — old reason (claude-7f3, 2026-09-01, checkpoint" \
        in brief.markdown
    assert [r["text"] for r in brief.to_json()["dead_ends_earlier"]] == ["Old idea"]
    # The working note shown (changed after the checkpoint) keeps its own marker; not repeated.
    assert "Raise the PGA gain" not in {r.text for r in brief.earlier}


def test_earlier_dead_ends_are_cut_oldest_first_and_counted(make_vault):
    files = {f"projects/drone/checkpoints/2026090{n}T000000Z-a.md": checkpoint(
        f"2026-09-0{n}T00:00:00Z", f"Round {n}.", failed=[f"Idea number {n} -- reason {n}"]) for n in range(1, 8)}
    root = make_vault(files)
    with Vault(root) as v:
        v.index(embed=False, now=FROZEN_NOW)
        full = v.resume("drone", now=FROZEN_NOW)
        assert [r.text for r in full.earlier] == [f"Idea number {n}" for n in (6, 5, 4, 3, 2, 1)]
        tight = v.resume("drone", max_tokens=estimate_tokens(full.markdown) - 20, now=FROZEN_NOW)
    assert tight.earlier == full.earlier[:len(tight.earlier)] and len(tight.earlier) < 6
    assert tight.cut[0] == "earlier dead end 'Idea number 1'"
    assert f"{6 - len(tight.earlier)} more: `vault-engine deadend list --project drone`" in tight.markdown
    assert "earlier dead end" in tight.markdown.splitlines()[-1]  # counted in the last line


def test_a_brief_cut_to_its_text_still_ends_saying_what_went(vault):
    tight = vault.resume("drone", max_tokens=100, now=FROZEN_NOW)
    assert estimate_tokens(tight.markdown) <= 100
    assert tight.markdown.rstrip().splitlines()[-1].startswith("_Cut to fit 100 tokens: ")
    assert "the rest of the text" in tight.cut


def test_an_empty_summary_reads_as_none_written(make_vault):
    """A checkpoint whose Summary heading has nothing under it (the H1 folded into it): the
    brief says so, never the heading itself as the summary."""
    text = "---\ntype: checkpoint\nproject: p\n---\n# Checkpoint: me on p\n## Summary\n\n\n## Next\n\n## Failed\n- A\n"
    root = make_vault({"projects/p/checkpoints/20261203T123705Z-me.md": text})
    with Vault(root) as v:
        v.index(embed=False, now=FROZEN_NOW)
        brief = v.resume("p", now=FROZEN_NOW)
    assert brief.checkpoint.summary == ""
    assert "### Summary\n(no summary written)" in brief.markdown


def test_a_checkpoint_without_a_date_is_dated_and_named_by_its_file_name(make_vault):
    root = make_vault({"projects/p/checkpoints/20261201T083000Z-codex-9.md":
                       "---\ntype: checkpoint\nproject: p\ncreated: not-a-date\n---\n# C\n## Failed\n- A -- b\n"})
    with Vault(root) as v:
        v.index(embed=False, now=FROZEN_NOW)
        brief = v.resume("p", now=FROZEN_NOW)
        ruling = v.deadend_list("p")[0]
    assert (brief.checkpoint.agent, brief.checkpoint.created) == ("codex-9", 1796113800.0)
    assert (ruling.agent, ruling.when) == ("codex-9", 1796113800.0)


def test_a_tiny_budget_still_ends_with_the_short_cut_line(vault):
    tight = vault.resume("drone", max_tokens=40, now=FROZEN_NOW)
    assert estimate_tokens(tight.markdown) <= 40
    assert tight.markdown.rstrip().splitlines()[-1] == "_Cut to fit 40 tokens (what went: --json `cut`)._"
    assert "the rest of the text" in tight.cut


def test_a_brief_cut_to_its_text_keeps_in_its_json_only_what_its_text_shows(make_vault):
    """The text was cut, but its JSON kept every Next step and Failed item: a 40-token brief
    was 61,712 characters, unbounded once MCP no longer cut resume again (qa40)."""
    steps = [f"Step number {n} of the long plan, with enough words to take a line" for n in range(40)]
    failed = [f"Idea {n} that failed -- reason {n}" for n in range(20)]
    root = make_vault({"projects/drone/checkpoints/20260901T000000Z-a.md":
                       checkpoint("2026-09-01T00:00:00Z", "Round one.", steps, failed)})
    with Vault(root) as v:
        v.index(embed=False, now=FROZEN_NOW)
        tight = v.resume("drone", max_tokens=300, now=FROZEN_NOW)
    shown = tight.checkpoint.next_steps
    assert "the rest of the text" in tight.cut and 0 < len(shown) < 40 and tight.checkpoint.failed == ()
    assert all(f"- {step}" in tight.markdown for step in shown)
    assert f"- {steps[len(shown) + 1]}" not in tight.markdown
    assert len(json.dumps(tight.to_json())) < 4 * 300 * 4  # within a few times the brief's budget


@pytest.mark.parametrize("max_tokens", [40, 41, 47, 60, 99])
def test_every_budget_allowed_ends_with_the_cut_line(vault, max_tokens):
    tight = vault.resume("drone", max_tokens=max_tokens, now=FROZEN_NOW)
    assert estimate_tokens(tight.markdown) <= max_tokens
    assert tight.markdown.rstrip().splitlines()[-1].startswith(f"_Cut to fit {max_tokens} tokens")


@pytest.mark.parametrize("max_tokens", [1, 5, 20, 39])
def test_a_budget_too_small_for_the_cut_line_is_refused_naming_the_minimum(vault, max_tokens):
    with pytest.raises(BadArgument, match=f"^max_tokens {max_tokens} is out of range: use 40 or more"):
        vault.resume("drone", max_tokens=max_tokens, now=FROZEN_NOW)


def test_team_wide_rulings_bearing_on_a_next_step_follow_the_projects_own_the_rest_are_counted(make_vault):
    """A vault of decision records of no project filled "Ruled out earlier" before the
    project's own rulings, and one stood under "Dead ends on other projects"; a repository's
    ADRs then listed JabRef's field-name casing in a billing service's brief."""
    files = dict(FILES)
    files["decisions/0001-storage.md"] = ("---\ndate: 2026-10-01\n---\n# Storage\n## Alternatives considered\n"
                                          "- Run the noise suppression model in the cloud -- latency\n"
                                          "- Another team-wide idea -- too costly\n"
                                          "- Yet another team-wide idea -- too slow\n")
    root = make_vault(files, config=CONFIG)
    with Vault(root) as v:
        v.index(embed=False, now=FROZEN_NOW)
        brief = v.resume("drone", now=FROZEN_NOW)
    assert [(r.text, r.project) for r in brief.earlier] == [  # the one bearing on the step, after "Old idea"
        ("Old idea", "drone"), ("Run the noise suppression model in the cloud", None)]
    assert [r.project for r in brief.elsewhere] == ["search"]  # shares the step's words, but of no project
    assert ("- Run the noise suppression model in the cloud — latency (team-wide, " in brief.markdown
            and "; bears on: Run the noise suppression model on the companion computer\n" in brief.markdown)
    assert "- Old idea — old reason (claude-7f3," in brief.markdown
    assert brief.team_wide_unshown == 2 and (  # a paragraph of its own, not the last item's (qa76)
        "companion computer\n\n2 team-wide dead ends (of no project) bear on no next step, so not listed here: "
        "`vault-engine deadend list --project drone` lists them, and `deadend check` weighs every one."
        in brief.markdown)
    assert brief.to_json()["team_wide_dead_ends_not_listed"] == 2
    with Vault(root) as v:  # a budget that cannot hold everything: the team-wide rulings go first
        tight = v.resume("drone", max_tokens=estimate_tokens(brief.markdown) - 10, now=FROZEN_NOW)
    assert tight.cut == ("earlier dead end 'Run the noise suppression model in the cloud'",)
    assert [r.text for r in tight.earlier] == ["Old idea"]
    assert tight.linked == brief.linked and tight.working_notes == brief.working_notes  # their excerpts kept


def test_a_brief_from_an_index_older_than_the_vault_says_so_first(make_vault):
    # after a `git pull` the brief handed on the checkpoint before the pulled one, without a word (qa25 #2)
    root = make_vault(dict(FILES), config=CONFIG)
    with Vault(root) as v:
        v.index(embed=False, now=FROZEN_NOW)
        assert v.resume("drone", now=FROZEN_NOW).notices == ()
        (root / "projects/drone/checkpoints/20261201T000000Z-b-bot.md").write_text(
            checkpoint("2026-12-01T00:00:00Z", "Pulled from a teammate."))
        brief = v.resume("drone", now=FROZEN_NOW)
    (notice,) = brief.notices
    assert notice.startswith("the index is stale: 1 new, 0 changed, 0 missing in projects/drone/ since the last index")
    assert brief.markdown.startswith(f"# Resume: drone\n\n**Notice:** {notice}\n\n## Last checkpoint")
    assert brief.to_json()["notices"] == [notice]


def test_a_handed_on_checkpoint_moved_away_is_said_while_a_watcher_runs(make_vault):
    # a move out of the vault, or into .trash/, reaches the watcher half a second late: `resume`
    # asked at once handed on the checkpoint moved away, and `deadend list` listed its rulings,
    # without a word (qa146); the folder's scan is no help there, as a watcher applies edits itself
    root = make_vault(dict(FILES), config=CONFIG)
    latest = "projects/drone/checkpoints/20260101T000000Z-claude-7f3.md"
    with Vault(root) as v:
        v.index(embed=False, now=FROZEN_NOW)
        (root / ".trash").mkdir()
        (root / latest).rename(root / ".trash/moved.md")
        with pytest.MonkeyPatch.context() as watched:
            watched.setattr(v._drift, "live_watcher", lambda: {"state": "watching"})
            brief = v.resume("drone", now=FROZEN_NOW)
            listed = v.deadend_list("drone")
    assert brief.checkpoint.path == latest  # the index's answer, as it stands
    assert brief.notices == (f"1 note(s) of this answer were deleted or moved since the last index ({latest}): "
                             "resume again in a moment: the running watcher is applying it",)
    assert any(r.path == latest for r in listed.rulings)
    assert listed.notices == (f"1 note(s) of this answer were deleted or moved since the last index ({latest}): "
                              "list again in a moment: the running watcher is applying it",)


CONFLICTED = "projects/drone/checkpoints/20260101T000000Z-claude-7f3.md"


def _conflicted_vault(make_vault, failed_becomes: str):
    """The vault with its drone checkpoint's ``## Failed`` heading replaced (a merge not resolved)."""
    files = dict(FILES)
    files[CONFLICTED] = files[CONFLICTED].replace("## Failed\n", failed_becomes)
    root = make_vault(files, config=CONFIG)
    with Vault(root) as v:
        v.index(embed=False, now=FROZEN_NOW)
    return root


def test_a_handed_on_note_with_git_conflict_markers_is_said_first(make_vault):
    # a merge not resolved: the brief handed on both sides' Failed items, a reason ending in
    # ">>>>>>> 4bde98", without a word (qa25 #4)
    root = _conflicted_vault(make_vault, "## Failed\n<<<<<<< HEAD\n- Foam -- hum\n=======\n- Tape -- peels\n"
                                         ">>>>>>> 4bde98\n")
    with Vault(root) as v:
        brief = v.resume("drone", now=FROZEN_NOW)
    said = (f"{CONFLICTED} holds unresolved git conflict markers: what the brief shows of it may mix both sides "
            "of a merge; ")
    assert brief.notices == (said + "resolve it",)
    assert f"**Notice:** {CONFLICTED} holds unresolved git conflict markers" in brief.markdown
    with Vault(root) as v:  # and a ruling raised from it says so too
        check = v.deadend_check("tape the mic", lexical_only=True)
    assert [r.text for r in check.rulings] == ["Tape"]
    assert check.notices == (f"{CONFLICTED} holds unresolved git conflict markers: the ruling raised from it may "
                             "mix both sides of a merge; resolve it",)


def test_a_handed_on_checkpoint_with_a_part_not_read_is_said_first(make_vault):
    """A latest checkpoint under `## Faild` was handed on as if it had failed nothing, and a
    check of what it lists was "a miss, not a guess": only `status` said so (qa140)."""
    root = _conflicted_vault(make_vault, "## Faild\n")
    said = f"{CONFLICTED}: heading 'Faild' is no part of a checkpoint (did you mean Failed?): what it lists is not read"
    with Vault(root) as v:
        brief = v.resume("drone", now=FROZEN_NOW)
        check = v.deadend_check("foam windscreen on the mic", project="drone", lexical_only=True)
        elsewhere = v.deadend_check("foam windscreen on the mic", lexical_only=True)
    assert said in brief.notices and f"**Notice:** {said}" in brief.markdown
    assert said in check.notices
    assert said not in elsewhere.notices  # no project named: no note of it is read for the check


def test_a_decision_in_a_merge_not_resolved_shows_both_sides(make_vault):
    """"=======" made the line above it a heading: the Decision was empty in the brief, and a
    check said only one side was chosen (qa92)."""
    root = _conflicted_vault(make_vault, "## Decision\n<<<<<<< HEAD\nUse a dedicated outbox table.\n=======\n"
                                         "Use Kafka topics.\n>>>>>>> origin/main\n## Failed\n")
    with Vault(root) as v:
        brief = v.resume("drone", now=FROZEN_NOW)
    assert "Use a dedicated outbox table." in brief.markdown and "Use Kafka topics." in brief.markdown
    assert not any(marker in brief.markdown for marker in ("<<<<<<<", "=======", ">>>>>>>"))


def test_the_brief_shows_what_the_checkpoint_chose(make_vault):
    # the Goal was never shown, though `deadend check` answers with it as "chosen instead" (qa24 #3)
    files = dict(FILES)
    files["projects/drone/checkpoints/20260101T000000Z-claude-7f3.md"] = checkpoint(
        "2026-09-10T00:00:00Z", "Both mics stay.", next_steps=["Tune the filter"],
        failed=["Beamforming on the MCU -- not enough RAM"]).replace(
        "## Next", "## Goal\nBeamform on the companion computer; the MCU forwards raw frames.\n## Next")
    with Vault(make_vault(files, config=CONFIG)) as v:
        v.index(embed=False, now=FROZEN_NOW)
        brief = v.resume("drone", now=FROZEN_NOW)
    goal = "Beamform on the companion computer; the MCU forwards raw frames."
    assert brief.checkpoint.goal == goal and brief.to_json()["checkpoint"]["goal"] == goal
    assert f"### Goal\n{goal}\n\n### Next\n- Tune the filter" in brief.markdown
    decided = files["projects/drone/checkpoints/20260101T000000Z-claude-7f3.md"].replace("## Goal", "## Decision")
    files["projects/drone/checkpoints/20260101T000000Z-claude-7f3.md"] = decided
    with Vault(make_vault(files, config=CONFIG)) as v:
        v.index(embed=False, now=FROZEN_NOW)
        brief = v.resume("drone", now=FROZEN_NOW)
    assert f"### Decision\n{goal}\n" in brief.markdown  # as it is headed: it was shown as a Goal (qa74)


def test_a_superseded_records_rulings_are_said_so_in_the_brief(make_vault):
    """The brief listed a superseded record's rejections as current, where `deadend check`
    said the record no longer holds (qa53)."""
    files = dict(FILES)
    files["decisions/0009-queue.md"] = (
        "---\nproject: drone\nstatus: superseded by ADR-0011\ndate: 2026-08-01\n---\n# Queue\n"
        "## Considered Options\n* RabbitMQ\n* SQS standard\n## Decision Outcome\n"
        'Chosen option: "RabbitMQ", because we run it.\n')
    with Vault(make_vault(files, config=CONFIG)) as v:
        v.index(embed=False, now=FROZEN_NOW)
        brief = v.resume("drone", now=FROZEN_NOW)
    line = next(line for line in brief.markdown.splitlines() if line.startswith("- SQS standard"))
    assert line.endswith("; the record is superseded by ADR-0011)")


def test_a_created_day_takes_its_time_from_the_name():
    """`created: 2026-12-04` in `20261204T080000Z-codex.md` was shown at 00:00 (qa51)."""
    from vault_engine.memory.plans import created_time
    from vault_engine.stores.ledger import NoteRow

    def note(path, created):
        return NoteRow(1, path, "t", "checkpoint", "p", "vault", None, int(2e18), None, {"created": created}, None)

    at_eight = dt.datetime(2026, 12, 4, 8, tzinfo=dt.UTC).timestamp()
    assert created_time(note("p/20261204T080000Z-codex.md", "2026-12-04")) == at_eight
    assert created_time(note("p/20261205T080000Z-codex.md", "2026-12-04")) == at_eight - 8 * 3600  # another day
    assert created_time(note("p/20261204T080000Z-codex.md", "2026-12-04T07:00:00Z")) == at_eight - 3600


def test_a_checkpoint_whose_created_is_no_date_is_dated_by_its_name_and_said(make_vault):
    """`created: 03/12/2026 14:00` dated a 2026-12-03 checkpoint by its file time: it became
    the latest over one written after it, and only `status` said why (qa51)."""
    files = dict(FILES)
    misdated = "projects/drone/checkpoints/2026-09-05-codex-b2.md"
    files[misdated] = checkpoint("03/12/2026 14:00", "A day-named round.", next_steps=["Stale step"])
    with Vault(make_vault(files, config=CONFIG)) as v:
        v.index(embed=False, now=FROZEN_NOW)
        brief = v.resume("drone", now=FROZEN_NOW)
    assert brief.checkpoint.path == "projects/drone/checkpoints/20260101T000000Z-claude-7f3.md"  # created 09-10
    assert brief.notices == (f"{misdated}: created '03/12/2026 14:00' is no date this reads (write a date and "
                             "time such as 2026-12-03T14:00:00Z); it is dated by the date in its name, which may "
                             "misplace it among the checkpoints",)


def test_next_steps_ticked_off_are_done_and_not_handed_on(make_vault):
    """"- [x] Android: Coil" was handed on as a next step beside the open "- [ ] iOS:
    Kingfisher", its checkbox stripped (qa51)."""
    files = dict(FILES)
    files["projects/drone/checkpoints/20260101T000000Z-claude-7f3.md"] = checkpoint(
        "2026-09-10T00:00:00Z", "Both mics stay.",
        next_steps=["[ ] iOS: Kingfisher", "[x] Android: Coil", "[-] Web: dropped", "[/] Desktop: halfway"])
    with Vault(make_vault(files, config=CONFIG)) as v:
        v.index(embed=False, now=FROZEN_NOW)
        brief = v.resume("drone", now=FROZEN_NOW)
    assert brief.checkpoint.next_steps == ("iOS: Kingfisher", "Desktop: halfway")
    assert brief.to_json()["checkpoint"]["next_closed"] == 2
    assert "### Next\n- iOS: Kingfisher\n- Desktop: halfway\n(2 ticked off, not listed)" in brief.markdown


def test_a_linked_heading_the_note_lacks_hands_on_the_notes_ref_and_says_so(make_vault):
    files = dict(FILES)
    latest = "projects/drone/checkpoints/20260101T000000Z-claude-7f3.md"
    files[latest] = files[latest].replace("[[audio#Buffers]]", "[[audio#Nope]]")
    with Vault(make_vault(files, config=CONFIG)) as v:
        v.index(embed=False, now=FROZEN_NOW)
        brief = v.resume("drone", now=FROZEN_NOW)
        (audio,) = [n for n in brief.linked if n.path == "specs/audio.md"]
        assert (audio.ref, audio.missing) == ("specs/audio.md", "Nope")  # the ref opens; it was ...#Nope
        assert v.show(audio.ref).path == "specs/audio.md"
    assert [n["section_missing"] for n in brief.to_json()["specs"]] == ["Nope", None]
    assert "- specs/audio.md (spec, " in brief.markdown and "the link names #Nope, which it lacks" in brief.markdown


def test_a_checkpoint_that_could_not_be_read_is_said_in_the_brief(make_vault, monkeypatch):
    """A checkpoints folder listed but not entered: "No checkpoint yet: nobody has checked in",
    without a word why (qa64)."""
    from vault_engine.indexing import reading

    real_read = reading.read_note

    def denied(root, rel, *rest):
        if "/checkpoints/" in rel:
            raise reading.Unreadable("permission denied: make the file readable to index it")
        return real_read(root, rel, *rest)

    root = make_vault({"projects/p/checkpoints/20260901T000000Z-a.md": checkpoint("2026-09-01T00:00:00Z", "Done.")
                       .replace("project: drone", "project: p"), "projects/p/notes.md": "# Notes\nx\n"})
    monkeypatch.setattr(reading, "read_note", denied)
    with Vault(root) as v:
        v.index(embed=False, now=FROZEN_NOW)
        brief = v.resume("p", now=FROZEN_NOW)
    assert brief.checkpoint is None
    assert brief.notices == ("1 note(s) of projects/p/ could not be read when indexed (projects/p/checkpoints/"
                             "20260901T000000Z-a.md: permission denied: make the file readable to index it): "
                             "what they hold is not in this brief",)
    assert "could not be read when indexed" in brief.markdown


def test_a_renamed_project_folder_is_said_by_both_names(make_vault, cli):
    """Notes in projects/event-ingest/ still saying `project: ingest-pipeline`: the new name's
    brief left half the history out without a word, the old name's handed on a done plan (qa94)."""
    old = checkpoint("2026-11-20T00:00:00Z", "Before the rename.", failed=["Offsets in Postgres -- lock waits"])
    new = checkpoint("2026-12-01T00:00:00Z", "After the rename.", next_steps=["Replay the DLQ"])
    root = make_vault({"projects/event-ingest/checkpoints/20261120T000000Z-a.md": old.replace("drone", "ingest-pipeline"),
                       "projects/event-ingest/checkpoints/20261201T000000Z-b.md": new.replace("drone", "event-ingest")},
                      config="[model]\nenabled = false\n")
    assert cli("--vault", root, "index").code == 0
    brief = cli("--vault", root, "resume", "--project", "event-ingest", "--json").json
    assert ("1 note(s) in projects/event-ingest/ say `project: ingest-pipeline` (a renamed project folder?): their "
            "checkpoints and dead ends count as ingest-pipeline's, not event-ingest's; set `project: event-ingest` in them "
            "to make them this project's") in brief["notices"]
    stale = cli("--vault", root, "resume", "--project", "ingest-pipeline", "--json").json
    assert any(n.startswith("1 note(s) of ingest-pipeline lie in projects/event-ingest/, the folder of project "
                            "event-ingest") for n in stale["notices"])
    listed = cli("--vault", root, "deadend", "list", "--project", "event-ingest")
    assert "say `project: ingest-pipeline`" in listed.err


def test_a_latest_checkpoint_dated_only_by_its_file_time_says_so(make_vault):
    """After a clone, a hand-written note with no `created` and no time in its name was the
    latest by its new file time, and the real hand-off vanished without a word (qa94)."""
    kickoff = "---\ntype: checkpoint\nproject: drone\n---\n# Kickoff notes\n## Next\n- Old kickoff step\n"
    root = make_vault({**FILES, "projects/drone/checkpoints/maria-kickoff-notes.md": kickoff}, config=CONFIG)
    with Vault(root) as v:
        v.index(embed=False, now=FROZEN_NOW)
        brief = v.resume("drone", now=FROZEN_NOW)
    assert brief.checkpoint.path == "projects/drone/checkpoints/maria-kickoff-notes.md"
    assert any(n.startswith("projects/drone/checkpoints/maria-kickoff-notes.md is taken for the latest checkpoint "
                            "by its file time") for n in brief.notices)
    (root / "projects/drone/checkpoints/maria-kickoff-notes.md").unlink()
    with Vault(root) as v:  # dated ones alone: nothing to say
        v.index(embed=False, now=FROZEN_NOW)
        assert not any("by its file time" in n for n in v.resume("drone", now=FROZEN_NOW).notices)


def test_a_checkpoint_alongside_the_latest_shows_what_it_chose(make_vault):
    """Its Decision was in the JSON only: the session-start brief is Markdown (qa94)."""
    gemini = checkpoint("2026-09-10T09:59:00Z", "gemini's", next_steps=["Paginate long tables"]).replace(
        "## Next", "## Decision\nCap max.poll.records at 200.\n## Next")
    files = {"projects/p/checkpoints/20260910T095900Z-b.md": gemini,
             "projects/p/checkpoints/20260910T100000Z-c.md": checkpoint("2026-09-10T10:00:00Z", "claude's",
                                                                       next_steps=["Embed photos at 150 dpi"])}
    with Vault(make_vault(files)) as v:
        v.index(embed=False, now=FROZEN_NOW)
        brief = v.resume("drone", now=FROZEN_NOW)
    assert "Decision: Cap max.poll.records at 200." in brief.markdown.split("## Checkpointed at the same time")[1]


def test_a_wrap_up_checkpoint_of_no_next_step_says_the_plan_it_leaves_open(make_vault):
    """A checkpoint with no Next section became the latest, and the previous session's open
    step dropped out of the brief without a word (qa178); one that ticks it off says nothing."""
    def checkpoint(agent, when, body):
        return f"---\ntype: checkpoint\nproject: exp\nagent: {agent}\ncreated: {when}\n---\n# Export\n{body}"
    planned = checkpoint("a1", "2026-12-01T10:00:00Z", "## Summary\nExport works.\n## Next\n- Mail the presigned link\n")
    wrap_up = checkpoint("b2", "2026-12-02T10:00:00Z", "## Summary\nCleaned up the branch.\n")
    root = make_vault({"projects/exp/checkpoints/20261201T100000Z-a1.md": planned,
                       "projects/exp/checkpoints/20261202T100000Z-b2.md": wrap_up})
    with Vault(root) as vault:
        vault.index(embed=False, now=FROZEN_NOW)
        notices = vault.resume("exp").notices
    assert ("the latest checkpoint writes no next steps; the plan before it, "
            "projects/exp/checkpoints/20261201T100000Z-a1.md (a1, 2026-12-01), left open: Mail the presigned link"
            ) in notices
    (root / "projects/exp/checkpoints/20261202T100000Z-b2.md").write_text(
        wrap_up + "## Next\n- [x] Mail the presigned link\n")
    with Vault(root) as vault:
        vault.index(embed=False, now=FROZEN_NOW)
        assert not any("writes no next steps" in n for n in vault.resume("exp").notices)
