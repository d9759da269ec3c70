"""Decay at the edges, with a frozen clock (vault_engine/retrieval/decay.py)."""

import pytest

from tests.conftest import FROZEN_NOW
from vault_engine.config import TapConfig
from vault_engine.retrieval.decay import SECONDS_PER_DAY, age_days, decay_multiplier

SPECS = TapConfig("specs", paths=("specs/**",), half_life_days=30.0, floor=0.2)
DAY = SECONDS_PER_DAY


def test_age_zero_is_full_weight():
    assert decay_multiplier(SPECS, age_days(FROZEN_NOW, FROZEN_NOW, None, None)) == 1.0


def test_one_half_life_halves():
    assert decay_multiplier(SPECS, age_days(FROZEN_NOW, FROZEN_NOW - 30 * DAY, None, None)) == pytest.approx(0.5)


def test_the_floor_clamps():
    assert decay_multiplier(SPECS, 90.0) == 0.2  # 0.125 would be below the floor
    assert decay_multiplier(SPECS, 10_000.0) == 0.2


def test_no_half_life_means_no_decay():
    assert decay_multiplier(TapConfig("vault"), 10_000.0) == 1.0


def test_a_future_date_counts_as_age_zero():
    assert age_days(FROZEN_NOW, FROZEN_NOW + 5 * DAY, None, None) == 0.0


def test_the_newest_of_document_date_and_reinforcement_wins():
    assert age_days(FROZEN_NOW, FROZEN_NOW - 90 * DAY, FROZEN_NOW - 2 * DAY, None) == pytest.approx(2.0)
    assert age_days(FROZEN_NOW, FROZEN_NOW - 2 * DAY, FROZEN_NOW - 90 * DAY, None) == pytest.approx(2.0)


def test_mtime_only_when_the_document_has_no_date():
    assert age_days(FROZEN_NOW, FROZEN_NOW - 40 * DAY, None, FROZEN_NOW) == pytest.approx(40.0)
    assert age_days(FROZEN_NOW, None, None, FROZEN_NOW - 3 * DAY) == pytest.approx(3.0)
    assert age_days(FROZEN_NOW, None, None, None) == 0.0


def test_a_reinforcement_never_makes_an_undated_note_older():
    """Edited a day ago, reinforced 100 days ago: a day old, not 100 (qa33 R1)."""
    assert age_days(FROZEN_NOW, None, FROZEN_NOW - 100 * DAY, FROZEN_NOW - DAY) == pytest.approx(1.0)
    assert age_days(FROZEN_NOW, None, FROZEN_NOW - DAY, FROZEN_NOW - 100 * DAY) == pytest.approx(1.0)


def test_a_notes_age_reads_its_date_else_its_file_time():
    from vault_engine.retrieval.decay import note_age
    from vault_engine.stores.ledger import NoteRow

    def note(doc_time, mtime):
        return NoteRow(1, "a.md", "A", "note", None, "vault", doc_time, int(mtime * 1e9), None, {}, None)

    assert note_age(FROZEN_NOW, note(FROZEN_NOW - 40 * DAY, FROZEN_NOW), None) == pytest.approx(40.0)
    assert note_age(FROZEN_NOW, note(None, FROZEN_NOW - 3 * DAY), None) == pytest.approx(3.0)
    assert note_age(FROZEN_NOW, note(FROZEN_NOW - 40 * DAY, FROZEN_NOW), FROZEN_NOW - DAY) == pytest.approx(1.0)
    # a date after the file was written (a typo's 2062) is no date: the file's time counts
    assert note_age(FROZEN_NOW, note(FROZEN_NOW + 900 * DAY, FROZEN_NOW - 3 * DAY), None) == pytest.approx(3.0)


def test_a_note_named_by_a_date_is_of_that_date(make_vault):
    """A copied vault made `Daily/2023-09-12.md` (no date in it) a day old: the notes a person
    most wants to fade never did (qa83). Its frontmatter's date still comes first."""
    import datetime as dt

    from vault_engine.vault import Vault

    root = make_vault({"Daily/2023-09-12.md": "# Tuesday\nran 5k\n",
                       "Daily/2023-09-13.md": "---\ncreated: 2023-10-02\n---\n# Wed\nswam\n",
                       "Daily/notes.md": "# Undated\nread\n"},
                      config='[taps.daily]\npaths = ["Daily/**"]\nhalf_life_days = 30\nfloor = 0.1\n'
                             "[model]\nenabled = false\n")
    with Vault(root) as v:
        v.index(embed=False)
        now = dt.datetime(2023, 10, 12, tzinfo=dt.UTC).timestamp()
        ages = {row.path: round(row.age_days) for row in v.decay_report(now=now)}
    assert ages["Daily/2023-09-12.md"] == 30 and ages["Daily/2023-09-13.md"] == 10  # its created: first
    assert ages["Daily/notes.md"] == 0  # its file time: written today, after this "now"


def test_an_edit_the_index_reads_is_newer_than_the_notes_own_date(make_vault):
    """A spec dated long ago and edited now kept its old date: the words it had just been given
    ranked 16th under decay (qa81). An edit read by an index is newer; a note read again for a
    new extraction, or touched, is no edit."""
    import os

    from vault_engine.vault import Vault

    root = make_vault({"specs/drop.md": "---\ncreated: 2023-01-01\n---\n# Drop test\nrigs weekly\n"},
                      config='[taps.specs]\npaths = ["specs/**"]\nhalf_life_days = 30\nfloor = 0.1\n'
                             "[model]\nenabled = false\n")
    with Vault(root) as v:
        v.index(embed=False, now=FROZEN_NOW)
        (row,) = v.decay_report(now=FROZEN_NOW)
        assert row.age_days > 600  # dated 2023 by its frontmatter
        os.utime(root / "specs/drop.md", (1, 1))  # a touch, a checkout's new file time: the same content
        v.index(embed=False, now=FROZEN_NOW + DAY)
        assert v.decay_report(now=FROZEN_NOW + 2 * DAY)[0].age_days > 600
        with (root / "specs/drop.md").open("a") as note:
            note.write("## Quokka clause\nrecalibrated weekly\n")
        v.index(embed=False, now=FROZEN_NOW + 3 * DAY)
        assert v.decay_report(now=FROZEN_NOW + 5 * DAY)[0].age_days == pytest.approx(2.0)
