"""Search orchestration: run the arms, fuse, decay, cut, and dress the hits.

Order matters and is fixed (:meth:`Searcher.search`, each step's function named):

1. read the query: its first :data:`QUERY_WORDS` words (``_as_read``), a misspelt word as
   the vault's word (spelling.py ``corrected``);
2. retrieve per arm (``_run_arms``): BM25 and the vector index, each to :data:`ARM_DEPTH`
   candidates, filters applied inside each store; a quoted phrase keeps the sections that
   hold it (``_holding_phrases``);
3. fuse (fusion.py, pure), then multiply by each document's decay (decay.py, pure, after
   retrieval, never inside an index) and find what a section that only embeds another shows
   (``_candidates``, ``_embedded``);
4. order: the note the query names first, notes with nothing to read last, then by score;
   each note's best section before any note's second one (``notes_first``), the top k;
5. judge: the evidence (``_evidence``), the miss rule and the confidence (confidence.py);
6. dress each hit: snippet, links resolved, further sections of its note (``_dress``,
   ``_hit``), and follow links when asked (``_follow``).

Hits are in that order, not by ``score``. Each arm contributes the same number of candidates
whatever ``k`` is, so the first hits of ``-k 5`` are the first hits of ``-k 100``. What runs
around a search (a second, unfiltered one to explain a miss, code's "why" notes) is
vault.py's.
"""

from __future__ import annotations

import functools
import re
import time
from collections.abc import Container, Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath
from typing import Protocol
from urllib.parse import quote

from vault_engine.config import Config
from vault_engine.errors import ModelUnavailable
from vault_engine.model import Hit, ResolvedLink, Scores, SearchResult
from vault_engine.parsing.frontmatter import property_lines
from vault_engine.parsing.readable import only_comments, reading_view
from vault_engine.parsing.sections import heading_line, leading_headings, section_body
from vault_engine.refs import make_ref
from vault_engine.retrieval.confidence import Evidence, MissRule, judged, judged_miss
from vault_engine.retrieval.coverage import indexed_text, section_coverage, weighed_terms
from vault_engine.retrieval.decay import decay_multiplier, note_age, typical_time, undated_page
from vault_engine.retrieval.follow import LINKS_PER_HIT, follow_targets, hit_links
from vault_engine.retrieval.fusion import Fused, fuse
from vault_engine.retrieval.lookup import find_section, section_ref
from vault_engine.retrieval.snippets import make_snippet
from vault_engine.retrieval.spelling import Corrected, corrected
from vault_engine.sources.code.testpaths import is_test_path
from vault_engine.stores.ledger import Ledger, NoteRow, SectionRow
from vault_engine.stores.lexical import (
    STOP_WORDS,
    WhooshIndex,
    analyze,
    fold_accents,
    is_calendar_word,
    literal_phrases,
    query_terms,
    symbols_in,
    word_pieces,
    words_as_written,
    written_as_names,
)

ARM_DEPTH = 100  # candidates per arm, whatever k is asked for
COVERAGE_DEPTH = 20  # best fused candidates whose share of the query's words the miss rule reads
QUERY_WORDS = 200  # a query's words searched: the model reads 256 word pieces of it, about 200 words


class SemanticArm(Protocol):
    """What search needs from the embedding side (retrieval.semantic.SemanticSearcher)."""

    def embed_ahead(self, query: str) -> None:
        """Start embedding the query while the lexical arm runs."""

    def search(self, query: str, limit: int, include: Iterable[int] = (),
               allowed: Container[int] | None = None) -> tuple[list[tuple[int, float]], dict[int, float]]:
        """The ``limit`` nearest sections best first, and the cosine of each ``include`` one."""


@dataclass(frozen=True, slots=True)
class SearchRequest:
    query: str
    k: int = 10
    kind: str | None = None
    project: str | None = None
    tap: str | None = None
    arms: tuple[str, ...] = ("lexical", "semantic")
    decay: bool = True
    follow: int = 0
    now: float | None = None
    exclude_tests: bool = False  # leave out test code (sources/code/testpaths.py)

    @property
    def narrowed(self) -> bool:
        """Whether ``--kind``, ``--project`` or ``--tap`` narrows the search."""
        return bool(self.kind or self.project or self.tap)


@dataclass(slots=True)
class _Candidate:
    fused: Fused
    note: NoteRow
    section: SectionRow
    decay: float = 1.0
    age: float | None = None
    score: float = 0.0
    bare: bool = False  # a note that is only its heading: listed after every hit with text
    # the section that embeds this one, which the arms found (Searcher._embedded): its hit says
    # `via` it, and its words count as the hit's (the heading over the embed is read with it)
    found_in: tuple[NoteRow, SectionRow] | None = None

    @property
    def via(self) -> str | None:
        return section_ref(*self.found_in) if self.found_in else None


