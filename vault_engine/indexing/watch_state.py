"""The watcher's files, readable from any process: health (watch.json), pid lock and socket.

``vault-engine watch`` holds an exclusive ``flock`` on ``.vault-engine/daemon.pid`` for its
whole life. Whoever finds that lock free knows that no watcher runs, whatever watch.json says:
a process killed with SIGKILL leaves its files behind, but the kernel always drops its locks.
That is the stale-file detection (no guessing from pids, so pid reuse cannot fool it).

This module sits below ``vault.py`` so that ``Vault.status()`` can report the watcher; the
daemon (above) writes the file through :func:`write_health`.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from vault_engine import RELEASE
from vault_engine.config import Config
from vault_engine.dates import utc_time
from vault_engine.errors import no_space_left
from vault_engine.layout import HEALTH_FILE, PID_FILE, SOCKET_FILE
from vault_engine.locks import held_elsewhere


def health_path(config: Config) -> Path:
    return config.state_dir / HEALTH_FILE


def pid_path(config: Config) -> Path:
    return config.state_dir / PID_FILE


def socket_path(config: Config) -> Path:
    return config.state_dir / SOCKET_FILE


def read_health(config: Config) -> dict[str, Any] | None:
    """The last health the watcher wrote, or None when there is none (or it is unreadable)."""
    return read_health_file(health_path(config))


def read_health_file(path: Path) -> dict[str, Any] | None:
    """:func:`read_health` from the file's path (a client that has no Config loaded)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):  # nested too deeply: RecursionError (qa137)
        return None
    return data if isinstance(data, dict) else None


HEARTBEAT_SECONDS = 1.0  # the watcher touches watch.json this often, whatever else it does
STALLED_AFTER = 5.0  # a heartbeat older than this: the watcher is stopped or hung


def write_health(config: Config, data: dict[str, Any]) -> None:
    """Replace watch.json atomically (a reader sees the old file or the new one, never half).
    Never creates a folder: the watcher's pid lock made ``.vault-engine/``, and one removed
    under it (or a vault moved away) must not come back holding a dead watcher's health (qa173)."""
    target = health_path(config)
    if not target.parent.is_dir():
        return
    temp = target.with_name(f".{HEALTH_FILE}.{os.getpid()}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # its errors name notes
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(json.dumps(data, ensure_ascii=False, indent=1))
    os.replace(temp, target)


def heartbeat_age(config: Config, now: float | None = None) -> float | None:
    """Seconds since the watcher last touched watch.json (None: no file)."""
    try:
        mtime = health_path(config).stat().st_mtime
    except OSError:
        return None
    return max(0.0, (now if now is not None else time.time()) - mtime)


def watcher_running(config: Config) -> bool:
    """True while a ``vault-engine watch`` process holds the pid lock of this vault."""
    return held_elsewhere(pid_path(config))


def watcher_status(config: Config) -> dict[str, Any]:
    """The ``watcher`` entry of ``status``: running, stale (its process died) or off."""
    health = read_health(config)
    running = watcher_running(config)
    if health is None:
        state = "running" if running else "off"
        return {"state": state, "summary": _summary(state, {})}
    age = heartbeat_age(config)
    state = health.get("state", "watching") if running else "stale"
    if running and age is not None and age > STALLED_AFTER:
        state = "stalled"
    elif running and health.get("release") != RELEASE:
        state = "another-release"
    keys = ("pid", "release", "started", "last_event", "last_applied", "pending", "lag_seconds",
            "caught_up_seconds", "batches", "errors")
    # The age itself stays out of the entry: it moves with the clock, and status must read
    # the same whichever process answers it. Only a stalled watcher's summary names it.
    summary = _summary(state, {**health, "heartbeat_age": age})
    if running and no_space_left(config.state_dir):  # what it last wrote says nothing of it (qa44)
        summary += ("; THE DISK IS FULL: the watcher can write neither the index nor this "
                    "report; free some space (it applies what waits within seconds)")
    return {"state": state, **{k: health.get(k) for k in keys}, "summary": summary}


def another_release(health: dict[str, Any]) -> str:
    """The line for a watcher another release of vault-engine started: commands answer
    without it, and it must be started again by this one (it would undo this release's index:
    an old watcher left running across an upgrade emptied the new index, qa99)."""
    release = health.get("release")
    return (f"ANOTHER RELEASE: the watcher (pid {health.get('pid')}) was started by "
            f"{f'vault-engine {release}' if release else 'an older vault-engine'}, this is {RELEASE}: commands "
            "answer without it and `index` refuses to run beside it; `vault-engine watch --stop`, then "
            "`vault-engine watch` starts this release's")


def _summary(state: str, h: dict[str, Any]) -> str:
    """One line for ``status``; absolute times only, so it reads the same from any process."""
    if state == "off":
        return "not running: `vault-engine watch` keeps the index fresh and answers queries warm"
    if state == "stalled":
        return (f"STALLED: the watcher (pid {h.get('pid')}) has not shown a sign of life for "
                f"{heartbeat_age_text(h)}; commands answer without it. Stopped (kill -STOP)? "
                f"`kill -CONT {h.get('pid')}`, or `vault-engine watch --stop` and start it again")
    if state == "another-release":
        return another_release(h)
    if state == "stale":
        # the lock says the watcher ended; its pid may belong to another process by now
        return (f"not running: watch.json is left over from a watcher that has ended (it ran as pid "
                f"{h.get('pid')}, last applied {_iso(h.get('last_applied'))}); start `vault-engine watch` again")
    if not h:
        return "running (starting up)"
    errors = h.get("errors") or []
    parts = [f"{state} (pid {h.get('pid')}) since {_iso(h.get('started'))}"]
    if state == "catching-up":  # its events wait unread meanwhile: "0 pending" said nothing was
        parts.append("comparing every file with the index; edits saved meanwhile are applied next")
    else:
        parts += [f"last applied {_iso(h.get('last_applied'))}{_took(h)}", f"{h.get('pending', 0)} pending"]
    last = errors[-1] if errors else {}
    since = isinstance(last.get("at"), (int, float)) and isinstance(h.get("last_applied"), (int, float)) \
        and h["last_applied"] > last["at"]
    # after a fix, errors of before read as the watcher's state now (qa49: a config typo fixed)
    parts.append(f"{len(errors)} recent errors" + (", none since the last apply" if since else ""))
    if errors:
        parts.append(f"last: {last.get('message')}" + (f" (at {_iso(last.get('at'))})" if since else ""))
    return "; ".join(parts)


def _took(h: dict[str, Any]) -> str:
    """How long the last apply waited behind its first event, else how long the catch-up took."""
    lag, caught_up = h.get("lag_seconds"), h.get("caught_up_seconds")
    if isinstance(lag, (int, float)):
        return f" (lag {lag:.2f} s)"
    return f" (caught up in {caught_up:.1f} s)" if isinstance(caught_up, (int, float)) else ""


def heartbeat_age_text(h: dict[str, Any]) -> str:
    age = h.get("heartbeat_age")
    return f"{age:.0f} s" if isinstance(age, (int, float)) else "a while"


def _iso(ts: Any) -> str:
    """A time read from watch.json (anything: the file is another process's), or ``never``."""
    return utc_time(ts if isinstance(ts, (int, float)) else None, "never")
