"""The evaluation corpora and question sets shared by bench/eval_search.py and eval_deadend.py.

Each set is a JSON-lines file in bench/data/eval/ written *before* any result was looked at,
by helpers who saw the documents and never the engine (bench/data/eval/README.md). A set
names its corpus; :func:`prepare` makes a private working copy of that corpus (never inside
the project), indexed once with the real model and reused by later runs.

Every question is put in ``dev`` or ``test`` by a hash of its id, half each, so the split is
fixed before anything is measured: parameters are chosen on ``dev`` only (leaving one corpus
out), and ``test`` is only ever reported.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

EVAL_DIR = common.BENCH_DIR / "data" / "eval"
WORKDIR = Path("/tmp/vault-engine-eval")


@dataclass(frozen=True)
class Corpus:
    """A real corpus and how it becomes a vault: copied as it is, or imported from Notion."""

    name: str
    source: Path
    notion: bool = False  # a folder of Notion exports, imported with `notion import`

    @property
    def available(self) -> bool:
        return self.source.is_dir()


CORPORA = {
    c.name: c for c in (
        Corpus("obsidian-tasks-docs", common.CORPORA / "obsidian-tasks-docs"),
        Corpus("data-engineering-wiki", common.CORPORA / "data-engineering-wiki"),
        Corpus("notion-export", common.CORPORA / "notion-export", notion=True),
        Corpus("sample-vault", common.REPO / "sample-vault"),
        Corpus("kubernetes-keps", common.CORPORA / "kubernetes-keps"),
        Corpus("madr-adrs", common.CORPORA / "madr-adrs"),
        Corpus("checkpoints", EVAL_DIR / "deadend-checkpoints"),
    )
}


def split_of(item_id: str) -> str:
    """``dev`` or ``test``, fixed by the id alone (half each, whatever the file order)."""
    return "test" if hashlib.sha1(item_id.encode()).digest()[0] % 2 else "dev"


def load_jsonl(path: Path) -> list[dict]:
    """One JSON object per line; each gets its ``split``."""
    items = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    for item in items:
        item.setdefault("split", split_of(item["id"]))
    return items


def prepare(corpus: Corpus, workdir: Path = WORKDIR, *, layout: str = "") -> Path:
    """The working copy of ``corpus`` (made once; its index is reused). ``layout`` names a
    variant folder when one corpus is laid out twice."""
    root = workdir / (corpus.name + (f"-{layout}" if layout else ""))
    if root.is_dir():
        return root
    if corpus.notion:
        _import_notion(corpus.source, root)
    else:
        shutil.copytree(corpus.source, root, ignore=shutil.ignore_patterns(".vault-engine"))
    return root


def _import_notion(source: Path, root: Path) -> None:
    """Each export under ``notion/<export>``, through the product's own import (words only:
    the caller indexes with the model)."""
    from vault_engine.vault import Vault

    root.mkdir(parents=True)
    with Vault(root) as vault:
        for export in sorted(p for p in source.iterdir() if p.is_dir()):
            vault.notion_import(export, into=f"notion/{export.name}", embed=False)


def notion_id_of(path: str) -> str | None:
    """The 32-hex Notion id at the end of an exported page's file name."""
    stem = path.rsplit("/", 1)[-1].removesuffix(".md")
    tail = stem.rsplit(" ", 1)[-1].lower()
    return tail if len(tail) == 32 and all(c in "0123456789abcdef" for c in tail) else None
