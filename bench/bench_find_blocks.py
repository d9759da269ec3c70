"""The building blocks of ``find`` (vault_engine/retrieval/find/): ``bench_find_blocks.py
[--names FILE] [--count 20000] [--seed 1] [--write]``.

Measures, on 20,000 names (half file paths, half symbol qualnames) and 20,000 paths:

- fuzzy (fzf's FuzzyMatchV2 behind the bitset prefilter): index build; a search per query,
  cold (a fresh index: its first query computes the bitsets it needs) and warm (p50, p95),
  for selective queries (a name with a letter dropped, as a typo reaching ``find``'s fuzzy
  tier looks) and broad ones (a short common word);
- typos (OSA distance behind the bigram bound): index build; search cold and warm, for names
  with one or two slips (a transposition, a substitution);
- paths (the reversed-component trie): build, and lookup p50 / p95 over exact paths,
  basenames, two-component suffixes, parts of components and absent paths.

Names are synthetic unless ``--names`` gives a file of them, one a line: words mined from the
file names of this interpreter's standard library, assembled into paths of 1 to 6 folders and
into ``Class.method`` / ``function`` names, deterministic for a seed. ``--write`` puts the
table into bench/RESULTS.md between ``<!-- find_blocks -->`` markers.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import sysconfig
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402  (bench/ is not a package: scripts run by path)

from vault_engine.retrieval.find.fuzzy_index import build_fuzzy_index, fuzzy_search  # noqa: E402
from vault_engine.retrieval.find.paths import build_path_index, lookup_path  # noqa: E402
from vault_engine.retrieval.typos import build_typo_index, typo_search  # noqa: E402

MARKER = "find_blocks"
EXTENSIONS = (".py", ".py", ".py", ".ts", ".tsx", ".md", ".json", ".test.ts")
BROAD = ("init", "get", "test", "a")


def vocabulary() -> list[str]:
    """Lower-case words from the standard library's file and folder names."""
    words = set()
    for path in Path(sysconfig.get_paths()["stdlib"]).rglob("*"):
        if "site-packages" in path.parts:
            continue
        words.update(w for w in re.split(r"[^a-z]+", path.stem.lower()) if 3 <= len(w) <= 12)
    return sorted(words)


