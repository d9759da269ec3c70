"""A dead end a later note of its project chose (vault_engine/memory/since.py), through a real
ledger: said by `deadend check`, `deadend list` and `resume`, and only when the later choice
restates the ruling."""

import datetime as dt

import pytest

from tests.conftest import FROZEN_NOW
from vault_engine.vault import Vault


def checkpoint(project: str, agent: str | None, created: str, body: str) -> str:
    """A checkpoint note: its frontmatter, then ``body`` (headings and items)."""
    who = f"agent: {agent}\n" if agent else ""
    return f"---\ntype: checkpoint\nproject: {project}\n{who}created: {created}\n---\n{body}"


EARLY = checkpoint("search", "codex-a12", "2026-11-02T13:15:00Z", """\
# Checkpoint: query cache
## Goal
Cache query results per shard, invalidated on commit.
## Failed
- Warm the cache at startup by replaying yesterday's query log -- the replay took 40 minutes
- Cache query results in a shared Memcached cluster -- the network hop cost more than most queries
""")
LATER = checkpoint("search", "gemini-e41", "2026-12-01T09:00:00Z", """\
# Checkpoint: warm-up retried
## Summary
Shared Memcached came up again in review, and we said no to it once more.
## Decision
Warm the cache at startup by replaying yesterday's query log, capped at the 5,000 most frequent queries.
## Failed
""")
OTHER_PROJECT = checkpoint("billing", "claude-2c9", "2026-12-02T09:00:00Z", """\
# Checkpoint: billing cache
## Decision
Cache query results in a shared Memcached cluster for the invoice lookups.
""")
FILES = {
    "projects/search/checkpoints/20261102T131500Z-codex-a12.md": EARLY,
    "projects/search/checkpoints/20261201T090000Z-gemini-e41.md": LATER,
    "projects/billing/checkpoints/20261202T090000Z-claude-2c9.md": OTHER_PROJECT,
}
WARM = "Warm the cache at startup by replaying yesterday's query log"


@pytest.fixture
def vault(make_vault):
    with Vault(make_vault(FILES)) as v:
        v.index(embed=False, now=FROZEN_NOW)
        yield v


def test_a_check_says_a_later_decision_of_the_project_chose_the_ruling(vault):
    check = vault.deadend_check(WARM, project="search", lexical_only=True)
    (ruling,) = check.rulings
    later = ruling.chosen_since
    assert later is not None
    assert later.text.startswith("Warm the cache at startup by replaying yesterday's query log, capped")
    assert (later.agent, later.ref) == ("gemini-e41", "projects/search/checkpoints/20261201T090000Z-gemini-e41.md"
                                                       "#Decision")
    assert later.when == dt.datetime(2026, 12, 1, 9, tzinfo=dt.UTC).timestamp()
    assert 'Chosen since: on 2026-12-01 gemini-e41 chose "Warm the cache at startup' in check.rendered
    assert "this dead end may no longer hold" in check.rendered
    assert ruling.to_json()["chosen_since"]["ref"].endswith("#Decision")


def test_a_choice_that_only_mentions_a_ruling_or_is_another_projects_is_none(vault):
    """The later Summary names Memcached again (a Summary is context, not a choice), and billing's
    Decision restates it word for word, but on another project."""
    check = vault.deadend_check("Cache query results in a shared Memcached cluster", project="search",
                                lexical_only=True)
    assert [r.text for r in check.rulings] == ["Cache query results in a shared Memcached cluster"]
    assert check.rulings[0].chosen_since is None
    assert check.rulings[0].to_json()["chosen_since"] is None
    assert "Chosen since" not in check.rendered


def test_list_and_resume_say_it_too(vault):
    listed = {r.text: r for r in vault.deadend_list("search")}
    assert listed[WARM].chosen_since is not None
    assert listed["Cache query results in a shared Memcached cluster"].chosen_since is None
    brief = vault.resume("search")
    (earlier,) = [r for r in brief.earlier if r.text == WARM]
    assert earlier.chosen_since is not None
    assert 'chosen since: on 2026-12-01 gemini-e41 chose "Warm the cache' in brief.markdown


