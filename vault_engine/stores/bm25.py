"""Whoosh's BM25F, added up term at a time straight from Whoosh's own posting blocks.

Whoosh scores a query document at a time, through a tree of Python matcher objects (one per
term and field) that is asked for every posting's id, weight and field length. At 50,000
sections that tree was 85% of a search (25 ms of a 32 ms lexical query, profiled with
cProfile on bench/bench_embed.py's vault). The same sum, accumulated per term into a dict
from each block's id and weight arrays and a table of the field's length bytes, costs a
fraction of that (bench/RESULTS.md, *Hybrid search*: "Whoosh BM25"): pure Python still, so a
cold CLI search imports nothing new.

The scores are Whoosh's to the last bits: the same formula (``whoosh.scoring.bm25``: per
field, ``idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / average length))``), the same
idf and average length from the searcher, the same quantized length bytes. Only the order
of floating-point additions differs, so exact ties may come out in another order.
tests/stores/test_bm25.py compares every score with Whoosh's own search.

It reads three things whoosh-reloaded keeps private: a posting block's decoded ids and
weights, and the raw bytes of a field's length column. pyproject.toml pins the exact
version; the test above is what an upgrade has to pass.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator, Sequence
from operator import itemgetter

# Whoosh's BM25F defaults, given to the searcher too (see :func:`weighting`), so Whoosh's
# own scoring (phrase queries) and this module's can never drift apart.
B = 0.75
K1 = 1.2


def weighting():
    """The weighting model for every Whoosh searcher of the lexical index."""
    from whoosh import scoring

    return scoring.BM25F(B=B, K1=K1)


def top_docs(searcher, fields: Sequence[str], words: Sequence[str], limit: int,
             required: Sequence[tuple[str, str]] = ()) -> list[tuple[int, float]]:
    """(document number, score) of the ``limit`` best documents holding any of ``words``
    in any of ``fields``: best first, ties by document number (which tied documents make
    the cut at the ``limit`` boundary is stable but not by number). ``required`` are exact
    (field, value) terms a document must all hold (the kind, project and tap filters)."""
    found: list[tuple[int, float]] = []
    for leaf, offset in searcher.leaf_searchers():
        reader = leaf.reader()
        if reader.doc_count_all() == 0:
            continue  # an index with no segment yet (Whoosh's EmptyReader)
        allowed = _docs_with_all(reader, required) if required else None
        if allowed is not None and not allowed:
            continue
        totals = _segment_scores(searcher, reader, fields, words)
        for doc in reader.deleted_docs_set:
            totals.pop(doc, None)
        if allowed is not None:
            totals = {doc: score for doc, score in totals.items() if doc in allowed}
        # the best `limit` by score alone (C speed; a Python key for the tie order was 3 ms
        # a query at 50,000 sections), then ties among them by document number
        best = heapq.nlargest(limit, totals.items(), key=itemgetter(1))
        found += [(doc + offset, score) for doc, score in best]
    return sorted(found, key=lambda hit: (-hit[1], hit[0]))[:limit]


def _segment_scores(searcher, reader, fields: Sequence[str], words: Sequence[str]) -> dict[int, float]:
    """Each matching document's score in one segment (deleted documents included)."""
    from whoosh.util.numeric import byte_to_length

    totals: dict[int, float] = {}
    get = totals.get
    for field in fields:
        present = [w for w in words if (field, w) in reader]
        if not present:
            continue
        average = searcher.avg_field_length(field) or 1
        # tf / (tf + K1 * (1 - B + B * length / average)), the length part per length byte
        norm = [K1 * ((1 - B) + B * byte_to_length(b) / average) for b in range(256)]
        length_bytes = _length_bytes(reader, field)
        for word in present:
            idf = searcher.idf(field, word) * (K1 + 1)
            for ids, weights in _blocks(reader.postings(field, word)):
                for doc, tf in zip(ids, weights):
                    totals[doc] = get(doc, 0.0) + idf * tf / (tf + norm[length_bytes[doc]])
    return totals


def _blocks(matcher) -> Iterator[tuple[Sequence[int], Sequence[float]]]:
    """(ids, weights) per posting block. A long posting list is read block by block from
    its decoded arrays; short lists Whoosh keeps inline are walked posting by posting."""
    from whoosh.codec.whoosh3 import W3LeafMatcher
    from whoosh.matching.wrappers import FilterMatcher

    if isinstance(matcher, FilterMatcher):  # hides deleted documents: top_docs drops those
        matcher = matcher.child
    if isinstance(matcher, W3LeafMatcher):
        while matcher.is_active():
            matcher._read_ids()
            matcher._read_weights()
            yield matcher._ids, matcher._weights
            matcher._next_block()
        return
    ids, weights = [], []
    while matcher.is_active():
        ids.append(matcher.id())
        weights.append(matcher.weight())
        matcher.next()
    yield ids, weights


def _length_bytes(reader, field: str) -> bytes:
    """The field's quantized length byte of every document of the segment (0 past the end:
    Whoosh stops writing the column at the last document that has the field)."""
    from whoosh.codec.whoosh3 import LENGTHS_COLUMN

    column = reader._perdoc._cached_reader(f"_{field}_len", LENGTHS_COLUMN)
    if column is None:
        return bytes(reader.doc_count_all())
    raw = column._dbfile.get(column._basepos, column._count)
    return raw + bytes(max(0, reader.doc_count_all() - len(raw)))


def _docs_with_all(reader, terms: Iterable[tuple[str, str]]) -> set[int]:
    allowed: set[int] | None = None
    for field, value in terms:
        docs: set[int] = set()
        if (field, value) in reader:
            for ids, _ in _blocks(reader.postings(field, value)):
                docs.update(ids)
        allowed = docs if allowed is None else allowed & docs
        if not allowed:
            return set()
    return allowed or set()
