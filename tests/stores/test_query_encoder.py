"""The ONNX export that embeds queries (vault_engine/stores/query_encoder.py), with the real
model: it gives the model's own vectors, a new process uses it without importing torch, an
export that does not match is never kept, a damaged file falls back to the model, and
documents on several threads side by side get the vectors of one."""

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from vault_engine.stores.embedder import ModelSpec, SentenceTransformerEmbedder
from vault_engine.stores.query_encoder import FILE_PREFIX, OnnxQueryEncoder, export, side_by_side, unsupported

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


@pytest.mark.model
def test_an_export_whose_weights_were_overwritten_falls_back_to_the_model(exported, tmp_path, caplog):
    """Bytes overwritten in place in its weights: the export loads and runs, and gave NaN
    vectors that every search read as no meaning and a dead-end check as a miss (qa60)."""
    embedder = SentenceTransformerEmbedder(query_dir=tmp_path)
    data = bytearray(exported.query_model_path.read_bytes())
    table = exported.model[0].auto_model.embeddings.word_embeddings.weight.detach().numpy().astype("<f4")
    start = data.find(table[:4].tobytes())  # the token embeddings, stored as the model holds them
    assert start > 0
    data[start:start + table.nbytes] = np.full(table.size, np.nan, dtype="<f4").tobytes()
    embedder.query_model_path.write_bytes(bytes(data))
    vectors = embedder.embed_queries(TEXTS[:1])
    assert np.abs(vectors - exported.embed(TEXTS[:1])).max() < 1e-6  # the model answered
    assert "is damaged (it gives vectors that are not numbers)" in caplog.text
    assert not embedder.query_model_path.exists()  # derived: the next index writes it again
    assert np.abs(embedder.embed(TEXTS[:1]) - vectors).max() < 1e-6  # documents too


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
    assert np.abs(got - exported.model_vectors(texts)).max() < 1e-4
    fresh = SentenceTransformerEmbedder(query_dir=exported.query_dir)
    assert fresh.runtime == "onnxruntime"
    assert np.abs(fresh.embed(texts) - got).max() < 1e-5  # its own batches: the same rows


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
    assert np.abs(np.array(vector) - exported.model_vectors(TEXTS[3:4])[0]).max() < 1e-4


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


# Lengths shuffled (the sorted order is not the input order) and from 0 to past the window.
MIXED = [" ".join(["recurrence"] * n) for n in (300, 1, 40, 0, 7, 120, 2, 250, 15, 60, 3, 90, 5)] + TEXTS


class Recorded:
    """A session that notes the thread of each run."""

    def __init__(self, session):
        self.session, self.threads = session, []

    def run(self, *args):
        self.threads.append(threading.get_ident())
        return self.session.run(*args)


def encoder_of(exported) -> OnnxQueryEncoder:
    return OnnxQueryEncoder(exported.query_model_path, Path(exported.path), exported.max_tokens)


