"""The lexical arm: a Whoosh (whoosh-reloaded) BM25 index over sections.

One text field per section: its note title, heading path, tags, path (and, for a note's first
section, the words of its frontmatter properties), then its body, so plain BM25 sees a section
as a reader does. kind, project and tap are exact-match filter fields. Whoosh stores only the
section id: text lives in the ledger. One field measured better than the two (title and
headings apart, boosted 2.5) it replaces, on every corpus of the search evaluation
(bench/search_lab.py, bench/RESULTS.md): Whoosh adds the BM25 of each field, so a query word in
both the heading and the body was saturated twice and the boost let generic heading words
("task", "query") outrank the body that answers.

Measured choices that keep a pure-Python index usable at 10,000 notes (bench/RESULTS.md):
one flat analyzer instead of Whoosh's chain of generator filters (about 40% faster
analysis); the codec's per-posting length statistics off (they feed only a block-skipping
bound that stays valid without them; about 12% less CPU); and segments left as separate files
rather than one compound file, which Whoosh copies whole into memory each time a searcher
opens it (a cold CLI search at 10,000 notes: 320 -> 240 ms).

Searching adds Whoosh's BM25F scores up term at a time (stores/bm25.py: the same scores,
about three times faster than Whoosh's own matcher tree); a query with a ``"quoted phrase"``
goes through Whoosh's searcher, whose matchers check positions.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vault_engine.errors import IndexDamaged
from vault_engine.paths import make_state_folder
from vault_engine.stores import bm25
from vault_engine.text import composed, visible

# A word's underscores join its parts (snake_case stays one term) but never open or close it:
# `_emphasis_` and `__bold__` are Markdown, and `__init__` is searched as "init" both ways.
_WORD = re.compile(r"[^\W_]+(?:_+[^\W_]+)*(?:[.'’][^\W_]+(?:_+[^\W_]+)*)*", re.UNICODE)
_PHRASE = re.compile(r'"([^"]+)"')
# Han ideographs and kana: Chinese and Japanese run their words on without spaces, so a run of
# them is indexed as its overlapping pairs of characters, as search engines index them (a whole
# sentence had been one word: "数据" was a miss in a note that writes it often, qa83)
_CJK = re.compile(r"[\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f]+")

# Function words, question words included: agents and people ask in sentences ("how do I
# ..."), and "how" must not rank the "How To/" folder first.
STOP_WORDS = frozenset("""
a about above after again against all am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from further
had has have having he her here hers herself him himself his how i if in into is it its itself
just me more most my myself no nor not now of off on once only or other our ours ourselves out
over own same she should so some such than that the their theirs them themselves then there
these they this those through to too under until up very was we were what when where which
while who whom why will with would you your yours yourself yourselves tbd yet us may shall
might must also etc e.g i.e
im ive youre youve youll theyre theyve theyll weve dont doesnt didnt isnt arent wasnt werent
hasnt havent hadnt wouldnt shouldnt couldnt mustnt cant wont whats thats theres
""".split())  # the last two lines: contractions typed without their apostrophe ("dont", "Im")
_STEMS: dict[str, str] = {}

# Batches at least this large are written by two processes (one segment each).
PARALLEL_THRESHOLD = 4000
# Posting buffer of each of those two writer processes before it spills a sorted run to disk.
# At 10,000 notes they spill at 256 MB as at 64 MB (every posting is pickled once either way),
# but at 256 MB the two peaked at 784 MB together against 289 MB (PSS) at 64 MB, for 10% more
# CPU (Whoosh alone, the 30,803 sections of bench/gen_vault.py's 10,000 notes). Batches under
# ~8,000 sections stay in memory either way; from there to ~30,000 the spill that 256 MB
# avoided costs about 10% more CPU: the price of staying within the 500 MB memory target.
PARALLEL_WRITER_MB = 64
FIELDS = ("text",)


def stem(word: str) -> str:
    """Porter stem of a lower-case word, memoized (vault vocabularies repeat a lot)."""
    found = _STEMS.get(word)
    if found is None:
        from whoosh.lang.porter import stem as porter

        found = porter(word)
        if len(_STEMS) < 500_000:  # bound the memo on pathological vocabularies
            _STEMS[word] = found
    return found


def stem_prefix(term: str) -> str:
    """What every word that stems to ``term`` starts with: Porter stemming rewrites at most a
    stem's last letter ("happy" -> "happi"; checked on 108,000 distinct words of the corpora),
    so text without this prefix cannot hold the term and need not be analyzed."""
    return term[:max(2, len(term) - 1)]


def normal_word(raw: str) -> str:
    """Lower case, possessive and contraction dropped, apostrophes removed: "Client's" ->
    "client" (the Porter stemmer would otherwise keep "client'"), "I've" -> "i", "don't" ->
    "do", "O'Brien" -> "obrien"; accents folded ("Jürgen" and "Jurgen", "résumé" and "resume"
    are one word, as most people type them), a version's "v" dropped ("v7.0.0" is "7.0.0", as
    release notes head it: qa28 F7).

    A contraction is its function word: "I've", "don't" and "can't" had been the rare terms
    "iv", "dont" and "cant", which the notes of a vault seldom hold, so that they weighed the
    most in a question written the way people ask ("I've got ... and I can't ...")."""
    word = raw.lower()
    if "'" in word or "’" in word:
        word = _CONTRACTED.sub("", word.replace("’", "'"))
        word = _NEGATED.get(word, word).replace("'", "")
    if not word.isascii():  # (checked here: this runs for every word indexed or searched)
        word = fold_accents(word)
    if word[:1] == "v" and word[1:2].isdigit() and _VERSION.match(word):
        word = word[1:]
    return word


_VERSION = re.compile(r"v\d+(?:\.(?:\d+|x))+$")
# a possessive or a contraction's ending: "client's", "I'm", "you're", "we've", "I'll", "I'd", "don't"
_CONTRACTED = re.compile(r"'(?:s|m|re|ve|ll|d)$|n't$")
_NEGATED = {"wo": "will", "ca": "can", "sha": "shall", "ai": "am"}  # "won't", "can't", "shan't", "ain't"


def fold_accents(text: str) -> str:
    """``text`` without its accents ("jürgen" -> "jurgen"), and Latin letters no accent makes
    as people type them without the key ("größe" -> "grosse", "ø" -> "o": qa83); letters of
    other scripts as they are."""
    if text.isascii():
        return text
    # decomposed anyway, so however the accents were written; "ﬁ" is "fi", "ＳＱＬ" "SQL"
    decomposed = unicodedata.normalize("NFKD", visible(text).translate(_LETTERS_TYPED))
    folded = "".join(c for c in decomposed if not "\u0300" <= c <= "\u036f")  # Latin's accents, not kana's marks
    return unicodedata.normalize("NFC", folded)


_LETTERS_TYPED = str.maketrans({"ß": "ss", "ẞ": "SS", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ø": "o",
                                "Ø": "O", "đ": "d", "Đ": "D", "ł": "l", "Ł": "L", "þ": "th", "Þ": "TH"})


def words_as_written(text: str) -> dict[str, str]:
    """Each term of ``text`` (as :func:`analyze` gives it) and the word it was first written as."""
    written: dict[str, str] = {}
    for term, raw in _terms_of(text):
        written.setdefault(term, raw)
    return written


# English capitalizes the days and the months, and their short forms: words of a date, not
# names of something the notes may lack ("a dinner party on Saturday" had made a right answer
# `low`, qa108; "on Fri", "on Sept 12", qa111)
_CALENDAR = frozenset(("monday tuesday wednesday thursday friday saturday sunday january february march "
                       "april may june july august september october november december "
                       "mon tue tues wed thu thur thurs fri sat sun "
                       "jan feb mar apr jun jul aug sep sept oct nov dec").split())


def is_calendar_word(word: str) -> bool:
    """A day or a month, or its short form ("Fri", "Sept"): a date's word, not a topic."""
    return word.lower() in _CALENDAR


