"""TUI responsiveness (issue 8): ``bench_tui.py [--rounds 5] [--write]``.

Runs the real app headless (Textual's ``run_test``) on a fresh lexically indexed copy of
sample-vault/ and of obsidian-tasks-docs, and times what a human waits for:

- start: from creating the app to the header showing the index health;
- search: from the last keystroke of a query to its hits on screen, *including* the 0.25 s
  debounce (that is what typing feels like);
- note: from asking for a note to it being rendered with its links;
- proposal: from the last keystroke of a proposal to the dead-end answer (0.4 s debounce).

Medians over ``--rounds`` runs. No targets in the issue: these are for regressions. ``--write``
puts the table into bench/RESULTS.md between ``<!-- tui -->`` markers.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402  (bench/ is not a package: scripts run by path)

MARKER = "tui"
SIZE = (120, 36)
QUERIES = {"sample-vault": ("token refresh", "microphone array", "webhook retries"),
           "obsidian-tasks-docs": ("recurring task", "due date filter", "custom statuses")}
NOTES = {"sample-vault": "specs/audio-pipeline.md#Buffers",
         "obsidian-tasks-docs": "Getting Started/Recurring Tasks.md#Examples"}
PROPOSAL = "keep sessions in a shared redis"


async def until(predicate, timeout: float = 30.0, start: float | None = None) -> float:
    """Seconds from ``start`` (default: now) until ``predicate()`` holds, polling every 5 ms."""
    start = time.perf_counter() if start is None else start
    while not predicate():
        if time.perf_counter() - start > timeout:
            raise TimeoutError("the app did not get there in time")
        await asyncio.sleep(0.005)
    return time.perf_counter() - start


def rendered(app) -> bool:
    """The note viewer is up and its Markdown blocks are mounted."""
    bodies = app.screen.query("NoteBody")
    return bool(bodies) and len(bodies.first().children) > 0


async def one_round(root: Path, name: str) -> dict[str, list[float]]:
    """Start the app once and time every interaction of one round."""
    from tui import create_app
    from tui.widgets.hit_list import HitList

    times: dict[str, list[float]] = {"start": [], "search": [], "note": [], "proposal": []}
    started = time.perf_counter()
    app = create_app(root, semantic=False)
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: bool(app.health.text))
        times["start"].append(time.perf_counter() - started)
        for query in QUERIES[name]:
            box = app.screen.query_one("#query")
            box.focus()
            await pilot.pause()  # focusing selects the text: set it only afterwards
            box.value = query[:-1]
            box.cursor_position = len(box.value)  # the last key is typed at the end
            await pilot.pause()
            pressed = time.perf_counter()
            await pilot.press(query[-1])
            hits = app.screen.query_one(HitList)
            times["search"].append(await until(
                lambda: hits._result is not None and hits._result.query == query, start=pressed))
        asked = time.perf_counter()
        app.open_note(NOTES[name])
        times["note"].append(await until(lambda: rendered(app), start=asked))
        await pilot.press("escape", "f2")
        await until(lambda: bool(app.screen.query("#deadend-count")) and  # dead ends loaded
                    bool(str(app.screen.query_one("#deadend-count").render())))
        answer = app.screen.query_one("#proposal-answer")
        proposal = app.screen.query_one("#proposal")
        proposal.focus()
        await pilot.pause()  # focusing selects the text: set it only afterwards
        proposal.value = PROPOSAL[:-1]
        proposal.cursor_position = len(proposal.value)
        pressed = time.perf_counter()
        await pilot.press(PROPOSAL[-1])
        quoted = f'"{PROPOSAL}"'  # the answer is drawn as rows with a hanging indent: read them

        def shown() -> str:
            return " ".join(" ".join(s.text for s in answer.render_lines(answer.size.region)).split())

        times["proposal"].append(await until(lambda: quoted in shown(), start=pressed))
    return times


def measure(source: Path, name: str, work: Path, rounds: int) -> dict[str, float]:
    root = common.fresh_copy(source, work, name)
    indexed = common.run_cli(["--vault", str(root), "index", "--no-embed"])
    if indexed.returncode != 0:
        raise SystemExit(f"indexing {name} failed: {indexed.stderr.strip()}")
    merged: dict[str, list[float]] = {}
    for _ in range(rounds):
        for key, values in asyncio.run(one_round(root, name)).items():
            merged.setdefault(key, []).extend(values)
    return {key: common.median(values) * 1000 for key, values in merged.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--write", action="store_true", help="update bench/RESULTS.md")
    args = parser.parse_args(argv)
    sources = {"sample-vault": common.REPO / "sample-vault",
               "obsidian-tasks-docs": common.CORPORA / "obsidian-tasks-docs"}
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-tui-") as work:
        for name, source in sources.items():
            if not source.is_dir():
                print(f"skipping {name}: {source} is absent", file=sys.stderr)
                continue
            ms = measure(source, name, Path(work), args.rounds)
            rows.append([name, *(f"{ms[k]:.0f}" for k in ("start", "search", "note", "proposal"))])
            print(f"{name}: " + ", ".join(f"{k} {v:.0f} ms" for k, v in ms.items()))
    table = common.markdown_table(
        ["vault (lexical)", "start ms", "search ms (incl. 250 ms debounce)", "open note ms",
         "dead-end answer ms (incl. 400 ms debounce)"], rows)
    if args.write:
        common.write_section(MARKER, f"## TUI (headless, {SIZE[0]}x{SIZE[1]}, medians of "
                                     f"{args.rounds} rounds)\n\n{table}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
