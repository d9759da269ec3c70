"""sample-vault/ is the demo and the fixture many tests and evaluations use: pin what it promises.

Indexed once per module with the real ledger (SQLite) and Whoosh; lexical only, no model.
"""

from __future__ import annotations

import datetime as dt
import re
import shutil
from collections import Counter

import pytest

from tests.conftest import SAMPLE_VAULT
from vault_engine.config import load_config
from vault_engine.parsing.note import parse_note
from vault_engine.vault import Vault

TODAY = dt.datetime(2026, 11, 29, tzinfo=dt.UTC).timestamp()  # the vault's "now"
DAY = 86_400.0
CHECKPOINT_NAME = re.compile(r"^(\d{8}T\d{6}Z)-([a-z0-9-]+)\.md$")


@pytest.fixture(scope="module")
def vault(tmp_path_factory) -> Vault:
    root = tmp_path_factory.mktemp("sample") / "vault"
    shutil.copytree(SAMPLE_VAULT, root, ignore=shutil.ignore_patterns(".vault-engine"))
    v = Vault(root)
    v.index()
    yield v
    v.close()


@pytest.fixture(scope="module")
def notes() -> dict[str, object]:
    """Every note of sample-vault/ parsed (pure parsing, no index)."""
    config = load_config(SAMPLE_VAULT)
    return {p.relative_to(SAMPLE_VAULT).as_posix(): parse_note(p.relative_to(SAMPLE_VAULT).as_posix(),
                                                               p.read_text(encoding="utf-8"), config)
            for p in SAMPLE_VAULT.rglob("*.md") if ".obsidian" not in p.parts}


def test_indexes_cleanly_with_one_deliberate_unresolved_link(vault):
    status = vault.status()
    assert (status["skipped_files"], status["yaml_errors"]) == ([], [])
    assert [u["raw"] for u in status["unresolved"]] == ["[[capacity-plan-2027]]"]
    assert status["ambiguous_links"] >= 1
    assert status["notes"] == len(list(SAMPLE_VAULT.rglob("*.md")))  # .obsidian/ holds no note


# (source, raw link) -> the ref it must resolve to: one row per link form the README lists.
EXPECTED_LINKS = {
    ("README.md", "[[audio-pipeline]]"): "specs/audio-pipeline.md",
    ("README.md", "[[auth-sessions|how sessions work]]"): "specs/auth-sessions.md",
    ("README.md", "[[search-infra/runbook]]"): "projects/search-infra/runbook.md",
    ("meetings/2026-11-18 design review.md", "[[auth-sessions#Token refresh]]"):
        "specs/auth-sessions.md#Token refresh",
    ("meetings/2026-11-18 design review.md", "[[audio-pipeline#Buffers#Beamformer input]]"):
        "specs/audio-pipeline.md#Buffers#Beamformer input",
    ("meetings/2026-11-18 design review.md", "[[payments-idempotency#^key-ttl|the 24 h key TTL]]"):
        "specs/payments-idempotency.md#^key-ttl",
    ("meetings/2026-11-18 design review.md", "![[glossary#Beamforming]]"): "glossary.md#Beamforming",
    ("specs/audio-pipeline.md", "![[mic-array-layout.png]]"): "attachments/mic-array-layout.png",
    ("specs/audio-pipeline.md", "[[#Buffers]]"): "specs/audio-pipeline.md#Buffers",
    ("README.md", "[the 18 November design review](meetings/2026-11-18%20design%20review.md)"):
        "meetings/2026-11-18 design review.md",
    ("notion/Mic Vendor Shortlist e7a3015bd9c24e68a1f4b2c3d5e6f708.md",
     "[Engineering Roadmap Q4 2026](Engineering%20Roadmap%20Q4%202026%208c1f2a9e4b7d4f0a9e3c5d6b7a8f9012.md)"):
        "notion://8c1f2a9e4b7d4f0a9e3c5d6b7a8f9012",
}


