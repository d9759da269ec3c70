"""The daemon protocol: one JSON object per line over a Unix socket, one request per connection.

Request: ``{"v": 1, "op": "search", "args": [...], "kwargs": {...}}``
Reply:   ``{"v": 1, "ok": true, "result": ..., "ms": 3.1}``
     or  ``{"v": 1, "ok": false, "error": {"kind": "vault"|"busy"|"protocol"|"internal",
          "type": "UnknownRef", "message": "...", "exit_code": 1}}``

An op is a :class:`~vault_engine.vault.Vault` method run by name (:data:`OPS`), so a method
that lands later (``resume``, ``deadend_check``) is served by adding one row. Arguments and
results cross the socket through a small codec that keeps Python types (dataclasses, tuples,
sets, non-string dict keys): the client gets back the very objects the Vault returned and
renders them with the same code as in-process, which is why the output is byte-identical.

Kept light on purpose: the CLI imports this on every routed call (no vault, no stores).
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from vault_engine.errors import VaultError
from vault_engine.operations import OPERATIONS

PROTOCOL_VERSION = 1
MAX_REQUEST_BYTES = 1 << 20

# Protocol op -> the Vault method that answers it, for the reads of the operations table:
# the op is the method's name with dots ("deadend.check"; callers and callees are both
# "calls"). Reads only: writes go through the watcher (files) or the writer lock (index).
OPS: dict[str, str] = {op.method.replace("_", "."): op.method for op in OPERATIONS if not op.writes}
METHOD_OPS: dict[str, str] = {method: op for op, method in OPS.items()}

_TUPLE, _SET, _FROZENSET, _ITEMS, _DATACLASS = "__tuple__", "__set__", "__frozenset__", "__items__", "__dataclass__"
_MARKERS = frozenset({_TUPLE, _SET, _FROZENSET, _ITEMS, _DATACLASS})


class ProtocolError(VaultError):
    """The daemon sent something this client cannot read (a different version?)."""


# -- codec ------------------------------------------------------------------------------------

def encode(value: Any) -> Any:
    """A JSON-ready form of ``value`` that :func:`decode` turns back into an equal value."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, tuple):
        return {_TUPLE: [encode(v) for v in value]}
    if isinstance(value, (set, frozenset)):
        marker = _FROZENSET if isinstance(value, frozenset) else _SET
        return {marker: [encode(v) for v in value]}
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value) and not _MARKERS & value.keys():
            return {k: encode(v) for k, v in value.items()}
        return {_ITEMS: [[encode(k), encode(v)] for k, v in value.items()]}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        cls = type(value)
        fields = {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value) if f.init}
        return {_DATACLASS: f"{cls.__module__}:{cls.__qualname__}", "fields": fields}
    raise TypeError(f"a {type(value).__name__} cannot cross the daemon socket")


def decode(value: Any) -> Any:
    """The inverse of :func:`encode`. Only dataclasses of ``vault_engine`` are rebuilt."""
    if isinstance(value, list):
        return [decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if _DATACLASS in value:
        return _rebuild(value[_DATACLASS], value.get("fields", {}))
    if len(value) == 1:
        (key, inner), = value.items()
        if key == _TUPLE:
            return tuple(decode(v) for v in inner)
        if key == _SET:
            return {decode(v) for v in inner}
        if key == _FROZENSET:
            return frozenset(decode(v) for v in inner)
        if key == _ITEMS:
            return {decode(k): decode(v) for k, v in inner}
    return {k: decode(v) for k, v in value.items()}


def _rebuild(name: str, fields: dict[str, Any]) -> Any:
    module_name, _, qualname = name.partition(":")
    if not module_name.startswith("vault_engine.") and module_name != "vault_engine":
        raise ProtocolError(f"the daemon sent an object of {module_name}, outside vault_engine")
    try:
        found: Any = importlib.import_module(module_name)
        for part in qualname.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError) as exc:
        raise ProtocolError(f"the daemon sent a {name} that this version does not know") from exc
    if not (isinstance(found, type) and dataclasses.is_dataclass(found)):
        raise ProtocolError(f"the daemon sent {name}, which is not a dataclass")
    return found(**{k: decode(v) for k, v in fields.items()})


