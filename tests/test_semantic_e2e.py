"""The semantic arm end to end with the real model (all-MiniLM-L6-v2 from its wheel), real
SQLite, Whoosh and FAISS: a paraphrase the words miss is found by meaning, an unrelated question
is a miss, the CLI contract holds, and a broken model folder degrades to lexical search."""

import pytest

from vault_engine.vault import Vault

pytestmark = pytest.mark.model

NOTES = {
    "recurrence.md": "# Repeating tasks\nAdd a rule such as `every week` to a task. When you complete it, "
                     "the next occurrence is created with new dates.\n",
    "priorities.md": "# Priority\nMark tasks high, medium or low so the important ones sort first.\n",
    "styling.md": "# Styling\nCSS snippets change the colours and fonts of the rendered task list.\n",
    "backups.md": "# Backups\nCopy the vault folder to another disk every night; keep seven copies.\n",
    "meetings/weekly sync.md": "# Weekly sync\n## Decisions\nWe moved the release to Thursday.\n",
}
CONFIG = ""  # the defaults: the miss floor is this vault's own off-topic level, measured by index
PARAPHRASE = "make a chore reappear after I tick it off"


@pytest.fixture(scope="module")
def vault_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("semantic")
    for rel, text in NOTES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / "vault-engine.toml").write_text(CONFIG)
    with Vault(root) as v:
        report = v.index()
        assert report.embedded == report.sections == 5 and not report.notices
    return root


def test_meaning_finds_the_paraphrase_the_words_miss(vault_root):
    with Vault(vault_root) as v:
        lexical = v.search(PARAPHRASE, lexical_only=True)
        hybrid = v.search(PARAPHRASE)
    assert "recurrence.md" not in [h.path for h in lexical.hits[:1]]
    assert hybrid.arms == ("lexical", "semantic") and hybrid.semantic_coverage == 1.0
    top = hybrid.hits[0]
    assert top.path == "recurrence.md"
    assert top.scores.semantic > max(h.scores.semantic for h in hybrid.hits[1:])


def test_the_issue_example_finds_the_note_about_recurrence(vault_root):
    with Vault(vault_root) as v:
        assert v.search("how do I stop a task from repeating").hits[0].path == "recurrence.md"


def test_an_unrelated_question_is_a_miss_not_a_guess(vault_root):
    with Vault(vault_root) as v:
        result = v.search("what is the capital of Peru")
    assert result.status == "miss" and result.hits == ()


def test_search_and_status_json(vault_root, cli):
    found = cli("--vault", vault_root, "search", PARAPHRASE, "--json")
    assert found.code == 0 and found.err == ""
    data = found.json
    assert data["arms"] == ["lexical", "semantic"] and data["semantic_coverage"] == 1.0
    assert set(data["hits"][0]["scores"]) >= {"lexical", "semantic", "fused", "decay"}
    forced = cli("--vault", vault_root, "search", PARAPHRASE, "--semantic", "--json").json
    assert forced["arms"] == ["semantic"] and forced["hits"][0]["path"] == "recurrence.md"
    status = cli("--vault", vault_root, "status", "--json").json["semantic"]
    assert status["coverage"] == 1.0 and status["agrees"] and status["vectors"] == 5
    assert status["model"].startswith("all-MiniLM-L6-v2")
    assert status["query_model"] is True and "queries load the model" not in status["summary"]


@pytest.mark.parametrize("folder_files", [{}, {"config.json": "{}", "model.safetensors": "not weights"}],
                         ids=["empty folder", "broken weights"])
def test_a_broken_model_folder_degrades_to_lexical_with_one_notice(make_vault, cli, folder_files):
    root = make_vault({**NOTES, **{f"models/broken/{n}": t for n, t in folder_files.items()}},
                      config='[model]\npath = "models/broken"\n')
    (root / "models/broken").mkdir(parents=True, exist_ok=True)
    index = cli("--vault", root, "index", "--json")
    assert index.code == 0 and index.json["embedded"] == 0 and index.json["sections"] == 5
    notices = [line for line in index.err.strip().splitlines() if "preparing the model:" not in line]
    assert len(notices) == 1 and "models/broken" in index.err  # (a progress line on a slow, busy host)
    assert "lexical-only" in index.err
    search = cli("--vault", root, "search", "weekly sync decisions", "--json")
    assert search.code == 0 and search.json["arms"] == ["lexical"] and search.json["hits"]
    assert len(search.err.strip().splitlines()) == 1 and "searching by words only" in search.err
    status = cli("--vault", root, "status", "--json").json["semantic"]
    assert status["coverage"] == 0.0 and "models/broken" in status["error"]
    forced = cli("--vault", root, "search", "weekly", "--semantic")
    assert forced.code == 1 and len(forced.err.strip().splitlines()) == 1


def test_an_index_with_nothing_to_embed_never_imports_torch(vault_root):
    from tests.test_fast_paths import probe

    code, heavy = probe("--vault", vault_root, "index", "--json")
    assert code == 0 and heavy == []