def test_every_link_form_resolves_as_intended(vault):
    found = {(link.source, link.raw): link for link in vault.all_links()}
    for key, ref in EXPECTED_LINKS.items():
        assert key in found, f"missing link {key}"
        assert (found[key].ref, found[key].resolved) == (ref, True), key


def test_same_name_notes_make_an_ambiguous_link_that_picks_the_shortest_path(vault):
    runbooks = [link for link in vault.all_links() if link.raw == "[[runbook]]"]
    assert runbooks and all(link.ambiguous for link in runbooks)
    assert {link.target_path for link in runbooks} == {"projects/drone-audio/runbook.md"}


def test_nothing_in_code_or_comments_is_a_link(vault):
    links = vault.all_links()
    assert not {link.raw for link in links} & {"[[Example note#Some heading]]", "[[project-history]]"}
    assert not [link for link in links if link.source == "glossary.md" and link.raw == "[[glossary]]"]
    # README.md has `[[runbook]]` in a code span (line 40) and a real [[runbook]] (line 41).
    assert [link.line for link in links if link.source == "README.md" and link.raw == "[[runbook]]"] == [41]


def test_every_resolved_heading_and_block_exists(vault):
    for link in vault.all_links():
        if link.resolved and link.target_path.endswith(".md"):
            assert vault.show(link.ref).path == link.target_path


def test_checkpoints_follow_the_design_format(notes):
    checkpoints = {p: n for p, n in notes.items() if "/checkpoints/" in p}
    assert Counter(n.project for n in checkpoints.values()) == {
        "drone-audio": 3, "billing-service": 3, "search-infra": 3}
    for path, note in checkpoints.items():
        stamp, agent = CHECKPOINT_NAME.match(path.rsplit("/", 1)[-1]).groups()
        created = dt.datetime.strptime(stamp, "%Y%m%dT%H%M%SZ").replace(tzinfo=dt.UTC)
        assert (note.kind, note.meta["agent"], note.doc_time) == ("checkpoint", agent, created.timestamp())
        headings = [s.heading for s in note.sections if s.heading]
        assert headings == ["Summary", "Next", "Failed"], path  # the empty title folds into Summary
        assert note.sections[0].heading_path[0].startswith("Checkpoint: "), path


def test_failed_items_come_in_every_form(notes):
    dead_ends = [d for n in notes.values() if n.kind == "checkpoint" for d in n.dead_ends]
    assert len(dead_ends) >= 15
    raw = "\n".join((SAMPLE_VAULT / p).read_text() for p, n in notes.items() if n.kind == "checkpoint")
    assert "\n  - Reason: " in raw and re.search(r"^- .+ — ", raw, re.M) and re.search(r"^- .+ -- ", raw, re.M)
    assert any(d.reason is None for d in dead_ends)
    assert any("[[" in d.text for d in dead_ends)


def test_working_notes_use_every_marker_and_a_failure_that_is_not_a_dead_end(notes):
    raw = "\n".join((SAMPLE_VAULT / p).read_text() for p, n in notes.items() if n.kind == "working-note")
    for marker in (r"^> \[!deadend\] ", r"^> \[!failed\] ", r"^DEADEND: ", r"^FAILED: ", r"^- .+ #deadend\b"):
        assert re.search(marker, raw, re.M), marker
    assert "failed to compile" in raw
    marked = [d.text for n in notes.values() if n.kind == "working-note" for d in n.dead_ends]
    assert len(marked) >= 8 and not any("compile" in text for text in marked)


def test_the_accepted_design_sits_next_to_the_rejected_one(notes):
    failed = {d.text for n in notes.values() for d in n.dead_ends}
    assert "Keep sessions in a shared Redis" in failed
    summary = next(s.text for s in notes["projects/billing-service/checkpoints/20261029T154500Z-codex-a12.md"].sections
                   if s.heading == "Summary")
    assert "keep sessions in signed cookies" in summary.casefold()
    assert "Keep sessions in signed cookies" in (SAMPLE_VAULT / "specs/auth-sessions.md").read_text()


