"""``vault-engine hook EVENT``: Claude Code's hook input on stdin, its hook output on stdout.

- ``session-start``: the project's resume brief, so an arriving agent starts where the last
  one left off;
- ``user-prompt-submit``: ``deadend check`` of the prompt; on a hit, the interruption as
  context, nothing at all otherwise;
- ``pre-tool-use``: the same check of the plan (ExitPlanMode, TodoWrite) or of the text an
  edit writes.

A hook never blocks the person: broken input, a missing index, an unknown project or a slow
answer give exit 0, no output and one line on stderr. A prompt or a plan is checked by words
and meaning, an edit's code by its words only. Answers come from the warm daemon when
``vault-engine watch`` runs, else from this process: the words first, then meaning where the
model's ONNX export is in the index (a cold check with both arms takes about 0.35 s, no
torch); loading torch would take longer than a hook may.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import re
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from vault_engine.constants import LONE_SURROGATE
from vault_engine.errors import VaultError

log = logging.getLogger(__name__)

EVENT_NAMES = {"session-start": "SessionStart", "user-prompt-submit": "UserPromptSubmit",
               "pre-tool-use": "PreToolUse"}
BRIEF_TOKENS = 1500
RULINGS = 3
# An edit may write a whole file, a prompt paste a whole log: the head says what it is about
# (a 1 MB prompt missed the deadline even through a warm watcher, qa65)
MAX_PROPOSAL_CHARS = 4000
DEADLINE_SECONDS = 1.0
DEADLINE_ENV = "VAULT_ENGINE_HOOK_DEADLINE"
WORKER_NAME = "vault-engine-hook"  # the thread that answers an event within the deadline
# A warm watcher answers within 0.1 s. One still catching up or loading the model gets half
# the deadline; the other half is the in-process check's (0.08 s by words, 0.35 s with the
# model's export), so a busy watcher never costs the answer itself.
DAEMON_SHARE = 0.5
PROJECT_ENV = "VAULT_ENGINE_PROJECT"
PLANNING_TOOLS = ("ExitPlanMode", "TodoWrite")  # their input is a plan in words, not code


class HookSkipped(Exception):
    """This event gets no answer, for the reason in the message (said on stderr)."""


def read_input(text: str) -> dict[str, Any]:
    """The hook input object, or :class:`HookSkipped` saying what is wrong with it."""
    try:
        payload = json.loads(text) if text.strip() else None
    except ValueError as exc:
        raise HookSkipped(f"the hook input on stdin is not JSON ({exc})") from None
    except RecursionError:
        raise HookSkipped("the hook input on stdin is not JSON (nested too deeply)") from None
    if not isinstance(payload, dict):
        raise HookSkipped("the hook input on stdin is not a JSON object")
    return _whole_characters(payload)


def _whole_characters(value: Any) -> Any:
    """``value`` with each half of a UTF-16 pair (``"\\ud800"``, a JavaScript ``slice`` through
    an emoji) read as U+FFFD: the prompt around it is checked as written (it had stopped the
    hook with a traceback, and the prompt went unchecked, qa150)."""
    if isinstance(value, str):
        return LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_whole_characters(k): _whole_characters(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_whole_characters(v) for v in value]
    return value


def proposals_of(event: str, payload: dict[str, Any]) -> list[str]:
    """What to check against dead ends, each on its own: a planning tool's steps one by one (a
    ruled-out step among others was missed, the plan read as one text whose meaning is no
    step's, qa96), else the one text of :func:`proposal_of`."""
    tool = payload.get("tool_input")
    if event != "pre-tool-use" or payload.get("tool_name") not in PLANNING_TOOLS or not isinstance(tool, dict):
        text = proposal_of(event, payload)
        return [text] if text else []
    steps = [item["content"].strip() for item in _listed(tool.get("todos"))
             if isinstance(item, dict) and isinstance(item.get("content"), str) and item["content"].strip()
             and item.get("status") != "completed"]  # a done step was checked when planned
    plan = tool.get("plan")
    if isinstance(plan, str) and plan.strip():
        steps += steps_of(plan)
    return [step[:MAX_PROPOSAL_CHARS] for step in steps[:MAX_STEPS]]


MAX_STEPS = 8  # a plan's first steps: each is a check, and a plan's later steps get planned again
_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?(?P<step>\S.*)$", re.MULTILINE)


