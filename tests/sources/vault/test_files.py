"""Bad input: every problem file gets one clear reason, the rest is indexed, nothing is
modified (vault_engine/sources/vault/files.py through the indexer)."""

import hashlib
import os
from pathlib import Path

import pytest

from vault_engine.indexing.indexer import Indexer
from vault_engine.sources.vault.files import _size, scan_vault
from vault_engine.vault import Vault

GOOD = {"good.md": "# Good\nfine text\n", "also/good2.md": "plain words\n"}


def snapshot(root: Path) -> dict[str, tuple[str, int]]:
    """Content hash and mtime of every file outside .vault-engine/."""
    found = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".vault-engine"]
        for name in files:
            path = Path(folder, name)
            if path.is_symlink():
                continue
            found[str(path.relative_to(root))] = (hashlib.sha256(path.read_bytes()).hexdigest(),
                                                  path.stat().st_mtime_ns)
    return found


def index(root: Path):
    with Vault(root) as v:
        report = v.index()
        return report, {s.path: s.reason for s in report.skipped}, v.ledger.note_paths()


def test_each_bad_file_is_skipped_with_a_reason_and_the_rest_indexed(make_vault):
    root = make_vault({**GOOD,
                       "latin1.md": "caf\xe9 au lait".encode("latin-1"),
                       "binary.md": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
                       "empty.md": "",
                       "broken-yaml.md": "---\ntitle: [unclosed\n---\nbody survives\n"})
    before = snapshot(root)
    report, skipped, indexed = index(root)
    assert skipped["latin1.md"].startswith("not UTF-8 (byte 0xe9 on line 1)")
    assert "re-save the note as UTF-8" in skipped["latin1.md"]
    assert skipped["binary.md"].startswith("binary content")
    assert sorted(indexed) == ["also/good2.md", "broken-yaml.md", "empty.md", "good.md"]
    assert snapshot(root) == before


def test_broken_yaml_is_indexed_body_only_and_listed_by_status(make_vault):
    root = make_vault({"broken-yaml.md": "---\ntitle: ok\nbad: [unclosed\n---\nthe body survives\n"})
    with Vault(root) as v:
        v.index()
        assert [h.path for h in v.search("survives", lexical_only=True).hits] == ["broken-yaml.md"]
        (error,) = v.status()["yaml_errors"]
        assert error["path"] == "broken-yaml.md" and "line" in error["error"]


def test_a_huge_note_is_skipped_without_being_read(make_vault, monkeypatch):
    root = make_vault(GOOD, config="max_file_mb = 1\n")
    with open(root / "huge.md", "wb") as f:
        f.truncate(20 * 1024 * 1024)  # sparse 20 MB file
    reads = []
    original = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: reads.append(self.name) or original(self))
    _, skipped, indexed = index(root)
    assert "huge.md" not in reads
    assert skipped["huge.md"].startswith("21.0 MB is over the 1 MB limit")
    assert "huge.md" not in indexed


def test_a_tiny_limit_is_said_in_bytes():
    """"0.0 MB is over the 0 MB limit" (qa70)."""
    assert (_size(23), _size(1, as_set=True), _size(2_500_000, as_set=True), _size(21_000_000)) == \
        ("23 bytes", "1 byte", "2.5 MB", "21.0 MB")


def test_a_symlink_loop_is_reported_not_followed(make_vault):
    root = make_vault(GOOD)
    (root / "also" / "loop").symlink_to(root / "also", target_is_directory=True)
    _, skipped, indexed = index(root)
    assert "symlink loop" in skipped["also/loop"]
    assert sorted(indexed) == ["also/good2.md", "good.md"]


@pytest.mark.parametrize("outside_symlinks", [False, True])
def test_two_links_pointing_at_each_other_are_a_loop_not_a_link_out_of_the_vault(make_vault, outside_symlinks):
    root = make_vault(GOOD, config=f"outside_symlinks = {str(outside_symlinks).lower()}\n")
    (root / "a.md").symlink_to("b.md")
    (root / "b.md").symlink_to("a.md")
    _, skipped, indexed = index(root)
    for name in ("a.md", "b.md"):
        assert skipped[name].startswith("symlink loop: "), skipped[name]
        assert "outside the vault" not in skipped[name] and "broken" not in skipped[name]
    assert sorted(indexed) == ["also/good2.md", "good.md"]


def test_the_watcher_path_calls_a_link_loop_a_loop(make_vault):
    from vault_engine.config import load_config
    from vault_engine.sources.vault.files import scan_paths

    root = make_vault(GOOD)
    (root / "a.md").symlink_to("b.md")
    (root / "b.md").symlink_to("a.md")
    scan = scan_paths(load_config(root), ["a.md", "b.md"])
    assert [p.reason.startswith("symlink loop: ") for p in scan.problems] == [True, True]


def test_a_broken_symlink_note_is_reported(make_vault):
    root = make_vault(GOOD)
    (root / "dangling.md").symlink_to(root / "nowhere.md")
    _, skipped, _ = index(root)
    assert skipped["dangling.md"] == (f"broken symlink to {root / 'nowhere.md'}: nothing is there; "
                                      "point it at an existing note or remove it")


def test_an_unreadable_file_is_skipped(make_vault, monkeypatch):
    root = make_vault({**GOOD, "secret.md": "x"})
    if os.geteuid() != 0:
        (root / "secret.md").chmod(0)
    else:  # root reads everything: simulate the permission error the kernel would give
        original = Path.read_bytes

        def deny(self):
            if self.name == "secret.md":
                raise PermissionError(13, "Permission denied")
            return original(self)

        monkeypatch.setattr(Path, "read_bytes", deny)
    _, skipped, indexed = index(root)
    assert skipped["secret.md"] == "permission denied: make the file readable to index it"
    assert "good.md" in indexed


