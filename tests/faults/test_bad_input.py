"""Bad input, case by case: each gets ONE clear line on stderr naming the file or argument and
what to do, exit 1 (or 2 for a usage error), never a traceback; the rest of the work goes on,
and nothing the user wrote is changed or lost.

Cases: out-of-range numbers on the command line, argv that is not UTF-8, control characters
in a checkpoint, a ``#`` in a note's file name, invalid vault-engine.toml values and typos,
terminal escapes carried by notes and file names, symlinks out of the vault, hostile Notion
exports and API answers, and a hostile client of the warm daemon's socket.
"""

from __future__ import annotations

import http.server
import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path

import pytest

from tests.conftest import run_cli_subprocess
from tests.daemon import conftest as daemon_conftest
from vault_engine.daemon.client import ask
from vault_engine.daemon.protocol import unix_address

# The daemon fixtures (a real `vault-engine watch` on sample-vault/, indexed words only), which
# tests/daemon/conftest.py defines for its own folder only.
lexical_vault = daemon_conftest.lexical_vault
start_daemon = daemon_conftest.start_daemon
wait_for = daemon_conftest.wait_for

NO_MODEL = "[model]\nenabled = false\n"
FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "notion" / "export" / "Team Space"
ESC, BEL = "\x1b", "\x07"


# -- helpers ------------------------------------------------------------------------------------

def one_line(err: str, *needles: str) -> str:
    """The single stderr line (no traceback), which must hold every needle."""
    assert "Traceback" not in err, err
    lines = err.splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got {len(lines)}:\n{err}"
    for needle in needles:
        assert needle in lines[0], f"{needle!r} not in {lines[0]!r}"
    return lines[0]