ALSO_SHOWN = 3  # a hit's further sections named under it
# an embed of a note (no file extension, or .md), not of an image or a view: `![[Urgency#Limits]]`
_NOTE_EMBED = re.compile(r"!\[\[(?![^\]|#]*\.(?!md\b)\w{1,8}(?:[\]|#]))", re.IGNORECASE)
MAX_EMBED_HOPS = 5  # embeds of embeds followed to what they show, as Obsidian stops a loop
ARM_TOP = 3  # ...among them, those an arm ranks this high of all sections


def _notes_named(query: str, candidates: Iterable[_Candidate]) -> dict[int, int]:
    """The candidates' notes whose title or file name is the query: 2 when as written (case
    and spacing aside), 1 when word for word as the index reads words (stop words and endings
    aside: "Getting Started" is "About Getting Started" so, and comes first)."""
    words = set(analyze(query))
    if not words:
        return {}
    written = " ".join(query.split()).casefold()
    named: dict[int, int] = {}
    seen: set[int] = set()
    for c in candidates:
        if c.note.id not in seen:
            seen.add(c.note.id)
            names = (c.note.title or "", c.note.path.rsplit("/", 1)[-1].rsplit(".", 1)[0])
            if any(" ".join(name.split()).casefold() == written for name in names):
                named[c.note.id] = 2
            elif any(words == set(analyze(name)) for name in names):
                named[c.note.id] = 1
    return named


def further_sections(ranked: list[_Candidate], top: list[_Candidate],
                     arm_tops: Set[int]) -> dict[int, list[_Candidate]]:
    """For each note shown, its further sections a reader should not lose below other notes
    (:func:`notes_first` lists them after every note's best): those that outrank the next
    note, and those either arm ranks in its first :data:`ARM_TOP`. A recipe's ``#Tips``, the
    words' first hit, was 85th under ``-k 100``, its note shown by ``#Directions``; the
    meaning's second hit on a chores question 60th (qa52). By section id of the shown hit;
    sections listed as hits already are not named again."""
    listed = {c.section.id for c in top}
    position = {c.section.id: i for i, c in enumerate(ranked)}
    shown: dict[int, _Candidate] = {}
    for c in top:
        shown.setdefault(c.note.id, c)
    best: dict[int, int] = {}  # note -> where its best section is, the notes in that order
    for i, c in enumerate(ranked):
        best.setdefault(c.note.id, i)
    starts = list(best.values())
    next_best = dict(zip(best, starts[1:] + [len(ranked)]))  # where the note after it has its best
    further: dict[int, list[_Candidate]] = {}
    for c in ranked:
        hit = shown.get(c.note.id)
        if hit is None or c.section.id in listed or c.bare:
            continue
        named = further.setdefault(hit.section.id, [])
        # the cheap tests first: reading a section's text for words cost 10 ms a search
        if len(named) < ALSO_SHOWN and (position[c.section.id] < next_best[c.note.id] or c.fused.id in arm_tops) \
                and says_something(c.section, c.note.path):
            named.append(c)
    return {section: named for section, named in further.items() if named}


def notes_first(ranked: list[_Candidate], k: int) -> list[_Candidate]:
    """Each note's shown section, in their order, then the notes' further sections, best
    first: five hits are five notes when five were found. The answer to a question is a note,
    and its other sections are one ``show`` away; three sections of one note would push the
    right note out of sight (bench/RESULTS.md, "One section per note first").

    A note is shown by its best section that says something, and takes that section's place:
    a section with almost no words of its own (a Nygard ADR's ``## Status`` "Accepted", a
    "Date:" line, a heading over embeds of another note) scores high on a query of its
    heading's words and tells the reader nothing. It is listed with the further sections,
    unless nothing else of its note was found. (Placed by such a section, a hub note that
    embeds Change Data Capture's blocks came before that note, its score below the next
    hit's: qa28 F5, F10.) Only the sections of the notes that can make the first ``k`` are
    read for words."""
    by_note: dict[int, list[_Candidate]] = {}
    for c in ranked:
        by_note.setdefault(c.note.id, []).append(c)
    position = {id(c): i for i, c in enumerate(ranked)}
    notes = list(by_note.values())  # in the order of their best sections
    shown: list[_Candidate] = []
    for i, found in enumerate(notes):
        shown.append(next((c for c in found if says_something(c.section, c.note.path)), found[0]))
        if len(shown) >= k and (i + 1 == len(notes) or _kth_place(shown, k, position) < position[id(notes[i + 1][0])]):
            break  # every note not looked at yet is shown at its best section's place or later
    first = sorted(shown, key=lambda c: position[id(c)])[:k]
    listed = {id(c) for c in first}
    return (first + [c for c in ranked if id(c) not in listed])[:k]


