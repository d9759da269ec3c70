"""Watcher and warm daemon benchmark (issue 7): ``bench_watch.py [--notes 10000] [--write]``.

Runs a real ``vault-engine watch`` process on a fresh copy of the synthetic vault (lexical,
the model off) and measures:

- save to searchable: a note is written (new or edited, alternately) with a unique word, then
  cold CLI ``search WORD --lexical --json`` processes run until one finds it; the time from the
  write to the end of that process, over ``--saves`` saves (p50, p95);
- in-daemon search (the ``ms`` the daemon reports per request) and cold CLI search through the
  daemon against ``--no-daemon`` (medians, Python start included);
- a burst of ``--burst`` edited notes: first write to last applied batch, against a cold
  ``vault-engine index --no-embed`` applying the same kind of change with no watcher running;
- idle CPU of the watch process over ``--idle`` seconds (utime + stime from /proc).

With ``--semantic`` (default on) the same save-to-searchable and CLI search are measured with
the real model on a copy of sample-vault/: the daemon embeds in the background, and a save
counts as searchable when ``search --semantic`` returns the note for its own sentence.
``--write`` puts the tables into bench/RESULTS.md between ``<!-- watch -->`` markers.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_core  # noqa: E402  (bench/ is not a package: scripts run by path)
import common  # noqa: E402

from vault_engine.daemon import protocol  # noqa: E402

MARKER = "watch"
SAMPLE_VAULT = common.REPO / "sample-vault"
WORDS = ("amber", "basalt", "cobalt", "dune", "ember", "fjord", "glacier", "harbor", "iris",
         "juniper", "kelp", "lagoon", "mesa", "nectar", "orchid", "prairie", "quartz", "reef")


class Watcher:
    """A running ``vault-engine watch --json`` on ``root``; its JSON lines go to a file."""

    def __init__(self, root: Path, log_dir: Path):
        self.root = root
        self.out = log_dir / "watch.out"
        self.proc = subprocess.Popen([*common.cli_command(), "--vault", str(root), "watch", "--json"],
                                     stdout=self.out.open("w"), stderr=(log_dir / "watch.err").open("w"))

    def health(self) -> dict:
        try:
            return json.loads((self.root / ".vault-engine/watch.json").read_text())
        except (OSError, ValueError):
            return {}

    def wait_ready(self, timeout: float = 600) -> None:
        wait(lambda: self.health().get("pid") == self.proc.pid
             and self.health().get("state") == "watching", timeout, "watcher ready")

    def events(self) -> list[dict]:
        return [json.loads(line) for line in self.out.read_text().splitlines() if line.startswith("{")]

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def request_ms(self, op: str, *args, **kwargs) -> float:
        """One request on the socket; the time the daemon says it spent answering."""
        with socket.socket(socket.AF_UNIX) as sock, \
                protocol.unix_address(self.root / ".vault-engine/daemon.sock") as address:
            sock.connect(address)
            sock.sendall(protocol.request(op, args, kwargs))
            reply = protocol.parse(sock.makefile("rb").readline())
        if not reply.get("ok"):
            raise SystemExit(f"bench_watch: the daemon did not answer {op}: {reply.get('error')}")
        return reply["ms"]

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(60)


def wait(condition, timeout: float, what: str, interval: float = 0.02):
    deadline = time.monotonic() + timeout
    while not (found := condition()):
        if time.monotonic() > deadline:
            raise SystemExit(f"bench_watch: {what} not reached within {timeout:.0f} s")
        time.sleep(interval)
    return found


def search_finds(root: Path, query: str, path: str, *extra: str) -> bool:
    run = common.run_cli(["--vault", str(root), "search", query, "--json", *extra])
    hits = json.loads(run.stdout)["hits"] if run.returncode == 0 else []
    return any(hit["path"] == path for hit in hits)


# -- measurements ---------------------------------------------------------------------------

def save_to_searchable(root: Path, saves: int, semantic: bool, rng: random.Random) -> list[float]:
    """Seconds from a write to the end of the first CLI search that finds it."""
    notes = sorted(p for p in root.rglob("*.md") if ".vault-engine" not in p.parts)
    timings = []
    for n in range(saves):
        marker = f"zq{n}x{rng.randrange(10**6)}"
        sentence = (f"The {rng.choice(WORDS)} survey {marker} counted {rng.randint(3, 999)} "
                    f"{rng.choice(WORDS)} stones near the {rng.choice(WORDS)} shore.")
        if n % 2 == 0:  # a new note
            target = root / "bench-saves" / f"save-{n}.md"
            target.parent.mkdir(exist_ok=True)
            text = f"# Save {n}\n{sentence}\n"
        else:  # an edit of an existing note: a new section at its end
            target = rng.choice(notes)
            text = target.read_text(encoding="utf-8") + f"\n## Survey {n}\n{sentence}\n"
        rel = target.relative_to(root).as_posix()
        # --no-decay: "searchable" means found; an old notion page's decay would hide it.
        query, extra = (sentence, ("--semantic", "-k", "3", "--no-decay")) if semantic \
            else (marker, ("--lexical",))
        start = time.perf_counter()
        target.write_text(text, encoding="utf-8")
        wait(lambda: search_finds(root, query, rel, *extra), 60, f"save {n} searchable", interval=0)
        timings.append(time.perf_counter() - start)
    return timings


def cli_search_medians(root: Path, queries: list[str], extra: tuple[str, ...]) -> tuple[float, float]:
    """(through the daemon, --no-daemon) medians of cold CLI searches, in ms."""
    warm, cold = [], []
    for query in queries:
        warm.append(common.run_cli(["--vault", str(root), "search", query, "--json", *extra]).seconds)
        cold.append(common.run_cli(["--vault", str(root), "search", query, "--json", "--no-daemon",
                                    *extra]).seconds)
    return common.median(warm) * 1000, common.median(cold) * 1000


def burst(root: Path, watcher: Watcher, count: int, rng: random.Random) -> tuple[float, float, int]:
    """(seconds from the first write to the last applied batch, seconds spent writing,
    batches) for ``count`` edited notes."""
    notes = rng.sample(sorted(p for p in root.rglob("*.md") if ".vault-engine" not in p.parts
                              and "bench-saves" not in p.parts), count)
    seen = len(watcher.events())
    start = time.perf_counter()
    for path in notes:
        path.write_text(path.read_text(encoding="utf-8") + f"\nburst {rng.random()}\n", encoding="utf-8")
    written = time.perf_counter() - start

    def applied():
        events = watcher.events()[seen:]
        return sum(e.get("modified", 0) for e in events if e["event"] == "applied") >= count and events
    events = wait(applied, 600, "burst applied", interval=0.01)
    return time.perf_counter() - start, written, sum(1 for e in events if e["event"] == "applied")


def index_same_change(root: Path, count: int, rng: random.Random) -> float:
    """Cold ``index --no-embed`` for ``count`` edited notes, no watcher running."""
    notes = rng.sample(sorted(p for p in root.rglob("*.md") if ".vault-engine" not in p.parts), count)
    for path in notes:
        path.write_text(path.read_text(encoding="utf-8") + f"\nagain {rng.random()}\n", encoding="utf-8")
    run = common.run_cli(["--vault", str(root), "index", "--no-embed", "--json"])
    if run.returncode != 0 or json.loads(run.stdout)["modified"] != count:
        raise SystemExit(f"bench_watch: index did not apply the {count} edits: {run.stderr}")
    return run.seconds


def queries_from(root: Path, count: int, rng: random.Random) -> list[str]:
    return [q.text for q in bench_core.build_queries(root, count, seed=rng.randrange(1000))]


def measure_lexical(source: Path, work: Path, args, rng: random.Random) -> dict:
    root = common.fresh_copy(source, work, "watch-lexical")
    config = root / "vault-engine.toml"
    config.write_text((config.read_text() if config.exists() else "") + "\n[model]\nenabled = false\n")
    if common.run_cli(["--vault", str(root), "index", "--no-embed"]).returncode != 0:
        raise SystemExit("bench_watch: the initial index failed")
    watcher = Watcher(root, work)
    watcher.wait_ready()
    figures: dict = {"notes": common.vault_size(root)[0]}
    try:
        time.sleep(2)  # let start-up settle before measuring idle
        before = watcher.cpu_seconds()
        time.sleep(args.idle)
        figures["idle_cpu_pct"] = 100 * (watcher.cpu_seconds() - before) / args.idle
        queries = queries_from(root, 30, rng)
        ms = [watcher.request_ms("search", q, lexical_only=True) for q in queries * 3]
        figures["daemon_p50"], figures["daemon_p95"] = common.median(ms), common.percentile(ms, 95)
        figures["cli_warm"], figures["cli_cold"] = cli_search_medians(root, queries[:args.cli_runs], ("--lexical",))
        saves = save_to_searchable(root, args.saves, False, rng)
        figures["save_p50"], figures["save_p95"] = common.median(saves), common.percentile(saves, 95)
        figures["burst"], figures["burst_writes"], figures["burst_batches"] = burst(root, watcher, args.burst, rng)
    finally:
        watcher.stop()
    figures["burst_index"] = index_same_change(root, args.burst, rng)
    return figures


def measure_semantic(work: Path, args, rng: random.Random) -> dict:
    root = common.fresh_copy(SAMPLE_VAULT, work, "watch-semantic")
    if common.run_cli(["--vault", str(root), "index", "--no-embed"]).returncode != 0:
        raise SystemExit("bench_watch: the initial index failed")
    watcher = Watcher(root, work)
    watcher.wait_ready()
    figures: dict = {"notes": common.vault_size(root)[0]}
    try:
        start = time.perf_counter()
        wait(lambda: watcher.health().get("pending") == 0 and _coverage(root) == 1.0, 1800,
             "background embedding", interval=0.5)
        figures["catch_up"] = time.perf_counter() - start
        queries = queries_from(root, 20, rng)
        ms = [watcher.request_ms("search", q) for q in queries * 3]
        figures["daemon_p50"], figures["daemon_p95"] = common.median(ms), common.percentile(ms, 95)
        figures["cli_warm"], figures["cli_cold"] = cli_search_medians(root, queries[:args.cli_runs // 4 or 1], ())
        saves = save_to_searchable(root, args.semantic_saves, True, rng)
        figures["save_p50"], figures["save_p95"] = common.median(saves), common.percentile(saves, 95)
    finally:
        watcher.stop()
    return figures


def _coverage(root: Path) -> float | None:
    from vault_engine.daemon.client import ask

    answered, status = ask(root, "status")
    return status["semantic"]["coverage"] if answered else None


# -- report ---------------------------------------------------------------------------------

def render(lexical: dict, semantic: dict | None, args, machine: str) -> str:
    rows = [
        ["save to searchable, lexical, p50", f"{lexical['save_p50'] * 1000:.0f} ms", ""],
        ["save to searchable, lexical, p95", f"{lexical['save_p95'] * 1000:.0f} ms", "<= 500 ms"],
        ["in-daemon search (lexical), p50 / p95",
         f"{lexical['daemon_p50']:.1f} / {lexical['daemon_p95']:.1f} ms", "<= 20 ms"],
        ["cold CLI `search --lexical` through the daemon, median", f"{lexical['cli_warm']:.0f} ms", "<= 150 ms"],
        ["the same with `--no-daemon`, median", f"{lexical['cli_cold']:.0f} ms", ""],
        [f"burst of {args.burst} edits: first write to last batch applied",
         f"{lexical['burst']:.2f} s ({lexical['burst_batches']} batches; writing took "
         f"{lexical['burst_writes']:.2f} s)", f"<= 2 x index = {2 * lexical['burst_index']:.2f} s"],
        [f"`index --no-embed` for {args.burst} edits, no watcher (cold CLI)", f"{lexical['burst_index']:.2f} s", ""],
        [f"idle CPU of the watcher over {args.idle} s", f"{lexical['idle_cpu_pct']:.2f} %", "near 0"],
    ]
    text = (f"{machine}\n\nSynthetic vault, {lexical['notes']} notes, model off "
            f"(`bench/bench_watch.py --notes {args.notes} --saves {args.saves} --burst {args.burst}`):\n\n"
            + common.markdown_table(["measure", "value", "target"], rows))
    if semantic:
        rows = [
            ["background embedding catch-up after start", f"{semantic['catch_up']:.1f} s", ""],
            ["save to searchable with its embedding, p50", f"{semantic['save_p50'] * 1000:.0f} ms", ""],
            ["save to searchable with its embedding, p95", f"{semantic['save_p95'] * 1000:.0f} ms", "<= 1.5 s"],
            ["in-daemon hybrid search, p50 / p95",
             f"{semantic['daemon_p50']:.1f} / {semantic['daemon_p95']:.1f} ms", "<= 20 ms"],
            ["cold CLI hybrid `search` through the daemon, median", f"{semantic['cli_warm']:.0f} ms", "<= 150 ms"],
            ["the same with `--no-daemon` (loads the query model, no torch), median",
             f"{semantic['cli_cold']:.0f} ms", ""],
        ]
        text += (f"\n\nsample-vault/ ({semantic['notes']} notes) with the real model "
                 f"({args.semantic_saves} saves; searchable = `search --semantic` returns the note "
                 "for its own sentence):\n\n" + common.markdown_table(["measure", "value", "target"], rows))
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=10_000, help="synthetic vault size (default 10000)")
    parser.add_argument("--saves", type=int, default=50, help="saves timed, lexical (default 50)")
    parser.add_argument("--semantic-saves", type=int, default=20, help="saves timed with the model (default 20)")
    parser.add_argument("--burst", type=int, default=1000, help="notes edited at once (default 1000)")
    parser.add_argument("--idle", type=float, default=10.0, help="seconds of idle CPU measured (default 10)")
    parser.add_argument("--cli-runs", type=int, default=20, help="CLI searches per median (default 20)")
    parser.add_argument("--no-semantic", action="store_true", help="skip the measurements with the model")
    parser.add_argument("--write", action="store_true", help="write the tables into bench/RESULTS.md")
    args = parser.parse_args(argv)
    machine = common.machine_line()
    rng = random.Random(7)
    source = bench_core.synthetic_vault(args.notes, 1)
    bench_core.CACHE.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=bench_core.CACHE, prefix="watch-") as work:
        lexical = measure_lexical(source, Path(work), args, rng)
        semantic = None if args.no_semantic else measure_semantic(Path(work), args, rng)
    text = render(lexical, semantic, args, machine)
    print(text)
    if args.write:
        common.write_section(MARKER, "## Watcher and daemon (issue 7)\n\n" + text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
