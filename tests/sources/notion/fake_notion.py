"""A small fake of the Notion API (/v1, version 2025-09-03) on 127.0.0.1, in a thread.

Enough for ``notion sync``: pages, block children, databases with data sources, data source
queries, search. Lists are paginated with ``start_cursor``/``has_more`` (the server caps the
page size, so pagination really happens); failures can be scripted per request path; every
request is logged so tests can see what the real notion-client sent.
"""

from __future__ import annotations

import json
import threading
from collections import defaultdict, deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse


def dashed(ident: str) -> str:
    return f"{ident[:8]}-{ident[8:12]}-{ident[12:16]}-{ident[16:20]}-{ident[20:]}"


def text(content: str, link: str | None = None, **annotations: bool) -> dict[str, Any]:
    """One rich text item, as the API returns it."""
    marks = {"bold": False, "italic": False, "strikethrough": False, "underline": False,
             "code": False, "color": "default", **annotations}
    return {"type": "text", "text": {"content": content, "link": {"url": link} if link else None},
            "annotations": marks, "plain_text": content, "href": link}


def mention(page_id: str, title: str) -> dict[str, Any]:
    return {"type": "mention", "mention": {"type": "page", "page": {"id": dashed(page_id)}},
            "annotations": {}, "plain_text": title, "href": f"https://www.notion.so/{page_id}"}


def block(ident: str, kind: str, data: dict[str, Any] | None = None,
          has_children: bool = False) -> dict[str, Any]:
    return {"object": "block", "id": dashed(ident), "type": kind, "has_children": has_children,
            kind: data if data is not None else {}}


def page(ident: str, title: str, edited: str, parent: dict | None = None,
         properties: dict | None = None) -> dict[str, Any]:
    props = {"Name": {"id": "title", "type": "title", "title": [text(title)]}, **(properties or {})}
    return {"object": "page", "id": dashed(ident), "created_time": "2026-11-01T09:00:00.000Z",
            "last_edited_time": edited, "archived": False, "in_trash": False,
            "url": f"https://www.notion.so/{title.replace(' ', '-')}-{ident}",
            "parent": parent or {"type": "workspace", "workspace": True}, "properties": props}


@dataclass
class Reply:
    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)
    raw: bytes | None = None  # sent instead of the body as JSON: an answer cut off


def error(status: int, code: str, message: str, **headers: str) -> Reply:
    return Reply(status, {"object": "error", "status": status, "code": code, "message": message},
                 headers)


@dataclass
class FakeNotion:
    token: str = "ntn_test_secret_0123456789"
    page_size: int = 2
    pages: dict[str, dict] = field(default_factory=dict)
    children: dict[str, list[dict]] = field(default_factory=dict)
    databases: dict[str, dict] = field(default_factory=dict)
    data_sources: dict[str, list[str]] = field(default_factory=dict)  # id -> row page ids
    failures: dict[str, deque] = field(default_factory=lambda: defaultdict(deque))
    log: list[tuple[str, str, dict]] = field(default_factory=list)
    headers_seen: list[dict[str, str]] = field(default_factory=list)

    def __enter__(self) -> FakeNotion:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def fail_next(self, path: str, reply: Reply) -> None:
        """Answer the next request to ``path`` (e.g. ``/v1/pages/<id>``) with ``reply``."""
        self.failures[path].append(reply)

    def requests(self, prefix: str = "") -> list[tuple[str, str, dict]]:
        return [entry for entry in self.log if entry[1].startswith(prefix)]

    # -- routing ---------------------------------------------------------------------------

    def answer(self, method: str, path: str, args: dict[str, Any], auth: str | None) -> Reply:
        self.log.append((method, path, args))
        if self.failures.get(path):
            return self.failures[path].popleft()
        if auth != f"Bearer {self.token}":
            return error(401, "unauthorized", "API token is invalid.")
        parts = path.strip("/").split("/")[1:]  # drop "v1"
        ident = parts[1].replace("-", "") if len(parts) > 1 else ""
        if parts[0] == "pages" and len(parts) == 2:
            return self._object(self.pages, ident, "page")
        if parts[0] == "blocks" and parts[2:] == ["children"]:
            if ident not in self.children and ident not in self.pages:
                return error(404, "object_not_found", f"Could not find block with ID: {ident}.")
            return self._list(self.children.get(ident, []), args)
        if parts[0] == "databases" and len(parts) == 2:
            return self._object(self.databases, ident, "database")
        if parts[0] == "data_sources" and parts[2:] == ["query"]:
            rows = [self.pages[i] for i in self.data_sources.get(ident, []) if i in self.pages]
            return self._list(rows, args)
        if parts[0] == "search":
            query = str(args.get("query", "")).casefold()
            found = [p for p in self.pages.values() if query in _title(p).casefold()]
            return self._list(found, args)
        return error(400, "invalid_request_url", f"no route {method} {path}")

    def _object(self, table: dict[str, dict], ident: str, kind: str) -> Reply:
        if ident not in table:
            return error(404, "object_not_found", f"Could not find {kind} with ID: {ident}.")
        return Reply(200, table[ident])

    def _list(self, items: list[dict], args: dict[str, Any]) -> Reply:
        start = int(args.get("start_cursor") or 0)
        size = min(int(args.get("page_size") or 100), self.page_size)
        chunk = items[start:start + size]
        more = start + size < len(items)
        return Reply(200, {"object": "list", "results": chunk, "has_more": more,
                           "next_cursor": str(start + size) if more else None})

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def _serve(self, method: str) -> None:
                url = urlparse(self.path)
                args: dict[str, Any] = {k: v[0] for k, v in parse_qs(url.query).items()}
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    args.update(json.loads(self.rfile.read(length)))
                fake.headers_seen.append(dict(self.headers))
                reply = fake.answer(method, url.path, args, self.headers.get("Authorization"))
                data = reply.raw if reply.raw is not None else json.dumps(reply.body).encode()
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                self._serve("GET")

            def do_POST(self) -> None:
                self._serve("POST")

            def log_message(self, *args) -> None:  # keep test output clean
                pass

        return Handler


def _title(obj: dict) -> str:
    for prop in obj.get("properties", {}).values():
        if prop.get("type") == "title":
            return "".join(t["plain_text"] for t in prop["title"])
    return ""
