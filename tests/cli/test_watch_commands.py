"""`vault-engine watch` as a person runs it (vault_engine/cli/watch_commands.py): a line per
applied batch, Ctrl-C stops cleanly, `--stop` stops it from another shell."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

from tests.conftest import run_cli_subprocess


def read_until(stream, needle: str, timeout: float = 30.0) -> list[str]:
    """Lines of ``stream`` up to the one containing ``needle`` (readline blocks: the watch
    process prints a line per event, and the test fails by timeout if it never comes)."""
    lines, deadline = [], time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = stream.readline()
        if not line:
            break
        lines.append(line)
        if needle in line:
            return lines
    raise AssertionError(f"{needle!r} never printed; got {lines}")


def test_watch_prints_batches_and_stops_on_ctrl_c(make_vault):
    root = make_vault({"a.md": "# A\n"}, config="[model]\nenabled = false\n")
    # faulthandler: a crash on the way out prints every thread's stack to stderr, shown below
    proc = subprocess.Popen([sys.executable, "-X", "faulthandler", "-m", "vault_engine", "--vault", str(root),
                             "watch"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = read_until(proc.stdout, "caught up")
        assert first[0].startswith(f"watching {root} (pid {proc.pid})")
        assert "1 new" in first[-1]
        (root / "b.md").write_text("# B\nBadgers.\n")
        assert "applied: indexed in" in read_until(proc.stdout, "applied")[-1]
        proc.send_signal(signal.SIGINT)
        code, said = proc.wait(30), proc.stderr.read()
        assert code == 0, said
        assert proc.stdout.read().splitlines()[-1] == "stopped"  # (a late batch may precede it)
        assert "Traceback" not in said
    finally:
        proc.kill()
        proc.wait()


def test_watch_stop_from_another_shell(make_vault):
    root = make_vault({"a.md": "# A\n"}, config="[model]\nenabled = false\n")
    proc = subprocess.Popen([sys.executable, "-m", "vault_engine", "--vault", str(root), "watch",
                             "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        read_until(proc.stdout, '"caught up"')
        stop = run_cli_subprocess("--vault", root, "watch", "--stop", "--json")
        assert (stop.returncode, json.loads(stop.stdout)) == (0, {"stopped": proc.pid})
        assert proc.wait(5) == 0
        again = run_cli_subprocess("--vault", root, "watch", "--stop")
        assert again.stdout.strip() == "no watcher was running for this vault"
    finally:
        proc.kill()
        proc.wait()


def test_the_embedding_of_what_was_applied_is_said_as_such(capsys):
    """"applied: indexed in 0.4 s: 0 new, 0 modified, ...; 2 sections embedded" read as if
    nothing had changed: it is the embedding of the save applied a moment before (qa52)."""
    from argparse import Namespace

    from vault_engine.cli.context import Context
    from vault_engine.cli.watch_commands import WatchPrinter
    from vault_engine.model import IndexReport

    printer = WatchPrinter(Context(Namespace(json=False)))
    printer.applied(IndexReport(modified=1, unchanged=4, sections=9, seconds=0.2), catch_up=False)
    printer.applied(IndexReport(unchanged=5, sections=9, embedded=2, seconds=0.4), catch_up=False)
    first, second = capsys.readouterr().out.splitlines()
    assert "applied: indexed in 0.20 s: 0 new, 1 modified" in first
    assert second.endswith(" embedded 2 sections in 0.40 s")


def test_the_embedding_of_what_was_applied_is_an_event_of_its_own_in_json(capsys):
    """`watch --json` reported it as one more `applied` batch: a consumer counting batches
    over-counted (qa61)."""
    from argparse import Namespace

    from vault_engine.cli.context import Context
    from vault_engine.cli.watch_commands import WatchPrinter
    from vault_engine.model import IndexReport

    printer = WatchPrinter(Context(Namespace(json=True)))
    printer.applied(IndexReport(modified=1, unchanged=4, sections=9, seconds=0.2), catch_up=False)
    printer.applied(IndexReport(unchanged=5, sections=9, embedded=2, seconds=0.4), catch_up=False)
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(e["event"], e["modified"], e["embedded"]) for e in events] == [("applied", 1, 0), ("embedded", 0, 2)]


def test_watch_help_says_the_whole_of_stop(cli):
    """`--stop` read "... and wait until it has" (qa68)."""
    done = cli("watch", "--help")
    assert done.code == 0 and "wait until it has exited" in " ".join(done.out.split())
