"""The watcher: file-system events -> quiet-period bursts of changed paths -> one plan each.

Split so that the logic is testable without a file system or a clock:

- :func:`event_paths` turns one watchdog event into vault-relative paths: both sides of a
  move, and a folder as ``"dir/"`` so the indexer expands it (a folder rename is one event);
  ignored folders (``.vault-engine/``, ``.obsidian/``, ``.git/``, ``.trash/``) and excluded
  paths are dropped here, so our own index writes never wake the loop. A code tap whose root
  lies outside the vault (``root = "../repo"``) is watched too: its events become the tap's
  keys (``repo:pkg/a.py``), which the indexer takes like paths;
- :class:`Debouncer` coalesces paths into bursts. Pure: ``now`` is a parameter. An editor's
  atomic save (temp write + rename) or a ``git checkout`` (hundreds of events) is one burst;
- :class:`ChangeFeed` is the recursive watchdog observer feeding a queue, and
  :func:`watch_loop` blocks on that queue (never polls) and hands each burst to a callback.
  The daemon applies it with ``Vault.index_paths``: the same indexer as ``vault-engine index``.
"""

from __future__ import annotations

import logging
import math
import os
import queue
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vault_engine.config import Config, check_keys
from vault_engine.errors import ConfigError, VaultError
from vault_engine.sources.code.files import CodeTap, code_taps
from vault_engine.sources.code.ignore import skipped_dir_reason
from vault_engine.sources.vault.files import is_indexable

if TYPE_CHECKING:
    from watchdog.observers.api import BaseObserver

log = logging.getLogger(__name__)

# Quiet period: a burst is applied once no event came for this long...
DEFAULT_QUIET = 0.1
# ...or once its first event is this old, so a long stream of events still makes progress.
DEFAULT_MAX_WAIT = 1.0


@dataclass(frozen=True, slots=True)
class WatchSettings:
    """``[watch]`` in vault-engine.toml: ``debounce_ms`` (quiet period before a burst is
    applied) and ``max_wait_ms`` (a burst is applied by then even if events keep coming)."""

    quiet: float = DEFAULT_QUIET
    max_wait: float = DEFAULT_MAX_WAIT

    @classmethod
    def from_config(cls, config: Config) -> WatchSettings:
        table = config.section("watch")
        check_keys(table, "watch.", ("debounce_ms", "max_wait_ms"))
        quiet = _milliseconds(table, "debounce_ms", DEFAULT_QUIET)
        return cls(quiet, max(quiet, _milliseconds(table, "max_wait_ms", DEFAULT_MAX_WAIT)))


def _milliseconds(table: dict, key: str, default: float) -> float:
    value = table.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < math.inf:  # NaN fails too
        raise ConfigError(f"watch.{key} must be a finite number of milliseconds (>= 0) in vault-engine.toml")
    return value / 1000.0

# Between two steps of background work, wait this long for events: a writer waiting for the
# vault's writer lock (a concurrent `vault-engine index`) gets its turn.
IDLE_PAUSE = 0.1

DRAIN_LIMIT = 10_000  # queue items taken in one turn of the loop

STOP = "stop"  # queue item: leave the loop
RESCAN = "rescan"  # queue item: the kernel dropped events, compare the whole vault
IDLE_WORK = "idle work"  # queue item: background work came from elsewhere (a generation swapped in)


@dataclass(frozen=True, eq=False)
class Settle:
    """Queue item: a query is about to be answered; apply what is pending now, not at the end
    of the quiet period, then set ``done``. The first query after a `git pull` had answered
    from the index before the pull, with no word (qa90)."""

    done: Any  # a threading.Event

# watchdog events the watcher acts on; opened/closed/attrib events are dropped by the kernel
# mask (reading a note must not look like a change of it).
# "attrib": a chmod, which makes a note skipped as unreadable readable again (it had stayed
# out of the index until its next edit, qa158), or a touch, which the planner only hashes
EVENT_TYPES = ("created", "modified", "deleted", "moved", "attrib")


