"""Damage to derived state, each kind: ``status`` names it, no command crashes or answers a
silent wrong ranking, and plain ``index`` repairs it (vectors from the cache, not the model).

Words-only cases run through the CLI in subprocesses. Vector cases run twice: in-process with
the fake embedder (counting that the repair embeds nothing), and through the CLI with the
real model (the repair never imports torch: the vectors come from the cache).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from tests.conftest import run_cli_subprocess
from tests.faults.conftest import WORDS_ONLY, cli_json, healthy, vault_files
from vault_engine.stores.embedder import FakeEmbedder
from vault_engine.vault import Vault

INDEX = ".vault-engine/index/current"
QUERY = "drop test"
EXPECTED = "projects/drone-audio/working/claude-7f3-drop-tests.md"


def garble(path, offset: int = 0, size: int = 512) -> None:
    """Overwrite bytes in the middle of the file (a replaced inode: copies sharing it stay)."""
    data = bytearray(path.read_bytes())
    start = offset or len(data) // 2
    data[start:start + size] = os.urandom(min(size, len(data) - start))
    path.unlink()
    path.write_bytes(bytes(data))


def truncate(path, size: int = 4096) -> None:
    data = path.read_bytes()[:size]
    path.unlink()
    path.write_bytes(data)


def whoosh_file(root, suffix: str):
    return next((root / INDEX / "whoosh").glob(f"*{suffix}"))


LEXICAL_DAMAGE = {
    "ledger truncated to 4 KB": lambda r: truncate(r / INDEX / "ledger.sqlite"),
    "ledger garbled": lambda r: garble(r / INDEX / "ledger.sqlite", 8192),
    "ledger deleted": lambda r: (r / INDEX / "ledger.sqlite").unlink(),
    # a power loss: "empty or from another version" and no JSON from `status --json` (qa97)
    "ledger of no byte": lambda r: (r / INDEX / "ledger.sqlite").write_bytes(b""),
    # pages a search reads and an incremental index does not: `index` said "0 new, 35
    # unchanged" and left every search saying "damaged: run `vault-engine index`" (qa60)
    "ledger garbled mid-file": lambda r: garble(r / INDEX / "ledger.sqlite", 40000, 4000),
    "whoosh postings deleted": lambda r: whoosh_file(r, ".pst").unlink(),
    "whoosh terms garbled": lambda r: garble(whoosh_file(r, ".trm")),
    "whoosh terms truncated": lambda r: truncate(whoosh_file(r, ".trm"), 100),
    "whoosh stored fields deleted": lambda r: whoosh_file(r, "_stored.col").unlink(),
    "whoosh table of contents deleted": lambda r: whoosh_file(r, ".toc").unlink(),
    "whoosh folder deleted": lambda r: shutil.rmtree(r / INDEX / "whoosh"),
    # a file in its place: the repair refused, "move it aside", though all of it is derived (qa64)
    "whoosh folder a file": lambda r: (shutil.rmtree(r / INDEX / "whoosh"), (r / INDEX / "whoosh").touch()),
    "current generation link deleted": lambda r: (r / INDEX).unlink(),
    "current generation folder deleted": lambda r: shutil.rmtree((r / INDEX).resolve()),
    "index folder deleted": lambda r: shutil.rmtree(r / ".vault-engine" / "index"),
    # the repair refused, "move it aside", while every read command said to run it (qa97)
    "index folder a file": lambda r: (shutil.rmtree(r / ".vault-engine" / "index"),
                                      (r / ".vault-engine" / "index").touch()),
}


@pytest.fixture(scope="module")
def indexed_words_only(tmp_path_factory):
    from tests.conftest import SAMPLE_VAULT

    root = tmp_path_factory.mktemp("words") / "vault"
    shutil.copytree(SAMPLE_VAULT, root, ignore=shutil.ignore_patterns(".vault-engine"))
    (root / "vault-engine.toml").write_text((root / "vault-engine.toml").read_text() + "\n" + WORDS_ONLY)
    cli_json(root, "index")
    return root


def copy_vault(source, target):
    """A copy whose big read-only model files are hard links (the damage replaces files)."""
    def copy(src, dst):
        if os.path.basename(src).startswith("query-model-"):
            os.link(src, dst)
        else:
            shutil.copy2(src, dst)
    shutil.copytree(source, target, symlinks=True, copy_function=copy)
    return target


@pytest.mark.parametrize("damage", list(LEXICAL_DAMAGE), ids=list(LEXICAL_DAMAGE))
def test_damaged_words_index_is_reported_and_repaired_by_plain_index(indexed_words_only, tmp_path, damage):
    root = copy_vault(indexed_words_only, tmp_path / "vault")
    notes = cli_json(root, "status")["notes"]
    before = vault_files(root)
    LEXICAL_DAMAGE[damage](root)

    status = run_cli_subprocess("--vault", root, "status", "--json")
    assert "Traceback" not in status.stderr
    if status.returncode == 0:  # a missing index is "run index" (exit 1); damage is listed
        reported = status.stdout
        assert '"damage": []' not in reported, reported
        text = run_cli_subprocess("--vault", root, "status").stdout
        assert "DAMAGED" in text and "None" not in text, text  # was "lexical    None sections"
    else:
        assert status.returncode == 1 and "vault-engine index" in status.stderr, status.stderr

    search = run_cli_subprocess("--vault", root, "search", QUERY, "--lexical", "--json")
    assert "Traceback" not in search.stderr, search.stderr
    if search.returncode == 0:  # never a false miss
        assert EXPECTED in search.stdout, search.stdout[:500]
    else:
        assert search.returncode == 1 and "vault-engine index" in search.stderr, search.stderr
        assert len(search.stderr.strip().splitlines()) == 1, search.stderr

    cli_json(root, "index")
    status = cli_json(root, "status")
    assert healthy(status) and status["notes"] == notes, status
    assert cli_json(root, "search", QUERY, "--lexical")["hits"][0]["path"] == EXPECTED
    assert vault_files(root) == before


def test_a_ledger_of_no_byte_is_damage_named_by_status(indexed_words_only, tmp_path):
    """A power loss leaves a ledger of no byte: "empty or from another version" pointed the
    wrong way, and `status --json` printed no JSON (qa97)."""
    root = copy_vault(indexed_words_only, tmp_path / "vault")
    (root / INDEX / "ledger.sqlite").write_bytes(b"")
    damage = cli_json(root, "status")["damage"]
    assert len(damage) == 1 and "ledger.sqlite is damaged (the file is empty (0 bytes: a write cut off, a power " \
        "loss?)): run `vault-engine index`" in damage[0]


def test_a_vault_copied_with_cp_r_answers_without_a_repair(indexed_words_only, tmp_path):
    """`cp -r` gives every file of the index the copy's time: not damage, nothing rebuilt."""
    root = tmp_path / "copy"
    subprocess.run(["cp", "-r", str(indexed_words_only), str(root)], check=True)
    assert cli_json(root, "search", QUERY, "--lexical")["hits"][0]["path"] == EXPECTED
    status = cli_json(root, "status")  # the notes' new times make them suspects until `index` hashes them
    assert status["damage"] == [] and status["lexical"]["agrees"], status
    report = cli_json(root, "index")
    assert report["new"] == report["modified"] == report["deleted"] == 0 and report["notices"] == []
    assert healthy(cli_json(root, "status"))
    assert cli_json(root, "search", QUERY, "--lexical")["hits"][0]["path"] == EXPECTED