def test_a_choice_made_before_the_ruling_is_none(make_vault):
    """The Decision came first, and the ruling after it ruled the same thing out: no reversal."""
    files = {"projects/search/checkpoints/20261102T131500Z-codex-a12.md": EARLY.replace("2026-11-02", "2026-12-05"),
             "projects/search/checkpoints/20261201T090000Z-gemini-e41.md": LATER}
    with Vault(make_vault(files)) as vault:
        vault.index(embed=False, now=FROZEN_NOW)
        (ruling,) = vault.deadend_check(WARM, project="search", lexical_only=True).rulings
        assert ruling.chosen_since is None


ALPHA_EARLY = checkpoint("alpha", "a1", "2025-12-01T09:00:00Z", """\
# Checkpoint: segments
## Decision
Compress segments with zstd level 19.
""")
ALPHA = checkpoint("alpha", "a2", "2026-01-01T09:00:00Z", """\
# Checkpoint: ingest
## Goal
Batch the ingest over plain HTTP.
## Failed
- Use gRPC streaming for the ingest path -- proxies dropped long streams
- Compress segments with zstd level 19 -- writes became too slow
""")
BETA = checkpoint("beta", "b1", "2026-02-15T09:00:00Z", """\
# Checkpoint: beta ingest
## Decision
Use gRPC streaming for the ingest path.
""")

# alpha chose zstd, then saw it fail beside gRPC streaming, which beta chose; alpha chose it again since
HISTORY = {"projects/alpha/checkpoints/20251201T090000Z-a1.md": ALPHA_EARLY,
           "projects/alpha/checkpoints/20260101T090000Z-a2.md": ALPHA,
           "projects/beta/checkpoints/20260215T090000Z-b1.md": BETA}
RECHOSEN = {**HISTORY, "projects/alpha/checkpoints/20260301T090000Z-a3.md":
            BETA.replace("beta", "alpha").replace("2026-02-15", "2026-03-01")}


def test_a_word_for_word_choice_of_another_project_or_made_before_the_ruling_keeps_nothing_quiet(make_vault):
    """Beta's decision cleared alpha's ruling, and alpha's own decision made before the attempt
    failed cleared the failure: both proposals were "a miss, not a guess" (qa84)."""
    with Vault(make_vault(HISTORY)) as vault:
        vault.index(embed=False, now=FROZEN_NOW)
        for proposal in ("use grpc streaming for the ingest path", "compress segments with zstd level 19"):
            check = vault.deadend_check(proposal, project="alpha", lexical_only=True)
            assert [r.project for r in check.rulings] == ["alpha"], proposal
        # the chosen design of the ruling's own project, chosen after it, still keeps it quiet
    with Vault(make_vault(RECHOSEN)) as vault:
        vault.index(embed=False, now=FROZEN_NOW)
        assert vault.deadend_check("use grpc streaming for the ingest path", project="alpha",
                                   lexical_only=True).rulings == ()


def test_a_later_team_wide_record_that_chose_a_ruling_is_said_too(make_vault):
    """A record of no project that chose it kept the check quiet, and `deadend list` said nothing
    of why (qa85): a team-wide choice holds for every project, in both."""
    record = ("---\ndate: 2026-03-01\n---\n# Ingest transport\n## Considered Options\n* gRPC streaming\n* HTTP\n"
              "## Decision Outcome\nChosen option: \"Use gRPC streaming for the ingest path\"\n")
    files = {"projects/alpha/checkpoints/20260101T090000Z-a2.md": ALPHA, "decisions/0001-ingest.md": record}
    with Vault(make_vault(files)) as vault:
        vault.index(embed=False, now=FROZEN_NOW)
        listed = {r.text: r for r in vault.deadend_list("alpha")}
        later = listed["Use gRPC streaming for the ingest path"].chosen_since
        assert later is not None and later.ref.startswith("decisions/0001-ingest.md")
        assert later.agent is None  # a record naming no author: "a later note"
    # one naming its authors is said by them, as its rulings are ("a later note" had been said, qa133)
    files["decisions/0001-ingest.md"] = record.replace("date: 2026-03-01", "date: 2026-03-01\nauthors: Ana Silva")
    with Vault(make_vault(files)) as vault:
        vault.index(embed=False, now=FROZEN_NOW)
        listed = {r.text: r for r in vault.deadend_list("alpha")}
        assert listed["Use gRPC streaming for the ingest path"].chosen_since.agent == "Ana Silva"


