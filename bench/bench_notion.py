"""Notion import benchmark (issue 5): ``bench_notion.py [--write] [--corpus PATH]``.

Imports each of the six real Notion exports in ../shared/corpora/notion-export into one fresh
vault (each into ``notion/<export>``, in name order, through ``Vault.notion_import`` without
the embedding model) and reports, per export: pages in the export (``.md`` files) vs pages
imported, database ids (CSV files) vs database notes, relative links present vs resolved at
import time, and why the rest is unresolved. Then it asks the index, an independent resolver
with Obsidian's rules, how many links in the imported notes resolve once all six are in,
and times a no-change re-import of all six. ``--write`` puts the tables into
bench/RESULTS.md between ``<!-- notion -->`` markers.
"""

from __future__ import annotations

import argparse
import collections
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402  (bench/ is not a package: scripts run by path)

MARKER = "notion"
CORPUS = common.CORPORA / "notion-export"
REASONS = {"page neither": "page not in any imported export yet", "file missing": "file missing from the export"}


def export_facts(export: Path) -> tuple[int, int]:
    """(pages, database ids) the export holds, counted from file names alone."""
    from vault_engine.sources.notion.links import split_export_name

    pages = sum(1 for _ in export.rglob("*.md"))
    databases = {split_export_name(p.name)[1] for p in export.rglob("*.csv")} - {None}
    return pages, len(databases)


def import_all(root: Path, exports: list[Path]) -> list[dict]:
    from vault_engine.vault import Vault

    rows = []
    with Vault(root) as vault:
        for export in exports:
            seconds, report = common.timed(lambda e=export: vault.notion_import(
                e, into=f"notion/{e.name}", embed=False))
            pages, databases = export_facts(export)
            reasons = collections.Counter(_reason(u.reason) for u in report.unresolved)
            written = len(report.new) + len(report.updated) + report.unchanged
            rows.append({"export": export.name, "pages": pages, "imported": report.pages,
                         "databases": databases, "database_notes": report.databases,
                         "notes_written": written, "relative": report.links_relative,
                         "resolved": report.links_resolved, "reasons": reasons,
                         "problems": len(report.problems), "seconds": seconds})
    return rows


def _reason(text: str) -> str:
    return next((label for key, label in REASONS.items() if text.startswith(key)), text)


def index_view(root: Path) -> tuple[int, int, list[str]]:
    """(links in notion notes, resolved by the index, the unresolved ones)."""
    from vault_engine.vault import Vault

    with Vault(root) as vault:
        links = [link for link in vault.all_links() if link.source.startswith("notion/")]
    unresolved = [f"{link.source}: {link.raw[:90]}" for link in links if not link.resolved]
    return len(links), len(links) - len(unresolved), unresolved


def reimport_all(root: Path, exports: list[Path]) -> dict:
    """A second import of every export: what changes, and how many links resolve now that
    every page is in the vault."""
    from vault_engine.vault import Vault

    totals = collections.Counter()
    started = time.perf_counter()
    with Vault(root) as vault:
        for export in exports:
            report = vault.notion_import(export, into=f"notion/{export.name}", embed=False)
            totals.update(unchanged=report.unchanged, rewritten=len(report.new) + len(report.updated),
                          relative=report.links_relative, resolved=report.links_resolved)
    return {**totals, "seconds": time.perf_counter() - started}


def shared_ids(exports: list[Path]) -> int:
    """Notion ids (pages or databases) that more than one export holds."""
    from vault_engine.sources.notion.links import split_export_name

    seen = collections.Counter()
    for export in exports:
        seen.update({split_export_name(p.name)[1] for p in export.rglob("*")} - {None})
    return sum(1 for n in seen.values() if n > 1)


def render(rows: list[dict], index: tuple[int, int, list[str]], again: dict, shared: int) -> str:
    table = []
    for r in rows:
        why = ", ".join(f"{n} {label}" for label, n in sorted(r["reasons"].items())) or "-"
        table.append([r["export"], f"{r['imported']} / {r['pages']}",
                      f"{r['database_notes']} / {r['databases']}",
                      f"{r['resolved']} / {r['relative']}", why, str(r["problems"]),
                      f"{r['seconds']:.2f}"])
    total = {k: sum(r[k] for r in rows) for k in ("pages", "imported", "databases",
                                                   "database_notes", "relative", "resolved",
                                                   "problems", "seconds")}
    table.append(["**all six**", f"**{total['imported']} / {total['pages']}**",
                  f"{total['database_notes']} / {total['databases']}",
                  f"**{total['resolved']} / {total['relative']}**", "", str(total["problems"]),
                  f"{total['seconds']:.2f}"])
    links, resolved, unresolved = index
    lines = [
        "## Notion import (bench/bench_notion.py)", "",
        f"{common.machine_line()}; timings taken under load unless the load average is near 0.", "",
        "Each of the six real exports in `../shared/corpora/notion-export` imported into one "
        "fresh vault (`notion/<export>`, name order, no embedding):", "",
        common.markdown_table(["export", "pages imported / in export",
                               "database notes / database ids", "relative links resolved / present",
                               "unresolved, why", "problems", "import s"], table), "",
        f"After all six: the index resolves **{resolved} of {links}** links in the imported notes "
        "(Obsidian rules, counting table title cells that link row pages). A link to a page of an "
        "export imported later resolves then; what stays unresolved names a file or page that no "
        "export contains:", "",
        *[f"- `{item}`" for item in unresolved], "",
        f"Re-import of all six, nothing changed in the exports: {again['unchanged']} notes "
        f"unchanged, {again['rewritten']} rewritten ({shared} Notion ids appear in two exports; "
        "their one note takes the version of whichever export is imported last), "
        f"{again['seconds']:.2f} s. With every page now in the vault, {again['resolved']} of "
        f"{again['relative']} relative links resolve at import time.",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="the folder of exports")
    parser.add_argument("--write", action="store_true", help="write the section of bench/RESULTS.md")
    args = parser.parse_args(argv)
    if not args.corpus.is_dir():
        print(f"bench_notion: no corpus at {args.corpus}: nothing to measure", file=sys.stderr)
        return 0
    exports = sorted(p for p in args.corpus.iterdir() if p.is_dir())
    with tempfile.TemporaryDirectory(prefix="bench-notion-") as tmp:
        root = Path(tmp)
        (root / "vault-engine.toml").write_text("[model]\nenabled = false\n", encoding="utf-8")
        rows = import_all(root, exports)
        text = render(rows, index_view(root), reimport_all(root, exports), shared_ids(exports))
    print(text)
    if args.write:
        common.write_section(MARKER, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
