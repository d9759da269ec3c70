"""``vault-engine hook install``: add the hooks to ``.claude/settings.json``, keeping the rest.

The merge is a pure function over the settings object: our entries are recognised by their
command (``vault-engine ... hook EVENT``) wherever they sit and replaced in place, so installing
twice changes nothing and another tool's hooks, matchers and settings are never touched.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shlex
import stat
from pathlib import Path
from typing import Any

from vault_engine.errors import IndexMissing, UnknownProject, VaultError, did_you_mean
from vault_engine.text import as_named

# Claude Code's event -> (our event, matcher). PreToolUse fires for every tool: only plans,
# to-do lists and edits say what the agent is about to try.
HOOKS = {
    "SessionStart": ("session-start", None),
    "UserPromptSubmit": ("user-prompt-submit", None),
    "PreToolUse": ("pre-tool-use", "ExitPlanMode|TodoWrite|Edit|MultiEdit|Write"),
}
TIMEOUT_SECONDS = 10  # Claude Code's own kill; the hook gives up after about 1 s by itself


def hook_command(event: str, project: str | None, vault: str | None) -> str:
    """The shell command Claude Code runs for ``event``."""
    words = ["vault-engine"]
    if vault:
        words += ["--vault", str(Path(vault).expanduser().resolve())]
    words += ["hook", event]
    if project:
        words += ["--project", project]
    return shlex.join(words)


def merge(settings: dict[str, Any], project: str | None, vault: str | None) -> dict[str, Any]:
    """``settings`` with our hooks added or refreshed; everything else as it was."""
    merged = json.loads(json.dumps(settings))  # a deep copy of plain JSON
    hooks = merged.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise VaultError("the settings' \"hooks\" is not an object: fix it by hand, then install again")
    for claude_event, (event, matcher) in HOOKS.items():
        groups = hooks.setdefault(claude_event, [])
        if not isinstance(groups, list):
            raise VaultError(f"the settings' hooks.{claude_event} is not a list: fix it by hand, then install again")
        entry = {"type": "command", "command": hook_command(event, project, vault),
                 "timeout": max(TIMEOUT_SECONDS, _timeout_set(groups, event))}
        group: dict[str, Any] = {"hooks": [entry]}
        if matcher:
            group = {"matcher": matcher, **group}
        hooks[claude_event] = _placed(groups, event, group)
    return merged


def _timeout_set(groups: list[Any], event: str) -> int | float:
    """The timeout a person gave our hook for ``event`` (0 when none): raised by hand, it was
    reset to 10 s by the next install (qa96)."""
    found = [h.get("timeout") for g in groups if isinstance(g, dict) and isinstance(g.get("hooks"), list)
             for h in g["hooks"] if _is_ours(h, event)]
    return max((t for t in found if isinstance(t, (int, float)) and not isinstance(t, bool)), default=0)


def remove(settings: dict[str, Any]) -> dict[str, Any]:
    """``settings`` without our hooks: an entry of ours goes, a group left with nothing goes,
    an event left with no group goes; every other hook and setting stays as it was."""
    merged = json.loads(json.dumps(settings))
    hooks = merged.get("hooks")
    if not isinstance(hooks, dict):
        return merged
    for claude_event, (event, _) in HOOKS.items():
        groups = hooks.get(claude_event)
        if not isinstance(groups, list):
            continue
        kept = []
        for g in groups:
            entries = g.get("hooks") if isinstance(g, dict) else None
            if not isinstance(entries, list) or not any(_is_ours(h, event) for h in entries):
                kept.append(g)
            elif others := [h for h in entries if not _is_ours(h, event)]:
                kept.append({**g, "hooks": others})
        if kept:
            hooks[claude_event] = kept
        else:
            del hooks[claude_event]
    if not hooks:
        del merged["hooks"]
    return merged


def _placed(groups: list[Any], event: str, group: dict[str, Any]) -> list[Any]:
    """``groups`` with our command for ``event`` exactly once. A group of ours alone is
    replaced whole (its matcher refreshed); our command sitting in a group beside another
    hook is refreshed in place, the other hook kept; any further copy goes, and so does a
    group that held nothing else."""
    placed, result = False, []
    for g in groups:
        entries = g.get("hooks") if isinstance(g, dict) else None
        if not isinstance(entries, list) or not any(_is_ours(h, event) for h in entries):
            result.append(g)
            continue
        if all(_is_ours(h, event) for h in entries):
            if not placed:
                result.append(group)
            placed = True
            continue
        kept = []
        for h in entries:
            if not _is_ours(h, event):
                kept.append(h)
            elif not placed:
                kept.append(group["hooks"][0])
                placed = True
        result.append({**g, "hooks": kept})
    return result if placed else [*result, group]


def _is_ours(hook: Any, event: str) -> bool:
    """A hook entry running our command for ``event`` (ours to replace): ``vault-engine hook
    EVENT`` as one command, whatever runs it (``env VAULT_ENGINE_PROJECT=x vault-engine ...``,
    ``uvx vault-engine ...`` had been installed a second time, every prompt checked twice), but
    not inside a pipeline or a list of commands someone wrote (``... | tee log`` had been taken
    for ours and replaced, qa150)."""
    command = hook.get("command") if isinstance(hook, dict) else None
    if not isinstance(command, str):
        return False
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        words = list(lexer)
    except ValueError:  # unbalanced quotes: not a command we wrote
        return False
    if any(word and set(word) <= _OPERATOR for word in words):
        return False
    ours = next((i for i, word in enumerate(words) if os.path.basename(word) == "vault-engine"), None)
    return (ours is not None and all(word in _RUNNERS or "=" in word or word.startswith("-") for word in words[:ours])
            and any(a == "hook" and b == event for a, b in zip(words[ours:], words[ours + 1:])))


_OPERATOR = set("|&;<>()")
_RUNNERS = frozenset({"env", "exec", "uvx", "uv", "pipx", "run", "command"})  # what runs a command as it is


def check_project(vault: Path, project: str) -> str | None:
    """Refuse a ``--project`` the vault's index does not know (:class:`UnknownProject`, the
    known ones listed): the hooks would install fine and then never add a brief, and their
    only word about it goes to a stderr that Claude Code hides. Without an index there is
    nothing to check against: the warning to say so, else None."""
    from vault_engine.vault import Vault

    with Vault(vault) as opened:
        try:
            known = opened.projects()
        except IndexMissing as exc:
            return f"{exc}; --project {project} is not checked until then"
    if as_named(project) not in known:
        raise UnknownProject(f"no project {project!r} in the index{did_you_mean(project, known)}; known projects: "
                             f"{', '.join(known) or 'none yet'} (run `vault-engine index` if its notes are new); "
                             "nothing installed", argument="project")
    return None


def unnamed_project(vault: Path) -> str | None:
    """For hooks installed without ``--project``: one line when session-start cannot tell
    which project to brief (it takes the vault's only project, else $VAULT_ENGINE_PROJECT;
    three projects installed silently and no brief came, qa31 N6); None when it can, or
    when there is no index to ask yet."""
    from vault_engine.hooks.events import PROJECT_ENV
    from vault_engine.vault import Vault

    with Vault(vault) as opened:
        try:
            known = opened.projects()
        except IndexMissing:
            return None
    if len(known) == 1 or os.environ.get(PROJECT_ENV):
        return None
    return (f"no --project, and the vault holds {len(known)} projects ({', '.join(known) or 'none yet'}): "
            f"session-start adds no brief unless ${PROJECT_ENV} names one; pass --project P to name it in the hooks")


def settings_file_of(here: Path) -> Path:
    """The project's ``.claude/settings.json``: in the nearest folder upward from ``here``
    that holds a ``.claude`` folder, else at the root of its git repository, else here. Run
    from a subfolder, install had made a stray ``.claude`` there and left the project's alone
    (qa96)."""
    here = here.resolve()
    for folder in (here, *here.parents):
        if (folder / ".claude").is_dir():
            return folder / ".claude" / "settings.json"
    for folder in (here, *here.parents):
        if (folder / ".git").exists():
            return folder / ".claude" / "settings.json"
    return here / ".claude" / "settings.json"


def session_folder(settings_file: str | os.PathLike[str]) -> Path | None:
    """The folder Claude Code runs the hooks of ``settings_file`` from (the project holding its
    ``.claude`` folder), where a hook without ``--vault`` looks upward for the vault; None for
    a settings file outside any ``.claude`` folder."""
    path = Path(settings_file).expanduser().resolve()
    return path.parent.parent if path.parent.name == ".claude" else None


def install(settings_file: str | os.PathLike[str], *, project: str | None = None, vault: str | None = None,
            write: bool = True, uninstall: bool = False) -> tuple[dict[str, Any], Path, bool]:
    """Merge our hooks into ``settings_file`` (created when missing), or take them out of it
    (``uninstall``); write it unless told not to, or unless nothing changes. Returns the new
    settings, the file, and whether anything changed."""
    path = Path(settings_file)
    current: Any = {}
    again = "uninstall" if uninstall else "install"
    if path.exists():
        try:
            current = json.loads(path.read_text(encoding="utf-8") or "{}")
        except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise VaultError(f"{path}: cannot read it as JSON ({exc}); fix or move it, then {again} again") from exc
        if not isinstance(current, dict):
            raise VaultError(f"{path}: not a JSON object; fix or move it, then {again} again")
    merged = remove(current) if uninstall else merge(current, project, vault)
    changed = merged != current or not (path.exists() or uninstall)
    if write and changed:
        try:
            _write_in_place(path, json.dumps(merged, indent=_indent_of(path), ensure_ascii=False) + "\n")
        except OSError as exc:  # `.claude` a file, a read-only folder: nothing was written
            raise VaultError(f"{path}: cannot write it ({exc.strerror or exc}); fix the path "
                             "or pass --settings FILE, then install again") from exc
    return merged, path, changed


def _indent_of(path: Path) -> int | str:
    """The indent the file is written with (a tab, or so many spaces), so that the team's diff
    of it shows our entries, not every line re-indented (4 spaces had become 2, qa150)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return 2
    found = _FIRST_INDENT.search(text)
    if found is None:
        return 2
    return "\t" if found.group(1).startswith("\t") else len(found.group(1))


_FIRST_INDENT = re.compile(r"^([ \t]+)\S", re.MULTILINE)


def _write_in_place(path: Path, text: str) -> None:
    """Replace the content of ``path`` atomically (never a half-written settings file), as
    the file it is: through a symlink into its target (a settings file kept with dotfiles),
    with its mode (0600 where it holds ``env`` secrets). The new content is never readable
    by more people than the old one was, not even for a moment."""
    target = path.resolve()  # a symlink's target, however many hops; the path itself otherwise
    if path.is_symlink() and not target.parent.is_dir():  # a mistyped dotfiles link: make no folders there
        raise FileNotFoundError(errno.ENOENT, f"it links to {target}, in a folder that does not exist")
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode: int | None = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = None  # a new file: the umask decides, as for any file the person creates
    temporary = target.with_name(target.name + ".vault-engine.tmp")
    temporary.unlink(missing_ok=True)  # one a crash left behind would keep its own mode
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600 if mode is not None else 0o666)
    try:
        if mode is not None:
            os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            fd = -1  # the file object owns it now
            out.write(text)
        os.replace(temporary, target)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        temporary.unlink(missing_ok=True)
        raise
