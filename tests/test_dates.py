"""Times as text (vault_engine/dates.py): UTC, and the caller's word for no time."""

from vault_engine.dates import first_believable, utc_date, utc_stamp, utc_time

T = 1_794_651_720.0  # 2026-11-14T10:22:00Z


def test_times_are_utc_in_three_shapes():
    assert utc_date(T, "-") == "2026-11-14"
    assert utc_time(T, "-") == "2026-11-14T10:22:00Z"
    assert utc_stamp(T) == "20261114T102200Z"


def test_no_time_reads_as_the_callers_word():
    assert utc_date(None, "an unknown date") == "an unknown date"
    assert utc_time(None, "never") == "never"
    assert utc_date(0.0, "never") == "1970-01-01"  # the epoch is a time, not an absence


def test_the_first_believable_time_is_the_first_stated_one_not_after_the_write():
    written = 1_764_000_000.0
    later = written + 3600  # a typo or a local time written as UTC: no time it was written
    assert first_believable((None, later, written - 86400, written - 60), written) == written - 86400
    assert first_believable((later,), written) is None and first_believable((), written) is None
    assert first_believable((written + 300,), written) == written + 300  # two machines' clocks
