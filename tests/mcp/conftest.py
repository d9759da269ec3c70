"""Fixtures for the MCP tests: an indexed copy of sample-vault/, and a real `vault-engine mcp`
process spoken to by the SDK's own client (ClientSession over stdio_client).

The server runs under a small wrapper that, when the process exits, writes which heavy
modules it had imported: the probe of "no torch at start, none for lexical work"."""

from __future__ import annotations

import asyncio
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
WATCHED = ("torch", "sentence_transformers", "transformers", "onnxruntime", "vault_engine.vault", "sqlite3", "whoosh")
WRAPPER = (
    "import atexit, json, sys\n"
    "probe = sys.argv.pop(1)\n"
    f"watched = {WATCHED!r}\n"
    "atexit.register(lambda: open(probe, 'w').write(json.dumps([m for m in watched if m in sys.modules])))\n"
    "from vault_engine.cli.main import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


# A little code beside the notes, so the code tools (find, outline, callers, callees) answer too.
CODE_TAP = '\n[taps.code]\nsource = "code"\npaths = ["src/**"]\n'
ORDERS = """\
class OrderBook:
    def place(self, order):
        self.check(order)
        return order

    def check(self, order):
        return bool(order)


def checkout(book, order):
    return book.place(order)
"""


@pytest.fixture
def indexed_sample(sample_vault) -> Path:
    """sample-vault/ indexed lexically, the model off: every arm that runs is real and fast."""
    config = sample_vault / "vault-engine.toml"
    config.write_text(config.read_text() + CODE_TAP + "\n[model]\nenabled = false\n")
    (sample_vault / "src" / "shop").mkdir(parents=True)
    (sample_vault / "src" / "shop" / "orders.py").write_text(ORDERS, encoding="utf-8")
    from vault_engine.vault import Vault

    with Vault(sample_vault) as vault:
        vault.index(embed=False)
    return sample_vault


@dataclass
class Session:
    """What one spawned server said: its tools, each call's result, what it imported."""

    tools: list[Any] = field(default_factory=list)
    results: list[Any] = field(default_factory=list)
    loaded: list[str] = field(default_factory=list)


def server_env(**extra: str) -> dict[str, str]:
    """The environment for a spawned server: this checkout's code, no model downloads."""
    return {"PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", **extra}


def run_session(root: Path, calls: list[tuple[str, dict]], tmp_path: Path, *, env: dict | None = None,
                between=None, extra_args: tuple[str, ...] = ()) -> Session:
    """Spawn ``vault-engine --vault ROOT mcp``, list its tools, make ``calls`` in order
    (``between(i, result)`` runs after each), and hang up."""
    from mcp import ClientSession, StdioServerParameters, stdio_client

    probe = tmp_path / f"probe-{len(list(tmp_path.glob('probe-*')))}.json"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", WRAPPER, str(probe), "--vault", str(root), *extra_args, "mcp"],
        env=server_env(**(env or {})), cwd=str(tmp_path))
    session = Session()

    async def talk() -> None:
        async with stdio_client(params, errlog=open(tmp_path / "server.err", "a")) as (read, write):
            async with ClientSession(read, write) as client:
                await client.initialize()
                session.tools = (await client.list_tools()).tools
                for i, (name, arguments) in enumerate(calls):
                    result = await client.call_tool(name, arguments)
                    session.results.append(result)
                    if between is not None:
                        between(i, result)

    asyncio.run(asyncio.wait_for(talk(), 120))
    session.loaded = json.loads(probe.read_text()) if probe.exists() else ["<the server did not exit cleanly>"]
    return session


def text_of(result: Any) -> str:
    (content,) = result.content
    return content.text


def server_stderr(tmp_path: Path) -> str:
    path = tmp_path / "server.err"
    return path.read_text() if path.exists() else ""