SAYS_READ = 20_000  # characters of a section's text read for whether it says something
MIN_WORDS = 3  # fewer content words than a short statement ("Keep sessions in cookies") say nothing alone


def _kth_place(shown: list[_Candidate], k: int, position: dict[int, int]) -> int:
    """The place in the ranking of the ``k``-th of the sections shown so far: once the next
    note's best section comes after it, no later note can enter the first ``k``."""
    return sorted(position[id(c)] for c in shown)[k - 1]


def says_something(section: SectionRow, path: str = "") -> bool:
    """Whether the section's own text (not its heading) holds a few words a reader reads; a
    table of contents, the note's own headings again, is none (a KEP's title section, only
    its contents, was the first hit, `high`, of a question its Motivation answers: qa115).
    ``path``: the note's, whose name its own links may give (``[[Postgres Notes#Vacuum]]``)."""
    contents = _contents(PurePosixPath(path).stem if path else "")
    # its opening is enough to tell: the whole of a 1 MB section had been read at every search (qa148)
    body = reading_view(contents.sub("", section_body(section.text, section.heading)[:SAYS_READ]))
    # content words: "This page is long." above a contents list says nothing either (qa122);
    # Chinese and Japanese as the words index reads them, in pairs of characters: a sentence
    # runs on without spaces, and two of them had been two words, the section "nothing to read"
    # and its note shown by another section 16 places below (qa145)
    words = (piece for word in _WORDS.findall(body) for piece in word_pieces(word))
    return sum(word.casefold() not in STOP_WORDS for word in words) >= MIN_WORDS


@functools.lru_cache(maxsize=256)
def _contents(stem: str) -> re.Pattern[str]:
    """A table of contents of the note named ``stem``: list items that are only a link to one of
    its own headings, ``[[#Summary]]`` and ``[Summary](#summary)``, or with its own name,
    ``[[Postgres Notes#Vacuum]]`` and ``[Vacuum](Postgres%20Notes.md#vacuum)`` (qa124; a link's
    text may hold brackets of its own: "[`map[string]string` labels](#...)", qa117); and the
    last sentence before the list when it ends in a colon ("Here are some links to the main
    sections:", obsidian-tasks-docs' Filters page, first for "filters with OR": qa122), not
    the sentences before it (a paragraph that ended so had been read as none, qa124)."""
    names = {stem, f"{stem}.md", quote(stem), f"{quote(stem)}.md"} if stem else set()
    own = "|".join(["", *sorted(map(re.escape, names))])
    line = rf"[ \t]*(?:[-*+]|\d{{1,3}}[.)])[ \t]+(?:\[.*\]\((?:{own})#[^)\s]*\)|\[\[(?:{own})#[^\]\n]*\]\])[ \t]*$"
    intro = rf"(?:(?:^|(?<=[.!?] ))[^\n.!?]*:[ \t]*\n(?:[ \t]*\n)*(?={line}))?"
    return re.compile(rf"{intro}^{line}", re.M | re.IGNORECASE)


# what a section holds of its own once embeds of other files (a view, an image, a note) are
# left out: no word or number at all is nothing to read ("- ", a template's empty bullet)
_ANY_WORD = re.compile(r"\w")
_WORDS = re.compile(r"[^\W\d_]{2,}")  # words of letters: not "2017", "06", a list dash


