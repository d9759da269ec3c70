"""The code tap's file side: which source files a ``[taps.NAME] source = "code"`` owns, how
their keys are written, and reading one safely. Files are read in place, never copied.

A file's key (its ref's path part) is its path relative to the tap's root when that root is
the vault itself, else ``<tap>:<path relative to the root>``: unambiguous when two code taps
sit side by side, and stable wherever the repository is checked out.
"""

from __future__ import annotations

import os
import re
import stat as stat_module
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vault_engine.config import Config, TapConfig, check_keys
from vault_engine.errors import ConfigError
from vault_engine.paths import IGNORED_DIRS, glob_match, is_note, read_side_file
from vault_engine.sources.code.ignore import (
    IgnoreRule,
    is_ignored,
    parse_gitignore,
    skipped_dir_reason,
    skipped_text_reason,
)
from vault_engine.sources.code.languages import detect_language

if TYPE_CHECKING:  # a query needs the taps' rules, not the scanning side: imported there
    from vault_engine.model import SkippedFile
    from vault_engine.sources.vault.changes import FileStat

CODE_KEYS = ("source", "paths", "half_life_days", "floor", "root", "exclude")


@dataclass(frozen=True, slots=True)
class CodeTap:
    """One code tap, its root resolved."""

    name: str
    root: Path
    prefix: str  # "" when the root is the vault, else "<name>:"
    paths: tuple[str, ...]
    exclude: tuple[str, ...]
    vault_rel: str | None  # the root relative to the vault ("" for the vault), None outside it
    # The vault-wide ``exclude`` globs (relative to the vault), and the root as the vault sees
    # it ("", "repo", or "../repo" outside): "vendor/**" excludes what it says whatever tap
    # reads it, and "**/generated/**" reaches a repository beside the vault too.
    vault_exclude: tuple[str, ...] = ()
    seen_from_vault: str = ""

    @classmethod
    def from_tap(cls, tap: TapConfig, vault_root: Path, vault_exclude: tuple[str, ...] = ()) -> CodeTap:
        """Validate ``[taps.NAME]`` of a code tap; a typo is an error naming the key."""
        where = f"taps.{tap.name}."
        check_keys({"source": 0, "paths": 0, **tap.options}, where, CODE_KEYS)
        raw_root = tap.options.get("root", ".")
        if not isinstance(raw_root, str) or not raw_root.strip():
            raise ConfigError(f"{where}root must be a folder path (relative to the vault), e.g. \"../my-repo\"")
        exclude = tap.options.get("exclude", [])
        exclude = [exclude] if isinstance(exclude, str) else exclude
        if not isinstance(exclude, list) or not all(isinstance(e, str) for e in exclude):
            raise ConfigError(f"{where}exclude must be a list of globs relative to the tap root")
        root = (vault_root / raw_root).resolve() if not Path(raw_root).is_absolute() else Path(raw_root).resolve()
        vault = vault_root.resolve()
        inside = root == vault or root.is_relative_to(vault)
        vault_rel = None if not inside else ("" if root == vault else root.relative_to(vault).as_posix())
        prefix = "" if root == vault else f"{tap.name}:"
        seen = vault_rel if vault_rel is not None else Path(os.path.relpath(root, vault)).as_posix()
        return cls(tap.name, root, prefix, tap.paths, tuple(exclude), vault_rel, tuple(vault_exclude), seen)

    def owns(self, rel: str) -> bool:
        """Whether the root-relative ``rel`` is this tap's: matched by ``paths``, excluded
        neither by the tap's ``exclude`` nor by the vault's, with a language the tap has a
        grammar for."""
        return (detect_language(rel) is not None and any(glob_match(p, rel) for p in self.paths)
                and not self.excluded(rel))

    def excluded(self, rel: str) -> bool:
        """``rel`` (root-relative; a folder ends with ``/``) matches the tap's ``exclude`` or
        the vault's (the latter matched against the path as seen from the vault)."""
        if any(glob_match(e, rel) for e in self.exclude):
            return True
        if not self.vault_exclude:
            return False
        seen = f"{self.seen_from_vault}/{rel}" if self.seen_from_vault else rel
        return any(glob_match(e, seen) for e in self.vault_exclude)

    def claims(self, vault_path: str) -> bool:
        """Whether a file the vault's scan found lies in this tap's paths, matched relative to
        the tap's root (a README in the repository: neither a note nor code)."""
        if self.vault_rel is None:
            return False
        if self.vault_rel:
            if not vault_path.startswith(self.vault_rel + "/"):
                return False
            vault_path = vault_path[len(self.vault_rel) + 1:]
        return any(glob_match(p, vault_path) for p in self.paths)

    def key(self, rel: str) -> str:
        return self.prefix + rel

    def rel_of(self, key: str) -> str | None:
        """The root-relative path of a key of this tap, or None when it is not one."""
        if self.prefix:
            return key[len(self.prefix):] if key.startswith(self.prefix) else None
        return None if is_note(key) or ":" in key.split("/", 1)[0] else key


