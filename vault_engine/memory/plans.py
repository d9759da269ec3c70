"""The checkpoint an agent resumes from, and the plan it hands on.

``resume`` briefs from each project's latest checkpoint; its Next steps are what the next
agent is told to do. ``deadend check`` weighs a proposal against them as it does against a
checkpoint's Goal: an agent following its brief must not be told it repeats a dead end because
a step sits near a ruling in meaning ("retry failed webhooks from the outbox with backoff" beside
the ruling "retry failed webhooks synchronously inside the request handler"). Only the latest
checkpoint's steps count, with those of checkpoints written alongside it (parallel sessions):
an older checkpoint's plan was done since, or failed and became a ruling of a later one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import groupby
from typing import NamedTuple

from vault_engine.dates import first_believable, on_its_day
from vault_engine.parsing.checkpoints import checkpoint_parts, name_order, name_time
from vault_engine.parsing.note import decided_time
from vault_engine.parsing.readable import reading_view
from vault_engine.parsing.sections import section_body
from vault_engine.stores.ledger import Ledger, NoteRow


def created_time(note: NoteRow) -> float:
    """A checkpoint's own time (:func:`stated_time`), else its file time."""
    stated = stated_time(note)
    return note.mtime_ns / 1e9 if stated is None else stated


def stated_time(note: NoteRow) -> float | None:
    """A note's ``created``, else its ``date``, else its own date, else the time in its name;
    None when it states none. A time after the file was last written is no time it was written
    (dates.believable): the next one is taken."""
    named = name_time(note.path)
    created = on_its_day(decided_time(note.meta), named)
    return first_believable((created, note.doc_time, named), note.mtime_ns / 1e9)


SAME_TIME_SECONDS = 15 * 60  # checkpoints this close to the latest: parallel sessions' hand-offs


def handing_on(ledger: Ledger, checkpoints: Sequence[NoteRow]) -> list[NoteRow]:
    """The latest checkpoint (a second one in the same second after the first), then those
    written within SAME_TIME_SECONDS before it, newest first; [] when there is none. Only
    checkpoints holding something under their headings count: an empty file or an unfilled
    template (an editor's new note, an aborted save) hands nothing on, and taken for the
    latest it hid the real hand-off. Two agents checking in on one project at once each hand
    on a plan: the brief showed only the later one's. One that a later one links to is not
    alongside it but before it, continued there (qa54: a session restarted 8 s later showed
    its predecessor's plan, ticked off since, as another session's)."""
    times = {n.id: created_time(n) for n in checkpoints}
    ordered = sorted(checkpoints, key=lambda n: (times[n.id], name_order(n.path)), reverse=True)
    found: list[NoteRow] = []
    continued: set[str] = set()  # what the later checkpoints link to: a chain A <- B <- C is one session
    for note in ordered:
        if found and times[note.id] < times[found[0].id] - SAME_TIME_SECONDS:
            break
        if note.path not in continued and _holds_text(ledger, note):
            found.append(note)
        continued.update(link.target_path for link in ledger.links_of(note.id) if link.target_path)
    return found


def _holds_text(ledger: Ledger, note: NoteRow) -> bool:
    return any(written(section_body(s.text, s.heading)) for s in ledger.sections_of(note.id))


# what a template leaves where nothing was written yet: its placeholders, then empty list items
# and the headings a placeholder hid ("{{decision}}## Next" holds no heading until it is filled)
_PLACEHOLDERS = re.compile(r"\{\{[^{}\n]*\}\}|<%.*?%>")
_LEFT_EMPTY = re.compile(r"^[ \t]*(?:(?:[-*+]|\d{1,9}[.)])(?:[ \t]+\[.?\])?|#{1,6}(?:[ \t][^\n]*)?)[ \t]*$", re.M)


def written(body: str) -> bool:
    """Whether a section's body holds anything its writer wrote, as a reader sees it: not only
    a template's placeholders (`{{summary}}`), HTML comments or empty list items. A checkpoint
    copied from the template and never filled in had been handed on as the last, its
    `{{summary}}` shown as what was done (qa198)."""
    return bool(_LEFT_EMPTY.sub("", _PLACEHOLDERS.sub("", reading_view(body))).strip())


class Step(NamedTuple):
    """A Next step handed on, and when its checkpoint planned it: a step stands against a
    ruling only if planned at or after it (a decision record that rejected the plan's design
    after it was planned had been kept quiet by the plan, qa160)."""

    text: str
    at: float


def live_plans(ledger: Ledger) -> dict[str | None, tuple[Step, ...]]:
    """The Next steps of every project's latest checkpoint (and of those written alongside
    it), by project. A plan is its own project's: another project's unvetted step must not
    clear this project's ruling."""
    by_project = sorted(ledger.notes(kinds=("checkpoint",)), key=lambda n: n.project or "")
    plans = {project: _plan(ledger, list(group)) for project, group in groupby(by_project, key=lambda n: n.project)}
    return {project: steps for project, steps in plans.items() if steps}


def live_plan(ledger: Ledger, project: str | None) -> tuple[Step, ...]:
    """:func:`live_plans` of one project, reading only its checkpoints."""
    return _plan(ledger, [n for n in ledger.notes(project=project, kinds=("checkpoint",)) if n.project == project])


def _plan(ledger: Ledger, checkpoints: list[NoteRow]) -> tuple[Step, ...]:
    handed = handing_on(ledger, checkpoints)  # with those written alongside the latest: a plan too
    return tuple(Step(step, created_time(n)) for n in handed
                 for step in checkpoint_parts(ledger.sections_of(n.id)).next_steps)