def steps_of(plan: str) -> list[str]:
    """A plan's list items, each a step, and what it says beside them (an introduction) as one
    more; a plan of fewer than two items is one step."""
    items = [m["step"].strip() for m in _LIST_ITEM.finditer(plan)]
    if len(items) < 2:
        return [plan.strip()]
    rest = " ".join(line for line in _LIST_ITEM.sub("", plan).splitlines() if not line.lstrip().startswith("#"))
    return ([" ".join(rest.split())] if len(rest.split()) >= 3 else []) + items


def proposal_of(event: str, payload: dict[str, Any]) -> str:
    """The text to check against dead ends: the prompt, or what the tool is about to do."""
    if event == "user-prompt-submit":
        text = payload.get("prompt")
        return text.strip()[:MAX_PROPOSAL_CHARS] if isinstance(text, str) else ""
    tool = payload.get("tool_input")
    if not isinstance(tool, dict):
        return ""
    parts = [tool.get(key) for key in ("plan", "description", "new_string", "content")]
    for item in _listed(tool.get("todos")):  # TodoWrite: the steps of the plan still to do
        content = item.get("content") if isinstance(item, dict) else None
        if isinstance(content, str) and item.get("status") != "completed":  # a done step was checked when planned
            parts.append(_as_sentence(content))
    for edit in _listed(tool.get("edits")):  # MultiEdit
        parts.append(edit.get("new_string") if isinstance(edit, dict) else None)
    text = "\n".join(p.strip() for p in parts if isinstance(p, str) and p.strip())
    return text[:MAX_PROPOSAL_CHARS]


def _listed(value: Any) -> list:
    """``value`` when it is a list, else none: `"todos": 5` is no plan (it had been read as
    an internal error, a TypeError, qa150)."""
    return value if isinstance(value, list) else []


def _as_sentence(step: str) -> str:
    """A plan's step as a sentence of its own: the interruption quotes the proposal on one
    line, and two steps ran together there ("... reparses edited libraries Write docs", qa59)."""
    step = step.strip()
    return step + "." if step and step[-1] not in ".!?;:" else step


def hook_output(event: str, context: str) -> dict[str, Any]:
    """Claude Code's hook output that adds ``context`` for the model to read."""
    return {"hookSpecificOutput": {"hookEventName": EVENT_NAMES[event], "additionalContext": context}}


def context_for(event: str, payload: dict[str, Any], project: str | None, explicit_vault: str | None,
                use_daemon: bool = True) -> str | None:
    """What the event adds to the conversation, or None for nothing."""
    cwd = payload.get("cwd")
    root = _vault_root(explicit_vault, Path(cwd) if isinstance(cwd, str) and os.path.isdir(cwd) else Path.cwd())
    project = project or os.environ.get(PROJECT_ENV) or None
    if event == "session-start":
        return _brief(root, project, use_daemon)
    if _writes_a_note(root, payload):
        return None
    in_words = event == "user-prompt-submit" or payload.get("tool_name") in PLANNING_TOOLS
    asked = {"project": project, "k": RULINGS} | ({} if in_words else {"lexical_only": True})
    hits = []
    for proposal in proposals_of(event, payload):
        check, _ = _ask_or_local(root, "deadend.check", (proposal,), asked,
                                 functools.partial(_check_here, proposal=proposal, project=project, in_words=in_words),
                                 use_daemon)
        if check.status == "hit":
            hits.append(check)
    return _interruption(hits) if hits else None


def _interruption(hits: list[Any]) -> str:
    """The strongest hit's interruption, and a line for each other step of the plan that
    restates a dead end. The strongest: a ruling of this project over one recorded elsewhere,
    a checkpoint's or a record's over a working note's first impression, then by score (a
    plan's harmless first step led with a working note's marker, and the checkpoint ruling a
    later step restated got one line, qa100)."""
    from vault_engine.memory.render import one_line  # loaded by the check that found them

    hits = sorted(hits, key=lambda hit: _strength(hit.rulings[0]))
    more = [f'- "{one_line(hit.proposal, 100)}" restates "{one_line(hit.rulings[0].text, 100)}"' for hit in hits[1:]]
    if not more:
        return hits[0].rendered
    return hits[0].rendered.rstrip() + "\n\nOther steps of this plan restate recorded dead ends too (`vault-engine " \
        "deadend check STEP` gives each in full):\n" + "\n".join(more) + "\n"