def code_taps(config: Config) -> list[CodeTap]:
    return [CodeTap.from_tap(t, config.root, config.exclude) for t in config.taps if t.source == "code"]


def tap_of_key(taps: list[CodeTap], key: str) -> tuple[CodeTap, str] | None:
    """The code tap of a ledger path and the path relative to its root, or None for a note."""
    for tap in sorted(taps, key=lambda t: not t.prefix):  # prefixed taps first: unambiguous
        rel = tap.rel_of(key)
        if rel is not None and tap.owns(rel):
            return tap, rel
    return None


def file_of(taps: list[CodeTap], vault: Path, key: str) -> Path:
    """Where a ledger path's file is on disk: in its code tap, else a note of ``vault``."""
    found = tap_of_key(taps, key)
    return found[0].root / found[1] if found else vault / key


@dataclass(slots=True)
class CodeScan:
    files: dict[str, FileStat] = field(default_factory=dict)  # key -> stat
    problems: list[SkippedFile] = field(default_factory=list)  # folders and files skipped, and why
    origin: dict[str, str] = field(default_factory=dict)  # key -> the tap that found it


def scan_code(config: Config, only: set[str] | None = None) -> CodeScan:
    """Every source file of every code tap (or, with ``only``, of those vault-relative paths:
    the watcher's partial scan), by the rules of ignore.py and each tap's globs."""
    from vault_engine.model import SkippedFile

    scan = CodeScan()
    for tap in code_taps(config):
        if not tap.root.is_dir():
            scan.problems.append(SkippedFile(f"taps.{tap.name}", f"root {tap.root} is not a folder: fix root in "
                                             "vault-engine.toml"))
            continue
        found = len(scan.files)
        for start in _starts(tap, only):
            _walk(tap, start, scan)
        if only is None and len(scan.files) == found:  # qa48: a tap of nothing, and not a word said
            globs = ", ".join(f'"{p}"' for p in tap.paths)
            scan.problems.append(SkippedFile(f"taps.{tap.name}", f"paths {globs} match no source file under "
                                             f"{tap.root}: fix paths (globs under root) in vault-engine.toml"))
    return scan


def _starts(tap: CodeTap, only: set[str] | None) -> list[str]:
    """Root-relative folders (or files) to walk: the literal heads of the tap's globs, or
    the watcher's paths that fall inside the root: vault-relative ones, or the tap's keys."""
    if only is None:
        heads = {_literal_head(p) for p in tap.paths}
        return sorted(h for h in heads if not any(h != o and h.startswith(o + "/") for o in heads if o)) \
            if "" not in heads else [""]
    found = []
    for path in only:
        path = path.strip("/")
        if tap.prefix and path.startswith(tap.prefix):  # a key of the tap (the watcher, outside the vault)
            found.append(path[len(tap.prefix):].strip("/"))
        elif tap.vault_rel is None or ":" in path.split("/", 1)[0]:
            continue  # a vault path names nothing of a root outside the vault; another tap's key
        elif tap.vault_rel == "":
            found.append(path)
        elif path == tap.vault_rel or path.startswith(tap.vault_rel + "/"):
            found.append(path[len(tap.vault_rel):].strip("/"))
    return found


