"""Writing checkpoints: ``vault-engine checkpoint new``.

A checkpoint is written from ``templates/checkpoint.md`` to
``projects/<project>/checkpoints/<UTC timestamp>-<agent>.md``. The template ships inside the
package (``vault_engine/memory/templates/checkpoint.md``, a copy of the repository's
``templates/checkpoint.md`` that a test keeps identical), so an installed CLI finds it; a vault
can point ``[checkpoint] template`` in vault-engine.toml at its own.

Nothing is ever overwritten: the file is created with ``O_EXCL``, and a name already taken (two
agents in the same second) gets ``-2``, ``-3``... Project and agent names are sanitized, and
the folder is checked to resolve inside the vault, so no name or symlink can write elsewhere.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from vault_engine.constants import CONTROL_CHARACTERS, LONE_SURROGATE
from vault_engine.dates import utc_stamp, utc_time
from vault_engine.errors import BadArgument, ConfigError, UnknownRef, VaultError, did_you_mean
from vault_engine.parsing.checkpoints import item_body, item_text, split_reason, without_checkpoint_word
from vault_engine.parsing.fences import CODE, OPEN, TEXT, fence_roles
from vault_engine.retrieval.lookup import lookup_ref, notes_named
from vault_engine.stores.ledger import Ledger
from vault_engine.text import as_named, shortened

TEMPLATE_NAME = "checkpoint.md"
TITLE_CHARS = 72
_PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")
_UNSAFE = {"project": re.compile(r"[^\w .-]+"), "agent": re.compile(r"[^\w.-]+")}
_HEADING_LIKE = re.compile(r"^(\s*)#", re.MULTILINE)
_SETEXT_UNDERLINE = re.compile(r"^( {0,3})(=+|-+)[ \t]*$")
_FENCE_RUN = re.compile(r"`+|~+")


@dataclass(frozen=True, slots=True)
class CheckpointDraft:
    """What an agent hands over; becomes one checkpoint note."""

    project: str
    agent: str
    summary: str = ""
    next_steps: tuple[str, ...] = ()
    failed: tuple[tuple[str, str | None], ...] = ()  # (approach, reason)
    links: tuple[str, ...] = ()  # wikilink targets, e.g. "specs/auth#Token refresh"
    decision: str = ""  # what was chosen: its ## Decision, "Chosen instead" of its Failed items


def sanitize_name(value: str, what: str) -> str:
    """A project or agent name safe as one path segment: letters, digits, ``_ . -`` (and
    spaces in project names); anything else becomes ``-``. Never empty, never ``..``."""
    cleaned = _UNSAFE[what].sub("-", as_named(str(value).strip()))  # "café" typed decomposed is "café"
    cleaned = re.sub(r"-{2,}", "-", cleaned).strip(" .-")[:64].strip(" .-")
    if not cleaned:
        raise VaultError(f"--{what} {value!r} has no usable characters: use letters, digits, "
                         "'.', '_' or '-'")
    return cleaned


def parse_failed(value: str) -> tuple[str, str | None]:
    """``--failed "approach -- reason"`` -> (approach, reason)."""
    text, reason = split_reason(" ".join(value.split()))
    if not text or re.match(r"(?:—|–|--)(?:\s|$)", text):  # " -- only reason": the approach is missing
        raise VaultError(f"the failed item {value!r} names no approach: write \"approach -- reason\"")
    return text, reason


DRAFT_KEYS = ("summary", "decision", "next", "failed", "links")


def draft_from_json(data: Any, project: str, agent: str) -> CheckpointDraft:
    """``{"summary", "decision", "next": [], "failed": [{"text", "reason"}], "links": []}`` from
    stdin; each malformed field is named in the error."""
    if not isinstance(data, dict):
        raise VaultError("a checkpoint draft expects a JSON object like {\"summary\": \"...\", \"decision\": \"...\", "
                         '"next": [], "failed": [{"text": "...", "reason": "..."}], "links": []}')
    _only_fields(data, DRAFT_KEYS, "a checkpoint field")
    summary, decision = (_text_field(data, key) for key in ("summary", "decision"))
    failed = failed_items(_list_field(data, "failed"))
    return CheckpointDraft(project, agent, summary, _strings(data, "next"), failed, _strings(data, "links"), decision)


def _text_field(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key) or ""
    if not isinstance(value, str):
        raise VaultError(f"the checkpoint's {key} must be a string")
    return value


def failed_item(item: Any) -> tuple[str, str | None]:
    """One Failed item: ``"approach -- reason"`` or ``{"text": ..., "reason": ...}``."""
    if isinstance(item, str):
        return parse_failed(item)
    if isinstance(item, dict):  # a typo ("reasn") had dropped the reason, the point of the record (qa70)
        _only_fields(item, ("text", "reason"), "a field of a failed item")
    if isinstance(item, dict) and isinstance(item.get("text"), str) and item["text"].strip():
        reason = item.get("reason")
        if reason is not None and not isinstance(reason, str):  # ["a"] had been written as "['a']" (qa137)
            raise VaultError("the reason of a failed item of a checkpoint must be a string")
        return " ".join(item["text"].split()), " ".join(reason.split()) if reason else None
    raise VaultError('each failed item of a checkpoint must be {"text": "...", "reason": "..."} or a string')


def _only_fields(data: Mapping[str, Any], known: Sequence[str], what: str) -> None:
    """Refuse a key that is none of ``known``, naming the one it resembles: a typo ("summry")
    would otherwise drop the text it carries."""
    unknown = sorted(set(map(str, data)) - set(known))
    if unknown:
        raise VaultError(f"{unknown[0]!r} is not {what}{did_you_mean(unknown[0], known)}: use {', '.join(known)}")


def _list_field(data: Mapping[str, Any], key: str) -> list:
    """A list field; one string is that one item, as the MCP tool takes it (a lone next step
    had been refused here alone, qa140)."""
    value = data.get(key) or []
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list):
        raise VaultError(f"the checkpoint's {key} must be a list (or one string)")
    return value


def _strings(data: Mapping[str, Any], key: str) -> tuple[str, ...]:
    items = _list_field(data, key)
    if not all(isinstance(i, str) for i in items):
        raise VaultError(f"the checkpoint's {key} must be a list of strings")
    return tuple(" ".join(i.split()) for i in items if i.strip())


def load_template(root: Path, table: Mapping[str, Any]) -> str:
    """``[checkpoint] template`` (a path relative to the vault) or the packaged template."""
    configured = table.get("template")
    if configured is None:
        from importlib import resources  # 10 ms: only when a checkpoint is written

        return resources.files("vault_engine.memory").joinpath("templates", TEMPLATE_NAME).read_text("utf-8")
    if not isinstance(configured, str):
        raise ConfigError("checkpoint.template must be a path to a Markdown file")
    path = (root / configured).expanduser()
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"checkpoint.template {path}: cannot read it ({exc}); fix the path or "
                          "remove the key to use the built-in template") from exc


def render_checkpoint(template: str, draft: CheckpointDraft, now: float) -> str:
    """Fill the template's ``{{fields}}`` in one pass (values are never re-scanned)."""
    created = utc_time(now, "")
    if draft.decision.strip() and "{{decision}}" not in template:  # it would be lost without a word
        raise ConfigError("the checkpoint template has no {{decision}}: add it on a line of its own where the "
                          "## Decision section goes, or put the decision in the summary")
    decision = contained(draft.decision)
    values = {
        "project": draft.project, "agent": draft.agent, "created": created,
        "title": checkpoint_title(draft),
        "summary": contained(draft.summary),
        "decision": f"## Decision\n{decision}\n" if decision else "",  # no empty heading without one
        "next": "\n".join(f"- {step}" for step in draft.next_steps),
        "failed": "\n".join(f"- {text}" + (f"\n  - Reason: {reason}" if reason else "")
                            for text, reason in draft.failed),
        "links": "\n".join(f"- [[{link}]]" for link in draft.links),
    }
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), template)