@dataclass(slots=True)
class Searcher:
    config: Config
    ledger: Ledger
    lexical: WhooshIndex
    semantic: SemanticArm | None = None
    notices: list[str] = field(default_factory=list)
    miss_rule: MissRule = field(default_factory=MissRule)
    offtopic: float = 0.0  # a `high` answer comes closer in meaning (the vault's best off-topic level)
    semantic_coverage: float | None = None
    lexical_ahead: bool = False  # the last search met a Whoosh hit the ledger does not hold
    _typical: dict[str, float | None] = field(default_factory=dict)  # each tap's typical date (decay)

    def search(self, request: SearchRequest) -> SearchResult:
        now = request.now if request.now is not None else time.time()
        asked, request = request.query, self._as_read(request)
        words = corrected(request.query, self.lexical, self._indexed_text) if "lexical" in request.arms \
            else Corrected(request.query)
        if words.typos:
            self.notices.append(words.notice())
        tests = self._test_sections() if request.exclude_tests else frozenset()
        lexical, semantic, cosines, phrase_unheld = self._run_arms(request, words.text, tests)
        fused = fuse(lexical, semantic, cosines)
        arms = tuple(name for name, ran in (("lexical", lexical), ("semantic", semantic)) if ran is not None)
        candidates, in_ledger = self._candidates(fused, request, now)
        self.lexical_ahead = any(i not in in_ledger for i, _ in lexical or ())
        # A tie goes to the section whose words matched: on a partly embedded index, a new
        # note holding both words tied with the meaning arm's first hit at cosine 0.21, and lost.
        # A note that is only its title is found, but after every hit with text to read: empty
        # headings had filled 4 of 150 top-5 places on the Obsidian help vault (issue 13).
        # A query that is a note's name finds that note first: "Quick Reference" was 10th, below
        # notes that link to it, the note itself one long table that BM25's length norm buries (qa55).
        named = _notes_named(request.query, candidates)
        # (the note named comes first even when it has nothing of its own to read: "daily note
        # template", the title of a note that only embeds a view, had put it 47th, qa105)
        ranked = sorted(candidates, key=lambda c: (-named.get(c.note.id, 0), c.bare, -c.score,
                                                   c.fused.lexical is None, c.section.id))
        top = notes_first(ranked, request.k)
        # the first hit, and its note's best-scored section when another shows the note (a tag
        # on a line of its own at a note's end: "#wip" was low, qa29 N3)
        first: list[_Candidate] = []
        if top:
            best = next(c for c in ranked if c.note.id == top[0].note.id)
            first = [top[0]] if best is top[0] else [top[0], best]
        evidence = replace(self._evidence(words.text, arms, lexical, semantic, candidates, first),
                           read_as=words.guessed, unread="".join(symbols_in(request.query)),
                           phrase_unheld=phrase_unheld)
        if self.miss_rule.is_miss(evidence):
            top = []
        if not top or evidence.lexical_top is None:  # the reason may blame the filters: only those that left some out
            evidence = replace(evidence, filtered=bool(tests) or self._leaves_out(request))
        if top and len(top) < request.k and any(len(arm or ()) >= ARM_DEPTH for arm in (lexical, semantic)):
            # `-k 1000 --lexical` gave 100 hits without a word, where 245 notes hold the word (qa28
            # M1); said of hits only: a miss had come with "125 hits of the 200 asked for" (qa127)
            self.notices.append(f"each arm gives at most {ARM_DEPTH} candidates: {len(top)} hits of the "
                                f"{request.k} asked for (narrow with --kind, --project or --tap)")
        arm_tops = {i for arm in (lexical, semantic) for i, _ in (arm or ())[:ARM_TOP]}
        hits = self._dress(top, request, now, further_sections(ranked, top, arm_tops), words.text)
        judgement = judged(evidence, self.offtopic) if top else judged_miss(bool(candidates), evidence)
        # once each: a search asked again beside a writer (Vault._search_beside_writers) says
        # its notices again (qa33 R2)
        return SearchResult(asked, tuple(hits), arms, tuple(dict.fromkeys(self.notices)),
                            self.semantic_coverage, *judgement)

    def _as_read(self, request: SearchRequest) -> SearchRequest:
        """The request with its query cut to :data:`QUERY_WORDS` words, with a notice: a pasted
        page of 2,000 words had taken 3 s, and 30 s with a typo in each word (qa127)."""
        words = request.query.split()
        if len(words) <= QUERY_WORDS:
            return request
        self.notices.append(f"the query is long: it was searched by its first {QUERY_WORDS} words of {len(words)}, "
                            "about as much as the model reads")
        return replace(request, query=" ".join(words[:QUERY_WORDS]))

    def _run_arms(self, request: SearchRequest, words: str, tests: frozenset[int]) -> tuple[
            list[tuple[int, float]] | None, list[tuple[int, float]] | None, dict[int, float], bool]:
        """Each arm's ranking (None: it did not run), the exact cosines of the words'
        candidates the meaning arm did not reach, and whether no words hit held the query's
        quoted phrases (:meth:`_holding_phrases`); the words arm searches ``words`` (the query,
        its typos read as the notes' words), neither reaching ``tests`` (``--exclude-tests``). A
        model that fails to load leaves the words to answer alone, with a notice (words were not
        asked for: the error)."""
        lexical = semantic = None
        cosines: dict[int, float] = {}
        phrase_unheld = False
        if "lexical" in request.arms and "semantic" in request.arms and self.semantic is not None:
            self.semantic.embed_ahead(request.query)  # beside the lexical arm
        if "lexical" in request.arms:
            lexical, phrase_unheld = self._holding_phrases(request, words, tests)
        if "semantic" in request.arms and self.semantic is not None:
            allowed = self.ledger.section_ids_where(request.kind, request.project, request.tap) \
                if request.narrowed or tests else None
            allowed = allowed - tests if allowed is not None and tests else allowed
            try:
                semantic, cosines = self.semantic.search(request.query, ARM_DEPTH,
                                                         [i for i, _ in lexical or ()], allowed)
            except ModelUnavailable as exc:
                if lexical is None:
                    raise
                from vault_engine.retrieval.semantic import arm_off

                self.notices.append(arm_off(exc))
                self.semantic = None
        return lexical, semantic, cosines, phrase_unheld

    def _dress(self, top: list[_Candidate], request: SearchRequest, now: float,
               further: Mapping[int, list[_Candidate]], words: str) -> list[Hit]:
        """The hits shown: each with its snippet (around the words searched), resolved links
        and its note's further sections worth a look, the sections ``--follow`` reaches, and
        the dead ends ruled out in each hit's section."""
        terms = set(analyze(words))
        hits = [replace(self._hit(c, terms, via=c.via), also=tuple(section_ref(f.note, f.section)
                                                        for f in further.get(c.section.id, ())))
                for c in top]
        if request.follow > 0:
            hits += self._follow(hits, request.follow, now, request.decay)
        rulings = self.ledger.rulings_in_sections(h.section_id for h in hits)
        return [replace(h, ruled_out=tuple(rulings[h.section_id])) if h.section_id in rulings else h for h in hits]

    def _lexical_arm(self, request: SearchRequest, words: str, left_out: Set[int]) -> list[tuple[int, float]]:
        """The words' best :data:`ARM_DEPTH` sections, none of ``left_out``: the search widens
        until it has them or has read every hit (tests dropped after the cut left 1 to 4 hits
        of click's test-heavy tree, qa37 N1)."""
        limit = ARM_DEPTH
        while True:
            found = self.lexical.search(words, limit, kind=request.kind, project=request.project,
                                        tap=request.tap)
            kept = [hit for hit in found if hit[0] not in left_out]
            if len(kept) >= ARM_DEPTH or len(found) < limit:
                return kept[:ARM_DEPTH]
            limit *= 4

    def _indexed_text(self, section_id: int) -> str:
        section = self.ledger.sections_by_ids([section_id]).get(section_id)
        note = self.ledger.notes_by_ids([section.note_id]).get(section.note_id) if section else None
        if not (note and section):
            return ""
        # the note's every tag: "serach" was read as "search", held only in README's
        # "#area/search", and found written nowhere, so it stayed a miss (qa78)
        return indexed_text(note, section, self.ledger.tags_of([note.id]).get(note.id, ()))

    def _leaves_out(self, request: SearchRequest) -> bool:
        """Whether ``--kind``, ``--project`` or ``--tap`` leaves any section out: `--kind note`
        on a wiki of notes alone (qa128), like `--exclude-tests` where no code is tested (qa127),
        had been blamed for a miss."""
        return request.narrowed and \
            len(self.ledger.section_ids_where(request.kind, request.project, request.tap)) < self.ledger.section_count()

    def _test_sections(self) -> frozenset[int]:
        """The sections of test code (``--exclude-tests``), by the rule ``callers`` leaves them out by."""
        paths = [n.path for n in self.ledger.notes(kinds=["code"]) if is_test_path(n.path)]
        return frozenset(self.ledger.section_ids_of_paths(paths)) if paths else frozenset()

    def _holding_phrases(self, request: SearchRequest, words: str,
                         tests: frozenset[int]) -> tuple[list[tuple[int, float]], bool]:
        """The words arm's hits that hold the query's ``"quoted phrases"`` as written; where
        none does, the hits of its words without the quotes, with a notice, and True: a
        traceback pasted as a query, its paths in double quotes, had been a miss by words."""
        lexical = self._lexical_arm(request, words, tests)
        phrases = literal_phrases(request.query)  # those with a stop word: Whoosh's positions cannot tell them
        if not (phrases or query_terms(request.query)[1]):  # no phrase of two words, which Whoosh would hold
            return lexical, False
        held = self._holding(lexical, phrases) if phrases and lexical else lexical
        if held:
            return held, False
        self.notices.append("no section holds the quoted phrase as written: the words were searched without it")
        return self._lexical_arm(request, words.replace('"', " "), tests), True

    def _holding(self, lexical: list[tuple[int, float]], phrases: list[re.Pattern]) -> list[tuple[int, float]]:
        """The lexical hits whose text holds every phrase as written (its note's title and its
        heading path count, as the index reads them)."""
        sections = self.ledger.sections_by_ids(i for i, _ in lexical)
        notes = self.ledger.notes_by_ids(s.note_id for s in sections.values())

        def holds(section: SectionRow) -> bool:
            title = notes[section.note_id].title if section.note_id in notes else ""
            text = fold_accents(f"{title}\n{' '.join(section.heading_path)}\n{section.text}".lower())
            return all(p.search(text) for p in phrases)

        return [(i, score) for i, score in lexical if i in sections and holds(sections[i])]

    def _evidence(self, query: str, arms: tuple[str, ...], lexical: Sequence[tuple[int, float]] | None,
                  semantic: Sequence[tuple[int, float]] | None, candidates: list[_Candidate],
                  top: list[_Candidate]) -> Evidence:
        """What confidence and the miss rule read: where each arm's best hit is, the best
        cosine, and how much of the query's informative words the best candidates hold, and
        the first hit (``top``: it, and its note's best-scored section)."""
        by_id = {c.fused.id: c for c in candidates}  # as the arms found them (an embed: the section embedding it)

        def first_found(arm: Sequence[tuple[int, float]] | None) -> _Candidate | None:
            return next((by_id[i] for i, _ in arm or () if i in by_id), None)

        weighed = candidates[:COVERAGE_DEPTH] if "semantic" in arms else []
        # With words only, only "does the first hit hold every query word" is asked: no weights.
        weights, unheld = weighed_terms(self.lexical, analyze(query)) if weighed else \
            ({t: 1.0 for t in dict.fromkeys(analyze(query))}, [])
        cosines = [c.fused.semantic for c in candidates if c.fused.semantic is not None]
        written = words_as_written(query) if unheld else {}
        # a date's words are no topic a note lacks ("books I read in Jan" was `low`: no note holds 'Jan', qa113)
        unheld = [t for t in unheld if not is_calendar_word(written.get(t, t))]
        names = written_as_names(query) if unheld else set()
        found, meant = first_found(lexical), first_found(semantic)
        agreed = _place(found) if found else None
        read = [(c.note, c.section) for c in [*weighed, *top]] + [c.found_in for c in [*weighed, *top] if c.found_in]
        tags = self.ledger.tags_of({note.id for note, _ in read})

        def coverage(c: _Candidate) -> float:
            held = [(c.note, c.section), *([c.found_in] if c.found_in else [])]
            return section_coverage(weights, [(note, section, tags.get(note.id, ())) for note, section in held])

        return Evidence(
            arms, lexical_top=agreed, semantic_top=_place(meant) if meant else None,
            best_cosine=max(cosines, default=None),
            best_coverage=max(map(coverage, weighed), default=0.0),
            top_coverage=max(map(coverage, top), default=0.0),
            first_hit=_place(top[0]) if top else None, unheld=tuple(written.get(t, t) for t in unheld),
            unheld_names=tuple(written[t] for t in unheld if written.get(t) in names),
            terms=len(weights),
            decayed=bool(top) and any(c.decay < top[0].decay for c in candidates if _place(c) == agreed),
            lexical_top_named=_named(found) if found is not None else None,
            semantic_top_named=_named(meant) if meant is not None else None)

    def _candidates(self, fused: list[Fused], request: SearchRequest,
                    now: float) -> tuple[list[_Candidate], set[int]]:
        """The fused hits the ledger holds, passing the filters; and the ids it holds."""
        sections = self.ledger.sections_by_ids(f.id for f in fused)
        notes = self.ledger.notes_by_ids(s.note_id for s in sections.values())
        reinforced = self.ledger.reinforced_at(n.path for n in notes.values())
        found, taken = [], set()
        for f in fused:
            section = sections.get(f.id)
            note = notes.get(section.note_id) if section else None
            if section is None or note is None or not passes_filters(note, request):
                continue  # a stale id (index catching up), or filtered out
            found_in, embedded = None, self._embedded(note, section)
            if embedded is not None and passes_filters(embedded[0], request):  # the section it shows, found through it
                found_in, (note, section) = (note, section), embedded
            if section.id in taken:
                continue  # found at its source, or through another section that embeds it, already
            taken.add(section.id)
            shown, bare = _shown(note, section)
            if not shown.strip():
                continue  # nothing to show: a heading over nothing, or HTML comments only
            c = _Candidate(f, note, section, bare=bare, found_in=found_in)
            multiplier, c.age = self._decay(note, reinforced.get(note.path), now)  # the age, decayed or not
            c.decay = multiplier if request.decay else 1.0
            c.score = f.fused * c.decay
            found.append(c)
        return found, set(sections)

    def _decay(self, note: NoteRow, reinforced_at: float | None, now: float) -> tuple[float, float]:
        if undated_page(note) and note.tap not in self._typical:
            self._typical[note.tap] = typical_time(self.ledger.doc_times(note.tap))
        age = note_age(now, note, reinforced_at, self._typical.get(note.tap))
        return decay_multiplier(self.config.indexed_tap(note.tap, note.path), age), age

    def _hit(self, c: _Candidate, terms: set[str], via: str | None = None) -> Hit:
        note, section = c.note, c.section
        # from the heading its ref names, as `show` of that ref opens it: a note's title folded
        # in front had made the hit start two lines above what `show` gave (qa104)
        start, end = heading_line(section), section.line_end
        if section.ord == 0 and note.meta and not section_body(section.text, section.heading).strip():
            start, end = 1, max(1, section.line_start - 1)  # all properties: the frontmatter it shows
        links = hit_links(self.ledger, note.id, start, end)
        return Hit(
            ref=section_ref(note, section), path=note.path, heading=section.heading,
            kind=note.kind, tap=note.tap, project=note.project, title=note.title,
            snippet=make_snippet(_readable(_shown(note, section)[0], note), terms),
            line_start=start, line_end=end, score=c.score,
            scores=Scores(c.fused.lexical, c.fused.semantic, c.fused.fused, c.decay),
            links=links, via=via, age_days=c.age, section_id=section.id,
        )

    def _follow(self, hits: list[Hit], depth: int, now: float, decay: bool) -> list[Hit]:
        """Breadth-first over resolved links: each linked section becomes a hit with ``via``
        set to the hit it came from, scored as :meth:`linked_hit` says (half its parent's fused
        score per hop)."""
        seen = {h.ref for h in hits} | {h.path for h in hits}  # links followed (and notes shown)
        made = {h.ref for h in hits}  # sections listed: each once, whichever link reached it
        frontier, followed, left = hits, [], 0
        for _ in range(depth):
            next_frontier = []
            for parent in frontier:
                for link in follow_targets(parent.links, seen):
                    hit = self.linked_hit(link, parent, now, decay)
                    if hit is not None and hit.ref not in made:
                        made.add(hit.ref)
                        next_frontier.append(hit)
                left += len(follow_targets(parent.links, set(seen), limit=None))  # past the limit
            followed += next_frontier
            frontier = next_frontier
        if left:
            self.notices.append(f"--follow takes at most {LINKS_PER_HIT} links of a hit: {left} more not followed "
                                "(`vault-engine links REF` lists a hit's links)")
        return followed

    def linked_hit(self, link: ResolvedLink, parent: Hit, now: float, decay: bool) -> Hit | None:
        """The section ``link`` points at as a hit reached from ``parent`` (``via``): half the
        parent's fused score (before the parent's decay), times its own note's decay; None when
        the link leads nowhere indexed."""
        target = self._target(link)
        if target is None:
            return None
        note, section = target
        reinforced = self.ledger.reinforced_at([note.path]).get(note.path)
        multiplier, age = self._decay(note, reinforced, now)
        multiplier = multiplier if decay else 1.0
        fused = Fused(section.id, parent.scores.fused * 0.5, None, None)
        c = _Candidate(fused, note, section, multiplier, age, fused.fused * multiplier)
        return self._hit(c, set(), via=parent.ref)


    def _target(self, link: ResolvedLink) -> tuple[NoteRow, SectionRow] | None:
        """The note and section a link points at (its note's first section for a whole note),
        or None when it leads nowhere indexed."""
        note = self.ledger.note_by_path(link.target_path) if link.target_path else None
        if note is None:
            return None
        sections = self.ledger.sections_of(note.id)
        section = find_section(sections, link.subpath) if link.subpath else None
        section = section or (sections[0] if sections else None)
        return (note, section) if section is not None else None

    def _embedded(self, note: NoteRow, section: SectionRow) -> tuple[NoteRow, SectionRow] | None:
        """The note section that a section only embeds (``## Advanced: Urgency`` over nothing but
        ``![[Urgency#Limitations of the Urgency Score]]``, which Obsidian shows there), or None.
        Such a section had been a hit showing the embed's Markdown, first for "urgency 1.95"
        above the note that answers it (qa126): what it shows is found at its source (through
        an embed of an embed too; never itself)."""
        seen = {section.id}
        target = None
        while len(seen) <= MAX_EMBED_HOPS:  # an embed of an embed shows what that one shows (qa128)
            if not _NOTE_EMBED.search(section.text):  # most sections: nothing more to read (this runs per candidate)
                return target
            body = section_body(section.text, section.heading)
            if body.count("![[") != 1 or _WORDS.search(reading_view(body)):
                return target
            embeds = [link for link in hit_links(self.ledger, note.id, heading_line(section), section.line_end)
                      if link.embed and link.resolved and not link.section_missing
                      and (link.target_path or "").lower().endswith(".md")]
            found = self._target(embeds[0]) if len(embeds) == 1 else None
            if found is None or found[1].id in seen:  # nothing indexed, or itself ("![[#Self embed]]")
                return target
            target = note, section = found
            seen.add(section.id)
        return target


