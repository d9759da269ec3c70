"""Search end to end on real stores: decay after fusion, reinforcement, following links
(vault_engine/retrieval/search.py through the Vault facade)."""

import datetime as dt
import os
import shutil
from dataclasses import replace

import pytest

from tests.conftest import FROZEN_NOW
from vault_engine.retrieval.decay import SECONDS_PER_DAY
from vault_engine.vault import Vault

TAPS = '[taps.specs]\nsource = "vault"\npaths = ["specs/**"]\nhalf_life_days = 30\nfloor = 0.2\n'
BODY = "# Rate limits\nThe gateway throttles bursts with a token bucket per tenant.\n"


def dated(days_ago: float) -> str:
    when = dt.datetime.fromtimestamp(FROZEN_NOW - days_ago * SECONDS_PER_DAY, dt.UTC)
    return f"---\nupdated: {when.isoformat()}\n---\n"


@pytest.fixture
def twins(make_vault):
    root = make_vault({"specs/old.md": dated(90) + BODY, "specs/new.md": dated(2) + BODY}, config=TAPS)
    with Vault(root) as v:
        v.index()
        yield v


def ranking(v, **kw):
    result = v.search("token bucket throttles", lexical_only=True, now=FROZEN_NOW, **kw)
    return [(h.path, round(h.scores.decay, 3)) for h in result.hits]


def test_the_recent_twin_ranks_first_and_the_old_one_sits_on_the_floor(twins):
    assert ranking(twins) == [("specs/new.md", 0.955), ("specs/old.md", 0.2)]


def test_no_decay_shows_the_raw_ranking(twins):
    assert [d for _, d in ranking(twins, decay=False)] == [1.0, 1.0]
    raw = twins.search("token bucket throttles", lexical_only=True, now=FROZEN_NOW, decay=False)
    assert sorted(round(h.age_days) for h in raw.hits) == [2, 90]  # the age is still said, only not applied


def test_reinforcing_the_old_twin_brings_it_back(twins):
    twins.reinforce("specs/old.md#Rate limits", by="agent-1", why="used it", now=FROZEN_NOW)
    assert dict(ranking(twins))["specs/old.md"] == 1.0
    assert ranking(twins)[0][0] == "specs/old.md"


def test_reinforcement_survives_deleting_the_index(twins):
    twins.reinforce("specs/old.md", now=FROZEN_NOW)
    twins.close()
    shutil.rmtree(twins.root / ".vault-engine" / "index")
    twins.index()
    assert dict(ranking(twins))["specs/old.md"] == 1.0


def test_a_renamed_note_keeps_its_reinforcement_even_after_a_rebuild(twins):
    twins.reinforce("specs/old.md", now=FROZEN_NOW)
    os.rename(twins.root / "specs/old.md", twins.root / "specs/renamed.md")
    assert twins.index().moved == 1
    assert dict(ranking(twins))["specs/renamed.md"] == 1.0
    twins.index(rebuild=True)
    assert dict(ranking(twins))["specs/renamed.md"] == 1.0


def test_unknown_refs_and_taps_are_errors(twins):
    from vault_engine.errors import ConfigError, UnknownRef

    with pytest.raises(UnknownRef, match="no note 'specs/nope.md'"):
        twins.reinforce("specs/nope.md")
    with pytest.raises(UnknownRef, match="has no heading 'Missing'") as missing:
        twins.reinforce("specs/old.md#Missing")
    assert str(missing.value).endswith("its headings: 'Rate limits'")  # BODY's: what to ask instead
    with pytest.raises(UnknownRef, match=r"has no block '\^nope' \(a line ending in ` \^nope`\)"):
        twins.show("specs/old.md#^nope")
    with pytest.raises(ConfigError, match="no tap named 'nope'"):
        twins.search("x", tap="nope")


def test_a_heading_missing_from_a_note_changed_since_the_index_says_it_may_be_new(twins):
    """A teammate's new section, `show`n or `links`ed before an index: "has no heading" alone told
    an agent with MCP alone that it did not exist (qa193)."""
    from vault_engine.errors import UnknownRef

    with open(twins.root / "specs/old.md", "a", encoding="utf-8") as note:
        note.write("\n## Wibblequux\n\nA new entry.\n")
    for look in (twins.show, twins.links):
        with pytest.raises(UnknownRef, match="has no heading 'Wibblequux'") as missing:
            look("specs/old.md#Wibblequux")
        assert str(missing.value).endswith("; specs/old.md changed since the last index and may hold it now: run "
                                           "`vault-engine index`, then ask again")
    twins.index(embed=False)
    assert twins.show("specs/old.md#Wibblequux").heading == "Wibblequux"


def test_a_tap_removed_from_the_config_since_the_index_fails_no_query(make_vault):
    """The ledger still names the tap: search and resume failed with "no tap named 'specs'"
    (a tap the user never asked for) until the next index; the current rules decide now."""
    root = make_vault({"specs/old.md": dated(90) + BODY,
                       "projects/p/checkpoints/20261001T000000Z-a.md": "---\ntype: checkpoint\nproject: p\n---\n"
                       "# C\n## Summary\nRead specs/old.md\n"}, config=TAPS)
    with Vault(root) as v:
        v.index(embed=False)
    (root / "vault-engine.toml").write_text("# no taps any more\n")
    with Vault(root) as v:
        hits = v.search("token bucket throttles", lexical_only=True, now=FROZEN_NOW).hits
        assert [(h.path, h.scores.decay) for h in hits] == [("specs/old.md", 1.0)]  # the vault tap: no decay
        assert v.resume("p").checkpoint is not None


def test_a_note_is_shown_by_a_section_that_says_something_at_the_place_of_its_best(make_vault):
    """A title query on a Nygard ADR showed its `## Status` ("Accepted") first in 26 of 38
    titles: the title is most of that section's text. A section with a few words of its own
    stands for the note, and the thin one follows with the rest."""
    adr = ("# 6. Puppet architecture\n\nDate: 2017-07-04\n\n## Status\n\nAccepted\n\n"
           "## Context\n\nWhether we use a central server or a masterless approach for configuration.\n")
    root = make_vault({"adr/0006-puppet-architecture.md": adr, "adr/0007-tls.md": "# 7. TLS\n\n## Status\n\nPending\n"})
    with Vault(root) as v:
        v.index(embed=False)
        hits = v.search("Puppet architecture", lexical_only=True).hits
        assert hits[0].ref == "adr/0006-puppet-architecture.md#Context"
        assert hits[0].scores.lexical < max(h.scores.lexical for h in hits)  # a thin section scored best
        assert v.search("TLS", lexical_only=True).hits[0].ref == "adr/0007-tls.md#Status"  # nothing else of it


def test_a_section_in_chinese_or_japanese_says_something(make_vault):
    """Two sentences of Chinese and Japanese, which run on without spaces, had counted as two
    words: the section that held the query was "nothing to read", and its note was shown by
    another section, 16 places below the hit it should have been (qa145)."""
    note = ("# Unicode notes\n\n## 数据库\n我们使用数据库存储传感器日志。データベースのバックアップは毎晩行う。\n\n"
            "## Emoji\nDeploy went fine; rollback plan ready. Mixed naive test.\n")
    root = make_vault({"unicode.md": note, "other.md": "# Other\n\nA rollback plan for the deploy, and more words.\n"})
    with Vault(root) as v:
        v.index(embed=False)
        hits = v.search("数据库 rollback", lexical_only=True).hits
        assert hits[0].ref == "unicode.md#数据库"


