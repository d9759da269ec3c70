"""Can Whoosh be trusted? The ledger says what it should hold; these compare, cheaply.

An index run commits Whoosh inside its ledger transaction and records there Whoosh's
:meth:`~vault_engine.stores.lexical.WhooshIndex.fingerprint` (names, sizes and times of its
files). Files unlike the recorded fingerprint, while no writer is at work, mean one of two
things, told apart by a mark the writer commits before it touches Whoosh:

- **our own run was killed** between Whoosh's commit and the ledger's (or inside Whoosh's
  commit). The mark (``lexical_commit``: the fingerprint it replaces, and whether the run
  rebuilds Whoosh) is committed in a transaction of its own just before the run's, and
  deleted by the run's transaction: present with a mismatch, it means that run never
  committed. A killed update leaves Whoosh whole, at the old state or a step ahead of the
  ledger: the sections it added have ids the ledger does not hold (insert_sections numbers
  them above every id the run began with), so search drops them, and the sections it
  removed are no longer found by words. Readers answer, with a notice; the next run
  rebuilds Whoosh from the ledger (before anything it writes can take those ids again). A
  killed rebuild leaves Whoosh empty or partial: readers refuse it, as damage.
- **someone else changed the files** (deleted, truncated, rewritten): readers refuse them
  and the next run rebuilds. The mark does not excuse what our commits never do: a commit
  only adds and removes files (lexical.left_by_a_commit), so a file rewritten or a table of
  contents lost after a killed run is still damage.

A copy of the whole vault (``cp -r``, a restored backup, ``rsync`` without ``-a``) or a
``touch`` gives Whoosh's files new times and the same bytes. So the record also holds a digest
of each file's bytes (hashed once, when the commit that wrote the file records it: a commit
never rewrites a file); where only times differ, the bytes decide, and the next index run
records the new times.

Why this design: a mark in the ledger rather than a file beside Whoosh, because it is
cleared by the same transaction that records the new fingerprint, so no kill can leave a mark
and a record that disagree; and a rebuild from the ledger rather than a reconciliation,
because it is the repair the next run already had, and correct without knowing how far the
killed run got. What it does not tell: a run killed before it touched Whoosh leaves its mark
until the next run with work, and a segment file deleted behind our back meanwhile looks
like our own commit (Whoosh then fails to read it, and search reports that as damage).
"""

from __future__ import annotations

import json
from collections.abc import Callable

from vault_engine.errors import IndexDamaged
from vault_engine.stores.ledger import Ledger
from vault_engine.stores.lexical import WhooshIndex, fingerprint_files, left_by_a_commit, same_names_and_sizes

LEXICAL_FINGERPRINT = "lexical_fingerprint"  # WhooshIndex.fingerprint() after our last commit
LEXICAL_COMMIT = "lexical_commit"  # the mark: a run's Whoosh commit is under way (JSON)
LEXICAL_CONTENT = "lexical_content"  # JSON: file name -> digest of its bytes, for that fingerprint
CHANGED_BEHIND_US = "its files changed outside vault-engine (deleted, truncated or rewritten)"
INTERRUPTED = "an earlier index run was interrupted before its ledger commit"
INTERRUPTED_REBUILD = "an earlier index run was interrupted while it rebuilt the lexical index"
REPAIRED_BY = "the next `vault-engine index` (or the watcher's next batch) rebuilds the lexical index from the ledger"


def begin_lexical_commit(ledger: Ledger, *, rebuild: bool) -> None:
    """Commit the mark, before the run's own transaction begins: it must outlive a kill."""
    with ledger.transaction():
        ledger.set_meta(LEXICAL_COMMIT, json.dumps({"replaces": ledger.get_meta(LEXICAL_FINGERPRINT),
                                                    "rebuild": rebuild}))


def end_lexical_commit(ledger: Ledger, lexical: WhooshIndex) -> None:
    """Inside the run's transaction, Whoosh committed: record its files, drop the mark."""
    before, content = ledger.get_metas(LEXICAL_FINGERPRINT, LEXICAL_CONTENT)
    current = lexical.fingerprint()
    ledger.set_meta(LEXICAL_FINGERPRINT, current)
    ledger.set_meta(LEXICAL_CONTENT, json.dumps(_contents(lexical, current, before, content)))
    ledger.delete_meta(LEXICAL_COMMIT)


def _contents(lexical: WhooshIndex, current: str, before: str | None, content: str | None) -> dict[str, str]:
    """Digests of the files of ``current``: a file recorded before at the same size and time
    keeps its digest, the others (a commit's new files) are read."""
    known = json.loads(content) if content else {}
    old, new = fingerprint_files(before or ""), fingerprint_files(current)
    kept = {name: known[name] for name, entry in new.items() if name in known and old.get(name) == entry}
    return kept | lexical.content_digests(name for name in new if name not in kept)


