"""Dead ends: list them, and check a proposal against them ("has this been tried before?").

The proposal is the query and every dead end recorded in the vault is the corpus: checkpoint
``## Failed`` items, working-note markers and the options decision records rejected,
extracted at index time into the ledger with what each note records as chosen. With a
project given, rulings of other projects still count but are flagged ``elsewhere``: what
failed on other hardware may not fail here. Scoring is in :mod:`vault_engine.memory.matching`.
"""

from __future__ import annotations

import functools
import heapq
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple, Protocol

from vault_engine.errors import ModelUnavailable
from vault_engine.memory.matching import (
    DEFAULT_SETTINGS,
    DeadendSettings,
    TermWeights,
    chosen_lead,
    closeness,
    content_terms,
    design_terms,
    filler_terms,
    lexical_match,
    match_score,
    read_proposal,
    rules_out_doing_without,
    ruling_core,
    semantic_match,
    short_of,
    what_it_will_do,
    wording_closeness,
    words_evidence,
)
from vault_engine.memory.plans import Step, live_plan, live_plans
from vault_engine.memory.render import render_closest, render_interruption, render_nothing_recorded, why_none_recorded
from vault_engine.memory.results import DeadendCheck, Evidence, Ruling
from vault_engine.memory.ruling_vectors import lexical_only
from vault_engine.memory.since import chosen_after, dated_choices, restates, stated_outright, with_chosen_since
from vault_engine.parsing.checkpoints import lead_sentence
from vault_engine.parsing.readable import links_as_text
from vault_engine.refs import make_ref
from vault_engine.stores.ledger import DeadEndRow, Ledger, ruled_out_at
from vault_engine.stores.lexical import fold_accents, stem_prefix


class RulingArm(Protocol):
    """What a check needs from the embedding side (:class:`RulingEmbeddings` for real)."""

    def cosines(self, proposal: str, texts: Sequence[str]) -> list[float]:
        """Cosine of the proposal with each text."""


class Compared(Protocol):
    """What a check compares of a ruling: a whole :class:`Ruling`, or its :class:`RulingWords`."""

    @property
    def project(self) -> str | None: ...
    @property
    def text(self) -> str: ...
    @property
    def detail(self) -> str | None: ...
    @property
    def terms(self) -> frozenset[str]: ...
    @property
    def lead_terms(self) -> frozenset[str]: ...
    @property
    def when(self) -> float | None: ...
    @property
    def source(self) -> str: ...


class RulingWords(NamedTuple):
    """A recorded dead end as a check compares it, without the rest of its ruling: a check
    compares every ruling of the vault and raises a handful, so only those are read in full
    (in a large vault, reading every ruling in full cost more than the check itself: see
    bench/RESULTS.md, *Agent memory*). A tuple: made by the thousand."""

    id: int
    project: str | None
    text: str
    detail: str | None
    terms: frozenset[str]
    lead_terms: frozenset[str]
    source: str
    at: float | None  # its note's date, and where the note is: when it was ruled out is read
    path: str  # from them only for the rulings it is asked of (ruled_out_at)
    mtime_ns: int

    @property
    def when(self) -> float | None:
        return ruled_out_at(self.at, self.path, self.mtime_ns, self.source)


def load_rulings(ledger: Ledger, project: str | None = None, note_id: int | None = None) -> list[Ruling]:
    """Every recorded dead end (of one project or one note), in vault order."""
    return [_ruling(r) for r in ledger.dead_end_rows(project, note_id)]


def load_ruling_words(ledger: Ledger, ids: Sequence[int] | None = None) -> list[RulingWords]:
    """Recorded dead ends (all, or those ``ids``) as a check compares them."""
    drop = filler_terms()
    return [RulingWords(r.id, r.project, r.text, r.detail, frozenset(r.terms.split()) - drop,
                        frozenset(r.lead_terms.split()) - drop, r.source, r.at, r.path, r.mtime_ns)
            for r in ledger.dead_end_words(ids)]