class _Meaning:
    """A meaning arm: the proposal 0.92 from the ruling on its topic, 0.87 from a chosen design
    on it (as close as qa105 measured such a restatement to be), far from the rest."""

    def __init__(self, ledger):
        self.chosen = set(ledger.accepted_texts())

    def cosines(self, proposal, texts):
        topic = "gRPC" if "gRPC" in proposal else "zstd"
        return [(0.87 if topic in text else 0.5) if text in self.chosen else 0.92 if topic in text else 0.3
                for text in texts]


def test_the_meaning_arm_is_not_kept_quiet_by_another_projects_choice_or_one_made_before_the_ruling(make_vault):
    """The words arm's rule (qa84) held for a word-for-word proposal only: in the meaning arm,
    beta's decision, and alpha's own made before the attempt failed, still stood 0.05 above
    the ruling's margin, and both proposals were a miss (qa105)."""
    from vault_engine.memory.deadends import check_in_ledger

    with Vault(make_vault(HISTORY)) as vault:
        vault.index(embed=False, now=FROZEN_NOW)
        for proposal in ("stream the ingest over gRPC", "zstd at level 19 for the segments"):
            check = check_in_ledger(proposal, vault.ledger, project="alpha", semantic=_Meaning(vault.ledger))
            assert [(r.project, r.arms) for r in check.rulings][:1] == [("alpha", ("semantic",))], proposal
    with Vault(make_vault(RECHOSEN)) as vault:  # alpha chose it again since: that design stands
        vault.index(embed=False, now=FROZEN_NOW)
        check = check_in_ledger("stream the ingest over gRPC", vault.ledger, project="alpha", semantic=_Meaning(vault.ledger))
        assert "Use gRPC streaming for the ingest path" not in [r.text for r in check.rulings]


def test_a_checkpoint_dated_by_its_day_dates_its_rulings_at_its_names_time_too(make_vault):
    """`created: 2026-12-04` is a day: the brief read it at the time in the file's name, its
    rulings at midnight, so a Decision of 10:00 that day was "chosen since" the failure of 15:30
    and the failure's own words a miss (qa121)."""
    def day_only(agent: str, body: str) -> str:
        return f"---\ntype: checkpoint\nproject: web\nagent: {agent}\ncreated: 2026-12-04\n---\n{body}"

    root = make_vault({
        "projects/web/checkpoints/20261204T100000Z-b.md": day_only(
            "b", "# Checkpoint: sessions\n## Decision\nKeep sessions in a shared Redis.\n"),
        "projects/web/checkpoints/20261204T153000Z-a.md": day_only(
            "a", "# Checkpoint: sessions again\n## Failed\n- Keep sessions in a shared Redis -- failover lost them\n"),
    })
    with Vault(root) as v:
        v.index(embed=False)
        (ruling,) = v.deadend_list("web")
        assert ruling.when == dt.datetime(2026, 12, 4, 15, 30, tzinfo=dt.UTC).timestamp()
        assert ruling.chosen_since is None
        check = v.deadend_check("keep sessions in a shared Redis", project="web", lexical_only=True)
        assert [r.text for r in check.rulings] == ["Keep sessions in a shared Redis"]
