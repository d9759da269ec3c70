"""The CLI contract of the agent-memory commands (vault_engine/cli/memory_commands.py)."""

import io
import json
import subprocess
import sys

import pytest

from tests.conftest import run_cli_subprocess
from tests.memory.test_deadends import FILES
from vault_engine.vault import Vault

PROBE = (
    "import sys, json\n"
    "from vault_engine.cli.main import main\n"
    "try:\n    code = main(sys.argv[1:])\nexcept SystemExit as e:\n    code = e.code\n"
    "heavy = sorted(m for m in ('torch', 'sentence_transformers', 'transformers', 'faiss') if m in sys.modules)\n"
    "sys.stderr.write('\\nPROBE ' + json.dumps([code, heavy]) + '\\n')\n"
)


@pytest.fixture
def vault(make_vault, cli):
    root = make_vault(FILES)
    assert cli("--vault", root, "index", "--no-embed").code == 0
    return root


def test_checkpoint_new_prints_the_ref_and_resume_sees_it_at_once(vault, cli):
    done = cli("--vault", vault, "checkpoint", "new", "--project", "drone", "--agent", "claude-9",
               "--summary", "Mics stay.", "--next", "Tune the taps",
               "--failed", "Glue the mic to the frame -- 180 Hz hum", "--link", "projects/billing/checkpoints/20261029T154500Z-codex-a12.md#Failed")
    assert done.code == 0
    ref = done.out.strip()
    assert ref.startswith("projects/drone/checkpoints/") and ref.endswith("-claude-9.md")
    text = (vault / ref).read_text()
    assert "[[20261029T154500Z-codex-a12#Failed]]" in text  # by name: no other note has it (qa25 #7)
    brief = cli("--vault", vault, "resume", "--project", "drone", "--json").json
    assert brief["checkpoint"]["ref"] == ref
    assert [f["text"] for f in brief["checkpoint"]["failed"]] == ["Glue the mic to the frame"]
    assert set(brief) >= {"project", "checkpoint", "working_notes", "specs", "dead_ends_elsewhere", "markdown"}


def test_checkpoint_new_from_json_on_stdin(vault, cli, monkeypatch):
    payload = {"summary": "Piped.", "next": ["a"], "failed": [{"text": "Poll the FIFO", "reason": "lost samples"}],
               "links": []}
    monkeypatch.setattr(sys, "stdin", stdin(json.dumps(payload).encode()))
    done = cli("--vault", vault, "checkpoint", "new", "--project", "drone", "--agent", "bot",
               "--from-json", "-", "--json")
    assert done.code == 0 and done.json["project"] == "drone"
    listed = cli("--vault", vault, "deadend", "list", "--project", "drone", "--json").json
    assert "Poll the FIFO" in [d["text"] for d in listed["dead_ends"]]


def test_checkpoint_new_writes_a_decision_that_resume_and_a_check_hand_on(vault, cli):
    """qa80: a checkpoint `checkpoint new` wrote never said what was chosen instead."""
    ref = cli("--vault", vault, "checkpoint", "new", "--project", "drone", "--agent", "claude-9",
              "--decision", "Keep both mics and beamform on the DSP.",
              "--failed", "Glue the mic to the frame -- 180 Hz hum").out.strip()
    assert "## Decision\nKeep both mics and beamform on the DSP.\n" in (vault / ref).read_text()
    brief = cli("--vault", vault, "resume", "--project", "drone", "--json").json
    assert brief["checkpoint"]["goal"] == "Keep both mics and beamform on the DSP."
    check = cli("--vault", vault, "deadend", "check", "glue the mic to the frame", "--lexical", "--json").json
    assert check["rulings"][0]["chosen"] == "Keep both mics and beamform on the DSP."
    mixed = cli("--vault", vault, "checkpoint", "new", "--project", "p", "--agent", "a", "--from-json", "-",
                "--decision", "x")
    assert mixed.code == 2 and "--decision" in mixed.err


def test_from_json_with_flags_is_a_usage_error(vault, cli):
    done = cli("--vault", vault, "checkpoint", "new", "--project", "p", "--agent", "a",
               "--from-json", "-", "--summary", "x")
    assert done.code == 2 and "do not also pass" in done.err


def test_bad_json_is_one_line_and_exit_1(vault, cli, monkeypatch):
    monkeypatch.setattr(sys, "stdin", stdin(b"{not json"))
    done = cli("--vault", vault, "checkpoint", "new", "--project", "p", "--agent", "a", "--from-json", "-")
    assert done.code == 1 and done.err.count("\n") == 1 and "not valid JSON" in done.err


def test_json_not_in_utf8_says_so_and_a_bom_is_let_pass(vault, cli, monkeypatch):
    """UTF-16 was "not valid JSON (Expecting value: line 1 column 1)" (qa60)."""
    monkeypatch.setattr(sys, "stdin", stdin('{"summary": "x"}'.encode("utf-16")))
    done = cli("--vault", vault, "checkpoint", "new", "--project", "p", "--agent", "a", "--from-json", "-")
    assert (done.code, done.err) == (1, "vault-engine: --from-json -: not UTF-8 text (byte 1): save it as UTF-8\n")
    monkeypatch.setattr(sys, "stdin", stdin('{"summary": "x"}'.encode("utf-16-le")))  # no BOM: was "not valid JSON"
    done = cli("--vault", vault, "checkpoint", "new", "--project", "p", "--agent", "a", "--from-json", "-")
    assert (done.code, done.err) == (1, "vault-engine: --from-json -: not UTF-8 text (byte 2): save it as UTF-8\n")
    monkeypatch.setattr(sys, "stdin", stdin('\ufeff{"summary": "Saved by Notepad."}'.encode()))
    done = cli("--vault", vault, "checkpoint", "new", "--project", "p", "--agent", "a", "--from-json", "-")
    assert done.code == 0, done.err