def contained(text: str) -> str:
    """A summary or decision as text that stays inside its section: a line starting with "#"
    or underlined with "===" / "---" would become a heading (even a fake "## Failed"), and a
    code fence or an HTML comment left open would swallow the Next and Failed lists below it
    (qa156). Each is escaped outside code, or the fence closed; the words stay the user's."""
    lines = text.strip().split("\n")
    roles = list(fence_roles(lines))
    last_close = max((i for i, role in enumerate(roles) if role == TEXT and "-->" in lines[i]), default=-1)
    for i, (line, role) in enumerate(zip(lines, roles)):
        if role != TEXT:
            continue
        underline = _SETEXT_UNDERLINE.match(line)
        if underline and i and roles[i - 1] == TEXT and lines[i - 1].strip():
            line = f"{underline.group(1)}\\{line[underline.end(1):]}"
        if i >= last_close:  # a comment no later "-->" closes runs to the note's end
            head, closing, tail = line.rpartition("-->") if i == last_close else ("", "", line)
            line = head + closing + tail.replace("<!--", "<\\!--")
        lines[i] = _HEADING_LIKE.sub(r"\1\\#", line)
    if roles and roles[-1] in (OPEN, CODE):
        opening = next(line for line, role in zip(reversed(lines), reversed(roles)) if role == OPEN)
        indent = opening[:len(opening) - len(opening.lstrip())]  # in a list item, the item's: at column 0
        # the close had ended the item and opened a fence of its own (qa161)
        lines.append(indent + _FENCE_RUN.match(opening.strip()).group())  # type: ignore[union-attr]
    return "\n".join(lines)


