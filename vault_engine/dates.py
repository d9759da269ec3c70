"""Unix times as text, always UTC: the one formatter of dates and times.

What an absent time reads as belongs to the sentence around it ("ruled out on an unknown
date", "last index never", "undated" in a table), so each caller names it.
"""

from __future__ import annotations


def utc_date(ts: float | None, missing: str) -> str:
    """``2026-03-14``, or ``missing`` when there is no time."""
    return missing if ts is None else _utc(ts).strftime("%Y-%m-%d")


def utc_time(ts: float | None, missing: str) -> str:
    """``2026-03-14T10:22:00Z``, or ``missing`` when there is no time."""
    return missing if ts is None else _utc(ts).strftime("%Y-%m-%dT%H:%M:%SZ")


def utc_stamp(ts: float) -> str:
    """``20260314T102200Z``: a time that sorts as text, for file names."""
    return _utc(ts).strftime("%Y%m%dT%H%M%SZ")


def _utc(ts: float):
    import datetime as dt  # imported when a time is written: a cold `find` writes none

    return dt.datetime.fromtimestamp(ts, dt.UTC)