def written_as_names(text: str) -> set[str]:
    """The words of ``text`` written as names: capitalized where a sentence does not open
    ("sync with Todoist"), or with a capital inside ("GDPR", "CeleryExecutor", "iOS"); a day
    or a month is none."""
    names = set()
    for m in _WORD.finditer(text):
        word = m.group()
        if any(c.isupper() for c in word[1:]) or (word[0].isupper() and not _opens_sentence(text, m.start())
                                                  and not is_calendar_word(word)):
            names.add(word)
    return names


def _opens_sentence(text: str, at: int) -> bool:
    before = text[:at].rstrip(" \t\"'“‘([*_>#-")
    return not before or before[-1] in ".!?:;\n"


def analyze(text: str, *, parts: bool = True) -> list[str]:
    """The terms the index holds for ``text``: normalized, stop words out, stemmed; a dotted
    name's parts after it (:func:`dotted_parts`) unless ``parts`` is false (a phrase's words
    follow one another, its parts share their word's place)."""
    return [term for term, _ in _terms_of(text, parts)]


def dotted_parts(raw: str) -> list[str]:
    """The parts of a dotted name written as code names (a capital inside, or an underscore),
    each a word of its own as well: "task.isRecurring" holds "isrecurring" (an agent asks for
    `isRecurring`, the notes write `task.isRecurring`: qa52). Plain words are no parts: a
    "task" in every "task.due" and a "md" in every "notes.md" outranked the sections that say
    them (bench/RESULTS.md)."""
    if "." not in raw:
        return []
    words = (normal_word(part) for part in raw.split(".") if _CODE_NAME.search(part))
    return [word for word in words if is_term(word)]


