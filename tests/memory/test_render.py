"""What agents read (vault_engine/memory/render.py): the interruption and the fitted brief."""

import datetime as dt
from dataclasses import replace

import pytest

from vault_engine.memory.render import fit_brief, render_dead_end_list, render_interruption
from vault_engine.memory.results import (
    CheckpointBrief,
    LaterChoice,
    LinkedBrief,
    ResumeBrief,
    Ruling,
    WorkingNoteBrief,
    estimate_tokens,
)

MARCH = dt.datetime(2026, 3, 14, 10, 22, tzinfo=dt.UTC).timestamp()
DROP = Ruling("Drop the second microphone", "the drop test failed at 1.2 m; the audio team vetoed it",
              "drone-audio", "claude-7f3", MARCH, "drop-the-second-microphone", "checkpoint",
              "projects/drone-audio/checkpoints/x.md#Failed", "projects/drone-audio/checkpoints/x.md", 12,
              score=0.81)
NOTE = Ruling("Beamforming on the MCU", None, "search", None, MARCH, "beamforming-on-the-mcu", "working note",
              "projects/search/working/y.md", "projects/search/working/y.md", 3, score=0.6, elsewhere=True)
FORBIDDEN = ("you may wish to consider", "this will not work", "will not work", "you should not")


def test_a_hit_says_what_was_tried_by_whom_when_and_why():
    text = render_interruption("remove one mic", [DROP], "drone-audio", ("lexical", "semantic"))
    assert text.startswith('This was tried before: 1 recorded dead end matches "remove one mic".')
    assert "Drop the second microphone" in text
    assert "Ruled out on 2026-03-14 by claude-7f3" in text
    assert "Why it failed: the drop test failed at 1.2 m" in text
    assert 'say out loud that you know this, for example: "We tried that on 2026-03-14, claude-7f3: ' \
           'the drop test failed at 1.2 m."' in text
    assert "only if you can say why this time is different" in text
    assert not any(phrase in text.lower() for phrase in FORBIDDEN)


def test_a_reason_quoting_a_name_is_said_with_single_quotes_inside_the_double():
    chose = replace(DROP, reason='the record chose "MADR 4.0.0" instead', source="decision record")
    text = render_interruption("formless records", [chose], "drone-audio", ("lexical",))
    assert "ruled out on 2026-03-14, claude-7f3: the record chose ‘MADR 4.0.0’ instead.\"" in text
    # code keeps its quotes: `image_id: "ami-1"` had been said `image_id: ‘ami-1’` (qa169)
    coded = replace(DROP, reason='`image_id: "ami-1"` changed under us', source="checkpoint")
    assert 'claude-7f3: `image_id: "ami-1"` changed under us."' in \
        render_interruption("pin the ami", [coded], "drone-audio", ("lexical",))
    # a quoted name holding a code span is still said in single quotes (qa177)
    named = replace(DROP, reason='the record chose "Keep sessions in `SignedCookie`" instead', source="decision record")
    assert "the record chose ‘Keep sessions in `SignedCookie`’ instead.\"" in \
        render_interruption("formless records", [named], "drone-audio", ("lexical",))


def test_elsewhere_and_working_note_rulings_are_weaker_evidence():
    text = render_interruption("mcu beamforming", [NOTE], "drone-audio", ("lexical",))
    assert "ruled out on project search, not on drone-audio; what failed there may not fail here" in text
    assert "marker in a working note, possibly a first impression" in text
    assert "by an unnamed agent" in text
    assert "no reason was written down; read projects/search/working/y.md before deciding" in text


def test_a_miss_names_the_arms_that_ran():
    assert render_interruption("dark mode", [], None, ("lexical",)) == (
        'No recorded dead end matches "dark mode" (lexical arm only: words, no meaning). '
        "This is a miss, not a guess.")
    assert "lexical and semantic arms" in render_interruption("dark mode", [], None, ("lexical", "semantic"))


