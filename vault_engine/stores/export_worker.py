"""The torch half of the ONNX export, in a process of its own.

``index`` needs the export before it embeds anything, and making it needs torch: the model
loaded, traced to ONNX. Done inside ``index``'s own process, torch and the model (about
570 MB) would stay resident through the whole embedding run although ONNX Runtime does all
of it. So a child process loads the model, writes the traced graph and the model's own
vectors of the probe texts, and exits; ``index`` then checks and keeps the export
(:func:`vault_engine.stores.query_encoder.finish_export`) and never imports torch itself.
"""

from __future__ import annotations

import atexit
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import asdict
from functools import cache
from pathlib import Path

from vault_engine.locks import die_with_parent
from vault_engine.stores.embedder import ModelSpec


class ExportChild:
    """One export under way in a child process. ``index`` starts it as soon as its plan shows
    sections to embed or to search (``SentenceTransformerEmbedder.begin_export``), so the
    seconds torch takes to import, load and trace pass on the other core while the words are
    indexed; the embedding phase then waits for it (:meth:`finish`). A child nobody finishes
    (Ctrl-C, an error) is stopped when this process ends, and its files go with it."""

    def __init__(self, spec: ModelSpec, model_folder: Path, target: Path, max_tokens: int):
        from vault_engine.stores.query_encoder import traced_path

        self.model_folder, self.target, self.max_tokens = model_folder, target, max_tokens
        self.traced = traced_path(target)
        self.expected = self.traced.with_name(self.traced.name + ".probes.npy")
        self.failure: str | None = None
        self.process: subprocess.Popen | None = None
        # Files, not pipes: nobody reads a pipe while the words are indexed, and a child
        # that filled one with warnings would wait on it.
        self.output = tempfile.TemporaryFile("w+")
        try:
            self.process = subprocess.Popen([sys.executable, "-m", __name__, json.dumps(asdict(spec)),
                                             str(self.traced), str(self.expected), str(os.getpid())],
                                            stdout=self.output, stderr=subprocess.STDOUT, text=True)
        except OSError as exc:
            self.failure = f"the export process failed ({type(exc).__name__}: {exc})"
        _unfinished.add(self)
        _stop_unfinished_at_exit()

    def finish(self, encoders: list | None = None) -> str | None:
        """Wait for the child, check its graph and keep it at ``target``: None when kept (the
        checked encoder appended to ``encoders``), else why not."""
        import numpy as np

        from vault_engine.stores.query_encoder import finish_export

        try:
            if self.process is None:
                return self.failure
            self.process.wait(timeout=1800)
            self.output.seek(0)
            lines = self.output.read().strip().splitlines() or ["no output"]
            if self.process.returncode != 0 or not lines[-1].startswith("{"):
                return f"the export process failed ({lines[-1][:160]})"
            reason = json.loads(lines[-1])["reason"]
            if reason:
                return reason
            return finish_export(self.traced, self.model_folder, self.target, self.max_tokens,
                                 np.load(self.expected), encoders)
        except (OSError, ValueError, subprocess.TimeoutExpired) as exc:
            return f"the export process failed ({type(exc).__name__}: {exc})"
        finally:
            self.stop()

    def stop(self) -> None:
        """End the child if it still runs, and remove what it wrote."""
        _unfinished.discard(self)
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.output.close()
        self.traced.unlink(missing_ok=True)
        self.expected.unlink(missing_ok=True)


_unfinished: set[ExportChild] = set()


@cache
def _stop_unfinished_at_exit() -> None:  # registered once per process
    atexit.register(_stop_unfinished)


def _stop_unfinished() -> None:
    for child in list(_unfinished):
        child.stop()


def export_in_subprocess(spec: ModelSpec, model_folder: Path, target: Path, max_tokens: int,
                         encoders: list | None = None) -> str | None:
    """Export the model of ``spec`` to ``target`` (traced in a child process, checked here);
    None when it is kept, else why not."""
    return ExportChild(spec, model_folder, target, max_tokens).finish(encoders)


def main(argv: list[str]) -> int:
    """Child side: load the model, write the traced graph and the probes' vectors; print
    ``{"reason": null}`` or why it cannot be exported."""
    import numpy as np

    from vault_engine.errors import ModelUnavailable
    from vault_engine.stores.embedder import SentenceTransformerEmbedder
    from vault_engine.stores.query_encoder import PROBES, describe, trace, unsupported

    spec, traced, expected = ModelSpec(**json.loads(argv[0])), Path(argv[1]), Path(argv[2])
    # after a kill -9 of `index`, this child went on for 10-14 s of torch and wrote 90 MB nobody used
    die_with_parent(int(argv[3]) if len(argv) > 3 else None)
    try:
        embedder = SentenceTransformerEmbedder(spec)
        reason = unsupported(embedder.model)
        if reason is None:
            np.save(expected, embedder.model_vectors(list(PROBES)))
            trace(embedder.model, traced)
    except ModelUnavailable as exc:
        reason = str(exc)
    except Exception as exc:  # noqa: BLE001 - an op ONNX lacks, onnx missing: the model embeds
        reason = describe(exc)
    print(json.dumps({"reason": reason}))
    return 0


if __name__ == "__main__":
    status = main(sys.argv[1:])
    # Its files are written and closed, and ``index`` waits for this process to end: tearing
    # down torch and transformers at interpreter exit would add about 0.9 s to that wait.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)