def is_term(word: str) -> bool:
    """Whether a normalized word is a term of the index: no stop word, and no single letter
    ("e.g." leaves an "e" and "g"), but a single digit is: "due within next 7 days" asks for
    "Find tasks for coming 7 days", and without its "7" the words arm ranked it sixth; so is a
    single Han character or kana, a word of its own."""
    return (len(word) > 1 or word.isdigit() or bool(_CJK.match(word))) and word not in STOP_WORDS


def holds_cjk(text: str) -> bool:
    """Whether ``text`` holds Chinese or Japanese, read in pairs of characters (:func:`word_pieces`)."""
    return not text.isascii() and bool(_CJK.search(text))


def word_pieces(raw: str) -> list[str]:
    """The words a matched word is indexed as: itself, or, where it holds Chinese or Japanese,
    its other letters as words and each run of those characters as its overlapping pairs
    ("星型模型" -> "星型", "型模", "模型"; a lone character as itself)."""
    if not holds_cjk(raw):
        return [raw]
    pieces, at = [], 0
    for run in _CJK.finditer(raw):
        if run.start() > at:
            pieces.append(raw[at:run.start()])
        chars = run.group()
        pieces += [chars] if len(chars) == 1 else [chars[i:i + 2] for i in range(len(chars) - 1)]
        at = run.end()
    return pieces + ([raw[at:]] if at < len(raw) else [])


_CODE_NAME = re.compile(r"[^\W_][A-Z]|[^\W_]_[^\W_]")


def _terms_of(text: str, parts: bool = True) -> list[tuple[str, str]]:
    """(term, word as written) for each word of ``text`` the index holds."""
    found = []
    for matched in _WORD.findall(composed(text)):
        for raw in word_pieces(matched):
            word = normal_word(raw)
            if is_term(word):
                found.append((stem(word), raw))
                if parts and "." in raw:  # (checked here: this runs for every word searched)
                    found.extend((stem(part), raw) for part in dotted_parts(raw))
    return found


def _make_analyzer():
    from whoosh.analysis import Analyzer, Token

    class FlatAnalyzer(Analyzer):
        """Tokenize, lower-case, drop stop words and stem in one pass."""

        def __call__(self, value, positions=False, chars=False, keeporiginal=False,
                     removestops=True, start_pos=0, start_char=0, tokenize=True, mode="", **kw):
            token = Token(positions, chars, removestops=removestops, mode=mode)
            matches = _WORD.finditer(composed(value)) if tokenize else [None]  # no character offsets are kept
            pos = start_pos
            for m in matches:
                for raw in word_pieces(m.group()) if m is not None else [value]:  # Chinese: pairs of characters
                    word = normal_word(raw)
                    if removestops and not is_term(word):
                        pos += 1
                        continue
                    token.boost = 1.0
                    token.stopped = False
                    if keeporiginal:
                        token.original = word
                    if positions:
                        token.pos = pos  # a dotted name's parts share its place
                    if chars and m is not None:
                        token.startchar, token.endchar = start_char + m.start(), start_char + m.end()
                    token.text = stem(word)
                    yield token
                    if m is not None and "." in word:  # a dotted name's code-named parts, at its place
                        for part in dotted_parts(raw):
                            token.text = stem(part)
                            yield token
                    pos += 1

    return FlatAnalyzer


