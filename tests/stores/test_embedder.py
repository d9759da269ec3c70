"""Embedders (vault_engine/stores/embedder.py): the [model] settings and everything the real
embedder must know without loading torch. Loading the model itself is tested in
tests/test_semantic_e2e.py."""

import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from vault_engine.errors import ConfigError, ModelUnavailable
from vault_engine.stores.embedder import (
    FakeEmbedder,
    ModelSpec,
    SentenceTransformerEmbedder,
    bundled_model_path,
    in_background,
    thread_count,
    usable_embedder,
)


def test_model_settings_are_validated_with_the_key_named(tmp_path):
    assert ModelSpec.from_config({}) == ModelSpec()
    spec = ModelSpec.from_config({"path": "models/m", "threads": 2, "window_tokens": 128}, tmp_path)
    assert spec.path == str(tmp_path / "models/m") and spec.threads == 2 and spec.window_tokens == 128
    for table, key in (({"threads": "two"}, "model.threads"), ({"enabled": "yes"}, "model.enabled"),
                       ({"path": 3}, "model.path"), ({"window_tokens": 8}, "model.window_tokens")):
        with pytest.raises(ConfigError, match=key):
            ModelSpec.from_config(table)


def test_one_core_is_left_to_the_host_unless_told_otherwise():
    assert thread_count(3) == 3
    assert thread_count(0) >= 1


def test_the_bundled_model_is_known_without_importing_torch():
    probe = ("import sys\n"
             "from vault_engine.stores.embedder import SentenceTransformerEmbedder\n"
             "e = SentenceTransformerEmbedder()\n"
             "print(e.identity, e.max_tokens, e.problem(), 'torch' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.stdout.startswith("all-MiniLM-L6-v2")
    assert done.stdout.split()[-3:] == ["256", "None", "False"]
    assert SentenceTransformerEmbedder().path == bundled_model_path()


def test_the_window_is_capped_by_the_model(tmp_path):
    assert SentenceTransformerEmbedder(ModelSpec(window_tokens=128)).max_tokens == 128
    assert SentenceTransformerEmbedder(ModelSpec(window_tokens=4096)).max_tokens == 256


def test_a_missing_or_empty_folder_or_a_disabled_model_is_unavailable(tmp_path):
    with pytest.raises(ModelUnavailable, match="does not exist"):
        SentenceTransformerEmbedder(ModelSpec(path=str(tmp_path / "nowhere")))
    with pytest.raises(ModelUnavailable, match="disabled"):
        SentenceTransformerEmbedder(ModelSpec(enabled=False))
    empty = SentenceTransformerEmbedder(ModelSpec(path=str(tmp_path)))
    assert "holds no sentence-transformers model" in empty.problem()
    with pytest.raises(ModelUnavailable, match="fix \\[model\\] path"):
        _ = empty.dimension  # refused before torch is imported
    (tmp_path / "README.md").write_text("# a note\n")  # `path = "README.md"` said "does not exist" (qa60)
    with pytest.raises(ModelUnavailable, match=r"README.md is a file, not a folder: fix \[model\] path"):
        SentenceTransformerEmbedder(ModelSpec(path=str(tmp_path / "README.md")))


def test_identity_changes_with_the_model_files(tmp_path):
    (tmp_path / "config.json").write_text("{}")
    before = SentenceTransformerEmbedder(ModelSpec(path=str(tmp_path))).identity
    (tmp_path / "model.safetensors").write_bytes(b"x" * 10)
    after = SentenceTransformerEmbedder(ModelSpec(path=str(tmp_path))).identity
    assert before != after and after.startswith(tmp_path.name)


def test_the_fake_embedder_is_deterministic_and_normalized():
    fake = FakeEmbedder(dimension=16)
    a, b = fake.embed(["tomato garlic", "tomato garlic"])
    assert np.array_equal(a, b) and np.isclose(np.linalg.norm(a), 1.0)
    assert fake.calls == [2] and fake.token_spans(["ab  cd"]) == [[(0, 2), (4, 6)]]


def test_usable_embedder_says_why_a_model_would_not_load_without_loading_it(tmp_path):
    fake = FakeEmbedder()
    assert usable_embedder(lambda: fake) is fake
    broken = SentenceTransformerEmbedder(ModelSpec(path=str(tmp_path)))
    with pytest.raises(ModelUnavailable, match="holds no sentence-transformers model"):
        usable_embedder(lambda: broken)


def test_work_in_background_gives_its_result_or_raises_its_error_on_the_caller():
    started = threading.Event()

    def work():
        started.set()
        return threading.current_thread().name

    result = in_background(work, "vault-engine-query")
    assert started.wait(5) and result() == "vault-engine-query"  # ran on a thread of its own

    def fails():
        raise ModelUnavailable("no model here")

    with pytest.raises(ModelUnavailable, match="no model here"):
        in_background(fails, "vault-engine-query")()


def test_a_fork_waits_for_work_in_background_and_finished_threads_are_forgotten():
    """Whoosh's writer forks: never while another thread may be inside ONNX Runtime. A
    long-lived process (the daemon) starts such a thread per search: none is kept once done."""
    from vault_engine.stores import embedder

    ended = []
    result = in_background(lambda: (time.sleep(0.5), ended.append(time.monotonic()))[1], "slow")
    pid = os.fork()
    if pid == 0:  # the child: nothing to do
        os._exit(0)
    forked_at = time.monotonic()
    os.waitpid(pid, 0)
    result()
    assert ended and ended[0] <= forked_at  # the fork came after the work had ended
    for _ in range(5):
        in_background(lambda: None, "quick")()
    in_background(lambda: None, "quick")
    assert len(embedder._loads) <= 2  # the last one, maybe still running, and no pile