@dataclass(frozen=True, slots=True)
class Burst:
    """Coalesced changes to apply as one plan. ``rescan``: compare the whole vault instead."""

    paths: frozenset[str]
    first_event: float
    last_event: float
    events: int
    rescan: bool = False


@dataclass(slots=True)
class Debouncer:
    """Collects paths until the vault has been quiet for ``quiet`` seconds (or the oldest
    pending event is ``max_wait`` old). Pure: the caller passes the clock."""

    quiet: float = DEFAULT_QUIET
    max_wait: float = DEFAULT_MAX_WAIT
    _paths: set[str] = field(default_factory=set)
    _first: float | None = None
    _last: float = 0.0
    _events: int = 0
    _rescan: bool = False

    @property
    def pending(self) -> int:
        """Paths waiting to be applied (a pending rescan counts as one)."""
        return len(self._paths) + (1 if self._rescan and not self._paths else 0)

    @property
    def oldest(self) -> float | None:
        """When the oldest pending event came, or None when nothing is pending."""
        return self._first

    def add(self, paths: Iterable[str], now: float) -> None:
        """Record one event's paths; each event pushes the quiet deadline back."""
        paths = list(paths)
        if not paths:
            return
        self._paths.update(paths)
        self._mark(now)

    def request_rescan(self, now: float) -> None:
        """The next burst compares the whole vault (events were lost)."""
        self._rescan = True
        self._mark(now)

    def _mark(self, now: float) -> None:
        if self._first is None:
            self._first = now
        self._last = now
        self._events += 1

    def wait_time(self, now: float) -> float | None:
        """Seconds until the pending burst is due; None when nothing is pending (block)."""
        if self._first is None:
            return None
        due = min(self._last + self.quiet, self._first + self.max_wait)
        return max(0.0, due - now)

    def due(self, now: float) -> bool:
        """A burst is pending and the vault has been quiet long enough (or it waited enough)."""
        wait = self.wait_time(now)
        return wait is not None and wait <= 0.0

    def take(self) -> Burst:
        """The pending burst; the debouncer starts empty again."""
        burst = Burst(frozenset(self._paths), self._first or 0.0, self._last, self._events,
                      self._rescan)
        self._paths, self._first, self._last, self._events, self._rescan = set(), None, 0.0, 0, False
        return burst


def event_paths(config: Config, event: Any, outside: tuple[CodeTap, ...] = ()) -> list[str]:
    """The vault-relative paths a watchdog event touches (folders end with ``/``), minus
    ignored and excluded ones, and the keys of the ``outside`` code taps (roots outside the
    vault) it touches. Both sides of a move are returned."""
    if event.event_type not in EVENT_TYPES:
        return []
    if event.is_directory and event.event_type == "modified":
        return []  # a child came or went: the child has its own event
    found = []
    root = os.fspath(config.root)
    for absolute in (event.src_path, getattr(event, "dest_path", "")):
        if not absolute:
            continue
        absolute = os.fsdecode(absolute)
        found += _code_keys(outside, absolute, event.is_directory)
        rel = os.path.relpath(absolute, root).replace(os.sep, "/")
        if rel == "." or rel.startswith("../") or not is_indexable(config, rel):
            continue
        if event.is_directory and config.is_excluded(rel + "/"):
            continue  # "templates/**" excludes the folder itself, as scan_vault does
        found.append(rel + "/" if event.is_directory else rel)
    return found


def outside_code_taps(config: Config) -> tuple[CodeTap, ...]:
    """The code taps whose root is outside the vault: watched beside it."""
    return tuple(t for t in code_taps(config) if t.vault_rel is None)