def test_a_file_deleted_between_scan_and_read(make_vault):
    root = make_vault(GOOD)
    (root / ".vault-engine").mkdir()  # as `index` makes it before any store opens
    with Vault(root) as v:
        scan = scan_vault(v.config)
        (root / "good.md").unlink()
        changes = Indexer(v.config, v.ledger, v.lexical).apply_scan(scan)
        assert "good.md" not in {s.path for s in changes.skipped}  # gone, not unreadable (qa61)
        assert v.ledger.note_paths() == ["also/good2.md"]
        assert v.index().deleted == 0  # the next run sees a consistent ledger


def test_a_missing_vault_is_one_clear_line(cli, tmp_path):
    result = cli("--vault", tmp_path / "nope", "index")
    assert result.code == 1
    assert result.err.strip() == f"vault-engine: vault folder {tmp_path / 'nope'} (--vault) does not exist: point --vault at an existing folder"


@pytest.mark.parametrize("name", ["notes.MD", "x.md"])
def test_scan_sees_notes_and_attachments(make_vault, name):
    root = make_vault({name: "x", "pic.png": b"\x89PNG"})
    with Vault(root) as v:
        scan = scan_vault(v.config)
    assert list(scan.notes) == [name] and scan.attachments == ["pic.png"]


def test_the_watcher_path_never_reaches_through_a_symlink_to_a_folder_outside(make_vault, tmp_path):
    """The watcher hands over the link or a file under it: neither is read (as a full scan)."""
    from vault_engine.config import load_config
    from vault_engine.sources.vault.files import scan_paths

    outside = tmp_path / "private"
    outside.mkdir()
    (outside / "diary.md").write_text("# Diary\n\nmy salary\n")
    root = make_vault(GOOD)
    (root / "private-link").symlink_to(outside, target_is_directory=True)
    scan = scan_paths(load_config(root), ["private-link", "private-link/diary.md", "good.md"])
    assert sorted(scan.notes) == ["good.md"]
    assert {p.path for p in scan.problems} == {"private-link", "private-link/diary.md"}
    assert all("outside the vault" in p.reason for p in scan.problems)


def test_utf16_is_named_as_utf16_with_or_without_its_byte_order_mark(make_vault):
    text = "# UTF16 heading\n\nzebraquokka\n"
    root = make_vault({**GOOD, "bom.md": text.encode("utf-16"), "le.md": text.encode("utf-16-le"),
                       "be.md": text.encode("utf-16-be")})
    _, skipped, indexed = index(root)
    for name in ("bom.md", "le.md", "be.md"):
        assert skipped[name] == "UTF-16 text: re-save the note as UTF-8"
    assert sorted(indexed) == ["also/good2.md", "good.md"]


def test_a_file_name_that_is_not_utf8_is_skipped_and_the_rest_indexed(make_vault):
    root = make_vault(GOOD)
    (root / os.fsdecode(b"bad\xffname.md")).write_text("# x\n\nbadnameword\n")
    (root / os.fsdecode(b"dir\xfe")).mkdir()
    (root / os.fsdecode(b"dir\xfe") / "in.md").write_text("# in\n")
    before = snapshot(root)
    _, skipped, indexed = index(root)
    assert skipped == {"bad\\xffname.md": "file name is not valid UTF-8: rename it",
                       "dir\\xfe": "folder name is not valid UTF-8: rename it"}
    assert sorted(indexed) == ["also/good2.md", "good.md"]
    with Vault(root) as v:  # the watcher's path: only the changed paths are scanned
        report = v.index_paths([os.fsdecode(b"bad\xffname.md"), "good.md"])
        assert {s.path: s.reason for s in report.skipped} == {"bad\\xffname.md": "file name is not valid UTF-8: "
                                                                                "rename it"}
    assert snapshot(root) == before


def test_a_fifo_or_device_named_md_is_skipped_with_a_reason(make_vault):
    root = make_vault(GOOD, config="outside_symlinks = true\n")
    os.mkfifo(root / "fifo.md")
    (root / "zero.md").symlink_to("/dev/zero")
    _, skipped, indexed = index(root)
    assert skipped == {"fifo.md": "a named pipe (FIFO), not a file: nothing to index; rename it or remove it",
                       "zero.md": "a device, not a file: nothing to index; rename it or remove it"}
    assert sorted(indexed) == ["also/good2.md", "good.md"]


def test_a_folder_that_cannot_be_listed_says_what_to_do(make_vault, monkeypatch):
    root = make_vault({**GOOD, "locked/in.md": "x\n"})
    original = os.scandir
    monkeypatch.setattr(os, "scandir", lambda path: (_ for _ in ()).throw(PermissionError(13, "Permission denied"))
                        if str(path).endswith("locked") else original(path))
    _, skipped, _ = index(root)
    assert skipped["locked"] == "cannot list folder: permission denied: make the folder readable to index what it holds"


def test_an_indexed_note_that_becomes_unreadable_is_counted_as_left_out(make_vault, monkeypatch):
    from vault_engine.cli.render import index_report

    root = make_vault({**GOOD, "secret.md": "x"})
    index(root)
    (root / "secret.md").write_text("changed")  # the stat moves, so it is read again
    original = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: (_ for _ in ()).throw(PermissionError(13, "denied"))
                        if self.name == "secret.md" else original(self))
    report, skipped, indexed = index(root)
    assert (report.left_out, report.deleted, report.unchanged, list(skipped)) == (1, 0, 2, ["secret.md"])
    assert "secret.md" not in indexed and index_report(report).endswith(
        "; 1 skipped (see above; 1 of them indexed until now, left out until readable)")
    assert index(root)[0].left_out == 0  # said once: the next run finds it skipped already