def test_a_table_of_contents_says_nothing_of_its_own(make_vault):
    """Every KEP opens with its contents under the title: the title section, only the note's
    headings again, was the first hit (`high`) of a question its Motivation answers (qa115).
    A list of links to the note's own headings, Markdown or wikilink, is no text of its own;
    a list of links to other notes (a hub) still is."""
    kep = ("# KEP-4563: EvictionRequest API\n\n<!-- toc -->\n- [Summary](#summary)\n- [Motivation](#motivation)\n"
           "  - [PodDisruptionBudget Standing Issues](#poddisruptionbudget-standing-issues)\n<!-- /toc -->\n\n"
           "## Summary\n\nAn API to request the eviction of a pod, with a responder that decides.\n\n"
           "## Motivation\n\n### PodDisruptionBudget Standing Issues\n\nA PodDisruptionBudget cannot stop an eviction "
           "that a node drain needs.\n")
    hub = "# Eviction reading\n\n- [[#Eviction notes]]\n- [[eviction-request]]\n- [[drain api]]\n\n## Eviction notes\nsee above\n"
    root = make_vault({"keps/4563/README.md": kep, "hub.md": hub})
    with Vault(root) as v:
        v.index(embed=False)
        hits = v.search("EvictionRequest API PodDisruptionBudget issues", lexical_only=True).hits
        assert hits[0].path == "keps/4563/README.md" and hits[0].heading != "KEP-4563: EvictionRequest API"
        assert "keps/4563/README.md#KEP-4563: EvictionRequest API" not in hits[0].also
        assert v.search("eviction reading", lexical_only=True).hits[0].ref == "hub.md#Eviction reading"


def test_the_line_introducing_a_table_of_contents_is_part_of_it(make_vault):
    """obsidian-tasks-docs' Filters page: "## Contents", a line "Here are some links to the main
    sections:" and the list, was the first hit of "filters with OR" (qa122); a line ending in a
    colon before a list of other notes still says something."""
    filters = ("# Filters\n\n## Contents\n\nThis page is long. Here are some links to the main sections:\n\n"
               "- [[#Matching multiple filters]]\n- [[#Text filters]]\n\n## Matching multiple filters\n\n"
               "Combine several filters with boolean operators.\n\n## Text filters\n\nFilter on the task description text.\n")
    hub = "# Reading\n\n## Start\n\nThe notes on filters:\n\n- [[Filters]]\n- [[Queries]]\n"
    root = make_vault({"Filters.md": filters, "hub.md": hub})
    with Vault(root) as v:
        v.index(embed=False)
        first = v.search("filters contents", lexical_only=True).hits[0]
        assert first.path == "Filters.md" and first.heading != "Contents"
        assert v.search("reading start notes", lexical_only=True).hits[0].ref == "hub.md#Start"


def test_a_contents_linking_with_its_notes_own_name_says_nothing_and_a_sentence_before_its_intro_does(make_vault):
    """`[[Postgres Notes#Vacuum]]` and `[Vacuum](Postgres%20Notes.md#vacuum)` in Postgres Notes.md
    link its own headings too; and a paragraph that ends in the contents' colon keeps its
    sentences before it (the whole paragraph had been dropped as the intro: qa124)."""
    postgres = ("# Postgres Notes\n\n## Contents\n\n- [[Postgres Notes#Vacuum tuning]]\n"
                "- [Replication](Postgres%20Notes.md#replication)\n\n## Vacuum tuning\n\nRaise the cost limit.\n\n"
                "## Replication\n\nSlots hold the WAL.\n")
    backup = ("# Backup Policy\n\n## Overview\n\nNightly snapshots are copied to a second region per the auditors "
              "retention rule. The sections below cover each store:\n\n- [[#Object storage]]\n\n"
              "## Object storage\n\nVersioning is on.\n")
    root = make_vault({"Postgres Notes.md": postgres, "Backup Policy.md": backup})
    with Vault(root) as v:
        v.index(embed=False)
        first = v.search("postgres notes contents vacuum replication", lexical_only=True).hits[0]
        assert first.path == "Postgres Notes.md" and first.heading != "Contents"
        assert v.search("auditors retention rule second region", lexical_only=True).hits[0].ref == \
            "Backup Policy.md#Overview"


def test_an_embed_and_a_comment_say_nothing_and_a_snippet_is_what_reading_view_shows(make_vault):
    # a data-engineering-wiki section of two benchmark lines, then an embed and the wiki's footer
    # comment, was shown by the embed and the comment ("wiki footer: Please don't edit ...")
    wiki = ("# Warehouse\n\n## Benchmarks\n- 1 TB: [Redshift and BigQuery](https://x.org/b)\n\n"
            "![[Resources#Warehousing]]\n\n%% wiki footer: Please don't edit anything below this line %%\n\n"
            "## Tools\nWarehouse tools: [[Snowflake|the Snowflake warehouse]] and more of them here.\n")
    root = make_vault({"warehouse.md": wiki, "Resources.md": "# Resources\n## Warehousing\nbooks\n"})
    with Vault(root) as v:
        v.index(embed=False)
        hits = v.search("warehousing benchmarks", lexical_only=True).hits
        assert (hits[0].ref, hits[0].snippet) == ("warehouse.md#Benchmarks", "- 1 TB: Redshift and BigQuery")
        tools = v.search("snowflake warehouse tools", lexical_only=True).hits[0]
        assert tools.snippet == "Warehouse tools: the Snowflake warehouse and more of them here."


def test_a_hit_with_no_word_of_its_own_is_shown_by_its_notes_properties(make_vault):
    # kepano's templates: hits whose snippet was a bare `-` or `![[Daily.base]]`
    root = make_vault({"Job Interview Template.md": "---\ncategories:\n  - Meetings\n---\n"
                                                   "## Questions and topics\n- \n## Notes\n![[Daily.base]]\n"})
    with Vault(root) as v:
        v.index(embed=False)
        (hit,) = v.search("questions topics", lexical_only=True).hits
        assert (hit.ref, hit.snippet) == ("Job Interview Template.md#Questions and topics", "categories: Meetings")
        assert (hit.line_start, hit.line_end) == (5, 6)  # its own lines, though its properties show it


def test_a_note_of_only_properties_is_a_hit_on_its_frontmatter_lines(make_vault):
    # kepano's References/Catan.md, 8 lines of frontmatter: the hit said line 9 (qa28 M5)
    root = make_vault({"Catan.md": '---\ntitle: Catan\ncategories:\n  - "[[Games]]"\nyear: 1995\n---\n'})
    with Vault(root) as v:
        v.index(embed=False)
        (hit,) = v.search("catan", lexical_only=True).hits
        assert (hit.ref, hit.line_start, hit.line_end) == ("Catan.md", 1, 6)


def test_decay_report_lists_the_most_faded_first(twins):
    rows = twins.decay_report(now=FROZEN_NOW)
    assert [(r.path, round(r.multiplier, 3)) for r in rows] == [("specs/old.md", 0.2), ("specs/new.md", 0.955)]


@pytest.fixture
def linked(make_vault):
    root = make_vault({
        "hub.md": "# Hub\nThe deployment checklist lives in [[deploy#Rollback]] and [[missing-note]].\n",
        "deploy.md": "# Deploy\nsteps\n## Rollback\nrevert the release tag, then [[db#Restore]]\n",
        "db.md": "# DB\n## Restore\nrestore from the nightly snapshot\n",
    })
    with Vault(root) as v:
        v.index()
        yield v


def test_hits_carry_resolved_and_unresolved_links(linked):
    (hit,) = linked.search("deployment checklist", lexical_only=True).hits
    assert [(link.raw, link.ref, link.resolved) for link in hit.links] == [
        ("[[deploy#Rollback]]", "deploy.md#Rollback", True), ("[[missing-note]]", None, False)]


def test_follow_adds_linked_sections_with_via(linked):
    result = linked.search("deployment checklist", lexical_only=True, follow=2)
    assert [(h.ref, h.via) for h in result.hits] == [
        ("hub.md#Hub", None), ("deploy.md#Rollback", "hub.md#Hub"), ("db.md#Restore", "deploy.md#Rollback")]
    assert result.hits[1].score == pytest.approx(result.hits[0].score / 2)
    assert all(h.snippet for h in result.hits)  # a followed section shows its text too


def test_a_notes_property_links_are_listed_and_followed_from_each_of_its_hits(make_vault):
    # `related: "[[design]]"` sat above every section: no hit listed it, --follow never reached it
    root = make_vault({
        "plan.md": '---\nrelated: "[[design]]"\nup:\n  - "[[roadmap]]"\n---\n# Plan\nintro\n'
                   "## Rollout\nThe canary rollout goes region by region, see [[runbook]].\n",
        "design.md": "# Design\nthe chosen design\n", "roadmap.md": "# Roadmap\nquarters\n",
        "runbook.md": "# Runbook\nsteps\n",
    })
    with Vault(root) as v:
        v.index()
        result = v.search("canary rollout region", lexical_only=True, follow=1)
        assert [link.ref for link in result.hits[0].links] == ["runbook.md", "design.md", "roadmap.md"]
        assert [(h.ref, h.via) for h in result.hits] == [
            ("plan.md#Rollout", None), ("runbook.md#Runbook", "plan.md#Rollout"),
            ("design.md#Design", "plan.md#Rollout"), ("roadmap.md#Roadmap", "plan.md#Rollout")]
        assert [link.ref for link in v.show("plan.md#Rollout").links] == ["runbook.md", "design.md", "roadmap.md"]
        assert [link.ref for link in v.links("plan.md#Rollout")] == ["runbook.md"]  # the section's own