def _code_keys(taps: tuple[CodeTap, ...], absolute: str, is_directory: bool) -> list[str]:
    """The keys an event at ``absolute`` touches in code taps outside the vault: a file the
    tap owns, a folder (``key/``, the root itself as ``name:/``) not skipped or excluded."""
    keys = []
    for tap in taps:
        rel = os.path.relpath(absolute, tap.root).replace(os.sep, "/")
        if rel.startswith("../") or rel == "..":
            continue
        if rel == ".":
            keys.append(tap.prefix + "/")  # the root itself (moved, deleted): all of it
            continue
        parts = rel.split("/")
        if any(skipped_dir_reason(p) for p in parts[:-1 if not is_directory else None]):
            continue  # .git/, node_modules/, build output: never indexed, never a burst
        if is_directory and not tap.excluded(rel + "/"):
            keys.append(tap.key(rel) + "/")
        elif not is_directory and tap.owns(rel):
            keys.append(tap.key(rel))
    return keys


class ChangeFeed:
    """A recursive watchdog observer on the vault, and on every code tap root outside it,
    that puts each event's relevant paths on :attr:`queue` (a list of strings per event, or
    :data:`RESCAN`, or :data:`STOP`)."""

    def __init__(self, config: Config):
        self.config = config
        self.outside = outside_code_taps(config)
        self.queue: queue.SimpleQueue = queue.SimpleQueue()
        self._observer: BaseObserver | None = None
        self._watches: dict[str, Any] = {}  # code root -> its watchdog watch
        self._overflow = _OverflowAlarm(self.queue)

    def start(self) -> None:
        """Start watching (events before this call are not seen: catch up after it)."""
        from watchdog.observers import Observer

        observer = self._observer = Observer()
        # A FileSystemEventHandler by duck type (watchdog calls dispatch() only): subclassing
        # it would import watchdog with this module.
        observer.schedule(self, os.fspath(self.config.root), recursive=True,  # type: ignore[arg-type]
                          event_filter=_event_kinds())
        for name in ("watchdog.observers.inotify_c", "watchdog.observers.inotify"):
            logging.getLogger(name).addHandler(self._overflow)
        try:
            observer.start()
        except OSError as exc:  # ENOSPC: one inotify watch per folder, and the limit is hit
            self._observer = None
            raise VaultError(f"cannot watch {self.config.root}: {exc.strerror or exc}; on Linux, "
                             "raise the limit: sysctl fs.inotify.max_user_watches=524288") from exc
        self._schedule_code_roots(observer)  # after: a repository too big to watch must not stop the vault's watch

    def reconfigure(self, config: Config) -> None:
        """vault-engine.toml changed: filter by the new rules, and watch the code roots it
        names now (a root it no longer names is left unwatched)."""
        self.config = config
        self.outside = outside_code_taps(config)
        if self._observer is not None:
            self._schedule_code_roots(self._observer)

    def _schedule_code_roots(self, observer: BaseObserver) -> None:
        wanted = {os.fspath(t.root) for t in self.outside if t.root.is_dir()}
        for root in sorted(set(self._watches) - wanted):
            observer.unschedule(self._watches.pop(root))
        for root in sorted(wanted - set(self._watches)):  # a root missing now is reported by status
            try:
                self._watches[root] = observer.schedule(self, root, recursive=True,  # type: ignore[arg-type]
                                                        event_filter=_event_kinds())  # (duck type: see start)
            except OSError as exc:  # ENOSPC: its folders exceed the inotify watches left
                log.warning("cannot watch the code root %s (%s): `vault-engine index` brings it up to date; on "
                            "Linux, raise the limit: sysctl fs.inotify.max_user_watches=524288",
                            root, exc.strerror or exc)

    def dispatch(self, event: Any) -> None:
        """Called by watchdog's thread for each event (the observer's handler protocol)."""
        paths = event_paths(self.config, event, self.outside)
        if paths:
            self.queue.put(paths)

    def stop(self) -> None:
        """Stop the observer, then wake :func:`watch_loop` with :data:`STOP`."""
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout=10)
            self._observer = None
            self._watches.clear()
        for name in ("watchdog.observers.inotify_c", "watchdog.observers.inotify"):
            logging.getLogger(name).removeHandler(self._overflow)
        self.queue.put(STOP)