def synthetic_names(count: int, seed: int) -> tuple[list[str], list[str]]:
    """(``count`` distinct names, half paths and half qualnames; ``count`` distinct paths)."""
    rng = random.Random(seed)
    words = vocabulary()

    def snake(n: int) -> str:
        return "_".join(rng.choice(words) for _ in range(n))

    def camel(n: int) -> str:
        return "".join(rng.choice(words).capitalize() for _ in range(n))

    def path() -> str:
        folders = [rng.choice(words) for _ in range(rng.randint(1, 6))]
        return "/".join(folders + [snake(rng.randint(1, 2)) + rng.choice(EXTENSIONS)])

    def symbol() -> str:
        roll = rng.random()
        if roll < 0.45:
            return f"{camel(rng.randint(1, 3))}.{snake(rng.randint(1, 3))}"
        if roll < 0.8:
            return snake(rng.randint(1, 3))
        return f"{camel(rng.randint(1, 2))}.{camel(1)}.{snake(rng.randint(1, 2))}"

    paths, symbols = set(), set()
    while len(paths) < count:
        paths.add(path())
    while len(symbols) < count - count // 2:
        symbols.add(symbol())
    all_paths = sorted(paths)
    names = all_paths[: count // 2] + sorted(symbols)
    rng.shuffle(names)
    rng.shuffle(all_paths)
    return names, all_paths


def slip(name: str, rng: random.Random, kind: str) -> str:
    """The name with one typo: a dropped letter, a swapped pair or a wrong letter."""
    i = rng.randrange(1, len(name) - 1)
    if kind == "drop":
        return name[:i] + name[i + 1:]
    if kind == "swap":
        return name[:i] + name[i + 1] + name[i] + name[i + 2:]
    return name[:i] + ("x" if name[i] != "x" else "q") + name[i + 1:]


def timings_ms(fn, queries, repeat: int = 3) -> list[float]:
    """Per query, the best of ``repeat`` runs, in milliseconds."""
    out = []
    for query in queries:
        best = min(common.timed(lambda q=query: fn(q))[0] for _ in range(repeat))
        out.append(best * 1000)
    return out


def cold_ms(build, search, queries) -> float:
    """The median first search on a fresh index (lazy per-character state still empty)."""
    values = []
    for query in queries:
        index = build()
        values.append(common.timed(lambda: search(index, query))[0] * 1000)
    return common.median(values)


def measure(names: list[str], paths: list[str], seed: int) -> list[list[str]]:
    rng = random.Random(seed)
    longish = [n for n in names if len(n) >= 8]
    selective = [slip(rng.choice(longish), rng, "drop") for _ in range(40)]
    typos = [slip(rng.choice(longish), rng, rng.choice(("swap", "wrong"))) for _ in range(40)]
    rows = []

    build_s, fuzzy = common.timed(lambda: build_fuzzy_index(names))
    rows.append(["fuzzy index build", f"{build_s * 1000:.1f} ms", ""])
    for label, queries in (("selective", selective), ("broad", list(BROAD))):
        warm = timings_ms(lambda q: fuzzy_search(fuzzy, q, limit=10), queries)
        cold = cold_ms(lambda: build_fuzzy_index(names), lambda i, q: fuzzy_search(i, q, limit=10),
                       queries[:8])
        matches = common.median([len(fuzzy_search(fuzzy, q)) for q in queries])
        rows.append([f"fuzzy search, {label} ({len(queries)} queries, median {matches:.0f} names match)",
                     f"p50 {common.percentile(warm, 50):.2f} ms, p95 {common.percentile(warm, 95):.2f} ms",
                     f"cold {cold:.1f} ms"])
    for query in BROAD:
        rows.append([f"fuzzy search {query!r} (limit 10)", f"{timings_ms(lambda q: fuzzy_search(fuzzy, q, limit=10), [query])[0]:.1f} ms",
                     f"{len(fuzzy_search(fuzzy, query))} names match"])

    build_s, typo = common.timed(lambda: build_typo_index(names))
    rows.append(["typo index build", f"{build_s * 1000:.1f} ms", ""])
    warm = timings_ms(lambda q: typo_search(typo, q), typos)
    cold = cold_ms(lambda: build_typo_index(names), typo_search, typos[:8])
    found = sum(bool(typo_search(typo, q)) for q in typos)
    rows.append([f"typo search ({len(typos)} one-slip queries, {found} found)",
                 f"p50 {common.percentile(warm, 50):.2f} ms, p95 {common.percentile(warm, 95):.2f} ms",
                 f"cold {cold:.1f} ms"])

    builds = [common.timed(lambda: build_path_index(paths))[0] * 1000 for _ in range(5)]
    trie = build_path_index(paths)
    lookups = []
    for path in rng.sample(paths, 400):
        parts = path.split("/")
        lookups += [path, parts[-1], "/".join(parts[-2:]), parts[-1][2:] or "x", "absent/" + parts[-1]]
    per_lookup = []
    for query in lookups:
        started = time.perf_counter_ns()
        lookup_path(trie, query)
        per_lookup.append((time.perf_counter_ns() - started) / 1000)
    rows.append([f"path trie build ({len(paths):,} paths)", f"median {common.median(builds):.1f} ms", ""])
    rows.append([f"path lookup ({len(lookups):,}: exact, basename, suffix, part, absent)",
                 f"p50 {common.percentile(per_lookup, 50):.1f} µs, p95 {common.percentile(per_lookup, 95):.1f} µs",
                 ""])
    return rows


def main(argv: list[str] | None = None) -> int:
    """Measure and print the table; with --write, also into RESULTS.md."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--names", type=Path, help="a file of names, one a line (default: synthetic)")
    parser.add_argument("--count", type=int, default=20000, help="how many synthetic names")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--write", action="store_true", help="write the table into bench/RESULTS.md")
    args = parser.parse_args(argv)
    machine = common.machine_line()
    names, paths = synthetic_names(args.count, args.seed)
    source = f"{len(names):,} synthetic names and {len(paths):,} synthetic paths (seed {args.seed})"
    if args.names:
        names = [n for n in args.names.read_text(encoding="utf-8").splitlines() if n]
        paths = [n for n in names if "/" in n] or paths
        source = f"{len(names):,} names from {args.names.name}, {len(paths):,} of them paths"
    table = common.markdown_table(["what", "time", "note"], measure(names, paths, args.seed))
    body = f"### find building blocks\n\n{machine}; {source}.\n\n{table}\n"
    print(body)
    if args.write:
        common.write_section(MARKER, body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