def _named(c: _Candidate) -> str:
    """Where a candidate is (:func:`_place`) as a hit names it: a Notion page by its ref and
    title (its path matched nothing the hits showed, qa78), a symbol by its ref (its section's
    number in the index had been named, `parser.py#1391`, which nothing opens, qa193)."""
    note = c.note
    if note.kind == "code":
        return section_ref(note, c.section)  # as its hit names it
    return f"{make_ref(note.path, None, note.notion_id)} ({note.title})" if note.notion_id else _place(c)


def _place(c: _Candidate) -> str:
    """Where a candidate is, for the arms' agreement: its note, or for code its symbol. A source
    file holds hundreds of symbols, and two of parser.py's "agreed" on a question no note
    answers (qa35 A3)."""
    return f"{c.note.path}#{c.section.id}" if c.note.kind == "code" else c.note.path


def _readable(shown: str, note: NoteRow) -> str:
    """A snippet's text as a reader reads it (link targets, URLs, HTML tags, embeds and
    comments left out: the links are listed under the hit), for the hits shown only. A
    section with no word of its own (a template's empty `-` item, one `![[Daily.base]]`
    embed) is shown by its note's properties, which say what the note is; else as written."""
    view = reading_view(shown).strip()
    if _WORDS.search(view):
        return view
    return property_lines(note.meta) or view or shown