VECTOR_DAMAGE = {
    "vectors garbled": lambda r: garble(r / INDEX / "vectors.faiss", 64),
    "vectors truncated": lambda r: truncate(r / INDEX / "vectors.faiss", 1000),
    "vectors overwritten, same size": lambda r: garble(r / INDEX / "vectors.faiss"),  # FAISS reads it
    "vectors deleted": lambda r: (r / INDEX / "vectors.faiss").unlink(),
}


@pytest.mark.parametrize("damage", list(VECTOR_DAMAGE), ids=list(VECTOR_DAMAGE))
def test_damaged_vectors_are_reported_and_rebuilt_from_the_cache(sample_vault, damage):
    with Vault(sample_vault, embedder=FakeEmbedder()) as vault:
        vault.index()
        sections = vault.status()["sections"]
    VECTOR_DAMAGE[damage](sample_vault)

    fake = FakeEmbedder()
    with Vault(sample_vault, embedder=fake) as vault:
        status = vault.status()
        assert any("vector index is damaged" in d for d in status["damage"]), status["damage"]
        assert not any("faiss::" in d or "Error in" in d for d in status["damage"]), status["damage"]  # no C++ internals
        result = vault.search(QUERY)  # never a silent ranking on missing vectors
        assert result.hits and any("vector" in n or "semantic" in n for n in result.notices), result.notices
        report = vault.index()
        assert fake.calls == []  # every vector came back from the cache
        assert report.embedded == sections
        status = vault.status()
        assert healthy(status), status["damage"]
        assert status["semantic"]["coverage"] == 1.0
        assert not vault.search(QUERY).notices


