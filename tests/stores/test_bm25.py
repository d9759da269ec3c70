"""Term-at-a-time BM25F (vault_engine/stores/bm25.py) against Whoosh's own search, on an
index with what makes it hard: several segments, deleted documents, long posting lists
(read in blocks) and short inlined ones, documents without a head or a body, filters."""

import random

import pytest

from vault_engine.stores import bm25
from vault_engine.stores.lexical import FIELDS, LexicalDoc, WhooshIndex, _filter, build_query, query_terms

VOCABULARY = ("task recurrence due date query filter sort group priority reminder "
              "calendar habit weekly monthly status done cancelled backlog inbox").split()


def random_doc(rng: random.Random, i: int) -> LexicalDoc:
    body = " ".join(rng.choice(VOCABULARY) for _ in range(rng.choice((0, 3, 20, 300))))
    title = " ".join(rng.sample(VOCABULARY, rng.choice((0, 1, 2))))
    kind = rng.choice(("note", "spec"))
    return LexicalDoc(i, i, title, "", body, "", f"n{i}.md", kind, rng.choice(("p", "q")), "vault")


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    rng = random.Random(5)
    ix = WhooshIndex(tmp_path_factory.mktemp("bm25") / "w")
    ix.index([random_doc(rng, i) for i in range(1, 700)])  # > one 128-posting block per term
    ix.index([random_doc(rng, i) for i in range(700, 760)])  # a second segment
    ix.delete(range(1, 700, 7))  # deletions inside the first one
    ix.index([random_doc(rng, 1)])  # a deleted id comes back in a third
    yield ix
    ix.close()


def whoosh_search(ix: WhooshIndex, text: str, limit: int, filters=()) -> list[tuple[int, float]]:
    searcher = ix._get_searcher()
    hits = searcher.search(build_query(text), limit=limit, filter=_filter(filters))
    return [(int(hit["id"]), hit.score) for hit in hits]


QUERIES = ["task", "weekly habit", "recurrence due date", "inbox backlog cancelled status",
           "calendar reminder priority monthly", "nothing matches this", "task task task"]
FILTERS = [(), (("kind", "spec"),), (("kind", "note"), ("project", "q")), (("project", "absent"),)]


@pytest.mark.parametrize("filters", FILTERS)
@pytest.mark.parametrize("text", QUERIES)
def test_every_score_is_whooshs_own(index, text, filters):
    ours = dict(index.search(text, 10_000, **dict(filters)))
    theirs = dict(whoosh_search(index, text, 10_000, filters))
    assert ours.keys() == theirs.keys()
    for section, score in theirs.items():
        assert ours[section] == pytest.approx(score, rel=1e-12)
    if text != "nothing matches this" and filters != FILTERS[-1]:
        assert theirs  # the comparison compared something


@pytest.mark.parametrize("text", QUERIES[:5])
def test_the_top_of_a_long_list_is_the_same(index, text):
    ours, theirs = index.search(text, 5), whoosh_search(index, text, 5)
    assert [s for _, s in ours] == pytest.approx([s for _, s in theirs], rel=1e-12)
    assert ours == sorted(ours, key=lambda hit: -hit[1])


def test_deleted_documents_never_come_back(index):
    found = {section for section, _ in index.search(" ".join(VOCABULARY), 10_000)}
    assert len(found) > 500  # most of the 660 live sections have words
    assert not found & set(range(8, 700, 7))  # deleted; 1 was deleted then indexed again


def test_ties_go_to_the_lower_document_number(tmp_path):
    ix = WhooshIndex(tmp_path / "w")
    ix.index([LexicalDoc(i, i, "", "", "identical words", "", "n.md", "note", "", "vault") for i in (5, 3, 9)])
    searcher = ix._get_searcher()
    words, _ = query_terms("identical")
    docs = bm25.top_docs(searcher, FIELDS, words, 10)
    assert [doc for doc, _ in docs] == [0, 1, 2]  # insertion order: sections 5, 3, 9
    assert [section for section, _ in ix.search("identical")] == [5, 3, 9]
    ix.close()