def test_the_dead_end_list_for_people():
    text = render_dead_end_list([DROP, NOTE])
    assert text.splitlines()[1].startswith("2026-03-14  search  -  [working note, weaker] Beamforming on the MCU")
    assert render_dead_end_list([]) == "no dead ends recorded"


def brief(summary_chars=400, notes=3, links=3) -> ResumeBrief:
    checkpoint = CheckpointBrief("c.md", "c.md", "Checkpoint", "a", MARCH, "s" * summary_chars,
                                 ("step one",), (DROP,))
    working = tuple(WorkingNoteBrief(f"w{i}.md", f"w{i}.md", f"W{i}", "a", MARCH + i, (), "x" * 300)
                    for i in range(notes))
    linked = tuple(LinkedBrief(f"l{i}.md", f"l{i}.md", f"L{i}", "spec", "specs", 1.0 - i / 10, i, "y" * 300)
                   for i in range(links))
    return ResumeBrief("p", checkpoint, working, linked, (NOTE,))


def test_fit_cuts_in_order_of_importance():
    fitted = fit_brief(brief(), 600)
    assert estimate_tokens(fitted.markdown) <= 600
    assert fitted.cut[:3] == ("excerpt of l2.md", "excerpt of l1.md", "excerpt of l0.md")
    assert "Drop the second microphone" in fitted.markdown


def test_fit_keeps_everything_when_it_fits():
    fitted = fit_brief(brief(), 100_000)
    assert fitted.cut == () and "_Cut to fit" not in fitted.markdown


@pytest.mark.parametrize("budget", [40, 50, 150])
def test_fit_never_exceeds_even_a_tiny_budget(budget):
    fitted = fit_brief(brief(summary_chars=5000), budget)
    assert estimate_tokens(fitted.markdown) <= budget
    assert fitted.cut


RECORD = Ruling("Use specialized syntax per subcommand", "inconsistency; more parsing",
                None, None, None, "use-specialized-syntax", "decision record",
                "jabkit/0045-input-flag.md#Considered Options", "jabkit/0045-input-flag.md", 30,
                chosen="Adopt --input everywhere", record_title="Use --input for input files everywhere",
                record_status="superseded by ADR-0057")


def test_a_decision_record_ruling_names_its_record_and_says_when_the_record_no_longer_holds():
    text = render_interruption("specialized syntax", [RECORD], None, ("lexical",))
    assert '(no project, decision record "Use --input for input files everywhere", jabkit/0045-input-flag.md' in text
    assert ("   The record is superseded by ADR-0057: this ruling and its chosen design may no longer hold."
            in text.splitlines())
    assert RECORD.to_json()["record_status"] == "superseded by ADR-0057"
    assert RECORD.to_json()["record_title"] == "Use --input for input files everywhere"
    assert "may no longer hold" not in render_interruption("x", [DROP], "drone-audio", ("lexical",))
    # `deadend list` said `[decision record]` of a superseded record: only --json told
    listed = render_dead_end_list([RECORD])
    assert ('no date     -  -  [decision record, superseded by ADR-0057 "Use --input for input files everywhere"] '
            "Use specialized syntax") in listed
    # what the JSON says, the line says: what was chosen instead, and no "an unknown date" in the date column (qa132)
    assert listed.endswith("; chosen instead: Adopt --input everywhere")


def test_the_sentence_to_say_ends_in_one_period_and_never_inside_a_link():
    ended = Ruling("Badge", 'comes out best (see below).', None, None, None, "badge", "decision record",
                   "r.md#Options", "r.md", 3)
    text = render_interruption("badge", [ended], None, ("lexical",))
    assert '"It was ruled out: comes out best (see below)." ' in text
    linked = Ruling("Lease", "Use [the endpoint reconciler's lease](https://example.com/" + "x" * 200 + "/lease.go) "
                    "as it is", None, None, None, "lease", "decision record", "k.md#Alt", "k.md", 9)
    said = render_interruption("lease", [linked], None, ("lexical",)).splitlines()[-1]
    assert "Use the endpoint reconciler's lease as it is." in said and "https" not in said


