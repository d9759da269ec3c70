"""Reading exports (vault_engine/sources/notion/archive.py): folders, zips, nested zips."""

from __future__ import annotations

import io
import zipfile

import pytest

from vault_engine.sources.notion.archive import CorruptEntry, open_export, safe_entry_name


def make_zip(entries: dict[str, bytes], compression=zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


@pytest.mark.parametrize("name, expected", [
    ("a/b.md", "a/b.md"), ("./a//b.md", "a/b.md"), ("a\\b.md", "a/b.md"),
    ("../a.md", None), ("a/../../b.md", None), ("/etc/passwd", None), ("C:\\x.md", None),
    ("a/..", None), ("", None),
])
def test_safe_entry_name(name, expected):
    assert safe_entry_name(name) == expected


def test_a_folder_export_lists_its_files_but_not_hidden_ones(tmp_path):
    (tmp_path / "Space" / "Page 1").mkdir(parents=True)
    (tmp_path / "Space" / "Page 1" / "a.png").write_bytes(b"png")
    (tmp_path / "Space" / ".DS_Store").write_bytes(b"junk")
    (tmp_path / "Space" / "Home.md").write_text("# Home")
    with open_export(tmp_path / "Space") as tree:
        assert sorted(tree.files) == ["Home.md", "Page 1/a.png"]
        assert tree.files["Home.md"].read() == b"# Home"


def test_a_named_pipe_is_named_not_read(tmp_path):
    """`notion import` waited forever on a FIFO in the export, or passed as the export (qa137)."""
    import os

    from vault_engine.errors import NotionError

    (tmp_path / "Space").mkdir()
    (tmp_path / "Space" / "Home.md").write_text("# Home")
    os.mkfifo(tmp_path / "Space" / "Fifo.md")
    with open_export(tmp_path / "Space") as tree:
        assert sorted(tree.files) == ["Home.md"]
        assert [(p.path, p.reason) for p in tree.problems] == [("Fifo.md", "a named pipe (FIFO), not a file: not imported")]
    os.mkfifo(tmp_path / "p.zip")
    with pytest.raises(NotionError, match="p.zip is a named pipe \\(FIFO\\), not a file"):
        with open_export(tmp_path / "p.zip"):
            pass


def test_part_zips_merge_at_the_folder_that_holds_them(tmp_path):
    part1 = make_zip({"Home 1.md": b"# Home"})
    part2 = make_zip({"Home 1/Child 2.md": b"# Child"})
    outer = tmp_path / "Export.zip"
    outer.write_bytes(make_zip({"Export-Part-1.zip": part1, "sub/Export-Part-2.zip": part2}))
    with open_export(outer) as tree:
        assert sorted(tree.files) == ["Home 1.md", "sub/Home 1/Child 2.md"]
        assert tree.files["sub/Home 1/Child 2.md"].read() == b"# Child"
        assert tree.problems == []


def test_zips_nested_too_deep_are_reported_not_opened(tmp_path):
    data = make_zip({"deep.md": b"# deep"})
    for level in range(4):
        data = make_zip({f"level{level}.zip": data})
    (tmp_path / "Export.zip").write_bytes(data)
    with open_export(tmp_path / "Export.zip") as tree:
        assert tree.files == {}
        [problem] = tree.problems
        assert "nested more than 3 deep" in problem.reason


def test_a_damaged_entry_fails_when_read_with_its_name(tmp_path):
    data = bytearray(make_zip({"Page 1.md": b"# A page with enough text to damage"}, zipfile.ZIP_STORED))
    offset = data.find(b"enough")
    data[offset:offset + 6] = b"XXXXXX"
    (tmp_path / "Export.zip").write_bytes(bytes(data))
    with open_export(tmp_path / "Export.zip") as tree:
        with pytest.raises(CorruptEntry, match="Export.zip!Page 1.md: corrupt zip entry"):
            tree.files["Page 1.md"].read()


def encrypted(data: bytes, entry: bytes) -> bytes:
    """``data`` (a zip) with ``entry`` marked encrypted, in its local and its central header,
    as `zip -e` writes it (Python's zipfile writes no encrypted entry of its own)."""
    out = bytearray(data)
    for signature, flag_at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = out.find(signature)
        while at >= 0:
            name_at = at + (30 if signature == b"PK\x03\x04" else 46)
            if out[name_at:name_at + len(entry)] == entry:
                out[at + flag_at] |= 0x1
            at = out.find(signature, at + 4)
    return bytes(out)


def test_an_encrypted_entry_is_one_line_and_the_rest_is_read(tmp_path):
    """An encrypted entry had stopped the import with a traceback, half-written (qa154)."""
    outer = tmp_path / "Export.zip"
    outer.write_bytes(encrypted(make_zip({"Home 1.md": b"# Home", "Secret 2.md": b"# Secret"}), b"Secret 2.md"))
    with open_export(outer) as tree:
        assert tree.files["Home 1.md"].read() == b"# Home"
        with pytest.raises(CorruptEntry, match=r"Export.zip!Secret 2.md: encrypted; unzip it with its password"):
            tree.files["Secret 2.md"].read()


def test_a_zip_in_a_pages_folder_is_a_file_of_the_page_not_a_part(tmp_path):
    """Its pages had been imported as the workspace's, and the file reported missing (qa154)."""
    page = "Specs 11111111111111111111111111111111"
    attached = make_zip({"Inside 22222222222222222222222222222222.md": b"# Inside"})
    outer = tmp_path / "Export.zip"
    outer.write_bytes(make_zip({f"{page}.md": b"# Specs", f"{page}/data.zip": attached}))
    with open_export(outer) as tree:
        assert sorted(tree.files) == [f"{page}.md", f"{page}/data.zip"]
        assert tree.files[f"{page}/data.zip"].read() == attached


def test_an_entry_compressed_as_python_cannot_read_is_said_so_not_encrypted(tmp_path):
    """Deflate64 (Windows' "Compressed folder" for big files) had been called encrypted (qa155)."""
    data = bytearray(make_zip({"Home 1.md": b"# Home", "Big 2.md": b"# Big"}, zipfile.ZIP_STORED))
    for signature, method_at in ((b"PK\x03\x04", 8), (b"PK\x01\x02", 10)):
        at = data.find(signature)
        while at >= 0:
            name_at = at + (30 if signature == b"PK\x03\x04" else 46)
            if data[name_at:name_at + 8] == b"Big 2.md":
                data[at + method_at] = 9  # deflate64
            at = data.find(signature, at + 4)
    (tmp_path / "Export.zip").write_bytes(bytes(data))
    with open_export(tmp_path / "Export.zip") as tree:
        assert tree.files["Home 1.md"].read() == b"# Home"
        with pytest.raises(CorruptEntry, match="compressed in a way Python's zip reader does not read"):
            tree.files["Big 2.md"].read()