def word_weights(ledger: Ledger, rulings: Sequence[RulingWords], besides: str | None = None,
                 also: Iterable[str] = ()) -> TermWeights:
    """How rare words are among all recorded rulings (not of project ``besides``), from the
    ledger's word index: these rulings' words and ``also`` read at once, any other when weighed."""
    words = set(also).union(*(r.terms | r.lead_terms for r in rulings))
    return TermWeights(*ledger.dead_end_word_counts(words, besides),
                       functools.partial(ledger.dead_end_term_counts, besides=besides))


def read_in_full(ledger: Ledger) -> Callable[[Sequence[RulingWords]], list[Ruling | None]]:
    """How a check reads the rulings it raised (None for one deleted since it was compared)."""
    def read(words: Sequence[RulingWords]) -> list[Ruling | None]:
        rows = ledger.dead_ends_by_id(w.id for w in words)
        return [_ruling(rows[w.id]) if w.id in rows else None for w in words]
    return read


def _ruling(r: DeadEndRow) -> Ruling:
    drop = filler_terms()
    return Ruling(r.text, r.reason, r.project, r.agent, r.when, r.slug,
                  r.source, make_ref(r.path, r.heading, r.notion_id), r.path, r.line, r.note_id, r.detail,
                  frozenset(r.terms) - drop, frozenset(r.lead_terms) - drop, record_title=r.record_title,
                  record_status=r.record_status)


def list_dead_ends(ledger: Ledger, project: str | None = None,
                   settings: DeadendSettings = DEFAULT_SETTINGS) -> list[Ruling]:
    """``deadend list``: newest first, then by place in the vault; each with what its note
    records as chosen instead, as ``deadend check`` gives it."""
    rulings = sorted(load_rulings(ledger, project), key=lambda r: (-(r.when or 0.0), r.path, r.line))
    return list(_with_chosen(rulings, chosen_designs(ledger, settings)))


def none_recorded(ledger: Ledger) -> str:
    """Why the vault records no dead end, by how many decision records it holds
    (:func:`~vault_engine.memory.render.why_none_recorded`)."""
    return why_none_recorded(len(ledger.notes(kinds=["decision"])))


def check_in_ledger(proposal: str, ledger: Ledger, *, project: str | None = None, k: int = 3,
                    settings: DeadendSettings = DEFAULT_SETTINGS, semantic: RulingArm | None = None,
                    notices: Sequence[str] = ()) -> DeadendCheck:
    """:func:`check_proposal` over every ruling of the ledger, reading only what each arm
    needs: for the words arm, the rulings that share a word with the proposal and how rare
    their words are (the ledger's word index); for the meaning arm, every ruling's text; then
    only the raised rulings in full."""
    if not ledger.has_dead_ends():
        return DeadendCheck(proposal, project, (), (),  # no arm ran: nothing to compare (it had said "lexical", qa132)
                            render_nothing_recorded(proposal, none_recorded(ledger)), tuple(notices))
    terms = content_terms(proposal)
    sharing = load_ruling_words(ledger, ledger.dead_ends_sharing(terms))
    return check_proposal(proposal, sharing if semantic is None else load_ruling_words(ledger),
                          accepted=chosen_designs(ledger, settings), project=project, k=k, settings=settings,
                          semantic=semantic, notices=notices, weights=word_weights(ledger, sharing, also=terms),
                          in_full=read_in_full(ledger))