def usage_error(code: int, err: str, option: str) -> str:
    """argparse's shape: the usage synopsis, then exactly one ``error:`` line naming the option."""
    assert code == 2, (code, err)
    assert "Traceback" not in err, err
    lines = err.splitlines()
    errors = [line for line in lines if ": error: " in line]
    assert len(errors) == 1 and lines[-1] == errors[0], err
    assert f"argument {option}" in errors[0], errors[0]
    assert all(line.startswith(("usage: ", " ")) for line in lines[:-1]), err
    return errors[0]


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every file (bytes) and folder (None) the user owns: everything outside .vault-engine/."""
    found: dict[str, bytes | None] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".vault-engine"]
        rel = Path(dirpath).relative_to(root)
        for d in dirnames:
            found[str(rel / d) + "/"] = None
        for f in filenames:
            path = Path(dirpath, f)
            found[str(rel / f)] = os.readlink(path).encode() if path.is_symlink() else path.read_bytes()
    return found


def files_holding(root: Path, needle: bytes) -> list[str]:
    """Every regular file under ``root`` (index included) whose bytes hold ``needle``."""
    hits = []
    for dirpath, _, filenames in os.walk(root):
        for f in filenames:
            path = Path(dirpath, f)
            if not path.is_symlink() and needle in path.read_bytes():
                hits.append(str(path.relative_to(root)))
    return hits


def run_bytes(*args: bytes) -> subprocess.CompletedProcess:
    """The CLI with a bytes argv, as a shell passes whatever bytes a file name holds."""
    return subprocess.run([os.fsencode(sys.executable), b"-m", b"vault_engine", *args],
                          capture_output=True, timeout=120)


def index_in_process(root: Path) -> None:
    from vault_engine.vault import Vault

    with Vault(root) as vault:
        vault.index(embed=False)


# -- 1. numbers on the command line ------------------------------------------------------------

@pytest.fixture(scope="module")
def small_vault(tmp_path_factory) -> Path:
    """An indexed vault with one project, shared by read-only tests (a wrongly accepted value
    would then answer, exit 0, instead of failing for want of an index)."""
    root = tmp_path_factory.mktemp("small") / "vault"
    notes = {
        "plain.md": "# Plain\nhello world, x marks the spot\n",
        "has#h.md": "# Hash\nzebra quokka text\n",
        "projects/alpha/checkpoints/20260101T000000Z-a.md":
            "---\ntype: checkpoint\nproject: alpha\nagent: a\ncreated: 2026-01-01T00:00:00Z\n---\n"
            "# Checkpoint\n## Summary\nx done\n## Failed\n- Use a cron job -- it drifted\n",
    }
    for rel, text in notes.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    (root / "vault-engine.toml").write_text(NO_MODEL, encoding="utf-8")
    index_in_process(root)
    return root


OUT_OF_RANGE = [
    (("search", "x", "-k", "0"), "-k"),
    (("search", "x", "-k", "-1"), "-k"),
    (("search", "x", "-k", "1001"), "-k"),
    (("search", "x", "-k", "ten"), "-k"),
    (("search", "x", "--follow", "-1"), "--follow"),
    (("search", "x", "--follow", "6"), "--follow"),
    (("deadend", "check", "use a cron job", "-k", "0"), "-k"),
    (("deadend", "check", "use a cron job", "-k", "101"), "-k"),
    (("resume", "--project", "alpha", "--max-tokens", "0"), "--max-tokens"),
    (("resume", "--project", "alpha", "--max-tokens", "-5"), "--max-tokens"),
    (("resume", "--project", "alpha", "--max-tokens", "39"), "--max-tokens"),  # too small for the cut line
]


@pytest.mark.parametrize("args,option", OUT_OF_RANGE, ids=lambda v: " ".join(v) if isinstance(v, tuple) else None)
def test_an_out_of_range_number_is_a_usage_error_naming_the_option(small_vault, cli, args, option):
    result = cli("--vault", small_vault, *args, "--lexical" if args[0] != "resume" else "--json")
    line = usage_error(result.code, result.err, option)
    assert result.out == ""
    assert "out of range" in line or "not a whole number" in line


@pytest.mark.parametrize("args", [
    ("search", "cron", "-k", "1000", "--lexical"),
    ("search", "cron", "-k", "1", "--follow", "5", "--lexical"),
    ("deadend", "check", "use a cron job", "-k", "100", "--lexical"),
    ("resume", "--project", "alpha", "--max-tokens", "40"),
], ids=lambda a: " ".join(a))
def test_the_limits_themselves_are_accepted(small_vault, cli, args):
    result = cli("--vault", small_vault, *args, "--json")
    assert result.code == 0, result.err
    assert isinstance(result.json, dict)


# -- 2. argv that is not UTF-8 -----------------------------------------------------------------

@pytest.mark.parametrize("args", [
    (b"search", b"\xff\xfe", b"--lexical"),
    (b"search", b"caf\xe9 \xff\xfe"),  # hybrid flags (the default)
    (b"search", b"x", b"--kind", b"\xff"),
    (b"deadend", b"check", b"\xff\xfe plan"),
    (b"show", b"notes/\xff\xfe.md"),
], ids=["search-lexical", "search-hybrid", "search-kind", "deadend-check", "show"])
def test_argv_that_is_not_utf8_is_one_line_exit_2(small_vault, args):
    done = run_bytes(b"--vault", os.fsencode(small_vault), *args)
    assert done.returncode == 2 and done.stdout == b"", done
    err = done.stderr.decode("utf-8")  # the message itself is clean UTF-8
    one_line(err, "argument", "not valid UTF-8")


# -- 3. control characters in a checkpoint -----------------------------------------------------

@pytest.fixture
def memory_vault(make_vault) -> Path:
    root = make_vault({"specs/auth.md": "# Auth\ntokens rotate\n"}, config=NO_MODEL)
    index_in_process(root)
    return root


CONTROL_CASES = [
    pytest.param({"summary": "ok\u0000then"}, "summary", id="summary-NUL"),
    pytest.param({"summary": "ok", "next": ["tune \u001b[31m red"]}, "next", id="next-CSI"),
    pytest.param({"failed": [{"text": "ring \u0007 the bell", "reason": "r"}]}, "failed", id="failed-text-BEL"),
    pytest.param({"failed": [{"text": "t", "reason": "retitle \u001b]0;owned\u0007"}]}, "failed",
                 id="failed-reason-OSC"),
    pytest.param({"links": ["specs/auth\u0000.md"]}, "link", id="link-NUL"),
    pytest.param({"summary": "rub\u007fout"}, "summary", id="summary-DEL"),
    pytest.param({"summary": "C1 \u009b31m CSI"}, "summary", id="summary-C1-CSI"),
]


@pytest.mark.parametrize("body,field", CONTROL_CASES)
def test_a_control_character_in_a_checkpoint_is_refused_naming_the_field(memory_vault, cli, tmp_path,
                                                                          body, field):
    draft = tmp_path / "draft.json"
    draft.write_text(json.dumps({"summary": "ok", "next": [], "failed": [], "links": [], **body}),
                     encoding="utf-8")
    before = snapshot(memory_vault)
    result = cli("--vault", memory_vault, "checkpoint", "new", "--project", "alpha", "--agent", "a",
                 "--from-json", draft)
    assert result.code in (1, 2) and result.out == "", result
    one_line(result.err, field, "control character")
    assert snapshot(memory_vault) == before  # no checkpoint, not even its folder


@pytest.mark.parametrize("flags,field", [
    (("--summary", "turns \x1b[31m red"), "summary"),
    (("--next", "bell \x07"), "next"),
    (("--failed", "clear \x1b[2J -- because"), "failed"),
], ids=["summary", "next", "failed"])
def test_a_control_character_in_checkpoint_flags_is_refused_too(memory_vault, cli, flags, field):
    before = snapshot(memory_vault)
    result = cli("--vault", memory_vault, "checkpoint", "new", "--project", "alpha", "--agent", "a", *flags)
    assert result.code in (1, 2) and result.out == ""
    one_line(result.err, field, "control character")
    assert snapshot(memory_vault) == before


@pytest.mark.parametrize("content,needle", [
    (None, "cannot read it"),
    (b"{not json", "not valid JSON"),
    (b'{"summary": "caf\xe9"}', "not UTF-8 text (byte 17): save it as UTF-8"),  # Latin-1
    (b"[]", "expects a JSON object"),
    (b'{"summary": 5}', "summary must be a string"),
    (b'{"failed": 5}', "failed must be a list (or one string)"),
    (b"[" * 100_000 + b"]" * 100_000, "not valid JSON (nested too deeply)"),  # a traceback (qa70)
    (b'{"failed": [{"text": "t", "reasn": "r"}]}', "'reasn' is not a field of a failed item (did you mean reason?)"),
], ids=["missing", "not-json", "not-utf8", "a-list", "summary-number", "failed-number", "deep", "failed-typo"])
def test_a_bad_from_json_file_is_one_line_naming_it(memory_vault, cli, tmp_path, content, needle):
    draft = tmp_path / "draft.json"
    if content is not None:
        draft.write_bytes(content)
    before = snapshot(memory_vault)
    result = cli("--vault", memory_vault, "checkpoint", "new", "--project", "alpha", "--agent", "a",
                 "--from-json", draft)
    assert result.code == 1 and result.out == ""
    one_line(result.err, "--from-json", needle)
    assert snapshot(memory_vault) == before


def test_a_typo_key_in_from_json_is_refused_not_silently_dropped(memory_vault, cli, tmp_path):
    draft = tmp_path / "draft.json"
    draft.write_text(json.dumps({"summry": "the summary the agent wrote", "next": []}), encoding="utf-8")
    before = snapshot(memory_vault)
    result = cli("--vault", memory_vault, "checkpoint", "new", "--project", "alpha", "--agent", "a",
                 "--from-json", draft)
    assert result.code in (1, 2), result
    one_line(result.err, "summry")
    assert snapshot(memory_vault) == before


def test_newlines_and_tabs_in_a_checkpoint_are_plain_text_and_accepted(memory_vault, cli, tmp_path):
    draft = tmp_path / "draft.json"
    draft.write_text(json.dumps({"summary": "line one\nline two\twith a tab", "next": ["a step"]}),
                     encoding="utf-8")
    result = cli("--vault", memory_vault, "checkpoint", "new", "--project", "alpha", "--agent", "a",
                 "--from-json", draft, "--json")
    assert result.code == 0, result.err
    written = (memory_vault / result.json["path"]).read_text(encoding="utf-8")
    assert "line one\nline two\twith a tab" in written


def test_a_date_of_infinity_or_nan_is_ignored_and_said_and_the_vault_is_indexed(make_vault, cli):
    """`created: .inf` stopped every index of the vault with a traceback (JSON holds no
    infinity: SQLite refused the ledger), and `.nan` dropped its note (qa70)."""
    root = make_vault({"inf.md": "---\ncreated: .inf\nrating: -.inf\n---\n# Inf\ninfword\n",
                       "nan.md": "---\nupdated: .nan\n---\n# Nan\nnanword\n", "plain.md": "# Plain\nplainword\n"},
                      config=NO_MODEL)
    indexed = cli("--vault", root, "index", "--no-embed")
    assert indexed.code == 0 and "3 new" in indexed.out, indexed
    for word in ("infword", "nanword", "plainword"):
        assert cli("--vault", root, "search", word, "--lexical", "--json").json["status"] == "hit"
    status = cli("--vault", root, "status").out
    assert "inf.md: created '.inf' is not a date" in status and "nan.md: updated '.nan' is not a date" in status
    assert cli("--vault", root, "show", "inf.md", "--json").json["frontmatter"]["rating"] == "-.inf"


# -- 4. a '#' in a note's file name ------------------------------------------------------------

def test_a_hash_in_a_file_name_is_found_and_shown(small_vault, cli):
    found = cli("--vault", small_vault, "search", "quokka", "--lexical", "--json")
    assert found.code == 0 and found.json["status"] == "hit"
    assert [hit["path"] for hit in found.json["hits"]] == ["has#h.md"]
    shown = cli("--vault", small_vault, "show", "has#h.md")
    assert shown.code == 0 and shown.err == ""
    assert "zebra quokka text" in shown.out
    data = cli("--vault", small_vault, "show", "has#h.md", "--json").json
    assert data["text"] == "# Hash\nzebra quokka text\n"


def test_the_ref_a_search_hit_gives_for_a_hash_file_name_opens_it(small_vault, cli):
    hit = cli("--vault", small_vault, "search", "quokka", "--lexical", "--json").json["hits"][0]
    shown = cli("--vault", small_vault, "show", hit["ref"])
    assert shown.code == 0, shown.err
    assert "zebra quokka text" in shown.out


def test_the_ref_printed_for_a_backslash_in_a_file_name_opens_it(make_vault, cli):
    root = make_vault({"back\\slash.md": "# B\nbackslashword\n", "specs/auth.md": "# Auth\ntokens\n"}, NO_MODEL)
    index_in_process(root)
    hit = cli("--vault", root, "search", "backslashword", "--lexical", "--json").json["hits"][0]
    assert hit["ref"] == "back\\slash.md#B"
    for ref in (hit["ref"], hit["path"]):
        shown = cli("--vault", root, "show", ref)
        assert shown.code == 0 and "backslashword" in shown.out, shown.err
    shown = cli("--vault", root, "show", "specs\\auth.md")  # a Windows path still opens its note
    assert shown.code == 0 and "tokens" in shown.out, shown.err


def test_a_newline_in_a_file_name_is_escaped_in_text_output(make_vault, cli):
    root = make_vault({"new\nline.md": "# N\nnewlineword\n"}, NO_MODEL)
    index_in_process(root)
    found = cli("--vault", root, "search", "newlineword", "--lexical")
    assert found.code == 0 and " 1. new\\x0aline.md#N  [" in found.out
    assert cli("--vault", root, "search", "newlineword", "--lexical", "--json").json["hits"][0]["path"] == "new\nline.md"


@pytest.mark.parametrize("command", [("show",), ("links",), ("reinforce",)])
def test_a_ref_with_a_name_too_long_for_the_file_system_is_an_unknown_ref(small_vault, command):
    for ref in ("a" * 300 + ".md", "projects/" + "é" * 200):  # one part past 255 bytes
        result = run_cli_subprocess("--vault", small_vault, *command, ref)
        assert result.returncode == 1
        one_line(result.stderr, "no note", "in the index")


# -- 5. vault-engine.toml ----------------------------------------------------------------------

SPECS_TAP = '[taps.specs]\npaths = ["specs/**"]\n'
CONFIG_NOTES = {"specs/a.md": "# A\nalpha spec\n", "notes/b.md": "# B\nbeta\n"}

BAD_VALUES = [
    pytest.param(SPECS_TAP + "half_life_days = nan\n", "taps.specs.half_life_days", id="half_life_days-nan"),
    pytest.param(SPECS_TAP + "half_life_days = inf\n", "taps.specs.half_life_days", id="half_life_days-inf"),
    pytest.param(SPECS_TAP + "half_life_days = -inf\n", "taps.specs.half_life_days", id="half_life_days--inf"),
    pytest.param('[taps.notion]\nhalf_life_days = nan\n', "taps.notion.half_life_days", id="notion-half_life-nan"),
    pytest.param(SPECS_TAP + "floor = nan\n", "taps.specs.floor", id="floor-nan"),
    pytest.param("max_file_mb = inf\n", "max_file_mb", id="max_file_mb-inf"),
    pytest.param("[search]\nmiss_cosine_floor = nan\n", "search.miss_cosine_floor", id="miss_cosine_floor-nan"),
    pytest.param("[deadend]\nsemantic_min = inf\n", "deadend.semantic_min", id="semantic_min-inf"),
    pytest.param("[watch]\ndebounce_ms = nan\n", "watch.debounce_ms", id="debounce_ms-nan"),
    pytest.param("[watch]\nmax_wait_ms = inf\n", "watch.max_wait_ms", id="max_wait_ms-inf"),
    pytest.param("[taps.notion]\nmax_file_mb = nan\n", "taps.notion.max_file_mb", id="notion-max_file_mb-nan"),
]


@pytest.mark.parametrize("command", [("status",), ("index", "--no-embed")], ids=["status", "index"])
@pytest.mark.parametrize("table,key", BAD_VALUES)
def test_an_invalid_config_value_is_refused_naming_the_key(make_vault, cli, table, key, command):
    root = make_vault(CONFIG_NOTES, config=table + NO_MODEL)  # top-level keys before any table
    before = snapshot(root)
    result = cli("--vault", root, *command)
    assert result.code in (1, 2), (result.code, result.out, result.err)
    assert result.out == ""
    one_line(result.err, f"vault-engine: vault-engine.toml: {key} must ")  # the file named (qa49)
    assert snapshot(root) == before


@pytest.mark.parametrize("command", [("status",), ("index", "--no-embed")], ids=["status", "index"])
@pytest.mark.parametrize("table,typo,right", [
    pytest.param(SPECS_TAP + "half_life = 30\n", "half_life", "half_life_days", id="specs-half_life"),
    pytest.param("[taps.notion]\nhalf_life = 30\n", "half_life", "half_life_days", id="notion-half_life"),
    pytest.param("[model]\nthread = 2\n", "model.thread", "threads", id="model-thread"),
    pytest.param("[search]\nmiss_cosine = 0.3\n", "search.miss_cosine", "miss_cosine_floor", id="search-miss_cosine"),
    pytest.param("max_file = 5\n", "max_file", "max_file_mb", id="max_file"),
])
def test_a_typo_key_is_an_error_naming_it_and_the_right_key(make_vault, cli, table, typo, right, command):
    config = table + "enabled = false\n" if table.startswith("[model]") else table + NO_MODEL
    root = make_vault(CONFIG_NOTES, config=config)
    before = snapshot(root)
    result = cli("--vault", root, *command)
    assert result.code in (1, 2) and result.out == ""
    line = one_line(result.err, typo)
    assert f"did you mean {right}" in line, line
    assert snapshot(root) == before


@pytest.mark.parametrize("command", [("status",), ("index", "--no-embed")], ids=["status", "index"])
@pytest.mark.parametrize("model,key", [
    ('threads = "x"', "model.threads"),
    ("threads = -1", "model.threads"),
    ('enabled = "no"', "model.enabled"),
    ("window_tokens = 8", "model.window_tokens"),
    ("path = 5", "model.path"),
], ids=["threads-string", "threads-negative", "enabled-string", "window-too-small", "path-number"])
def test_a_bad_model_value_is_refused_even_where_no_model_is_needed(make_vault, cli, model, key, command):
    root = make_vault(CONFIG_NOTES, config=f"[model]\n{model}\n")
    before = snapshot(root)
    result = cli("--vault", root, *command)
    assert result.code in (1, 2) and result.out == ""
    one_line(result.err, key)
    assert snapshot(root) == before
    assert not (root / ".vault-engine").exists()  # refused before anything was built


# -- 6. terminal escapes -----------------------------------------------------------------------

EVIL_NAME = f"evil{ESC}[31m.md"
EVIL_TEXT = (f"# Title {ESC}]0;owned{BEL}\n"
             f"marmot text {ESC}[31m red {ESC}]0;owned{BEL} see [[other|red {ESC}(0 text{BEL}]] "
             f"and [[ghost {ESC}(0{BEL}]]\n")
BINARY_NAME = f"bin{ESC}[31m.md"


@pytest.fixture(scope="module")
def escape_vault(tmp_path_factory) -> Path:
    """A note whose name and text carry CSI, OSC (window title), charset switch and BEL, a
    note linking back to it, and a binary .md whose name carries CSI (skipped, so listed)."""
    root = tmp_path_factory.mktemp("escapes") / "vault"
    root.mkdir()
    (root / EVIL_NAME).write_text(EVIL_TEXT, encoding="utf-8")
    (root / "other.md").write_text("# Other\na friendly note\n", encoding="utf-8")
    (root / BINARY_NAME).write_bytes(b"\x00\x01binary\xff")
    (root / "vault-engine.toml").write_text(NO_MODEL, encoding="utf-8")
    done = run_cli_subprocess("--vault", root, "index", "--no-embed")
    assert done.returncode == 0, done.stderr
    raw = done.stdout + done.stderr
    assert ESC not in raw and BEL not in raw, raw  # the notice naming bin\x1b[31m.md too
    one_line(done.stderr, "bin\\x1b[31m.md", "binary")
    return root


HUMAN = [
    ("search", "marmot", "--lexical"),
    ("show", EVIL_NAME),
    ("links", EVIL_NAME),
    ("links", "other.md", "--backlinks"),
    ("links", "--all"),
    ("status",),
]


@pytest.mark.parametrize("args", HUMAN, ids=lambda a: a[0] + ("-" + a[-1].lstrip("-") if a[-1].startswith("--") else ""))
def test_human_output_never_carries_raw_escapes(escape_vault, args):
    done = run_cli_subprocess("--vault", escape_vault, *args)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    for stream in (done.stdout, done.stderr):
        assert ESC not in stream and BEL not in stream, repr(stream)
    assert "\\x1b" in done.stdout  # shown, escaped; not dropped


def test_an_error_message_naming_an_escaped_ref_is_sanitized(escape_vault):
    done = run_cli_subprocess("--vault", escape_vault, "show", f"gone{ESC}]0;owned{BEL}.md")
    assert done.returncode == 1 and done.stdout == ""
    line = one_line(done.stderr, "gone\\x1b]0;owned\\x07.md")
    assert ESC not in line and BEL not in line


def test_json_output_keeps_the_exact_text(escape_vault):
    def data(*args):
        done = run_cli_subprocess("--vault", escape_vault, *args, "--json")
        assert done.returncode == 0, done.stderr
        assert ESC not in done.stdout and BEL not in done.stdout  # JSON-escaped as \u001b
        return json.loads(done.stdout)

    hit = data("search", "marmot", "--lexical", "-k", "1")["hits"][0]
    assert hit["path"] == EVIL_NAME and hit["heading"] == f"Title {ESC}]0;owned{BEL}"
    assert f"{ESC}[31m red {ESC}]0;owned{BEL}" in hit["snippet"]
    assert data("show", EVIL_NAME)["text"] == EVIL_TEXT
    raws = {link["raw"] for link in data("links", EVIL_NAME)["links"]}
    assert raws == {f"[[other|red {ESC}(0 text{BEL}]]", f"[[ghost {ESC}(0{BEL}]]"}
    status = data("status")
    assert {item["path"] for item in status["skipped_files"]} == {BINARY_NAME}
    assert [u["raw"] for u in status["unresolved"]] == [f"[[ghost {ESC}(0{BEL}]]"]


# -- 7. symlinks out of the vault --------------------------------------------------------------

SECRET = "outsidesecretword"


@pytest.fixture
def symlink_vault(make_vault, tmp_path) -> tuple[Path, Path]:
    outside = tmp_path / "outside"
    (outside / "dir").mkdir(parents=True)
    (outside / "secret.md").write_text(f"# Secret\n{SECRET} from outside the vault\n", encoding="utf-8")
    (outside / "dir" / "d.md").write_text(f"# D\n{SECRET} in an outside folder\n", encoding="utf-8")
    root = make_vault({"in.md": "# Inside\nnormal words\n", "swap.md": "# Swap\nswapword here\n"},
                      config=NO_MODEL)
    (root / "link.md").symlink_to(outside / "secret.md")
    (root / "linked").symlink_to(outside / "dir", target_is_directory=True)
    return root, outside


def test_a_symlink_out_of_the_vault_is_not_indexed_and_says_so(symlink_vault, cli):
    root, outside = symlink_vault
    outside_before = snapshot(outside)
    indexed = cli("--vault", root, "index", "--json")
    assert indexed.code == 0
    assert "Traceback" not in indexed.err
    lines = indexed.err.splitlines()
    assert len(lines) == 2, indexed.err  # one line per link, nothing else
    assert len([line for line in lines if "link.md" in line and "outside the vault" in line]) == 1
    assert len([line for line in lines if "linked" in line and "outside the vault" in line]) == 1
    assert {s["path"] for s in indexed.json["skipped"]} == {"link.md", "linked"}
    assert indexed.json["new"] == 2  # in.md and swap.md: the rest was indexed

    found = cli("--vault", root, "search", SECRET, "--lexical", "--json")
    assert found.code == 0 and found.json["status"] == "miss" and found.json["hits"] == []
    assert files_holding(root / ".vault-engine", SECRET.encode()) == []

    status = cli("--vault", root, "status", "--json").json
    assert {"link.md", "linked"} <= {s["path"] for s in status["skipped_files"]}
    human = cli("--vault", root, "status").out
    assert any(line.startswith("skipped    link.md: ") for line in human.splitlines()), human
    assert snapshot(outside) == outside_before


def test_the_status_skipped_count_agrees_with_its_list(symlink_vault, cli):
    root, _ = symlink_vault
    assert cli("--vault", root, "index", "--no-embed").code == 0
    status = cli("--vault", root, "status", "--json").json
    assert status["skipped"] == len(status["skipped_files"]) == 2


def test_show_refuses_a_note_swapped_for_a_symlink_out_of_the_vault(symlink_vault, cli):
    root, outside = symlink_vault
    assert cli("--vault", root, "index", "--no-embed").code == 0
    (root / "swap.md").unlink()
    (root / "swap.md").symlink_to(outside / "secret.md")
    shown = cli("--vault", root, "show", "swap.md")
    assert shown.code == 1 and shown.out == ""
    one_line(shown.err, "swap.md", "outside the vault")
    assert SECRET not in shown.err
    for args in (("show", "swap.md", "--json"), ("show", "swap.md#Swap")):
        other = cli("--vault", root, *args)
        assert SECRET not in other.out + other.err, args
    assert cli("--vault", root, "search", SECRET, "--lexical", "--json").json["hits"] == []


def test_show_calls_a_note_swapped_for_a_symlink_loop_a_loop(symlink_vault, cli):
    root, _ = symlink_vault
    assert cli("--vault", root, "index", "--no-embed").code == 0
    (root / "swap.md").unlink()
    (root / "swap.md").symlink_to("swap-back.md")
    (root / "swap-back.md").symlink_to("swap.md")
    shown = cli("--vault", root, "show", "swap.md")
    assert shown.code == 1 and shown.out == ""
    one_line(shown.err, "swap.md", "symlink loop")
    assert "outside the vault" not in shown.err


def test_the_state_folder_is_private_whatever_the_umask(make_vault):
    root = make_vault({"a.md": "# A\ntext\n"}, config=NO_MODEL)
    done = subprocess.run([sys.executable, "-m", "vault_engine", "--vault", str(root), "index", "--no-embed"],
                          capture_output=True, text=True, timeout=120, preexec_fn=lambda: os.umask(0))
    assert done.returncode == 0, done.stderr
    assert stat.S_IMODE((root / ".vault-engine").stat().st_mode) == 0o700


# -- 8. Notion ---------------------------------------------------------------------------------

PAGE_ID = "ab" * 16


def test_notion_import_follows_no_symlink_out_of_the_export(make_vault, cli, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRET-7d1f the outside file\n", encoding="utf-8")
    (tmp_path / "secret-dir").mkdir()
    (tmp_path / "secret-dir" / "keys.png").write_text("TOPSECRET-7d1f in a folder\n", encoding="utf-8")
    export = tmp_path / "export"
    shutil.copytree(FIXTURE, export, symlinks=True)
    space = export / "Team Space 1f0c2d3e4a5b46c7d8e9f00112233445"
    (space / "Auth spec 2a1b3c4d5e6f47a8b9c0d1e2f3a4b5c6" / "leak.txt").symlink_to(secret)
    (space / "Leak page 6e5f7a8b9c0d41e2f3a4b5c6d7e8f9a0.md").symlink_to(secret)
    (space / "Roadmap 3b2c4d5e6f7a48b9c0d1e2f3a4b5c6d7" / "Stolen 7f6e5d4c3b2a41f0e9d8c7b6a5f4e3d2").symlink_to(
        tmp_path / "secret-dir", target_is_directory=True)
    root = make_vault({}, config=NO_MODEL)
    result = cli("--vault", root, "notion", "import", export, "--json")
    assert result.code == 0, result.err
    assert "Traceback" not in result.err
    lines = result.err.splitlines()
    assert len(lines) == 3, result.err
    for name in ("leak.txt", "Leak page 6e5f7a8b9c0d41e2f3a4b5c6d7e8f9a0.md", "Stolen 7f6e5d4c3b2a41f0e9d8c7b6a5f4e3d2"):
        assert len([line for line in lines if name in line and "symlink" in line]) == 1, (name, lines)
    assert files_holding(root, b"TOPSECRET-7d1f") == []
    assert len(result.json["new"]) == 5  # the whole export otherwise, as without the links
    assert (root / "notion" / "Auth spec f3a4b5c6" / "flow diagram.png").is_file()


def zip_with(path: Path, pages: dict[str, bytes | int]) -> Path:
    """A zip of pages; an int is that many MB of one repeated letter, streamed (a bomb)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        for name, body in pages.items():
            if isinstance(body, int):
                with archive.open(name, "w") as entry:
                    entry.write(b"# Bomb\n")
                    chunk = b"bombword " * (1 << 17)  # ~1.1 MB
                    for _ in range(body):
                        entry.write(chunk)
            else:
                archive.writestr(name, body)
    return path