def stdin(data: bytes) -> io.TextIOWrapper:
    """A standard input holding ``data``, bytes under text as the real one is."""
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")


def test_deadend_check_json_and_exit_codes(vault, cli):
    hit = cli("--vault", vault, "deadend", "check", "keep sessions in a shared Redis", "--lexical",
              "--project", "drone", "--json", "--fail-on-hit")
    assert hit.code == 3
    data = hit.json
    assert (data["status"], data["arms"], data["rulings"][0]["elsewhere"]) == ("hit", ["lexical"], True)
    assert "This was tried before" in data["rendered"]
    miss = cli("--vault", vault, "deadend", "check", "add a dark mode toggle", "--lexical", "--json", "--fail-on-hit")
    assert (miss.code, miss.json["status"], miss.json["rulings"]) == (0, "miss", [])
    plain = cli("--vault", vault, "deadend", "check", "keep sessions in a shared Redis", "--lexical")
    assert plain.code == 0 and plain.out.startswith("This was tried before")
    near = cli("--vault", vault, "deadend", "check", "move the sessions into a shared cache", "--lexical")
    assert near.out.startswith("No recorded dead end matches") and "This is a miss, not a guess." in near.out
    assert "\n\nClosest recorded dead ends, not raised:\n- Keep sessions in a shared Redis (" in near.out
    assert "): its words " in near.out


def test_a_miss_on_a_stale_index_says_so_and_a_hook_does_not_pay_for_it(vault, cli):
    fresh = cli("--vault", vault, "deadend", "check", "add a dark mode toggle", "--lexical", "--json").json
    assert (fresh["status"], fresh["notices"]) == ("miss", [])
    (vault / "later.md").write_text("# Later\nwritten after the index\n")
    (notice,) = cli("--vault", vault, "deadend", "check", "add a dark mode toggle", "--lexical", "--json").json["notices"]
    assert notice.startswith("the index is stale: 1 new, 0 changed, 0 missing") and notice.endswith("and check again")
    with Vault(vault) as open_vault:
        quiet = open_vault.deadend_check("add a dark mode toggle", lexical_only=True, say_if_stale=False)
    assert (quiet.status, quiet.notices) == ("miss", ())


def test_fail_on_hit_exit_code_from_a_real_process(vault):
    done = run_cli_subprocess("--vault", vault, "deadend", "check", "sticky sessions on the load balancer",
                              "--lexical", "--fail-on-hit")
    assert done.returncode == 3, done.stderr
    assert "Sticky sessions on the load balancer" in done.stdout


def test_unknown_project_is_exit_1_with_the_known_ones(vault, cli):
    done = cli("--vault", vault, "resume", "--project", "nope")
    assert done.code == 1
    assert done.err == "vault-engine: no project 'nope' in the index; known projects: billing, drone " \
                       "(run `vault-engine index` if its notes are new)\n"
    # a slip or another case names the project meant, as `deadend check` does (qa179)
    for typed in ("Drone", "billng"):
        slipped = cli("--vault", vault, "resume", "--project", typed)
        assert slipped.code == 1 and f"no project '{typed}' in the index (did you mean " in slipped.err


def test_resume_budget_and_usage_errors(vault, cli):
    assert cli("--vault", vault, "resume", "--project", "drone", "--max-tokens", "0").code == 2
    small = cli("--vault", vault, "resume", "--project", "billing", "--max-tokens", "60", "--json").json
    assert small["tokens"] <= 60 and small["cut"]
    assert cli("--vault", vault, "deadend", "check", "x", "-k", "0").code == 2


@pytest.mark.parametrize("args", [
    ["resume", "--project", "billing"],
    ["resume", "--project", "drone", "--json"],
    ["deadend", "check", "keep sessions in a shared Redis", "--lexical", "--json"],
    ["deadend", "list"],
])
def test_agent_paths_never_import_torch(vault, args):
    done = subprocess.run([sys.executable, "-c", PROBE, "--vault", str(vault), *args],
                          capture_output=True, text=True, timeout=120)
    code, heavy = json.loads([line for line in done.stderr.splitlines() if line.startswith("PROBE ")][-1][6:])
    assert (code, heavy) == (0, [])


def test_two_agents_checkpointing_at_once_both_land_and_are_indexed(vault):
    args = ["--vault", str(vault), "checkpoint", "new", "--project", "race", "--agent", "twin"]
    procs = [subprocess.Popen([sys.executable, "-m", "vault_engine", *args, "--failed", f"approach {n} -- why"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for n in (1, 2)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    refs = {out.strip() for out, _ in outs}
    assert len(refs) == 2 and all((vault / ref).is_file() for ref in refs)
    listed = run_cli_subprocess("--vault", vault, "deadend", "list", "--project", "race", "--json")
    assert sorted(d["text"] for d in json.loads(listed.stdout)["dead_ends"]) == ["approach 1", "approach 2"]


def test_a_lexical_check_of_no_content_word_says_the_words_were_never_compared(vault, cli):
    # search --lexical refuses such a query; a check stays a miss (a hook checks every prompt) but says why
    empty = cli("--vault", vault, "deadend", "check", "how do I", "--lexical", "--json")
    assert empty.code == 0 and empty.json["status"] == "miss"
    assert empty.json["notices"] == ["'how do I' holds no word the words arm compares (only stop or framing words): "
                                     "say what is proposed, or check with meaning too (without --lexical)"]
    worded = cli("--vault", vault, "deadend", "check", "add a dark mode toggle", "--lexical", "--json").json
    assert worded["notices"] == []
