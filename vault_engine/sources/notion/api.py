"""Sync pages through the Notion API (``vault-engine notion sync``), with notion-client.

What to pull comes from ``[taps.notion]`` in vault-engine.toml: ``page_ids``, ``database_ids``
(each read through its data sources, as API version 2025-09-03 requires) and ``search`` (a
query; every page it finds). Child pages of a pulled page are pulled too.

Incremental: a page whose ``last_edited_time`` equals the one in its note's frontmatter is
not fetched again (its blocks are not read); only its page object is, to learn that time.
The token is read from ``$NOTION_TOKEN`` or the variable ``token_env`` names, handed to the
client, and never written anywhere. notion_client is imported inside functions only.
"""

from __future__ import annotations

import logging
import os
import re
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any

from vault_engine.config import TAP_KEYS, Config, TapConfig, check_keys
from vault_engine.errors import ConfigError, NotionError
from vault_engine.layout import NOTION_SYNC_FILE
from vault_engine.sources.notion.archive import Limits
from vault_engine.sources.notion.markdown import (
    KnownPages,
    database_markdown,
    object_title,
    page_markdown,
)
from vault_engine.sources.notion.pages import (
    SYNC_SOURCE,
    NotionPage,
    PageWriter,
    glob_folder,
    normalize_id,
    note_stem_for,
    same_edit_time,
    scan_existing,
    stem_of,
    tap_folders,
    write_if_changed,
)
from vault_engine.sources.notion.report import NotionReport, Problem

log = logging.getLogger(__name__)

DEFAULT_TOKEN_ENV = "NOTION_TOKEN"
DELETED_NOTE = "a page synced before, whose note was deleted since"  # why such a page is pulled again
SYNC_OPTIONS = frozenset({"token_env", "page_ids", "database_ids", "search", "base_url",
                          "max_file_mb", "max_export_mb"})  # the last two bound `notion import`
MAX_RATE_LIMIT_WAITS = 5
MAX_SERVER_ERROR_RETRIES = 2
GATEWAY_ERRORS = (502, 503, 504)  # a proxy's moment, answered in HTML: retried as Notion's 5xx are
MAX_BLOCK_DEPTH = 24  # nesting deeper than this is not fetched (Notion allows far less)
# An id as written in the config: bare, dashed, or at the end of a page URL.
_ID_IN_TEXT = re.compile(r"([0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12})$")


@dataclass(frozen=True, slots=True)
class SyncSettings:
    """What ``[taps.notion]`` asks to pull, validated."""

    token_env: str = DEFAULT_TOKEN_ENV
    page_ids: tuple[str, ...] = ()
    database_ids: tuple[str, ...] = ()
    search: str | None = None
    base_url: str | None = None  # another API host: a proxy, or a test server
    folder: str = "notion"

    @classmethod
    def from_tap(cls, tap: TapConfig) -> SyncSettings:
        """Read and check the options of a ``[taps.NAME]`` table (ConfigError names the key)."""
        where = f"taps.{tap.name}."
        options = tap.options
        check_keys(options, where, SYNC_OPTIONS | TAP_KEYS)
        Limits.from_options(options, where)  # checked on every command, used by `notion import`
        token_env = options.get("token_env", DEFAULT_TOKEN_ENV)
        if not isinstance(token_env, str) or not token_env.strip():
            raise ConfigError(f"{where}token_env must name an environment variable, e.g. \"NOTION_TOKEN\"")
        search = options.get("search")
        if search is not None and not isinstance(search, str):
            raise ConfigError(f"{where}search must be a string (a Notion search query)")
        base_url = options.get("base_url")
        if base_url is not None and not _safe_base_url(base_url):
            raise ConfigError(f"{where}base_url must be an https URL (plain http only to this machine, "
                              "e.g. http://127.0.0.1:8080): the integration token travels with every request")
        folder = glob_folder(tap.paths[0]) if tap.paths else ""
        return cls(token_env.strip(), _ids(options, "page_ids", where),
                   _ids(options, "database_ids", where), search,
                   # the client adds /v1 itself; Notion's documentation gives the base with it
                   base_url.rstrip("/").removesuffix("/v1") if base_url else None, folder or "notion")

    @property
    def names_something(self) -> bool:
        """True when the tap says what to pull."""
        return bool(self.page_ids or self.database_ids or self.search is not None)