def test_a_link_to_a_missing_heading_is_flagged_on_its_hit_and_never_followed(make_vault):
    # it was `resolved` and unflagged on the hit, and --follow showed the note's first section in its place
    root = make_vault({
        "hub.md": "# Hub\nThe canary plan: [[deploy#Nope]], [[deploy#Rollback]] and [[db]].\n",
        "deploy.md": "# Deploy\nsteps\n## Rollback\nrevert the tag\n",
        "db.md": "# DB\nrestore\n",
    })
    with Vault(root) as v:
        v.index()
        (hit,) = v.search("canary plan", lexical_only=True, k=1).hits
        assert [(link.ref, link.section_missing) for link in hit.links] == [
            ("deploy.md#Nope", True), ("deploy.md#Rollback", False), ("db.md", False)]
        assert hit.to_json()["links"][0]["section_missing"] is True
        followed = v.search("canary plan", lexical_only=True, k=1, follow=1).hits
        assert [h.ref for h in followed] == ["hub.md#Hub", "deploy.md#Rollback", "db.md#DB"]


def test_follow_reaches_another_section_of_a_note_already_shown_each_section_once(make_vault):
    root = make_vault({
        "hub.md": "# Hub\nThe rollout: [[deploy]], then [[deploy#Rollback]], again [[deploy#Deploy]].\n",
        "deploy.md": "# Deploy\nsteps\n## Rollback\nrevert the tag\n",
    })
    with Vault(root) as v:
        v.index()
        hits = v.search("rollout", lexical_only=True, k=1, follow=1).hits
        assert [h.ref for h in hits] == ["hub.md#Hub", "deploy.md#Deploy", "deploy.md#Rollback"]
        shown = v.show("hub.md", follow=1)
        assert [f.ref for f in shown.followed] == ["deploy.md#Deploy", "deploy.md#Rollback"]


def test_show_of_a_whole_note_follows_each_sections_links_and_says_when_some_were_left(make_vault):
    many = " ".join(f"[[n{i}]]" for i in range(7))
    notes = {f"n{i}.md": f"# N{i}\nnote {i}\n" for i in range(8)}
    notes["hub.md"] = f"# Hub\nThe many links: {many}\n## Later\nsee [[n7]] and [[#Hub]]\n"
    root = make_vault(notes)
    with Vault(root) as v:
        v.index()
        shown = v.show("hub.md", follow=1)
        assert [f.ref for f in shown.followed] == [*(f"n{i}.md#N{i}" for i in range(5)), "n7.md#N7"]
        assert shown.notices == ("--follow takes at most 5 links of a section: 2 more not followed "
                                 "(`show REF#Heading --follow N` follows a section's)",)
        assert v.show("hub.md#Later", follow=1).notices == ()
        searched = v.search("many links", lexical_only=True, k=1, follow=1)  # a hit's links are cut the same way
        assert [h.ref for h in searched.hits][1:] == [f"n{i}.md#N{i}" for i in range(5)]
        assert searched.notices == ("--follow takes at most 5 links of a hit: 2 more not followed "
                                    "(`vault-engine links REF` lists a hit's links)",)


def test_filters_and_miss(make_vault):
    root = make_vault({"projects/a/working/x.md": "shared words alpha", "projects/b/working/y.md": "shared words beta",
                       "specs/s.md": "shared words gamma"})
    with Vault(root) as v:
        v.index()
        assert [h.path for h in v.search("shared", project="a", lexical_only=True).hits] == ["projects/a/working/x.md"]
        assert [h.path for h in v.search("shared", kind="spec", lexical_only=True).hits] == ["specs/s.md"]
        miss = v.search("zebra quagga", lexical_only=True)
        assert (miss.status, miss.hits) == ("miss", ())
        assert miss.to_json()["status"] == "miss"


def test_a_section_holding_only_comments_is_no_hit(make_vault):
    """A KEP's heading its author left empty keeps the template's instructions in <!-- -->:
    hybrid hits 4 to 7 were such sections, with nothing to read (qa45)."""
    root = make_vault({"kep.md": "# KEP\n## Risks and Mitigations\n<!--\nWhat are the risks of this proposal?\n"
                                 "-->\n## Design\nThe rollout risks are low.\n",
                       "other.md": "# Other\n%% risks to write up %%\n"})
    with Vault(root) as v:
        v.index(embed=False)
        # the %% note to self stays findable by its words, as in Obsidian's search
        assert {h.ref for h in v.search("risks proposal", lexical_only=True).hits} == {"kep.md#Design", "other.md#Other"}


def test_a_filtered_miss_names_what_the_search_finds_without_its_filters(make_vault):
    """An agent passing its own --project was told "a miss, not a guess" of a drop test
    another project's notes record, and took it for the vault's answer."""
    root = make_vault({"projects/a/working/x.md": "# X\nthe bracket passed the drop test\n",
                       "projects/b/working/y.md": "# Y\nretry the webhook later\n",
                       "specs/s.md": "# S\nwebhook retries\n"})
    with Vault(root) as v:
        v.index()
        miss = v.search("bracket drop", project="b", lexical_only=True)
        assert (miss.status, miss.notices) == ("miss", (
            "without --project b the same search finds (confidence high): projects/a/working/x.md#X (project a)",))
        assert v.search("bracket drop", kind="spec", lexical_only=True).notices == (
            "without --kind spec the same search finds (confidence high): projects/a/working/x.md#X (project a)",)
        nowhere = v.search("zebra quagga", project="b", lexical_only=True)
        assert (nowhere.status, nowhere.notices) == ("miss", ())  # nor anywhere else: the vault's miss
        assert v.search("bracket drop", project="a", lexical_only=True).notices == ()  # a hit: nothing to add


def test_weak_filtered_hits_name_what_the_search_is_sure_of_without_the_filters(make_vault):
    """A project's unrelated sections stood as the answer (confidence low) to a question
    another project's notes answer: the weak answer says where the sure one is."""
    root = make_vault({"projects/a/working/x.md": "# X\nthe bracket passed the drop test\n",
                       "projects/b/working/y.md": "# Y\nthe bracket was ordered\n",
                       "projects/b/working/z.md": "# Z\nthe bracket drop test is next week\n"})
    with Vault(root) as v:
        v.index()
        weak = v.search("bracket drop test passed", project="b", lexical_only=True)
        assert (weak.confidence, weak.notices) == ("low", (
            "these hits are weak (confidence low); without --project b the same search finds "
            "(confidence high): projects/a/working/x.md#X (project a)",))
        # no surer answer elsewhere: the wider search's first hit is the filtered one, as weak
        elsewhere = v.search("bracket ordered yesterday", project="b", lexical_only=True)
        assert (elsewhere.confidence, elsewhere.notices) == ("low", ())
        # sure under the filters: nothing to add
        assert v.search("bracket drop test passed", project="a", lexical_only=True).notices == ()


def test_a_miss_the_miss_rule_made_under_a_filter_names_nothing(make_vault, monkeypatch):
    """"best pizza place in town" --project billing-service was the miss rule's miss, and the
    notice named a billing-service section the wider search found (qa46)."""
    from vault_engine.retrieval.search import Searcher

    root = make_vault({"projects/a/working/x.md": "# X\nthe bracket passed\n",
                       "projects/b/working/y.md": "# Y\nthe bracket failed\n"})
    real = Searcher.search

    def filtered_ones_miss(self, request):  # as the miss rule judges a filtered answer weak
        result = real(self, request)
        return replace(result, hits=()) if request.project else result

    monkeypatch.setattr(Searcher, "search", filtered_ones_miss)
    with Vault(root) as v:
        v.index()
        assert {h.path for h in v.search("bracket", lexical_only=True).hits} == {
            "projects/a/working/x.md", "projects/b/working/y.md"}
        assert v.search("bracket", project="b", lexical_only=True).notices == ()