# -- messages ---------------------------------------------------------------------------------

def request(op: str, args: tuple = (), kwargs: dict | None = None) -> bytes:
    """One request line."""
    body = {"v": PROTOCOL_VERSION, "op": op, "args": encode(list(args)),
            "kwargs": encode(kwargs or {})}
    return _line(body)


def reply_ok(result: Any, ms: float) -> bytes:
    return _line({"v": PROTOCOL_VERSION, "ok": True, "result": encode(result), "ms": round(ms, 3)})


def reply_error(kind: str, message: str, exc: BaseException | None = None) -> bytes:
    """``kind``: vault (a user error to show as is), busy, protocol or internal (the client
    answers in-process instead)."""
    error = {"kind": kind, "message": message, "type": type(exc).__name__ if exc else None,
             "exit_code": getattr(exc, "exit_code", 1)}
    return _line({"v": PROTOCOL_VERSION, "ok": False, "error": error})


MAX_DEPTH = 64  # nesting of a message: results nest a handful deep; more is not ours


def parse(line: bytes) -> dict[str, Any]:
    """A request or reply object from one line, or :class:`ProtocolError`. Nesting is
    checked before anything recurses on it (a line of a million ``[`` would otherwise blow the
    stack of the thread reading it)."""
    if _depth(line) > MAX_DEPTH:
        raise ProtocolError(f"daemon message nested deeper than {MAX_DEPTH}: refused")
    try:
        message = json.loads(line)
    except (ValueError, RecursionError) as exc:
        raise ProtocolError(f"unreadable daemon message: {exc}") from exc
    if not isinstance(message, dict) or message.get("v") != PROTOCOL_VERSION:
        raise ProtocolError(f"daemon protocol version {message.get('v') if isinstance(message, dict) else '?'}"
                            f" is not {PROTOCOL_VERSION}")
    return message


def _depth(line: bytes) -> int:
    """The deepest bracket nesting of a JSON text, ignoring brackets inside strings; one pass,
    no recursion."""
    depth = deepest = 0
    in_string = escaped = False
    for byte in line:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            deepest = max(deepest, depth)
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return deepest


def vault_error(error: dict[str, Any]) -> VaultError:
    """Rebuild the user error the daemon's Vault raised, same class and message."""
    from vault_engine import errors

    cls = getattr(errors, str(error.get("type")), None)
    if not (isinstance(cls, type) and issubclass(cls, VaultError)):
        cls = VaultError
    message = error.get("message", "")
    try:
        exc = cls(message)
    except TypeError:  # a class built from its parts (VectorsDamaged(path, reason)): its message says them
        exc = cls.__new__(cls)
        VaultError.__init__(exc, message)
    if exc.exit_code != error.get("exit_code", 1):
        exc.exit_code = error.get("exit_code", 1)
    return exc


def _line(body: dict[str, Any]) -> bytes:
    return (json.dumps(body, ensure_ascii=False) + "\n").encode("utf-8")


# -- addresses --------------------------------------------------------------------------------

# sun_path holds 108 bytes on Linux (104 on macOS); keep a margin for the terminating NUL.
_MAX_SOCKET_PATH = 100


@contextmanager
def unix_address(path: Path) -> Iterator[str]:
    """An address for bind/connect to ``path``. A path too long for ``sun_path`` (deep vault
    folders) is reached through ``/proc/self/fd/<folder fd>/name`` on Linux."""
    if len(os.fsencode(path)) <= _MAX_SOCKET_PATH or not os.path.isdir("/proc/self/fd"):
        yield os.fspath(path)
        return
    fd = os.open(path.parent, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        yield f"/proc/self/fd/{fd}/{path.name}"
    finally:
        os.close(fd)