def _schema():
    from whoosh import fields

    analyzer = __getattr__("FlatAnalyzer")()
    return fields.Schema(
        id=fields.ID(stored=True, unique=True),
        note=fields.ID(),
        text=fields.TEXT(analyzer=analyzer),
        kind=fields.ID(),
        project=fields.ID(),
        tap=fields.ID(),
    )


def __getattr__(name: str):
    # FlatAnalyzer subclasses a Whoosh class, so it is built on first use (whoosh is heavy),
    # yet it must be reachable by name: Whoosh pickles the schema, analyzer included.
    if name == "FlatAnalyzer":
        if "FlatAnalyzer" in globals():
            return globals()["FlatAnalyzer"]
        cls = _make_analyzer()
        cls.__module__ = __name__
        cls.__qualname__ = "FlatAnalyzer"
        globals()["FlatAnalyzer"] = cls
        return cls
    raise AttributeError(name)


@dataclass(frozen=True, slots=True)
class LexicalDoc:
    """One section as the lexical index sees it."""

    id: int
    note_id: int
    title: str
    headings: str
    body: str
    tags: str
    path: str
    kind: str
    project: str
    tap: str
    properties: str = ""  # a note's first section: the words of its properties (property_words)

    @property
    def text(self) -> str:
        """What the index holds of the section: what it is about, then what it says."""
        return f"{self.title}\n{self.headings}\n{self.tags}\n{self.properties}\n{self.path}\n{self.body}"