def test_an_unknown_kind_or_project_is_an_error_that_lists_the_valid_ones(make_vault):
    from vault_engine.errors import UnknownKind, UnknownProject

    root = make_vault({"projects/billing-service/working/x.md": "shared words", "specs/s.md": "shared words"})
    with Vault(root) as v:
        v.index(embed=False)
        with pytest.raises(UnknownKind, match="no kind 'specs'; kinds are: checkpoint, working-note, spec"):
            v.search("shared", kind="specs")
        with pytest.raises(UnknownProject, match="no project 'billing'.*known projects: billing-service"):
            v.search("shared", project="billing")
        assert [h.path for h in v.search("shared", kind="Spec", lexical_only=True).hits] == ["specs/s.md"]  # any case


def test_the_first_hits_do_not_depend_on_how_many_are_asked_for(make_vault):
    notes = {f"n{i:03}.md": f"# Note {i}\nshared words {'rare ' * (i % 7)} filler {i}\n" for i in range(150)}
    with Vault(make_vault(notes)) as v:
        v.index(embed=False)
        few, many = v.search("shared rare words", k=5), v.search("shared rare words", k=120)
        assert [h.ref for h in few.hits] == [h.ref for h in many.hits[:5]]
        assert [h.scores for h in few.hits] == [h.scores for h in many.hits[:5]]


def test_a_heading_with_nothing_under_it_is_never_a_hit(make_vault):
    root = make_vault({"a.md": "# Title\n## Full\nthe answer about gravel\n## Empty\n"})
    with Vault(root) as v:
        v.index(embed=False)
        assert [h.ref for h in v.search("title empty full gravel", lexical_only=True).hits] == ["a.md#Full"]
        title = v.show("a.md#Title")  # the empty title folded into what follows, shown from itself with all of it
        assert (title.heading, title.text) == ("Title", "# Title\n## Full\nthe answer about gravel\n## Empty")
        assert v.show("a.md#Empty").text == "## Empty"  # a ref to the empty leaf still works


def test_a_hit_under_a_repeated_heading_has_a_ref_that_opens_it(make_vault):
    """Two "Tokens" sections used to share the ref ``rep.md#Tokens``, and ``show`` of the
    second hit opened the first."""
    root = make_vault({"rep.md": "# Doc\n## Design\n### Tokens\nAardvark tokens\n## Ops\n### Tokens\nBadger tokens\n"})
    with Vault(root) as v:
        v.index(embed=False)
        (hit,) = v.search("badger", lexical_only=True).hits
        assert (hit.ref, hit.heading) == ("rep.md#Ops#Tokens", "Tokens")
        assert "Badger" in v.show(hit.ref).text and v.show(hit.ref).ref == hit.ref
        assert v.search("aardvark", lexical_only=True).hits[0].ref == "rep.md#Design#Tokens"
        assert "Aardvark" in v.show("rep.md#Tokens").text  # the bare heading still opens the first


def test_a_hit_under_the_very_same_heading_path_twice_has_a_ref_that_opens_it(make_vault):
    """`## Week / ### Notes` twice: no heading path tells them apart, GitHub's anchor does."""
    root = make_vault({"r.md": "# Doc\n## Week\n### Notes\nalpha apples\n## Week\n### Notes\nbeta bananas\n"
                               "## Notes\ngamma grapes\n"})
    with Vault(root) as v:
        v.index(embed=False)
        # the first by its heading as written, which opens it ("#notes" looked nothing like it: qa27 T2)
        for word, ref in (("apples", "r.md#Notes"), ("bananas", "r.md#notes-1"), ("grapes", "r.md#Doc#Notes")):
            (hit,) = v.search(word, lexical_only=True).hits
            assert hit.ref == ref and word in v.show(hit.ref).text


def test_each_note_shows_its_best_section_before_any_note_shows_a_second(make_vault):
    long_note = ("# Zebra care\nZebra zebra stripes, zebra feeding.\n## Stripes\nZebra stripes zebra.\n"
                 "## Feeding\nZebra feeding zebra hay.\n")
    root = make_vault({"zebras.md": long_note, "savanna.md": "# Savanna\nA zebra crosses the plain.\n",
                       "zoo.md": "# Zoo\nThe zoo keeps one zebra among many other animals.\n"})
    with Vault(root) as v:
        v.index(embed=False)
        raw = v.search("zebra stripes", lexical_only=True, decay=False, k=10)
        scores = {h.ref: h.score for h in raw.hits}
        refs = [h.ref for h in raw.hits]
        assert refs[0].startswith("zebras.md#")
        assert len({r.split("#")[0] for r in refs[:3]}) == 3  # three notes before any note's second section
        further = refs[3:]
        assert further and all(r.startswith("zebras.md#") for r in further)
        assert max(scores[r] for r in further) > min(scores[r] for r in refs[1:3])  # demoted, not re-scored
        assert [h.ref for h in v.search("zebra stripes", lexical_only=True, decay=False, k=2).hits] == refs[:2]


def test_a_query_that_is_a_notes_name_finds_that_note_first(make_vault):
    """"Quick Reference" was 10th in obsidian-tasks-docs: the notes linking to it say the words
    in short sections, the note itself is one long table (qa55)."""
    table = "| Instruction | What it does |\n|---|---|\n" + "".join(f"| filter {i} | shows tasks {i} |\n" for i in range(80))
    root = make_vault({"Quick Reference.md": f"# Quick Reference\n{table}",
                       "intro.md": "# Intro\nSee the [[Quick Reference]]: the quick reference lists it all.\n",
                       "search.md": "# Quick search\nA quick search for a reference.\n",
                       "notes/ref.md": "---\ntitle: Field Guide\n---\n# Field guide\nFields and guides.\n",
                       "notes/meeting-minutes.md": "---\ntitle: Weekly sync\n---\n# Weekly sync\nThe meeting "
                                                   "went long; " + "we talked a lot. " * 40 + "\n",
                       "notes/minutes.md": "# Minutes\nMeeting minutes are kept here, minutes of each meeting.\n",
                       "About Getting Started.md": "# About Getting Started\nGetting started, started getting.\n",
                       "Getting Started.md": "# Getting Started\n" + "Install the plugin and read on. " * 60})
    with Vault(root) as v:
        v.index(embed=False)
        found = v.search("quick reference", lexical_only=True, decay=False, k=3).hits
        assert found[0].ref.startswith("Quick Reference.md") and found[1].score > found[0].score
        assert v.search("Field Guide", lexical_only=True, decay=False).hits[0].ref.startswith("notes/ref.md")
        assert v.search("meeting minutes", lexical_only=True, decay=False).hits[0].ref.startswith(
            "notes/meeting-minutes.md")  # its file name, where its title says otherwise
        assert not v.search("quick", lexical_only=True, decay=False).hits[0].ref.startswith("Quick Reference.md")
        # both are "getting started" word for word ("about" is a stop word): the one so written first (qa58)
        assert [h.ref.split("#")[0] for h in v.search("Getting Started", lexical_only=True, decay=False).hits[:2]] \
            == ["Getting Started.md", "About Getting Started.md"]


def test_a_notes_properties_are_searched_by_their_words(make_vault):
    """A property-heavy vault (Obsidian Bases) keeps its facts in frontmatter: the words of
    text values and of the notes their links name are searchable with the note's first
    section, and count as held there."""
    from vault_engine.stores.embedder import FakeEmbedder

    root = make_vault({
        "References/The Machine Stops.md": ('---\ncategories:\n  - "[[Books]]"\nauthor:\n  - "[[E. M. Forster]]"\n'
                                            'aliases: [Machine novella]\nyear: 1909\ncreated: 2023-09-12\n---\n'
                                            '## Quotes\nThere were buttons and switches everywhere.\n'
                                            '## Notes\nRead it on a train.\n'),
        "References/Other.md": "---\nauthor: Ursula Le Guin\n---\n## Quotes\nThe buttons of another book.\n"})
    with Vault(root, embedder=FakeEmbedder(dimension=64)) as v:
        v.index()
        lexical = v.search("Forster", lexical_only=True)
        # on the note's first section, where they are written, not on every section of it
        assert [h.ref for h in lexical.hits] == ["References/The Machine Stops.md#Quotes"]
        assert lexical.confidence == "high"  # the note holds the word: coverage reads properties too
        assert v.search("novella", lexical_only=True).hits[0].path == "References/The Machine Stops.md"
        assert v.search("Forster").status != "miss"
        # a number is read with its name: "year 1909" (qa52: kepano's films were found by no search for their year)
        assert v.search("1909", lexical_only=True).hits[0].path == "References/The Machine Stops.md"
        assert v.search("year 1909", lexical_only=True).confidence == "high"


