"""The torch half of the ONNX export, in a process of its own.

``index`` needs the export before it embeds anything, and making it needs torch: the model
loaded, traced to ONNX. Done inside ``index``'s own process, torch and the model (about
570 MB) would stay resident through the whole embedding run although ONNX Runtime does all
of it. So a child process loads the model, writes the traced graph and the model's own
vectors of the probe texts, and exits; ``index`` then checks and keeps the export
(:func:`vault_engine.stores.query_encoder.finish_export`) and never imports torch itself.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

from vault_engine.stores.embedder import ModelSpec


def export_in_subprocess(spec: ModelSpec, model_folder: Path, target: Path, max_tokens: int) -> str | None:
    """Export the model of ``spec`` to ``target`` (traced in a child process, checked here);
    None when it is kept, else why not."""
    import numpy as np

    from vault_engine.stores.query_encoder import finish_export, traced_path

    traced = traced_path(target)
    expected = traced.with_name(traced.name + ".probes.npy")
    try:
        done = subprocess.run([sys.executable, "-m", __name__, json.dumps(asdict(spec)), str(traced), str(expected)],
                              capture_output=True, text=True, timeout=1800)
        lines = done.stdout.strip().splitlines()
        if done.returncode != 0 or not lines:
            return f"the export process failed ({(done.stderr.strip().splitlines() or ['no output'])[-1][:160]})"
        reason = json.loads(lines[-1])["reason"]
        if reason:
            return reason
        return finish_export(traced, model_folder, target, max_tokens, np.load(expected))
    except (OSError, ValueError, subprocess.TimeoutExpired) as exc:
        return f"the export process failed ({type(exc).__name__}: {exc})"
    finally:
        traced.unlink(missing_ok=True)
        expected.unlink(missing_ok=True)


def main(argv: list[str]) -> int:
    """Child side: load the model, write the traced graph and the probes' vectors; print
    ``{"reason": null}`` or why it cannot be exported."""
    import numpy as np

    from vault_engine.errors import ModelUnavailable
    from vault_engine.stores.embedder import SentenceTransformerEmbedder
    from vault_engine.stores.query_encoder import PROBES, describe, trace, unsupported

    spec, traced, expected = ModelSpec(**json.loads(argv[0])), Path(argv[1]), Path(argv[2])
    try:
        embedder = SentenceTransformerEmbedder(spec)
        reason = unsupported(embedder.model)
        if reason is None:
            np.save(expected, embedder._model_vectors(list(PROBES)))
            trace(embedder.model, traced)
    except ModelUnavailable as exc:
        reason = str(exc)
    except Exception as exc:  # noqa: BLE001 - an op ONNX lacks, onnx missing: the model embeds
        reason = describe(exc)
    print(json.dumps({"reason": reason}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
