"""The error tree. Every message says what happened and what to do about it."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

MAX_MESSAGE_CHARS = 1000  # an error quoting a 1 MB argument back was a 1 MB error


def one_line(message: str) -> str:
    """An error message as one line, its middle cut when it quotes something huge back (the
    start says what is wrong, the end what to do)."""
    line = " ".join(message.split())
    if len(line) <= MAX_MESSAGE_CHARS:
        return line
    cut = len(line) - MAX_MESSAGE_CHARS
    keep = MAX_MESSAGE_CHARS // 2
    return f"{line[:keep]} … ({cut:,} characters cut) … {line[-keep:]}"


class VaultError(Exception):
    """Root of every error vault-engine raises on purpose; the CLI prints it in one line.

    ``argument`` names the operation's argument at fault, when one is (``into``): the message
    says what is wrong in the library's words, and each shell names the argument its own way
    (the CLI by its flag, ``--into``)."""

    exit_code = 1

    def __init__(self, *args: object, argument: str | None = None):
        super().__init__(*args)
        self.argument = argument


class VaultNotFound(VaultError):
    """The vault folder does not exist or is not a folder."""


class ConfigError(VaultError):
    """vault-engine.toml is invalid; the message names the key."""


class UnknownRef(VaultError):
    """A ref names no note or section in the index."""


class AttachmentRef(UnknownRef):
    """A ref names an attachment (an image, a PDF, a ``.base``): indexed, but no note."""

    def __init__(self, message: str, path: str = ""):  # rebuilt from the daemon by its message alone
        super().__init__(message)
        self.path = path


class NoSuchSection(UnknownRef):
    """A ref's note is indexed, but not the ``#heading`` or ``#^block`` it names."""

    def __init__(self, message: str, path: str = ""):
        super().__init__(message)
        self.path = path


class UnknownProject(VaultError):
    """A project name matches no project in the vault."""


class BadArgument(VaultError):
    """An argument no call can work with (``k`` of 0, a negative depth): a usage error."""

    exit_code = 2


class UnknownKind(VaultError):
    """A kind name is not one of the kinds notes can have."""


class IndexMissing(VaultError):
    """The index has not been built yet."""


class IndexBusy(VaultError):
    """Another process holds the writer lock for too long."""


class IndexDamaged(VaultError):
    """A file under ``.vault-engine/index/`` is unreadable or was changed behind our back.
    Everything there is derived: ``vault-engine index`` repairs it."""


class VectorsDamaged(IndexDamaged):
    """``vectors.faiss`` cannot be used: FAISS cannot read it, or what it reads is not the
    unit-length vectors we write. ``reason`` says which, in a few words."""

    def __init__(self, path: object, reason: str):
        super().__init__(f"the vector index {path} is damaged ({reason}): run `vault-engine index`, "
                         "which rebuilds it from the vector cache")
        self.reason = reason


class IndexFromNewerRelease(VaultError):
    """The index was written by a newer vault-engine than this process (a watcher or TUI
    started before an upgrade). Dropping it as "another version" would throw away the newer
    process's work, and each would rebuild over the other: it is left as it is."""


def not_utf8(data: bytes, exc: UnicodeDecodeError) -> str:
    """Where bytes stop being UTF-8, as a person finds it in an editor (not Python's "can't
    decode byte 0xe9 in position 5: invalid continuation byte")."""
    line = data[:exc.start].count(b"\n") + 1
    return f"not UTF-8 (byte 0x{data[exc.start]:02x} on line {line})"


def from_newer_release(where: object, what: str) -> IndexFromNewerRelease:
    return IndexFromNewerRelease(
        f"the index in {where} was written by a newer vault-engine ({what}): this process is older "
        "and leaves it as it is; a watcher or TUI started before an upgrade must be started again "
        "(`vault-engine watch --stop`, then `vault-engine watch`)")


class IndexNotWritable(VaultError):
    """The index folder cannot be written (a read-only vault, another user's files)."""


def not_writable(path: object) -> IndexNotWritable:
    """The one line for a file this process may not write (most often in the index folder)."""
    from vault_engine.layout import STATE_DIR  # imports nothing itself

    where = (f" vault-engine keeps its index in the vault's {STATE_DIR} folder, which must be writable "
             "by this user" if STATE_DIR in str(path) else " Make its folder writable by this user, and run the "
             "command again")  # a checkpoint into a `chmod 555` folder had said no more than "denied" (qa137)
    return IndexNotWritable(f"cannot write {path}: permission denied.{where} (nothing of yours was changed)")


def under_size_limit(exc: BaseException) -> bool:
    """Whether a failed write may be this process's file-size limit (``ulimit -f``): SQLite
    says only "disk I/O error" of it, which had read as damage (qa97)."""
    import resource

    limit = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    return limit != resource.RLIM_INFINITY and "disk I/O error" in str(exc)