def test_a_note_that_is_all_properties_is_a_hit_showing_them(make_vault):
    """33 of kepano's templates are frontmatter alone: indexed, searched by their properties,
    and never shown, since a hit with nothing under its heading is dropped."""
    root = make_vault({"Zebra Template.md": '---\nauthor: "[[Quentin Blake]]"\ntags:\n  - to-read\ngenre: zoology\n'
                                            'cover: https://img.example.org/zebra.jpg\n---\n',
                       "Empty.md": "---\ncreated: 2024-01-02\n---\n# Heading only\n",
                       "other.md": "# Other\nWe read about zoology once.\n"})
    with Vault(root) as v:
        v.index(embed=False)
        (hit,) = v.search("Quentin", lexical_only=True).hits
        assert (hit.ref, hit.snippet) == ("Zebra Template.md",  # no `cover:` left dangling by its URL
                                          "author: Quentin Blake; genre: zoology; tags: to-read")
        assert hit.scores.fused == 1.0
        # a note that is only its heading is found, shown by it, after every hit with text
        # ("# Headonlyword title" alone was found by no search, qa49)
        alone = v.search("heading only", lexical_only=True).hits
        assert [(h.path, h.snippet) for h in alone] == [("Empty.md", "Heading only")]
        assert [h.path for h in v.search("heading zoology", lexical_only=True).hits][-1] == "Empty.md"


def test_a_hub_note_that_embeds_a_view_is_found_where_the_arms_put_it_and_an_empty_bullet_comes_last(make_vault):
    """kepano's hub notes hold only properties and `![[X.base]]` views: listed after every hit
    with text, "Steph Ango meetings" had put `References/Steph Ango.md` 48th and "job
    interview" its template 48th (qa108). An empty bullet in a note without properties is
    nothing to read (qa105)."""
    root = make_vault({"References/Steph Ango.md": '---\ncategories:\n  - "[[People]]"\n---\n## Meetings\n\n'
                                                  "![[Meetings.base#Person]]\n",
                       "Templates/Job Interview Template.md": '---\ncategories:\n  - "[[Meetings]]"\ntype:\n'
                                                              '  - "[[Job Interviews]]"\n---\n'
                                                              "## Questions and topics\n\n- \n",
                       "Templates/Recipe Template.md": "# Recipe Template\n## Notes\n- \n",
                       "Notes/Kitchen.md": "# Kitchen\n" + "Notes on every recipe we cooked and what we changed. " * 12,
                       "Notes/Standup.md": "# Standup\n" + "Short meetings about the job keep the team in step. " * 12,
                       "Meetings.base": "views: []\n"})
    with Vault(root) as v:
        v.index(embed=False)
        hits = v.search("Steph Ango meetings", lexical_only=True).hits
        assert hits[0].ref == "References/Steph Ango.md#Meetings"
        assert hits[0].snippet == "categories: People"  # shown by what the note is
        assert v.search("job interview", lexical_only=True).hits[0].path == "Templates/Job Interview Template.md"
        recipe = [h.path for h in v.search("recipe notes", lexical_only=True).hits]
        assert recipe[0] == "Notes/Kitchen.md" and recipe[-1] == "Templates/Recipe Template.md"
        # the note a query names comes first, bare or not ("daily note template" put it 47th, qa105)
        assert v.search("recipe template", lexical_only=True).hits[0].path == "Templates/Recipe Template.md"


def test_on_a_partly_embedded_index_a_tie_goes_to_the_section_whose_words_matched(make_vault):
    """The meaning arm's first hit (cosine 0.21, holding no word of the query) tied with the
    only note holding both words, not embedded yet, and came first."""
    root = make_vault({"cafe.md": "# Cafe\nThe espresso machine needs descaling every month.\n",
                       "garden.md": "# Garden\nTomatoes want sun and water.\n"})
    with Vault(root) as v:
        v.index()
        (root / "partial.md").write_text("# Partial\nNarwhal okapi text about sessions.\n")
        v.index(embed=False)
        result = v.search("narwhal okapi")
        assert result.hits[0].ref == "partial.md#Partial", [(h.ref, h.scores) for h in result.hits]
        assert result.hits[0].scores.fused == result.hits[1].scores.fused  # a tie, broken by the words


RECORD = """# Store chats

## Considered Options

* JSON
* MVStore

## Decision Outcome

Chosen option: "MVStore", because it is simple and compact.

## Pros and Cons of the Options

### JSON

* Good, because every language reads it
* Bad, because too verbose for chat archives

### MVStore

* Good, because compact chat archives
"""


def test_a_hit_where_a_dead_end_is_recorded_or_argued_names_it(make_vault):
    """qa19: a search showed a rejected option's pros and cons first, read as the design."""
    root = make_vault({
        "decisions/0001-store-chats.md": RECORD,
        "notes/archive.md": "# Archive\nChat archives are compacted weekly.\n",
    })
    with Vault(root) as v:
        v.index()
        hits = {h.ref: h for h in v.search("chat archives verbose", lexical_only=True).hits}
        rejected = hits["decisions/0001-store-chats.md#JSON"]
        assert rejected.ruled_out == ("JSON",)
        assert rejected.ruled_out_line == "ruled out here: JSON"
        assert rejected.to_json()["ruled_out"] == ["JSON"]
        assert hits["decisions/0001-store-chats.md#MVStore"].ruled_out == ()  # the chosen one
        assert hits["notes/archive.md#Archive"].to_json()["ruled_out"] == []
        listing = {h.ref: h for h in v.search("considered options", lexical_only=True).hits}
        assert listing["decisions/0001-store-chats.md#Considered Options"].ruled_out == ("JSON",)


def test_a_failed_lists_hit_names_its_first_rulings_and_counts_the_rest(sample_vault):
    with Vault(sample_vault) as v:
        v.index()
        hit = next(h for h in v.search("webhooks synchronously request handler", lexical_only=True).hits
                   if h.heading == "Failed")
        assert len(hit.ruled_out) == 3
        assert hit.ruled_out_line == ("ruled out here: " + "; ".join(hit.ruled_out[:2]) + " (+1 more)")


def test_keywords_of_which_no_note_holds_one_are_low_though_the_arms_agree(make_vault):
    """"HTTP 429" found a note about HTTP with both arms, `high`, though no note says 429 (qa28 F3)."""
    from vault_engine.stores.embedder import FakeEmbedder

    root = make_vault({"http.md": "# HTTP\nStatus codes of the HTTP API: 200 and 503 retries.\n",
                       "queue.md": "# Queue\nThe outbox drains the queue every minute.\n"})
    with Vault(root, embedder=FakeEmbedder(dimension=64)) as v:
        v.index()
        held = v.search("HTTP status codes")
        assert (held.hits[0].path, held.confidence) == ("http.md", "high")
        unheld = v.search("HTTP status 429")
        assert unheld.hits[0].path == "http.md"
        assert (unheld.confidence, unheld.confidence_reason) == (
            "low", "no note holds '429': the hit may be about something else")


def test_a_name_written_inside_a_dotted_one_is_found_and_held(make_vault):
    """`isRecurring` was "a miss, not a guess", and "no note holds the query's words", where a
    note wrote `task.isRecurring` 14 times (qa52)."""
    from vault_engine.stores.embedder import FakeEmbedder

    root = make_vault({"filters.md": "# Filters\nFilter by function `task.isRecurring` or `task.recurrenceRule`.\n",
                       "queue.md": "# Queue\nThe outbox drains the queue every minute.\n"})
    with Vault(root, embedder=FakeEmbedder(dimension=64)) as v:
        v.index()
        found = v.search("isRecurring")
        assert found.status == "hit" and found.hits[0].path == "filters.md"
        assert "no note holds" not in found.confidence_reason