def checkpoint_title(draft: CheckpointDraft) -> str:
    """The summary's first sentence (else the decision's), shortened; else who checked in."""
    opening = draft.summary.strip() or draft.decision.strip()
    first = re.split(r"(?<=[.!?])\s|\n", opening, maxsplit=1)[0].strip().rstrip(".")
    if not first:
        return f"{draft.agent} on {draft.project}"
    first = without_checkpoint_word(first.lstrip("#").strip())
    # the title is a heading line: a comment it leaves open hides the note's Failed list (qa161)
    return shortened(first, TITLE_CHARS).replace("<!--", "<\\!--")


def checkpoint_folder(root: Path, projects_dir: str, project: str) -> Path:
    """``projects/<project>/checkpoints``, proven to resolve inside the vault, then created
    (created first, a symlink out of the vault had gained a folder before the refusal, qa137)."""
    projects = root / projects_dir
    # the project's folder as it is on disk: one written decomposed ("café" from macOS) is the
    # project's, and a second folder beside it had split its history (qa161)
    named = project if (projects / project).is_dir() or not projects.is_dir() else next(
        (d.name for d in projects.iterdir() if as_named(d.name) == project and d.is_dir()), project)
    folder = projects / named / "checkpoints"
    real_root, real = root.resolve(), folder.resolve()
    if real != real_root and real_root not in real.parents:
        raise VaultError(f"{folder} resolves to {real}, outside the vault (a symlink?): "
                         "refusing to write a checkpoint there")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def write_new(folder: Path, stem: str, text: str) -> Path:
    """Create ``stem.md`` (else ``stem-2.md``...) exclusively: an existing note is never
    touched, and two writers in the same second both get a file. A file that could not be
    written whole is removed: a text that failed to encode had left an empty note (qa137)."""
    data = text.encode("utf-8")
    for n in range(1, 1000):
        path = folder / (f"{stem}.md" if n == 1 else f"{stem}-{n}.md")
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            continue
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
        except BaseException:
            path.unlink(missing_ok=True)
            raise
        return path
    raise VaultError(f"{folder}: 999 checkpoints named {stem}*.md already; wait a second and retry")


def write_checkpoint(root: Path, projects_dir: str, draft: CheckpointDraft, template: str,
                     now: float) -> str:
    """Write the checkpoint note; returns its vault-relative path."""
    stamp = utc_stamp(now)
    folder = checkpoint_folder(root, projects_dir, draft.project)
    path = write_new(folder, f"{stamp}-{draft.agent}", render_checkpoint(template, draft, now))
    return path.relative_to(root).as_posix()


def link_target(path: str, heading: str | None) -> str:
    """A wikilink target for a note path: ``specs/auth#Token refresh``."""
    stem = path[:-3] if path.lower().endswith(".md") else path
    return f"{stem}#{heading}" if heading else stem


def _link_name(ledger: Ledger, path: str) -> str:
    """A note by its name alone when no other note has it, as Obsidian writes links: a path
    goes stale when a teammate moves the note, and resume then lost the linked spec (qa25
    #7). A source file keeps its path: `core.py` names many files."""
    name = path.rsplit("/", 1)[-1]
    return name if path.lower().endswith(".md") and ledger.count_named(name) == 1 else path


def _named(ledger: Ledger, ref: str) -> list[str]:
    """The notes a bare name names (``auth-sessions#Token refresh``, as a wikilink names
    them), each with the ref's heading; none for a path. "--link [[auth-sessions]]" was written
    with a warning that it named no note, though Obsidian resolves it (qa30 F10)."""
    name, hash_, heading = ref.partition("#")
    if "/" in name or not name.strip():
        return []
    return [f"{path}{hash_}{heading}" for path in notes_named(ledger, name)]


def failed_items(values: Sequence[Any]) -> tuple[tuple[str, str | None], ...]:
    """Every ``--failed`` argument (or MCP / ``--from-json`` item) parsed."""
    return tuple(failed_item(v) for v in values)


def _refuse_control(draft: CheckpointDraft) -> None:
    """A NUL or another control character would make the note unreadable as text (the indexer
    would then skip it as binary): refuse it, naming the field."""
    fields = [("summary", draft.summary), ("decision", draft.decision), *(("next step", s) for s in draft.next_steps),
              *(("failed item", f"{t} {r or ''}") for t, r in draft.failed), *(("link", link) for link in draft.links),
              ("project", draft.project), ("agent", draft.agent)]
    for name, value in fields:
        found = CONTROL_CHARACTERS.search(value) or LONE_SURROGATE.search(value)
        if found:
            what = "half of a UTF-16 pair (a lone surrogate)" if LONE_SURROGATE.match(found.group()) \
                else "the control character"
            raise VaultError(f"the checkpoint's {name} holds {what} U+{ord(found.group()):04X}: "
                             "remove it (a note must be plain text)")