def check_proposal(proposal: str, rulings: Sequence[Compared], *, accepted: ChosenDesigns,
                   project: str | None = None, k: int = 3, settings: DeadendSettings = DEFAULT_SETTINGS,
                   semantic: RulingArm | None = None, notices: Sequence[str] = (), weights: TermWeights | None = None,
                   in_full: Callable[[Sequence[Any]], Sequence[Ruling | None]] | None = None) -> DeadendCheck:
    """Score the proposal against every ruling, raise those an arm accepts, best first.
    ``rulings`` are :class:`Ruling` objects, or :class:`RulingWords` with ``in_full`` reading
    the raised ones as rulings (:func:`read_in_full`). ``weights``: how rare words are, when
    ``rulings`` are not all of them."""
    notices = list(notices)
    evidence, semantic_ran = gather_evidence(proposal, rulings, semantic, notices, accepted, weights, settings)
    arms = ("lexical", "semantic") if semantic_ran else ("lexical",)
    scored = [(ruling, e, score) for ruling, e in zip(rulings, evidence)
              if (score := match_score(e, settings)) is not None]
    read = in_full or _whole_already
    full = read([r for r, _, _ in scored])
    raised = []
    for ruling, (_, e, score) in zip(full, scored):
        if ruling is None:  # deleted by an index run since it was compared
            continue
        fired = tuple(a for a, ok in (("lexical", lexical_match(e, settings)),
                                     ("semantic", semantic_match(e, settings))) if ok)
        raised.append(replace(ruling, score=score, elsewhere=_elsewhere(ruling, project), arms=fired, evidence=e))
    # The checking project's own rulings first: the interruption quotes the first, and another
    # project's weaker evidence, a little closer, stood above this project's own ruling (qa89)
    raised.sort(key=lambda r: (r.elsewhere, -(r.score or 0.0), -(r.when or 0.0), r.path, r.line))
    top = _with_chosen(raised[:k], accepted)
    # a near miss says what was chosen over it too, as a raised ruling does (qa129)
    closest = () if raised else _with_chosen(_closest(rulings, evidence, settings, read, project), accepted)
    return DeadendCheck(proposal, project, arms, top,
                        render_interruption(proposal, top, project, arms, matched=len(raised)), tuple(notices),
                        matched=len(raised), closest=closest, closest_rendered=render_closest(closest))


CLOSEST = 3  # a miss's nearest rulings shown, not raised
NEAR = 0.1  # ...within this of the meaning bar, or sharing a word: cosines of 0.13 were noise (qa37 N9)


def _closest(rulings: Sequence[Compared], evidence: Sequence[Evidence], settings: DeadendSettings,
             in_full: Callable[[Sequence[Any]], Sequence[Ruling | None]], project: str | None) -> tuple[Ruling, ...]:
    """A miss's nearest rulings (:func:`nearest_first`), each with why it fell short: an agent
    tells "nothing close" from "just below the bar" (qa35 A5). Only those that share a word or
    come within :data:`NEAR` of the meaning bar; another project's says so, as when raised."""
    def near(e: Evidence) -> bool:
        return e.words > 0 or (e.cosine is not None and e.cosine >= settings.semantic_min - NEAR)

    def nearest_first(pair: tuple[Compared, Evidence]) -> tuple:
        """One that met the words' bar and was set aside (by meaning, by what the proposal turns
        down or chooses) first: a word-for-word match had been left out, three rulings nearer in
        meaning shown (qa114, qa117); then the checking project's own, as raised ones are."""
        ruling, e = pair
        met_words = settings.words_met(e.words, e.words_say_enough)
        return (not met_words, _elsewhere(ruling, project), -(e.cosine if e.cosine is not None else -1.0), -e.words)

    ranked = sorted(((r, e) for r, e in zip(rulings, evidence) if near(e)), key=nearest_first)
    ranked = ranked[:CLOSEST]
    return tuple(replace(ruling, evidence=e, short_of=short_of(e, settings), elsewhere=_elsewhere(ruling, project))
                 for ruling, (_, e) in zip(in_full([r for r, _ in ranked]), ranked) if ruling is not None)


def _elsewhere(ruling: Compared, project: str | None) -> bool:
    """Whether a ruling was made on another project than the one checking (one of no project
    holds for every project)."""
    return project is not None and ruling.project not in (None, project)


def _whole_already(rulings: Sequence[Any]) -> list[Ruling | None]:
    """Without ``in_full``, the rulings compared are whole :class:`Ruling` objects already."""
    return list(rulings)