def test_a_hit_names_its_notes_further_sections_an_arm_ranks_high(make_vault):
    """A recipe's `#Tips`, the words' first hit, was listed 85th: its note was shown by
    `#Directions`, and every other note's best section came before the note's second (qa52)."""
    root = make_vault({
        "tart.md": "# Tart\n## Directions\nBake the quince tart in the oven for thirty minutes, quince quince.\n"
                   "## Tips\nA quince tart bakes longer in an oven without a fan.\n## Storage\nKeep it cold.\n",
        "pie.md": "# Pie\nA quince pie, baked in the oven, quince again.\n",
        "cake.md": "# Cake\nA sponge cake needs no quince.\n"})
    with Vault(root) as v:
        v.index(embed=False)
        one = v.search("quince tart oven", lexical_only=True, k=1)
        assert [h.ref for h in one.hits] == ["tart.md#Directions"]
        assert one.hits[0].also == ("tart.md#Tips",)  # not #Storage: no arm ranks it
        every = v.search("quince tart oven", lexical_only=True, k=10)
        assert "tart.md#Tips" in [h.ref for h in every.hits]  # listed as a hit: not named again
        assert every.hits[0].also == ()


def test_a_query_of_symbols_only_is_an_error_that_says_to_use_words(make_vault):
    """"🔁" was a miss with both arms; searched by meaning alone, "🔁" and "🦄" gave the same
    three hits: the model reads every pictograph as one unknown sign (qa52, qa53). Beside
    words, a symbol is said to be unread and the answer is never `high`: "what does ⏳ mean"
    had been `high` on a note about meaning (qa112)."""
    from vault_engine.errors import BadArgument
    from vault_engine.stores.embedder import FakeEmbedder

    root = make_vault({"recur.md": "# Recurrence\n- [ ] water the plants 🔁 every week\n"})
    with Vault(root, embedder=FakeEmbedder(dimension=64)) as v:
        v.index()
        for arms in ({}, {"semantic_only": True}, {"lexical_only": True}):
            with pytest.raises(BadArgument, match="holds no word to search by: the words index holds no symbols"):
                v.search("🔁 📅", **arms)
        beside = v.search("recurrence 🔁", lexical_only=True)  # a word besides: searched, the symbol said unread
        assert beside.hits[0].path == "recur.md"
        assert beside.confidence == "low" and "'🔁' was read by neither arm" in beside.confidence_reason
        assert any(n.startswith("'🔁' is no word, so the answer is for the rest of the query") for n in beside.notices)
        # an arrow between words is punctuation, not a pictograph asked about (qa113)
        arrow = v.search("water→plants", lexical_only=True)
        assert arrow.confidence == "high" and not any("is no word" in n for n in arrow.notices)


def test_a_question_naming_what_no_note_holds_says_so(make_vault):
    from vault_engine.stores.embedder import FakeEmbedder

    root = make_vault({"sync.md": "# Sync\nTasks sync between your devices through the vault folder.\n",
                       "queue.md": "# Queue\nThe outbox drains the queue every minute.\n"})
    with Vault(root, embedder=FakeEmbedder(dimension=64)) as v:
        v.index()
        # (a question most of whose words no note holds must come closer than off-topic ones do:
        # the fake model's levels in a vault of two notes say nothing of that, so few such words here)
        found = v.search("can my tasks sync with Todoist across all my devices")
        assert found.hits[0].path == "sync.md"
        assert found.confidence == "low"
        assert "no note holds 'Todoist'" in found.confidence_reason
        # the same words in lower case are context, not a name: nothing is said of them
        plain = v.search("can my tasks sync with todoist across all my devices")
        assert "todoist" not in plain.confidence_reason
        # a day or a month is a date's word, not a topic no note holds, in a short query too (qa113)
        for dated in ("devices sync on Fri", "queue drains in Sept"):
            assert "no note holds" not in v.search(dated).confidence_reason, dated


def test_a_phrase_with_a_stop_word_inside_is_matched_as_written(make_vault):
    """The index keeps no stop word: "lift and shift" matched "lift heavy shift", and "not
    done" matched "no done date", both `high` (qa29 N1)."""
    root = make_vault({"gym.md": "# Gym\nWe lift heavy shift boxes.\n", "move.md": "# Move\nA lift-and-shift move.\n",
                       "t.md": "# T\n- no done date here\n", "u.md": "# U\n- the task is not done yet\n",
                       "iac.md": "# Infrastructure as Code\nTerraform.\n"})
    with Vault(root) as v:
        v.index(embed=False)
        paths = {q: [h.path for h in v.search(q, lexical_only=True).hits]
                 for q in ('"lift and shift"', '"not done"', '"infrastructure as code"', '"lift heavy shift"')}
        assert paths == {'"lift and shift"': ["move.md"], '"not done"': ["u.md"], '"infrastructure as code"': ["iac.md"],
                         '"lift heavy shift"': ["gym.md"]}


def test_a_quoted_phrase_no_section_holds_leaves_its_words_searched_and_says_so(make_vault):
    """A traceback pasted as a query, its paths in double quotes, was a miss by words: no section
    holds `"/usr/lib/python3.11/site-packages/tasks/filter.py"` as written (qa127's review)."""
    root = make_vault({"rec.md": "# Recurrence\nA recurrence rule such as every weekday when done.\n"})
    with Vault(root) as v:
        v.index(embed=False)
        pasted = v.search('File "/usr/lib/python3.11/site-packages/tasks/filter.py", line 100: KeyError '
                          "while parsing recurrence rule every weekday when done", lexical_only=True)
        held = v.search('"recurrence rule"', lexical_only=True)
    assert [h.path for h in pasted.hits] == ["rec.md"] and pasted.confidence == "low"
    assert pasted.notices == ("no section holds the quoted phrase as written: the words were searched without it",)
    assert held.notices == () and held.confidence == "high"


def test_the_first_hit_holds_what_its_place_was_earned_by(make_vault):
    """A version written with its v (qa29 N2), a tag on a line of its own at a note's end (N3):
    the only right hit was `low: the first hit does not hold every word`."""
    root = make_vault({"rel.md": "# Releases\nRelease v2.3.1 shipped the quokka fix.\n",
                       "alpha.md": "# Alpha\nSome prose about the reactor design.\n\n## Status\n#wip\n"})
    with Vault(root) as v:
        v.index(embed=False)
        for query in ("v2.3.1", "2.3.1", "#wip"):
            assert v.search(query, lexical_only=True).confidence == "high", query


def test_a_note_takes_the_place_of_the_section_that_shows_it(make_vault):
    """data-engineering-wiki's Data Ingestion.md placed first for "change data capture" by a
    heading over embeds of the Change Data Capture note, shown by another section, its score
    below the next hit's (qa28 F5, F10)."""
    hub = ("# Data Ingestion\n\nBatch and streaming ingestion move data into the warehouse every hour.\n\n"
           "## Change Data Capture\n\n![[cdc#^a]]\n![[cdc#^b]]\n")
    root = make_vault({"ingestion.md": hub,
                       "cdc.md": "# Overview\n\nChange data capture streams row changes from a database log. ^a\n"})
    with Vault(root) as v:
        v.index(embed=False)
        hits = v.search("change data capture", lexical_only=True).hits
        assert [h.path for h in hits[:2]] == ["cdc.md", "ingestion.md"]
        assert hits[0].score >= hits[1].score


class _NothingNear:
    """A meaning arm that ran and found nothing (a filter no embedded section passes)."""

    def embed_ahead(self, query):
        pass

    def search(self, query, limit, include=(), allowed=None):
        return [], {}


def test_an_arm_that_found_nothing_leaves_the_words_scores_as_they_are(make_vault):
    """RRF over the words' list alone halved every score and made them ranks (qa33 R5)."""
    from vault_engine.retrieval.search import Searcher, SearchRequest

    with Vault(make_vault({"a.md": "# A\n\nkafka kafka topics\n", "b.md": "# B\n\nkafka once, and more\n"})) as v:
        v.index(embed=False)
        searcher = Searcher(v.config, v.ledger, v.lexical, semantic=_NothingNear())
        result = searcher.search(SearchRequest("kafka", k=5, decay=False))
        assert [h.path for h in result.hits] == ["a.md", "b.md"]
        assert result.hits[0].score == 1.0 and result.hits[1].score < 1.0
        assert result.arms == ("lexical", "semantic")


