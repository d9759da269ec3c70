"""A vector cache a team shares: a folder (a network share, a CI artifact) of section vectors.

Vectors depend only on (model, window, recipe) and the section's text, so they are content-
addressed: whoever embedded a text first, everyone else can take its vectors. ``index
--vector-cache DIR`` (or ``[model] vector_cache``) reads this folder for every section the
local cache lacks and writes what it computes, so a new clone of a team vault embeds only what
nobody embedded before.

Many machines write at once and none may corrupt it, so nothing is ever rewritten: each save
is a new file (one batch of sections), written under a temporary name in the same folder and
renamed into place, which readers see whole or not at all. Files live in a subfolder named by
a digest of the model key, and each names its full model key inside: a file of another model,
window or recipe is never read, and a file that does not parse or disagrees with its folder
is skipped, not trusted. The same folder carries the model's verified ONNX export, so a clone
needs no torch to export it (:func:`publish_export`, :func:`fetch_export`).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import secrets
import socket
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from vault_engine.errors import disk_full

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger(__name__)

SUFFIX = ".npz"
EXPORTS = "exports"


def key_folder(root: Path, model_key: str) -> Path:
    """The subfolder of one model key's vectors."""
    return root / hashlib.blake2b(model_key.encode(), digest_size=8).hexdigest()


def write_atomically(target: Path, write) -> None:
    """``write(file)`` into a temporary sibling, fsync, rename: readers see all or nothing."""
    target.parent.mkdir(parents=True, exist_ok=True)
    temp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    try:
        with open(temp, "wb") as out:
            write(out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, target)
    finally:
        temp.unlink(missing_ok=True)


class SharedVectorCache:
    """(model key, text hash) -> a section's window vectors, in append-only batch files."""

    def __init__(self, root: Path, model_key: str):
        self.root = root
        self.model_key = model_key
        self.folder = key_folder(root, model_key)
        self.read = 0  # sections found here by get_many, for the run's report

    def files(self) -> list[Path]:
        """The batch files written so far (temporary files of writers still at work left out)."""
        if not self.folder.is_dir():
            return []
        return sorted(p for p in self.folder.iterdir() if p.suffix == SUFFIX and not p.name.startswith("."))

    def get_many(self, hashes: Iterable[str]) -> dict[str, np.ndarray]:
        """The vectors of these text hashes that some writer stored (absent ones left out)."""
        wanted = set(hashes)
        found: dict[str, np.ndarray] = {}
        for path in self.files():
            if not wanted - found.keys():
                break
            found.update(self._read(path, wanted - found.keys()))
        self.read += len(found)
        return found

    def _read(self, path: Path, wanted: set[str]) -> dict[str, np.ndarray]:
        """The wanted vectors of one file; nothing from a file that is damaged or of another key."""
        import numpy as np

        try:
            with np.load(path, allow_pickle=False) as data:
                if str(data["key"]) != self.model_key:
                    log.warning("shared vector cache: %s is of another model; ignored", path)
                    return {}
                hashes = [str(h) for h in data["hashes"]]
                rows = [i for i, h in enumerate(hashes) if h in wanted]
                if not rows:
                    return {}
                counts = data["counts"].astype(np.int64)
                starts = np.concatenate([[0], np.cumsum(counts)])
                vectors = data["vectors"]
                if vectors.ndim != 2 or vectors.shape[0] != starts[-1] or vectors.dtype != np.float32:
                    raise ValueError("vector rows disagree with the window counts")
                return {hashes[i]: np.array(vectors[starts[i]:starts[i + 1]]) for i in rows}
        except Exception as exc:  # noqa: BLE001 - OSError, BadZipFile, KeyError, ValueError...: skip it
            log.warning("shared vector cache: cannot read %s (%s: %s); ignored", path, type(exc).__name__, exc)
            return {}

    def put_many(self, items: dict[str, np.ndarray]) -> Path | None:
        """Store these sections' vectors as one new file; returns it (None when empty)."""
        import numpy as np

        if not items:
            return None
        hashes = list(items)
        key, stored = np.array(self.model_key), np.array(hashes)
        counts = np.array([items[h].shape[0] for h in hashes], dtype=np.int32)
        vectors = np.concatenate([np.asarray(items[h], dtype=np.float32) for h in hashes])
        name = f"{int(time.time() * 1000)}-{socket.gethostname()[:32]}-{os.getpid()}-{secrets.token_hex(4)}"
        target = self.folder / f"{name}{SUFFIX}"
        write_atomically(target, lambda out: np.savez(out, key=key, hashes=stored, counts=counts, vectors=vectors))
        return target

    def known(self) -> set[str]:
        """Every text hash stored for this model key (the hashes only: vectors stay on disk)."""
        import numpy as np

        seen: set[str] = set()
        for path in self.files():
            try:
                with np.load(path, allow_pickle=False) as data:
                    if str(data["key"]) == self.model_key:
                        seen.update(str(h) for h in data["hashes"])
            except Exception:  # noqa: BLE001 - unreadable files are skipped as in get_many
                continue
        return seen

    def count(self) -> int:
        """Distinct texts stored for this model key."""
        return len(self.known())