def test_a_zip_entry_past_max_file_mb_is_refused_and_the_rest_imported(make_vault, cli, tmp_path):
    root = make_vault({}, config=NO_MODEL + "[taps.notion]\nmax_file_mb = 1\n")
    export = zip_with(tmp_path / "Export.zip", {f"Big {PAGE_ID}.md": 2,
                                                f"Small {'cd' * 16}.md": b"# Small\nsmallword fine\n"})
    result = cli("--vault", root, "notion", "import", export, "--json")
    assert result.code == 0, result.err
    one_line(result.err, f"Big {PAGE_ID}.md", "max_file_mb")
    assert result.json["new"] == ["notion/Small cdcdcdcd.md"]
    assert files_holding(root, b"bombword") == []


# The peak RSS of the command itself: VmHWM of its own memory. Not getrusage's ru_maxrss, which
# the kernel seeds with the parent's peak at exec (a test worker that loaded the model earlier
# made a 77 MB import read as 535 MB).
RSS_PROBE = (
    "import sys\n"
    "from vault_engine.cli.main import main\n"
    "code = main(sys.argv[1:])\n"
    "peak = next(line.split()[1] for line in open('/proc/self/status') if line.startswith('VmHWM:'))\n"
    "print('MAXRSS_KB', peak, file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def test_a_zip_bomb_is_refused_with_the_default_limit_and_bounded_memory(make_vault, tmp_path):
    root = make_vault({}, config=NO_MODEL)
    export = zip_with(tmp_path / "Bomb.zip", {f"Bomb {PAGE_ID}.md": 120,
                                              f"Small {'cd' * 16}.md": b"# Small\nsmallword fine\n"})
    assert export.stat().st_size < 5 << 20  # small on disk, 120 MB expanded
    done = subprocess.run([sys.executable, "-c", RSS_PROBE, "--vault", str(root), "notion", "import",
                           str(export), "--no-embed", "--json"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    *err, rss = done.stderr.splitlines()
    one_line("\n".join(err), f"Bomb {PAGE_ID}.md", "max_file_mb")
    assert json.loads(done.stdout)["new"] == ["notion/Small cdcdcdcd.md"]
    peak_mb = int(rss.split()[1]) / 1024
    assert peak_mb < 160, f"peak RSS {peak_mb:.0f} MB: the 120 MB entry was held in memory"
    assert files_holding(root, b"bombword") == []


def test_an_export_past_max_export_mb_stops_taking_pages_with_one_line_each(make_vault, cli, tmp_path):
    root = make_vault({}, config=NO_MODEL + "[taps.notion]\nmax_export_mb = 1\n")
    pages = {f"{name} {str(i + 1) * 32}.md": (f"# {name}\n" + f"{name.lower()}word " * (45 << 10)).encode()
             for i, name in enumerate(["Alpha", "Beta", "Gamma"])}  # ~450 KB each
    result = cli("--vault", root, "notion", "import", zip_with(tmp_path / "Export.zip", pages), "--json")
    assert result.code == 0, result.err
    one_line(result.err, "Gamma 33333333333333333333333333333333.md", "max_export_mb")
    assert result.json["new"] == ["notion/Alpha 11111111.md", "notion/Beta 22222222.md"]
    assert files_holding(root, b"gammaword") == []


@pytest.mark.parametrize("url", ["http://example.com", "http://127.0.0.1@example.com",
                                 "http://10.0.0.5:8080", "http://localhost.example.com"])
def test_a_plain_http_base_url_off_this_machine_is_refused_before_any_request(make_vault, cli, monkeypatch, url):
    calls = []

    def no_network(*args, **kwargs):
        calls.append(args)
        raise OSError("the test forbids network access")

    monkeypatch.setattr(socket, "getaddrinfo", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setenv("NOTION_TOKEN", "ntn_fault_test")
    root = make_vault({}, config=NO_MODEL + f'[taps.notion]\npage_ids = ["{PAGE_ID}"]\nbase_url = "{url}"\n')
    before = snapshot(root)
    result = cli("--vault", root, "notion", "sync", "--no-embed")
    assert result.code in (1, 2) and result.out == ""
    one_line(result.err, "base_url")
    assert calls == []
    assert snapshot(root) == before


class NotNotion(http.server.BaseHTTPRequestHandler):
    """Answers every request 200 with the body the test chose."""

    body = b""
    seen: list[str] = []

    def _answer(self):
        type(self).seen.append(f"{self.command} {self.path}")
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    do_GET = do_POST = do_PATCH = _answer

    def log_message(self, *args):
        pass


@pytest.fixture
def not_notion():
    handler = type("Handler", (NotNotion,), {"seen": []})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server, handler
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("body", [
    pytest.param(b"this is {not json", id="not-json"),
    pytest.param(b"<html>proxy login</html>", id="html"),
    pytest.param(b"[1, 2]", id="json-list"),
    pytest.param(b'"a string"', id="json-string"),
    pytest.param(b"null", id="json-null"),
])
def test_a_loopback_api_answering_garbage_is_one_line_exit_1(make_vault, not_notion, body):
    server, handler = not_notion
    handler.body = body
    port = server.server_address[1]
    root = make_vault({}, config=NO_MODEL + f'[taps.notion]\npage_ids = ["{PAGE_ID}"]\n'
                                             f'base_url = "http://127.0.0.1:{port}"\n')
    before = snapshot(root)
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    done = run_cli_subprocess("--vault", root, "notion", "sync", "--no-embed",
                              env={**env, "NOTION_TOKEN": "ntn_fault_test"})
    assert handler.seen and handler.seen[0] == f"GET /v1/pages/{PAGE_ID}"  # loopback http is allowed
    assert done.returncode == 1 and done.stdout == "", done.stderr[-2000:]
    one_line(done.stderr, f"127.0.0.1:{port}")
    assert "ntn_fault_test" not in done.stderr  # the token is never shown
    assert snapshot(root) == before


# -- 9. the warm daemon's socket ---------------------------------------------------------------

def connect(path: Path, deadline: float) -> socket.socket:
    """A connection to the daemon; a full listen backlog (EAGAIN) is retried until deadline."""
    while True:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(5)
        try:
            with unix_address(path) as address:
                sock.connect(address)
            return sock
        except BlockingIOError:
            sock.close()
            if time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def exchange(path: Path, line: bytes) -> bytes:
    """Send one raw line; the reply line (b"" when the daemon just closed)."""
    with connect(path, time.monotonic() + 10) as sock:
        try:
            sock.sendall(line)
        except (BrokenPipeError, ConnectionResetError):
            pass  # it stopped reading (too long): its answer may still be waiting
        try:
            with sock.makefile("rb") as stream:
                return stream.readline()
        except ConnectionResetError:
            return b""


def threads_of(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Threads:"):
            return int(line.split()[1])
    raise AssertionError(f"no Threads: line for pid {pid}")


def expected_first_hit(root: Path, query: str) -> str:
    from vault_engine.vault import Vault

    with Vault(root) as vault:
        return vault.search(query, k=1, lexical_only=True, decay=False).hits[0].ref


def test_the_daemon_refuses_hostile_lines_and_keeps_serving(lexical_vault, start_daemon):
    from vault_engine.vault import Vault

    with Vault(lexical_vault) as vault:
        notes = vault.status()["notes"]
    daemon = start_daemon(lexical_vault)
    hostile = [
        b"[" * 100_000,
        b"{" * 100_000,
        b'{"v": 1, "op": "status", "args": ' + b"[" * 100_000,
        b'{"v": 1, "op": "search", "args": ["' + b"\\\\" * 10 + b'"], "kwargs": ' + b'{"a":' * 50_000,
        b"[" * (2 << 20),  # past MAX_REQUEST_BYTES
        b"\xff\xfe not even UTF-8",
    ]
    for line in hostile:
        reply = exchange(daemon.socket, line + b"\n")
        if reply:
            message = json.loads(reply)
            assert message["ok"] is False and message["error"]["kind"] == "protocol", message
        assert daemon.proc.poll() is None, daemon.log.read_text()[-2000:]
        answered, status = ask(lexical_vault, "status")
        assert answered, "the daemon stopped answering after a hostile line"
        assert status["notes"] == notes
    assert "Traceback" not in daemon.log.read_text()


def test_a_thousand_idle_connections_keep_threads_bounded_and_queries_answered(lexical_vault, start_daemon):
    ref = expected_first_hit(lexical_vault, "drop test")
    daemon = start_daemon(lexical_vault)
    pid = daemon.proc.pid
    search = ("--vault", lexical_vault, "search", "drop test", "--lexical", "--no-decay", "-k", "1", "--json")
    idle: list[socket.socket] = []
    try:
        deadline = time.monotonic() + 30
        for _ in range(1000):
            idle.append(connect(daemon.socket, deadline))
            if len(idle) % 250 == 0:
                assert threads_of(pid) < 100
        assert threads_of(pid) < 100
        held = run_cli_subprocess(*search)
        assert held.returncode == 0, held.stderr
        assert "Traceback" not in held.stderr
        assert [hit["ref"] for hit in json.loads(held.stdout)["hits"]] == [ref]
        assert threads_of(pid) < 100
        assert daemon.proc.poll() is None
    finally:
        for sock in idle:
            sock.close()
    wait_for(lambda: ask(lexical_vault, "status")[0], what="the daemon answering again")
    after = run_cli_subprocess(*search)
    assert after.returncode == 0 and [hit["ref"] for hit in json.loads(after.stdout)["hits"]] == [ref]
    assert threads_of(pid) < 100
    assert daemon.proc.poll() is None
    assert "Traceback" not in daemon.log.read_text()


@pytest.mark.parametrize("failure", [
    OSError(28, "No space left on device", "/v/.vault-engine/index/g1/whoosh/MAIN_x.seg"),
    __import__("sqlite3").OperationalError("database or disk is full"),
])
def test_a_full_disk_is_one_line_not_a_traceback(make_vault, cli, monkeypatch, failure):
    # index on a full tmpfs ended in sqlite3.OperationalError / OSError [Errno 28] tracebacks (qa14)
    from vault_engine.vault import Vault

    root = make_vault({"a.md": "# A\n"}, config="[model]\nenabled = false\n")

    def full(*_args, **_kwargs):
        raise failure

    monkeypatch.setattr(Vault, "index", full)
    done = cli("--vault", root, "index")
    assert done.code == 1 and len(done.err.strip().splitlines()) == 1
    assert done.err.startswith("vault-engine: the disk is full") and "free some space" in done.err
    assert ("writing /v/.vault-engine/index/g1/whoosh/MAIN_x.seg" in done.err) == isinstance(failure, OSError)


@pytest.mark.parametrize("message", ["database or disk is full", "disk I/O error"])
def test_a_ledger_a_full_disk_cannot_open_is_no_damage(make_vault, cli, monkeypatch, message):
    """On a full disk SQLite cannot even read a WAL database: the intact ledger was called
    damaged, and the repair it asked for failed the same way (qa44)."""
    import os
    import sqlite3

    from vault_engine.stores.ledger.connection import LedgerConnection

    root = make_vault({"a.md": "# A\nwords\n"}, config="[model]\nenabled = false\n")
    assert cli("--vault", root, "index").code == 0

    def refused(self):
        raise sqlite3.OperationalError(message)

    class NoSpace:
        f_bavail = 0

    monkeypatch.setattr(LedgerConnection, "damage", refused)
    monkeypatch.setattr(os, "statvfs", lambda path: NoSpace())
    for command in (("status",), ("search", "words", "--lexical"), ("index",)):
        done = cli("--vault", root, "--no-daemon", *command)
        assert done.code == 1 and "is damaged (" not in done.err and "run `vault-engine index`" not in done.err
        assert done.err.startswith("vault-engine: the disk is full writing ") and "nothing is damaged" in done.err


@pytest.mark.parametrize(("redirect", "args", "code", "said"), [
    # the answer went nowhere: exit 1, as `ls >&-` says "write error" (qa100)
    (">&-", ["status"], 1, "vault-engine: standard output is closed: the answer was not written\n"),
    ("<&-", ["hook", "user-prompt-submit", "--project", "p"], 0, None),  # a hook never fails the person
    (">&-", ["hook", "session-start", "--project", "p"], 0, None),
    ("2>&- >&-", ["search", "alpha", "--lexical"], 1, ""),
])
def test_a_closed_standard_stream_is_read_as_empty_and_written_nowhere(small_vault, redirect, args, code, said):
    """A launcher or a cron job that closes stdin or stdout: a traceback, and a hook exit 1 (qa98)."""
    import shlex

    command = " ".join(shlex.quote(a) for a in [sys.executable, "-m", "vault_engine", "--vault", str(small_vault),
                                                *args])
    done = subprocess.run(["sh", "-c", f"{command} {redirect}"], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "VAULT_ENGINE_NO_DAEMON": "1"})
    assert done.returncode == code and "Traceback" not in done.stderr, done.stderr
    assert said is None or done.stderr == said