@dataclass(frozen=True, slots=True)
class ChosenDesigns:
    """What the vault records as chosen, as a check needs it: every statement (for the meaning
    arm's comparison) and, per note, its sentences with their headings (one is shown as what was
    chosen instead when the note states it outright: a Goal, a Decision, a chosen option, not a
    Summary, whose first sentence is usually the problem). Both are read when asked: a
    words-only check never needs the statements."""

    statements: Callable[[], Sequence[str]]
    chosen_of: Callable[[Sequence[int]], Mapping[int, Sequence[tuple[str, str | None]]]]  # note -> its sentences
    plans: Callable[[], Mapping[str | None, Sequence[Step]]]  # project -> its plan's steps
    plan: Callable[[str | None], Sequence[Step]]  # one project's, read alone (the words arm needs only those it raises)
    since: Callable[[Sequence[Ruling]], Sequence[Ruling]]  # each ruling with what was chosen since
    # one project's statements (None: of no project) with when their notes chose them
    dated: Callable[[str | None], Sequence[tuple[str, float | None]]]


def chosen_designs(ledger: Ledger, settings: DeadendSettings = DEFAULT_SETTINGS) -> ChosenDesigns:
    """The vault's chosen designs, from the ledger, the plan each project's latest
    checkpoint hands on (memory/plans.py): its Next steps, chosen for that project's rulings,
    and what later notes chose of the rulings (memory/since.py)."""
    # each read once a check, when asked: the meaning arm and a word-for-word chosen design both compare with them
    return ChosenDesigns(functools.cache(ledger.accepted_texts), ledger.accepted_of,
                         functools.cache(functools.partial(live_plans, ledger)),
                         functools.cache(functools.partial(live_plan, ledger)),
                         functools.partial(with_chosen_since, ledger, settings=settings),
                         functools.cache(functools.partial(dated_choices, ledger)))


def gather_evidence(proposal: str, rulings: Sequence[Compared], semantic: RulingArm | None, notices: list[str],
                    accepted: ChosenDesigns, weights: TermWeights | None = None,
                    settings: DeadendSettings = DEFAULT_SETTINGS) -> tuple[list[Evidence], bool]:
    """Both arms' evidence for every ruling, and whether the semantic arm ran (it is
    skipped, with a notice, when the model cannot be used): the proposal read once
    (:func:`~matching.read_proposal`), then per ruling its words restated, what of it the
    proposal turns down, its cosine and the closest chosen design's, and whether the proposal
    is a chosen design word for word."""
    read = read_proposal(proposal)
    weights = weights or TermWeights.of(r.terms for r in rulings)
    words = [words_evidence(read.terms, (r.terms, r.lead_terms, ruling_core(r.text)), weights) for r in rulings]
    without = [rules_out_doing_without(r.text) for r in rulings]
    refusals = [read.refusal_of(r.text, lead_sentence(r.detail, r.text, r.source) or "", does_without, weights)
                for r, does_without in zip(rulings, without)]
    cosines: Sequence[float | None] = [None] * len(rulings)
    chosen: Sequence[tuple[float, str] | None] = [None] * len(rulings)
    if semantic is not None and rulings:
        try:
            cosines, chosen = _meaning(read.for_meaning, rulings, semantic, accepted, weights, settings)
        except ModelUnavailable as exc:
            notices.append(lexical_only(exc))
            semantic = None
    near = [settings.words_met(share, enough) or (cosine is not None and cosine >= settings.semantic_min)
            for (share, enough), cosine in zip(words, cosines)]
    as_chosen = _chosen_restated(proposal, read.terms, rulings, near, weights, accepted, settings)

    @functools.cache
    def planned(project: str | None) -> frozenset[str]:
        """A project's next steps, as written and as compared (their leads): from every plan,
        read once when the meaning arm weighed them, else from the project's alone."""
        steps = [s.text for s in (accepted.plans().get(project, ()) if semantic is not None
                                  else accepted.plan(project))]
        return frozenset(steps) | frozenset(map(chosen_lead, steps))

    evidence = []
    for ruling, (share, enough), cosine, best, refused_share, restated, does_without in zip(
            rulings, words, cosines, chosen, refusals, as_chosen, without):
        # the closest chosen design: the one restated word for word, else the closest in meaning;
        # a step the project plans to take is said to be one, not a decision (qa114)
        closest = restated or (best[1] if best else None)
        evidence.append(Evidence(share, enough, cosine, best[0] if best else None, refused_share,
                                 restated is not None, links_as_text(closest or "", wikilinks=True) or None,
                                 closest is not None and closest in planned(ruling.project),
                                 does_without and not read.says_without))
    return evidence, semantic is not None and bool(rulings)