def write_refused(exc: BaseException) -> VaultError | None:
    """The one line for a write the system refuses though nothing is wrong with the index: a
    read-only file system (a read-only mount of the vault), or a file over this process's size
    limit (``ulimit -f``); None for any other failure. Both had raised a traceback (qa97)."""
    import errno

    if under_size_limit(exc):
        return over_size_limit("an index file (SQLite names none)")
    if not isinstance(exc, OSError) or exc.errno not in (errno.EROFS, errno.EFBIG):
        return None
    path = os.fsdecode(exc.filename) if isinstance(exc.filename, (str, bytes, os.PathLike)) else "a file"
    if exc.errno == errno.EROFS:
        return IndexNotWritable(f"cannot write {path}: the file system is read-only; commands that only read "
                                "(search, show, resume, deadend, status) answer from the index already there, if "
                                "one is (nothing of yours was changed)")
    return over_size_limit(path)


def over_size_limit(path: object) -> IndexNotWritable:
    """The one line for a write past this process's file-size limit."""
    return IndexNotWritable(f"cannot write {path}: the file is over this process's file-size limit (`ulimit -f`); "
                            "raise the limit and run the command again (nothing of yours was changed, and the "
                            "index stays usable: what this run finished is kept, the next run does the rest)")


class NotReadable(VaultError):
    """A file vault-engine reads (a note, vault-engine.toml) is not readable by this user."""


def permission_denied(path: object) -> VaultError:
    """The one line for a PermissionError on ``path``, read or write as it was: a file that is
    there but that this user may not read (or that sits in a folder this user may not enter)
    was being read; else it was being written or made (:func:`not_writable`)."""
    if isinstance(path, (str, os.PathLike)) and _unreadable(path):
        return NotReadable(f"cannot read {path}: permission denied: make it readable by this user "
                           "(nothing of yours was changed)")
    return not_writable(path)


def wrong_kind(exc: FileExistsError | NotADirectoryError | IsADirectoryError) -> VaultError:
    """The one line for a file where a folder is needed, or a folder where a file is (a
    `touch .vault-engine`, a `mkdir` over a lock file): it names the one in the way, not the
    path asked for, which may lie under it; it moves nothing (qa60: a traceback)."""
    path = Path(os.fsdecode(exc.filename)) if isinstance(exc.filename, (str, bytes, os.PathLike)) else None
    if path is None:
        return VaultError(f"{exc.strerror or exc}: run the command again with --debug to see where")
    if isinstance(exc, IsADirectoryError):
        return VaultError(f"{path} is a folder where vault-engine keeps a file: move it aside (what is in it "
                          "stays yours) and run the command again")
    in_the_way = next((p for p in (*reversed(path.parents), path) if p.exists() and not p.is_dir()), path)
    return VaultError(f"{in_the_way} is a file where vault-engine keeps a folder: move it aside (it stays "
                      "yours) and run the command again")


def _unreadable(path: str | os.PathLike[str]) -> bool:
    try:
        os.stat(path)
    except PermissionError:
        return True  # a folder above it may not be entered
    except OSError:
        return False  # not there: it was being made
    return not os.access(path, os.R_OK)


class DiskFull(VaultError):
    """A write failed for want of space; nothing is damaged."""


def disk_full(exc: BaseException, path: object = None) -> bool:
    """Whether ``exc`` says the disk is full: the file system's ENOSPC or quota, SQLite's
    own "database or disk is full" (it names no errno), or its "disk I/O error" on a file
    system with no space left (``path``): a WAL database cannot even be read then, and that
    read as damage, whose repair failed the same way (qa44)."""
    import errno

    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    if type(exc).__name__ != "OperationalError":
        return False
    if "disk is full" in str(exc):
        return True
    return "disk I/O error" in str(exc) and path is not None and no_space_left(path)


def no_space_left(path: object) -> bool:
    """Whether the file system holding ``path`` (or its nearest folder that exists) is full."""
    if not isinstance(path, (str, os.PathLike)):
        return False
    folder = str(os.fspath(path))
    while folder and not os.path.isdir(folder):
        folder = os.path.dirname(folder)
    try:
        return bool(folder) and os.statvfs(folder).f_bavail == 0
    except OSError:
        return False


def disk_is_full(path: object) -> DiskFull:
    """The one line for a write that found the disk full."""
    where = f" writing {path}" if path else ""
    return DiskFull(f"the disk is full{where}: free some space and run the command again "
                    "(nothing is damaged; nothing of yours was changed)")


class ModelUnavailable(VaultError):
    """The embedding model cannot be loaded (package missing, folder broken, disabled)."""


class NotionError(VaultError):
    """A Notion import or sync failed in a way the user can act on."""


def did_you_mean(typed: str, known: Iterable[str]) -> str:
    """`` (did you mean X?)`` for the known name a slip of ``typed`` most resembles, else "":
    one wording for a setting, a checkpoint field and a project."""
    import difflib

    names = {name.casefold(): name for name in reversed(list(known))}  # the first of a folded pair
    close = difflib.get_close_matches(typed.casefold(), list(names), n=1)  # `NFT-Proxy` too (qa179)
    return f" (did you mean {names[close[0]]}?)" if close else ""