def test_text_cut_to_fit_ends_at_a_word_never_inside_one():
    # `resume --max-tokens 200` ended a Next step "- Document the new beha" (qa24 #9)
    from vault_engine.memory.render import _truncate

    text = "# Resume: p\n" + " ".join(["behaviour"] * 60)
    cut = _truncate(text, 40)
    assert cut.endswith(" behaviour\n…(truncated)\n") and len(cut) <= 40 * 4


def test_a_records_missing_date_or_authors_is_said_once_in_a_briefs_list():
    # "(its authors, an unknown date, decision record ...)" said nothing twice (qa26)
    from vault_engine.memory.render import _by_and_on
    from vault_engine.memory.results import Ruling

    record = Ruling("Maven", None, None, None, None, "maven", "decision record", "docs/adr/0003.md", "docs/adr/0003.md", 9)
    assert _by_and_on(record) == "no date or authors given"
    assert _by_and_on(replace(record, agent="Ana")) == "Ana, no date given"
    assert _by_and_on(replace(record, when=1795334400.0)) == "2026-11-22, no authors given"
    assert _by_and_on(replace(record, source="checkpoint", when=1795334400.0)) == "an unnamed agent, 2026-11-22"


def test_a_shortened_summary_ends_at_a_word():
    # "from t…" at every budget from 150 to 400 tokens (qa26)
    words = brief(notes=0, links=0)
    words = replace(words, checkpoint=replace(words.checkpoint, summary=" ".join(["summary"] * 121)), elsewhere=())
    fitted = fit_brief(words, 120)
    assert "summary shortened" in fitted.cut
    assert fitted.checkpoint.summary.endswith("summary…")


def test_a_tight_budget_keeps_the_next_steps_and_failed_items_before_the_summarys_later_sentences():
    # a summary under the floor had been kept whole and the Next steps and Failed items cut
    summary = "Sessions live in signed cookies. " + "This round added token refresh and revocation. " * 3
    tight = brief(notes=0, links=0)
    tight = replace(tight, checkpoint=replace(tight.checkpoint, summary=summary.strip()), elsewhere=())
    fitted = fit_brief(tight, 90)
    assert fitted.checkpoint.summary == "Sessions live in signed cookies."
    assert "- step one" in fitted.markdown and "Drop the second microphone" in fitted.markdown
    assert "summary shortened" in fitted.cut and "the rest of the text" not in fitted.cut
    # a hard-wrapped summary's first sentence, not its first line ("...instead of", qa124)
    wrapped = replace(tight, checkpoint=replace(tight.checkpoint, summary=summary.strip().replace("signed ", "signed\n")))
    assert fit_brief(wrapped, 90).checkpoint.summary == "Sessions live in signed cookies."


def test_a_ruling_chosen_since_hands_back_both_decisions_not_we_tried_that():
    """"We tried that" was the sentence to say of a ruling a later checkpoint chose (qa103)."""
    later = LaterChoice("Ship without the second microphone; keep it on the outdoor model",
                        MARCH + 86400 * 30, "codex-9d2", "projects/drone-audio/checkpoints/z.md#Decision")
    text = render_interruption("remove one mic", [replace(DROP, chosen_since=later)], "drone-audio", ("lexical",))
    assert "We tried that" not in text
    assert ("check which decision holds: it was ruled out on 2026-03-14, claude-7f3 (the drop test failed at "
            "1.2 m), and codex-9d2 chose it since, on 2026-04-13 (projects/drone-audio/checkpoints/z.md#Decision). "
            "Read both notes; the decision is yours.") in text
    assert 'Chosen since: on 2026-04-13 codex-9d2 chose "Ship without the second microphone; keep it on the ' \
           'outdoor model"' in text
    # a statement cut at its `;` is quoted without it (qa179)
    cut = replace(later, text="Keep content-store on self-managed MongoDB 3.6 on EC2;")
    assert 'chose "Keep content-store on self-managed MongoDB 3.6 on EC2" (' in cut.said