def _strength(ruling: Any) -> tuple[bool, bool, float]:
    return ruling.elsewhere, ruling.source == "working note", -ruling.score


def _writes_a_note(root: Path, payload: dict[str, Any]) -> bool:
    """Whether the tool writes one of the vault's notes: recording a Failed item in a
    checkpoint, or "Never drop the second microphone" in a spec, is the memory being written,
    not a proposal to repeat it (qa96)."""
    tool = payload.get("tool_input")
    path = tool.get("file_path") if isinstance(tool, dict) else None
    if not isinstance(path, str) or not path.endswith(".md"):
        return False
    cwd = payload.get("cwd")
    target = Path(cwd if isinstance(cwd, str) else ".", path)
    try:
        return target.resolve().is_relative_to(root.resolve())
    except (OSError, RuntimeError):
        return False


def _vault_root(explicit: str | None, here: Path) -> Path:
    """``--vault``, else $VAULT_ENGINE_VAULT, else the vault found upward from ``here``. Not
    the folder itself as a last resort (as the CLI does): a session's folder is a code
    repository, and advice to index it would be wrong."""
    from vault_engine.config import find_vault, marked_vault

    if explicit or os.environ.get("VAULT_ENGINE_VAULT"):
        return find_vault(explicit)
    found = marked_vault(here.resolve())
    if found is None:
        raise HookSkipped(f"no vault found upward from {here}: pass --vault or set $VAULT_ENGINE_VAULT")
    return found


def _check_here(vault: Any, proposal: str, project: str | None, in_words: bool) -> Any:
    """Without the daemon: the words arm (milliseconds), and when it finds nothing in a
    proposal written in words (a prompt, a plan), both arms where the model answers without
    torch. A restatement in other words is caught at the moment it is proposed, a slow host
    that misses the deadline loses no words hit, and an edit's code is not read for meaning."""
    words = vault.deadend_check(proposal, project=project, k=RULINGS, lexical_only=True, say_if_stale=False)
    if words.status == "hit" or not in_words or not vault.query_model_ready():
        return words
    return vault.deadend_check(proposal, project=project, k=RULINGS, say_if_stale=False)


def _brief(root: Path, project: str | None, use_daemon: bool) -> str:
    if project is None:
        project = _only_project(root)
    brief, warm = _ask_or_local(root, "resume", (project,), {"max_tokens": BRIEF_TOKENS},
                                lambda vault: vault.resume(project, max_tokens=BRIEF_TOKENS), use_daemon)
    return brief.markdown if warm else f"{brief.markdown.rstrip()}\n\n{COLD_NOTE.format(deadline=_deadline())}\n"


# Said once a session, where the agent reads it: a prompt's check that misses the deadline is
# skipped with a line on stderr, which Claude Code hides, so a paraphrase of a dead end went
# unchecked without a sign on a loaded host (qa80, qa81)
COLD_NOTE = ("_No `vault-engine watch` runs for this vault, so each prompt's dead-end check starts cold: one "
             "that takes over {deadline:g} s is skipped without a word (a restatement in other words needs the "
             "model). `vault-engine watch` in a terminal keeps every check warm._")


def _only_project(root: Path) -> str:
    from vault_engine.vault import Vault

    with Vault(root) as vault:
        known = vault.projects()
    if len(known) != 1:
        raise HookSkipped(f"no --project and the vault holds {len(known)} projects ({', '.join(known) or 'none'}): "
                          f"pass --project or set ${PROJECT_ENV}")
    return known[0]


def _ask_or_local(root: Path, op: str, args: tuple, kwargs: dict, local: Callable[[Any], Any],
                  use_daemon: bool = True) -> tuple[Any, bool]:
    """The warm daemon's answer (both arms, model loaded), else ``local`` on a Vault here
    (always here with ``--no-daemon`` or ``VAULT_ENGINE_NO_DAEMON=1``); and whether the daemon
    answered."""
    from vault_engine.daemon.client import ask, daemon_wanted

    if daemon_wanted(no_daemon=not use_daemon):
        answered, result = ask(root, op, args, kwargs, timeout=DAEMON_SHARE * _deadline())
        if answered:
            return result, True
    from vault_engine.vault import Vault

    with Vault(root) as vault:
        return local(vault), False