def test_a_search_asked_again_says_each_notice_once(make_vault):
    """Asked again beside a writer, the same Searcher said its --follow notice twice (qa33 R2)."""
    from vault_engine.retrieval.search import Searcher, SearchRequest

    hub = "# Hub\n\nkafka " + " ".join(f"[[n{i}]]" for i in range(7)) + "\n"
    notes = {"hub.md": hub, **{f"n{i}.md": f"# N{i}\n\nnote {i} text\n" for i in range(7)}}
    with Vault(make_vault(notes)) as v:
        v.index(embed=False)
        searcher = Searcher(v.config, v.ledger, v.lexical)
        request = SearchRequest("kafka", k=1, arms=("lexical",), follow=1)
        searcher.search(request)
        notices = searcher.search(request).notices
        assert len([n for n in notices if n.startswith("--follow takes at most")]) == 1


def test_the_arms_agree_on_code_only_on_one_symbol_not_one_file(make_vault):
    """The words' best symbol and the meaning's best were two functions of one file, and the
    answer was `high` on a question nothing answers (qa35 A3)."""
    from tests.code_vault import build
    from vault_engine.retrieval.search import Searcher, SearchRequest

    class Nearest:  # the meaning arm's first: pricing.py's `place`
        def __init__(self, ids):
            self.ids = ids

        def embed_ahead(self, query):
            pass

        def search(self, query, limit, include=(), allowed=None):
            return [(i, 0.6 - n / 100) for n, i in enumerate(self.ids)], {}

    with Vault(build(make_vault)) as v:
        note = v.ledger.note_by_path("src/shop/pricing.py")
        by_heading = {s.heading: s.id for s in v.ledger.sections_of(note.id)}
        place = next(i for h, i in by_heading.items() if h and h.endswith("place"))
        price = next(i for h, i in by_heading.items() if h and h.endswith("price_of"))
        request = SearchRequest("price_of sku", k=5, decay=False)
        apart = Searcher(v.config, v.ledger, v.lexical, semantic=Nearest([place, price])).search(request)
        assert apart.hits[0].path == "src/shop/pricing.py" and apart.confidence == "low"
        # each arm's best named by the ref a hit gives it: its section's number had been named (qa193)
        assert apart.confidence_reason == ("words and meaning disagree on the best note (words: "
                                           "src/shop/pricing.py#price_of, meaning: src/shop/pricing.py#place)")
        together = Searcher(v.config, v.ledger, v.lexical, semantic=Nearest([price, place])).search(request)
        assert together.confidence == "high"


def test_a_code_hit_is_named_by_its_symbol_as_written_beside_a_namesake_in_another_case(make_vault):
    """zustand's `createStore` beside its type `CreateStore` came back as `#createstore-1`,
    which `show` and `callers` refused, suggesting the type (qa48)."""
    from tests.code_vault import build

    store = ("export type CreateStore = (init: number) => number\n"
             "export const createStore = ((init) => init + 1) as CreateStore\n")
    with Vault(build(make_vault, {"web/vanilla.ts": store})) as v:
        refs = [h.ref for h in v.search("createStore", kind="code", lexical_only=True).hits]
        symbols = [ref for ref in refs if ref.startswith("web/vanilla.ts#")]
        assert sorted(symbols) == ["web/vanilla.ts#CreateStore", "web/vanilla.ts#createStore"], refs
        for ref in symbols:
            assert v.show(ref).ref == ref  # each opens the symbol it names


def test_hits_on_notes_deleted_since_the_last_index_say_so(make_vault):
    """With no watcher to apply a deletion, a hit on a note gone read as the vault's answer:
    only misses said the index was stale (qa49)."""
    root = make_vault({"a.md": "# A\nthe quokka note\n", "b.md": "# B\nanother quokka\n"},
                      config="[model]\nenabled = false\n")  # (a words-only index with the model on: --no-embed)
    with Vault(root) as v:
        v.index(embed=False)
        assert v.search("quokka", lexical_only=True).notices == ()
        os.utime(root / "b.md", (1, 1))  # a touch, or a copy of the vault: the same content (qa53)
        assert v.search("quokka", lexical_only=True).notices == ()
        (root / "a.md").unlink()
        found = v.search("quokka", lexical_only=True)
        assert {h.path for h in found.hits} == {"a.md", "b.md"}  # the index's answer, as it stands
        assert found.notices == ("1 note(s) of this answer were deleted or moved since the last index (a.md): run "
                                 "`vault-engine index` and search again",)
        # a watcher applies it in a moment, and the hit on a note gone had said nothing meanwhile (qa61)
        with pytest.MonkeyPatch.context() as watched:
            watched.setattr(v._drift, "live_watcher", lambda: {"state": "watching"})
            assert v.search("quokka", lexical_only=True).notices == (
                "1 note(s) of this answer were deleted or moved since the last index (a.md): search again in a "
                "moment: the running watcher is applying it",)
        (root / "b.md").write_text("# B\nanother quokka, since renamed a wallaby\n", encoding="utf-8")
        assert v.search("quokka", lexical_only=True).notices[1] == (
            "1 note(s) of this answer changed since the last index (b.md): run `vault-engine index` and search again")
        v.index(embed=False)
        assert v.search("quokka", lexical_only=True).notices == ()
        os.utime(root / "b.md", (1, 1))  # a touch, or a copy of the vault: the same content (qa53)
        assert v.search("quokka", lexical_only=True).notices == ()


def test_a_stale_words_only_index_is_told_to_index_words_only(make_vault):
    """An index built with --no-embed said "run `vault-engine index`", which embedded all 47,824
    sections of it, unasked, for 9 minutes (qa82); one with vectors is told the plain command."""
    from vault_engine.stores.embedder import FakeEmbedder

    root = make_vault({"a.md": "# A\nalpha\n"})
    with Vault(root, embedder=FakeEmbedder(dimension=16)) as v:
        v.index(embed=False)
        (root / "a.md").write_text("# A\nalpha beta\n", encoding="utf-8")
        (notice,) = v.search("gamma", lexical_only=True).notices
        assert notice.endswith("run `vault-engine index --no-embed` (words only, as this index holds) and search again")
        v.index()
        (root / "a.md").write_text("# A\nalpha delta\n", encoding="utf-8")
        (notice,) = v.search("gamma", lexical_only=True).notices
        assert notice.endswith("run `vault-engine index` and search again")


def test_chinese_words_are_found_and_held_where_a_sentence_writes_them(make_vault):
    """"数据" was a miss in a note that writes it often; held inside a run, the hit is high (qa83)."""
    root = make_vault({"n.md": "# 读书笔记\n数据仓库的星型模型和雪花模型。\n", "e.md": "# English\nstar schemas\n"},
                      config="[model]\nenabled = false\n")
    with Vault(root) as v:
        v.index(embed=False)
        for query in ("数据", "星型模型", "雪花模型"):
            found = v.search(query, lexical_only=True)
            assert [h.path for h in found.hits] == ["n.md"] and found.confidence == "high", query


def test_a_hit_starts_at_the_heading_its_ref_names_as_show_opens_it(make_vault):
    """A note's title folded in front of its first section made the hit start two lines above
    the `show` of its own ref (23 of 120 MADR refs, qa104)."""
    root = make_vault({"0002-logging.md": "---\nnav_order: 2\n---\n# Use SLF4J for logging\n\n"
                                          "## Context and Problem Statement\n\nJabRef logs with commons-logging.\n"})
    with Vault(root) as v:
        v.index(embed=False)
        (hit,) = v.search("commons-logging", lexical_only=True).hits
        shown = v.show(hit.ref)
        assert (hit.ref, hit.line_start, hit.line_end) == ("0002-logging.md#Context and Problem Statement", 6, 8)
        assert (shown.line_start, shown.line_end) == (hit.line_start, hit.line_end)


def test_exclude_tests_where_no_code_is_tested_filters_nothing(make_vault):
    """A miss with `--exclude-tests` on a vault of notes blamed "the filters" (qa127)."""
    with Vault(make_vault({"a.md": "# A\nThe gateway throttles bursts.\n"})) as v:
        v.index(embed=False)
        plain = v.search("zzqxw blorpt", lexical_only=True)
        excluding = v.search("zzqxw blorpt", lexical_only=True, exclude_tests=True)
    assert excluding.confidence_reason == plain.confidence_reason == "no section matched the query"