# -- the model's ONNX export, shared too -------------------------------------------------------

def publish_export(root: Path, export: Path, probe_vectors: Callable[[], np.ndarray | None]) -> None:
    """Put a verified export into the shared folder, with its digest and its vectors of the
    probe texts (``probe_vectors()``, asked only when needed), unless it is there already."""
    target = root / EXPORTS / export.name
    manifest = target.with_suffix(".json")
    if manifest.is_file():
        return
    vectors = probe_vectors()
    if vectors is None:
        return
    copied = []
    with open(export, "rb") as source:
        write_atomically(target, lambda out: copied.append(_copy(source, out)))
    record = {"name": export.name, "digest": copied[0], "probes": vectors.tolist()}
    write_atomically(manifest, lambda out: out.write(json.dumps(record).encode()))


def holds_export(root: Path, name: str) -> bool:
    """The folder has an export of this name with its manifest (whether it is accepted is
    for :func:`fetch_export` to say)."""
    source = root / EXPORTS / name
    return source.is_file() and source.with_suffix(".json").is_file()


def fetch_export(root: Path, target: Path, check) -> bool:
    """Copy the shared export named like ``target`` into place (a copy, never a hard link:
    linked, one vault's damaged file was every vault's and the cache's, and a truncated
    export sent every search of every vault back to torch) when its bytes match their
    digest and ``check(path, probes)`` accepts its vectors; False when there is none or it is
    refused (the caller exports itself then)."""
    if not holds_export(root, target.name):
        return False
    source = root / EXPORTS / target.name
    manifest = source.with_suffix(".json")
    try:
        record = json.loads(manifest.read_text())
        temp = target.with_name(f".{target.name}.fetch.tmp")
        target.parent.mkdir(parents=True, exist_ok=True)
        temp.unlink(missing_ok=True)  # a killed run's leftover, maybe a hard link to the cache's file
        with open(source, "rb") as data, open(temp, "wb") as out:
            digest = _copy(data, out)
        if record.get("name") != target.name or digest != record.get("digest"):
            manifest.unlink(missing_ok=True)  # damaged: the next export made here is published in its place
            raise ValueError("its bytes do not match the manifest; removed, so that the next export replaces it")
        if not check(temp, record["probes"]):
            raise ValueError("its vectors of the probe texts differ")
        os.replace(temp, target)
        return True
    except (OSError, ValueError, RecursionError, KeyError, TypeError) as exc:
        if disk_full(exc):  # the copy's disk, not the cache's file (qa44: it read as the cache's fault)
            log.warning("no room to copy the model export into %s: the disk is full; free some space",
                        target.parent)
        else:
            log.warning("model export %s not used (%s); exporting here", source, exc)
        return False
    finally:
        target.with_name(f".{target.name}.fetch.tmp").unlink(missing_ok=True)


def _copy(source, out) -> str:
    """Copy in 1 MB blocks; returns the digest of the bytes (one pass over them)."""
    digest = hashlib.blake2b(digest_size=16)
    for block in iter(lambda: source.read(1 << 20), b""):
        digest.update(block)
        out.write(block)
    return digest.hexdigest()
