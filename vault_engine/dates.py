"""Unix times as text, always UTC: the one formatter of dates and times.

What an absent time reads as belongs to the sentence around it ("ruled out on an unknown
date", "last index never", "undated" in a table), so each caller names it.
"""

from __future__ import annotations

from collections.abc import Iterable

# How far a time a note states may run ahead of the file's own: two machines' clocks.
WRITE_SLACK_SECONDS = 600
SECONDS_PER_DAY = 86_400.0


def believable(stated: float | None, written: float | None) -> bool:
    """Whether a time a note states (its ``created`` or ``updated``, the time in its name)
    can be when it was written: not after the file was last written. Later is a typo (2062 for
    2026) or a local time written as UTC (22:00Z saved at 21:17Z), and would make the note the
    newest forever: its file time counts instead."""
    return stated is not None and (not written or stated <= written + WRITE_SLACK_SECONDS)


def first_believable(stated: Iterable[float | None], written: float | None) -> float | None:
    """The first of the times a note states (in the order its caller trusts them: decay and
    resume read its date, a checkpoint its ``created`` first, a ruling the time in its file's
    name next) that can be when it was written; None when none can. The one rule for "when
    was this written" (a fix that reached three of four copies of it left the fourth, qa33 R9)."""
    return next((t for t in stated if believable(t, written)), None)


def on_its_day(created: float | None, named: float | None) -> float | None:
    """A ``created`` that is only a day (``created: 2026-12-04`` reads as 00:00) at the time the
    file's name gives on that day (``20261204T153000Z-a.md``), else as stated. The one reading
    for a checkpoint and its rulings: the brief said 15:30 and the ruling 00:00, so a Decision of
    10:00 that day was "chosen since" the failure and its restatement a miss (qa51, qa121)."""
    if created is not None and named is not None and created % SECONDS_PER_DAY == 0 \
            and 0 <= named - created < SECONDS_PER_DAY:
        return named
    return created


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