def test_a_hit_its_notes_inline_tag_found_holds_that_word(make_vault):
    """The index gives every section its note's tags, inline ones too; confidence had read the
    frontmatter's alone, so the hit "alpha zebrafish" found was "not holding every word" (qa127)."""
    note = "# Tagged\n## Alpha\nAlpha plans for the quarter.\n## Beta\nBeta notes. #zebrafish\n"
    with Vault(make_vault({"tagged.md": note})) as v:
        v.index(embed=False)
        result = v.search("alpha zebrafish", lexical_only=True)
    assert result.hits[0].ref == "tagged.md#Alpha"
    assert (result.confidence, result.confidence_reason) == ("high", "the first hit holds every word of the query")


def test_a_pasted_page_is_searched_by_its_first_words_and_says_so(make_vault):
    """2,000 words took 3 s, 30 s with a typo in each (qa127): the words past what the model
    reads of a query are not searched."""
    from vault_engine.retrieval.search import QUERY_WORDS

    with Vault(make_vault({"a.md": "# A\nThe gateway throttles filler bursts.\n"})) as v:
        v.index(embed=False)
        long = v.search("gateway " + "filler " * (QUERY_WORDS - 1) + "zzqx", lexical_only=True)
        short = v.search("gateway " + "filler " * (QUERY_WORDS - 2) + "zzqx", lexical_only=True)
    assert long.notices == (f"the query is long: it was searched by its first {QUERY_WORDS} words of "
                            f"{QUERY_WORDS + 1}, about as much as the model reads",)
    assert long.query.endswith("zzqx") and long.confidence == "high"  # the answer echoes the query as asked
    assert short.notices == () and short.confidence == "low"  # "zzqx" searched: no note holds it


def test_a_section_that_only_embeds_another_is_found_as_the_section_it_shows(make_vault):
    """"## Advanced: Urgency" over nothing but `![[Urgency#Limitations of the Urgency Score]]` was
    the first hit for "urgency 1.95", showing the embed's Markdown above the note that answers
    it (qa126): Obsidian shows the embedded section there, and the hit is that section, `via`
    the one the words found. A section with words of its own stays itself."""
    files = {"limits.md": "# Known Limitations\nWe keep a list.\n## Zebra crossing\n![[roads#Limits]]\n"
                          "## Pelican crossing\nLights, and ![[roads#Limits]]\n",
             "roads.md": "# Roads\nTarmac.\n## Limits\nCars stop at the marked lines.\n"}
    with Vault(make_vault(files)) as v:
        v.index(embed=False)
        zebra = v.search("zebra crossing", lexical_only=True).hits
        pelican = v.search("pelican crossing", lexical_only=True).hits
    assert (zebra[0].ref, zebra[0].via, zebra[0].snippet) == (
        "roads.md#Limits", "limits.md#Zebra crossing", "Cars stop at the marked lines.")
    assert pelican[0].ref == "limits.md#Pelican crossing" and pelican[0].via is None


def test_an_embed_is_followed_to_what_it_shows_and_read_with_its_heading(make_vault):
    """qa128: an embed of an embed stopped after one step; a section embedding itself named
    itself `via`; the words of the heading over an embed were not the hit's, so words alone said
    it "does not hold every word"; a filter the embedded note fails dropped the section whole."""
    files = {"hub.md": "---\nproject: alpha\n---\n# Hub\nIntro words here for the hub.\n"
                       "## Chain embed\n![[relay#Relay]]\n## Self embed\n![[#Self embed]]\n"
                       "## Cross project\n![[beta#Warmup limits]]\n",
             "relay.md": "---\nproject: alpha\n---\n# Relay doc\nSome words.\n## Relay\n![[cache#Warmup limits]]\n",
             "cache.md": "---\nproject: alpha\n---\n# Cache\nCache notes.\n## Warmup limits\nThe cache warms in 40 s.\n",
             "beta.md": "---\nproject: beta\n---\n# Beta\nBeta notes.\n## Warmup limits\nBeta warms slowly.\n"}
    with Vault(make_vault(files)) as v:
        v.index(embed=False)
        chain = v.search("chain embed", lexical_only=True)
        itself = v.search("self embed", lexical_only=True).hits[0]
        crossed = v.search("cross project", lexical_only=True, project="alpha").hits
    assert (chain.hits[0].ref, chain.hits[0].via, chain.confidence) == (
        "cache.md#Warmup limits", "hub.md#Chain embed", "high")
    assert (itself.ref, itself.via) == ("hub.md#Self embed", None)
    assert [(h.ref, h.via) for h in crossed][:1] == [("hub.md#Cross project", None)]  # beta's is filtered out


def test_a_filter_that_leaves_nothing_out_is_not_blamed_for_a_miss(make_vault):
    """`--kind note` on a wiki of notes alone blamed "the filters" for a miss (qa128)."""
    notes = {"a.md": "# A\nThe gateway throttles bursts.\n", "b.md": "# B\nA page.\n"}
    with Vault(make_vault(notes)) as v:
        v.index(embed=False)
        everything = v.search("zzqxw blorpt", lexical_only=True, kind="note")
    with Vault(make_vault({**notes, "specs/c.md": "# C\nA spec.\n"})) as v:
        v.index(embed=False)
        narrowed = v.search("zzqxw blorpt", lexical_only=True, kind="note")
    assert everything.confidence_reason == "no section matched the query"
    assert narrowed.confidence_reason == "no section the filters leave matched the query"


def test_an_empty_note_is_found_by_its_name_and_listed_after_notes_with_text(make_vault):
    """An empty file, a placeholder a person made, was found by no search: its name matched and
    the hit had nothing to show (qa127)."""
    with Vault(make_vault({"Ideas for Q3.md": "", "other.md": "# Other\nSome text about budget ideas.\n"})) as v:
        v.index(embed=False)
        named = v.search("ideas for q3", lexical_only=True).hits
        worded = v.search("budget ideas", lexical_only=True).hits
    assert [(h.path, h.snippet) for h in named][:1] == [("Ideas for Q3.md", "Ideas for Q3")]
    assert [h.path for h in worded] == ["other.md", "Ideas for Q3.md"]  # with text first


def test_the_three_filters_agree_the_words_index_the_ledger_and_the_hits(make_vault):
    """--kind and --project are applied three times: inside Whoosh (the words arm), in SQL (the
    meaning arm's allowed sections) and on each candidate (search.passes_filters). They must
    say the same, or an arm reads past sections a filter keeps (qa127's review)."""
    from itertools import product

    from vault_engine.retrieval.search import SearchRequest, passes_filters

    files = {
        "projects/alpha/notes.md": "# Alpha\nzebra crossing notes\n",
        "projects/beta/notes.md": "# Beta\nzebra crossing notes\n",
        "projects/alpha/checkpoints/20261201T100000Z-a.md": "---\ntype: checkpoint\n---\n# C\n## Summary\nzebra\n",
        "specs/auth.md": "---\ntype: spec\nproject: beta\n---\n# Auth\nzebra tokens\n",
        "decisions/0001-x.md": "---\ntype: decision\n---\n# X\nzebra decided\n",
        "loose.md": "# Loose\nzebra\n",
    }
    with Vault(make_vault(files, config="[model]\nenabled = false\n")) as vault:
        vault.index(embed=False)
        notes = {path: vault.ledger.note_by_path(path) for path in files}
        sections = {path: set(vault.ledger.section_ids_of_paths([path])) for path in files}
        zebra = {i for i, _ in vault.lexical.search("zebra", 100)}
        assert len(zebra) == len(files)  # every note holds it, in one section
        for kind, project in product((None, "note", "checkpoint", "spec", "decision"), (None, "alpha", "beta")):
            request = SearchRequest("zebra", kind=kind, project=project)
            kept = set().union(*(sections[p] for p, note in notes.items() if passes_filters(note, request)))
            assert vault.ledger.section_ids_where(kind, project, None) == kept, (kind, project)
            words = {i for i, _ in vault.lexical.search("zebra", 100, kind=kind, project=project)}
            assert words == kept & zebra, (kind, project)