def _meaning(proposal: str, rulings: Sequence[Compared], semantic: RulingArm, accepted: ChosenDesigns,
             weights: TermWeights, settings: DeadendSettings) -> tuple[list[float], list[tuple[float, str] | None]]:
    """The meaning arm's cosine of each ruling, and of the chosen design closest to it, with
    the proposal as it proposes (what it turns down left out: qa114). An agent's message that
    sets a scene before saying what it will do is read from there (:func:`what_it_will_do`):
    the scene sits as near the design chosen for the same problem as the one ruled out, and had
    kept restatements quiet (qa114, qa116). Each ruling is weighed by that reading unless the
    whole message is nearer to it (a trifle after the approach, "I'll add the tests
    afterwards": qa117), and its chosen designs by the same reading."""
    cosines = _ruling_cosines(proposal, rulings, semantic)
    chosen = _best_chosen(proposal, rulings, semantic, accepted, weights, settings)
    will_do = what_it_will_do(proposal)
    if will_do == proposal:
        return cosines, chosen
    closer = _ruling_cosines(will_do, rulings, semantic)
    chosen_then = _best_chosen(will_do, rulings, semantic, accepted, weights, settings)
    better = [b >= a for a, b in zip(cosines, closer)]  # what it will do, unless the whole is nearer
    return ([b if use else a for a, b, use in zip(cosines, closer, better)],
            [b if use else a for a, b, use in zip(chosen, chosen_then, better)])


def _chosen_restated(proposal: str, terms: frozenset[str], rulings: Sequence[Compared], near: Sequence[bool],
                     weights: TermWeights, accepted: ChosenDesigns,
                     settings: DeadendSettings) -> list[str | None]:
    """For each ruling an arm may raise (``near``), the chosen design (of the ruling's project
    or team-wide, chosen at or after it; any of them for rulings checked outright, without
    dates; or a step of its project's plan) that the proposal is, word for word, when its wording
    is as close to it as the ruling's (:func:`wording_closeness`: "after" tells the chosen
    "Section X after Y" from the ruling "Section X before Y"); None where it is none. The
    chosen design is named where it kept a ruling quiet (qa59). So is one that holds every word
    of the ruling and all of whose words the proposal holds: "Let's use SLF4J with the Log4j2
    binding for logging" proposes JabRef's chosen "SLF4J with Log4j2 binding", of which the
    ruled-out "Log4j2" is a part, and had raised it by words (qa191). The chosen designs are
    read only when a ruling is near: a words-only check of a prompt that restates nothing reads none."""
    found: list[str | None] = [None] * len(rulings)
    if not any(near):
        return found

    # Dice >= m needs at least m / 2 of the proposal's weight in common, and a word is in a text
    # only where its stem's prefix is: a scan of each statement's letters rules out nearly all
    # of 18,800 chosen designs without analyzing them (a 10,000-note check took 0.9 s, not 0.13)
    prefixes = [(stem_prefix(term), weights(term)) for term in terms]
    needed = settings.lexical_min / 2 * weights.total(terms)

    def holds_enough(text: str) -> bool:
        folded = fold_accents(text.lower())
        return sum(w for prefix, w in prefixes if prefix in folded) >= needed

    def restated_of(statements: Iterable[str]) -> list[str]:
        leads = (chosen_lead(s) for s in statements if holds_enough(s))  # the whole holds what its lead does
        return [lead for lead in leads
                if holds_enough(lead) and closeness(terms, content_terms(lead), weights) >= settings.lexical_min]

    @functools.cache
    def restated_in(project: str | None) -> list[tuple[str, float | None]]:
        return [(lead, at) for text, at in accepted.dated(project) for lead in restated_of([text])]

    def chosen_over(ruling: Compared) -> list[str]:
        """The chosen designs that may keep ``ruling`` quiet: of its project (or of none, a
        team-wide record's), not chosen before it was ruled out. Another project's decision,
        or one its own project made and then saw fail, had kept a word-for-word restatement
        quiet (qa84)."""
        when = ruling.when
        projects = dict.fromkeys((ruling.project, None))
        return [lead for project in projects for lead, at in restated_in(project) if chosen_after(at, when)]

    @functools.cache
    def folded(project: str | None) -> list[tuple[str, str, float | None]]:
        """A project's chosen designs, each with its text as the prefix scan reads it, once."""
        return [(text, fold_accents(text.lower()), at) for text, at in accepted.dated(project)]

    def holding_it(ruling: Compared) -> str | None:
        """A chosen design (as :func:`chosen_over` takes them) holding every word of ``ruling``,
        all of whose words the proposal holds, its wording as close as the ruling's: the
        proposal names it whole ("before" in a proposal still tells the ruled-out "Section X
        before Y" from the chosen "Section X after Y", whose words are the same)."""
        if not ruling.terms or not ruling.terms <= terms:  # the proposal holds the design, which holds the ruling
            return None
        inside = sorted((stem_prefix(term) for term in ruling.terms), key=len, reverse=True)
        rarest = inside[0]  # the longest, the fewest designs hold: most are passed over on it alone
        for project in dict.fromkeys((ruling.project, None)):
            for text, scanned, at in folded(project):
                if rarest in scanned and all(p in scanned for p in inside) and chosen_after(at, ruling.when):
                    lead = chosen_lead(text)
                    if ruling.terms <= content_terms(lead) <= terms and \
                            wording_closeness(proposal, lead) >= wording_closeness(proposal, ruling.text):
                        return lead
        return None

    for i in (i for i, is_near in enumerate(near) if is_near):
        ruling = rulings[i]
        chosen = chosen_over(ruling) + restated_of(step.text for step in accepted.plan(ruling.project)
                                                   if chosen_after(step.at, ruling.when))
        if chosen:
            closeness_to, lead = max((wording_closeness(proposal, lead), lead) for lead in chosen)
            if closeness_to >= wording_closeness(proposal, rulings[i].text):
                found[i] = lead
        found[i] = found[i] or holding_it(ruling)
    return found


