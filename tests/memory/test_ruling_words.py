"""The ledger's word index of dead ends (``ruling_words``): a check reads only the rulings that
share a word with the proposal, and must answer exactly as a check of every ruling does."""

import sqlite3

from tests.conftest import FROZEN_NOW
from vault_engine.memory.deadends import check_in_ledger, check_proposal, chosen_designs, load_rulings
from vault_engine.memory.matching import DEFAULT_SETTINGS, TermWeights, content_terms, restated
from vault_engine.memory.resume import bearing_dead_ends
from vault_engine.stores.embedder import FakeEmbedder
from vault_engine.stores.ledger.schema import MIGRATIONS
from vault_engine.vault import Vault

PROPOSALS = [
    "keep the sessions in a shared redis cluster",  # near-verbatim of a billing ruling
    "move session state into redis",
    "drop the second mic to save space on the board",
    "beamforming on the microcontroller",
    "add a dark mode toggle to the settings screen",  # nothing like it
    "webhooks retried inline in the request",
    "one queue per tenant",
]


class WordsArm:
    """A meaning arm that scores by shared characters: deterministic, no model, and it differs
    between texts, so a reordering or a lost ruling shows."""

    def cosines(self, proposal, texts):
        seen = set(proposal.casefold().split())
        return [len(seen & set(t.casefold().split())) / (len(seen) or 1) for t in texts]


def _ledger_check(vault, proposal, semantic=None, project=None):
    return check_in_ledger(proposal, vault.ledger, project=project, semantic=semantic).to_json()


def _full_check(vault, proposal, semantic=None, project=None):
    return check_proposal(proposal, load_rulings(vault.ledger), accepted=chosen_designs(vault.ledger),
                          project=project, semantic=semantic).to_json()


def test_a_check_through_the_word_index_answers_as_a_check_of_every_ruling(sample_vault):
    with Vault(sample_vault, embedder=FakeEmbedder()) as vault:
        vault.index(embed=False, now=FROZEN_NOW)
        rulings = load_rulings(vault.ledger)
        proposals = PROPOSALS + [r.text for r in rulings]
        hits = 0
        for proposal in proposals:
            for semantic in (None, WordsArm()):
                answer = _ledger_check(vault, proposal, semantic, project="billing-service")
                assert answer == _full_check(vault, proposal, semantic, project="billing-service"), proposal
                hits += answer["status"] == "hit"
        assert hits > len(rulings)  # every ruling restated word for word is raised, by both arms at least


def test_a_chosen_designs_words_no_shared_ruling_uses_are_weighed_as_every_ruling_weighs_them(make_vault):
    """"retried" is in five rulings none of which shares a word with "postgres advisory locks":
    weighed as a word no ruling uses, the chosen "Postgres advisory locks, retried." was 0.81
    close to the proposal through the word index and 0.93 over every ruling (qa121)."""
    def checkpoint(agent, created, body):
        return f"---\ntype: checkpoint\nproject: jobs\nagent: {agent}\ncreated: {created}\n---\n{body}"

    others = "".join(f"- {what} retried {when} -- too slow\n" for what, when in
                     [("Webhooks", "inline"), ("Emails", "hourly"), ("Uploads", "twice"), ("Payments", "nightly"),
                      ("Exports", "forever")])
    root = make_vault({
        "projects/jobs/checkpoints/20261101T100000Z-a.md": checkpoint(
            "a", "2026-11-01T10:00:00Z", "# Checkpoint: locking\n## Failed\n- Advisory locks in Postgres -- "
            "deadlocks under load\n" + others),
        "projects/jobs/checkpoints/20261120T100000Z-b.md": checkpoint(
            "b", "2026-11-20T10:00:00Z", "# Checkpoint: locking again\n## Decision\nPostgres advisory locks, retried.\n"),
    })
    with Vault(root) as vault:
        vault.index(embed=False)
        for semantic in (None, WordsArm()):
            answer = _ledger_check(vault, "postgres advisory locks", semantic, project="jobs")
            assert answer == _full_check(vault, "postgres advisory locks", semantic, project="jobs")
            assert answer["status"] == "miss" and "word for word" in answer["closest"][0]["short_of"]