def _ids(options: dict[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = options.get(key, [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        raise ConfigError(f"{where}{key} must be a list of Notion ids")
    ids = []
    for item in value:
        found = _ID_IN_TEXT.search(str(item).split("?", 1)[0].split("#", 1)[0])
        ident = normalize_id(found.group(1)) if found else None
        if ident is None:
            raise ConfigError(f"{where}{key} has {item!r}: use the 32-hex id at the end of the "
                              "page's URL")
        ids.append(ident)
    return tuple(ids)


def _safe_base_url(url: object) -> bool:
    """https anywhere; http only to the loopback interface (a local proxy or test server)."""
    from urllib.parse import urlsplit

    if not isinstance(url, str):
        return False
    parts = urlsplit(url)
    if parts.scheme == "https" and parts.hostname:
        return True
    return parts.scheme == "http" and parts.hostname in ("127.0.0.1", "localhost", "::1")


def read_token(token_env: str, environ: Mapping[str, str]) -> str:
    """The integration token, from the environment only."""
    token = environ.get(token_env, "").strip()
    if not token:
        raise NotionError(f"${token_env} is not set: export {token_env}=<your Notion integration "
                          "token> (vault-engine reads the token only from the environment)")
    return token


class PageGone(Exception):
    """Notion answered 404 (or 403) for an object: deleted, or not shared with the integration."""


class PageFailed(NotionError):
    """Notion failed on one object (a server error after retries, a gateway's 502-504, no
    answer in time): that page is skipped this run and the rest synced, its note kept. One
    page answering 500 had stopped the whole sync, naming no page (qa86)."""


class NotionApi:
    """The calls a sync makes, with rate limits waited out and errors a user can act on."""

    def __init__(self, token: str, token_env: str, base_url: str | None = None,
                 sleep: Callable[[float], None] = time.sleep):
        from notion_client import Client

        client_log = logging.getLogger(f"{__name__}.client")
        options: dict[str, Any] = {"auth": token, "retry": False, "logger": client_log,
                                   "log_level": logging.CRITICAL}  # its lines would repeat ours
        if base_url:
            options["base_url"] = base_url
        self.client = Client(**options)
        self.token_env = token_env
        self.base_url = base_url or "https://api.notion.com"
        self.answered = 0  # JSON answers so far: a body not JSON after them is one answer cut off
        self.sleep = sleep

    def close(self) -> None:
        """Close the client's connection pool."""
        self.client.close()

    def call(self, method: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """One API call; 429 waits as long as Retry-After says, 5xx retries twice."""
        import httpx
        from notion_client.errors import APIResponseError, HTTPResponseError, RequestTimeoutError

        waits = server_errors = 0
        while True:
            try:
                answer = method(*args, **kwargs)
            except APIResponseError as exc:
                code = getattr(exc.code, "value", exc.code)
                if code == "rate_limited" and waits < MAX_RATE_LIMIT_WAITS:
                    waits += 1
                    asked = exc.headers.get("retry-after")
                    delay = retry_after_seconds(asked, waits)
                    log.warning("Notion rate limit: waiting %.0f s (%s)", delay,
                                f"Retry-After: {asked}" if asked is not None else "no Retry-After given")
                    self.sleep(delay)
                    continue
                if exc.status >= 500 and server_errors < MAX_SERVER_ERROR_RETRIES:
                    server_errors += 1
                    self.sleep(2.0 ** server_errors)
                    continue
                raise self._translate(exc.status, code, str(exc)) from None
            except HTTPResponseError as exc:  # not Notion's JSON: a gateway's page, or another server
                if exc.status in GATEWAY_ERRORS:
                    if server_errors < MAX_SERVER_ERROR_RETRIES:
                        server_errors += 1
                        self.sleep(2.0 ** server_errors)
                        continue
                    raise PageFailed(f"Notion's gateway answered HTTP {exc.status} at {self.base_url}") from None
                raise NotionError(f"Notion answered HTTP {exc.status} at {self.base_url}: "
                                  "not the Notion API? check base_url in [taps.notion]") from None
            except RequestTimeoutError:
                raise PageFailed(f"Notion at {self.base_url} did not answer in time") from None
            except httpx.HTTPError as exc:
                raise NotionError(f"cannot reach Notion at {self.base_url} ({type(exc).__name__}): "
                                  "check the network") from None
            except ValueError as exc:  # a 200 whose body is not JSON (json.JSONDecodeError)
                if self.answered:  # the API had answered: one answer cut off, that page fails (qa170)
                    raise PageFailed(f"Notion at {self.base_url} answered something that is not JSON "
                                     f"({str(exc)[:80]}), an answer cut off?") from None
                raise NotionError(f"Notion at {self.base_url} answered something that is not JSON "
                                  f"({str(exc)[:80]}): not the Notion API? check base_url in [taps.notion]") from None
            if not isinstance(answer, dict):  # every Notion endpoint answers one JSON object
                raise NotionError(f"Notion at {self.base_url} answered JSON that is not an object "
                                  f"({type(answer).__name__}): not the Notion API? check base_url in [taps.notion]")
            self.answered += 1
            return answer

    def _translate(self, status: int, code: str, message: str) -> Exception:
        if status == 401 or code == "unauthorized":
            return NotionError(f"Notion rejected the token from ${self.token_env} (401 unauthorized): "
                               "create a new integration token and export it again")
        if status in (403, 404) or code in ("object_not_found", "restricted_resource"):
            return PageGone(f"{status} {code}")
        if code == "rate_limited":  # that page waits for the next sync; what was fetched is written (qa170)
            return PageFailed(f"Notion is still rate limiting after {MAX_RATE_LIMIT_WAITS} waits")
        if status >= 500:
            return PageFailed(f"Notion answered {status} {code}: {message}")
        return NotionError(f"Notion answered {status} {code}: {message}")

    def paginate(self, method: Callable[..., Any], **kwargs: Any) -> Iterator[dict[str, Any]]:
        """Every result of a paginated endpoint, following ``next_cursor`` while ``has_more``."""
        cursor = None
        while True:
            page = self.call(method, **kwargs, **({"start_cursor": cursor} if cursor else {}))
            yield from page.get("results") or ()
            cursor = page.get("next_cursor")
            if not page.get("has_more") or not cursor:
                return

    def page(self, page_id: str) -> dict[str, Any]:
        """A page object: title, properties, parent, ``last_edited_time``."""
        return self.call(self.client.pages.retrieve, page_id)

    def database(self, database_id: str) -> dict[str, Any]:
        """A database object, with the ids of its data sources."""
        return self.call(self.client.databases.retrieve, database_id)

    def data_source_rows(self, data_source_id: str) -> list[dict[str, Any]]:
        """Every row (page object) of one data source of a database."""
        return list(self.paginate(self.client.data_sources.query, data_source_id=data_source_id,
                                  page_size=100))

    def search_pages(self, query: str) -> list[dict[str, Any]]:
        """Every page (not data source) a Notion search for ``query`` finds."""
        return list(self.paginate(self.client.search, query=query, page_size=100,
                                  filter={"property": "object", "value": "page"}))

    def block_tree(self, block_id: str, depth: int = 0) -> list[dict[str, Any]]:
        """The children of a block, each with its own children fetched into ``"children"``
        (child pages and databases are not descended: they are notes of their own)."""
        blocks = list(self.paginate(self.client.blocks.children.list, block_id=block_id,
                                    page_size=100))
        for block in blocks:
            if block.get("has_children") and depth < MAX_BLOCK_DEPTH and \
                    block.get("type") not in ("child_page", "child_database"):
                block["children"] = self.block_tree(block["id"], depth + 1)
        return blocks


MAX_RETRY_AFTER = 60.0  # seconds: a Retry-After of an hour had held a sync for five (qa170)


def retry_after_seconds(value: str | None, attempt: int, now: float | None = None) -> float:
    """Seconds to wait from a Retry-After header (seconds, or an HTTP date), at most
    ``MAX_RETRY_AFTER``; without one, or one unread, back off 1, 2, 4 s."""
    seconds = float(2 ** (attempt - 1))
    if value is not None:
        try:
            seconds = max(0.0, float(value))
        except ValueError:
            try:
                seconds = max(0.0, parsedate_to_datetime(value).timestamp() - (time.time() if now is None else now))
            except (TypeError, ValueError, OverflowError):
                pass
    return min(seconds, MAX_RETRY_AFTER)


# -- the sync -----------------------------------------------------------------------------


def sync_tap(config: Config, *, prune: bool = False, now: float | None = None,
             environ: Mapping[str, str] | None = None,
             sleep: Callable[[float], None] = time.sleep) -> NotionReport:
    """Pull what ``[taps.notion]`` names and write the changed pages as notes (no indexing)."""
    settings = SyncSettings.from_tap(config.tap("notion"))
    if not settings.names_something:
        raise NotionError("[taps.notion] names nothing to pull: add page_ids, database_ids or "
                          "search to it in vault-engine.toml")
    token = read_token(settings.token_env, os.environ if environ is None else environ)
    api = NotionApi(token, settings.token_env, settings.base_url, sleep)
    try:
        return Sync(config, settings, api, time.time() if now is None else now).run(prune)
    finally:
        api.close()


class Sync:
    """One sync run: a queue of pages to pull, what was fetched, what vanished."""

    def __init__(self, config: Config, settings: SyncSettings, api: NotionApi, now: float):
        self.config, self.settings, self.api, self.now = config, settings, api, now
        self.existing, duplicates = scan_existing(config.root, [*tap_folders(config), settings.folder])
        self.problems: list[Problem] = list(duplicates)
        self.known = KnownPages({ident: note.stem for ident, note in self.existing.items()})
        self.queue: deque[tuple[dict | None, str, str]] = deque()  # (page object, id, why)
        self.seen: set[str] = set()
        self.fetched: list[tuple[str, dict, list]] = []  # pages whose blocks were read
        self.databases: list[tuple[str, dict, list]] = []
        self.gone_ids: set[str] = set()
        self.gone_said: list[tuple[str, str, str]] = []  # (id, why it was pulled, Notion's answer)
        self.failed_ids: set[str] = set()
        self.page_of: dict[str, str] = {}  # a child page's or inline database's page
        self.not_fetched = 0

    def run(self, prune: bool) -> NotionReport:
        """Pull, write the notes, and report (``prune`` deletes notes of vanished pages)."""
        for ident in self.settings.page_ids:
            self.queue.append((None, ident, "taps.notion.page_ids"))
        for ident in self.settings.database_ids:
            self._pull_database(ident)
        if self.settings.search is not None:
            for page in self.api.search_pages(self.settings.search):
                self.queue.append((page, normalize_id(page.get("id")) or "", "taps.notion.search"))
        for ident in sorted(self._remembered() - set(self.existing)):  # their notes were deleted since
            self.queue.append((None, ident, DELETED_NOTE))
        while self.queue:
            self._pull(*self.queue.popleft())
        self._check_unseen()
        writer = PageWriter(self.config.root, self.settings.folder, SYNC_SOURCE, self.now,
                            self.existing)
        names = self._plan(writer)
        if self._fetch_linking(names):  # notes naming a page by the name a rename takes from it
            names = self._plan(writer)
        # Links name the file each note has (pages not fetched keep theirs) or will have.
        self.known.stems.update({ident: note.stem for ident, note in self.existing.items()})
        self.known.stems.update({ident: stem_of(rel) for ident, rel in names.items()})
        result = writer.write_all(self._render(), names)  # rendered last: every stem is known by now
        gone = sorted((self.existing[i] for i in self.gone_ids), key=lambda n: n.rel_path)
        prunable = [n for n in gone if not n.edited_locally]
        refused = self._prune_refused(prunable) if prune else ()
        pruned, kept_files = writer.prune(gone) if prune and not refused else ([], [])
        # a page Notion failed on this run is remembered still: the next sync tries it again
        self._remember((set(self.existing) | set(names) | self.failed_ids) - set(pruned_ids(gone, pruned)))
        return NotionReport(
            action="sync", source=SYNC_SOURCE, into=self.settings.folder,
            pages=len(self.fetched) + self.not_fetched, databases=len(self.databases),
            new=tuple(result.new), updated=tuple(result.updated), unchanged=result.unchanged,
            edited=tuple(result.edited), renamed=tuple(result.renamed), not_fetched=self.not_fetched,
            gone=tuple(n.rel_path for n in gone), pruned=tuple(pruned), prune=prune,
            kept_edited=tuple(n.rel_path for n in gone if n.edited_locally),
            problems=tuple(self.problems + self._gone_problems(prune and not refused, bool(refused))
                           + result.problems + kept_files),
            notices=((f"{len(prunable)} note(s) of pages Notion no longer has are kept; a sync that "
                      "prunes deletes them",) if prunable and not prune else ()) + refused,
        )

    def _plan(self, writer: PageWriter) -> dict[str, str]:
        return writer.plan({ident: object_title(obj) for ident, obj, _ in [*self.fetched, *self.databases]})

    def _prune_refused(self, prunable: list) -> tuple[str, ...]:
        """Why nothing is pruned: a page or database the tap names is gone (the integration
        lost its access: every page answers 404), or most of the mirror would go. A sync that
        prunes, with the integration disconnected, had deleted 9 of 11 notes (qa86)."""
        if not prunable:
            return ()
        roots = (set(self.settings.page_ids) | set(self.settings.database_ids)) & self.gone_ids
        mirrored = [n for n in self.existing.values() if n.meta.get("source") == SYNC_SOURCE]
        if not roots and 2 * len(prunable) <= len(mirrored):
            return ()
        why = (f"{', '.join(sorted(f'notion://{r}' for r in roots))} named in [taps.notion] "
               "answered that it is gone" if roots else f"that is {len(prunable)} of the {len(mirrored)} synced notes")
        return (f"--prune would delete {len(prunable)} note(s) of {self.settings.folder}/, but {why}: the "
                "integration may have lost its access to the workspace, so nothing was pruned (check its "
                "connections in Notion, or delete those notes yourself)",)

    def _fetch_linking(self, names: dict[str, str]) -> bool:
        """Read again the synced notes, unchanged in Notion and unedited in the vault, whose
        links name a page by the name this run's rename takes from it: they are written again
        with the new name (a rename in Notion leaves the pages that mention it as they were,
        and the sync had left their links broken, qa86). True when any was read."""
        old_stems = {self.existing[i].stem for i, rel in names.items()
                     if i in self.existing and self.existing[i].rel_path != rel}
        if not old_stems:
            return False
        fetched = {ident for ident, _, _ in [*self.fetched, *self.databases]}
        linking = [n for n in self.existing.values()
                   if n.notion_id not in fetched and n.meta.get("source") == SYNC_SOURCE
                   and n.meta.get("notion_object") != "database" and not n.edited_locally
                   and any(f"[[{stem}" in n.text for stem in old_stems)]
        for note in linking:
            try:
                self.fetched.append((note.notion_id, self.api.page(note.notion_id),
                                     self.api.block_tree(note.notion_id)))
            except (PageGone, PageFailed):
                continue  # said by the report's broken-link line, as before
            self.not_fetched -= note.notion_id in self.seen  # counted as unchanged when reached
        return bool(linking)

    def _remembered(self) -> set[str]:
        """The pages the last sync left notes of (``.vault-engine/notion-sync.json``): a page
        whose note was deleted since, under a parent unchanged in Notion, was never pulled
        again, though a conflict's advice is to delete the note to take Notion's version (qa86)."""
        import json

        try:
            data = json.loads((self.config.state_dir / NOTION_SYNC_FILE).read_text(encoding="utf-8"))
            return {i for i in data.get("pages", ()) if isinstance(i, str) and normalize_id(i) == i}
        except (OSError, ValueError, RecursionError, AttributeError):
            return set()  # none yet (a first sync, a fresh clone): children are found by their parents

    def _remember(self, ids: set[str]) -> None:
        import json

        try:
            write_if_changed(self.config.state_dir / NOTION_SYNC_FILE,
                             json.dumps({"pages": sorted(ids - self.gone_ids)}, indent=0).encode())
        except OSError as exc:  # the notes are written: only the next sync's memory is lost
            log.warning("could not record the synced pages in %s: %s", NOTION_SYNC_FILE, exc)

    def _pull(self, page: dict | None, ident: str, why: str) -> None:
        if not ident or ident in self.seen:
            return
        self.seen.add(ident)
        try:
            page = page if page is not None else self.api.page(ident)
            if page.get("archived") or page.get("in_trash"):
                raise PageGone("in the trash")
            title = object_title(page)
            self.known.stems[ident] = note_stem_for(title, ident)
            old = self.existing.get(ident)
            if old is not None and old.meta.get("source") == SYNC_SOURCE and same_edit_time(
                    old.meta.get("last_edited_time"), page.get("last_edited_time")):
                self.not_fetched += 1  # unchanged: its blocks are not read again
                for child, is_database in self._known_children(ident):
                    self._pull_child(child, is_database, title, ident)
                return
            blocks = self.api.block_tree(ident)
        except PageGone as exc:
            self._gone(ident, why, str(exc))
            return
        except PageFailed as exc:
            self._failed(ident, exc)
            return
        for child_id, child_title, is_database in child_objects(blocks):
            self.known.stems.setdefault(child_id, note_stem_for(child_title, child_id))
            self._pull_child(child_id, is_database, title, ident)
        self.fetched.append((ident, page, blocks))

    def _pull_child(self, ident: str, is_database: bool, parent_title: str, parent: str) -> None:
        """A child page comes too, and so does a database inline in a page, with its rows
        (its note had been linked and never written, qa170). Its note's parent is the page
        whose blocks hold it, also inside a toggle (whose block Notion names as its parent):
        an unchanged page pulls its children by that parent (qa176)."""
        self.page_of[ident] = parent
        if is_database:
            self._pull_database(ident, f"child database of {parent_title}")
        else:
            self.queue.append((None, ident, f"child page of {parent_title}"))

    def _pull_database(self, ident: str, why: str = "taps.notion.database_ids") -> None:
        if ident in self.seen:
            return
        self.seen.add(ident)
        try:
            database = self.api.database(ident)
            rows = [row for source in database.get("data_sources") or ()
                    for row in self.api.data_source_rows(source["id"])]
        except PageGone as exc:
            self._gone(ident, why, str(exc))
            return
        except PageFailed as exc:
            self._failed(ident, exc)
            return
        title = object_title(database)
        self.known.stems[ident] = note_stem_for(title, ident)
        for row in rows:
            self.queue.append((row, normalize_id(row.get("id")) or "", f"database {title}"))
        self.databases.append((ident, database, rows))

    def _known_children(self, ident: str) -> list[tuple[str, bool]]:
        """(id, whether a database) of the synced notes whose parent is ``ident``."""
        return [(n.notion_id, n.meta.get("notion_object") == "database") for n in self.existing.values()
                if n.meta.get("source") == SYNC_SOURCE and normalize_id(str(n.meta.get("parent_id") or "")) == ident]

    def _check_unseen(self) -> None:
        """Notes of earlier syncs that this one did not reach: ask Notion whether they still
        exist, so a deleted page is reported (and pruned on request), never silently kept."""
        for note in sorted(self.existing.values(), key=lambda n: n.rel_path):
            if note.meta.get("source") != SYNC_SOURCE or note.notion_id in self.seen:
                continue
            try:
                if note.meta.get("notion_object") == "database":
                    found = self.api.database(note.notion_id)
                else:
                    found = self.api.page(note.notion_id)
                if found.get("archived") or found.get("in_trash"):
                    raise PageGone("in the trash")
            except PageGone as exc:
                self._gone(note.notion_id, note.rel_path, str(exc))
            except PageFailed as exc:
                self._failed(note.notion_id, exc)

    def _failed(self, ident: str, exc: PageFailed) -> None:
        """A page Notion failed on this run: named, its note kept, its known children still
        pulled; never taken for gone."""
        self.failed_ids.add(ident)
        note = self.existing.get(ident)
        for child, is_database in self._known_children(ident):
            self._pull_child(child, is_database, "a page Notion failed on", ident)
        kept = f"its note {note.rel_path} is kept as it was" if note else "no note is written for it"
        self.problems.append(Problem(f"notion://{ident}", f"not synced this run ({exc}): {kept}; the next sync "
                                                          "tries again"))

    def _gone(self, ident: str, why: str, reason: str) -> None:
        """A page Notion no longer has: said once the run knows whether it prunes."""
        if ident in self.existing:
            self.gone_ids.add(ident)
        self.gone_said.append((ident, why, reason))

    def _gone_problems(self, pruning: bool, refused: bool) -> list[Problem]:
        """A line for each page Notion no longer has; "deleted" only when the prune ran (a
        refused prune had first said each note was deleted by it, qa91)."""
        problems = []
        for ident, why, reason in self.gone_said:
            note = self.existing.get(ident)
            if note is not None and note.edited_locally:
                action = f"its note {note.rel_path} is kept: edited in the vault, so no prune deletes it"
            elif note is not None and pruning:
                action = f"its note {note.rel_path} is deleted by this sync's --prune"
            elif note is not None:
                action = f"its note {note.rel_path} is kept " + (
                    "(--prune deleted nothing: see below)" if refused else "(a sync that prunes deletes it)")
            elif why == DELETED_NOTE:
                action = "its note had been deleted in the vault: the page is forgotten"
            else:
                action = f"check the id in {why}, and that the page is shared with the integration"
            problems.append(Problem(f"notion://{ident}", f"Notion has no such page ({reason}): {action}"))
        return problems

    def _render(self) -> list[NotionPage]:
        pages = []
        for ident, page, blocks in self.fetched:
            url = (("url", page["url"]),) if page.get("url") else ()
            pages.append(NotionPage(ident, object_title(page), page_markdown(page, blocks, self.known),
                                    self.page_of.get(ident) or parent_of(page), page.get("created_time"),
                                    page.get("last_edited_time"), url))
        for ident, database, rows in self.databases:
            title = object_title(database)
            extra = (("notion_object", "database"),) + ((("url", database["url"]),) if database.get("url") else ())
            pages.append(NotionPage(ident, title, database_markdown(title, rows, self.known),
                                    self.page_of.get(ident) or parent_of(database), database.get("created_time"),
                                    database.get("last_edited_time"), extra))
        return pages


def pruned_ids(gone: list, pruned: list[str]) -> list[str]:
    """The ids of the gone notes a prune deleted."""
    deleted = set(pruned)
    return [n.notion_id for n in gone if n.rel_path in deleted]


def child_objects(blocks: list[dict[str, Any]]) -> Iterator[tuple[str, str, bool]]:
    """(id, title, whether a database) of every child page and inline database among the
    blocks, at any depth."""
    for block in blocks:
        kind = block.get("type")
        if kind in ("child_page", "child_database"):
            ident = normalize_id(block.get("id"))
            if ident:
                yield ident, (block.get(kind) or {}).get("title") or "Untitled", kind == "child_database"
        yield from child_objects(block.get("children") or [])


def parent_of(obj: dict[str, Any]) -> str | None:
    """The id of the page or database above a page (a data source counts as its database)."""
    parent = obj.get("parent") or {}
    kind = parent.get("type")
    if kind == "data_source_id":
        return normalize_id(parent.get("database_id") or parent.get("data_source_id"))
    if kind in ("page_id", "database_id", "block_id"):
        return normalize_id(parent.get(kind))
    return None