def test_index_exports_the_query_model_and_a_new_process_searches_without_torch(vault_root, cli):
    from tests.test_fast_paths import probe
    from vault_engine.stores.embedder import SentenceTransformerEmbedder

    assert len(list((vault_root / ".vault-engine/index/current").glob("query-model-*.onnx"))) == 1
    code, heavy = probe("--vault", vault_root, "search", PARAPHRASE, "--json")
    assert code == 0 and heavy == []
    exported = cli("--vault", vault_root, "search", PARAPHRASE, "--json").json
    with Vault(vault_root, embedder=SentenceTransformerEmbedder()) as v:  # queries through torch
        direct = v.search(PARAPHRASE)
    assert [h["ref"] for h in exported["hits"]] == [h.ref for h in direct.hits]
    for hit, twin in zip(exported["hits"], direct.hits):
        assert hit["scores"]["semantic"] == pytest.approx(twin.scores.semantic, abs=1e-4)


def test_status_says_when_queries_have_no_query_model(make_vault, cli):
    root = make_vault(NOTES, config=CONFIG)
    assert cli("--vault", root, "index").code == 0
    for export in (root / ".vault-engine/index/current").glob("query-model-*.onnx"):
        export.unlink()
    status = cli("--vault", root, "status", "--json").json["semantic"]
    assert status["query_model"] is False
    assert "`vault-engine index` writes the query model" in status["summary"]
    search = cli("--vault", root, "search", PARAPHRASE, "--json")  # through the model itself
    assert search.code == 0 and search.json["hits"][0]["path"] == "recurrence.md"
    assert cli("--vault", root, "index").code == 0
    assert cli("--vault", root, "status", "--json").json["semantic"]["query_model"] is True


def test_deadend_check_in_a_new_process_runs_both_arms_without_torch(make_vault, cli):
    from tests.memory.test_deadends import FILES
    from tests.test_fast_paths import probe

    root = make_vault(FILES)
    with Vault(root) as v:
        v.index()  # embeds the sections and the rulings, and exports the query model
    code, heavy = probe("--vault", root, "deadend", "check", "share sessions through redis")
    assert code in (0, 3) and heavy == []
    check = cli("--vault", root, "deadend", "check", "share sessions through redis", "--json").json
    assert check["arms"] == ["lexical", "semantic"]
    assert check["rulings"][0]["text"] == "Keep sessions in a shared Redis"


def test_an_edit_is_embedded_through_the_export_without_importing_torch(make_vault, cli):
    from tests.test_fast_paths import probe

    root = make_vault(NOTES, config=CONFIG)
    assert cli("--vault", root, "index").code == 0  # the first index exports the model
    (root / "backups.md").write_text("# Backups\nCopy the vault to a second disk every hour.\n")
    code, heavy = probe("--vault", root, "index", "--json")
    assert code == 0 and heavy == []
    status = cli("--vault", root, "status", "--json").json["semantic"]
    assert status["coverage"] == 1.0 and status["agrees"] and status["runtime"] == "onnxruntime"
    assert status["last_run"] == {"computed": 1, "cache": 0, "shared_cache": 0, "runtime": "onnxruntime"}
    with Vault(root) as v:  # the vector onnxruntime stored is the model's own
        from vault_engine.stores.embedder import SentenceTransformerEmbedder

        (sid,) = [r[0] for r in v.ledger.db.execute(
            "SELECT s.id FROM sections s JOIN notes n ON n.id=s.note_id WHERE n.path='backups.md'")]
        expected = SentenceTransformerEmbedder().model_vectors(["Backups\nCopy the vault to a second disk every hour."])
        assert v.vectors.similarities(expected[0], [sid])[sid] == pytest.approx(1.0, abs=1e-4)  # rows in half precision


def test_a_second_clone_with_the_shared_cache_embeds_nothing_and_needs_no_torch(make_vault, cli, tmp_path):
    from tests.test_fast_paths import probe

    shared = tmp_path / "team-cache"
    shared.mkdir()
    first = make_vault(NOTES, config=CONFIG)
    assert cli("--vault", first, "index", "--vector-cache", shared).code == 0
    second = tmp_path / "clone"
    for rel, text in NOTES.items():
        (second / rel).parent.mkdir(parents=True, exist_ok=True)
        (second / rel).write_text(text)
    code, heavy = probe("--vault", second, "index", "--vector-cache", shared, "--json")
    assert code == 0 and heavy == []
    status = cli("--vault", second, "status", "--json").json["semantic"]
    assert status["coverage"] == 1.0 and status["query_model"] is True
    assert status["last_run"]["computed"] == 0 and status["last_run"]["shared_cache"] == 5
    assert cli("--vault", second, "search", PARAPHRASE, "--json").json["hits"][0]["path"] == "recurrence.md"


def test_the_first_index_exports_in_a_child_process_and_never_imports_torch_itself(make_vault, monkeypatch):
    """torch is needed once, to trace the model; it runs in a process of its own, so the
    long embedding run holds only ONNX Runtime's memory."""
    from tests.test_fast_paths import probe

    monkeypatch.setenv("VAULT_ENGINE_CACHE", "")  # no cached export: this index must make one

    root = make_vault(NOTES, config=CONFIG)
    code, heavy = probe("--vault", root, "index", "--json")
    assert code == 0 and heavy == []
    with Vault(root) as v:
        status = v.status()["semantic"]
        assert status["coverage"] == 1.0 and status["query_model"] is True
        assert status["last_run"]["runtime"] == "onnxruntime" and status["last_run"]["computed"] == 5
    assert [p.name for p in (root / ".vault-engine/index").iterdir() if p.name.startswith(".")] == []
