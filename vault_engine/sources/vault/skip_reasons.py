"""Why a file or folder is skipped by a scan, in the words both scans use: the notes' scan
(sources/vault/files.py) and the code taps' (sources/code/files.py). Kept apart so that the
code commands, which stat the code taps, never load the notes' scan."""

from __future__ import annotations

import errno
import os
from pathlib import Path

from vault_engine.model import SkippedFile

LOOP = "symlink loop: the link leads back to itself and never reaches a file; point it at a file or remove it"


def folder_reason(verb: str, exc: OSError) -> str:
    """Why a folder's files are skipped: it cannot be opened or listed (``verb``)."""
    if isinstance(exc, PermissionError):
        return f"cannot {verb} folder: permission denied: make the folder readable to index what it holds"
    return f"cannot {verb} folder: {exc.strerror or exc}"


def misnamed(path: str, what: str) -> SkippedFile | None:
    """A file or folder (``what``) whose name is not valid UTF-8, skipped: Python holds the
    bytes it cannot decode as lone surrogates, which no UTF-8 store or output takes. It is
    named by its bytes written as escapes (``bad\\xffname.md``)."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        shown = os.fsencode(path).decode("utf-8", "backslashreplace")
        return SkippedFile(shown, f"{what} name is not valid UTF-8: rename it")
    return None


def is_symlink_loop(path: Path) -> bool:
    """True when following ``path`` never ends (links pointing at each other): it resolves
    nowhere, so it is neither inside the vault nor outside it."""
    try:
        os.stat(path)
    except OSError as exc:
        return exc.errno == errno.ELOOP
    return False
