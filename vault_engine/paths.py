"""Vault-relative paths and the glob dialect used in vault-engine.toml.

Globs: ``**`` matches any run of folders (including none), ``*`` and ``?`` stay within one
path segment, everything else is literal. Matching is case-sensitive, like the file system.
"""

from __future__ import annotations

import errno
import re
import stat
import unicodedata
from functools import lru_cache
from pathlib import Path

from vault_engine.layout import STATE_DIR

# Folders that are never indexed, whatever the config says (every one hidden: see is_hidden).
IGNORED_DIRS = frozenset({".obsidian", ".git", STATE_DIR, ".trash"})


def make_state_folder(folder: Path) -> None:
    """``folder`` and its missing parents, but never the vault that holds its ``.vault-engine``:
    a watcher's write in flight when the vault was moved or deleted had made the old path
    again, a folder of index files alone (qa137); nor ``.vault-engine`` itself on the way to a
    folder inside it: removed under a watcher's batch, it had come back holding an empty
    ``index/`` (qa198). FileNotFoundError names the vault, or the state folder, then."""
    parts = folder.parts
    if STATE_DIR in parts:
        at = parts.index(STATE_DIR)
        vault, state = Path(*parts[:at]), Path(*parts[:at + 1])
        if not vault.is_dir():
            raise FileNotFoundError(errno.ENOENT, "the vault folder is gone (moved or deleted)", str(vault))
        if len(parts) > at + 1 and not state.is_dir():
            raise FileNotFoundError(errno.ENOENT, "the vault's state folder was removed", str(state))
    folder.mkdir(parents=True, exist_ok=True)


def special_file(mode: int) -> str:
    """What a path that is no regular file nor folder is, by its ``st_mode``: reading a named
    pipe waits for a writer forever."""
    return ("a named pipe (FIFO)" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "a device")


def not_a_file(path: Path) -> str | None:
    """What ``path`` is when it is there but no regular file (``a folder``, ``a named pipe
    (FIFO)``, a link to nothing...), following links; None for a file, or nothing there."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return "a link that leads nowhere (dangling, or a loop)" if path.is_symlink() else None
    return None if stat.S_ISREG(mode) else "a folder" if stat.S_ISDIR(mode) else special_file(mode)


def read_side_file(path: Path, errors: str = "strict") -> str:
    """The UTF-8 text of a file read beside what is indexed (a record's ``kep.yaml``, a
    ``.gitignore``, a ``go.mod``); OSError when it is no regular file: a named pipe of that name
    had stopped ``index`` and ``status`` forever, waiting for a writer (qa172)."""
    what = not_a_file(path)
    if what is not None:
        raise OSError(errno.EINVAL, f"is {what}", str(path))
    return path.read_text(encoding="utf-8", errors=errors)


def is_hidden(name: str) -> bool:
    """Obsidian leaves out every file and folder whose name starts with a dot (``.obsidian``,
    ``.git``, ``.github``, an editor's ``.#note.md`` lock, ``.DS_Store``): so does the vault's
    scan, silently (an emacs lock is a symlink to nowhere, reported as broken on every run)."""
    return name.startswith(".")


def is_left_out_file(name: str) -> bool:
    """A file the scan leaves out by its name: hidden (:func:`is_hidden`), or a backup or
    autosave an editor writes beside the note (vim's and emacs' ``note.md~``, emacs'
    ``#note.md#``): not the user's work, so not an attachment that links resolve to; leaving
    them out also keeps a save from touching the attachment list."""
    return is_hidden(name) or name[-1:] == "~" or (len(name) > 1 and name[0] == "#" and name[-1] == "#")


_WILDCARDS = re.compile(r"\*\*/?|\*|\?")


@lru_cache(maxsize=512)
def glob_regex(pattern: str) -> re.Pattern[str]:
    """Compile one glob to a regex over POSIX vault-relative paths."""
    parts: list[str] = []
    pos = 0
    for match in _WILDCARDS.finditer(pattern):
        parts.append(re.escape(pattern[pos:match.start()]))
        token = match.group()
        if token == "**/":
            parts.append("(?:.*/)?")
        elif token == "**":
            parts.append(".*")
        elif token == "*":
            parts.append("[^/]*")
        else:
            parts.append("[^/]")
        pos = match.end()
    parts.append(re.escape(pattern[pos:]))
    return re.compile("".join(parts) + r"\Z")


def glob_match(pattern: str, path: str) -> bool:
    """True when the vault-relative ``path`` matches ``pattern``."""
    return glob_regex(pattern).match(path) is not None


def glob_specificity(pattern: str) -> int:
    """How specific a rule is: the number of literal characters in it."""
    return len(_WILDCARDS.sub("", pattern))


def glob_example(pattern: str) -> str:
    """A path that the pattern matches, used to detect overlapping rules."""
    return _WILDCARDS.sub(lambda m: "x/" if m.group() == "**/" else "x", pattern)


def is_note(path: str) -> bool:
    """A note (``.md``, any case), not an attachment or a code tap's source file: the one test
    the scan, the ledger's rows, the code tap and ``status`` count by (``NOTES.MD`` had been a
    note to the scan and a changed source file to ``callers``: qa109)."""
    return path.lower().endswith(".md")


def normalize_path(path: str) -> str:
    """``path`` as the index stores it: POSIX separators, no "." or empty components, a ".."
    taken back (``".\\\\src\\\\a.py"`` -> ``"src/a.py"``; ``specs//a.md``, ``specs/./a.md`` and
    ``specs/../specs/a.md`` -> ``specs/a.md``; a ".." leaving the path stays, to be refused);
    "" when nothing is left. A ref typed so had been read as a new file or a hidden one (qa109,
    qa111)."""
    if _is_normal(path):
        return path
    parts: list[str] = []
    for part in path.replace("\\", "/").split("/"):
        if part == ".." and parts and parts[-1] != "..":  # `specs/../specs/a.md`; a leading `..` stays
            parts.pop()
        elif part and part != ".":
            parts.append(part)
    return "/".join(parts)


def _is_normal(path: str) -> bool:
    # Most paths from a walker are clean already; these string tests run at C speed.
    return bool(path) and "\\" not in path and "//" not in path and "/./" not in path and "/.." not in path and not (
        path[0] in "/." or path[-1] == "/" or path.endswith("/."))


def note_stem(rel_path: str) -> str:
    """File name without folder and without ``.md``: the name links use."""
    name = rel_path.rsplit("/", 1)[-1]
    return name[:-3] if name.lower().endswith(".md") else name


def name_key(name: str) -> str:
    """The form in which a link target or a typed ref is compared with file names: Unicode NFC,
    as macOS writes names decomposed (NFD) where a person types them composed, and lower-cased as
    Obsidian does (``casefold`` would turn "ß" into "ss" and match "STRASSE" to "Straße")."""
    return unicodedata.normalize("NFC", name).lower()


def leaves_folder(rel_path: str) -> bool:
    """Whether a path meant to be relative to a folder is absolute or climbs out with ``..``:
    no place inside it (a glob, ``projects_dir``, a ref a user typed)."""
    return rel_path.startswith(("/", "\\")) or ".." in rel_path.replace("\\", "/").split("/")


def parent_dir(rel_path: str) -> str:
    return rel_path.rsplit("/", 1)[0] if "/" in rel_path else ""