@pytest.mark.model
def test_documents_on_two_threads_get_the_vectors_of_one_in_order(exported):
    encoder = encoder_of(exported)
    one = encoder.embed_batched(MIXED)
    encoder.session = recorded = Recorded(encoder.session)
    both = encoder.embed_batched(MIXED, threads=2)
    assert both.shape == one.shape == (len(MIXED), 384)
    assert np.abs(both - one).max() <= 1e-6
    assert np.abs(both - exported.model_vectors(MIXED)).max() < 1e-4  # each row its own text's
    assert len(set(recorded.threads)) == 2  # two threads ran the one session...
    assert threading.get_ident() in recorded.threads  # ...the caller's among them
    assert len(recorded.threads) == -(-len(MIXED) // 2)  # every batch once


@pytest.mark.model
def test_fewer_batches_than_threads_start_only_the_threads_they_use(exported):
    encoder = encoder_of(exported)
    assert encoder.embed_batched([], threads=4).shape[0] == 0
    encoder.session = recorded = Recorded(encoder.session)
    single = encoder.embed_batched(MIXED[:1], threads=4)
    assert recorded.threads == [threading.get_ident()]  # one batch: no thread started
    three = encoder.embed_batched(MIXED[:3], threads=4)  # two batches of at most two
    assert len(set(recorded.threads[1:])) == 2
    assert np.abs(three - encoder_of(exported).embed_batched(MIXED[:3])).max() <= 1e-6
    assert np.abs(single - three[:1]).max() < 1e-4


@pytest.mark.model
def test_an_error_in_a_worker_thread_reaches_the_caller(exported):
    encoder = encoder_of(exported)
    good, caller = encoder.session, threading.get_ident()
    failed = threading.Event()
    calls = []

    class FailsOutsideTheCaller:  # the caller's thread waits until the other one has failed
        def run(self, *args):
            if threading.get_ident() != caller:
                failed.set()
                raise RuntimeError("session broke")
            calls.append(1)
            assert failed.wait(10), "the second thread never ran"
            return good.run(*args)

    encoder.session = FailsOutsideTheCaller()
    with pytest.raises(RuntimeError, match="session broke"):
        encoder.embed_batched(MIXED, threads=2)
    assert len(calls) <= 2  # the caller stopped after its batch instead of doing the rest


@pytest.mark.model
def test_two_threads_embed_as_one_and_queries_too(exported):
    one = SentenceTransformerEmbedder(ModelSpec(threads=1), query_dir=exported.query_dir)
    expected = one.embed(MIXED)
    two = SentenceTransformerEmbedder(ModelSpec(threads=2), query_dir=exported.query_dir)
    assert np.abs(two.embed(MIXED) - expected).max() <= 1e-6
    assert np.abs(two.embed_queries(MIXED[:1]) - one.embed_queries(MIXED[:1])).max() <= 1e-6


@pytest.mark.model
def test_documents_on_two_threads_with_the_export_fetched_from_a_cache(exported, tmp_path):
    shared = tmp_path / "team"
    assert exported.save_query_model(shared) is None
    clone = SentenceTransformerEmbedder(ModelSpec(threads=2), query_dir=tmp_path / "clone")
    assert clone.save_query_model(shared) is None  # its encoder was checked at a temporary name
    assert np.abs(clone.embed(MIXED) - exported.embed(MIXED)).max() <= 1e-6


def in_thread(fn, seconds: float = 20):
    """fn() in a thread, its exception returned; fails the test if it has not ended in time."""
    outcome = []

    def call():
        try:
            outcome.append(fn())
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            outcome.append(exc)

    thread = threading.Thread(target=call, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "side_by_side hung"
    return outcome[0]


def test_side_by_side_keeps_the_order_of_the_jobs_while_threads_take_them_as_they_come():
    def run(job):
        time.sleep(job)
        return threading.get_ident(), job

    jobs = [0.2] + [0.005] * 20 + [0.1]
    results = in_thread(lambda: side_by_side(jobs, run, threads=2))
    assert [job for _, job in results] == jobs
    assert len({thread for thread, _ in results}) == 2
    assert side_by_side([1, 2], lambda job: job * 10, threads=1) == [10, 20]  # the caller alone
    assert side_by_side([1], lambda job: threading.get_ident(), threads=4) == [threading.get_ident()]


def test_side_by_side_raises_the_first_error_after_stopping_the_other_threads():
    caller, started, done = None, threading.Event(), []

    def run(job):
        if threading.get_ident() != caller:
            started.set()
            raise ValueError(f"job {job} failed")
        assert started.wait(10), "the other thread never ran"
        time.sleep(0.01)
        done.append(job)
        return job

    def call():
        nonlocal caller
        caller = threading.get_ident()
        return side_by_side(list(range(50)), run, threads=2)

    error = in_thread(call)
    assert isinstance(error, ValueError) and "failed" in str(error)
    assert len(done) <= 5  # stopped soon after, not run to the end


# -- loading the export in the background (prefetch_queries) ------------------------------------

def sessions_opened_on(monkeypatch, delay: float = 0.0, done: list[float] | None = None) -> list[str]:
    """Record the name of the thread that opens each ONNX Runtime session (after ``delay``),
    and in ``done`` when each was open."""
    from vault_engine.stores import query_encoder

    opened, real = [], query_encoder.one_thread_session

    def recorded(path):
        opened.append(threading.current_thread().name)
        time.sleep(delay)
        session = real(path)
        if done is not None:
            done.append(time.monotonic())
        return session

    monkeypatch.setattr(query_encoder, "one_thread_session", recorded)
    return opened


@pytest.mark.model
def test_a_prefetched_export_opens_on_its_own_thread_and_gives_the_same_vectors(exported, monkeypatch):
    opened = sessions_opened_on(monkeypatch)
    fresh = SentenceTransformerEmbedder(query_dir=exported.query_dir)
    fresh.prefetch_queries()
    fresh.prefetch_queries()  # a second call while one load is under way starts no other
    got = fresh.embed_queries(TEXTS)
    assert opened == ["vault-engine-model-load"]  # one session, opened off the caller's thread
    assert np.abs(got - exported.embed(TEXTS)).max() < 1e-4
    assert fresh._loading is None  # waited for and taken
    fresh.prefetch_queries()  # loaded already: nothing more to open
    assert opened == ["vault-engine-model-load"]


def test_without_an_export_prefetching_starts_nothing(tmp_path, monkeypatch):
    opened = sessions_opened_on(monkeypatch)
    embedder = SentenceTransformerEmbedder(query_dir=tmp_path)
    embedder.prefetch_queries()
    assert embedder._loading is None and opened == []


@pytest.mark.model
def test_a_prefetched_damaged_export_falls_back_to_the_model(exported, tmp_path, caplog):
    embedder = SentenceTransformerEmbedder(query_dir=tmp_path)
    embedder.query_model_path.write_bytes(b"not an onnx graph")
    embedder.prefetch_queries()
    vectors = embedder.embed_queries(TEXTS[:1])
    assert np.abs(vectors - exported.embed(TEXTS[:1])).max() < 1e-6  # the model answered
    assert "damaged" in caplog.text and not embedder.query_model_path.exists()


@pytest.mark.model
def test_a_fork_waits_for_a_model_load_under_way(exported, monkeypatch):
    """Whoosh's writer of a large index run forks: never while ONNX Runtime is loading."""
    opened_at: list[float] = []
    sessions_opened_on(monkeypatch, delay=1.0, done=opened_at)
    fresh = SentenceTransformerEmbedder(query_dir=exported.query_dir)
    fresh.prefetch_queries()
    pid = os.fork()
    if pid == 0:  # the child: nothing to do
        os._exit(0)
    forked_at = time.monotonic()
    os.waitpid(pid, 0)
    assert opened_at and opened_at[0] <= forked_at  # the fork waited for the session (opened after 1 s)
    assert fresh._loading()  # and the encoder it opened is there to take


# what ONNX Runtime 1.32 reads to tell a CI machine (it keeps no telemetry there)
ONNX_RUNTIME_CI_SIGNS = {"CI", "TF_BUILD", "GITHUB_ACTIONS", "GITLAB_CI", "CIRCLECI", "TRAVIS",
                         "JENKINS_URL", "CODEBUILD_BUILD_ID", "BUILDKITE", "TEAMCITY_VERSION",
                         "APPVEYOR", "BITBUCKET_BUILD_NUMBER"}


def test_onnx_runtime_is_imported_with_its_telemetry_off(tmp_path):
    """ONNX Runtime 1.29+ kept a device id and an event per process in
    ~/.cache/Microsoft/DeveloperTools (qa44: a file that grew with every search)."""
    import os
    import subprocess
    import sys

    # ONNX Runtime writes under $XDG_CACHE_HOME when it is set (CI sets it), else ~/.cache,
    # and writes nothing when it sees a CI machine's variables: the test takes them away
    cache = tmp_path / "xdg-cache"
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("ORT_") and k not in ONNX_RUNTIME_CI_SIGNS}
    env |= {"HOME": str(tmp_path), "XDG_CACHE_HOME": str(cache)}
    code = "from vault_engine.stores.query_encoder import import_onnxruntime; import_onnxruntime()"
    subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=60)
    assert not (cache / "Microsoft").exists()
    subprocess.run([sys.executable, "-c", "import onnxruntime"], env=env, check=True, timeout=60)
    assert (cache / "Microsoft").exists()  # what the test guards against


def test_vault_engine_imports_onnx_runtime_only_through_the_quiet_import():
    from pathlib import Path

    import vault_engine

    package = Path(vault_engine.__file__).parent
    direct = [str(p.relative_to(package)) for p in package.rglob("*.py")
              if "import onnxruntime" in p.read_text(encoding="utf-8")]
    assert direct == ["stores/query_encoder.py"]  # inside import_onnxruntime, after the switches
