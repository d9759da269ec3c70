"""Core indexing and search benchmark (issue 2): ``bench_core.py [--notes 10000] [--vault PATH]``.

Measures, each time on a fresh copy of the vault: the full lexical index (cold CLI process and
in-process ``Vault.index()``), a no-change re-index, a re-index after editing one note,
in-process lexical search p50/p95 over varied queries, the cold CLI ``search --lexical`` and
``--help`` medians, and the peak memory of the full index (children included). Then the same
for ../shared/corpora/obsidian-tasks-docs when present. ``--write`` puts the table into
bench/RESULTS.md between ``<!-- core -->`` markers; ``--profile`` shows where a serial full
index spends its time instead.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402  (bench/ is not a package: scripts run by path)
import gen_vault  # noqa: E402

from vault_engine.stores.lexical import query_terms  # noqa: E402

MARKER = "core"
CORPUS = "obsidian-tasks-docs"
CACHE = Path(tempfile.gettempdir()) / "vault-engine-bench"

# (key, label, target, unit); a target of None is shown for information only.
ROWS = (
    ("full_cli", "full index, cold CLI `index --no-embed`", 15.0, "s"),
    ("full_inprocess", "full index, in-process `Vault.index()`", 15.0, "s"),
    ("full_cpu", "full index, CPU time of the CLI process tree (user + sys)", None, "s"),
    ("nochange_cli", "no-change re-index, cold CLI", 1.0, "s"),
    ("nochange_inprocess", "no-change re-index, in-process", 1.0, "s"),
    ("edit_cli", "re-index after editing one note, cold CLI", 0.5, "s"),
    ("edit_inprocess", "re-index after editing one note, in-process", 0.5, "s"),
    ("search_p50", "search p50, in-process `Vault.search(lexical_only=True)`", 10.0, "ms"),
    ("search_p95", "search p95, in-process", None, "ms"),
    ("cold_search", "cold CLI `search --lexical --json`, median", 200.0, "ms"),
    ("help", "`vault-engine --help`, median", 150.0, "ms"),
    ("peak_tree_mb", "peak memory of the full index, process tree (PSS)", 500.0, "MB"),
    ("peak_process_mb", "peak RSS of its largest process", 500.0, "MB"),
)


@dataclass(slots=True)
class Figures:
    """Everything measured on one vault."""

    label: str
    notes: int
    megabytes: float
    values: dict[str, float] = field(default_factory=dict)
    stages: dict[str, float] = field(default_factory=dict)
    facts: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


# -- queries ------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Query:
    text: str
    kind: str | None = None


_PLAIN = re.compile(r"[A-Za-z][A-Za-z'-]{2,}")


def build_queries(root: Path, count: int, seed: int = 7) -> list[Query]:
    """Varied, deterministic queries drawn from the vault's own notes: titles, headings,
    runs of words, rare single words, questions, quoted phrases, a few filtered by kind,
    and a few that match nothing (a miss must be fast too)."""
    rng = random.Random(seed)
    paths = sorted(p for p in root.rglob("*.md") if ".vault-engine" not in p.parts)
    queries: list[Query] = []
    while len(queries) < count and paths:
        path = rng.choice(paths)
        lines = [line for line in path.read_text(encoding="utf-8", errors="replace").splitlines()
                 if line.strip() and not line.startswith(("---", "```"))]
        words = _PLAIN.findall(" ".join(rng.sample(lines, min(3, len(lines))))) if lines else []
        text = _one_query(rng, path, lines, words)
        if text and query_terms(text)[0]:  # stop words alone are a usage error, not a search
            kind = rng.choice(("checkpoint", "spec", "working-note", "note")) \
                if rng.random() < 0.1 else None
            queries.append(Query(text, kind))
    if queries:  # a few misses, in place of drawn queries
        for i, at in enumerate(sorted(rng.sample(range(len(queries)), max(1, count // 50)))):
            queries[at] = Query(f"qzxv{i} wqjkz{i}")
    return queries


def _one_query(rng: random.Random, path: Path, lines: list[str], words: list[str]) -> str | None:
    roll = rng.random()
    if roll < 0.2:
        return re.sub(r"\s+[0-9a-f]{32}$", "", path.stem)  # a title (Notion ids dropped)
    headings = [line.lstrip("#").strip() for line in lines if line.startswith("#") and " " in line]
    if roll < 0.35 and headings:
        return rng.choice(headings)
    if len(words) < 4:
        return None
    start = rng.randrange(len(words) - 3)
    if roll < 0.65:
        return " ".join(words[start:start + rng.randint(2, 4)])
    if roll < 0.75:
        return max(words, key=len)
    if roll < 0.9:
        return f"{rng.choice(('how does', 'why did we drop', 'where is', 'what broke'))} " \
               f"{' '.join(words[start:start + 2])}"
    return f'"{words[start]} {words[start + 1]}"'


# -- one vault ------------------------------------------------------------------------------

def measure(source: Path, label: str, work: Path, queries: int, runs: int) -> Figures:
    """All figures for the vault at ``source`` (never modified: copies are measured)."""
    notes, size = common.vault_size(source)
    figures = Figures(label, notes, size / 1e6)
    qs = build_queries(source, queries)
    _measure_cli(figures, common.fresh_copy(source, work, "cli"), qs, runs)
    _measure_inprocess(figures, common.fresh_copy(source, work, "inprocess"), qs)
    return figures


def _measure_cli(figures: Figures, root: Path, queries: list[Query], runs: int) -> None:
    index = ["--vault", str(root), "index", "--no-embed", "--json"]
    full = common.run_cli(index, sample_memory=True)
    _expect(figures, full, "full CLI index", new=figures.notes)
    figures.values.update(full_cli=full.seconds, full_cpu=full.cpu_seconds,
                          peak_tree_mb=full.tree_peak_mb, peak_process_mb=full.max_rss_mb)
    figures.values["nochange_cli"] = _expect(
        figures, common.run_cli(index), "no-change CLI index", new=0, modified=0).seconds
    _edit_one(root, "cli")
    figures.values["edit_cli"] = _expect(
        figures, common.run_cli(index), "one-edit CLI index", modified=1, new=0).seconds
    searches = [["--vault", str(root), "search", q.text, "--lexical", "--json"]
                for q in queries[:runs + 1]]
    figures.values["cold_search"] = 1000 * _cold_median(figures, searches, "cold CLI search")
    figures.values["help"] = 1000 * _cold_median(figures, [["--help"]] * (runs + 1), "--help")


def _cold_median(figures: Figures, commands: list[list[str]], what: str) -> float:
    """Median wall time; the first run only warms the page cache and is not counted."""
    seconds = []
    for args in commands:
        run = common.run_cli(args)
        if run.returncode != 0:
            figures.problems.append(f"{what} failed: {run.stderr.strip()[:200]}")
        seconds.append(run.seconds)
    return common.median(seconds[1:])


def _expect(figures: Figures, run: common.CliRun, what: str, **expected: int) -> common.CliRun:
    """Check an index run did what the measurement assumes (else the number means nothing)."""
    if run.returncode != 0:
        figures.problems.append(f"{what} exited {run.returncode}: {run.stderr.strip()[:200]}")
        return run
    report = json.loads(run.stdout)
    wrong = {k: report.get(k) for k, v in expected.items() if report.get(k) != v}
    if wrong:
        figures.problems.append(f"{what}: expected {expected}, got {wrong}")
    return run


def _edit_one(root: Path, tag: str) -> Path:
    """Append a line to a middle-sized note, as a person editing one note would."""
    notes = sorted(p for p in root.rglob("*.md") if ".vault-engine" not in p.parts)
    note = sorted(notes, key=lambda p: (p.stat().st_size, str(p)))[len(notes) // 2]
    with note.open("a", encoding="utf-8") as f:
        f.write(f"\nEdited by the benchmark ({tag}): the retry budget moved to the gateway.\n")
    return note


def _measure_inprocess(figures: Figures, root: Path, queries: list[Query]) -> None:
    from vault_engine.vault import Vault

    with Vault(root) as vault:
        with stage_timers() as stages:
            seconds, report = common.timed(lambda: vault.index(embed=False))
        figures.values["full_inprocess"] = seconds
        figures.stages = dict(stages)
        figures.facts = {"sections": report.sections, **_link_facts(vault)}
        seconds, report = common.timed(lambda: vault.index(embed=False))
        figures.values["nochange_inprocess"] = seconds
        if report.new or report.modified:
            figures.problems.append(f"no-change in-process index changed {report.to_json()}")
        _edit_one(root, "in-process")
        seconds, report = common.timed(lambda: vault.index(embed=False))
        figures.values["edit_inprocess"] = seconds
        if report.modified != 1:
            figures.problems.append(f"one-edit in-process index: {report.to_json()}")
        _measure_search(figures, vault, queries)


def _link_facts(vault) -> dict[str, int]:
    counts = vault.ledger.counts()
    return {k: counts[k] for k in ("links", "unresolved_links", "ambiguous_links")}


def _measure_search(figures: Figures, vault, queries: list[Query]) -> None:
    vault.search("warm up the searcher", lexical_only=True)  # opens Whoosh once, as a daemon would
    times, hits = [], 0
    for q in queries:
        seconds, result = common.timed(lambda: vault.search(q.text, k=10, kind=q.kind, lexical_only=True))
        times.append(seconds * 1000)
        hits += result.status == "hit"
    figures.values["search_p50"] = common.percentile(times, 50)
    figures.values["search_p95"] = common.percentile(times, 95)
    figures.facts.update(queries=len(queries), queries_hit=hits)


@contextmanager
def stage_timers():
    """Wall time per indexing stage, by wrapping the indexer's steps for the duration.

    Bench-only instrumentation: a renamed step is simply not reported.
    """
    from vault_engine.indexing import indexer as module
    from vault_engine.stores.lexical import WhooshIndex

    spent: dict[str, float] = {}
    targets = [(module, "scan_vault", "scan the vault"), (module, "read_many", "read + parse"),
               (module.Indexer, "_apply_to_ledger", "SQLite: write notes"),
               (module.Indexer, "_resolve_links", "resolve links"),
               (module.Indexer, "lexical_docs", "SQLite: read sections back"),
               (WhooshIndex, "apply", "Whoosh: add_document + commit")]
    originals = [(owner, name, getattr(owner, name), label)
                 for owner, name, label in targets if hasattr(owner, name)]
    for owner, name, original, label in originals:
        setattr(owner, name, _timing(original, label, spent))
    try:
        yield spent
    finally:
        for owner, name, original, _ in originals:
            setattr(owner, name, original)


def _timing(fn, label: str, spent: dict[str, float]):
    def wrapper(*args, **kwargs):
        seconds, result = common.timed(lambda: fn(*args, **kwargs))
        spent[label] = spent.get(label, 0.0) + seconds
        return result
    return wrapper


# -- report ---------------------------------------------------------------------------------

METHOD = """How: every figure is taken on a fresh copy of the vault (no index; page cache warm).
"Cold CLI" is a new `vault-engine` process per run, median of `--runs` after one unmeasured
warm-up, with the package's bytecode compiled first as an install does (this machine sets
PYTHONDONTWRITEBYTECODE, which would otherwise recompile it every run); in-process figures
reuse one `Vault`, as the watcher does. Memory: the peak RSS of the largest process (kernel
rusage) and the peak PSS of the whole process tree summed, sampled every 50 ms. With a load
average well above 0 the wall times were taken under load; the CPU-time row barely moves
with load."""


def render(results: list[Figures], machine: str) -> str:
    """The Markdown section: machine, the figures against their targets, stages, problems."""
    header = ["measure", "target", *(f"{f.label}" for f in results)]
    rows = [[label, f"<= {_number(target, unit)}" if target is not None else "",
             *(_cell(f.values.get(key), target, unit) for f in results)]
            for key, label, target, unit in ROWS]
    parts = [f"## Core indexing and search (bench/bench_core.py)\n\nMachine: {machine}.",
             common.markdown_table(header, rows), _facts(results), _stages(results), METHOD]
    problems = [f"- {f.label}: {p}" for f in results for p in f.problems]
    if problems:
        parts.append("Problems seen while measuring:\n\n" + "\n".join(problems))
    return "\n\n".join(parts) + "\n"


def _number(value: float, unit: str) -> str:
    return f"{value:.2f} s" if unit == "s" else f"{value:.1f} ms" if unit == "ms" else f"{value:.0f} MB"


def _cell(value: float | None, target: float | None, unit: str) -> str:
    if value is None:
        return "n/a"
    verdict = "" if target is None else (" ok" if value <= target else " **over**")
    return _number(value, unit) + verdict


def _facts(results: list[Figures]) -> str:
    lines = []
    for f in results:
        facts = f.facts
        lines.append(
            f"- {f.label}: {f.notes:,} notes, {f.megabytes:.1f} MB, {facts.get('sections', 0):,} sections, "
            f"{facts.get('links', 0):,} links ({facts.get('unresolved_links', 0):,} unresolved, "
            f"{facts.get('ambiguous_links', 0):,} ambiguous); {facts.get('queries', 0)} queries, "
            f"{facts.get('queries_hit', 0)} with hits")
    return "\n".join(lines)


def _stages(results: list[Figures]) -> str:
    labels = list(dict.fromkeys(label for f in results for label in f.stages))
    rows = []
    for label in labels + ["other (planning, transactions, process start-up)"]:
        cells = []
        for f in results:
            total = f.values.get("full_inprocess", 0.0)
            spent = f.stages.get(label, total - sum(f.stages.values()))
            cells.append(f"{spent:.2f} s ({100 * spent / total:.0f}%)" if total else "n/a")
        rows.append([label, *cells])
    return ("Where the in-process full index spends its wall time:\n\n"
            + common.markdown_table(["stage", *(f.label for f in results)], rows))


# -- profile --------------------------------------------------------------------------------

PROFILE_AREAS = (  # (area, substring of a profiled function's file or name), first match wins
    ("Whoosh", "whoosh"), ("markdown-it (sections)", "markdown_it"), ("YAML frontmatter", "yaml"),
    ("SQLite", "sqlite3"), ("analyzer + Porter stemmer", "stores/lexical"),
    ("ledger (Python side)", "stores/ledger"), ("parsing (Python side)", "vault_engine/parsing"),
)


def profile(source: Path, work: Path, top: int = 25) -> str:
    """cProfile a serial full index (no worker processes, so every cost is visible)."""
    import cProfile
    import io
    import pstats

    from vault_engine.indexing import reading
    from vault_engine.stores import lexical
    from vault_engine.vault import Vault

    root = common.fresh_copy(source, work, "profile")
    saved = reading.PARALLEL_READ_THRESHOLD, lexical.PARALLEL_THRESHOLD
    reading.PARALLEL_READ_THRESHOLD = lexical.PARALLEL_THRESHOLD = 10**9
    profiler = cProfile.Profile()
    try:
        with Vault(root) as vault:
            profiler.runcall(vault.index, embed=False)
    finally:
        reading.PARALLEL_READ_THRESHOLD, lexical.PARALLEL_THRESHOLD = saved
    stats = pstats.Stats(profiler)
    areas: dict[str, float] = {}
    memo: dict = {}
    for key, (_, _, own, _, _) in stats.stats.items():
        for area, share in _areas(stats.stats, key, memo).items():
            areas[area] = areas.get(area, 0.0) + own * share
    total = sum(areas.values())
    rows = [[a, f"{s:.2f} s", f"{100 * s / total:.0f}%"] for a, s in sorted(areas.items(), key=lambda i: -i[1])]
    out = io.StringIO()
    stats.stream = out
    stats.sort_stats("tottime").print_stats(top)
    return (f"Serial full index of {source} under cProfile ({total:.1f} s of own time):\n\n"
            + common.markdown_table(["area", "own time", "share"], rows) + "\n\n" + out.getvalue())


def _areas(table: dict, key: tuple, memo: dict, depth: int = 0) -> dict[str, float]:
    """Which areas a function's own time belongs to. Builtins and the standard library (a
    pickle.dump, a list.sort, heapq.merge) are charged to their callers, in proportion to the
    time each caller spent in them, up to a few frames up."""
    if key in memo:
        return memo[key]
    where = f"{key[0]} {key[2]}"
    area = next((a for a, needle in PROFILE_AREAS if needle in where), None)
    callers = table[key][4]
    if area or depth >= 4 or not callers:
        return {area or "other": 1.0}
    weights = {caller: timing[3] for caller, timing in callers.items()}  # cumulative time
    total = sum(weights.values()) or 1.0
    shares: dict[str, float] = {}
    for caller, weight in weights.items():
        for caller_area, share in _areas(table, caller, memo, depth + 1).items():
            shares[caller_area] = shares.get(caller_area, 0.0) + share * weight / total
    memo[key] = shares
    return shares


# -- command line ---------------------------------------------------------------------------

def synthetic_vault(notes: int, seed: int) -> Path:
    """The generated vault for (notes, seed), made once and reused from /tmp.

    Written to a private folder and renamed into place, so two benchmarks starting at once
    never see (or measure) a half-written vault.
    """
    root = CACHE / f"synthetic-{notes}-s{seed}-v{gen_vault.VERSION}"
    if root.is_dir():
        return root
    CACHE.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=CACHE, prefix="generating-") as scratch:
        gen_vault.generate(Path(scratch) / "vault", notes, seed)
        try:
            (Path(scratch) / "vault").rename(root)
        except OSError:
            if not root.is_dir():  # lost the race to another process: use its vault
                raise
    return root


def main(argv: list[str] | None = None) -> int:
    """Run the core benchmark; print the Markdown table (``--write``: also into RESULTS.md)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=10_000, help="synthetic vault size (default 10000)")
    parser.add_argument("--seed", type=int, default=1, help="synthetic vault seed (default 1)")
    parser.add_argument("--vault", type=Path, help="measure this vault instead of a synthetic one (copied first)")
    parser.add_argument("--queries", type=int, default=240, help="in-process search queries (default 240)")
    parser.add_argument("--runs", type=int, default=11, help="cold CLI runs per median (default 11)")
    parser.add_argument("--no-corpus", action="store_true", help=f"skip ../shared/corpora/{CORPUS}")
    parser.add_argument("--write", action="store_true", help="write the table into bench/RESULTS.md")
    parser.add_argument("--profile", action="store_true", help="profile a serial full index instead")
    args = parser.parse_args(argv)
    machine = common.machine_line()  # before we load the machine ourselves
    source = args.vault or synthetic_vault(args.notes, args.seed)
    CACHE.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=CACHE, prefix="run-") as work:
        if args.profile:
            print(profile(source, Path(work)))
            return 0
        label = source.name if args.vault else f"synthetic, {args.notes:,} notes"
        results = [measure(source, label, Path(work), args.queries, args.runs)]
        corpus = common.CORPORA / CORPUS
        if not args.no_corpus and corpus.is_dir():
            results.append(measure(corpus, CORPUS, Path(work), args.queries, args.runs))
    text = render(results, machine)
    print(text)
    if args.write:
        common.write_section(MARKER, text)
    return 1 if any(f.problems for f in results) else 0


if __name__ == "__main__":
    sys.exit(main())
