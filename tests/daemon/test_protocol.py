"""The daemon protocol (vault_engine/daemon/protocol.py): the codec returns equal objects,
user errors keep their class and message, long socket paths still work."""

from __future__ import annotations

import dataclasses
import json
import socket

import pytest

from vault_engine.daemon import protocol
from vault_engine.errors import IndexMissing, UnknownRef, VaultError
from vault_engine.model import Hit, IndexReport, NoteView, ResolvedLink, Scores, SearchResult, SkippedFile


def round_trip(value):
    """Through the real wire format: encode, JSON bytes, decode."""
    return protocol.decode(json.loads(json.dumps(protocol.encode(value))))


LINK = ResolvedLink("[[auth#Tokens]]", "specs/auth.md#Tokens", "specs/auth.md", "Tokens", True,
                    False, False, 7, "specs/a.md")


def test_search_results_come_back_equal():
    hit = Hit("specs/a.md#Intro", "specs/a.md", "Intro", "spec", "specs", None, "A", "snippet…",
              3, 9, 0.123456789, Scores(1.5, None, 0.1 + 0.2, 0.97), (LINK,), None, 12.5, 42)
    result = SearchResult("tokens", (hit,), ("lexical",), ("semantic arm off",), 0.25)
    back = round_trip(result)
    assert back == result and type(back.hits) is tuple and back.hits[0].scores.fused == 0.1 + 0.2
    assert back.to_json() == result.to_json()


def test_note_views_and_reports_come_back_equal():
    view = NoteView("a.md", "a.md", "A", "note", "vault", None, None, 1, 3, "# A\ntext\n",
                    {"tags": ["x"], "__tuple__": "a user key that looks like a marker", "n": 1.0},
                    (LINK,), ("A",))
    report = IndexReport(new=1, skipped=(SkippedFile("bad.md", "not UTF-8"),), seconds=0.5)
    assert round_trip(view) == view and round_trip(report) == report


def test_python_types_json_lacks_survive():
    value = {1: (2, 3), "s": {4}, "f": frozenset({"x"}), "nested": [(1, None), {"k": (True,)}],
             "nan": float("inf")}
    assert round_trip(value) == value


def test_only_vault_engine_dataclasses_are_rebuilt():
    wire = {"__dataclass__": "subprocess:CompletedProcess", "fields": {"args": "rm -rf /"}}
    with pytest.raises(protocol.ProtocolError, match="outside vault_engine"):
        protocol.decode(wire)
    with pytest.raises(protocol.ProtocolError, match="does not know"):
        protocol.decode({"__dataclass__": "vault_engine.model:Nope", "fields": {}})


def test_values_that_cannot_cross_say_so():
    with pytest.raises(TypeError, match="cannot cross"):
        protocol.encode(object())
    Plain = dataclasses.make_dataclass("Plain", ["x"])
    assert protocol.encode(Plain(1))["fields"] == {"x": 1}


def test_user_errors_keep_their_class_message_and_exit_code():
    line = protocol.reply_error("vault", "no note a.md", UnknownRef("no note a.md"))
    error = protocol.parse(line)["error"]
    rebuilt = protocol.vault_error(error)
    assert type(rebuilt) is UnknownRef and str(rebuilt) == "no note a.md" and rebuilt.exit_code == 1
    odd = protocol.vault_error({"type": "SomethingNewer", "message": "m", "exit_code": 3})
    assert type(odd) is VaultError and odd.exit_code == 3
    assert type(protocol.vault_error({"type": "IndexMissing", "message": "m"})) is IndexMissing
    # every user error can be rebuilt from its message alone (an attachment's `show` through the watcher)
    from vault_engine import errors
    for cls in vars(errors).values():
        if isinstance(cls, type) and issubclass(cls, VaultError):
            assert type(protocol.vault_error({"type": cls.__name__, "message": "m"})) is cls


def test_messages_are_single_versioned_lines():
    line = protocol.request("search", ("a\nb",), {"k": 3})
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert protocol.parse(line)["args"] == ["a\nb"]
    with pytest.raises(protocol.ProtocolError, match="version 2"):
        protocol.parse(b'{"v": 2}\n')
    with pytest.raises(protocol.ProtocolError):
        protocol.parse(b"{half\n")


def test_every_op_names_a_vault_method():
    from vault_engine.vault import Vault

    landed = [method for method in protocol.OPS.values() if hasattr(Vault, method)]
    assert {"search", "show", "links", "status"} <= set(landed)
    assert protocol.METHOD_OPS["deadend_check"] == "deadend.check"


def test_a_socket_path_too_long_for_sun_path_still_binds_and_connects(tmp_path):
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    path = deep / "daemon.sock"
    assert len(bytes(path)) > 108
    with socket.socket(socket.AF_UNIX) as server:
        with protocol.unix_address(path) as address:
            server.bind(address)
        server.listen(1)
        assert path.exists()
        with socket.socket(socket.AF_UNIX) as client, protocol.unix_address(path) as address:
            client.connect(address)
            conn, _ = server.accept()
            client.sendall(b"hi\n")
            assert conn.recv(3) == b"hi\n"
            conn.close()