def test_a_killed_agent_left_findings_newer_than_the_last_checkpoint(notes):
    drone = {p: n for p, n in notes.items() if n.project == "drone-audio"}
    last_checkpoint = max(n.doc_time for n in drone.values() if n.kind == "checkpoint")
    newer = [p for p, n in drone.items() if n.kind == "working-note" and n.doc_time > last_checkpoint]
    assert newer == ["projects/drone-audio/working/codex-a12-dma-buffers.md"]


def test_specs_have_different_ages_and_notion_and_memory_their_fields(notes):
    ages = [(TODAY - n.doc_time) / DAY for n in notes.values() if n.kind == "spec"]
    assert 6 <= len(ages) <= 8 and min(ages) <= 7 and max(ages) >= 90
    for path, note in notes.items():
        if note.kind == "notion":
            assert path.removesuffix(".md").endswith(" " + note.meta["notion_id"]) and note.meta["last_edited_time"]
    facets = {n.meta["facet"] for n in notes.values() if n.kind == "memory"}
    assert facets <= {"lifecycle", "data_state", "boundaries", "invariants", "failure"} and len(facets) >= 4
    assert "area/audio" in notes["specs/audio-pipeline.md"].tags


def test_the_makefile_demo_commands_answer(vault):
    hits = vault.search("why did we drop the second microphone", lexical_only=True, k=3).hits
    assert "projects/drone-audio/checkpoints/20261114T102200Z-claude-7f3.md" in [h.path for h in hits]
    assert "38 KB free" in vault.show("specs/audio-pipeline.md#Buffers").text


def test_the_vault_stays_small():
    size = sum(p.stat().st_size for p in SAMPLE_VAULT.rglob("*") if p.is_file() and ".vault-engine" not in p.parts)
    assert size < 200_000


def test_a_block_ref_shows_the_block_alone(vault):
    """`show NOTE#^id` showed the whole section around the block (qa27 F8); Obsidian embeds the block."""
    view = vault.show("specs/payments-idempotency.md#^key-ttl")
    assert view.ref == "specs/payments-idempotency.md#^key-ttl" and view.heading == "Storage"
    assert view.text.startswith("Keys live in their own table") and view.text.endswith("after 24 hours. ^key-ttl")
    assert (view.line_start, view.line_end) == (18, 20)


def test_block_lines_are_those_obsidian_embeds():
    from vault_engine.retrieval.lookup import block_lines

    text = ("## Goals\n- retire the old API ^a\n- ship v2\n  continued ^b\n\nA paragraph\nof two lines ^p\n\n"
            "| a | b |\n| - | - |\n\n^table\n\n- x\n- y\n\n^list")
    assert {b: block_lines(text, b) for b in ("a", "b", "p", "table", "list", "none")} == {
        "a": (1, 1), "b": (2, 3), "p": (5, 6), "table": (8, 9), "list": (13, 14), "none": None}
    # a list item with its nested items, as Obsidian embeds it; an id in code is code (qa29 N5)
    nested = "- Parent item ^parent\n  - child one\n  - child two\n- next\n\n```\ncode line ^incode\n```\n"
    assert (block_lines(nested, "parent"), block_lines(nested, "incode")) == ((0, 2), None)


def test_the_readmes_turned_down_examples_raise_nothing_they_turn_down(vault):
    """With the meaning arm, "Instead of a shared Redis, keep sessions in each pod" raised "A
    shared Redis holding the sessions": the refusal was asked for 90% of it (qa30 F1)."""
    for proposal in ("Instead of a shared Redis, keep sessions in each pod", "Use signed cookies, not a shared Redis"):
        check = vault.deadend_check(proposal, project="billing-service")
        assert check.arms == ("lexical", "semantic")
        assert not [r.text for r in check.rulings if "Redis" in r.text], proposal
    restated = vault.deadend_check("Keep sessions in a shared Redis", project="billing-service")
    assert restated.rulings[0].text == "Keep sessions in a shared Redis"