def unchanged(recorded: str, current: str, content: str | None, lexical: WhooshIndex) -> bool:
    """Whoosh's files are the ones the last commit recorded: the same names, sizes and times,
    or, where only the times differ, the same bytes."""
    if recorded == current:
        return True
    if content is None or not same_names_and_sizes(recorded, current):
        return False
    known = json.loads(content)
    try:
        return known.keys() == fingerprint_files(current).keys() and lexical.content_digests(known) == known
    except OSError:  # a file gone since it was listed
        return False


def record_new_times(ledger: Ledger, lexical: WhooshIndex) -> None:
    """The writer found Whoosh's files whole: where their times are not the recorded ones (a
    copy), or no digests were recorded (an index from before they were), record them now, so
    that later checks compare times again."""
    recorded, content = ledger.get_metas(LEXICAL_FINGERPRINT, LEXICAL_CONTENT)
    if recorded is not None and (content is None or recorded != lexical.fingerprint()):
        with ledger.transaction():
            end_lexical_commit(ledger, lexical)


def interruption(mark: str | None, recorded: str, current: str) -> str | None:
    """:data:`INTERRUPTED` or :data:`INTERRUPTED_REBUILD` when a killed run of ours explains
    Whoosh's files ``current`` being unlike the ``recorded`` ones, else None."""
    if mark is None:
        return None
    began = json.loads(mark)
    if began["replaces"] != recorded:
        return None  # not a mark of the run that followed this record
    if began["rebuild"]:
        return INTERRUPTED_REBUILD
    return INTERRUPTED if left_by_a_commit(recorded, current) else None


def lexical_damage(ledger: Ledger, lexical: WhooshIndex) -> str | None:
    """The writer's view (it holds the writer lock): why Whoosh must be rebuilt from the
    ledger, or None. Also counts its sections from the table of contents."""
    recorded, mark, content = ledger.get_metas(LEXICAL_FINGERPRINT, LEXICAL_COMMIT, LEXICAL_CONTENT)
    if recorded is not None:
        current = lexical.fingerprint()
        if not unchanged(recorded, current, content, lexical):
            return interruption(mark, recorded, current) or CHANGED_BEHIND_US
    try:
        count = lexical.doc_count()
    except IndexDamaged as exc:
        return str(exc.__cause__ or exc)
    if count != ledger.section_count():
        return f"it holds {count} sections, the ledger {ledger.section_count()}"
    return None


OUT_OF_STEP = "the lexical index is out of step with the ledger"


def damage_line(reason: str) -> str:
    """``status``'s line for :func:`lexical_damage`'s ``reason``: what, and what repairs it.
    An interrupted update (killed, or stopped by a full disk) left Whoosh whole, so it is
    :data:`OUT_OF_STEP`, which searches read, not damage."""
    if reason == INTERRUPTED:
        return (f"{OUT_OF_STEP}: {INTERRUPTED}; searches answer, "
                f"maybe without the notes that run changed, until {REPAIRED_BY}")
    return f"the lexical index is damaged: {reason}; `vault-engine index` repairs it"


def check_before_reading(ledger: Ledger, lexical: WhooshIndex, writing: Callable[[], bool]) -> str | None:
    """The reader's view: raise :class:`IndexDamaged` when Whoosh's files are not the ones
    the last index run recorded (a search would otherwise answer a false miss from a lost
    table of contents); return a notice when a killed run of ours left them a step ahead,
    which search can read. While another process writes (``writing()``: it holds the
    writer lock) the files change before the record does: that is not judged."""
    recorded, mark, content = ledger.get_metas(LEXICAL_FINGERPRINT, LEXICAL_COMMIT, LEXICAL_CONTENT)
    if recorded is None or writing():
        return None
    current = lexical.fingerprint()
    if unchanged(recorded, current, content, lexical):
        return None
    if writing() or ledger.get_metas(LEXICAL_FINGERPRINT, LEXICAL_COMMIT) != (recorded, mark):
        return None  # a writer started, or finished, while we listed: not ours to judge
    why = interruption(mark, recorded, current)
    if why == INTERRUPTED:
        return f"{INTERRUPTED}: word hits may leave out the notes it changed until {REPAIRED_BY}"
    raise IndexDamaged(f"the lexical index {lexical.folder} is damaged: {why or CHANGED_BEHIND_US}; "
                       "run `vault-engine index`, which rebuilds it from the ledger")