def _refuse_a_path(project: str) -> None:
    """A project given as a path (``projects/hostile``, an absolute path, ``../../etc``) names no
    project: it had started one named ``projects-hostile`` with a notice an agent does not read,
    and the hand-off never showed in the real project's brief (qa195). ``./hostile`` is its name."""
    given = project.strip()
    parts = [part for part in re.split(r"[/\\]+", given.removeprefix("./")) if part not in ("", ".", "..")]
    if len(parts) > 1 or given.startswith(("/", "\\", "..")):
        raise VaultError(f"--project takes a project's name, not a path ({given!r}): pass --project "
                         f"{shlex.quote(parts[-1]) if parts else 'NAME'} (the folder under projects/)")


def _namesake_project(project: str, known: list[str]) -> str | None:
    """A known project that differs from ``project`` only in case, spaces, hyphens or
    underscores, when ``project`` itself is not known."""
    def plain(name: str) -> str:
        return re.sub(r"[\s_-]+", "", name).casefold()

    if project in known:
        return None
    return next((name for name in known if plain(name) == plain(project)), None)


def _note_name(ledger: Ledger | None, ref: str) -> str | None:
    """The name a wikilink gives the note ``ref`` names, or None when it names none."""
    if ledger is None:
        return None
    try:
        note, _ = lookup_ref(ledger, ref)
    except UnknownRef:
        return None
    return _link_name(ledger, note.path)


def prepare_draft(draft: CheckpointDraft, ledger: Ledger | None) -> tuple[CheckpointDraft, list[str]]:
    """Sanitize the names and turn ``--link`` refs into wikilink targets of the notes they name
    (``notion://`` refs too); each change the user did not write comes back as a notice."""
    _refuse_control(draft)
    if not (draft.summary.strip() or draft.decision.strip() or draft.next_steps or draft.failed):
        # it would become the project's latest and hide the real hand-off from resume
        raise BadArgument("a checkpoint needs a summary, a decision, a next step or a failed approach: "
                          "pass --summary, --decision, --next or --failed")
    _refuse_a_path(draft.project)
    project, agent = sanitize_name(draft.project, "project"), sanitize_name(draft.agent, "agent")
    notices = [f"--{what} {given!r} was written as {used!r}" for what, given, used in
               (("project", draft.project, project), ("agent", draft.agent, agent)) if as_named(given.strip()) != used]
    namesake = _namesake_project(project, ledger.projects() if ledger is not None else [])
    if namesake:  # "Report Export" for report-export started a second project silently; a notice
        # beside it went unread by an agent, and resume of either never showed the other's (qa98)
        raise VaultError(f"no project is named {project!r}, but {namesake!r} is: pass --project {namesake} to "
                         "continue it (a project named but for case, spaces or hyphens like another would split "
                         "its history in two)")
    targets = []
    for ref in draft.links:
        ref = ref.strip()
        if ref.startswith("[[") and ref.endswith("]]"):  # written as the wikilink itself
            ref = ref[2:-2]
        if "[[" in ref or "]]" in ref:  # would end the wikilink early and write a broken one
            raise VaultError(f"the link {ref!r} holds [[ or ]]: give a ref such as specs/auth.md#Token refresh")
        named = _named(ledger, ref) if ledger is not None else []
        try:
            if ledger is None:
                raise UnknownRef(ref)
            note, section = lookup_ref(ledger, named[0] if len(named) == 1 else ref)
            block = ref.rpartition("#^")[2] if "#^" in ref else None  # a block by its id, as `show` names it (qa161)
            targets.append(link_target(_link_name(ledger, note.path),
                                       f"^{block}" if block else section.ref_heading if section else None))
        except UnknownRef as missed:
            base, _, heading = ref.partition("#")
            name = _note_name(ledger, base) if heading and len(named) < 2 else None
            if name is not None:  # the note is there, its heading is not: said so, and the link names the note (qa94)
                target = link_target(name, heading)
                notices.append(f"the link {ref!r}: {missed}; written as [[{target}]] anyway")
                targets.append(target)
                continue
            what = f"names {len(named)} notes ({', '.join(named[:3])}): give its path" if len(named) > 1 \
                else "names no note in the index"
            notices.append(f"the link {ref!r} {what}; written as [[{ref}]] anyway")
            targets.append(link_target(ref.strip().removeprefix("./"), None))
    # a step given as a list item ("- validate schema drift") was written "- - validate ..."
    # (qa51); its checkbox stays: "- [x] done" is a step ticked off (qa59)
    steps = tuple(item_body(step) for step in draft.next_steps)
    failed = tuple((item_text(text), reason) for text, reason in draft.failed)
    return replace(draft, project=project, agent=agent, links=tuple(targets), next_steps=steps,
                   failed=failed), notices

