"""The watcher's files, readable from any process: health (watch.json), pid lock and socket.

``vault-engine watch`` holds an exclusive ``flock`` on ``.vault-engine/daemon.pid`` for its
whole life. Whoever finds that lock free knows that no watcher runs, whatever watch.json says:
a process killed with SIGKILL leaves its files behind, but the kernel always drops its locks.
That is the stale-file detection (no guessing from pids, so pid reuse cannot fool it).

This module sits below ``vault.py`` so that ``Vault.status()`` can report the watcher; the
daemon (above) writes the file through :func:`write_health`.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import json
import os
from pathlib import Path
from typing import Any

from vault_engine.config import Config

HEALTH_FILE = "watch.json"  # in .vault-engine/, beside the pid lock and the socket
PID_FILE = "daemon.pid"  # in .vault-engine/
SOCKET_FILE = "daemon.sock"  # in .vault-engine/


def health_path(config: Config) -> Path:
    return config.state_dir / HEALTH_FILE


def pid_path(config: Config) -> Path:
    return config.state_dir / PID_FILE


def socket_path(config: Config) -> Path:
    return config.state_dir / SOCKET_FILE


def read_health(config: Config) -> dict[str, Any] | None:
    """The last health the watcher wrote, or None when there is none (or it is unreadable)."""
    try:
        data = json.loads(health_path(config).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def write_health(config: Config, data: dict[str, Any]) -> None:
    """Replace watch.json atomically (a reader sees the old file or the new one, never half)."""
    target = health_path(config)
    target.parent.mkdir(parents=True, exist_ok=True)
    temp = target.with_name(f".{HEALTH_FILE}.{os.getpid()}.tmp")
    temp.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    os.replace(temp, target)


def watcher_running(config: Config) -> bool:
    """True while a ``vault-engine watch`` process holds the pid lock of this vault."""
    try:
        fd = os.open(pid_path(config), os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # also releases the shared lock when we got it
    return False


def watcher_status(config: Config) -> dict[str, Any]:
    """The ``watcher`` entry of ``status``: running, stale (its process died) or off."""
    health = read_health(config)
    running = watcher_running(config)
    if health is None:
        state = "running" if running else "off"
        return {"state": state, "summary": _summary(state, {})}
    state = health.get("state", "watching") if running else "stale"
    keys = ("pid", "started", "last_event", "last_applied", "pending", "lag_seconds",
            "batches", "errors")
    entry = {"state": state, **{k: health.get(k) for k in keys}}
    entry["summary"] = _summary(state, health)
    return entry


def _summary(state: str, h: dict[str, Any]) -> str:
    """One line for ``status``; absolute times only, so it reads the same from any process."""
    if state == "off":
        return "not running: `vault-engine watch` keeps the index fresh and answers queries warm"
    if state == "stale":
        return (f"not running: watch.json is left over from pid {h.get('pid')}, which is gone "
                f"(last applied {_iso(h.get('last_applied'))}); start `vault-engine watch` again")
    if not h:
        return "running (starting up)"
    errors = h.get("errors") or []
    lag = h.get("lag_seconds")
    parts = [f"{state} (pid {h.get('pid')}) since {_iso(h.get('started'))}",
             f"last applied {_iso(h.get('last_applied'))}"
             + (f" (lag {lag:.2f} s)" if isinstance(lag, (int, float)) else ""),
             f"{h.get('pending', 0)} pending", f"{len(errors)} recent errors"]
    if errors:
        parts.append(f"last: {errors[-1].get('message')}")
    return "; ".join(parts)


def _iso(ts: Any) -> str:
    if not isinstance(ts, (int, float)):
        return "never"
    return dt.datetime.fromtimestamp(ts, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