class WhooshIndex:
    """index / delete / search / save / load over section ids, like every index backend."""

    def __init__(self, folder: Path):
        self.folder = folder
        self._ix = None
        self._searcher = None

    # -- lifecycle ------------------------------------------------------------------------

    def exists(self) -> bool:
        """Whether the folder holds an index; opens it when it does. (Asking Whoosh's
        ``exists_in`` and then opening read the table of contents twice: 25 ms of a cold
        CLI search at 16,000 notes.)"""
        from whoosh import index

        if self._ix is None and self.folder.is_dir():
            try:
                self._ix = index.open_dir(str(self.folder))
            except index.EmptyIndexError:
                return False
            except Exception as exc:  # noqa: BLE001 - a garbled table of contents, a lost file
                raise IndexDamaged(f"the lexical index {self.folder} cannot be opened ({type(exc).__name__}): "
                                   "run `vault-engine index`, which rebuilds it from the ledger") from exc
        return self._ix is not None

    def load(self):
        from whoosh import index

        if not self.exists():
            make_state_folder(self.folder)
            self._ix = index.create_in(str(self.folder), _schema())
        return self._ix

    def reset(self) -> None:
        """Drop everything (``index --rebuild``, a repair): a file in the folder's place too,
        derived as all of it is (qa64: the repair refused, "move it aside")."""
        self.close()
        if self.folder.is_symlink() or self.folder.is_file():
            self.folder.unlink()
        shutil.rmtree(self.folder, ignore_errors=True)

    def close(self) -> None:
        if self._searcher is not None:
            self._searcher.close()
            self._searcher = None
        if self._ix is not None:
            self._ix.close()
            self._ix = None

    def fingerprint(self) -> str:
        """Names, sizes and modification times of the index's files: recorded after each
        commit and compared later, it tells a segment deleted, truncated or rewritten behind
        our back (which Whoosh itself would only notice mid-search) for the price of a
        directory listing."""
        if not self.folder.is_dir():
            return ""
        entries = []
        for entry in sorted(os.scandir(self.folder), key=lambda e: e.name):
            if entry.is_file() and entry.name != "MAIN_WRITELOCK":
                info = entry.stat()
                entries.append(f"{entry.name}:{info.st_size}:{info.st_mtime_ns}")
        return "|".join(entries)

    def content_digests(self, names: Iterable[str]) -> dict[str, str]:
        """File name -> a digest of its bytes, for these files of the index."""
        digests = {}
        for name in names:
            digest = hashlib.blake2b(digest_size=16)
            with open(self.folder / name, "rb") as file:
                while chunk := file.read(1 << 20):
                    digest.update(chunk)
            digests[name] = digest.hexdigest()
        return digests

    def doc_count(self) -> int:
        """Sections in the index, from its table of contents. Every ``index`` run checks it:
        opening all segment readers to count took 63 ms at 10,000 notes, this 0.06 ms (the
        same sum of documents minus deletions per segment; bench/bench_core.py's vault)."""
        if not self.exists():
            return 0
        return sum(segment.doc_count() for segment in self.load()._segments())

    # -- writes ---------------------------------------------------------------------------

    def apply(self, delete_ids: Iterable[int], docs: Sequence[LexicalDoc]) -> None:
        """Delete then add in one commit (a reader sees the old or the new state, never half)."""
        from whoosh.codec.whoosh3 import W3Codec
        from whoosh.query import Or, Term

        deleted = [str(i) for i in delete_ids]
        if not deleted and not docs:
            return
        ix = self.load()
        codec = W3Codec()
        codec.length_stats = False  # see module docstring
        if len(docs) >= PARALLEL_THRESHOLD:
            writer = ix.writer(procs=2, multisegment=True, limitmb=PARALLEL_WRITER_MB, codec=codec, compound=False)
        else:
            writer = ix.writer(limitmb=256, codec=codec, compound=False)
        try:
            for start in range(0, len(deleted), 1000):
                chunk = deleted[start:start + 1000]
                writer.delete_by_query(Or([Term("id", i) for i in chunk]))
            for doc in docs:
                writer.add_document(
                    id=str(doc.id), note=str(doc.note_id), text=doc.text,
                    kind=doc.kind, project=doc.project, tap=doc.tap,
                )
        except BaseException:
            writer.cancel()
            raise
        writer.commit(mergetype=_merge_small_and_purge)
        self._refresh()

    def index(self, docs: Sequence[LexicalDoc]) -> None:
        self.apply((), docs)

    def delete(self, ids: Iterable[int]) -> None:
        self.apply(ids, ())

    def save(self) -> None:
        """Whoosh commits in apply(); nothing is buffered."""

    def _refresh(self) -> None:
        if self._searcher is not None:
            self._searcher.close()
            self._searcher = None

    # -- reads ----------------------------------------------------------------------------

    def search(self, text: str, limit: int = 50, *, kind: str | None = None,
               project: str | None = None, tap: str | None = None) -> list[tuple[int, float]]:
        """(section id, BM25F score), best first; empty when no section shares a term."""
        words, phrases = query_terms(text)
        try:
            if not words or not self.exists():
                return []
            searcher = self._get_searcher()
            filters = [(name, value) for name, value in (("kind", kind), ("project", project), ("tap", tap))
                       if value]
            if phrases:  # Whoosh's own matchers check the positions a phrase needs
                hits = searcher.search(build_query(text), limit=limit, filter=_filter(filters))
                return [(int(hit["id"]), float(hit.score)) for hit in hits]
            docs = bm25.top_docs(searcher, FIELDS, words, limit, filters)
            return [(int(searcher.stored_fields(doc)["id"]), score) for doc, score in docs]
        except IndexDamaged:
            raise
        except Exception as exc:  # noqa: BLE001 - whatever a broken segment raises, say what to do
            raise IndexDamaged(f"the lexical index {self.folder} cannot be read ({type(exc).__name__}: "
                               f"{str(exc)[:120]}): run `vault-engine index`, which rebuilds it from "
                               "the ledger") from exc

    def doc_frequencies(self, terms: Iterable[str]) -> tuple[int, dict[str, int]]:
        """(sections in the index, how many of them hold each analyzed term), read from the
        searcher's open reader: no second pass over the segment tables."""
        if not self.exists():
            return 0, {t: 0 for t in terms}
        reader = self._get_searcher().reader()
        return reader.doc_count(), {t: max(_held_by(reader, f, t) for f in FIELDS) for t in terms}

    def terms_near(self, term: str, edits: int) -> list[tuple[str, int]]:
        """The index's terms within ``edits`` (Levenshtein) of ``term`` that open with its
        letter, each with how many sections hold it (Whoosh walks its term list with an
        automaton: 2 to 14 ms on obsidian-tasks-docs)."""
        if not self.exists():
            return []
        reader = self._get_searcher().reader()
        return [(t, max(_held_by(reader, f, t) for f in FIELDS))
                for t in dict.fromkeys(t for f in FIELDS for t in reader.terms_within(f, term, edits, prefix=1))]

    def sections_holding(self, term: str, limit: int) -> list[int]:
        """The ids of up to ``limit`` sections that hold ``term`` (the first ones indexed)."""
        if not self.exists():
            return []
        searcher = self._get_searcher()
        reader = searcher.reader()
        found: list[int] = []
        for field in FIELDS:
            if not reader.doc_frequency(field, term):
                continue
            for doc in reader.postings(field, term).all_ids():
                if not reader.is_deleted(doc):
                    found.append(int(searcher.stored_fields(doc)["id"]))
                if len(found) >= limit:
                    return found
        return found

    def _get_searcher(self):
        # Whoosh's Searcher.refresh() reuses per-segment readers, which keeps serving documents
        # deleted since (their segment id is unchanged): open a fresh searcher instead.
        if self._searcher is not None and not self._searcher.up_to_date():
            self._refresh()
        if self._searcher is None:
            self._searcher = self.load().searcher(weighting=bm25.weighting())
        return self._searcher