# Nearly always one of the few designs closest to the proposal stands against a ruling: those
# are looked at first, and all of them (18,800 at 10,000 notes, sorted) only when none stands.
CHOSEN_FIRST = 8


def _best_chosen(proposal: str, rulings: Sequence[Compared], semantic: RulingArm, accepted: ChosenDesigns,
                 weights: TermWeights, settings: DeadendSettings) -> list[tuple[float, str] | None]:
    """Per ruling, the proposal's best cosine with what was chosen, and that chosen design:
    any accepted design of the vault that may stand against it (:func:`_stands_against`), and
    the plan of the ruling's own project, its steps planned at or after the ruling."""
    statements = accepted.statements()
    scored = list(zip(semantic.cosines(proposal, statements), statements)) if statements else []
    stands = _stands_against(accepted, weights, settings)

    @functools.cache
    def ranked(n: int) -> list[tuple[float, str]]:  # the best n; all of them only when those do not stand
        return heapq.nlargest(n, scored) if n < len(scored) else sorted(scored, reverse=True)

    def best_standing(ruling: Compared) -> tuple[float, str] | None:
        depths = (CHOSEN_FIRST, len(scored)) if CHOSEN_FIRST < len(scored) else (len(scored),)
        return next((c for n in depths for c in ranked(n) if stands(c[1], ruling)), None)

    plans = {project: list(zip(semantic.cosines(proposal, [s.text for s in steps]), steps))
             for project, steps in accepted.plans().items() if steps}

    def by_plan(ruling: Compared) -> tuple[float, str] | None:  # a step planned at or after the ruling
        return max(((cosine, step.text) for cosine, step in plans.get(ruling.project, ())
                    if chosen_after(step.at, ruling.when)), default=None)

    return [max((c for c in (best_standing(r), by_plan(r)) if c is not None), default=None) for r in rulings]