def _literal_head(glob: str) -> str:
    parts = []
    for part in glob.split("/")[:-1]:
        if any(ch in part for ch in "*?["):
            break
        parts.append(part)
    return "/".join(parts)


def _walk(tap: CodeTap, start: str, scan: CodeScan) -> None:
    from vault_engine.model import SkippedFile
    from vault_engine.sources.vault.skip_reasons import folder_reason, misnamed

    rules = _rules_above(tap, start)
    first = tap.root / start if start else tap.root
    if first.is_file() or not first.exists():
        if first.is_file() and not _skipped_above(start):
            _visit_file(tap, start, first, rules, scan)
        return
    stack: list[tuple[Path, str, tuple[IgnoreRule, ...]]] = [(first, start, rules)]
    while stack:
        folder, rel, rules = stack.pop()
        rules = rules + _read_gitignore(folder, rel)
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            scan.problems.append(SkippedFile(tap.key(rel or "."), folder_reason("list", exc)))
            continue
        for entry in entries:
            path = f"{rel}/{entry.name}" if rel else entry.name
            if entry.is_dir(follow_symlinks=False):
                if entry.name in IGNORED_DIRS:  # the vault's own (.git, .obsidian, the index): left out
                    continue  # without a word, as the vault's scan does, not "skipped" at every index (qa113)
                reason = _dir_reason(entry, path, rules, tap)
                if reason:
                    scan.problems.append(SkippedFile(tap.key(path) + "/", reason))
                elif not (tap.excluded(path + "/") or tap.excluded(path)):
                    problem = misnamed(tap.key(path), "folder")
                    if problem is None:
                        stack.append((Path(entry.path), path, rules))
                    else:
                        scan.problems.append(problem)
            elif entry.is_symlink() and os.path.isdir(entry.path):  # a link to a folder: said, as a file's is (qa161)
                if not (tap.excluded(path + "/") or tap.excluded(path)):
                    scan.problems.append(SkippedFile(tap.key(path) + "/", SYMLINKED_CODE))
            elif entry.name != ".gitignore":
                _visit_file(tap, path, Path(entry.path), rules, scan)


def _dir_reason(entry: os.DirEntry, path: str, rules, tap: CodeTap) -> str | None:
    reason = skipped_dir_reason(entry.name, os.path.exists(os.path.join(entry.path, "pyvenv.cfg")))
    if reason:
        return f"{reason}: never indexed"
    if is_ignored(rules, path, True):
        return "ignored by .gitignore"
    return None


SYMLINKED_CODE = ("a symbolic link: the code tap reads source files where they are, and what it leads to under "
                  "its own path (a link may lead out of the repository)")


def _visit_file(tap: CodeTap, rel: str, path: Path, rules, scan: CodeScan) -> None:
    from vault_engine.model import SkippedFile
    from vault_engine.sources.vault.changes import FileStat
    from vault_engine.sources.vault.skip_reasons import LOOP, is_symlink_loop, misnamed

    if not tap.owns(rel):
        return
    if path.is_symlink():  # a link may lead out of the repository, or to a file indexed under its own name
        # said, as every skip is: left out without a word, `outline` of it had sent the user to
        # `index` again and again (qa159); one that leads nowhere is a mistake to fix, as a note's is
        scan.problems.append(SkippedFile(tap.key(rel), LOOP if is_symlink_loop(path) else SYMLINKED_CODE))
        return
    problem = misnamed(tap.key(rel), "file")
    if problem is not None:
        scan.problems.append(problem)
        return
    if is_ignored(rules, rel, False):
        scan.problems.append(SkippedFile(tap.key(rel), "ignored by .gitignore"))
        return
    try:
        info = path.stat()
    except OSError:
        return
    if stat_module.S_ISREG(info.st_mode):
        scan.files[tap.key(rel)] = FileStat.of(info)
        scan.origin[tap.key(rel)] = tap.name