def test_word_counts_match_the_rulings_words(sample_vault):
    with Vault(sample_vault) as vault:
        vault.index(embed=False, now=FROZEN_NOW)
        rulings = load_rulings(vault.ledger)
        words = set().union(*(r.terms for r in rulings))
        for besides in (None, "billing-service"):
            kept = [r for r in rulings if r.project != besides]
            expected = TermWeights.of(r.terms for r in kept)
            n, df = vault.ledger.dead_end_word_counts(words, besides)
            assert n == expected.n and n < len(rulings) + (besides is None)
            assert df == {t: expected.df.get(t, 0) for t in words}
            for term in sorted(words):
                using = sum(1 for r in kept if term in r.terms | r.lead_terms)
                assert len(vault.ledger.dead_ends_sharing({term}, besides)) == using, term


def _bearing_over_every_ruling(ledger, project, steps, settings):
    """bearing_dead_ends as it was before the word index: every ruling of the vault read."""
    others = [r for r in load_rulings(ledger) if r.project != project]
    weights = TermWeights.of(r.terms for r in others)
    best = {}
    for step in steps:
        terms = content_terms(step)
        for ruling in others:
            if terms & ruling.terms:
                score = max(restated(terms, ruling.terms, weights), restated(ruling.terms, terms, weights))
                key = f"{ruling.ref}#{ruling.slug}"
                if score >= settings.bearing_min and score > best.get(key, (0.0,))[0]:
                    best[key] = (score, ruling, step)
    ranked = sorted(best.values(), key=lambda b: (-b[0], b[1].path, b[1].line))
    return [(r.text, r.path, r.line, round(s, 4), step) for s, r, step in ranked]


def test_bearing_reads_the_same_through_the_word_index(sample_vault):
    with Vault(sample_vault) as vault:
        vault.index(embed=False, now=FROZEN_NOW)
        rulings = load_rulings(vault.ledger)
        raised = 0
        for project in vault.ledger.projects():
            for steps in ((r.text,) for r in rulings):
                found, bears_on = bearing_dead_ends(vault.ledger, project, steps, DEFAULT_SETTINGS)
                assert [(r.text, r.path, r.line, r.score, bears_on[f"{r.ref}#{r.slug}"]) for r in found] == \
                    _bearing_over_every_ruling(vault.ledger, project, steps, DEFAULT_SETTINGS)
                raised += len(found)
        assert raised


def test_a_deleted_note_leaves_no_words_behind(make_vault):
    root = make_vault({"projects/p/checkpoints/1.md": "---\nproject: p\n---\n# c\n## Failed\n- Shard by tenant\n"})
    with Vault(root) as vault:
        vault.index(embed=False, now=FROZEN_NOW)
        assert vault.ledger.dead_ends_sharing({"shard"})
        (root / "projects/p/checkpoints/1.md").unlink()
        vault.index(embed=False, now=FROZEN_NOW)
        assert vault.ledger.dead_ends_sharing({"shard"}) == []
        assert vault.ledger.db.execute("SELECT COUNT(*) FROM ruling_words").fetchone()[0] == 0


def test_the_migration_fills_the_word_index_as_indexing_does(sample_vault):
    with Vault(sample_vault) as vault:
        vault.index(embed=False, now=FROZEN_NOW)
        path = vault.ledger.path
        indexed = sorted(vault.ledger.db.execute("SELECT dead_end_id, term, lead FROM ruling_words"))
    assert indexed
    with sqlite3.connect(path) as db:  # the ledger as version 8 had it
        db.execute("DROP TABLE ruling_words")
        db.executescript(MIGRATIONS[9])
        assert sorted(db.execute("SELECT dead_end_id, term, lead FROM ruling_words")) == indexed