def _stands_against(accepted: ChosenDesigns, weights: TermWeights,
                    settings: DeadendSettings) -> Callable[[str, Compared], bool]:
    """Whether a chosen design may keep a ruling quiet in the meaning arm. Any design the vault
    chose may, but the ruling's own approach (a design that restates it, as memory/since.py
    reads a restatement) only where its project (or a team-wide record) chose it at or after
    the ruling: chosen by another project, or chosen and then seen to fail, it had kept its own
    ruling quiet, "0.054 above a chosen design's 0.870" (qa105), as the words arm's rule already
    said for a word-for-word proposal (qa84)."""
    dated = accepted.dated  # read once a check (chosen_designs)
    terms_of = functools.cache(design_terms)

    def stands(text: str, ruling: Compared) -> bool:
        if not restates(terms_of(text), ruling.terms, ruling.text, weights, settings):
            return True  # another design (most are): it stands against the ruling wherever it was chosen
        return any(said == text and chosen_after(at, ruling.when)
                   for project in dict.fromkeys((ruling.project, None)) for said, at in dated(project))

    return stands


def _with_chosen(rulings: Sequence[Ruling], accepted: ChosenDesigns) -> tuple[Ruling, ...]:
    """Rulings raised or nearly so, each with what its note records as chosen instead (when it does),
    and what a later note chose of it."""
    if not rulings:
        return ()
    said = accepted.chosen_of([r.note_id for r in rulings])

    def chosen_instead(ruling: Ruling) -> str | None:
        """The sentence of the ruling's note that states what was chosen (a Goal, a Decision, a
        chosen option; not a Summary): the first, unless another shares :data:`CLEARLY_MORE`
        more of the ruling's words: a Decision of several sentences had shown its first, about
        another matter, beside each of its Failed items (qa118). Shown as read: "([source](https://...))"
        had been printed as written (qa59)."""
        statements = said.get(ruling.note_id, ())
        # a record's `Chosen option` line is what it chose over each option (the reasons listed
        # under it had been shown in its place, qa169)
        stated = [text for text, heading in statements if heading is None] or \
            [text for text, heading in statements if stated_outright(heading)]
        if len(stated) < 2:  # most notes: one chosen option, one sentence
            return links_as_text(stated[0], wikilinks=True) if stated else None
        ruled = _words_of(f"{ruling.text} {ruling.reason or ''}")
        shared = [len(ruled & _words_of(text)) for text in stated]
        best = max(range(len(stated)), key=shared.__getitem__)
        # the first sentence leads the decision; another is shown where it clearly speaks of
        # the ruling: "Keep a Puppetmaster" had given way to a sentence on Puppet certificates;
        # a ruling of one word, "CC0 only", by holding it (qa169)
        clearly = shared[0] + min(CLEARLY_MORE, len(_words_of(ruling.text)))
        return links_as_text(stated[best] if shared[best] >= clearly else stated[0], wikilinks=True)

    rulings = tuple(replace(r, chosen=chosen) if (chosen := chosen_instead(r)) is not None else r for r in rulings)
    return tuple(accepted.since(rulings))


_PARTS = str.maketrans("_-", "  ")
CLEARLY_MORE = 2  # words of the ruling a later sentence of the decision must share beyond the first's


@functools.lru_cache(maxsize=4096)  # a note's sentences, weighed against each of its rulings
def _words_of(text: str) -> frozenset[str]:
    """Content words, an identifier's by its parts (``instance_ami_filter_name`` holds "ami")."""
    return content_terms(text.translate(_PARTS))


def _ruling_cosines(proposal: str, rulings: Sequence[Compared], semantic: RulingArm) -> list[float]:
    """Each ruling's cosine with the proposal: the better of its text and its description."""
    texts = [r.text for r in rulings]
    described = [(i, r.detail) for i, r in enumerate(rulings) if r.detail]
    scores = semantic.cosines(proposal, texts + [detail for _, detail in described])
    best = scores[:len(texts)]
    for n, (i, _) in enumerate(described):
        best[i] = max(best[i], scores[len(texts) + n])
    return best