def test_vectors_from_another_vault_are_said_not_read_in_silence(sample_vault, make_vault):
    """A vectors file copied from another vault (or put back from an older state) loads; its
    ids overlap this ledger's, so meaning hits were wrong without a word (qa97)."""
    other = make_vault({f"n{i}.md": f"# N{i}\n\n{'word ' * 30}{i}\n" for i in range(40)})
    for root in (sample_vault, other):
        with Vault(root, embedder=FakeEmbedder()) as vault:
            vault.index()
    shutil.copyfile(other / INDEX / "vectors.faiss", sample_vault / INDEX / "vectors.faiss")
    with Vault(sample_vault, embedder=FakeEmbedder()) as vault:
        said = [n for n in vault.search(QUERY).notices if n.startswith("the vector index holds")]
        assert said and said[0].endswith("meaning hits may be wrong until `vault-engine index` brings them back "
                                         "in step"), said
        vault.index()
        assert not vault.search(QUERY).notices


@pytest.fixture(scope="module")
def indexed_with_model(tmp_path_factory):
    from tests.conftest import SAMPLE_VAULT

    root = tmp_path_factory.mktemp("model") / "vault"
    shutil.copytree(SAMPLE_VAULT, root, ignore=shutil.ignore_patterns(".vault-engine"))
    cli_json(root, "index", timeout=600)
    return root


PROBE = ("import sys\nfrom vault_engine.cli.main import main\ncode = main(sys.argv[1:])\n"
         "sys.stdout.flush()\nprint('HEAVY', sorted(m for m in ('torch', 'sentence_transformers') "
         "if m in sys.modules), file=sys.stderr)\nsys.exit(code)\n")