def _shown(note: NoteRow, section: SectionRow) -> tuple[str, bool]:
    """What a hit shows, and whether that is only its headings (``bare``, listed after
    every hit with text): the section's text under its heading; for a note that is all
    properties (nothing under its frontmatter), its properties, which its first section is
    searched by. Empty for a heading with nothing under it, or with only HTML comments (a
    KEP's template instructions in ``<!-- -->`` under a heading its author left empty): not a
    hit worth showing. A ``%% comment %%`` is the vault's own note to itself, which
    Obsidian's search finds: its section stays a hit, shown by its note's other text. A note
    that is only its heading (empty headings fold into the section after them, so a first
    section with nothing under it is the whole note) shows that heading: "# Headonlyword
    title" alone was found by no search (qa49). A section with no word of its own, an empty
    bullet ``- `` under a template's "## Notes", is bare too (qa105), unless it embeds what
    it shows (a hub note's ``![[Trips.base]]``, the view Obsidian shows there) or opens a note
    with properties, which say what the note is: listed after every hit, such notes had been
    40th to 48th where both arms put them first ("Steph Ango meetings", "places to visit in
    Kyoto" on kepano's vault, qa108)."""
    body = section_body(section.text, section.heading)
    if "<!--" in body and only_comments(body):
        return (property_lines(note.meta) if section.ord == 0 else ""), False
    if body.strip() or section.ord != 0:
        # no word of its own, nothing it embeds, no properties it opens: nothing to read
        bare = not _ANY_WORD.search(body) and "![[" not in body and not (section.ord == 0 and property_lines(note.meta))
        return body, bare
    properties = property_lines(note.meta)
    if properties:
        return properties, False
    # an empty file is its name, as Obsidian's file list shows it: it had been found by no search (qa127)
    return " · ".join(leading_headings(section.text) or [section.heading or note.title or ""]), True


def passes_filters(note: NoteRow | Hit, request: SearchRequest) -> bool:
    """Whether a note (or a hit) passes the request's --kind, --project, --tap and
    --exclude-tests."""
    return ((request.kind is None or note.kind == request.kind)
            and (request.project is None or note.project == request.project)
            and (request.tap is None or note.tap == request.tap)
            and not (request.exclude_tests and note.kind == "code" and is_test_path(note.path)))

