"""The ONNX export that embeds queries (vault_engine/stores/query_encoder.py), with the real
model: it gives the model's own vectors, a new process uses it without importing torch, an
export that does not match is never kept, and a damaged file falls back to the model."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from vault_engine.stores.embedder import SentenceTransformerEmbedder
from vault_engine.stores.query_encoder import FILE_PREFIX, OnnxQueryEncoder, export, unsupported

TEXTS = [
    "schedule a chore to come back weekly",
    "",
    "Ünïcödé naïve café — 東京 🚀",
    "retry   with\tspaces\nand lines",
    " ".join(f"token{i} recurrence due" for i in range(300)),  # far past the 256-token window
]


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    embedder = SentenceTransformerEmbedder(query_dir=tmp_path_factory.mktemp("query"))
    assert embedder.save_query_model() is None
    return embedder


@pytest.mark.model
def test_the_export_gives_the_models_own_vectors(exported):
    fresh = SentenceTransformerEmbedder(query_dir=exported.query_dir)
    got = fresh.embed_queries(TEXTS)
    assert type(fresh._query_encoder).__name__ == "OnnxQueryEncoder"  # the export answered
    assert got.shape == (len(TEXTS), 384) and got.dtype == np.float32
    assert np.abs(got - exported.embed(TEXTS)).max() < 1e-4
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)


@pytest.mark.model
def test_a_new_process_embeds_queries_without_importing_torch(exported):
    script = ("import json, sys\nfrom pathlib import Path\n"
              "from vault_engine.stores.embedder import SentenceTransformerEmbedder\n"
              "e = SentenceTransformerEmbedder(query_dir=Path(sys.argv[1]))\n"
              "v = e.embed_queries([sys.argv[2]])[0]\n"
              "print(json.dumps(['torch' in sys.modules, v.tolist()]))\n")
    done = subprocess.run([sys.executable, "-c", script, str(exported.query_dir), TEXTS[0]],
                          capture_output=True, text=True, timeout=120)
    torch_loaded, vector = json.loads(done.stdout)
    assert torch_loaded is False
    assert np.abs(np.array(vector) - exported.embed(TEXTS[:1])[0]).max() < 1e-4


@pytest.mark.model
def test_an_export_that_differs_from_the_model_is_not_kept(exported, tmp_path):
    target = tmp_path / f"{FILE_PREFIX}test.onnx"
    reason = export(exported.model, Path(exported.path), target, lambda texts: -exported.embed(texts))
    assert reason is not None and "differs from the model" in reason
    assert list(tmp_path.iterdir()) == []  # neither the file nor its temp copy


@pytest.mark.model
def test_a_damaged_export_falls_back_to_the_model_and_is_made_again(exported, tmp_path, caplog):
    embedder = SentenceTransformerEmbedder(query_dir=tmp_path)
    embedder.query_model_path.write_bytes(b"not an onnx graph")
    vectors = embedder.embed_queries(TEXTS[:1])
    assert np.abs(vectors - exported.embed(TEXTS[:1])).max() < 1e-6  # the model answered
    assert "damaged" in caplog.text and embedder.query_model_path.name in caplog.text
    assert not embedder.query_model_path.exists()  # derived: the next index writes it again
    assert embedder.save_query_model() is None and embedder.query_model_path.is_file()
    fresh = SentenceTransformerEmbedder(query_dir=tmp_path)
    assert np.abs(fresh.embed_queries(TEXTS[:1]) - vectors).max() < 1e-4


def test_only_transformer_plus_mean_pooling_is_exported():
    def module(name, **attrs):
        return type(name, (), attrs)()

    assert unsupported([module("Transformer"), module("Pooling", pooling_mode="mean")]) is None
    assert unsupported([module("Transformer"), module("Pooling", pooling_mode="mean"), module("Normalize")]) is None
    assert "cls" in unsupported([module("Transformer"), module("Pooling", pooling_mode="cls")])
    assert "Dense" in unsupported([module("Transformer"), module("Pooling", pooling_mode="mean"), module("Dense")])


@pytest.mark.model
def test_documents_in_padded_batches_get_the_models_own_vectors(exported):
    """Texts of very different lengths share a batch: padding and the mask change nothing."""
    texts = TEXTS + ["a", "short one", " ".join(["window"] * 200), "Ünïcödé " * 40]
    encoder = OnnxQueryEncoder(exported.query_model_path, Path(exported.path), exported.max_tokens)
    got = encoder.embed_batched(texts, batch_size=len(texts))  # one padded batch
    assert got.shape == (len(texts), 384) and got.dtype == np.float32
    assert np.abs(got - exported._model_vectors(texts)).max() < 1e-4
    fresh = SentenceTransformerEmbedder(query_dir=exported.query_dir)
    assert fresh.runtime == "onnxruntime"
    assert np.abs(fresh.embed(texts) - got).max() < 1e-5  # its own batches: the same rows


@pytest.mark.model
def test_the_kept_export_is_fused_for_onnx_runtime(exported):
    import onnx

    ops = {node.op_type for node in onnx.load(str(exported.query_model_path)).graph.node}
    assert {"Attention", "SkipLayerNormalization"} <= ops  # one kernel per attention block


@pytest.mark.model
def test_token_spans_come_from_the_tokenizer_file_as_the_model_cuts_them(exported):
    texts = TEXTS + ["def f(x): return x**2  # naïve", "", "  leading and trailing  "]
    fresh = SentenceTransformerEmbedder()
    from_file = fresh.token_spans(texts)
    encoded = exported.model.tokenizer(texts, add_special_tokens=False, return_offsets_mapping=True)
    assert from_file == [[tuple(span) for span in spans] for spans in encoded["offset_mapping"]]
    assert len(from_file[4]) > 256  # not truncated: windows are cut from every token


@pytest.mark.model
def test_a_new_process_embeds_documents_without_importing_torch(exported):
    script = ("import json, sys\nfrom pathlib import Path\n"
              "from vault_engine.stores.embedder import SentenceTransformerEmbedder\n"
              "e = SentenceTransformerEmbedder(query_dir=Path(sys.argv[1]))\n"
              "spans = e.token_spans([sys.argv[2]])\n"
              "v = e.embed([sys.argv[2], 'x'])\n"
              "print(json.dumps(['torch' in sys.modules, e.runtime, e.dimension, v[0].tolist()]))\n")
    done = subprocess.run([sys.executable, "-c", script, str(exported.query_dir), TEXTS[3]],
                          capture_output=True, text=True, timeout=120)
    torch_loaded, runtime, dimension, vector = json.loads(done.stdout)
    assert (torch_loaded, runtime, dimension) == (False, "onnxruntime", 384)
    assert np.abs(np.array(vector) - exported._model_vectors(TEXTS[3:4])[0]).max() < 1e-4


@pytest.mark.model
def test_an_export_is_fetched_from_the_shared_cache_without_torch(exported, tmp_path):
    shared = tmp_path / "team"
    assert exported.save_query_model(shared) is None  # offered to the team
    assert (shared / "exports" / exported.query_model_path.name).is_file()
    script = ("import json, sys\nfrom pathlib import Path\n"
              "from vault_engine.stores.embedder import SentenceTransformerEmbedder\n"
              "e = SentenceTransformerEmbedder(query_dir=Path(sys.argv[1]))\n"
              "reason = e.save_query_model(Path(sys.argv[2]))\n"
              "print(json.dumps([reason, 'torch' in sys.modules, e.runtime]))\n")
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path / "clone"), str(shared)],
                          capture_output=True, text=True, timeout=120)
    assert json.loads(done.stdout) == [None, False, "onnxruntime"]
    assert (tmp_path / "clone" / exported.query_model_path.name).read_bytes() == \
        exported.query_model_path.read_bytes()


@pytest.mark.model
def test_a_new_vault_takes_the_export_from_the_users_cache_without_torch(exported, tmp_path, monkeypatch):
    user = tmp_path / "user-cache"
    env = {**os.environ, "VAULT_ENGINE_CACHE": str(user)}
    script = ("import json, sys\nfrom pathlib import Path\n"
              "from vault_engine.stores.embedder import SentenceTransformerEmbedder\n"
              "e = SentenceTransformerEmbedder(query_dir=Path(sys.argv[1]))\n"
              "reason = e.save_query_model()\n"
              "print(json.dumps([reason, 'torch' in sys.modules, e.runtime]))\n")
    # The first vault on the machine offers its verified export to the user's cache...
    done = subprocess.run([sys.executable, "-c", script, str(exported.query_dir)],
                          capture_output=True, text=True, timeout=120, env=env)
    assert json.loads(done.stdout)[0] is None, done.stderr
    assert (user / "exports" / exported.query_model_path.name).is_file()
    assert oct(user.stat().st_mode & 0o777) == "0o700"
    # ...and a new vault's index takes it from there: no torch, the same bytes.
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path / "new-vault")],
                          capture_output=True, text=True, timeout=120, env=env)
    assert json.loads(done.stdout) == [None, False, "onnxruntime"], done.stderr
    assert (tmp_path / "new-vault" / exported.query_model_path.name).read_bytes() == \
        exported.query_model_path.read_bytes()
    # Turned off (VAULT_ENGINE_CACHE=""): nothing is read from it.
    from vault_engine.stores.embedder import user_export_cache
    monkeypatch.setenv("VAULT_ENGINE_CACHE", "")
    assert user_export_cache() is None
