"""The note templates, filled as templates/README.md says, read as the README promises."""

from pathlib import Path

from vault_engine.config import parse_config
from vault_engine.parsing.note import parse_note

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
FIELDS = {"{{project}}": "drone", "{{agent}}": "claude-7f3", "{{created}}": "2026-11-14T10:22:00Z",
          "{{title}}": "Noise floor", "{{summary}}": "Measured the noise floor.", "{{next}}": "- Tune the gate",
          "{{links}}": "- [[audio-pipeline#Buffers]]"}


def fill(name: str, failed: str) -> str:
    text = (TEMPLATES / name).read_text(encoding="utf-8")
    for field, value in {**FIELDS, "{{failed}}": failed}.items():
        text = text.replace(field, value)
    return text


def test_a_working_note_filled_as_documented_records_its_dead_ends():
    text = fill("working-note.md", "DEADEND: LFU with decay -- too slow to converge")
    note = parse_note("projects/drone/working/noise.md", text, parse_config(Path("/v"), {}))
    assert note.kind == "working-note"
    assert [(d.text, d.reason) for d in note.dead_ends] == [("LFU with decay", "too slow to converge")]


def test_a_checkpoint_filled_as_documented_records_its_failed_list():
    text = fill("checkpoint.md", "- Beamforming on the MCU -- not enough RAM")
    note = parse_note("projects/drone/checkpoints/20261114T102200Z-claude-7f3.md", text, parse_config(Path("/v"), {}))
    assert [(d.text, d.reason) for d in note.dead_ends] == [("Beamforming on the MCU", "not enough RAM")]


DECISION = {"{{chosen}}": "Signed cookie sessions", "{{rejected}}": "Shared Redis sessions",
            "{{why_chosen}}": "nothing to run", "{{why_rejected}}": "a failover logged everyone out"}


def test_a_decision_record_filled_as_documented_rules_out_its_rejected_option():
    text = fill("decision-record.md", "")
    for field, value in DECISION.items():
        text = text.replace(field, value)
    note = parse_note("decisions/0001-sessions.md", text, parse_config(Path("/v"), {}))
    assert note.kind == "decision"
    assert [(d.text, d.reason) for d in note.dead_ends] == [("Shared Redis sessions", "a failover logged everyone out")]
    assert "Signed cookie sessions" in " ".join(a.text for a in note.accepted)


def test_a_decision_record_template_left_unfilled_rules_out_nothing():
    """Its options are placeholders: the template copied into a vault, or only its header
    filled in, had ruled out "Option two" and "Option three" (qa102)."""
    note = parse_note("decisions/0001-sessions.md", fill("decision-record.md", ""), parse_config(Path("/v"), {}))
    assert note.kind == "decision"
    assert note.dead_ends == ()