def _event_kinds() -> list[type]:
    from watchdog.events import (
        DirAttribEvent,
        DirCreatedEvent,
        DirDeletedEvent,
        DirMovedEvent,
        FileAttribEvent,
        FileCreatedEvent,
        FileDeletedEvent,
        FileModifiedEvent,
        FileMovedEvent,
    )

    return [FileCreatedEvent, FileModifiedEvent, FileDeletedEvent, FileMovedEvent, FileAttribEvent,
            DirCreatedEvent, DirDeletedEvent, DirMovedEvent, DirAttribEvent]


class _OverflowAlarm(logging.Handler):
    """watchdog reports a kernel queue overflow (events lost) only as a log warning; turn it
    into a full rescan so no change is missed."""

    def __init__(self, target: queue.SimpleQueue):
        super().__init__(logging.WARNING)
        self.target = target

    def emit(self, record: logging.LogRecord) -> None:
        if "overflow" in record.getMessage().lower():
            self.target.put(RESCAN)


def watch_loop(feed: queue.SimpleQueue, debouncer: Debouncer, on_burst: Callable[[Burst], None],
               *, on_pending: Callable[[Debouncer], None] | None = None,
               idle_step: Callable[[], bool] | None = None,
               clock: Callable[[], float] = time.monotonic) -> None:
    """Apply bursts from ``feed`` until :data:`STOP`; pending events at that point are left
    for the next start's catch-up. Between bursts, ``idle_step`` (background work such as
    embedding) runs one small step at a time while no event is pending; it returns False when
    it has nothing left, until the next burst or :data:`IDLE_WORK`. Idle with no work, the
    loop sleeps in a blocking ``get``."""
    idle_work = idle_step is not None
    while True:
        timeout = debouncer.wait_time(clock())
        if timeout is None and idle_work:
            timeout = IDLE_PAUSE
        try:
            item = feed.get(timeout=timeout)
        except queue.Empty:
            item = None
        if item == STOP:
            return
        if item == IDLE_WORK:  # not a change of the vault: no burst, but idle work to do again
            idle_work, item = idle_step is not None, None
        settles: list[Settle] = []
        if item is not None:
            settles, changes = _take_in(feed, item, debouncer, clock())
            if on_pending is not None and changes:
                on_pending(debouncer)
            item = item if changes else None  # queries alone are no change: idle work goes on
        applying = debouncer.due(clock()) or bool(settles and debouncer.oldest is not None)
        if applying:
            on_burst(debouncer.take())
            idle_work = idle_step is not None
        for settle in settles:  # what was pending when the query came is applied
            settle.done.set()
        # ...and a query waits for no idle step: it had waited out a whole embedding slice
        # (2.5 s a query while the watcher embedded a new 1 MB note, qa146)
        if not applying and item is None and debouncer.oldest is None and idle_work and idle_step is not None:
            idle_work = bool(idle_step())


def _take_in(feed: queue.SimpleQueue, item: Any, debouncer: Debouncer, now: float) -> tuple[list[Settle], int]:
    """Add ``item`` and what is already queued behind it (a burst arrives in bulk), up to
    :data:`DRAIN_LIMIT` items, so that a never-ending stream still reaches ``max_wait``: the
    queries waiting to :class:`Settle` among them, and how many changes were taken."""
    settles: list[Settle] = []
    changes = 0
    for _ in range(DRAIN_LIMIT):
        if isinstance(item, Settle):
            settles.append(item)
        elif item == IDLE_WORK:
            pass  # the burst's apply runs the idle work again anyway
        elif item == STOP:
            feed.put(STOP)  # seen on the next turn, after this burst's bookkeeping
            return settles, changes
        else:
            if item == RESCAN:
                debouncer.request_rescan(now)
            else:
                debouncer.add(item, now)
            changes += 1
        try:
            item = feed.get_nowait()
        except queue.Empty:
            break
    return settles, changes