def run_hook(event: str, *, project: str | None = None, explicit_vault: str | None = None,
             stdin: TextIO | None = None, stdout: TextIO | None = None, use_daemon: bool = True) -> int:
    """Answer one event; always exit 0. Output only when there is something to add."""
    stdin, stdout = stdin or sys.stdin, stdout or sys.stdout
    if stdin.isatty():  # run by hand: waiting for input that never comes would block the person
        _say(event, "reads Claude Code's hook input JSON on stdin: pipe it in")
        return 0
    try:
        payload = read_input(stdin.read())
        context = _within_deadline(lambda: context_for(event, payload, project, explicit_vault, use_daemon),
                                   _deadline_for(event, payload))
    except (HookSkipped, VaultError) as exc:
        _say(event, str(exc))
        context = _no_brief(str(exc)) if event == "session-start" else None
    except Exception as exc:  # a bug must not stop the person: one line, and on with the prompt
        log.debug("hook %s failed", event, exc_info=True)
        _say(event, f"failed ({type(exc).__name__}: {exc}); run with --debug for details")
        context = _no_brief(f"{type(exc).__name__}: {exc}") if event == "session-start" else None
    if context:
        stdout.write(json.dumps(hook_output(event, context), ensure_ascii=False) + "\n")
    return 0


def _no_brief(reason: str) -> str:
    """What the agent reads when its session gets no brief: said on stderr alone, which Claude
    Code hides, nobody learnt that the vault's memory was off (qa96)."""
    return (f"_vault-engine gave this session no brief ({' '.join(reason.split()).rstrip('.')}); `vault-engine "
            "resume` gives it once that is fixed, and until then prompts may go unchecked against recorded dead "
            "ends._\n")


def _deadline_for(event: str, payload: dict[str, Any]) -> float:
    """How long an event may take: a prompt's check, :func:`_deadline` (the person waits); the
    session's brief, at least :data:`SESSION_START_SECONDS` (once a session, and without it the
    agent starts with no memory: a loaded host dropped it at 1 s, qa96); a plan, the deadline
    for each of its first :data:`PLAN_DEADLINES` steps."""
    deadline = _deadline()
    if event == "session-start":
        return deadline if DEADLINE_ENV in os.environ else max(deadline, SESSION_START_SECONDS)
    # at most what a thread can wait: `inf` times a plan's steps had overflowed it (qa169)
    return min(deadline * max(1, min(PLAN_DEADLINES, len(proposals_of(event, payload)))), threading.TIMEOUT_MAX)


SESSION_START_SECONDS = 5.0
PLAN_DEADLINES = 4


def _within_deadline(work: Callable[[], str | None], deadline: float) -> str | None:
    """``work()``, or :class:`HookSkipped` when it takes longer than ``deadline``. The
    worker is a daemon thread: the process leaves without waiting for it."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = work()
        except BaseException as exc:  # handed to the caller's thread, raised there
            box["error"] = exc

    worker = threading.Thread(target=run, name=WORKER_NAME, daemon=True)
    worker.start()
    worker.join(deadline)
    if worker.is_alive():
        raise HookSkipped(f"no answer within {deadline:g} s; skipped (a running `vault-engine watch` answers warm)")
    if "error" in box:
        raise box["error"]
    return box.get("value")


def worker_left_running() -> bool:
    """Whether a check outlived its deadline and still runs (loading the query model, say).
    The process must then end without finalizing the interpreter: onnxruntime's C++ state
    torn down under a thread that is inside it aborts the process (exit 134, "terminate
    called without an active exception") instead of the hook's exit 0."""
    return any(t.name == WORKER_NAME and t.is_alive() for t in threading.enumerate())


def _deadline() -> float:
    """The setting, at most what a thread can wait (``inf`` and ``1e308`` had overflowed the
    wait and turned every hook off, qa150); unreadable, ``nan`` or not above zero: the default."""
    try:
        seconds = float(os.environ.get(DEADLINE_ENV, DEADLINE_SECONDS))
    except ValueError:
        return DEADLINE_SECONDS
    return min(seconds, threading.TIMEOUT_MAX) if seconds > 0 else DEADLINE_SECONDS


def _say(event: str, message: str) -> None:
    print(f"vault-engine hook {event}: {' '.join(message.split())}", file=sys.stderr)
