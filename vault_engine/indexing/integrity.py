"""Can Whoosh be trusted? The ledger says what it should hold; these compare, cheaply.

An index run commits Whoosh inside its ledger transaction and records there Whoosh's
:meth:`~vault_engine.stores.lexical.WhooshIndex.fingerprint` (names, sizes and times of its
files). A file deleted, truncated or rewritten behind our back, and a crash between the
Whoosh commit and the ledger's, both show as files unlike the recorded fingerprint, for the
price of a directory listing.
"""

from __future__ import annotations

from collections.abc import Callable

from vault_engine.errors import IndexDamaged
from vault_engine.stores.ledger import Ledger
from vault_engine.stores.lexical import WhooshIndex

LEXICAL_FINGERPRINT = "lexical_fingerprint"  # WhooshIndex.fingerprint() after our last commit
CHANGED_BEHIND_US = "its files changed outside vault-engine (deleted, truncated or rewritten)"


def lexical_damage(ledger: Ledger, lexical: WhooshIndex) -> str | None:
    """The writer's view (it holds the writer lock): why Whoosh must be rebuilt from the
    ledger, or None. Also counts its sections from the table of contents."""
    recorded = ledger.get_meta(LEXICAL_FINGERPRINT)
    if recorded is not None and recorded != lexical.fingerprint():
        return CHANGED_BEHIND_US
    try:
        count = lexical.doc_count()
    except IndexDamaged as exc:
        return str(exc.__cause__ or exc)
    if count != ledger.section_count():
        return f"it holds {count} sections, the ledger {ledger.section_count()}"
    return None


def check_before_reading(ledger: Ledger, lexical: WhooshIndex, writing: Callable[[], bool]) -> None:
    """The reader's view: raise :class:`IndexDamaged` when Whoosh's files are not the ones
    the last index run recorded (a search would otherwise answer a false miss from a lost
    table of contents). While another process writes (``writing()``: it holds the writer
    lock) the files change before the record does: that is not damage, and is not judged."""
    recorded = ledger.get_meta(LEXICAL_FINGERPRINT)
    if recorded is None or writing() or recorded == lexical.fingerprint():
        return
    if writing() or ledger.get_meta(LEXICAL_FINGERPRINT) != recorded:
        return  # a writer started, or finished, while we listed: not ours to judge
    raise IndexDamaged(f"the lexical index {lexical.folder} is damaged: {CHANGED_BEHIND_US}; "
                       "run `vault-engine index`, which rebuilds it from the ledger")
