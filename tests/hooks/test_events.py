"""`vault-engine hook EVENT` (vault_engine/hooks/events.py) fed recorded Claude Code hook
inputs, in a fresh process each: a resume brief at session start, the dead-end interruption
on a prompt or a plan that was tried before, and nothing at all otherwise. Whatever goes
wrong, the exit code is 0 and stderr holds one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.mcp.conftest import server_env
from vault_engine.hooks.events import hook_output, proposal_of, proposals_of

RECORDED = Path(__file__).resolve().parents[1] / "fixtures" / "hooks"


def recorded(name: str, cwd: Path) -> str:
    """A recorded hook input, its ``cwd`` pointed at the vault (Claude Code's working folder)."""
    payload = json.loads((RECORDED / name).read_text())
    return json.dumps({**payload, "cwd": str(cwd)})


def hook(event: str, stdin: str, *args: str, cwd: Path, deadline: str = "60") -> subprocess.CompletedProcess:
    env = {**os.environ, **server_env(), "VAULT_ENGINE_HOOK_DEADLINE": deadline}
    env.pop("VAULT_ENGINE_VAULT", None)
    return subprocess.run([sys.executable, "-m", "vault_engine", "hook", event, *args], input=stdin,
                          capture_output=True, text=True, timeout=60, env=env, cwd=cwd)


def context(done: subprocess.CompletedProcess, event_name: str) -> str:
    output = json.loads(done.stdout)
    assert output["hookSpecificOutput"]["hookEventName"] == event_name
    return output["hookSpecificOutput"]["additionalContext"]


def test_session_start_injects_the_resume_brief(indexed_sample, tmp_path, cli):
    done = hook("session-start", recorded("session-start.json", indexed_sample), "--project", "drone-audio",
                cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    brief = cli("--vault", indexed_sample, "resume", "--project", "drone-audio", "--max-tokens", "1500").out
    # no watcher runs: the agent is told that a prompt's slow check is skipped (qa80, qa81)
    from vault_engine.hooks.events import COLD_NOTE

    assert context(done, "SessionStart") == f"{brief.rstrip()}\n\n{COLD_NOTE.format(deadline=60)}\n"


def test_a_prompt_that_was_tried_before_gets_the_interruption(indexed_sample, tmp_path, cli):
    stdin = recorded("user-prompt-submit-deadend.json", indexed_sample)
    done = hook("user-prompt-submit", stdin, "--project", "drone-audio", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    said = context(done, "UserPromptSubmit")
    prompt = json.loads(stdin)["prompt"]
    check = cli("--vault", indexed_sample, "deadend", "check", prompt, "--project", "drone-audio", "--lexical", "--json")
    assert check.json["status"] == "hit" and said == check.json["rendered"]
    assert "drop test failed at 1.2 m" in said and "the decision is yours" in said


def test_a_plan_that_was_tried_before_gets_the_interruption(indexed_sample, tmp_path):
    done = hook("pre-tool-use", recorded("pre-tool-use-plan.json", indexed_sample), cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    assert "second microphone" in context(done, "PreToolUse").lower()


@pytest.mark.parametrize(("event", "name"), [
    ("user-prompt-submit", "user-prompt-submit-unrelated.json"),
    ("user-prompt-submit", "user-prompt-submit-empty.json"),
    ("pre-tool-use", "pre-tool-use-edit.json"),
])
def test_nothing_relevant_means_no_output_at_all(indexed_sample, tmp_path, event, name):
    done = hook(event, recorded(name, indexed_sample), cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


@pytest.mark.parametrize(("stdin", "said"), [
    ((RECORDED / "broken.txt").read_text(), "the hook input on stdin is not JSON"),
    ("[1, 2]", "the hook input on stdin is not a JSON object"),
    ("", "the hook input on stdin is not a JSON object"),
    pytest.param("[" * 100_000 + "]" * 100_000, "the hook input on stdin is not JSON (nested too deeply)",
                 id="nested-too-deeply"),
])
def test_broken_input_never_blocks(tmp_path, stdin, said):
    done = hook("user-prompt-submit", stdin, cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, "")
    assert done.stderr.startswith(f"vault-engine hook user-prompt-submit: {said}") and done.stderr.count("\n") == 1


def test_a_vault_without_an_index_never_blocks(tmp_path):
    (tmp_path / "vault-engine.toml").write_text("")
    done = hook("user-prompt-submit", recorded("user-prompt-submit-deadend.json", tmp_path), cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, "")
    assert "run `vault-engine index`" in done.stderr and done.stderr.count("\n") == 1


def test_a_session_outside_any_vault_is_told_to_pass_the_vault_not_to_index_its_folder(tmp_path):
    """The session's folder is a code repository: indexing it is not the fix."""
    done = hook("user-prompt-submit", recorded("user-prompt-submit-deadend.json", tmp_path), cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, "")
    assert done.stderr == (f"vault-engine hook user-prompt-submit: no vault found upward from {tmp_path}: "
                           "pass --vault or set $VAULT_ENGINE_VAULT\n")


def test_session_start_without_a_project_in_a_vault_of_many_says_what_to_pass(indexed_sample, tmp_path):
    done = hook("session-start", recorded("session-start.json", indexed_sample), cwd=tmp_path)
    assert done.returncode == 0 and "pass --project or set $VAULT_ENGINE_PROJECT" in done.stderr
    # ...and the agent is told it has no brief: said on stderr alone, which Claude Code hides,
    # nobody learnt that the vault's memory was off (qa96)
    assert context(done, "SessionStart") == (
        "_vault-engine gave this session no brief (no --project and the vault holds 3 projects (billing-service, "
        "drone-audio, search-infra): pass --project or set $VAULT_ENGINE_PROJECT); `vault-engine resume` gives it "
        "once that is fixed, and until then prompts may go unchecked against recorded dead ends._\n")


def test_session_start_without_an_index_tells_the_agent_and_a_prompt_stays_quiet(tmp_path):
    (tmp_path / "vault-engine.toml").write_text("")
    done = hook("session-start", recorded("session-start.json", tmp_path), "--project", "p", cwd=tmp_path)
    assert done.returncode == 0 and "run `vault-engine index`" in context(done, "SessionStart")
    prompt = hook("user-prompt-submit", recorded("user-prompt-submit-deadend.json", tmp_path), cwd=tmp_path)
    assert (prompt.returncode, prompt.stdout) == (0, "")  # every prompt: a line on stderr, no noise


def test_session_start_waits_longer_than_a_prompt(monkeypatch):
    """A loaded host dropped the brief at the prompt's 1 s (qa96): it comes once a session."""
    from vault_engine.hooks.events import DEADLINE_ENV, _deadline_for

    monkeypatch.delenv(DEADLINE_ENV, raising=False)
    assert _deadline_for("session-start", {}) == 5.0 and _deadline_for("user-prompt-submit", {"prompt": "x"}) == 1.0
    todos = {"tool_name": "TodoWrite", "tool_input": {"todos": [{"content": f"step {n}"} for n in range(6)]}}
    assert _deadline_for("pre-tool-use", todos) == 4.0  # a plan: the deadline for each of its first 4 steps
    monkeypatch.setenv(DEADLINE_ENV, "0.5")
    assert _deadline_for("session-start", {}) == 0.5  # as set


@pytest.mark.parametrize(("setting", "deadline"), [("inf", threading.TIMEOUT_MAX), ("1e308", threading.TIMEOUT_MAX),
                                                    ("nan", 1.0), ("0", 1.0), ("-2", 1.0), ("soon", 1.0), ("2.5", 2.5)])
def test_a_deadline_setting_a_thread_cannot_wait_is_read_as_one_it_can(monkeypatch, setting, deadline):
    """`inf` and `1e308` had overflowed the wait, and every hook said nothing; `nan` had been 1 ms (qa150)."""
    from vault_engine.hooks.events import DEADLINE_ENV, _deadline_for

    monkeypatch.setenv(DEADLINE_ENV, setting)
    assert _deadline_for("user-prompt-submit", {"prompt": "x"}) == deadline
    # a plan's steps each get the deadline, and `inf` times two had overflowed the wait (qa169)
    plan = {"tool_name": "TodoWrite", "tool_input": {"todos": [{"content": f"step {n}"} for n in range(2)]}}
    assert _deadline_for("pre-tool-use", plan) == min(2 * deadline, threading.TIMEOUT_MAX)


def test_a_prompt_holding_half_an_emoji_is_checked_all_the_same(indexed_sample, tmp_path, cli):
    """A lone surrogate, as JavaScript's `slice` through an emoji writes it, had stopped the hook
    with a traceback and exit 1, and the prompt went unchecked (qa150)."""
    stdin = recorded("user-prompt-submit-deadend.json", indexed_sample)
    prompt = json.loads(stdin)["prompt"]
    halved = stdin.replace(json.dumps(prompt)[1:-1], json.dumps(prompt)[1:-1] + " \\ud83d")
    assert "\\ud83d" in halved
    done = hook("user-prompt-submit", halved, "--project", "drone-audio", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    assert "drop test failed at 1.2 m" in context(done, "UserPromptSubmit")


def test_each_step_of_a_plan_is_checked_on_its_own(indexed_sample, tmp_path):
    """A ruled-out step among harmless ones was missed: the plan was one text, whose meaning was
    no step's (qa96). Every step that restates a dead end is said."""
    plan = {"cwd": str(indexed_sample), "hook_event_name": "PreToolUse", "tool_name": "TodoWrite", "tool_input": {
        "todos": [{"content": "Profile the SPI transfer and the DMA ring sizes", "status": "pending"},
                  {"content": "Try beamforming on the MCU again", "status": "pending"},
                  {"content": "Put foam windscreens on the arm-mounted microphones", "status": "pending"}]}}
    done = hook("pre-tool-use", json.dumps(plan), "--project", "drone-audio", cwd=tmp_path)
    said = context(done, "PreToolUse")
    lead, _, more = said.partition("Other steps of this plan restate recorded dead ends too")
    assert more and {"Beamforming on the MCU" in lead, "Foam windscreens on the arm-mounted microphones" in lead} \
        == {True, False}
    assert 'restates "Foam windscreens' in more or 'restates "Beamforming on the MCU"' in more


def test_the_strongest_ruling_leads_the_interruption_whichever_step_comes_first():
    """A plan's harmless first step led with a working note's marker, and the checkpoint ruling a
    later step restated got one line (qa100): this project's over elsewhere, a checkpoint's over
    a working note's, then the score."""
    from types import SimpleNamespace

    from vault_engine.hooks.events import _interruption

    def hit(step, ruling, source="checkpoint", score=0.5, elsewhere=False):
        return SimpleNamespace(proposal=step, rendered=f"FULL {ruling}",
                               rulings=[SimpleNamespace(text=ruling, source=source, score=score, elsewhere=elsewhere)])

    said = _interruption([hit("Update the DMA ring", "DMA ring in PSRAM", "working note", 0.9),
                          hit("Share the 3.3 V rail", "Mics on the ESC rail", score=0.6),
                          hit("Use the old codec", "Old codec", score=0.7, elsewhere=True)])
    assert said.startswith("FULL Mics on the ESC rail") and said.index("DMA ring in PSRAM") < said.index("Old codec")


def test_a_plans_steps_are_its_list_items_and_what_it_says_beside_them():
    from vault_engine.hooks.events import proposals_of, steps_of

    assert steps_of("## Plan\n1. Drop the mic\n2. [ ] Route pins\n") == ["Drop the mic", "Route pins"]
    assert steps_of("We keep the board.\n- Drop the mic\n- Route pins") == [
        "We keep the board.", "Drop the mic", "Route pins"]
    assert steps_of("Just one step: drop the mic") == ["Just one step: drop the mic"]
    assert proposals_of("pre-tool-use", {"tool_name": "Edit", "tool_input": {"new_string": "- a\n- b"}}) == ["- a\n- b"]
    assert proposals_of("user-prompt-submit", {"prompt": "- a\n- b"}) == ["- a\n- b"]  # a prompt is read whole


def test_writing_the_vaults_own_notes_is_not_checked(indexed_sample, tmp_path):
    """Recording a Failed item in a checkpoint was "tried before" (qa96): it is the memory
    being written. A note outside the vault, or code, is still checked."""
    failed = "## Failed\n- Drop the second microphone to save board space -- failed the drop test\n"
    write = {"cwd": str(indexed_sample), "hook_event_name": "PreToolUse", "tool_name": "Write",
             "tool_input": {"file_path": "projects/drone-audio/checkpoints/new.md", "content": failed}}
    done = hook("pre-tool-use", json.dumps(write), "--project", "drone-audio", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, "")
    elsewhere = {**write, "tool_input": {"file_path": str(tmp_path / "notes.md"), "content": failed}}
    done = hook("pre-tool-use", json.dumps(elsewhere), "--project", "drone-audio", cwd=tmp_path)
    assert "tried before" in context(done, "PreToolUse")


def test_an_answer_later_than_the_deadline_is_skipped(indexed_sample, tmp_path):
    done = hook("user-prompt-submit", recorded("user-prompt-submit-deadend.json", indexed_sample), cwd=tmp_path,
                deadline="0.001")
    assert (done.returncode, done.stdout) == (0, "")
    assert "no answer within 0.001 s; skipped" in done.stderr


LEFT_RUNNING = """
import atexit, sys, time
import vault_engine.hooks.events as events
from vault_engine.cli.main import main
events.context_for = lambda *args: time.sleep(30)  # still inside the check when the deadline passes
atexit.register(lambda: print("finalized", flush=True))
sys.exit(main(["hook", "user-prompt-submit", "--project", "p"]))
"""


def test_a_check_left_running_at_the_deadline_ends_the_process_without_finalizing_it(tmp_path):
    """Interpreter finalization under a thread still inside onnxruntime aborted the hook
    (exit 134, "terminate called without an active exception") on a busy host: the process
    leaves with os._exit instead, so nothing at exit runs under the worker."""
    env = {**os.environ, "VAULT_ENGINE_HOOK_DEADLINE": "0.2"}
    done = subprocess.run([sys.executable, "-c", LEFT_RUNNING], input='{"prompt": "add a retry queue"}',
                          capture_output=True, text=True, timeout=25, env=env, cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, ""), done.stderr
    assert "no answer within 0.2 s; skipped" in done.stderr


def test_the_proposal_is_the_prompt_or_what_the_tool_is_about_to_do():
    assert proposal_of("user-prompt-submit", {"prompt": "  keep sessions in Redis "}) == "keep sessions in Redis"
    assert proposal_of("user-prompt-submit", {"prompt": 42}) == ""
    todos = {"tool_input": {"todos": [{"content": "add a retry queue", "status": "pending"}, "junk"]}}
    assert proposal_of("pre-tool-use", todos) == "add a retry queue."
    # a to-do list re-sent with a step ticked off: the done step was checked when it was planned
    ticked = {"tool_input": {"todos": [{"content": "add a retry queue", "status": "completed"},
                                       {"content": "drain the outbox", "status": "in_progress"}]}}
    assert proposal_of("pre-tool-use", ticked) == "drain the outbox."
    # steps read as sentences: the interruption quoted "... reparses edited libraries Write docs" (qa59)
    steps = {"tool_input": {"todos": [{"content": "Reparse edited libraries", "status": "pending"},
                                      {"content": "Write docs!", "status": "pending"}]}}
    assert proposal_of("pre-tool-use", steps) == "Reparse edited libraries.\nWrite docs!"
    multi = {"tool_input": {"file_path": "a.py", "edits": [{"old_string": "a", "new_string": "use Redis"}]}}
    assert proposal_of("pre-tool-use", multi) == "use Redis"
    assert proposal_of("pre-tool-use", {"tool_input": "not an object"}) == ""
    assert len(proposal_of("pre-tool-use", {"tool_input": {"content": "x" * 10_000}})) == 4000
    assert len(proposal_of("user-prompt-submit", {"prompt": "a pasted log " * 100_000})) == 4000  # qa65
    # a list of the wrong type is no plan: it had been an internal error, a TypeError (qa150)
    for odd in ({"todos": 5}, {"todos": "a b"}, {"edits": 3, "content": "use Redis"}):
        payload = {"tool_name": "TodoWrite", "tool_input": odd}
        assert proposal_of("pre-tool-use", payload) == ("use Redis" if "content" in odd else "")
        assert proposals_of("pre-tool-use", payload) == []


def test_the_output_is_claude_codes_hook_output():
    assert hook_output("pre-tool-use", "tried before") == {
        "hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "tried before"}}


def test_a_terminal_on_stdin_is_not_waited_for(capsys):
    from vault_engine.hooks.events import run_hook

    class Terminal:
        def isatty(self):
            return True

        def read(self):
            raise AssertionError("a hook run by hand must not wait for input")

    assert run_hook("session-start", stdin=Terminal()) == 0
    assert capsys.readouterr().err == "vault-engine hook session-start: reads Claude Code's hook input JSON on stdin: pipe it in\n"


@pytest.mark.parametrize("args", [["user-prompt-submit", "--projct", "x"], ["user-prompt-sumbit"], []])
def test_a_usage_error_never_exits_2_which_claude_code_reads_as_block(tmp_path, args):
    done = hook(args[0], "{}", *args[1:], cwd=tmp_path) if args else subprocess.run(
        [sys.executable, "-m", "vault_engine", "hook"], input="{}", capture_output=True, text=True, timeout=60,
        env={**os.environ, **server_env()}, cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, "")
    assert done.stderr.startswith("vault-engine hook: ") and done.stderr.count("\n") == 1


@pytest.mark.parametrize("before", [["--valut", "VAULT"], ["--vault", "VAULT", "--no-deamon"], ["--vault"],
                                    [b"--vault=\xff".decode("utf-8", "surrogateescape")]])
def test_a_global_option_mistyped_before_hook_never_exits_2_either(indexed_sample, tmp_path, before):
    """`hook install --vault DIR` writes `vault-engine --vault DIR hook ...`: the settings file
    holds global options too, and the top-level parser's usage error must not read as block."""
    argv = [str(indexed_sample) if word == "VAULT" else word for word in before]
    done = subprocess.run([sys.executable, "-m", "vault_engine", *argv, "hook", "user-prompt-submit"],
                          input=recorded("user-prompt-submit-deadend.json", indexed_sample), capture_output=True,
                          text=True, timeout=60, env={**os.environ, **server_env()}, cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, "")
    assert done.stderr.startswith("vault-engine hook: ") and done.stderr.count("\n") == 1


def test_other_commands_keep_exit_2_for_a_usage_error(tmp_path, cli):
    assert cli("--valut", tmp_path, "search", "hook").code == 2
    assert cli("search", "hook", "--bogus").code == 2
    # `hook install` is run by a person or a setup script, which must see the typo fail
    assert cli("--vault", tmp_path, "hook", "install", "--projekt", "x").code == 2
    assert cli("--vault", tmp_path, "hook", "--print", "install", "--projekt", "x").code == 2
    assert not (tmp_path / ".claude").exists()


def test_with_a_running_watcher_the_warm_daemon_answers(indexed_sample, tmp_path, start_daemon):
    from tests.mcp.conftest import WRAPPER

    def probed_hook(*flags: str) -> tuple[subprocess.CompletedProcess, list[str]]:
        probe = tmp_path / f"probe-{len(list(tmp_path.glob('probe-*')))}.json"
        done = subprocess.run([sys.executable, "-c", WRAPPER, str(probe), "hook", "user-prompt-submit", *flags],
                              input=recorded("user-prompt-submit-deadend.json", indexed_sample), capture_output=True,
                              text=True, timeout=60, cwd=tmp_path,
                              env={**os.environ, **server_env(), "VAULT_ENGINE_HOOK_DEADLINE": "60"})
        return done, json.loads(probe.read_text())

    cold, cold_loaded = probed_hook()
    start_daemon(indexed_sample)
    warm, warm_loaded = probed_hook()
    assert (warm.returncode, warm.stdout, warm.stderr) == (cold.returncode, cold.stdout, cold.stderr)
    assert context(warm, "UserPromptSubmit").startswith("This was tried before")
    assert "vault_engine.vault" in cold_loaded and "vault_engine.vault" not in warm_loaded
    local, local_loaded = probed_hook("--no-daemon")  # answered here although the watcher runs
    assert "vault_engine.vault" in local_loaded and local.stdout == cold.stdout


def test_the_brief_says_prompt_checks_start_cold_only_when_no_watcher_runs(indexed_sample, tmp_path, start_daemon):
    def session_start() -> str:
        done = hook("session-start", recorded("session-start.json", indexed_sample), "--project", "drone-audio",
                    cwd=tmp_path)
        return context(done, "SessionStart")

    assert "No `vault-engine watch` runs for this vault" in session_start()
    start_daemon(indexed_sample)
    warm = session_start()
    assert warm.startswith("# Resume: drone-audio") and "vault-engine watch" not in warm


def test_the_interruption_quotes_a_long_prompt_in_short(indexed_sample, tmp_path):
    prompt = "keep sessions in a shared Redis " + "lorem ipsum dolor " * 5000
    done = hook("user-prompt-submit", json.dumps({"prompt": prompt, "cwd": str(indexed_sample)}),
                "--project", "billing-service", cwd=tmp_path)
    said = context(done, "UserPromptSubmit")
    assert said.startswith('This was tried before: 1 recorded dead end matches "keep sessions in a shared Redis lorem')
    assert len(said.splitlines()[0]) < 300 and len(said) < 2000


@pytest.mark.model
def test_without_a_daemon_a_restatement_in_other_words_is_caught_by_meaning_without_torch(sample_vault, tmp_path):
    """Where the index holds the model's ONNX export, the hook's own check runs both arms: a
    prompt sharing too few words with the ruling for the words arm is still interrupted."""
    from tests.mcp.conftest import WRAPPER
    from vault_engine.vault import Vault

    with Vault(sample_vault) as vault:
        vault.index()
        assert vault.query_model_ready()
    prompt = "Have the single-page app stash the refresh token in the browser's local storage so it survives reloads."
    words = subprocess.run([sys.executable, "-m", "vault_engine", "--vault", str(sample_vault), "deadend", "check",
                            prompt, "--lexical", "--json"], capture_output=True, text=True, timeout=60,
                           env={**os.environ, **server_env()})
    assert json.loads(words.stdout)["status"] == "miss"  # the words arm alone does not catch it
    probe = tmp_path / "probe.json"
    done = subprocess.run([sys.executable, "-c", WRAPPER, str(probe), "hook", "user-prompt-submit", "--no-daemon"],
                          input=json.dumps({"prompt": prompt, "cwd": str(sample_vault)}), capture_output=True,
                          text=True, timeout=60, cwd=tmp_path,
                          env={**os.environ, **server_env(), "VAULT_ENGINE_HOOK_DEADLINE": "60"})
    assert (done.returncode, done.stderr) == (0, "")
    assert "Keep refresh tokens in localStorage" in context(done, "UserPromptSubmit")
    assert not {"torch", "sentence_transformers"} & set(json.loads(probe.read_text()))

    def tool(name: str, tool_input: dict) -> subprocess.CompletedProcess:
        payload = {"tool_name": name, "tool_input": tool_input, "cwd": str(sample_vault)}
        return subprocess.run([sys.executable, "-m", "vault_engine", "hook", "pre-tool-use", "--no-daemon"],
                              input=json.dumps(payload), capture_output=True, text=True, timeout=60, cwd=tmp_path,
                              env={**os.environ, **server_env(), "VAULT_ENGINE_HOOK_DEADLINE": "60"})

    assert "Keep refresh tokens in localStorage" in context(tool("ExitPlanMode", {"plan": prompt}), "PreToolUse")
    edit = tool("Edit", {"file_path": "auth.ts", "old_string": "x", "new_string": f"// {prompt}\nconst a = 1;"})
    assert (edit.returncode, edit.stdout) == (0, "")  # an edit's code is read for its words only


def test_the_daemon_is_asked_for_words_only_about_an_edits_code(indexed_sample, monkeypatch):
    from vault_engine.hooks import events

    asked = []

    def capture(root, op, args, kwargs, local, use_daemon=True):
        asked.append(kwargs)
        return type("Check", (), {"status": "miss"})(), False

    monkeypatch.setattr(events, "_ask_or_local", capture)
    for event, payload in (("user-prompt-submit", {"prompt": "keep sessions in Redis"}),
                           ("pre-tool-use", {"tool_name": "TodoWrite", "tool_input": {"todos": [{"content": "a"}]}}),
                           ("pre-tool-use", {"tool_name": "Write", "tool_input": {"content": "x = 1"}})):
        events.context_for(event, {**payload, "cwd": str(indexed_sample)}, "drone-audio", None)
    assert [a.get("lexical_only", False) for a in asked] == [False, False, True]


def test_a_busy_watcher_leaves_the_check_in_process_half_the_deadline(tmp_path, monkeypatch):
    """A watcher still catching up took the whole 1 s deadline, and the hook was skipped
    without its 0.08 s check by words: an exact restatement went through unremarked. A socket
    that takes the request and never answers stands for that watcher."""
    import socket

    from vault_engine.daemon import client as daemon_client
    from vault_engine.hooks import events
    from vault_engine.layout import HEALTH_FILE, SOCKET_FILE, STATE_DIR

    state = tmp_path / STATE_DIR
    state.mkdir()
    (state / HEALTH_FILE).write_text("{}")  # a fresh heartbeat: the watcher is up, not stalled
    silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    silent.bind(str(state / SOCKET_FILE))
    silent.listen()
    waited = []
    real_ask = daemon_client.ask

    def timed_ask(root, op, args, kwargs, timeout):
        waited.append(timeout)
        return real_ask(root, op, args, kwargs, timeout=timeout)

    monkeypatch.setattr(daemon_client, "ask", timed_ask)
    monkeypatch.setenv(events.DEADLINE_ENV, "0.4")
    try:
        answer = events._ask_or_local(tmp_path, "deadend.check", ("x",), {}, local=lambda vault: "answered here")
    finally:
        silent.close()
    assert answer == ("answered here", False) and waited == [0.2]