def left_by_a_commit(before: str, after: str) -> bool:
    """Whether Whoosh's files ``after`` (a fingerprint) can be what our own commit, whole or
    cut short, left of ``before``. A commit writes new segment files and a new table of
    contents, then removes the files they replace; it never rewrites a file (deletions are
    recorded in the table of contents), and one table of contents is always there. A file
    of ``before`` still present with another size or time, or no table of contents, is
    someone else's doing."""
    old, new = fingerprint_files(before), fingerprint_files(after)
    return any(name.endswith(".toc") for name in new) and all(new[n] == old[n] for n in old.keys() & new.keys())


def same_names_and_sizes(before: str, after: str) -> bool:
    """Whether two fingerprints list the same files at the same sizes, whatever their times:
    what a copy of the index (``cp -r``) or a ``touch`` leaves."""
    def sizes(fingerprint: str) -> dict[str, str]:
        return {name: entry.split(":")[0] for name, entry in fingerprint_files(fingerprint).items()}

    return bool(before) and sizes(before) == sizes(after)


def fingerprint_files(fingerprint: str) -> dict[str, str]:
    """File name -> ``size:mtime`` of a :meth:`WhooshIndex.fingerprint` (a garbled record
    lists no files)."""
    return dict(entry.split(":", 1) for entry in fingerprint.split("|") if ":" in entry)


# What other search boxes read as operators and this one reads as words: "-debezium", NOT, OR,
# AND, "path:notes", "kaf*" (qa28 F4: "kafka -debezium" put Debezium first, without a word).
_OPERATOR = re.compile(r"(?:^|(?<=\s))-[^\W_]\S*|\b(?:NOT|OR|AND)\b"
                       r"|\b(?:path|file|tag|title|section|line|block|content):\S+|\b\w+\*(?!\w)")


def operators_in(text: str) -> list[str]:
    """The operators of other search syntaxes in ``text`` (outside quoted phrases), as written."""
    return list(dict.fromkeys(m.group() for m in _OPERATOR.finditer(_PHRASE.sub(" ", text))))


def literal_phrases(text: str) -> list[re.Pattern]:
    """The ``"quoted phrases"`` of ``text`` that hold a stop word, each as a pattern of its
    words as written, in order (case, accents and the marks between words aside): the index
    keeps no stop word, so it cannot tell "lift and shift" from "lift heavy shift", or "not
    done" from "no done date" (qa29 N1). Match a text folded as :func:`fold_accents` folds."""
    return [re.compile(r"(?<!\w)" + r"[\W_]+".join(re.escape(fold_accents(w.lower())) for w in words) + r"(?!\w)")
            for words, terms in _phrases(text) if len(words) > 1 and len(words) > len(terms)]


def _phrases(text: str) -> list[tuple[list[str], list[str]]]:
    """Each ``"quoted phrase"`` of ``text``: its words as written, and its terms."""
    return [([piece for word in _WORD.findall(phrase) for piece in word_pieces(word)], analyze(phrase, parts=False))
            for phrase in _PHRASE.findall(text)]  # Chinese written as one word is its pairs, each a place


def query_terms(text: str) -> tuple[list[str], list[list[str]]]:
    """The query's distinct terms, and its ``"quoted phrases"`` of two terms or more."""
    phrases = [terms for _, terms in _phrases(text)]
    words = list(dict.fromkeys(analyze(_PHRASE.sub(" ", text)) + [t for p in phrases for t in p]))
    return words, [p for p in phrases if len(p) > 1]