def why_left_out(tap: CodeTap, rel: str) -> str | None:
    """Why a scan leaves out the file ``rel`` that ``tap`` owns (a folder above it that is
    never indexed, .gitignore, a name or a link it refuses), or None when it indexes it."""
    parts = rel.split("/")
    for depth in range(1, len(parts)):
        reason = skipped_dir_reason(parts[depth - 1])
        if reason:
            return f"inside {'/'.join(parts[:depth])}/, {reason}: never indexed"
        if (tap.root / "/".join(parts[:depth])).is_symlink():  # its files had been "new since the last index" (qa161)
            return f"inside {'/'.join(parts[:depth])}/, {SYMLINKED_CODE}"
    scan = CodeScan()
    _visit_file(tap, rel, tap.root / rel, _rules_above(tap, rel), scan)
    return scan.problems[0].reason if scan.problems else None


_GO_MODULE = re.compile(r"^\s*module\s+\"?([^\s\"/][^\s\"]*)\"?", re.M)


def go_modules(tap: CodeTap, folders: Iterable[str]) -> dict[str, str]:
    """Module path -> root-relative folder of each ``go.mod`` at or above ``folders`` within
    the tap's root: where an import of an in-repo package leads (``example.com/shop/pricing``
    in the module ``example.com/shop`` of ``src/go.mod`` is ``src/pricing``)."""
    found: dict[str, str] = {}
    seen: set[str] = set()
    for folder in folders:
        parts = [] if folder in ("", ".") else folder.split("/")
        for depth in range(len(parts), -1, -1):
            rel = "/".join(parts[:depth])
            if rel in seen:
                break
            seen.add(rel)
            try:
                text = read_side_file(tap.root / rel / "go.mod", errors="replace")
            except OSError:
                continue
            m = _GO_MODULE.search(text)
            if m:
                found.setdefault(m.group(1), rel)
    return found


def _skipped_above(rel: str) -> bool:
    return any(skipped_dir_reason(part) for part in rel.split("/")[:-1])


def _rules_above(tap: CodeTap, start: str) -> tuple[IgnoreRule, ...]:
    """The .gitignore rules of the root and of every folder between it and ``start``."""
    parts = start.split("/") if start else []
    rules: tuple[IgnoreRule, ...] = ()
    for depth in range(len(parts)):
        rel = "/".join(parts[:depth])
        rules += _read_gitignore(tap.root / rel if rel else tap.root, rel)
    return rules


def _read_gitignore(folder: Path, rel: str) -> tuple[IgnoreRule, ...]:
    try:
        text = read_side_file(folder / ".gitignore", errors="replace")
    except OSError:
        return ()
    return parse_gitignore(text, rel)


def read_code(config: Config, key: str) -> tuple[str, str, FileStat, str, str, str]:
    """(text, content hash, stat, language, root-relative path, tap name) of one source file, or
    :class:`Unreadable` with the reason (too large, binary, not UTF-8, minified, generated)."""
    from vault_engine.sources.vault.files import Unreadable, read_note

    found = tap_of_key(code_taps(config), key)
    if found is None:
        raise Unreadable("no code tap owns this file any more", vanished=True)
    tap, rel = found
    text, digest, stat = read_note(tap.root, rel, config.max_file_bytes, what="source file",
                                   declared=python_coding if rel.endswith((".py", ".pyi")) else None)
    reason = skipped_text_reason(rel.rsplit("/", 1)[-1], text)
    if reason:
        raise Unreadable(reason)
    return text, digest, stat, detect_language(rel) or "", rel, tap.name


def python_coding(data: bytes) -> str | None:
    """The encoding a Python source declares in its first two lines (PEP 263:
    ``# -*- coding: latin-1 -*-``), as Python reads it; None when it declares none."""
    import io
    import tokenize

    try:
        encoding, read = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:  # a declaration Python does not know
        return None
    return encoding if read and any(b"coding" in line for line in read) else None


def describe(taps: list[CodeTap]) -> list[dict[str, Any]]:
    return [{"tap": t.name, "root": str(t.root), "prefix": t.prefix, "paths": list(t.paths)} for t in taps]