@pytest.mark.parametrize("damage", ["vectors garbled", "vectors deleted"])
def test_real_model_vectors_repaired_without_the_model(indexed_with_model, tmp_path, damage):
    root = copy_vault(indexed_with_model, tmp_path / "vault")
    VECTOR_DAMAGE[damage](root)
    status = cli_json(root, "status")
    assert any("vector index is damaged" in d for d in status["damage"]), status
    search = cli_json(root, "search", QUERY)
    assert search["hits"][0]["path"] == EXPECTED
    assert any("vector" in n for n in search["notices"]), search["notices"]

    done = subprocess.run([sys.executable, "-c", PROBE, "--vault", str(root), "index", "--json"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "HEAVY []" in done.stderr, done.stderr  # the cache had every vector
    status = cli_json(root, "status")
    assert healthy(status) and status["semantic"]["coverage"] == 1.0, status
    assert not cli_json(root, "search", QUERY)["notices"]


def test_a_garbled_vector_cache_is_only_a_cache(sample_vault):
    with Vault(sample_vault, embedder=FakeEmbedder()) as vault:
        vault.index()
    garble(sample_vault / INDEX / "vector_cache.sqlite", 4096)
    (sample_vault / INDEX / "vectors.faiss").unlink()
    fake = FakeEmbedder()
    with Vault(sample_vault, embedder=fake) as vault:
        report = vault.index()
        assert report.embedded == vault.status()["sections"]
        assert healthy(vault.status())


@pytest.mark.parametrize("lose", ["current", "ledger.sqlite"])
def test_a_lost_current_link_or_ledger_is_damage_not_a_vault_never_indexed(make_vault, cli, lose):
    # "no index in ... yet: run `vault-engine index` first", though the generation is on disk (qa14)
    root = make_vault({"a.md": "# A\nalpha\n"}, config="[model]\nenabled = false\n")
    assert cli("--vault", root, "index").code == 0
    current = root / ".vault-engine" / "index" / "current"
    (current if lose == "current" else current / "ledger.sqlite").unlink()
    said = cli("--vault", root, "status")
    assert said.code == 0 and "is damaged: its `current` link or its ledger is missing" in said.out
    # listed as damage by --json too, as every other damage is (it printed no JSON, qa101)
    assert "is damaged: its `current` link" in cli("--vault", root, "status", "--json").json["damage"][0]
    searched = cli("--vault", root, "search", "alpha", "--lexical")
    assert searched.code == 1 and "is damaged: its `current` link or its ledger is missing" in searched.err
    assert cli("--vault", root, "index").code == 0
    assert cli("--vault", root, "search", "alpha", "--lexical", "--json").json["status"] == "hit"


def test_a_first_index_at_work_is_said_to_be_building_not_damage(make_vault, cli):
    """`search` and `status` during a vault's first `index` said "damaged" (qa70): its new
    generation is on disk before its `current` link."""
    import fcntl

    from vault_engine.layout import STATE_DIR, WRITE_LOCK

    root = make_vault({"a.md": "# A\nalpha\n"}, config="[model]\nenabled = false\n")
    assert cli("--vault", root, "index").code == 0
    (root / ".vault-engine" / "index" / "current").unlink()  # as a first index leaves it mid-way
    fd = os.open(root / STATE_DIR / WRITE_LOCK, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        os.pwrite(fd, b"4242\n", 0)
        fcntl.flock(fd, fcntl.LOCK_EX)  # what the writer holds while it writes
        for args in (("status",), ("search", "alpha", "--lexical")):
            said = cli("--vault", root, *args)
            assert (said.code, said.err) == (1, f"vault-engine: no index in {root} yet: another vault-engine "
                                                "process (pid 4242) is building it; ask again when it is done\n")
    finally:
        os.close(fd)
    assert "DAMAGED" in cli("--vault", root, "status").out  # nobody at work: damage, as before


# A file where vault-engine keeps a folder, or a folder where it keeps a file: each command
# that meets it printed a FileExistsError, NotADirectoryError or IsADirectoryError traceback (qa60)
IN_THE_WAY = {
    "state folder is a file": (".vault-engine", False, "is a file where vault-engine keeps a folder"),
    "ledger folder is a file": (".vault-engine/ledger", True, "is a file where vault-engine keeps a folder"),
    "reinforcements are a folder": (".vault-engine/ledger/reinforcements.jsonl", True, "is a folder, not a file"),
}


@pytest.mark.parametrize("case", list(IN_THE_WAY), ids=list(IN_THE_WAY))
def test_a_file_or_folder_in_the_way_is_one_line_naming_it(make_vault, case):
    rel, indexed, said = IN_THE_WAY[case]
    root = make_vault({"a.md": "# A\nBadgers.\n"}, config=WORDS_ONLY)
    if indexed:
        cli_json(root, "index")
    place = root / rel
    if place.is_dir():
        shutil.rmtree(place)
    else:
        place.unlink(missing_ok=True)
    place.parent.mkdir(parents=True, exist_ok=True)
    (place.mkdir if "is a folder" in said else place.touch)()
    # (no index: "run index"); what only the reinforcement log needs refuses a write alone: an
    # index goes on without reading it, and status lists it as damage (it printed no JSON, qa139)
    command = ("reinforce", "a.md") if indexed else ("index",)
    done = run_cli_subprocess("--vault", root, *command)
    assert (done.returncode, done.stderr.count("\n")) == (1, 1), done.stderr
    assert f"{place} {said}: move it aside" in done.stderr
    if indexed:
        assert run_cli_subprocess("--vault", root, "index").returncode == 0
        assert cli_json(root, "status")["damage"] == [f"{place} {said}: no reinforcement is read; move it aside (it "
                                                      "stays yours)"]
    if rel == ".vault-engine":  # the readers had said "no index yet: run index first", which refuses (qa137)
        searched = run_cli_subprocess("--vault", root, "search", "badgers")
        assert searched.stderr == f"vault-engine: {place} {said}: move it aside (it stays yours) and run " \
                                  "`vault-engine index`\n"
        assert cli_json(root, "status")["damage"] == [searched.stderr.removeprefix("vault-engine: ").strip()]
    assert (root / "a.md").read_text() == "# A\nBadgers.\n"


def test_a_vector_cache_that_cannot_be_written_keeps_vectors_in_memory(tmp_path):
    """A read-only index folder (a read-only mount): `deadend check` embeds the rulings through
    the cache, whose open raised "unable to open database file" as a traceback (qa97)."""
    from vault_engine.stores.vectors import VectorCache

    (tmp_path / "a-file").write_text("")
    cache = VectorCache(tmp_path / "a-file" / "vector_cache.sqlite", "model")  # its folder cannot be made
    assert str(cache.path) == ":memory:"
    cache.close()


@pytest.mark.parametrize(("code", "said"), [
    ("EROFS", "the file system is read-only; commands that only read (search, show, resume, deadend, status) "
              "answer from the index already there, if one is (nothing of yours was changed)"),
    ("EFBIG", "the file is over this process's file-size limit (`ulimit -f`); raise the limit and run the command "
              "again (nothing of yours was changed, and the index stays usable: what this run finished is kept, the "
              "next run does the rest)"),
])
def test_a_write_the_system_refuses_is_one_line_naming_the_file(make_vault, cli, monkeypatch, code, said):
    """A read-only mount of `.vault-engine` and a `ulimit -f` raised tracebacks (qa97)."""
    import errno

    root = make_vault({"a.md": "# A\n\nalpha\n"}, config=WORDS_ONLY)
    lock = str(root / ".vault-engine" / "write.lock")

    def refuse(*args, **kwargs):
        raise OSError(getattr(errno, code), os.strerror(getattr(errno, code)), lock)

    monkeypatch.setattr(Vault, "index", refuse)
    done = cli("--vault", root, "index")
    assert (done.code, done.err) == (1, f"vault-engine: cannot write {lock}: {said}\n")


def test_a_rebuild_past_the_file_size_limit_is_one_line_and_no_damage(indexed_words_only, tmp_path):
    """Under `ulimit -f`, SQLite says only "disk I/O error": the rebuild called a sound ledger
    damaged, and advised the run that met the same limit again (qa97)."""
    import resource

    root = copy_vault(indexed_words_only, tmp_path / "vault")

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (150_000, 150_000))

    done = subprocess.run([sys.executable, "-m", "vault_engine", "--vault", str(root), "index", "--rebuild"],
                          capture_output=True, text=True, timeout=120, preexec_fn=limited)
    assert done.returncode == 1 and "Traceback" not in done.stderr and "damaged" not in done.stderr, done.stderr
    assert "the file is over this process's file-size limit (`ulimit -f`)" in done.stderr
    assert healthy(cli_json(root, "status"))  # the index in use is as it was