def build_query(text: str):
    """Whoosh's query for ``text``, never failing to parse: every term ORed, plus any
    ``"quoted phrase"`` as a phrase that must match in order. (Leaving
    out terms common to many sections would halve search time, but it cost recall on
    bench/eval_search.py, so every term stays.)"""
    from whoosh.query import And, Or, Phrase, Term

    words, _ = query_terms(text)
    if not words:
        return None
    terms = Or([Term(field, word) for word in words for field in FIELDS])
    # A stop word inside a phrase is not indexed but keeps its place ("lift and shift" is lift
    # at 0, shift at 2): each one the phrase drops is a word the match may skip, in order.
    musts = [Or([Phrase(f, held, slop=1 + len(written) - len(held)) for f in FIELDS])
             for written, held in _phrases(text) if len(held) > 1]
    return And([terms, *musts]) if musts else terms


def has_symbols(text: str) -> bool:
    """Whether ``text`` writes a pictograph or another symbol (📅, 🔁, ✅, →, ≠): no word of the
    index, and the model reads them all as one unknown sign."""
    return bool(symbols_in(text, ("So", "Sm")))  # "→ ≠ ±" too (qa85)


def symbols_in(text: str, categories: tuple[str, ...] = ("So",)) -> list[str]:
    """The symbols ``text`` writes, each once: pictographs (📅, ⏳), or also math symbols
    (``"Sm"``: →, ≠), which between words are punctuation ("done→cancelled", qa113)."""
    import unicodedata

    return list(dict.fromkeys(c for c in text if not c.isascii() and unicodedata.category(c) in categories))


def only_symbols(text: str) -> bool:
    """Whether ``text`` writes symbols and no word the index holds ("🔁", "🚀 ✅", "→ ≠"): a
    search or a dead-end check of it compares nothing, by words or by meaning."""
    return has_symbols(text) and not query_terms(text)[0]


def only_tags(text: str) -> bool:
    """Whether every word of a query is a #tag (as Obsidian has them: "#42" is none)."""
    words = text.split()
    return bool(words) and all(word.startswith("#") and len(word) > 1 and not word[1:].isdigit() for word in words)


def _filter(terms: Sequence[tuple[str, str]]):
    from whoosh.query import And, Term

    return And([Term(name, value) for name, value in terms]) if terms else None


# A segment whose deleted documents are over this share of it is rewritten without them at the
# next commit (one wholly deleted is dropped). Whoosh only marks a document deleted, and its
# words and length still count in the averages and document frequencies BM25 reads: after a
# branch switch added 995 sections and took them away, every score of sample-vault was 1.9x
# a fresh index's, and hits changed places (qa61).
PURGE_SHARE = 1 / 3  # (Lucene's TieredMergePolicy allows 33% by default)


def _merge_small_and_purge(writer, segments: list) -> list:
    """Whoosh's merge policy (small segments merged, by its Fibonacci rule), then each segment
    left with too many deletions merged too: the segments the commit keeps as they are."""
    from whoosh.reading import SegmentReader
    from whoosh.writing import MERGE_SMALL

    kept = []
    for segment in MERGE_SMALL(writer, segments):
        if segment.deleted_count() <= PURGE_SHARE * segment.doc_count_all():
            kept.append(segment)
        elif segment.doc_count():  # its live documents go into the segment this commit writes
            reader = SegmentReader(writer.storage, writer.schema, segment)
            writer.add_reader(reader)
            reader.close()
    return kept


def _held_by(reader: Any, field: str, term: str) -> int:
    """How many sections hold ``term`` in ``field``: Whoosh's count, which keeps a deleted
    section until its segment is rewritten (as BM25's statistics do), but 0 when only deleted
    ones hold it: a word that only an edited or deleted note had held read as held, and the
    typo beside it was not read (``kubernetse`` was a miss until `index --rebuild`, qa156)."""
    count = reader.doc_frequency(field, term)
    deleted = reader.doc_count_all() - reader.doc_count()
    # more sections than were deleted hold it: one of them is live, no posting read (a search's
    # every word had been read again, 5% of a search at 10,000 notes)
    if 0 < count <= deleted and not reader.postings(field, term).is_active():
        return 0
    return count
